"""Liveness of zones, variables and tracked cards, per phase (a classic dataflow reduction).

Within a deal, a zone's size (or a deal variable's value) that no phase still
reachable before the next deal reads can be forgotten without changing any
behaviour: the next deal gathers the cards and resets the deal variables.  The
explorer replaces such dead values by a canonical one, which keeps the abstract
state space small and changes no verdict.
"""
from __future__ import annotations

import networkx as nx

from atout.compiler import ir


def phase_graph(g: ir.Game) -> nx.DiGraph:
    """Phases as nodes; an edge P -> Q when some effect of P says ``goto Q``; ``<end>`` for ``end deal``."""
    G = nx.DiGraph()
    for ph in g.phases:
        G.add_node(ph.name)
    G.add_node("<end>")
    for ph in g.phases:
        bodies = [a.body for a in ph.actions] + [ph.body]
        if ph.trick is not None:
            bodies += [ph.trick.then, ph.trick.after]
        for b in bodies:
            for s in walk(b):
                if isinstance(s, ir.Goto):
                    G.add_edge(ph.name, s.phase)
                elif isinstance(s, ir.EndDeal):
                    G.add_edge(ph.name, "<end>")
            for t in _scores(b, g):
                for s in walk(t):
                    if isinstance(s, ir.EndDeal):
                        G.add_edge(ph.name, "<end>")
    return G


def _scores(body, g):
    for s in walk(body):
        if isinstance(s, ir.Score):
            yield from (r.body for r in g.table(s.table).rows)


walk = ir.walk_stmts


def exprs_of_stmt(s):
    if isinstance(s, ir.Assign):
        yield s.value
        if s.index is not None:
            yield s.index
    elif isinstance(s, ir.Move):
        yield s.source
        yield s.dest
        if s.count is not None:
            yield s.count
    elif isinstance(s, ir.Deal):
        yield from s.packets
        yield s.source
        yield s.starting
    elif isinstance(s, (ir.Shuffle, ir.Gather, ir.Reveal)):
        yield s.zone
    elif isinstance(s, ir.If):
        for c, _ in s.branches:
            yield c


def subexprs(e):
    yield e
    for child in _children(e):
        yield from subexprs(child)


def _children(e):
    if isinstance(e, ir.Index):
        return (e.base, e.index)
    if isinstance(e, ir.Call):
        return e.args
    if isinstance(e, ir.BinOp):
        return (e.left, e.right)
    if isinstance(e, (ir.Not, ir.Neg)):
        return (e.operand,)
    if isinstance(e, ir.Cond):
        return (e.test, e.then, e.orelse)
    if isinstance(e, ir.InSet):
        return (e.value, *e.items)
    if isinstance(e, ir.Quant):
        return (e.body,) + ((e.domain,) if e.domain is not None else ())
    if isinstance(e, ir.NextPlayer):
        return (e.after, e.cond)
    return ()


def _zone_name(e):
    if isinstance(e, ir.ZoneRef):
        return e.name
    if isinstance(e, ir.Index) and isinstance(e.base, ir.ZoneRef):
        return e.base.name
    return None


class Liveness:
    """``zones[phase]`` / ``vars[phase]``: zone families and deal variables that may still be read in this
    deal from ``phase`` on; ``assigned_after[phase]``: variables that may still be assigned."""

    def __init__(self, g: ir.Game, extra_zones: set[str] = frozenset(), extra_vars: set[str] = frozenset(),
                 extra_phases=None):
        self.g = g
        G = phase_graph(g)
        start = g.match.start
        reads_z: dict[str, set] = {}
        reads_v: dict[str, set] = {}
        assigns: dict[str, set] = {}
        for ph in g.phases:
            rz, rv, asg = set(), set(), set()
            exprs = []
            bodies = [a.body for a in ph.actions] + [ph.body]
            for a in ph.actions:
                exprs.append(a.guard)
                if a.param is not None:
                    for x in (a.param.zone, a.param.low, a.param.high, a.param.dest):
                        if x is not None:
                            exprs.append(x)
                    if a.param.kind in ("choose", "card") and a.param.zone is not None:
                        z = _zone_name(a.param.zone)
                        if z:
                            rz.add(z)
            if ph.actor is not None:
                exprs.append(ph.actor)
            if ph.trick is not None:
                t = ph.trick
                exprs += [t.count, t.leader, t.trump, t.skip] + [r.condition for r in t.follow]
                bodies += [t.then, t.after]
                rz.update({"hand", "trick"})
            for b in bodies:
                for s in walk(b):
                    exprs.extend(exprs_of_stmt(s))
                    if isinstance(s, ir.Assign):
                        asg.add(s.var)
                    if isinstance(s, ir.Move):  # the number of cards moved depends on the source's size
                        z = _zone_name(s.source)
                        if z:
                            rz.add(z)
                    if isinstance(s, ir.Deal):
                        z = _zone_name(s.source)
                        if z:
                            rz.add(z)
                    if isinstance(s, ir.Score):
                        for r in g.table(s.table).rows:
                            exprs.append(r.guard)
                            for s2 in walk(r.body):
                                exprs.extend(exprs_of_stmt(s2))
                                if isinstance(s2, ir.Assign):
                                    asg.add(s2.var)
            for e in exprs:
                for x in subexprs(e):
                    if isinstance(x, ir.VarRef):
                        rv.add(x.name)
                    elif isinstance(x, ir.Call) and x.fn in ("size", "top", "has") and _zone_name(x.args[0]):
                        rz.add(_zone_name(x.args[0]))
                    elif isinstance(x, ir.Quant) and x.domain is not None and _zone_name(x.domain):
                        rz.add(_zone_name(x.domain))
            reads_z[ph.name], reads_v[ph.name], assigns[ph.name] = rz, rv, asg
        ends_reads = {x.name for x in subexprs(g.match.ends_when) if isinstance(x, ir.VarRef)}
        # reachable within the deal: do not pass through the start phase or the end of the deal
        H = G.copy()
        H.remove_node("<end>")
        self.zones: dict[str, frozenset] = {}
        self.vars: dict[str, frozenset] = {}
        self.assigned_after: dict[str, frozenset] = {}
        for ph in g.phases:
            reach = {ph.name}
            stack = [ph.name]
            while stack:
                p = stack.pop()
                for q in H.successors(p):
                    if q != start and q not in reach:
                        reach.add(q)
                        stack.append(q)
            extra_here = set(extra_zones) if extra_phases is None or ph.name in extra_phases else set()
            self.zones[ph.name] = frozenset(set().union(*(reads_z[p] for p in reach)) | extra_here)
            self.vars[ph.name] = frozenset(set().union(*(reads_v[p] for p in reach)) | set(extra_vars) | ends_reads)
            self.assigned_after[ph.name] = frozenset(set().union(*(assigns[p] for p in reach)))
        self.observed = frozenset(self._observed_zones())

    def _observed_zones(self):
        """Zones whose cards (not only their number) some expression reads: has, top, quantifiers."""
        out = set()
        for ph in self.g.phases:
            exprs = [a.guard for a in ph.actions]
            for b in [a.body for a in ph.actions] + [ph.body] + ([ph.trick.then, ph.trick.after] if ph.trick else []):
                for s in walk(b):
                    exprs.extend(exprs_of_stmt(s))
            for e in exprs:
                for x in subexprs(e):
                    if isinstance(x, ir.Call) and x.fn in ("top", "has") and _zone_name(x.args[0]):
                        out.add(_zone_name(x.args[0]))
                    elif isinstance(x, ir.Quant) and x.domain is not None and _zone_name(x.domain):
                        out.add(_zone_name(x.domain))
        return out


def card_literals(g: ir.Game) -> list[tuple[ir.Expr, ir.Expr]]:
    """Every ``RANK of SUIT`` whose value depends on the state: (rank expr, suit expr) pairs;
    constant literals are returned as (Const card, None)."""
    out = []

    def visit(e):
        for x in subexprs(e):
            if isinstance(x, ir.Call) and x.fn == "card":
                out.append((x.args[0], x.args[1]))
            elif isinstance(x, ir.Const) and x.type.kind == "card" and x.value >= 0:
                out.append((x, None))

    for ph in g.phases:
        for a in ph.actions:
            visit(a.guard)
            for b in (a.body,):
                for s in walk(b):
                    for e in exprs_of_stmt(s):
                        visit(e)
        for s in walk(ph.body):
            for e in exprs_of_stmt(s):
                visit(e)
        if ph.trick is not None:
            for s in walk(ph.trick.then + ph.trick.after):
                for e in exprs_of_stmt(s):
                    visit(e)
    for t in g.tables:
        for r in t.rows:
            visit(r.guard)
    return out


def rule_expressions(g: ir.Game, first_dealer: bool = True) -> list:
    """Every expression of the rules and of the properties (the match's first dealer optionally left out)."""
    exprs = [g.match.ends_when, g.match.returns, g.match.next_dealer]
    if first_dealer:
        exprs.append(g.match.first_dealer)
    exprs += [v.init for v in g.vars]
    for ph in g.phases:
        if ph.actor is not None:
            exprs.append(ph.actor)
        bodies = [ph.body]
        for a in ph.actions:
            exprs.append(a.guard)
            bodies.append(a.body)
            if a.param is not None:
                exprs += [x for x in (a.param.zone, a.param.low, a.param.high, a.param.dest) if x is not None]
        if ph.trick is not None:
            t = ph.trick
            exprs += [t.count, t.leader, t.trump, t.skip] + [r.condition for r in t.follow]
            exprs += list(getattr(t, "more_skips", ()))
            bodies += [t.then, t.after]
        for b in bodies:
            for st in walk(b):
                exprs.extend(exprs_of_stmt(st))
    for t in g.tables:
        for r in t.rows:
            exprs.append(r.guard)
            for st in walk(r.body):
                exprs.extend(exprs_of_stmt(st))
    for p in g.properties:
        exprs += [x for x in (p.expr, p.player) if x is not None]
    return exprs

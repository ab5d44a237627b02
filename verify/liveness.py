"""Liveness of zones, variables and tracked cards, per phase (a classic dataflow reduction).

Within a deal, a zone's size (or a deal variable's value) that nothing still to run before the next
deal reads can be forgotten without changing any behaviour: the next deal gathers the cards and resets
the deal variables.  The explorer replaces such dead values by a canonical one, which keeps the
abstract state space small and changes no verdict.

*Reads* are collected by walking every field of the IR (:func:`exprs_of`), so that an expression added
to the language later is a read until someone decides otherwise; only the fields listed in
:data:`WRITE_ONLY_ZONES` (where a zone is written, never read) are exempt.  What is read includes:

* every expression of a phase (guards, actors, parameters, effects, trick options, and the rows of the
  tables it scores) and the old value of a variable that ``+=`` or ``-=`` changes;
* what the match reads at any moment (``ends when``, ``next dealer``, ``returns``): live everywhere;
* what the properties read (:meth:`Liveness.__init__` ``props``): an invariant in every phase, the
  ``where`` of a ``conserves`` in its phases, a ``can_force`` player in its phases.
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

import networkx as nx

from atout.compiler import ir

walk = ir.walk_stmts

# (IR class, field) where a zone is only written: its old size is not read there.
WRITE_ONLY_ZONES = {("Move", "dest"), ("MoveCard", "dest"), ("Param", "dest"), ("Gather", "zone"), ("Shuffle", "zone"),
                    ("Reveal", "zone")}


def exprs_of(node, skip_write_only: bool = False):
    """Every top-level expression inside ``node`` (an IR node, a tuple of them), through every dataclass
    field except spans; with ``skip_write_only``, the zone fields of :data:`WRITE_ONLY_ZONES` are left out."""
    if isinstance(node, ir.Expr):
        yield node
        return
    if isinstance(node, (tuple, list)):
        for x in node:
            yield from exprs_of(x, skip_write_only)
        return
    if not is_dataclass(node) or isinstance(node, type):
        return
    cls = type(node).__name__
    for f in fields(node):
        if f.name == "span":
            continue
        if skip_write_only and (cls, f.name) in WRITE_ONLY_ZONES:
            v = getattr(node, f.name)
            if isinstance(v, ir.Index):    # hand[p]: the player expression is still read
                yield v.index
            continue
        yield from exprs_of(getattr(node, f.name), skip_write_only)


def subexprs(e):
    yield e
    for child in _children(e):
        yield from subexprs(child)


def free_locals(e) -> frozenset:
    """The names of the locals ``e`` reads that no quantifier or ``next`` inside it binds (``p`` in a
    property's ``invariant C``, which holds for every player ``p``)."""
    if isinstance(e, ir.Local):
        return frozenset((e.name,))
    if isinstance(e, ir.Quant):
        outer = free_locals(e.domain) if e.domain is not None else frozenset()
        return outer | (free_locals(e.body) - {e.var})
    if isinstance(e, ir.NextPlayer):
        return free_locals(e.after) | (free_locals(e.cond) - {e.var})
    out = frozenset()
    for child in _children(e):
        out |= free_locals(child)
    return out


def players_bound(game, e) -> range:
    """The values ``p`` must take to decide a property expression ``e`` of ``game`` (its ``players`` seats)
    that holds "for every player ``p``": every seat (0-based) when ``p`` is free in ``e``, else one (the value
    is then the same for all).  Whether ``p`` is free is found once per expression, kept on the game (which
    owns the expressions) by identity: hashing an IR node walks it."""
    cache = game.__dict__.setdefault("_free_p", {})
    got = cache.get(id(e))
    if got is None or got[0] is not e:
        got = cache[id(e)] = (e, "p" in free_locals(e))
    n = game.players
    return range(n) if got[1] else range(min(n, 1))


_CHILD_FIELDS: dict = {}     # IR class -> the names of its fields that may hold subexpressions


def _children(e):
    names = _CHILD_FIELDS.get(e.__class__)
    if names is None:
        if not is_dataclass(e):
            return ()
        names = _CHILD_FIELDS[e.__class__] = tuple(f.name for f in fields(e) if f.name not in ("span", "type"))
    out = []
    for name in names:
        v = getattr(e, name)
        if isinstance(v, ir.Expr):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, ir.Expr))
    return out


def exprs_of_stmt(s):
    """The expressions a statement reads (its own, not those of nested blocks)."""
    if isinstance(s, ir.If):
        for c, _ in s.branches:
            yield c
        return
    if isinstance(s, ir.For):
        for e in (s.source, s.high):    # what the loop visits (a range's bounds, a zone's cards)
            if e is not None:
                yield e
        return
    yield from exprs_of(s)


def _zone_name(e):
    if isinstance(e, ir.ZoneRef):
        return e.name
    if isinstance(e, ir.Index) and isinstance(e.base, ir.ZoneRef):
        return e.base.name
    return None


def phase_graph(g: ir.Game) -> nx.DiGraph:
    """Phases as nodes; an edge P -> Q when some effect of P says ``goto Q``; ``<end>`` for ``end deal``."""
    G = nx.DiGraph()
    for ph in g.phases:
        G.add_node(ph.name)
    G.add_node("<end>")
    for ph in g.phases:
        for s in phase_stmts(g, ph):
            if isinstance(s, ir.Goto):
                G.add_edge(ph.name, s.phase)
            elif isinstance(s, ir.EndDeal):
                G.add_edge(ph.name, "<end>")
    return G


def phase_stmts(g: ir.Game, ph: ir.Phase) -> list:
    """Every statement a phase can run: its actions' and body's, its trick blocks', and the rows of the
    tables they score."""
    bodies = [a.body for a in ph.actions] + [ph.body]
    if ph.trick is not None:
        bodies += [ph.trick.then, ph.trick.after]
    out = [s for b in bodies for s in walk(b)]
    for t in scored_tables(g, out):
        for r in t.rows:
            out.extend(walk(r.body))
    return out


def scored_tables(g: ir.Game, stmts) -> list:
    """The tables that ``score`` statements among ``stmts`` (and the rows of those tables, in turn) score."""
    seen, out, todo = set(), [], [s for s in stmts if isinstance(s, ir.Score)]
    while todo:
        s = todo.pop(0)
        if s.table in seen:
            continue
        seen.add(s.table)
        t = g.table(s.table)
        out.append(t)
        todo.extend(x for r in t.rows for x in walk(r.body) if isinstance(x, ir.Score))
    return out


def phase_exprs(g: ir.Game, ph: ir.Phase) -> list:
    """Every expression a phase reads: guards, actor, parameters, trick options, the statements of its
    blocks (nested ones included) and the conditions of the rows it scores."""
    exprs = []
    for a in ph.actions:
        exprs.extend(exprs_of(a.guard))
        if a.param is not None:
            exprs.extend(exprs_of(a.param, skip_write_only=True))
    if ph.actor is not None:
        exprs.append(ph.actor)
    if ph.trick is not None:
        t = ph.trick
        for f in fields(t):
            if f.name not in ("then", "after", "span"):
                exprs.extend(exprs_of(getattr(t, f.name)))
    stmts = phase_stmts(g, ph)
    for s in stmts:
        if isinstance(s, (ir.If, ir.For)):
            exprs.extend(exprs_of_stmt(s))
        else:
            exprs.extend(exprs_of(s, skip_write_only=True))
    for t in scored_tables(g, stmts):
        exprs.extend(r.guard for r in t.rows)
    return exprs


def _reads(exprs, zones=()) -> tuple[set, set]:
    """(variable names, zone names) read by the expressions.  A quantifier over the cards of a zone reads
    every zone in ``zones`` too: which cards a zone holds depends on where the others are (every card is in
    one zone), which the symbolic refinements (:mod:`.symbolic`) use, so the sizes must be kept."""
    rv, rz = set(), set()
    for e in exprs:
        for x in subexprs(e):
            if isinstance(x, ir.VarRef):
                rv.add(x.name)
            elif isinstance(x, ir.ZoneRef):
                rz.add(x.name)
            elif isinstance(x, ir.Call) and x.fn == "holder":
                rz.add("hand")         # holder(c) looks for the card in every hand
            elif isinstance(x, ir.Quant) and x.domain is not None:
                rz.update(zones)
    return rv, rz


def match_exprs(g: ir.Game) -> list:
    """What the match reads at any moment: ``ends when`` after every change, ``next dealer`` at every deal's
    end, ``returns`` at the end."""
    return [g.match.ends_when, g.match.next_dealer, g.match.returns]


class Liveness:
    """``zones[phase]`` / ``vars[phase]``: zone families and deal variables that may still be read in this
    deal from ``phase`` on; ``assigned_after[phase]``: variables that may still be assigned.

    ``props``: the properties whose reads must be kept (all of the game's by default)."""

    def __init__(self, g: ir.Game, props=None):
        self.g = g
        G = phase_graph(g)
        props = g.properties if props is None else props
        all_phases = [ph.name for ph in g.phases]
        extra: dict[str, tuple[set, set]] = {p: (set(), set()) for p in all_phases}

        def add(exprs, phases):
            rv, rz = _reads([e for e in exprs if e is not None])
            for p in phases:
                if p in extra:
                    extra[p][0].update(rv)
                    extra[p][1].update(rz)

        add(match_exprs(g), all_phases)
        for prop in props:
            if prop.kind == "invariant":
                add([prop.expr], all_phases)
            elif prop.kind == "conserves":
                add([prop.expr], prop.phases)
            elif prop.kind == "can_force":
                add([prop.player], prop.phases)
        reads_z: dict[str, set] = {}
        reads_v: dict[str, set] = {}
        assigns: dict[str, set] = {}
        every_zone = [z.name for z in g.zones]
        for ph in g.phases:
            rv, rz = _reads(phase_exprs(g, ph), every_zone)
            asg = set()
            for s in phase_stmts(g, ph):
                if isinstance(s, ir.ASSIGNS):
                    asg.add(s.var)
                    if isinstance(s, ir.Assign) and s.op != "=":
                        rv.add(s.var)          # += and -= read the old value
            if ph.trick is not None:
                rz.update({"hand", "trick"})
            rv |= extra[ph.name][0]
            rz |= extra[ph.name][1]
            reads_z[ph.name], reads_v[ph.name], assigns[ph.name] = rz, rv, asg
        # reachable within the deal: do not pass through its end (a 'goto' to the start phase is within the
        # deal: the deal's variables and zones go on, and that phase reads them)
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
                    if q not in reach:
                        reach.add(q)
                        stack.append(q)
            self.zones[ph.name] = frozenset(set().union(*(reads_z[p] for p in reach)))
            self.vars[ph.name] = frozenset(set().union(*(reads_v[p] for p in reach)))
            self.assigned_after[ph.name] = frozenset(set().union(*(assigns[p] for p in reach)))
        self.observed = frozenset(self._observed_zones())
        found = frozen_at_deal_ends(g, props)
        self.frozen = {name: frozen for name, (frozen, _) in found.items()}
        # the deal variables the phase keeps exactly and never changes: recorded with the frozen ones
        self.companions: dict = {}
        for name, (frozen, unwritten) in found.items():
            self.vars[name] = self.vars[name] - frozen
            self.companions[name] = frozenset(self.vars[name] & unwritten)

    def _observed_zones(self):
        """Zones whose cards (not only their number) some expression reads: has, top, quantifiers."""
        out = set()
        exprs = list(rule_expressions(self.g))
        for e in exprs:
            for x in subexprs(e):
                if isinstance(x, ir.Call) and x.fn in ("top", "has") and _zone_name(x.args[0]):
                    out.add(_zone_name(x.args[0]))
                elif isinstance(x, ir.Quant) and x.domain is not None and _zone_name(x.domain):
                    out.add(_zone_name(x.domain))
                elif isinstance(x, ir.Call) and x.fn == "holder":
                    out.add("hand")
        for s in ir.all_stmts(self.g):
            if isinstance(s, ir.For) and s.over == "cards" and _zone_name(s.source):
                out.add(_zone_name(s.source))      # a loop visits the cards themselves
        return out


def card_literals(g: ir.Game) -> list[tuple[ir.Expr, ir.Expr]]:
    """Every ``RANK of SUIT`` whose value depends on the state: (rank expr, suit expr) pairs;
    constant literals are returned as (Const card, None).  Properties' literals are included."""
    out = []
    for e in rule_expressions(g):
        for x in subexprs(e):
            if isinstance(x, ir.Call) and x.fn == "card":
                out.append((x.args[0], x.args[1]))
            elif isinstance(x, ir.Const) and x.type.kind == "card" and x.value >= 0:
                out.append((x, None))
    return out


def rule_expressions(g: ir.Game, first_dealer: bool = True, properties: bool = True) -> list:
    """Every expression of the rules (and of the properties), the match's first dealer optionally left out:
    every field of every phase, table, variable and of the match, walked generically."""
    exprs = []
    m = g.match
    for f in fields(m):
        if f.name == "first_dealer" and not first_dealer:
            continue
        exprs.extend(exprs_of(getattr(m, f.name)))
    exprs.extend(exprs_of(g.vars))
    exprs.extend(exprs_of(g.phases))
    exprs.extend(exprs_of(g.tables))
    if properties:
        exprs.extend(exprs_of(g.properties))
    return exprs


def killed_on_entry(g: ir.Game, act: ir.Action) -> frozenset:
    """The deal variables (plain ones, not per player or side) that every run of ``act``'s body sets with
    ``=`` before anything reads them, and that its guard does not read: what the action does (its outcomes,
    and every state anything observes on its way) is the same whatever their values before it.  Only the
    body's first statements are looked at, as long as they are assignments and ``if``s made of assignments
    (nothing there rests, draws, scores or leaves the phase); a variable set in an ``if`` counts only when
    every branch, ``else`` included, sets it.  The explorer runs such an action once for all the states that
    differ only in these variables (:meth:`.explore.Explorer._search`)."""
    types = {v.name: v for v in g.vars}
    plain = (ir.Assign, ir.If)

    def run(stmts, read: set) -> tuple[set, set]:
        """(the variables ``stmts`` set before reading them, everything read): up to the first statement
        that is neither an assignment nor an ``if`` of assignments."""
        kills, read = set(), set(read)
        for s in stmts:
            if isinstance(s, ir.Assign):
                read |= _reads(exprs_of(s))[0]
                v = types[s.var]
                if s.op == "=" and s.index is None and v.scope == "deal" and v.per is None and s.var not in read:
                    kills.add(s.var)
                else:
                    read.add(s.var)
            elif isinstance(s, ir.If) and all(isinstance(x, plain) for x in walk(s.orelse)) and \
                    all(isinstance(x, plain) for _, b in s.branches for x in walk(b)):
                read |= _reads(c for c, _ in s.branches)[0]
                per_branch, reads_inside = [], set()
                for b in [b for _, b in s.branches] + [s.orelse]:
                    k, r = run(b, read)
                    per_branch.append(k)
                    reads_inside |= r
                kills |= set.intersection(*per_branch) if s.orelse else set()
                read |= reads_inside
            else:
                break
        return kills, read

    guard = _reads(exprs_of(act.guard))[0] if act.guard is not None else set()
    return frozenset(run(act.body, guard)[0])


def surely_leaves(block) -> bool:
    """Whether every run of ``block`` ends with ``goto`` or ``end deal`` (an ``if`` counts when all its branches
    and its ``else`` do; a loop never does)."""
    for s in block:
        if isinstance(s, (ir.Goto, ir.EndDeal)):
            return True
        if isinstance(s, ir.If) and s.orelse and surely_leaves(s.orelse) and \
                all(surely_leaves(body) for _, body in s.branches):
            return True
    return False


def read_after_tricks(g: ir.Game, ph: ir.Phase) -> tuple[set, set, bool] | None:
    """What may be read once the last trick of the trick phase ``ph`` is taken (its ``then`` block about to
    run): ``(built-in names, function names, whether it can go to a phase)`` read by that block, the tables it
    scores, every phase it can go to (and on), the match and every property; None when the block may not
    leave the phase (the trick's state then stays in use)."""
    then = ph.trick.then
    if not surely_leaves(then):
        return None
    stmts = list(walk(then))
    exprs = list(exprs_of(then))
    for t in scored_tables(g, stmts):
        exprs.extend(exprs_of(t.rows))
    G = phase_graph(g)
    todo = [s.phase for s in stmts if isinstance(s, ir.Goto)]
    todo += [s.phase for t in scored_tables(g, stmts) for r in t.rows for s in walk(r.body)
             if isinstance(s, ir.Goto)]
    seen = set()
    while todo:
        p = todo.pop()
        if p in seen or p == "<end>":
            continue
        seen.add(p)
        q = g.phase(p)
        exprs.extend(exprs_of(q))
        for t in scored_tables(g, phase_stmts(g, q)):
            exprs.extend(exprs_of(t.rows))
        todo.extend(G.successors(p))
    exprs.extend(e for e in match_exprs(g) if e is not None)
    exprs.extend(exprs_of(g.properties))
    builtins, calls = set(), set()
    for e in exprs:
        for x in subexprs(e):
            if isinstance(x, ir.Builtin):
                builtins.add(x.name)
            elif isinstance(x, ir.Call):
                calls.add(x.fn)
    return builtins, calls, bool(seen)


def _stmt_locals(stmts) -> set:
    """The names of every local that an expression inside ``stmts`` (nested blocks included) reads."""
    return {x.name for e in exprs_of(tuple(stmts)) for x in subexprs(e) if isinstance(x, ir.Local)}


def action_deal_ends(g: ir.Game) -> list[tuple[ir.Phase, tuple, int]]:
    """``[(phase, block, start)]``: the *deal-end tails* of choice phases' actions: ``block`` is an action's
    body or a branch of an ``if`` in it (not inside a ``for``), and from its statement ``start`` on (the
    first such) every run reaches ``end deal``, nothing in it or in the tables it scores goes to a phase,
    and it reads no local (the action's parameter).  A trick played by hand ends the deal that way (``if
    done < 13 { goto play }  score deal_score  end deal``, or the same with the scoring in an ``else``):
    like a trick phase's ``then`` block, the tail runs once a deal, from the state the action leaves, and
    the explorer summarises it (:meth:`.explore.Explorer._summary`)."""
    out = []

    def visit(ph, block):
        for start in range(len(block)):
            tail = block[start:]
            stmts = list(walk(tail))
            for t in scored_tables(g, stmts):
                for r in t.rows:
                    stmts.extend(walk(r.body))
            if any(isinstance(s, ir.Goto) for s in stmts):
                continue
            if not surely_leaves(tail):
                break       # nor does any shorter tail
            if not _stmt_locals(tail):
                out.append((ph, block, start))
                return      # the first is the longest tail
        for s in block:
            if isinstance(s, ir.If):
                for _, body in s.branches:
                    visit(ph, body)
                if s.orelse:
                    visit(ph, s.orelse)

    for ph in g.phases:
        if ph.kind == "choice":
            for act in ph.actions:
                visit(ph, act.body)
    return out


def without_tails(block: tuple, tails: dict) -> tuple:
    """``block`` (statements) with every deal-end tail cut off, in it and in the ``if`` branches inside it:
    ``tails`` maps ``id(block)`` to the tail's start (:func:`action_deal_ends`)."""
    from dataclasses import replace
    block = block[:tails.get(id(block), len(block))]
    out = []
    for s in block:
        if isinstance(s, ir.If):
            s = replace(s, branches=tuple((c, without_tails(b, tails)) for c, b in s.branches),
                        orelse=without_tails(s.orelse, tails) if s.orelse else s.orelse)
        out.append(s)
    return tuple(out)


def deal_end_blocks(g: ir.Game) -> list[tuple[ir.Phase, tuple, tuple, int]]:
    """``[(phase, statements, block, start)]``: the blocks that surely end the deal and that z3 follows
    (:func:`.symbolic.encodable`), each the ``statements`` of ``block`` from ``start`` on: the ``then``
    blocks of trick phases that go to no phase (from 0), and the deal-end tails of choice phases' actions
    (:func:`action_deal_ends`).  The statements of a tail are a new tuple at each call (compare them by the
    ids of their statements)."""
    from .symbolic import encodable
    out = []
    for ph in g.phases:
        if ph.trick is not None and ph.trick.then:
            after = read_after_tricks(g, ph)
            if after is not None and not after[2] and encodable(ph.trick.then):
                out.append((ph, ph.trick.then, ph.trick.then, 0))
    for ph, block, start in action_deal_ends(g):
        if encodable(block[start:]):
            out.append((ph, block[start:], block, start))
    return out


def frozen_at_deal_ends(g: ir.Game, props=()) -> dict:
    """``phase -> (frozen, unwritten)``: ``frozen``, the deal variables that the phase keeps unchanged until
    its deal-end blocks read them (:func:`deal_end_blocks`: a trick phase's ``then { score ... end deal }``,
    the tails of a choice phase's actions that end the deal, which z3 follows); nothing in the phase (or
    after it in the deal) writes them or reads them elsewhere, nor does the match or a property in
    ``props`` other than an invariant.

    The explorer need not keep them in that phase (Spades' bids during the thirteen tricks, or the bids of a
    game whose tricks are played by hand): it records their values each time play enters the phase
    (:meth:`.absint.Abstraction.record_entry`) and z3 reads the blocks, and the invariants, over those
    recorded values; every concrete run keeps the values it entered with.
    ``unwritten``: every deal variable nothing in the phase or after it writes (kept with the frozen ones, for
    the relation between them)."""
    from dataclasses import replace

    blocking = set(_reads([e for e in match_exprs(g) if e is not None])[0])
    for p in props:
        if p.kind != "invariant":
            blocking |= _reads(list(exprs_of(p)))[0]
    deal_vars = {v.name for v in g.vars if v.scope == "deal"}
    G = phase_graph(g)
    blocks: dict = {}      # phase -> [(statements, block, start)]
    for ph, stmts, block, start in deal_end_blocks(g):
        blocks.setdefault(ph.name, []).append((stmts, block, start))
    out = {}
    for ph in g.phases:
        if ph.name not in blocks:
            continue
        stmts = [s for b, _, _ in blocks[ph.name] for s in walk(b)]
        block = list(exprs_of(tuple(b for b, _, _ in blocks[ph.name])))
        for tb in scored_tables(g, stmts):
            block += [r.guard for r in tb.rows] + list(exprs_of(tuple(r.body for r in tb.rows)))
        candidates = _reads(block)[0] & deal_vars
        # the rest of the phase (without its deal-end blocks), and every phase it can go to
        if ph.trick is not None:
            rest = replace(ph, trick=replace(ph.trick, then=()))
        else:
            tails = {id(host): start for _, host, start in blocks[ph.name]}
            rest = replace(ph, actions=tuple(replace(a, body=without_tails(a.body, tails)) for a in ph.actions))
        others = [q for q in nx.descendants(G, ph.name) if q not in ("<end>", ph.name)]
        reads, writes = set(), set()
        for q in [rest] + [g.phase(n) for n in others]:
            reads |= _reads(phase_exprs(g, q))[0]
        for q in [ph] + [g.phase(n) for n in others]:
            for s in phase_stmts(g, q):
                if isinstance(s, ir.ASSIGNS):
                    writes.add(s.var)
        frozen = candidates - reads - writes - blocking
        if frozen:
            out[ph.name] = (frozenset(frozen), frozenset(deal_vars - writes))
    return out


# The zones the machine itself reads the size of in trick play: the cards a player may play, the cards on the table.
MACHINE_ZONES = frozenset({"hand", "trick"})


def counted_only_zones(g: ir.Game, props=()) -> frozenset:
    """Zone families whose size nothing needs exactly: no rule (and none of ``props``, the properties an
    exploration keeps) reads them except as the domain of a quantifier (``count(c in taken[p]: ...)``,
    ``any``, ``all``, ``sum``), no effect or parameter takes cards from them (they are only ever
    destinations, of moves and of ``gather``), and the machine does not read them (:data:`MACHINE_ZONES`).
    Forgetting their sizes keeps the abstraction sound (an unknown size stands for every size) and costs
    precision only where a quantifier over their anonymous cards would have been bounded by the size."""
    exprs = list(exprs_of(g.match, skip_write_only=True)) + list(exprs_of(g.vars, skip_write_only=True))
    for ph in g.phases:
        exprs.extend(phase_exprs(g, ph))
    for t in g.tables:
        exprs.extend(exprs_of(t, skip_write_only=True))
    for p in props:
        exprs.extend(exprs_of(p))
    read: set = set()
    for e in exprs:
        _direct_zone_reads(e, read)
    return frozenset(z.name for z in g.zones if z.name not in read and z.name not in MACHINE_ZONES)


def _direct_zone_reads(e, out: set) -> None:
    """Add to ``out`` the zones ``e`` reads other than as the domain of a quantifier."""
    if isinstance(e, ir.ZoneRef):
        out.add(e.name)
        return
    if isinstance(e, ir.Call) and e.fn == "holder":
        out.add("hand")
    if isinstance(e, ir.Quant) and e.domain is not None and _zone_name(e.domain) is not None:
        if isinstance(e.domain, ir.Index):
            _direct_zone_reads(e.domain.index, out)   # the player of hand[p] is still read
        _direct_zone_reads(e.body, out)
        return
    for child in _children(e):
        _direct_zone_reads(child, out)


def data_only_vars(g: ir.Game) -> frozenset:
    """The int deal variables read only as data: in the value of an assignment, or in the condition of an
    ``if`` that only assigns such variables (a greatest fixpoint), never in a guard, an index, a trick's
    options, a table's row, the match or a property.  Forgetting one changes no control decision of the
    rules directly, only the values assigned from it (each then any value the others allow), which is why
    the explorer may forget them when an exploration keeping them exactly grows too large
    (:attr:`.absint.Abstraction.coarse`).  Bridge's ``calls`` and the ``named_*`` call numbers that decide
    which player of a side is the declarer are such variables."""
    cand = {v.name for v in g.vars if v.scope == "deal" and v.type.kind == "int"}
    every = rule_expressions(g)
    stmts = list(ir.all_stmts(g))
    while True:
        def data_block(body) -> bool:
            return all(isinstance(s, ir.Assign) and s.var in cand or
                       isinstance(s, ir.If) and data_if(s) for s in body)

        def data_if(s) -> bool:
            return all(data_block(b) for _, b in s.branches) and data_block(s.orelse)

        data = set()
        for s in stmts:
            if isinstance(s, ir.Assign):
                data.add(id(s.value))
            elif isinstance(s, ir.If) and data_if(s):
                data.update(id(c) for c, _ in s.branches)
        control = set()
        for e in every:
            if id(e) not in data:
                for x in subexprs(e):
                    if isinstance(x, ir.VarRef):     # an indexed read 'v[i]' holds the VarRef 'v' as its base
                        control.add(x.name)
        keep = cand - control
        if keep == cand:
            return frozenset(cand)
        cand = keep


def chosen_card_vars(g: ir.Game) -> frozenset:
    """The rank and suit deal variables that hold what the abstraction cannot know: set only with ``=`` to a
    constant or to the rank or suit of a card a player chooses or a quantifier runs over (a card
    :class:`~atout.compiler.ir.Local`: ``best_rank = rank(c)`` in tricks played by hand), read nowhere but in
    the conditions of ``if`` statements of actions, and never compared with ``none`` there.  Such a card is an
    anonymous one for the card-blind abstraction, so each such value is one of every rank (or suit) the
    abstraction enumerates: keeping it multiplies the states (13 ranks, 4 suits) for conditions that
    decide who leads next, never what a property or a table reads.  Like the data-only variables
    (:func:`data_only_vars`), the explorer may forget them when keeping them exactly makes the states grow
    too many (:meth:`.checker.Verifier._explore`): forgetting is an over-approximation, any verdict on it
    holds."""
    cand = {v.name for v in g.vars if v.scope == "deal" and v.per is None and v.type.kind in ("rank", "suit")}
    chosen = set()
    for s in ir.all_stmts(g):
        if isinstance(s, ir.Assign) and s.var in cand:
            val = s.value
            if s.op != "=" or s.index is not None:
                cand.discard(s.var)
            elif isinstance(val, ir.Call) and val.fn in ("rank", "suit") and len(val.args) == 1 and \
                    isinstance(val.args[0], ir.Local) and val.args[0].type.kind == "card":
                chosen.add(s.var)
            elif not isinstance(val, ir.Const):
                cand.discard(s.var)
    cand &= chosen
    if not cand:
        return frozenset()
    # the conditions of the 'if's of the actions (not of the deal-end blocks or the scoring rows, where a
    # forgotten value would blur what is scored)
    conditions = {id(c) for ph in g.phases for a in ph.actions for s in ir.walk_stmts(a.body)
                  if isinstance(s, ir.If) for c, _ in s.branches}
    for e in rule_expressions(g):
        for x in subexprs(e):
            if id(e) not in conditions and isinstance(x, ir.VarRef):
                cand.discard(x.name)
            elif isinstance(x, ir.BinOp) and x.op in ("==", "!=") and any(
                    isinstance(a, ir.VarRef) and isinstance(b, ir.Const) and b.value == ir.NONE
                    for a, b in ((x.left, x.right), (x.right, x.left))):
                cand.discard(x.left.name if isinstance(x.left, ir.VarRef) else x.right.name)
            elif isinstance(x, (ir.InSet, ir.Index)) and any(isinstance(y, ir.VarRef) for y in subexprs(x)):
                # a set of values or an index: not a plain comparison of the card's rank or suit
                for y in subexprs(x):
                    if isinstance(y, ir.VarRef):
                        cand.discard(y.name)
    return frozenset(cand)


def forgotten_text(g: ir.Game, names) -> str:
    """The deal variables ``names`` an exploration forgot, with why each could be (for the reports):
    ``calls, named_n (read only as data)``."""
    chosen = chosen_card_vars(g) & set(names)
    data = sorted(set(names) - chosen)
    parts = [f"{', '.join(data)} (read only as data)"] if data else []
    if chosen:
        parts.append(f"{', '.join(sorted(chosen))} (a chosen card's rank or suit, read only in conditions)")
    return " and ".join(parts)

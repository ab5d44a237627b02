"""Static facts about a game that an OpenSpiel ``GameInfo`` needs, derived from the IR.

* :func:`utility_bounds` — an interval holding every value of ``returns(p)`` (interval arithmetic over the
  returns expression; a variable contributes its declared range);
* :func:`max_decisions` — an upper bound on the number of player decisions in a match (chance outcomes are not
  counted, as in OpenSpiel's ``max_game_length``), or None when the IR gives no bound.

Both are sound (never too small) and may be loose.  How the decision bound is found:

1. each phase has a most decisions per visit: a choice phase 1 (``high + 1`` for a ``choose`` parameter), a trick
   phase ``count * players`` plus its named actions, each of which must be limited to once per deal by a flag
   (a guard ``not F`` and a body setting ``F = true``), an automatic phase 0;
2. the phases and their ``goto``s form a graph; in each strongly connected component, every cycle must cross a
   transition that increments a bounded counter (an int variable with a declared range ``lo..hi`` that is never
   assigned otherwise than by ``+=`` of a positive constant): the counter then allows at most
   ``(hi - lo) // step`` such crossings, and between two of them each phase of the component is visited at most
   once;
3. the longest path through the components from the start phase bounds one deal;
4. the match must end after at most ``K`` deals (``ends when deal_number >= K``, or a disjunct of that form).
"""
from __future__ import annotations

import networkx as nx

from atout.compiler import ir

Interval = tuple[float, float]


def utility_bounds(g: ir.Game) -> Interval | None:
    """(low, high) holding every value of ``returns(p)``, or None when some part of it has no bound."""
    return _Bounds(g).of(g.match.returns)


class _Bounds:
    def __init__(self, g: ir.Game):
        self.g = g
        self.vars = {v.name: v for v in g.vars}
        self.max_tricks = max((_const(p.trick.count) or 0 for p in g.phases if p.trick is not None), default=0)

    def var(self, name: str) -> Interval | None:
        v = self.vars[name]
        t = v.type
        if t.kind == "bool":
            return (0, 1)
        if t.kind == "int" and t.low is not None:
            return (t.low, t.high)
        if t.kind in ("player",):
            return (-1, self.g.players - 1)
        return None

    def of(self, e: ir.Expr) -> Interval | None:  # noqa: C901
        g = self.g
        if isinstance(e, ir.Const):
            return (int(e.value), int(e.value))
        if isinstance(e, ir.VarRef):
            return self.var(e.name)
        if isinstance(e, ir.Index):
            return self.var(e.base.name)  # type: ignore[attr-defined]
        if isinstance(e, ir.Cond):
            a, b = self.of(e.then), self.of(e.orelse)
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        if isinstance(e, ir.Neg):
            a = self.of(e.operand)
            return None if a is None else (-a[1], -a[0])
        if isinstance(e, (ir.Not, ir.InSet)):
            return (0, 1)
        if isinstance(e, ir.BinOp):
            if e.op in ("and", "or", "==", "!=", "<", "<=", ">", ">="):
                return (0, 1)
            a, b = self.of(e.left), self.of(e.right)
            if a is None or b is None:
                return None
            if e.op == "+":
                return (a[0] + b[0], a[1] + b[1])
            if e.op == "-":
                return (a[0] - b[1], a[1] - b[0])
            if e.op == "*":
                ps = [x * y for x in a for y in b]
                return (min(ps), max(ps))
            if e.op == "%" and b[0] > 0:
                return (0, b[1] - 1) if a[0] >= 0 else (-(b[1] - 1), b[1] - 1)
            return None
        if isinstance(e, ir.Call):
            if e.fn == "abs":
                a = self.of(e.args[0])
                return None if a is None else (0, max(abs(a[0]), abs(a[1])))
            if e.fn in ("max", "min"):
                return self.var(e.args[0].name)  # type: ignore[attr-defined]
            if e.fn == "total":
                v = self.vars[e.args[0].name]  # type: ignore[attr-defined]
                a = self.var(v.name)
                n = g.players if v.per == "player" else max(1, len(g.sides))
                return None if a is None else (n * a[0], n * a[1])
            if e.fn == "tricks":
                return (0, self.max_tricks)
            if e.fn == "size":
                return (0, g.deck.size)
            if e.fn in ("side", "seat", "left", "right", "partner"):
                return (-1, g.players - 1)
            if e.fn in ("has", "played"):
                return (0, 1)
            return None
        if isinstance(e, ir.Quant):
            n = g.players if e.domain is None else g.deck.size
            if e.kind in ("any", "all"):
                return (0, 1)
            if e.kind == "count":
                return (0, n)
            a = self.of(e.body)
            return None if a is None else (min(0, n * a[0]), max(0, n * a[1]))
        return None


def _const(e: ir.Expr) -> int | None:
    return int(e.value) if isinstance(e, ir.Const) else None


# -- the decision bound ------------------------------------------------------------------------
def _walk_stmts(stmts):
    for s in stmts:
        yield s
        if isinstance(s, ir.If):
            for _, b in s.branches:
                yield from _walk_stmts(b)
            yield from _walk_stmts(s.orelse)
        elif isinstance(s, ir.For):
            yield from _walk_stmts(s.body)


def _bodies(g: ir.Game):
    """Every effect body of the game with the phase it runs in."""
    for ph in g.phases:
        yield ph.name, ph.body
        for a in ph.actions:
            yield ph.name, a.body
        if ph.trick is not None:
            yield ph.name, ph.trick.then
    for t in g.tables:
        for row in t.rows:
            yield None, row.body


def _increment(s: ir.Stmt) -> tuple[str, int] | None:
    """(variable, step) when ``s`` is ``VAR += c`` (c > 0) or ``VAR -= c`` (c < 0), on a scalar variable."""
    if not isinstance(s, ir.Assign) or s.index is not None:
        return None
    c = _const(s.value)
    if c is None:
        return None
    step = c if s.op == "+=" else -c if s.op == "-=" else 0
    return (s.var, step) if step > 0 else None


def _transitions(stmts, seen: frozenset, out: list) -> None:
    """Collect (target phase or None for 'end deal', variables surely incremented before it on its path)."""
    seen_now = set(seen)
    for s in stmts:
        inc = _increment(s)
        if inc is not None:
            seen_now.add(inc[0])
        if isinstance(s, ir.Goto):
            out.append((s.phase, frozenset(seen_now)))
        elif isinstance(s, ir.EndDeal):
            out.append((None, frozenset(seen_now)))
        elif isinstance(s, ir.If):
            for _, b in s.branches:
                _transitions(b, frozenset(seen_now), out)
            _transitions(s.orelse, frozenset(seen_now), out)
        elif isinstance(s, ir.For):
            _transitions(s.body, frozenset(seen_now), out)


def _counters(g: ir.Game) -> dict[str, int]:
    """Bounded counters: int variables with a range, only ever changed by ``+= c`` (c > 0); name -> most steps."""
    steps: dict[str, int] = {}
    bad: set[str] = set()
    for _, body in _bodies(g):
        for s in _walk_stmts(body):
            if isinstance(s, ir.Assign):
                inc = _increment(s)
                if inc is None:
                    bad.add(s.var)
                else:
                    steps[s.var] = min(steps.get(s.var, inc[1]), inc[1])
    out = {}
    for v in g.vars:
        t = v.type
        if v.name in steps and v.name not in bad and v.per is None and t.kind == "int" and t.low is not None:
            out[v.name] = (t.high - t.low) // steps[v.name]
    return out


def _flag_bounded(a: ir.Action, g: ir.Game) -> bool:
    """A named action taken at most once per deal: its guard requires ``not F`` and its body sets ``F = true``
    (``F`` a bool deal variable)."""
    conj = []

    def split(e):
        if isinstance(e, ir.BinOp) and e.op == "and":
            split(e.left)
            split(e.right)
        else:
            conj.append(e)
    split(a.guard)
    flags = {c.operand.name for c in conj if isinstance(c, ir.Not) and isinstance(c.operand, ir.VarRef)}
    deal_bools = {v.name for v in g.vars if v.scope == "deal" and v.type.kind == "bool" and v.per is None}
    for s in a.body:
        if isinstance(s, ir.Assign) and s.index is None and s.var in flags & deal_bools and \
                isinstance(s.value, ir.Const) and s.value.value is True:
            return True
    return False


def _phase_cost(ph: ir.Phase, g: ir.Game) -> int | None:
    if ph.kind == "auto":
        return 0
    if ph.kind == "choice":
        best = 1
        for a in ph.actions:
            p = a.param
            if p is not None and p.kind == "choose":
                hi = _const(p.high)
                best = max(best, (hi if hi is not None else g.deck.size) + 1)
        return best
    count = _const(ph.trick.count)
    if count is None:
        b = _Bounds(g).of(ph.trick.count)
        if b is None:
            return None
        count = int(b[1])
    extra = 0
    for a in ph.actions:
        if not _flag_bounded(a, g):
            return None
        extra += 1
    return count * g.players + extra


def _deals(g: ir.Game) -> int | None:
    """Most deals in a match: ``ends when`` holds once ``deal_number`` reaches K (a top-level disjunct)."""
    best = None

    def visit(e):
        nonlocal best
        if isinstance(e, ir.BinOp) and e.op == "or":
            visit(e.left)
            visit(e.right)
            return
        if isinstance(e, ir.BinOp) and isinstance(e.left, ir.Builtin) and e.left.name == "deal_number":
            k = _const(e.right)
            if k is None:
                return
            k = {">=": k, "==": k, ">": k + 1}.get(e.op)
            if k is not None and k >= 1:
                best = k if best is None else min(best, k)
    visit(g.match.ends_when)
    return best


def max_decisions(g: ir.Game) -> int | None:
    """An upper bound on the player decisions of a match, or None (see the module docstring)."""
    deals = _deals(g)
    if deals is None:
        return None
    costs = {}
    for ph in g.phases:
        c = _phase_cost(ph, g)
        if c is None:
            return None
        costs[ph.name] = c
    graph = nx.DiGraph()
    graph.add_nodes_from(p.name for p in g.phases)
    edges: dict[tuple[str, str], list[frozenset]] = {}
    for phase, body in _bodies(g):
        if phase is None:
            continue
        out: list = []
        _transitions(body, frozenset(), out)
        for target, seen in out:
            if target is not None:
                edges.setdefault((phase, target), []).append(seen)
                graph.add_edge(phase, target)
    counters = _counters(g)
    cond = nx.condensation(graph)
    scc_cost: dict[int, int] = {}
    for c in cond.nodes:
        members = cond.nodes[c]["members"]
        inner = [(a, b) for (a, b) in edges if a in members and b in members]
        total = sum(costs[m] for m in members)
        if not inner:
            scc_cost[c] = total
            continue
        crossings = None
        for name, most in counters.items():
            # the edges that surely increment `name` on every path; without them the component must be acyclic
            rest = nx.DiGraph()
            rest.add_nodes_from(members)
            for (a, b) in inner:
                if not all(name in seen for seen in edges[(a, b)]):
                    rest.add_edge(a, b)
            if nx.is_directed_acyclic_graph(rest):
                crossings = most if crossings is None else min(crossings, most)
        if crossings is None:
            return None
        scc_cost[c] = (crossings + 1) * total
    start = cond.graph["mapping"][g.match.start]
    longest: dict[int, int] = {}
    for c in reversed(list(nx.topological_sort(cond))):
        longest[c] = scc_cost[c] + max((longest[d] for d in cond.successors(c)), default=0)
    return deals * longest[start]

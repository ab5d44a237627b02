"""Static facts about a game that an OpenSpiel ``GameInfo`` needs, derived from the IR.

* :func:`utility_bounds` — an interval holding every value of ``returns(p)`` (interval arithmetic over the
  returns expression; a variable contributes its declared range, or, for an int variable declared without one,
  a range derived from its assignments, see below);
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

The range of an int variable declared without one (``match var units: int per player = 0``) is derived from its
assignments: a value is its initial value or a value it was set to (``=``), plus the changes (``+=``, ``-=``) made
after that.  Each effect body runs a bounded number of times in one deal (the visits of its phase found by step 2,
times the tricks for ``after trick``, times the players for ``for p in players``, the rows of a table as often as
``score TABLE`` runs), so the changes of a deal variable are bounded; those of a match variable are bounded by
``K`` deals of them.  A variable whose assignments depend on itself, or that changes in a body with no bound on
its runs, has no derived range.
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
        self.max_tricks = _max_tricks(g)
        self.derived: dict[str, Interval | None] = {}
        self.busy: set[str] = set()
        self._assignments: dict[str, list] | None = None

    def var(self, name: str) -> Interval | None:
        v = self.vars[name]
        t = v.type
        if t.kind == "bool":
            return (0, 1)
        if t.kind == "int" and t.low is not None:
            return (t.low, t.high)
        if t.kind == "int":
            return self.derive(name)
        if t.kind in ("player",):
            return (-1, self.g.players - 1)
        return None

    def derive(self, name: str) -> Interval | None:
        """The range of an int variable declared without one, from its assignments (see the module docstring)."""
        if name in self.derived:
            return self.derived[name]
        if name in self.busy:
            return None  # its assignments depend on its own value
        self.busy.add(name)
        try:
            got = self._derive(name)
        finally:
            self.busy.discard(name)
        self.derived[name] = got
        return got

    def _derive(self, name: str) -> Interval | None:
        if self._assignments is None:
            self._assignments = _assignments(self.g)
        v = self.vars[name]
        base = self.of(v.init)
        if base is None:
            return None
        lo, hi = base
        up = down = 0
        for s, runs, env in self._assignments.get(name, ()):
            if isinstance(s, ir.RandomAssign):   # one of its values
                values = [self.of(x, env) for x in s.values]
                if any(v is None for v in values):
                    return None
                lo, hi = min(lo, *(v[0] for v in values)), max(hi, *(v[1] for v in values))
                continue
            value = self.of(s.value, env)
            if value is None:
                return None
            if s.op == "=":
                lo, hi = min(lo, value[0]), max(hi, value[1])
                continue
            if s.op == "-=":
                value = (-value[1], -value[0])
            if runs is None:
                return None
            down += runs * min(0, value[0])
            up += runs * max(0, value[1])
        if (up or down) and v.scope == "match":
            deals = _deals(self.g)
            if deals is None:
                return None
            up, down = deals * up, deals * down
        return (lo + down, hi + up)

    def of(self, e: ir.Expr, env: dict | None = None) -> Interval | None:  # noqa: C901
        """The interval of ``e``; ``env`` gives the intervals of locals (loop variables, parameters)."""
        g = self.g
        env = env or {}
        if isinstance(e, ir.Const):
            return (int(e.value), int(e.value))
        if isinstance(e, ir.Local):
            if e.name in env:
                return env[e.name]
            if e.type.kind == "player":
                return (-1, g.players - 1)
            if e.type.kind == "bool":
                return (0, 1)
            return None
        if isinstance(e, ir.NextPlayer):
            return (-1, g.players - 1)
        if isinstance(e, ir.VarRef):
            return self.var(e.name)
        if isinstance(e, ir.Index):
            return self.var(e.base.name)  # type: ignore[attr-defined]
        if isinstance(e, ir.Cond):
            a, b = self.of(e.then, env), self.of(e.orelse, env)
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        if isinstance(e, ir.Neg):
            a = self.of(e.operand, env)
            return None if a is None else (-a[1], -a[0])
        if isinstance(e, (ir.Not, ir.InSet)):
            return (0, 1)
        if isinstance(e, ir.BinOp):
            if e.op in ("and", "or", "==", "!=", "<", "<=", ">", ">="):
                return (0, 1)
            a, b = self.of(e.left, env), self.of(e.right, env)
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
                a = self.of(e.args[0], env)
                return None if a is None else (0, max(abs(a[0]), abs(a[1])))
            if e.fn in ("max", "min"):
                return self.var(e.args[0].name)  # type: ignore[attr-defined]
            if e.fn == "total":
                v = self.vars[e.args[0].name]  # type: ignore[attr-defined]
                a = self.var(v.name)
                n = g.players if v.per == "player" else max(1, len(g.sides))
                return None if a is None else (n * a[0], n * a[1])
            if e.fn == "tricks":
                return None if self.max_tricks is None else (0, self.max_tricks)
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
            inner = dict(env)
            if e.domain is None:
                inner[e.var] = (0, g.players - 1)
            a = self.of(e.body, inner)
            return None if a is None else (min(0, n * a[0]), max(0, n * a[1]))
        return None


def _const(e: ir.Expr) -> int | None:
    return int(e.value) if isinstance(e, ir.Const) else None


def _max_tricks(g: ir.Game) -> int | None:
    """Most tricks a player can win in one deal: the tricks of every visit of every trick phase (None: no bound)."""
    visits = phase_visits(g)
    total = 0
    for ph in g.phases:
        if ph.trick is None:
            continue
        count, times = _const(ph.trick.count), visits[ph.name]
        if count is None or times is None:
            return None
        total += count * times
    return total


# -- the decision bound ------------------------------------------------------------------------
_walk_stmts = ir.walk_stmts


def _bodies(g: ir.Game):
    """Every effect body of the game with the phase it runs in."""
    for ph in g.phases:
        yield ph.name, ph.body
        for a in ph.actions:
            yield ph.name, a.body
        if ph.trick is not None:
            yield ph.name, ph.trick.then
            yield ph.name, ph.trick.after
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
            if isinstance(s, ir.RandomAssign):
                bad.add(s.var)
            elif isinstance(s, ir.Assign):
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
    (``F`` a bool deal variable that nothing in the game sets back to false)."""
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
    for _, body in _bodies(g):
        for s in _walk_stmts(body):
            if isinstance(s, ir.RandomAssign) and s.var in flags or isinstance(s, ir.Assign) and s.var in flags and not (
                    s.op == "=" and isinstance(s.value, ir.Const) and s.value.value is True):
                flags.discard(s.var)  # reset somewhere: the flag does not limit the action
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


def _graph(g: ir.Game):
    """(phase graph, {(from, to): [variables surely incremented on the way, per path]})."""
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
    return graph, edges


def phase_visits(g: ir.Game) -> dict[str, int | None]:
    """Most visits of each phase in one deal (None: no bound), by step 2 of the module docstring: a phase on no
    cycle is visited at most once; a phase on a cycle that every loop of its component pays for with a step of a
    bounded counter allowing ``c`` steps at most ``c + 1`` times."""
    graph, edges = _graph(g)
    counters = _counters(g)
    cond = nx.condensation(graph)
    out: dict[str, int | None] = {}
    for c in cond.nodes:
        members = cond.nodes[c]["members"]
        inner = [(a, b) for (a, b) in edges if a in members and b in members]
        if not inner:
            out.update({m: 1 for m in members})
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
        out.update({m: None if crossings is None else crossings + 1 for m in members})
    return out


def max_decisions(g: ir.Game) -> int | None:
    """An upper bound on the player decisions of a match, or None (see the module docstring)."""
    deals = _deals(g)
    if deals is None:
        return None
    visits = phase_visits(g)
    costs = {}
    for ph in g.phases:
        c = _phase_cost(ph, g)
        if c is None or visits[ph.name] is None:
            return None
        costs[ph.name] = c * visits[ph.name]
    graph, _ = _graph(g)
    cond = nx.condensation(graph)
    start = cond.graph["mapping"][g.match.start]
    longest: dict[int, int] = {}
    for c in reversed(list(nx.topological_sort(cond))):
        here = sum(costs[m] for m in cond.nodes[c]["members"])
        longest[c] = here + max((longest[d] for d in cond.successors(c)), default=0)
    return deals * longest[start]


UNKNOWN_DEALS = 16    # the deals a default cap allows for when the match's end does not count them


def default_cap(g: ir.Game, floor: int = 500) -> int:
    """A default for the cap on the decisions of a match when :func:`max_decisions` finds no bound.  Not a bound:
    twice the decisions of ``K`` deals (``ends when deal_number >= K``; :data:`UNKNOWN_DEALS` when the end is
    not a count of deals, as in a match to N points) in which every loop of phases runs once, so that a match
    of ordinary length is not cut short; at least ``floor``, and ``floor`` when a phase has no cost (an action
    in trick play that nothing limits)."""
    deals = _deals(g)
    if deals is None:
        deals = UNKNOWN_DEALS
    costs = {}
    for ph in g.phases:
        c = _phase_cost(ph, g)
        if c is None:
            return floor
        costs[ph.name] = c
    graph, _ = _graph(g)
    cond = nx.condensation(graph)
    longest: dict[int, int] = {}
    for c in reversed(list(nx.topological_sort(cond))):
        here = sum(costs[m] for m in cond.nodes[c]["members"])
        longest[c] = here + max((longest[d] for d in cond.successors(c)), default=0)
    return max(floor, 2 * deals * longest[cond.graph["mapping"][g.match.start]])


# -- runs of effect bodies, for derived ranges ------------------------------------------------------
def _times(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a * b


def _assignments(g: ir.Game) -> dict[str, list[tuple[ir.Assign, int | None, dict]]]:
    """Every assignment of every variable: (statement, most runs of it in one deal or None, intervals of the
    locals it can see)."""
    visits = phase_visits(g)
    n = g.players
    out: dict[str, list] = {}
    scores: list[tuple[str, int | None]] = []  # (table, runs) of every `score` outside the tables' own rows

    def walk(stmts, runs, env, found_scores):
        for s in stmts:
            if isinstance(s, ir.ASSIGNS):
                out.setdefault(s.var, []).append((s, runs, env))
            elif isinstance(s, ir.If):
                for _, b in s.branches:
                    walk(b, runs, env, found_scores)
                walk(s.orelse, runs, env, found_scores)
            elif isinstance(s, ir.For):
                times, interval = _loop_bound(g, s)
                walk(s.body, _times(runs, times), {**env, s.var: interval} if interval else env, found_scores)
            elif isinstance(s, ir.Score):
                found_scores.append((s.table, runs))

    def param_env(a: ir.Action) -> dict:
        p = a.param
        if p is None:
            return {}
        if p.kind == "choose":
            hi = _const(p.high) if p.high is not None else None
            return {p.name: (0, hi if hi is not None else g.deck.size)}
        if p.kind == "domain" and p.type.kind == "player":
            return {p.name: (0, n - 1)}
        return {}

    for ph in g.phases:
        v = visits[ph.name]
        walk(ph.body, v, {}, scores)
        for a in ph.actions:
            # a choice phase's action leaves the phase (goto or end deal): once per visit; an action offered
            # during trick play once per deal when a flag limits it, else without a bound
            runs = v if ph.kind == "choice" else (1 if _flag_bounded(a, g) else None)
            walk(a.body, runs, param_env(a), scores)
        if ph.trick is not None:
            walk(ph.trick.then, v, {}, scores)
            walk(ph.trick.after, _times(v, _const(ph.trick.count)), {}, scores)
    # the rows of a table run as often as `score TABLE` does; a row may score another table
    tables = {t.name: t for t in g.tables}
    pending = scores
    for _ in range(len(tables) + 1):
        if not pending:
            return out
        found: list = []
        for name, runs in pending:
            for row in tables[name].rows:
                walk(row.body, runs, {}, found)
        pending = found
    for t in g.tables:  # tables that score each other in a cycle: their rows have no bound on their runs
        for row in t.rows:
            walk(row.body, None, {}, [])
    return out


def _loop_bound(g: ir.Game, s: ir.For) -> tuple[int | None, tuple[int, int] | None]:
    """(most iterations or None, interval of the loop variable or None) of a ``for``."""
    n = g.players
    if s.over == "players":
        return n, (0, n - 1)
    if s.over == "sides":
        return len(g.sides), (0, max(0, len(g.sides) - 1))
    if s.over == "suits":
        return len(g.deck.suits), (0, len(g.deck.suits) - 1)
    if s.over == "range":
        lo, hi = _const(s.source), _const(s.high)
        if lo is None or hi is None:
            return None, None
        return max(0, hi - lo + 1), (lo, hi) if lo <= hi else None
    return g.deck.size, None   # the cards of a zone: at most the whole deck


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b

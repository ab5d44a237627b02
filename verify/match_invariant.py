"""Deal-start invariants of the match variables, inductive over the deal-end blocks (z3, Houdini).

The explorer forgets a match variable's value once it is written (:meth:`.absint.AbstractState.write`): the
abstraction keeps the per-deal *gains* instead.  Some checks need more: Whist's ``game_won`` table has one row
per side (``points[s] >= 5``), and only the fact that both sides stand below 5 points when a deal starts
(each game resets both) rules out two rows at once; the range ``0..15`` of ``points`` holds for the same
reason (4 before the deal, 7 for tricks, 4 for honours).

When every write of a match variable lies in a deal-end block that z3 follows (:mod:`.smt_refine`; the
``then`` block of a trick phase, run once per deal, at its end), the match variables keep their values from
the start of a deal to that block.  An invariant ``I`` of their values at deal starts is then proved by
induction over the deals:

* the initial values satisfy ``I``;
* from every state where a deal-end block starts in the exploration (an over-approximation of every concrete
  one), with ``I`` at its start, the values at its end satisfy ``I`` again, unless the block raised a rule
  error or ``ends when`` holds (then no deal follows); a deal that runs no such block leaves them alone.

``I`` is a conjunction of bounds ``lo <= v[i] <= hi`` per int cell, the bounds taken from a finite ladder of
thresholds (the declared range, the initial value, and ``c - 1, c, c + 1`` for each constant ``c`` the rules
compare the variable with).  Houdini's algorithm finds the strongest such conjunction: start from the
tightest bounds around the initial values and, while z3 finds a block that leaves them, relax the bound it
leaves to the next threshold past the value z3's model gives (or drop it), until one pass over every block
changes nothing.  A z3 answer of ``unknown`` drops the bound (deterministic: z3's resource limit, never a
clock).  The proved bounds are then assumed at the start of every block model (:class:`.smt_refine.
BlockModel`), which narrows its rule errors, gains and table rows soundly: every concrete deal-end block
starts in a state that satisfies them.
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

import z3

from atout.compiler import ir

from .symbolic import Evaluator, NotEncodable, all_of, any_of, as_bool, land, lnot, solver


def applies(A) -> bool:
    """Whether every write of a match variable lies in a deal-end block the explorer summarises
    (``A.then_blocks``, the deal-end tails of actions ``A.end_tails``), or in a table only such blocks score:
    then the match variables hold their deal-start values up to that block, and it runs at most once a
    deal."""
    from .liveness import scored_tables, walk
    g = A.g
    match_vars = {v.name for v in g.vars if v.scope == "match"}
    if not match_vars:
        return False
    skip = set(A.then_blocks)
    cut = {body: start for body, start in A.end_tails}     # an action's body: only what precedes its tail
    outside: list = []

    def collect(node):
        if isinstance(node, tuple):
            if id(node) in skip:
                return
            if id(node) in cut:
                node = node[:cut[id(node)]]
            for x in node:
                collect(x)
            return
        if not is_dataclass(node) or isinstance(node, (type, ir.Expr)):
            return
        if isinstance(node, ir.Stmt):
            outside.append(node)
        for f in fields(node):
            if f.name != "span":
                collect(getattr(node, f.name))

    collect(g.phases)
    collect(g.match)
    stmts = [s for x in outside for s in walk((x,))]
    for t in scored_tables(g, stmts):
        for r in t.rows:
            stmts.extend(walk(r.body))
    return not any(isinstance(s, ir.ASSIGNS) and s.var in match_vars for s in stmts)


SMALL_RANGE = 16    # an int match variable with at most this many values: every value is a threshold
PARTITION = 8       # ... with at most this many: the bounds of the others are also kept per value of it
MAX_CANDIDATES = 256   # candidate bounds at most (the per-value cases past it are not tried)
MAX_CHECKS = 6000      # z3 checks at most in the fixpoint; past them no bound is claimed (a count, not a clock)


def thresholds(g: ir.Game, var: ir.Var) -> list:
    """The candidate bounds of int match variable ``var``, sorted: every value of a small declared range;
    else the range's ends, the initial value, and ``c - 1, c, c + 1`` for each constant ``c`` it is compared
    with (``points[0] >= 5``)."""
    from .liveness import exprs_of, subexprs
    lo, hi = var.type.low, var.type.high
    if lo is not None and hi is not None and hi - lo < SMALL_RANGE:
        return list(range(lo, hi + 1))
    out = {b for b in (lo, hi) if b is not None}
    if isinstance(var.init, ir.Const) and isinstance(var.init.value, int):
        out.add(var.init.value)

    def names(e):
        if isinstance(e, ir.VarRef):
            return e.name
        if isinstance(e, ir.Index) and isinstance(e.base, ir.VarRef):
            return e.base.name
        return None

    for top in exprs_of((g.phases, g.tables, g.match, g.properties)):
        for e in subexprs(top):
            if not (isinstance(e, ir.BinOp) and e.op in ("<", "<=", ">", ">=", "==", "!=")):
                continue
            for a, b in ((e.left, e.right), (e.right, e.left)):
                if names(a) == var.name and isinstance(b, ir.Const) and type(b.value) is int:
                    out |= {b.value - 1, b.value, b.value + 1}
    return sorted(c for c in out if (lo is None or c >= lo) and (hi is None or c <= hi))


def _cells(g: ir.Game, n: int) -> list:
    """``(var, index or None)`` for every cell of an int match variable with a constant initial value."""
    out = []
    for v in g.vars:
        if v.scope != "match" or v.type.kind != "int":
            continue
        if not (isinstance(v.init, ir.Const) and type(v.init.value) is int):
            continue
        if v.per is None:
            out.append((v, None))
        else:
            width = n if v.per == "player" else max(1, len(g.sides))
            out.extend((v, i) for i in range(width))
    return out


def _term(values, name: str, i):
    x = values[name] if i is None else values[name][i]
    return z3.IntVal(x) if isinstance(x, int) else x


def _within(term, lo, hi):
    conds = []
    if lo is not None:
        conds.append(term >= lo)
    if hi is not None:
        conds.append(term <= hi)
    return z3.And(*conds) if conds else z3.BoolVal(True)


BOTTOM = "bottom"    # a bound of a case that no deal start has shown yet (the case cannot hold)


def candidates(g: ir.Game, n: int) -> dict:
    """The candidate bounds and where each starts: ``{(cell, case): bound}``, a cell ``(variable, index)``,
    a case None (always) or ``(cell of a variable with at most PARTITION values, value)`` (the bound holds
    when that cell has that value; same index, or a scalar), a bound ``(lo, hi)`` or :data:`BOTTOM`."""
    cells = _cells(g, n)
    out = {}
    for var, i in cells:
        out[((var.name, i), None)] = (var.init.value, var.init.value)
    for y, j in cells:
        lo, hi = y.type.low, y.type.high
        if lo is None or hi is None or hi - lo >= PARTITION:
            continue
        for var, i in cells:
            if var is y or not (j is None or i == j):
                continue
            if len(out) + hi - lo + 1 > MAX_CANDIDATES:
                return out
            for k in range(lo, hi + 1):
                out[((var.name, i), ((y.name, j), k))] = \
                    (var.init.value, var.init.value) if y.init.value == k else BOTTOM
    return out


def _case(values, case):
    if case is None:
        return z3.BoolVal(True)
    (y, j), k = case
    return _term(values, y, j) == k


def _holds(values, key, b):
    """Bound ``b`` of candidate ``key`` holds of ``values`` (a symbolic state's ``vars`` or ``initial``)."""
    (name, i), case = key
    if b is BOTTOM:
        return z3.Not(_case(values, case))
    if b == (None, None):
        return z3.BoolVal(True)
    return z3.Implies(_case(values, case), _within(_term(values, name, i), *b))


def deal_start_bounds(A, models: list) -> dict | None:
    """The strongest conjunction of candidate bounds (:func:`candidates`) of the int match variables that
    holds at the start of every deal (see the module's docstring), ``models`` being the block models of every
    state a deal-end block starts in: ``{(cell, case): bound}`` with only the bounds that say something, or
    None when none does (or a block is not followed).  Kleene iteration over the finite ladder of thresholds:
    each pass assumes the bounds of the pass before at the blocks' starts and widens every bound a block's
    end can leave (to the next threshold past z3's model value), until a pass widens none."""
    g = A.g
    if not models or any(m is None for m in models):
        return None
    bound = candidates(g, A.game.players)
    if not bound:
        return None
    types = {v.name: v for v in g.vars}
    ladder = {name: thresholds(g, types[name]) for (name, _), _ in bound}
    prepared = []
    for m in models:
        S = m.ex.S
        try:
            over = Evaluator(S).expr(g.match.ends_when, {})
        except NotEncodable:
            over = False
        # a solver of its own: the model's (kept for the checks that follow) is left as it was
        prepared.append((solver(S, A.rlimit), S, land(lnot(any_of(c for c, _ in m.ex.errors)), lnot(over))))
    # the explorer turns the table at each deal (the dealer to seat 0): cell i of one deal is another
    # player's cell in the next, so a bound must hold of every cell of its variable alike (see _orbit)
    orbits: dict = {}
    for key in bound:
        orbits.setdefault(_orbit(key), []).append(key)
    checks = 0
    changed = True
    widened = [True] * len(prepared)     # per model: a bound widened at its end in the pass before
    while changed:
        changed = False
        before = dict(bound)
        for at, (s, S, stays) in enumerate(prepared):
            s.push()
            try:
                for key, b in before.items():
                    s.add(_holds(S.initial, key, b))
                if stays is not True:
                    s.add(as_bool(stays))
                # one check first for the whole conjunction where no bound was widened in the pass before:
                # where every bound still holds (in the last pass, at least), the bounds one by one need no
                # check (not counted: it only saves checks)
                quiet, widened[at] = not widened[at], False
                if quiet and s.check(z3.Not(as_bool(all_of(_holds(S.vars, key, b) for key, b in bound.items()
                                                           if b != (None, None))))) == z3.unsat:
                    continue
                for key in bound:
                    (name, i), case = key
                    end = _term(S.vars, name, i)
                    while True:
                        b = bound[key]
                        if b == (None, None):
                            break
                        checks += 1
                        if checks > MAX_CHECKS:
                            return None
                        r = s.check(z3.Not(_holds(S.vars, key, b)))
                        if r == z3.unsat:
                            break
                        changed = widened[at] = True
                        val = s.model().eval(end, model_completion=True) if r == z3.sat else None
                        if val is None or not z3.is_int_value(val):
                            got = (None, None)     # z3 gave up: no bound (never a guess)
                        else:
                            got = _widen(b, val.as_long(), ladder[name])
                        for k in (orbits[_orbit(key)] if A.rotational else (key,)):
                            bound[k] = got
                        if got == (None, None):
                            break
            finally:
                s.pop()
    out = {}
    for key, b in bound.items():
        (name, i), case = key
        var = types[name]
        if b is not BOTTOM:
            lo, hi = b
            lo = None if lo is not None and var.type.low is not None and lo <= var.type.low else lo
            hi = None if hi is not None and var.type.high is not None and hi >= var.type.high else hi
            if lo is None and hi is None:
                continue
            b = (lo, hi)
        out[key] = b
    # a case's bound no stronger than the cell's own (or a case its variable's own bound rules out) says
    # nothing more
    for key in [k for k in out if k[1] is not None]:
        cell, ((y, j), k) = key
        plain = out.get((cell, None), (None, None))
        ylo, yhi = out.get(((y, j), None), (None, None))
        if (ylo is not None and k < ylo) or (yhi is not None and k > yhi):
            del out[key]
        elif out[key] is not BOTTOM and _no_stronger(out[key], plain):
            del out[key]
    return out or None


def _orbit(key):
    """The candidates that must share ``key``'s bound when the table turns: the same variable's bound in every
    cell, with its case on the same cell of the other variable (a case on a scalar stays)."""
    (name, i), case = key
    if i is None:
        return key
    if case is None:
        return (name, "*"), None
    (y, j), k = case
    return (name, "*"), ((y, "*" if j == i else j), k)


def _no_stronger(b, plain) -> bool:
    lo, hi = b
    plo, phi = plain
    return (lo is None or (plo is not None and lo <= plo)) and (hi is None or (phi is not None and hi >= phi))


def _widen(b, val: int, ts: list):
    """Bound ``b`` widened to hold ``val``: to the nearest thresholds ``ts`` around it (None past them)."""
    down = max((t for t in ts if t <= val), default=None)
    up = min((t for t in ts if t >= val), default=None)
    if b is BOTTOM:
        return (down, up)
    lo, hi = b
    if lo is not None and val < lo:
        lo = down
    if hi is not None and val > hi:
        hi = up
    return (lo, hi)


def describe(bounds: dict) -> str:
    """The bounds as text: ``points[0] <= 4``, ``games[0] == 1 -> 1 <= rubber[0] <= 3``."""
    def cell(name, i):
        return name if i is None else f"{name}[{i}]"
    parts = []
    for ((name, i), case), b in bounds.items():
        if case is not None:
            (y, j), k = case
            head = f"{cell(y, j)} == {k} -> "
        else:
            head = ""
        if b is BOTTOM:
            parts.append(f"{cell(case[0][0], case[0][1])} != {case[1]}")
            continue
        lo, hi = b
        text = cell(name, i)
        if lo is not None and hi is not None:
            text = f"{lo} <= {text} <= {hi}" if lo != hi else f"{text} == {lo}"
        elif lo is not None:
            text = f"{text} >= {lo}"
        else:
            text = f"{text} <= {hi}"
        parts.append(head + text)
    return ", ".join(dict.fromkeys(parts))


def assumption(A, S):
    """The proved deal-start bounds (``A.match_bounds``) over the values symbolic state ``S`` starts with
    (a z3 bool), or None when there are none."""
    got = getattr(A, "match_bounds", None)
    if not got:
        return None
    return z3.And(*[_holds(S.initial, key, b) for key, b in got.items()])

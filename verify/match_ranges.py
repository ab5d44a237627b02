"""The ranges of the match variables: a lemma proved over deals.

The abstraction forgets the match variables (any value of their type), so it cannot tell whether
``points[dealer] += 1`` leaves ``points: int in 0..99``.  This module proves that no such write can, from
what the abstraction does keep: the *gain* of each ranged match variable since the start of its deal, at
every write (recorded by the explorer) and at every end of a deal.

If ``I`` over-approximates the values at the start of every deal, the value written is ``I + gain``.
``I`` is computed as a fixpoint over deals: the first deal starts from the initial values; a deal that
ends without ending the match starts the next one from ``I + its gain``, refined by ``not (ends when)``
(the match goes on only while it is false); after a few rounds the bounds are widened to the declared
range.  ``deal_number``, when ``ends when`` reads it, is a pseudo-variable that gains 1 a deal.  A write
with ``=`` is checked in the exploration itself, where its value is known.

When the lemma holds, the explorations that decide liveness treat those writes as in range; when it does
not, they are explored again with such writes allowed to fail (``Spec.range_errors``), so that no
verdict relies on it.
"""
from __future__ import annotations

from atout.compiler import ir

from .values import DEAL_START, Interval, add, join

DN = ("deal_number", None)
ROUNDS = 12


def prove_match_ranges(V) -> tuple[bool, str]:
    """``(holds, why)``: whether no ``+=``/``-=`` write to a ranged match variable leaves its range, on the
    first of the explorations that watch the gains (:meth:`.checker.Verifier.gains_specs`) that shows it."""
    ranged = {v.name for v in _ranged(V.g)}
    out = None
    for spec in V.gains_specs(cards_first=V.cards_matter(ranged)):
        out = _prove_on(V, spec)
        if out[0]:
            return out
    return out


def _ranged(g: ir.Game) -> list:
    """The int match variables of ``g`` with a declared range (a lower bound at least)."""
    return [v for v in g.vars if v.scope == "match" and v.type.kind == "int" and v.type.low is not None]


def prove_in_blocks(V) -> tuple[bool, str] | None:
    """``(True, why)`` when z3 shows, block by block, that no ``+=``/``-=`` write to a ranged match variable
    leaves its range; None when this route does not apply or does not prove it.  It applies when every write
    of a match variable lies in a deal-end block that z3 follows (:func:`.match_invariant.applies`, with
    every such write encodable): the match variables then keep their values from one block to the next, and
    the claim is proved by induction over the deals.  The initial values are in range; from every state a
    deal-end block starts in on an exploration that watches the gains (an over-approximation of every
    concrete one), with every ranged match variable in its range and the deal-start bounds of
    :mod:`.match_invariant` at the block's start, no write can leave the range (z3 over the block's symbolic
    run, :class:`.smt_refine.BlockModel`), and a write with ``=`` that would is a rule error that ends the
    game.  So every block ends with the variables in range again.  (The deal-start bounds are proved under
    the same hypothesis: the two are one induction.)  Unlike the route over the gains
    (:func:`prove_match_ranges`), a write with ``=`` is no obstacle: Whist resets ``points`` with ``=`` when a
    game is won."""
    from . import match_invariant, smt_refine
    g = V.g
    ranged = _ranged(g)
    if not ranged:
        return None
    for v in ranged:
        if not (isinstance(v.init, ir.Const) and type(v.init.value) is int and
                v.type.low <= v.init.value <= (v.type.high if v.type.high is not None else v.init.value)):
            return None
    names = {v.name for v in ranged}
    stmts = ir.all_stmts(g)
    followed = V.followed_statements()
    if not all(id(s) in followed for s in stmts if isinstance(s, ir.ASSIGNS) and s.var in names):
        return None
    for spec in V.gains_specs(cards_first=V.cards_matter(names)):
        ex, A, err = V.exploration(spec)
        if ex is None or not ex.end_blocks or not match_invariant.applies(A):
            continue
        ok = True
        for start, block in ex.end_blocks:
            m = smt_refine.block_model(A, start, block)
            if m is None or smt_refine.writes_may_leave_range(m) is not False:
                ok = False
                break
        if ok:
            held = match_invariant.describe(A.match_bounds) if A.match_bounds else ""
            return True, (f"every write keeps the ranged match variables in range: every write of a match "
                          f"variable is in a deal-end block, and z3 shows that none of the "
                          f"{len(ex.end_blocks)} distinct blocks, followed from every state it starts in with "
                          f"the variables in range" + (f" and {held} (proved at deal starts)" if held else "")
                          + ", takes one out of its range (induction over the deals)")
    return None


def _prove_on(V, spec) -> tuple[bool, str]:
    g = V.g
    ranged = _ranged(g)
    ex, A, err = V.exploration(spec)
    if ex is None:
        return False, f"the exploration that records the gains stopped: {err}"
    writes = A.match_range_writes
    if not writes:
        return True, "no write adds to a ranged match variable"
    for v in ranged:
        if v.per is None and any(w[1] == v.name for w in writes):
            return False, f"'{v.name}' is not kept per player, so its gains are not tracked"
        if not isinstance(v.init, ir.Const):
            return False, f"the initial value of '{v.name}' is not a constant"
    if any(w[3] is None for w in writes):
        return False, "a ranged match variable whose gains are not tracked"
    watch = list(A.watch)
    cells = [(v.name, i) for v in ranged if v.name in watch for i in range(_width(V, v))]
    start = {c: Interval(V.g.vars[_index(g, c[0])].init.value, V.g.vars[_index(g, c[0])].init.value)
             for c in cells}
    reads_dn = any(isinstance(x, ir.Builtin) and x.name == "deal_number" for x in _sub(g.match.ends_when))
    if reads_dn:
        start[DN] = Interval(0, 0)
    ends = []
    for u, v, d in ex.graph.edges(data=True):
        if d.get("end_gains") is not None and isinstance(v, tuple) and v and v[0] == DEAL_START:
            ends.append(d["end_gains"])
    decl = {v.name: v for v in ranged}
    I = _by_deal_number(V, A, ends, cells, start, watch) if reads_dn else None
    if I is None:
        I = _widened_fixpoint(V, A, ends, cells, start, watch, decl, reads_dn)
    if I is None:
        return False, "the values at the start of a deal did not settle"
    for _, name, i, row in writes:
        t = decl[name].type
        idxs = range(len(row)) if i is None else [i]
        for j in idxs:
            val = add(I[(name, j)], row[j])
            lo, hi = val
            if lo is None or hi is None or lo < t.low or hi > t.high:
                return False, (f"'{name}' could leave {t.low}..{t.high}: it starts a deal in "
                               f"{_text(I[(name, j)])} and a write makes it {_text(val)}")
    text = ", ".join(f"{n}[{i}] in {_text(I[(n, i)])}" for n, i in cells)
    return True, (f"every write keeps the ranged match variables in range: at the start of every deal "
                  f"{text} (a fixpoint over deals from the per-deal gains, refined by 'ends when'), and "
                  f"{len(writes)} writes add at most what the abstraction's gains allow")


MAX_DEALS_UNROLLED = 64   # a match that 'ends when' bounds to at most this many deals is followed deal by deal


def _step(V, A, ends, cells, I, watch, reads_dn):
    """The values at the start of the next deal, from ``I`` at the start of this one: the join over every way
    a deal can end (its gains) of those 'ends when' lets start a deal; None when none does."""
    J = None
    for gains in ends:
        cand = {}
        for (name, i) in cells:
            row = gains[watch.index(name)]
            cand[(name, i)] = add(I[(name, i)], row[i])
        if reads_dn:
            cand[DN] = add(I[DN], 1)
        cand = refine(V.g.match.ends_when, False, cand, V.game.players)
        if cand is not None:
            J = cand if J is None else {c: join((J[c], cand[c])) for c in J}
    if J is not None and A.rotational:
        J = _symmetric(J, cells)
    return J


def _by_deal_number(V, A, ends, cells, start, watch):
    """When 'ends when' reads ``deal_number`` and lets at most MAX_DEALS_UNROLLED deals start, the values at
    the start of every deal, followed deal by deal (deal k's from deal k-1's: no widening, so a match of
    three deals bounds a counter by three deals' gains), joined; None when more deals may start."""
    layer, out = dict(start), dict(start)
    for _ in range(MAX_DEALS_UNROLLED):
        layer = _step(V, A, ends, cells, layer, watch, True)
        if layer is None:
            return out
        out = {c: join((out[c], layer[c])) for c in out}
    return None


def _widened_fixpoint(V, A, ends, cells, start, watch, decl, reads_dn):
    """The values at the start of every deal: a fixpoint over deals from the per-deal gains, refined by 'ends
    when', widened after three rounds (a bound that still moves jumps to the declared range's, or beyond it
    to infinity); None when it does not settle within ROUNDS."""
    I = dict(start)
    for rnd in range(ROUNDS):
        J = _step(V, A, ends, cells, I, watch, reads_dn)
        # (when the table turns, I and J, hence their join, are alike in every cell of a variable: _step)
        new = dict(I) if J is None else {c: join((I[c], J[c])) for c in I}
        if new == I:
            return I
        if rnd >= 3:
            for c in cells:
                lo, hi = new[c]
                t = decl[c[0]].type
                if lo is None or lo < I[c][0]:
                    lo = t.low if lo is not None and lo >= t.low else None
                if hi is None or hi > I[c][1]:
                    hi = t.high if hi is not None and hi <= t.high else None
                new[c] = Interval(lo, hi)
            if reads_dn and new[DN] != I[DN]:
                new[DN] = Interval(new[DN][0], None)
        I = new
    return None


def _symmetric(I: dict, cells: list) -> dict:
    """Every cell of a variable given the join of them all.  The explorer turns the table at each deal (the
    dealer to seat 0), so cell ``i`` of one deal's gains is another player's cell in the next: a bound per
    cell would follow a seat of the turned table, not a player.  A bound shared by the cells of a variable
    holds whatever the turns."""
    out = dict(I)
    by_var: dict = {}
    for name, i in cells:
        by_var.setdefault(name, []).append((name, i))
    for group in by_var.values():
        both = join(tuple(I[c] for c in group))
        for c in group:
            out[c] = both
    return out


def _text(iv) -> str:
    lo, hi = iv
    return f"{'-inf' if lo is None else lo}..{'inf' if hi is None else hi}"


def _index(g, name):
    return next(k for k, v in enumerate(g.vars) if v.name == name)


def _width(V, v):
    return V.game.players if v.per == "player" else max(1, len(V.g.sides))


def _sub(e):
    from .liveness import subexprs
    return subexprs(e)


def _meet(a: Interval, lo, hi):
    a_lo, a_hi = a
    nlo = lo if a_lo is None else (a_lo if lo is None else max(a_lo, lo))
    nhi = hi if a_hi is None else (a_hi if hi is None else min(a_hi, hi))
    if nlo is not None and nhi is not None and nlo > nhi:
        return None
    return Interval(nlo, nhi)


def refine(e: ir.Expr, want: bool, env: dict, n: int, locals_: dict | None = None):
    """``env`` (cells -> intervals) restricted to where ``e == want`` may hold; None where it cannot.
    Forms it does not understand leave ``env`` as it is (a sound over-approximation)."""
    locals_ = locals_ or {}
    if isinstance(e, ir.Not):
        return refine(e.operand, not want, env, n, locals_)
    if isinstance(e, ir.BinOp) and e.op in ("and", "or"):
        if (e.op == "and") == want:     # both sides must take the value
            env = refine(e.left, want, env, n, locals_)
            return None if env is None else refine(e.right, want, env, n, locals_)
        return env
    if isinstance(e, ir.Quant) and e.domain is None and e.kind in ("any", "all"):
        if (e.kind == "all") == want:   # every player's body takes the value
            for p in range(n):
                env = refine(e.body, want, env, n, {**locals_, e.var: p})
                if env is None:
                    return None
        return env
    if isinstance(e, ir.BinOp) and e.op in ("==", "!=", "<", "<=", ">", ">="):
        op = e.op
        cell, const = _cell(e.left, locals_), _const(e.right)
        if cell is None or const is None:
            cell, const = _cell(e.right, locals_), _const(e.left)
            op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op]
        if cell is None or const is None or cell not in env:
            return env
        if not want:
            op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}[op]
        bounds = {"<": (None, const - 1), "<=": (None, const), ">": (const + 1, None), ">=": (const, None),
                  "==": (const, const)}.get(op)
        if bounds is None:   # !=: only an exact value can be excluded
            if env[cell] == Interval(const, const):
                return None
            return env
        got = _meet(env[cell], *bounds)
        if got is None:
            return None
        return {**env, cell: got}
    return env


def _cell(e, locals_):
    if isinstance(e, ir.Builtin) and e.name == "deal_number":
        return DN
    if isinstance(e, ir.Index) and isinstance(e.base, ir.VarRef):
        i = e.index
        if isinstance(i, ir.Const) and isinstance(i.value, int) and not isinstance(i.value, bool):
            return (e.base.name, i.value)
        if isinstance(i, ir.Local) and i.name in locals_:
            return (e.base.name, locals_[i.name])
    return None


def _const(e):
    if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    return None

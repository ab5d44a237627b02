"""Monitors: checks run on every observable abstract state while the abstraction is explored.

The engine can be observed at a chance node, at a decision and at the end of the match; the explorer
calls each monitor there, on the raw abstract state (before anything is forgotten), with the node the
move started from and the move.  An invariant must hold in all of them; the ``where`` of a ``conserves``
property must hold on every arrival at its target from its phases.
"""
from __future__ import annotations

from atout.compiler import ir

from .abstract_eval import ExprError

MAX_KEPT = 8   # violations kept per monitor (for replay), beyond the first


def projection(e):
    """A function ``f(state)`` of what expression ``e`` reads (its variables, the zones it names, the trick
    and deal fields its built-in names and functions read): equal projections give equal values."""
    from .liveness import subexprs
    names, zones, fields = set(), False, False
    for x in subexprs(e):
        if isinstance(x, ir.VarRef):
            names.add(x.name)
        elif isinstance(x, (ir.ZoneRef,)) or isinstance(x, ir.Call) and x.fn in ("card",) or \
                isinstance(x, ir.Const) and x.type.kind == "card":
            zones = True
        elif isinstance(x, ir.Builtin) or isinstance(x, ir.Call) and x.fn in ("tricks", "played"):
            fields = True
    names = tuple(sorted(names))

    def f(st):
        return (tuple(st.vars[n] for n in names),
                (tuple(st.sizes), tuple(st.tracked)) if zones else None,
                (st.dealer, st.actor, st.trick_number, tuple(st.trick_cards), st.trick_leader, st.last_winner,
                 tuple(st.tricks_won) if st.tricks_won.__class__ is list else st.tricks_won) if fields else None)
    return f


class InvariantMonitor:
    """``invariant C``: C, with ``p`` bound to every player, in every observable state (memoised on what C
    reads)."""

    def __init__(self, A, prop: ir.Property):
        self.A = A
        self.prop = prop
        self.checked = 0
        self.violations: list = []      # (kind, source key, move)
        self._project = projection(prop.expr)
        self._memo: dict = {}

    def fails(self, st) -> bool:
        key = self._project(st)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._fails(st)
        return got

    def _fails(self, st) -> bool:
        for p in range(self.A.n):
            vals = self.A.eval(self.prop.expr, st, {"p": p})
            if False in vals or any(v.__class__ is ExprError for v in vals):
                return True
        return False

    def __call__(self, kind, st, src, move):
        self.checked += 1
        if len(self.violations) < MAX_KEPT and self.fails(st):
            self.violations.append((kind, src, move))


class ArrivalMonitor:
    """``conserves {PHASES} reach P where C``: C on every arrival at P from a state in PHASES."""

    def __init__(self, A, prop: ir.Property):
        self.A = A
        self.prop = prop
        self.phases = set(prop.phases)
        self.checked = 0
        self.violations: list = []

    def __call__(self, kind, st, src, move):
        if kind != "decision" or st.phase != self.prop.target or not isinstance(src, tuple) or \
                src[0] not in self.phases:
            return
        self.checked += 1
        if self.prop.expr is None or len(self.violations) >= MAX_KEPT:
            return
        for p in range(self.A.n):
            vals = self.A.eval(self.prop.expr, st, {"p": p})
            if False in vals or any(v.__class__ is ExprError for v in vals):
                self.violations.append((kind, src, move))
                return


def monitors_for(V, A, props) -> dict:
    """The monitors of the given properties, by property name."""
    out = {}
    for p in props:
        if p.kind == "invariant":
            out[p.name] = InvariantMonitor(A, p)
        elif p.kind == "conserves" and p.target is not None:
            out[p.name] = ArrivalMonitor(A, p)
    return out

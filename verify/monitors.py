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


class InvariantMonitor:
    """``invariant C``: C, with ``p`` bound to every player, in every observable state."""

    def __init__(self, A, prop: ir.Property):
        self.A = A
        self.prop = prop
        self.checked = 0
        self.violations: list = []      # (kind, source key, move)

    def fails(self, st) -> bool:
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

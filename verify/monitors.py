"""Monitors: checks run on every observable abstract state while the abstraction is explored.

The engine can be observed at a chance node, at a decision and at the end of the match; the explorer
calls each monitor there, on the raw abstract state (before anything is forgotten), with the node the
move started from and the move.  An invariant must hold in all of them; the ``where`` of a ``conserves``
property must hold on every arrival at its target from its phases.
"""
from __future__ import annotations

from operator import itemgetter

from atout.compiler import ir

from .abstract_eval import ExprError

MAX_KEPT = 8   # violations kept per monitor (for replay), beyond the first


def projection(e):
    """A function ``f(state)`` of what expression ``e`` reads (its variables, the zones it names, the trick
    and deal fields its built-in names and functions read): equal projections give equal values."""
    from .liveness import subexprs
    names, zones, fields, tricks = set(), False, False, False
    for x in subexprs(e):
        if isinstance(x, ir.VarRef):
            names.add(x.name)
        elif isinstance(x, (ir.ZoneRef,)) or isinstance(x, ir.Call) and x.fn in ("card", "holder") or \
                isinstance(x, ir.Const) and x.type.kind == "card":
            zones = True
        elif isinstance(x, ir.Builtin) or isinstance(x, ir.Call) and x.fn == "played":
            fields = True
        elif isinstance(x, ir.Call) and x.fn == "tricks":
            tricks = True
    parts = []      # the parts read, each a function of the state; fixed per expression, so keys compare
    if names:
        get = itemgetter(*sorted(names))     # one name: its value; several: a tuple of them
        parts.append(lambda st: get(st.vars))
    if zones:
        parts.append(lambda st: (tuple(st.sizes), tuple(st.tracked)))
    if fields:
        parts.append(lambda st: (st.dealer, st.actor, st.trick_number, tuple(st.trick_cards), st.trick_leader,
                                 st.last_winner, st.deal_number))
    if tricks:
        parts.append(lambda st: tuple(st.tricks_won) if st.tricks_won.__class__ is list else st.tricks_won)
    if not parts:
        return lambda st: ()
    if len(parts) == 1:
        return parts[0]
    return lambda st: tuple([f(st) for f in parts])


class InvariantMonitor:
    """``invariant C``: C, with ``p`` bound to every player, in every observable state (memoised on what C
    reads).

    Where the abstract evaluation says C may fail, the state is kept as a candidate; once the exploration is
    complete (the values recorded on entering phases with frozen variables all known), :meth:`settle` asks
    z3 whether C can fail in any concrete state the candidate stands for (:mod:`.smt_refine`: Spades' bids,
    forgotten during the tricks, took one of the values play entered them with; the tricks won are split
    between the sides), and only those are violations."""

    def __init__(self, A, prop: ir.Property):
        self.A = A
        self.prop = prop
        self.checked = 0
        self.violations: list = []      # (kind, source key, move), after settle()
        self.candidates: dict = {}      # (what C reads, phase) -> [state, phase, (kind, source key, move), ...]
        self.ruled_out = 0              # candidates z3 showed cannot fail
        self._settled = False
        self._project = projection(prop.expr)
        self._memo: dict = {}
        from .liveness import players_bound
        self._players = players_bound(A.game, prop.expr)

    def fails(self, st) -> bool:
        key = self._project(st)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._fails(st)
        return got

    def holds_in(self, st) -> bool:
        """Whether C surely holds in abstract state ``st`` (memoised): then a call on ``st`` only counts it."""
        return not self.fails(st)

    def _fails(self, st) -> bool:
        for p in self._players:
            vals = self.A.eval(self.prop.expr, st, {"p": p})
            if False in vals or any(v.__class__ is ExprError for v in vals):
                return True
        return False

    def __call__(self, kind, st, src, move):
        self.checked += 1
        got = self._memo.get(self._project(st))     # (fails, inlined: called on every observable state)
        if got is None:
            got = self.fails(st)
        if got:
            # the phase whose entries hold its frozen variables: its own, or at the end of the match the one
            # the move came from (nothing in or after that phase writes them)
            phase = st.phase if st.phase in self.A.frozen else \
                (src[0] if kind == "over" and isinstance(src, tuple) and src[0] in self.A.frozen else None)
            # z3 reads the frozen values the state's companions allow (smt_refine.with_entries): states that
            # differ there are different questions
            companions = tuple(st.vars[n] for n in self.A.companions[phase]) if phase is not None else ()
            key = (self._project(st), phase, companions)
            got = self.candidates.get(key)
            if got is None:
                self.candidates[key] = [st.clone(), phase, (kind, src, move)]
            elif len(got) <= MAX_KEPT:
                got.append((kind, src, move))

    def settle(self) -> list:
        """The violations: the candidates where z3 does not show that C holds (done once)."""
        if self._settled:
            return self.violations
        from . import smt_refine
        self._settled = True
        for st, phase, *where in self.candidates.values():
            if smt_refine.invariant_can_fail(self.A, st, self.prop.expr, phase) is False:
                self.ruled_out += 1
                continue
            self.violations.extend(where[:MAX_KEPT - len(self.violations)])
            if len(self.violations) >= MAX_KEPT:
                break
        return self.violations


class ArrivalMonitor:
    """``conserves {PHASES} reach P where C``: C on every arrival at P from a state in PHASES.

    An arrival is a state of P where play rests (a decision or a chance node) reached by a move that starts
    at a decision of PHASES or passes a chance node of PHASES (a do phase rests only at its chance nodes).
    Every state of P such a move rests at is checked, not only the first: more than the arrivals, never
    fewer."""

    def __init__(self, A, prop: ir.Property):
        self.A = A
        self.prop = prop
        self.phases = set(prop.phases)
        self.checked = 0
        self.violations: list = []
        self._via = (None, None)     # (source key, move) of the move that last passed a chance node of PHASES
        from .liveness import players_bound
        self._players = players_bound(A.game, prop.expr) if prop.expr is not None else range(0)

    def __call__(self, kind, st, src, move):
        if kind == "chance" and st.phase in self.phases:
            self._via = (src, move)
            return
        if kind == "over" or st.phase != self.prop.target:
            return
        if not (isinstance(src, tuple) and src[0] in self.phases) and \
                not (self._via[0] is src and self._via[1] is move):
            return
        self.checked += 1
        if self.prop.expr is None or len(self.violations) >= MAX_KEPT:
            return
        for p in self._players:
            vals = self.A.eval(self.prop.expr, st, {"p": p})
            if False in vals or any(v.__class__ is ExprError for v in vals):
                self.violations.append((kind, src, move))
                return


def monitored(p: ir.Property) -> bool:
    """Whether property ``p`` is decided by a monitor attached to its exploration (:func:`monitors_for`)."""
    return p.kind == "invariant" or p.kind == "conserves" and p.target is not None


def monitors_for(V, A, props) -> dict:
    """The monitors of the given properties, by property name."""
    out = {}
    for p in props:
        if monitored(p):
            out[p.name] = InvariantMonitor(A, p) if p.kind == "invariant" else ArrivalMonitor(A, p)
    return out

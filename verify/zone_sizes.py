"""Invariants over zone sizes, proved from the conservation of cards before any exploration.

An ``invariant`` that reads nothing but the sizes of zones (``size(stock) + size(trick) + sum(p in players:
size(hand[p])) == 52``, ``size(stock) <= 32``) follows from two facts true in every state of every match:

* every size is at least 0;
* the sizes add up to the number of cards of the deck: the engine starts the match with every card in the
  home zone and only ever moves a card from one zone to another (a *structural* invariant of the
  representation), and :func:`atout.verify.smt.conservation` checks that every card-moving effect of the
  rules preserves the total (z3, effect by effect).

So if z3 finds no assignment of non-negative sizes adding up to the deck's size that falsifies the invariant,
the invariant holds in every state, observable or not: proved, with a proof whose size depends on the
property and the number of zones, not on the game's state space.  When z3 finds such an assignment, nothing
is concluded (that assignment may be unreachable): the property is decided by exploration as before.

Expressions understood: integer and boolean constants (options are constants), ``size`` of a shared zone or
of a player's zone whose player is a constant or a bound ``p in players``, the quantifiers over players
(``sum``, ``count``, ``all``, ``any``), ``+ - *``, comparisons, ``and or not``, ``if then else``, ``in {..}``
and the seat functions (``left``, ``right``, ``partner``, ``clockwise``, ``seat``) of a known seat.  Anything
else (a variable, a card, a division) makes the property not a size invariant (:func:`size_invariant`
returns None).
"""
from __future__ import annotations

import z3

from atout.compiler import ir

from . import smt


class _NotSizes(Exception):
    """The expression reads something other than zone sizes."""


def reads_only_sizes(game, expr: ir.Expr) -> bool:
    """Whether ``expr`` (an invariant of ``game``, an engine Game) is made only of what this module encodes."""
    try:
        _Encoder(game).expr(expr, {})
    except _NotSizes:
        return False
    return True


def size_invariant(game, expr: ir.Expr, rlimit: int) -> tuple[bool | None, str]:
    """Try to prove the invariant ``expr`` from the conservation of cards.

    Returns ``(True, how)`` when proved; ``(False, why)`` when the expression is a size invariant that the
    two facts do not imply (an exploration must decide it); ``(None, why)`` when it is not a size invariant,
    or z3 reached ``rlimit`` (its own deterministic count of work)."""
    enc = _Encoder(game)
    try:
        goal = enc.expr(expr, {})
    except _NotSizes as exc:
        return None, f"not an invariant over zone sizes: {exc}"
    if not z3.is_bool(goal):
        return None, "not a condition"
    try:
        ok, checked, where = smt.conservation(game, rlimit)
    except smt.SolverTimeout:
        return None, "z3 reached its resource limit on conservation"
    if not ok:
        return False, f"an effect changes the number of cards: {where}"
    s = z3.Solver()
    s.set("rlimit", rlimit)
    for x in enc.sizes:
        s.add(x >= 0)
    s.add(z3.Sum(enc.sizes) == game.num_cards)
    s.add(z3.Not(goal))
    r = s.check()
    if r == z3.unknown:
        return None, f"z3 reached its resource limit ({s.reason_unknown()})"
    if r == z3.sat:
        m = s.model()
        shown = ", ".join(f"{game.zone_slots[i].label} {m.eval(x, model_completion=True)}"
                          for i, x in enumerate(enc.sizes) if m.eval(x, model_completion=True).as_long())
        return False, f"not implied by the conservation of cards alone (e.g. sizes {shown})"
    return True, (f"inductive invariant by SMT, without exploration: z3 shows that it follows from the "
                  f"conservation of the {game.num_cards} cards (the {len(enc.sizes)} zone sizes are at least 0 "
                  f"and add up to {game.num_cards}: the engine only moves cards from zone to zone, and all "
                  f"{checked} card-moving effects preserve the total)")


class _Encoder:
    """The expression as a z3 term over one integer per zone slot (``sizes[slot]``); seats are Python ints."""

    def __init__(self, game):
        self.game = game
        self.n = game.players
        self.sizes = [z3.Int(f"size_{i}") for i in range(len(game.zone_slots))]

    def expr(self, e: ir.Expr, env: dict):  # noqa: C901 - one case per node type
        if isinstance(e, ir.Const):
            if isinstance(e.value, bool):
                return z3.BoolVal(e.value)
            if e.type.kind == "player":
                return int(e.value)          # a seat (or none, refused where a seat is needed)
            if e.type.kind != "int":
                raise _NotSizes(f"a {e.type.kind} constant")
            return z3.IntVal(int(e.value))
        if isinstance(e, ir.Local):
            if e.name not in env:
                raise _NotSizes(f"'{e.name}'")
            return env[e.name]
        if isinstance(e, ir.Call):
            return self.call(e, env)
        if isinstance(e, ir.Quant):
            if e.domain is not None:
                raise _NotSizes("a quantifier over the cards of a zone")
            terms = [self.expr(e.body, {**env, e.var: p}) for p in range(self.n)]
            if e.kind == "sum":
                return z3.Sum([self._int(t) for t in terms])
            if e.kind == "count":
                return z3.Sum([z3.If(self._bool(t), 1, 0) for t in terms])
            if e.kind == "all":
                return z3.And([self._bool(t) for t in terms])
            return z3.Or([self._bool(t) for t in terms])
        if isinstance(e, ir.BinOp):
            a, b = self.expr(e.left, env), self.expr(e.right, env)
            if e.op in ("and", "or"):
                return (z3.And if e.op == "and" else z3.Or)(self._bool(a), self._bool(b))
            if isinstance(a, int) and isinstance(b, int) and e.op in ("==", "!="):
                return z3.BoolVal((a == b) == (e.op == "=="))   # two seats
            if e.op in ("==", "!="):
                a, b = self._same(a, b)
                return a == b if e.op == "==" else a != b
            a, b = self._int(a), self._int(b)
            ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "<": lambda: a < b,
                   "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}
            if e.op not in ops:
                raise _NotSizes(f"the operator '{e.op}'")   # / and % may be rule errors (division by zero)
            return ops[e.op]()
        if isinstance(e, ir.Not):
            return z3.Not(self._bool(self.expr(e.operand, env)))
        if isinstance(e, ir.Neg):
            return -self._int(self.expr(e.operand, env))
        if isinstance(e, ir.Cond):
            t = self._bool(self.expr(e.test, env))
            a, b = self._same(self.expr(e.then, env), self.expr(e.orelse, env))
            return z3.If(t, a, b)
        if isinstance(e, ir.InSet):
            v = self.expr(e.value, env)
            return z3.Or([self._eq(v, self.expr(i, env)) for i in e.items])
        raise _NotSizes(f"{type(e).__name__.lower()} {getattr(e, 'name', '')}".strip())

    def call(self, e: ir.Call, env: dict):
        n = self.game.players
        if e.fn == "size":
            return self.sizes[self.slot(e.args[0], env)]
        if e.fn in ("left", "right", "partner", "seat", "clockwise"):
            p = self.seat(e.args[0], env)
            if e.fn == "left":
                return (p + 1) % n
            if e.fn == "right":
                return (p - 1) % n
            if e.fn == "partner":
                return self.game.partner[p]
            if e.fn == "seat":
                return p % n
            k = self.expr(e.args[1], env)
            if not (z3.is_int_value(k)):
                raise _NotSizes("clockwise() by a computed count")
            return (p + k.as_long()) % n
        raise _NotSizes(f"the function '{e.fn}'")

    def seat(self, e: ir.Expr, env: dict) -> int:
        p = self.expr(e, env)
        if not isinstance(p, int) or not 0 <= p < self.n:
            raise _NotSizes("a player that is not a known seat")   # none would be a rule error
        return p

    def slot(self, z: ir.Expr, env: dict) -> int:
        base = self.game.zone_base
        if isinstance(z, ir.ZoneRef) and not z.per_player:
            return base[z.name]
        if isinstance(z, ir.Index) and isinstance(z.base, ir.ZoneRef):
            return base[z.base.name] + self.seat(z.index, env)
        raise _NotSizes("a zone that is not named")   # a per-player zone without its player

    def _int(self, t):
        if isinstance(t, int) or not z3.is_int(t):
            raise _NotSizes("arithmetic on a seat or a condition")
        return t

    def _bool(self, t):
        if isinstance(t, int) or not z3.is_bool(t):
            raise _NotSizes("a number used as a condition")
        return t

    def _same(self, a, b):
        if isinstance(a, int) or isinstance(b, int):
            raise _NotSizes("a seat compared or chosen with a computed value")
        if z3.is_bool(a) != z3.is_bool(b):
            raise _NotSizes("a condition compared with a number")
        return a, b

    def _eq(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return z3.BoolVal(a == b)
        a, b = self._same(a, b)
        return a == b

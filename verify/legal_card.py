"""A card choice that always leaves a legal card: the lemma that removes the spurious dead ends of tricks played
by hand.

An action with a card parameter (``action play(c: card in hand[actor]) when GUARD``) is legal when some card of
its zone satisfies ``GUARD``.  The card-blind abstraction cannot see which cards a zone holds, so a guard that
reads the card's suit (the suit led, a void) may fail for every card it tries: the state then "may have no
legal action", and ``builtin:no_dead_end`` stays unknown even for the follow-suit rule, which always leaves a
card (a card of the suit led, or, for a player void in it, any card).

:func:`always_legal` asks z3, once per action, whether the guard holds for some card of every nonempty zone,
*whatever the rest of the state*: the zone is a set of the deck's cards (one boolean each, at least one true),
and every variable, the actor and anything else the guard reads is unconstrained (the encoding of
:class:`.smt._Encoder`, where what it does not model is a fresh unconstrained term).  Quantifiers, ``size``
and ``has`` over that same zone read the set.  When z3 finds no nonempty set and no values for which every
card fails, every state of the game in which the zone holds a card has a legal card: a case of the
abstraction with no legal move there is one of the cases it cannot tell apart, not a state of the game
(:meth:`.absint.Abstraction.surely_legal`).  Proving more than needed (every value, not only the reachable
ones) is what makes the lemma sound; the price is that a guard whose card is legal only thanks to some other
fact of the state (``when suit(c) == trumps`` with trumps always held) is not proved, and stays unknown.
"""
from __future__ import annotations

import z3

from atout.compiler import ir

from .liveness import subexprs
from .smt import _Encoder


class _ZoneEncoder(_Encoder):
    """:class:`.smt._Encoder` where each zone of ``zones`` is a set of the deck's cards (one z3 bool per card id,
    :meth:`members`); ``actor``: the ``actor`` expression of a choice phase, the same player as the built-in
    ``actor`` at its decisions (the actor is read again from the phase at every rest), so that ``hand[actor]``
    and ``hand[turn]`` are one zone in a phase with ``actor turn``."""

    def __init__(self, game, zones, actor: ir.Expr | None = None):
        super().__init__(game)
        self.actor = actor
        self.zones: list = []
        self._memo: dict = {}
        self._free: dict = {}
        for z in zones:
            if names_one_zone(z) and self.members(z) is None:
                n = len(self.zones)
                self.zones.append((z, [z3.Bool(f"in_{n}_{k}") for k in range(len(game.suit_of))]))

    def _same(self, a, b) -> bool:
        if a == b:
            return True
        if self.actor is None or not (isinstance(a, ir.Index) and isinstance(b, ir.Index)) or a.base != b.base:
            return False
        me = ir.Builtin("actor", ir.Type("player"))
        return {a.index, b.index} <= {me, self.actor}

    def members(self, z):
        """The set (list of z3 bools by card id) of zone expression ``z``, or None when it is no zone of the query
        (a zone indexed by a local is none: it names another zone for each value of the local)."""
        if not names_one_zone(z):
            return None
        for zz, m in self.zones:
            if self._same(z, zz):
                return m
        return None

    def expr(self, e, env=None):
        """The term of ``e`` under ``env`` (local name -> z3 term), memoised on the locals ``e`` reads: within
        the one state the query is about, equal reads have equal values (a fresh term included)."""
        env = env or {}
        free = self._free.get(id(e))
        if free is None:
            free = self._free[id(e)] = tuple(sorted({x.name for x in subexprs(e) if isinstance(x, ir.Local)}))
        key = (id(e),) + tuple(env[n].get_id() if n in env else -1 for n in free)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._expr(e, env)
        return got

    def _expr(self, e, env):
        if isinstance(e, ir.Call) and e.fn in ("suit", "rank") and len(e.args) == 1:
            x = self.expr(e.args[0], env)
            if z3.is_int_value(x):      # a card of the zone: its suit or rank, as the engine's tables say
                k = x.as_long()
                table = self.game.suit_of if e.fn == "suit" else self.game.strength_of
                return z3.IntVal(table[k] if 0 <= k < len(table) else -1)
        if isinstance(e, ir.Quant) and e.domain is not None and self.members(e.domain) is not None:
            member = self.members(e.domain)
            cards = range(len(member))
            if e.kind in ("any", "all"):
                body = [self.expr(e.body, {**env, e.var: z3.IntVal(k)}) for k in cards]
                if e.kind == "any":
                    return z3.Or([z3.And(member[k], body[k]) for k in cards])
                return z3.And([z3.Implies(member[k], body[k]) for k in cards])
            if e.kind == "count":
                return z3.Sum([z3.If(z3.And(member[k], self.expr(e.body, {**env, e.var: z3.IntVal(k)})), 1, 0)
                               for k in cards])
            if e.kind == "sum":
                return z3.Sum([z3.If(member[k], self.expr(e.body, {**env, e.var: z3.IntVal(k)}), 0)
                               for k in cards])
        if isinstance(e, ir.Quant) and e.domain is not None:     # over another zone: any value
            return self._new("bool" if e.kind in ("any", "all") else "int")
        if isinstance(e, ir.Call) and e.args and self.members(e.args[0]) is not None:
            member = self.members(e.args[0])
            if e.fn == "size":
                return z3.Sum([z3.If(m, 1, 0) for m in member])
            if e.fn == "has" and len(e.args) == 2:
                x = self.expr(e.args[1], env)
                return z3.Or([z3.And(m, x == k) for k, m in enumerate(member)])
        return super().expr(e, env)


def always_legal(game, act: ir.Action, rlimit: int, actor: ir.Expr | None = None) -> bool:
    """Whether z3 proves that, in every state where the zone of ``act``'s card parameter holds at least one card,
    some card of it satisfies ``act``'s guard (whatever the other values of the state).  ``game``: the engine's
    game (the deck's suit, rank and colour tables); ``act``: an action whose ``param.kind`` is ``card``;
    ``actor``: the ``actor`` expression of its phase when it is a choice phase (``turn`` in ``actor turn``),
    the same player as the built-in ``actor`` at its decisions.  False
    when z3 finds a counter-model, or gives up within ``rlimit`` (its own count of work, the same on every
    machine): a lemma it could not prove is never used."""
    p = act.param
    if p is None or p.kind != "card":
        return False
    enc = _ZoneEncoder(game, [p.zone], actor)
    try:
        legal = _card_options(enc, act)
    except (z3.Z3Exception, KeyError):     # a construct the encoding does not type: no lemma
        return False
    return _some_always_holds(enc, legal, rlimit)


def _card_options(enc: _ZoneEncoder, act: ir.Action) -> list:
    """For each card id ``k``: card ``k`` is in the zone of ``act``'s card parameter and satisfies its guard."""
    p = act.param
    member = enc.members(p.zone)
    return [z3.And(member[k], enc.expr(act.guard, {p.name: z3.IntVal(k)})) for k in range(len(member))]


def _some_always_holds(enc: _ZoneEncoder, options: list, rlimit: int) -> bool:
    """Whether z3 proves that one of ``options`` holds whenever every zone of ``enc`` holds a card and the
    variables are in their declared ranges (unknown within ``rlimit``: not proved)."""
    s = z3.Solver()
    s.set("rlimit", rlimit)
    s.add(*enc.ranges)
    for _, member in enc.zones:
        s.add(z3.Or(member))
    s.add(z3.Not(z3.Or(options)))
    return s.check() == z3.unsat


def names_one_zone(e) -> bool:
    """Whether ``e`` names one zone in a state: a shared zone, or a player's whose index reads no local (not
    ``hand[p]`` inside ``any(p in players: ...)``, a different zone for each ``p``)."""
    if isinstance(e, ir.ZoneRef):
        return not e.per_player
    return isinstance(e, ir.Index) and isinstance(e.base, ir.ZoneRef) and \
        not any(isinstance(x, ir.Local) for x in subexprs(e.index))


def phase_always_legal(game, ph: ir.Phase, rlimit: int) -> tuple | None:
    """The zones (expressions) whose holding a card each makes some action of the choice phase ``ph`` legal,
    whatever the rest of the state, as z3 proves it; None when it does not (or ``ph`` is no choice phase).

    The sibling of :func:`always_legal` for guards whose witness is not a card parameter: actions whose guards
    read the hand and complement one another (``declare when any(c in hand[actor]: rank(c) == K)`` and ``pass
    when all(c in hand[actor]: rank(c) != K)``), or a domain parameter whose value the hand must support
    (``name(s: suit) when any(c in hand[actor]: suit(c) == s)``).  Every zone an action's parameter draws from
    or a guard quantifies over (or reads the ``size`` of, or ``has``) is a set of cards, each assumed to hold
    one; an action without a parameter is legal when its guard holds, one with a domain parameter for some
    value of it, one with a card parameter for some card of its zone; a ``choose`` is not counted (the lemma is
    only harder to prove without it).  Anything else the guards read is left free, as in :func:`always_legal`."""
    if ph.kind != "choice" or not ph.actions:
        return None
    zones = []
    for act in ph.actions:
        if act.param is not None and act.param.kind == "card":
            zones.append(act.param.zone)
        for x in subexprs(act.guard):
            if isinstance(x, ir.Quant) and x.domain is not None and names_one_zone(x.domain):
                zones.append(x.domain)
            elif isinstance(x, ir.Call) and x.fn in ("size", "has") and x.args and names_one_zone(x.args[0]):
                zones.append(x.args[0])
    enc = _ZoneEncoder(game, zones, ph.actor)
    options = []
    try:
        for act in ph.actions:
            p = act.param
            if p is None:
                options.append(enc.expr(act.guard, {}))
            elif p.kind == "domain":
                options += [enc.expr(act.guard, {p.name: z3.IntVal(v)}) for v in ir.domain_values(game.ir, p.type)]
            elif p.kind == "card":
                options += _card_options(enc, act)
    except (z3.Z3Exception, KeyError):     # a construct the encoding does not type: no lemma
        return None
    if not options or not _some_always_holds(enc, options, rlimit):
        return None
    return tuple(z for z, _ in enc.zones)

"""The engine's view of a compiled game: zone layout, deck facts, action numbering.

``atout.load(path)`` compiles a rule file and returns a :class:`Game` whose
``new_initial_state()`` starts a match.  The API follows OpenSpiel's Python
games (``pyspiel.Game``/``pyspiel.State``) so that the OpenSpiel export is a thin
adapter: players are 0-based seats, chance is explicit (``current_player()``
returns :data:`CHANCE` at a chance node), actions are ints.
"""
from __future__ import annotations

from dataclasses import dataclass

from atout.compiler import compile_file, ir

from .evaluate import ExprCompiler

CHANCE = -1
TERMINAL = -4

SUIT_SYMBOLS = {"spades": "♠", "hearts": "♥", "diamonds": "♦", "clubs": "♣"}


@dataclass(frozen=True)
class ZoneSlot:
    name: str
    owner: int | None  # None for a shared zone
    visibility: str

    @property
    def label(self) -> str:
        return self.name if self.owner is None else f"{self.name}[{self.owner}]"


@dataclass(frozen=True)
class TrickPlan:
    """A trick block compiled for the engine's hot path: closures ``f(state, env)`` and card order tables
    (``suits_by[trump + 1][card]``, ``strength_by[trump + 1][card]``; see :meth:`Game.card_order`)."""
    count: object
    leader: object
    trump: object
    skips: tuple
    follow: tuple  # ((kind, condition), ...)
    suits_by: list
    strength_by: list


class Game:
    """A playable game compiled from a rule file.

    ``ir`` is the :class:`atout.compiler.ir.Game`.  Distinct actions: card ids
    ``0 .. num_cards-1`` (a card to play, choose or discard; chance outcomes are
    card ids too) followed by the named action slots of ``ir.action_slots``.

    ``compiled`` (the default): states run the game translated to Python by the exporter's code generator
    (:mod:`.compiled`); ``compiled=False``: states are the interpreter's (:mod:`.state` over :mod:`.machine`),
    the reference implementation.  Both behave the same in everything they show.
    """

    def __init__(self, game_ir: ir.Game, compiled: bool = True):
        self.ir = game_ir
        self.compiled = compiled
        self._state_class = None
        g = game_ir
        self.name = g.name
        self.players = g.players
        self.deck = g.deck
        self.nranks = len(g.deck.ranks)
        self.num_cards = g.deck.size
        self.suit_of = [c // self.nranks for c in range(self.num_cards)]
        self.strength_of = [self.nranks - 1 - (c % self.nranks) for c in range(self.num_cards)]
        self.color_of = {g.deck.suits.index(s): i for i, (_, members) in enumerate(g.deck.colors) for s in members}
        n = g.players
        if g.sides:
            self.side_of = [next(i for i, side in enumerate(g.sides) if p in side) for p in range(n)]
            self.partner = [next((q for q in g.sides[self.side_of[p]] if q != p), p) for p in range(n)]
        else:
            self.side_of = list(range(n))
            self.partner = [(p + n // 2) % n for p in range(n)]
        # zone layout: one slot per shared zone, one per player for per-player zones
        self.zone_slots: list[ZoneSlot] = []
        self.zone_base: dict[str, int] = {}
        for z in g.zones:
            self.zone_base[z.name] = len(self.zone_slots)
            if z.per_player:
                self.zone_slots.extend(ZoneSlot(z.name, p, z.visibility) for p in range(n))
            else:
                self.zone_slots.append(ZoneSlot(z.name, None, z.visibility))
        self.home_zone = next(self.zone_base[z.name] for z in g.zones if z.home)
        self.hidden_zone = [s.visibility == "hidden" for s in self.zone_slots]
        self.phases = {p.name: p for p in g.phases}
        self.var_decl = {v.name: v for v in g.vars}
        self.tables = {t.name: t for t in g.tables}
        self.slot_index = {(s.name, s.value): g.deck.size + i for i, s in enumerate(g.action_slots)}
        self.done_action = self.slot_index.get(("done", None))
        self.compile = ExprCompiler(self)
        self.hand_base = self.zone_base.get("hand")
        self.trick_zone = self.zone_base.get("trick")
        self.taken_base = self.zone_base.get("taken")
        # perfect recall (engine/recall.py): who sees what, as bitmasks of seats
        self.all_seats = (1 << n) - 1
        self.slot_seers = [self.all_seats if s.visibility == "public" else
                           (1 << s.owner if s.visibility == "private" and s.owner is not None else 0)
                           for s in self.zone_slots]
        self.slot_public = [m == self.all_seats for m in self.slot_seers]
        self.var_pos = {v.name: i for i, v in enumerate(g.vars)}
        self.var_seers = {}     # (variable name, entry or None) -> the seats that see it
        for v in g.vars:
            entries = [None] if v.per is None else range(n if v.per == "player" else max(1, len(g.sides)))
            for k in entries:
                self.var_seers[(v.name, k)] = sum(1 << p for p in range(n) if v.seen_by(p, k, g.sides))
        self.phase_pos = {p.name: i for i, p in enumerate(g.phases)}
        self.dealer_by_chance = g.match.first_dealer_random
        self.random_stmts = [s for s in ir.all_stmts(g) if isinstance(s, ir.RandomAssign)]
        self._card_orders: dict[int, tuple[list[list[int]], list[list[int]]]] = {}
        self._trick_plans: dict[int, TrickPlan] = {}

    def trick_plan(self, trick: ir.Trick) -> "TrickPlan":
        """The trick block's expressions compiled once, with its card order tables (cached per block)."""
        key = id(trick)
        plan = self._trick_plans.get(key)
        if plan is None:
            ev = self.compile
            suits_by, strength_by = self.card_order(trick)
            trump = ev(trick.trump)
            if trick.trump_order:   # with no trump suit, the trump order is the trump suit (number ns)
                ns = len(self.deck.suits)
                plain = trump

                def trump(st, env, plain=plain, ns=ns):
                    t = plain(st, env)
                    return t if t >= 0 else ns
            plan = TrickPlan(ev(trick.count), ev(trick.leader), trump,
                             tuple(ev(e) for e in (trick.skip, *trick.more_skips)),
                             tuple((r.kind, ev(r.condition)) for r in trick.follow), suits_by, strength_by)
            self._trick_plans[key] = plan
        return plan

    def card_order(self, trick: ir.Trick) -> tuple[list[list[int]], list[list[int]]]:
        """``(suit_by_trump, strength_by_trump)``: for a trump suit ``t`` (or -1, none), ``suit_by_trump[t + 1][c]``
        is the suit card ``c`` belongs to in trick play and ``strength_by_trump[t + 1][c]`` its strength there.

        They are the printed suit and rank unless the trick declares ``bowers RANK``: then under trumps ``t`` the
        card of that rank in ``t`` (right bower) has strength ``nranks + 1``, the card of that rank in the other suit
        of ``t``'s colour (left bower) has suit ``t`` and strength ``nranks``.
        """
        key = id(trick)
        got = self._card_orders.get(key)
        if got is not None:
            return got
        suits_by, strength_by = [], []
        ns = len(self.deck.suits)
        for t in range(-1, ns):
            su = list(self.suit_of)
            st = list(self.strength_of)
            if trick.bowers is not None and t >= 0:
                bower_index = self.nranks - 1 - trick.bowers
                colour = next(members for _, members in self.deck.colors if self.deck.suits[t] in members)
                other = next(self.deck.suits.index(m) for m in colour if m != self.deck.suits[t])
                right, left = t * self.nranks + bower_index, other * self.nranks + bower_index
                st[right] = self.nranks + 1
                st[left] = self.nranks
                su[left] = t
            suits_by.append(su)
            strength_by.append(st)
        if trick.trump_order:
            # the cards of a trump order rank above every trump, highest first, and follow as trumps; with no
            # trump suit they form a trump suit of their own, number ns (entry ns + 1; see effective_trump)
            k = len(trick.trump_order)
            for t in range(0, ns + 1):
                su, st = suits_by[t + 1] if t < ns else list(self.suit_of), strength_by[t + 1] if t < ns else \
                    list(self.strength_of)
                for i, c in enumerate(trick.trump_order):
                    su[c] = t
                    st[c] = self.nranks + k - i
                if t == ns:
                    suits_by.append(su)
                    strength_by.append(st)
        got = (suits_by, strength_by)
        self._card_orders[key] = got
        return got

    # -- OpenSpiel-shaped game API -------------------------------------------------
    def new_initial_state(self):
        """A new match, run up to its first chance node or decision: a :class:`.compiled.CompiledState` (the game
        as generated Python, made once per game) unless the game was made with ``compiled=False``, then the
        interpreter's :class:`.state.State`.  A game with a construct the code generator does not translate yet
        (a language construct newer than it) is played by the interpreter."""
        cls = self._state_class
        if cls is None and self.compiled:
            from atout.export.python_module import ExportError
            from .compiled import state_class
            try:
                cls = self._state_class = state_class(self)
            except ExportError:
                self.compiled = False
        if not self.compiled:
            from .state import State
            return State(self)
        return cls(self)

    def num_players(self) -> int:
        return self.players

    def num_distinct_actions(self) -> int:
        return self.ir.num_distinct_actions

    def max_chance_outcomes(self) -> int:
        """The most outcomes a chance node can have: a card draw, the first dealer, a ``random`` statement."""
        most = max(self.num_cards, self.players) if self.dealer_by_chance else self.num_cards
        return max([most, *(len(s.values) for s in self.random_stmts)])

    # -- names -------------------------------------------------------------------------
    def card_str(self, card: int) -> str:
        """Short name of a card id: ``K♠``, ``10♥`` (suits without a symbol: ``K of cups``)."""
        if card < 0:
            return "none"
        s, i = divmod(card, self.nranks)
        suit = self.deck.suits[s]
        sym = SUIT_SYMBOLS.get(suit)
        return f"{self.deck.ranks[i]}{sym}" if sym else f"{self.deck.ranks[i]} of {suit}"

    def value_str(self, value, t: ir.Type) -> str:
        """Human text of a value of IR type ``t``."""
        if t.kind in ("player", "suit", "card", "enum", "rank") and value == ir.NONE:
            return "none"
        if t.kind == "player":
            return f"seat {value}"
        if t.kind == "suit":
            return self.deck.suits[value]
        if t.kind == "rank":
            return self.deck.ranks[self.nranks - 1 - value]
        if t.kind == "card":
            return self.card_str(value)
        if t.kind == "enum":
            for e in self.ir.enums:
                if e.name == t.enum:
                    return e.label(value)
        if t.kind == "bool":
            return "true" if value else "false"
        return str(value)

    def slot(self, action: int) -> ir.ActionSlot:
        return self.ir.action_slots[action - self.num_cards]


def load(path: str, compiled: bool = True) -> Game:
    """Compile the rule file at ``path`` and return a playable :class:`Game` (its states run the game as generated
    Python; ``compiled=False``: the interpreter's).

    Raises :class:`atout.compiler.CompileError` when the file has mistakes.
    """
    return Game(compile_file(path), compiled)

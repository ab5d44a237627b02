"""The intermediate representation: an extended finite-state machine of a card game.

The IR is what the engine runs, what the verifier reasons about and what the
exporters translate.  It is made of frozen dataclasses with no behaviour; every
node carries a :class:`~atout.compiler.span.Span` that is excluded from
equality, so two IRs compiled from different text (a variant and the same game
written out in full) compare equal when they mean the same game.

Value encoding (shared by the engine, the verifier and the exporters):

* players are seats ``0 .. players-1`` (0-based, clockwise); ``none`` is ``-1``;
* suits are indices into :attr:`Deck.suits`; ranks are *strengths*
  ``0 .. len(ranks)-1`` with the highest rank the strongest (Écarté: K=7 ... 7=0);
* a card is ``suit * len(ranks) + (len(ranks) - 1 - strength)``, i.e. cards are
  numbered suit by suit, highest rank first;
* enum values are their 0-based position in the declaration (so the order of a
  contract ladder is the integer order); booleans are Python bools.

The control structure: a game has *phases*.  A ``choice`` phase has an actor and
named actions; an ``auto`` phase runs effects at once; a ``trick`` phase plays
tricks (the current player plays a card under the follow rules) and may offer
extra actions.  Effects end with ``goto PHASE`` or ``end deal``.  Card draws from
a ``hidden`` zone are chance events.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass

from .span import Span, NO_SPAN


def _span():
    return field(default=NO_SPAN, compare=False, repr=False)


def _added(default):
    """A field added to the IR after its first release: ``dump`` omits it while it holds its default,
    so that the canonical dump of a game that does not use it is unchanged."""
    return field(default=default, metadata={"omit_default": True})


# -- types -------------------------------------------------------------------
@dataclass(frozen=True)
class Type:
    """``kind`` is int, bool, player, suit, rank, card, enum, zone or zones (a per-player zone family)."""
    kind: str
    low: int | None = None
    high: int | None = None
    enum: str | None = None

    def __str__(self) -> str:
        if self.kind == "int" and self.low is not None:
            return f"int in {self.low}..{self.high}"
        if self.kind == "enum":
            return self.enum or "enum"
        return self.kind


INT = Type("int")
BOOL = Type("bool")
PLAYER = Type("player")
SUIT = Type("suit")
RANK = Type("rank")
CARD = Type("card")
ZONE = Type("zone")
ZONES = Type("zones")

NONE = -1


# -- expressions -------------------------------------------------------------
@dataclass(frozen=True)
class Expr:
    pass


@dataclass(frozen=True)
class Const(Expr):
    value: int | bool
    type: Type
    text: str = ""
    span: Span = _span()


@dataclass(frozen=True)
class VarRef(Expr):
    """A game variable; ``per`` is None, "player" or "side" (then it is indexed with :class:`Index`)."""
    name: str
    type: Type
    per: str | None = None
    span: Span = _span()


@dataclass(frozen=True)
class ZoneRef(Expr):
    name: str
    per_player: bool = False
    span: Span = _span()


@dataclass(frozen=True)
class Local(Expr):
    """An action parameter, loop variable, quantifier variable or the ``returns`` player."""
    name: str
    type: Type
    span: Span = _span()


@dataclass(frozen=True)
class Builtin(Expr):
    """dealer, eldest, actor, leader, winner, trick_number, led_suit, deal_number."""
    name: str
    type: Type
    span: Span = _span()


@dataclass(frozen=True)
class Index(Expr):
    base: Expr
    index: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Call(Expr):
    fn: str
    args: tuple[Expr, ...]
    type: Type
    span: Span = _span()


@dataclass(frozen=True)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr
    type: Type
    span: Span = _span()


@dataclass(frozen=True)
class Not(Expr):
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Neg(Expr):
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Cond(Expr):
    test: Expr
    then: Expr
    orelse: Expr
    type: Type
    span: Span = _span()


@dataclass(frozen=True)
class InSet(Expr):
    value: Expr
    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Quant(Expr):
    """``kind`` in any, all, sum, count; ``domain`` is None for all players, else a zone."""
    kind: str
    var: str
    domain: Expr | None
    body: Expr
    span: Span = _span()


@dataclass(frozen=True)
class NextPlayer(Expr):
    """``next(var after after: cond)``: the first player clockwise after ``after`` (``after`` itself
    last) for whom ``cond`` holds, with ``var`` bound to the player tried; ``none`` if nobody."""
    var: str
    after: Expr
    cond: Expr
    span: Span = _span()


# -- statements --------------------------------------------------------------
@dataclass(frozen=True)
class Stmt:
    pass


@dataclass(frozen=True)
class Assign(Stmt):
    var: str
    index: Expr | None
    op: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Move(Stmt):
    """Move ``count`` cards (None: all) from ``source`` to ``dest``.  From a hidden zone each card is a chance draw."""
    count: Expr | None
    source: Expr
    dest: Expr
    span: Span = _span()


@dataclass(frozen=True)
class MoveCard(Stmt):
    """``move CARD from Z to Z``: move that one card (a parameter, a literal, a variable); it must be in
    ``source`` (else a rule error).  No chance is involved, whatever the zone."""
    card: Expr
    source: Expr
    dest: Expr
    span: Span = _span()


@dataclass(frozen=True)
class SetDealer(Stmt):
    """``dealer = PLAYER``: the dealer of the deal in progress becomes that player (not none: a rule error);
    ``eldest`` follows, and ``next dealer`` starts from him at the end of the deal."""
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Deal(Stmt):
    """Deal packets: for each packet size, each player in turn from ``starting`` receives that many cards."""
    packets: tuple[Expr, ...]
    source: Expr
    dest: str
    starting: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Shuffle(Stmt):
    zone: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Gather(Stmt):
    """Move every card of every zone into ``zone`` (the start of a deal)."""
    zone: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Reveal(Stmt):
    """Make a zone visible to every player until the end of the deal."""
    zone: Expr
    span: Span = _span()


@dataclass(frozen=True)
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class For(Stmt):
    """``for VAR in ...``: ``over`` is ``players`` (seats 0..N-1), ``sides`` (side numbers), ``suits`` (the
    deck's suits in order), ``range`` (the ints ``source``..``high``, evaluated once when the loop starts) or
    ``cards`` (the cards of the zone ``source`` when the loop starts, in the zone's order)."""
    var: str
    body: tuple[Stmt, ...]
    span: Span = _span()
    over: str = _added("players")
    source: Expr | None = _added(None)
    high: Expr | None = _added(None)


@dataclass(frozen=True)
class RandomAssign(Stmt):
    """``VAR = random {V: W, ...}``: a chance event sets the variable to one of ``values`` (evaluated when the
    statement runs), value ``i`` with probability ``weights[i] / sum(weights)``.  The chance outcomes are the
    indices ``0 .. len(values)-1``; there is a chance node even when there is one outcome."""
    var: str
    index: Expr | None
    values: tuple[Expr, ...]
    weights: tuple[int, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Goto(Stmt):
    phase: str
    span: Span = _span()


@dataclass(frozen=True)
class EndDeal(Stmt):
    span: Span = _span()


@dataclass(frozen=True)
class Score(Stmt):
    table: str
    span: Span = _span()


# -- declarations -------------------------------------------------------------
@dataclass(frozen=True)
class Deck:
    suits: tuple[str, ...]
    ranks: tuple[str, ...]  # highest first
    colors: tuple[tuple[str, tuple[str, ...]], ...] = ()
    span: Span = _span()

    @property
    def size(self) -> int:
        return len(self.suits) * len(self.ranks)

    def card_name(self, card: int) -> str:
        s, i = divmod(card, len(self.ranks))
        return f"{self.ranks[i]} of {self.suits[s]}"


@dataclass(frozen=True)
class Option:
    name: str
    type: Type
    value: int | bool
    text: str
    span: Span = _span()


@dataclass(frozen=True)
class Enum:
    name: str
    values: tuple[str, ...]
    span: Span = _span()
    # display labels, one per value (`enum contract { solo "solo" abondance_declaree "abondance déclarée" }`):
    # what action texts and observations show; () when the declaration gives none (the names are shown)
    labels: tuple[str, ...] = _added(())

    def label(self, i: int) -> str:
        """The display text of value ``i`` (0-based): its label, or its name."""
        return self.labels[i] if self.labels else self.values[i]


@dataclass(frozen=True)
class Zone:
    name: str
    per_player: bool
    visibility: str  # private (the owner sees), public, hidden
    home: bool = False
    builtin: bool = False
    span: Span = _span()


@dataclass(frozen=True)
class Var:
    name: str
    scope: str  # match or deal
    type: Type
    per: str | None
    init: Expr
    span: Span = _span()
    # who sees the value (`, public` / `, private` / `, hidden` after the declaration): None when the file does not
    # say (public; the compiler warns, W001, when such a variable is computed from cards not every seat sees);
    # private: a per-player entry is seen by its player, a per-side entry by the side's members; hidden: by nobody
    visibility: str | None = _added(None)

    def seen_by(self, player: int, entry: int | None, sides: tuple = ()) -> bool:
        """Whether seat ``player`` (0-based) sees entry ``entry`` (a seat or side index; None for a single
        value) of this variable."""
        if self.visibility in (None, "public"):
            return True
        if self.visibility == "hidden" or entry is None:
            return False
        if self.per == "side":
            return 0 <= entry < len(sides) and player in sides[entry]
        return entry == player


@dataclass(frozen=True)
class Param:
    """``card``: one card from ``zone``; ``choose``: low..high cards, one at a time, from ``zone`` to ``dest``
    (the chosen number is bound to ``name``); ``domain``: one value of ``type`` (a suit, a player, an enum, or an
    int of ``type``'s constant range ``low..high``: ``bid(n: 0..13)``)."""
    kind: str
    name: str
    type: Type
    zone: Expr | None = None
    low: Expr | None = None
    high: Expr | None = None
    dest: Expr | None = None
    span: Span = _span()


@dataclass(frozen=True)
class Action:
    name: str
    label: str
    param: Param | None
    guard: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()
    # `public`: the cards a card or choose parameter picks are shown to every player (a card laid on the
    # table through a choice); otherwise only the chooser knows them
    public: bool = _added(False)


@dataclass(frozen=True)
class CardRule:
    """``lead c when COND`` (``kind`` lead: the card led) or ``card c when COND`` (``kind`` card: every card
    played).  After the follow rules, each rule in order keeps the cards for which COND holds (``var`` bound to
    the card) *if* the player holds at least one such card among those still allowed; otherwise it keeps them
    all.  So a player always has a card to play."""
    kind: str
    var: str
    condition: Expr
    span: Span = _span()


@dataclass(frozen=True)
class FollowRule:
    kind: str  # suit (must follow suit), head (must beat the winning card), trump (void: must trump)
    condition: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Trick:
    count: Expr
    leader: Expr
    trump: Expr  # a suit or none
    follow: tuple[FollowRule, ...]
    skip: Expr  # a player who sits out, or none
    then: tuple[Stmt, ...]
    span: Span = _span()
    # ``after trick { ... }``: runs after every trick (the last one too, before ``then``), with
    # ``trick_number`` the trick just played and ``winner`` its winner; no goto or end deal.
    after: tuple[Stmt, ...] = field(default=(), metadata={"dump_if_default": False})
    more_skips: tuple[Expr, ...] = _added(())  # further players who sit out (`skip A, B`), each a player or none
    # `bowers RANK`: the strength of the bower rank.  Under a trump suit, the card of that rank in trumps is the
    # highest trump (right bower) and the card of that rank in the other suit of trumps' colour is the second
    # highest (left bower); the left bower belongs to trumps for following suit and winning tricks.
    bowers: int | None = _added(None)
    card_rules: tuple[CardRule, ...] = _added(())  # `lead c when ...`, `card c when ...`, in order
    # `dummy P [by Q]`: when it is P's turn to play (P a player, not none), Q chooses P's card (default P's
    # partner): Q is the current player, `actor` stays P; P's hand is revealed once the first card is led.
    dummy: Expr | None = _added(None)
    dummy_by: Expr | None = _added(None)
    # `trump order C1, C2, ...`: card ids, highest first, that are trumps above every card of the trump suit
    # (they follow as trumps, whatever their printed suit); with no trump suit they are the only trumps
    # (Skat's jacks, the Grand; Doppelkopf's queens and jacks over diamonds).
    trump_order: tuple[int, ...] = _added(())


@dataclass(frozen=True)
class Phase:
    name: str
    kind: str  # choice, auto, trick
    actor: Expr | None
    actions: tuple[Action, ...]
    body: tuple[Stmt, ...]  # auto phases
    trick: Trick | None
    span: Span = _span()


@dataclass(frozen=True)
class Row:
    name: str
    guard: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Table:
    name: str
    rows: tuple[Row, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Match:
    first_dealer: Expr
    next_dealer: Expr
    start: str
    ends_when: Expr
    returns_var: str
    returns: Expr
    span: Span = _span()
    first_dealer_random: bool = _added(False)  # `first dealer random`: a chance node picks the first dealer


@dataclass(frozen=True)
class Property:
    """kind: invariant, deal_bound, terminates, match_terminates, can_end, can_force, complete, reachable, conserves."""
    name: str
    kind: str
    expr: Expr | None = None
    phases: tuple[str, ...] = ()
    target: str | None = None
    player: Expr | None = None
    span: Span = _span()


@dataclass(frozen=True)
class ActionSlot:
    """One distinct non-card action id: a named action and, for a domain parameter, one value of it."""
    name: str
    value: int | None
    text: str  # e.g. "bid solo", "name hearts", "done"


@dataclass(frozen=True)
class Game:
    name: str
    title: str
    players: int
    sides: tuple[tuple[int, ...], ...]
    deck: Deck
    options: tuple[Option, ...]
    enums: tuple[Enum, ...]
    zones: tuple[Zone, ...]
    vars: tuple[Var, ...]
    phases: tuple[Phase, ...]
    tables: tuple[Table, ...]
    match: Match
    properties: tuple[Property, ...]
    action_slots: tuple[ActionSlot, ...]
    source: str = field(default="", compare=False)

    # Lookups (pure functions of the fields; no behaviour beyond indexing).
    def phase(self, name: str) -> Phase:
        for p in self.phases:
            if p.name == name:
                return p
        raise KeyError(name)

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(name)

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)

    @property
    def num_distinct_actions(self) -> int:
        return self.deck.size + len(self.action_slots)


ASSIGNS = (Assign, RandomAssign)   # the statements that set a variable (``isinstance(s, ir.ASSIGNS)``)


def domain_values(game: "Game", t: Type) -> list[int]:
    """The values a ``domain`` action parameter of type ``t`` takes, in action-id order: suits and enum values
    by index, players by seat, an int parameter ``low..high`` by value."""
    if t.kind == "suit":
        return list(range(len(game.deck.suits)))
    if t.kind == "player":
        return list(range(game.players))
    if t.kind == "int" and t.low is not None:
        return list(range(t.low, t.high + 1))
    for e in game.enums:
        if e.name == t.enum:
            return list(range(len(e.values)))
    return []


def all_stmts(game: "Game"):
    """Every statement of the game: phases' actions, bodies and trick blocks, and scoring rows."""
    for ph in game.phases:
        for a in ph.actions:
            yield from walk_stmts(a.body)
        yield from walk_stmts(ph.body)
        if ph.trick is not None:
            yield from walk_stmts(ph.trick.then)
            yield from walk_stmts(ph.trick.after)
    for t in game.tables:
        for r in t.rows:
            yield from walk_stmts(r.body)


def walk_stmts(body):
    """Every statement of ``body``, nested ones (in ``if`` branches and ``for`` bodies) included, in order."""
    for s in body:
        yield s
        if isinstance(s, If):
            for _, b in s.branches:
                yield from walk_stmts(b)
            yield from walk_stmts(s.orelse)
        elif isinstance(s, For):
            yield from walk_stmts(s.body)


# -- canonical dump ------------------------------------------------------------
def dump(node, indent: int = 0) -> str:
    """Canonical text of an IR node: one field per line, spans omitted, stable across runs.

    Golden tests compare this text; two equal IRs dump to the same text.
    """
    out: list[str] = []
    _dump(node, indent, out, prefix="")
    return "\n".join(out) + "\n"


def _atom(v) -> str | None:
    if isinstance(v, Const):
        t = str(v.type)
        return f"{v.text or v.value}:{f'({t})' if ' ' in t else t}"  # 5:(int in 1..99), not 5:int in 1..99
    if isinstance(v, Type):
        return str(v)
    if isinstance(v, (VarRef, Local, Builtin)):
        return v.name
    if isinstance(v, ZoneRef):
        return f"zone {v.name}"
    if isinstance(v, (str, int, bool)) or v is None:
        return repr(v)
    return None


def _expr_text(e) -> str:
    """Expressions are dumped inline in a fully parenthesised prefix form."""
    a = _atom(e)
    if a is not None:
        return a
    if isinstance(e, Index):
        return f"{_expr_text(e.base)}[{_expr_text(e.index)}]"
    if isinstance(e, Call):
        return f"{e.fn}({', '.join(_expr_text(x) for x in e.args)})"
    if isinstance(e, BinOp):
        return f"({_expr_text(e.left)} {e.op} {_expr_text(e.right)})"
    if isinstance(e, Not):
        return f"(not {_expr_text(e.operand)})"
    if isinstance(e, Neg):
        return f"(-{_expr_text(e.operand)})"
    if isinstance(e, Cond):
        return f"(if {_expr_text(e.test)} then {_expr_text(e.then)} else {_expr_text(e.orelse)})"
    if isinstance(e, InSet):
        return f"({_expr_text(e.value)} in {{{', '.join(_expr_text(x) for x in e.items)}}})"
    if isinstance(e, Quant):
        dom = "players" if e.domain is None else _expr_text(e.domain)
        return f"{e.kind}({e.var} in {dom}: {_expr_text(e.body)})"
    if isinstance(e, NextPlayer):
        return f"next({e.var} after {_expr_text(e.after)}: {_expr_text(e.cond)})"
    raise TypeError(type(e))


def _dump(node, indent: int, out: list[str], prefix: str) -> None:
    pad = "  " * indent
    if isinstance(node, Expr):
        out.append(f"{pad}{prefix}{_expr_text(node)}")
        return
    a = _atom(node)
    if a is not None:
        out.append(f"{pad}{prefix}{a}")
        return
    if isinstance(node, tuple):
        if not node:
            out.append(f"{pad}{prefix}()")
            return
        if all(isinstance(x, (str, int)) for x in node):
            out.append(f"{pad}{prefix}[{', '.join(repr(x) for x in node)}]")
            return
        out.append(f"{pad}{prefix}[")
        for item in node:
            _dump(item, indent + 1, out, "")
        out.append(f"{pad}]")
        return
    if is_dataclass(node):
        out.append(f"{pad}{prefix}{type(node).__name__}")
        for f in fields(node):
            if f.name == "span" or not f.compare:
                continue
            if (f.metadata.get("dump_if_default", True) is False or f.metadata.get("omit_default")) and \
                    getattr(node, f.name) == f.default:
                continue  # a later, optional field: dumps of games that do not use it stay unchanged
            _dump(getattr(node, f.name), indent + 1, out, f"{f.name}: ")
        return
    raise TypeError(type(node))  # pragma: no cover

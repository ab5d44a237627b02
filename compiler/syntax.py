"""The abstract syntax tree of a rule file, as produced by :mod:`atout.compiler.parse`.

Every node is a frozen dataclass carrying a :class:`~atout.compiler.span.Span`
(1-based lines and columns), excluded from equality.  The AST is close to the
source: names are unresolved strings.  Only the compiler reads it; the engine,
the verifier and the exporters read the IR (:mod:`atout.compiler.ir`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .span import Span, NO_SPAN

_span = lambda: field(default=NO_SPAN, compare=False, repr=False)  # noqa: E731


# -- expressions -------------------------------------------------------------
@dataclass(frozen=True)
class Expr:
    pass


@dataclass(frozen=True)
class IntLit(Expr):
    value: int
    span: Span = _span()


@dataclass(frozen=True)
class BoolLit(Expr):
    value: bool
    span: Span = _span()


@dataclass(frozen=True)
class NoneLit(Expr):
    span: Span = _span()


@dataclass(frozen=True)
class Name(Expr):
    id: str
    span: Span = _span()


@dataclass(frozen=True)
class Call(Expr):
    fn: str
    args: tuple[Expr, ...]
    span: Span = _span()
    fn_span: Span = _span()


@dataclass(frozen=True)
class Index(Expr):
    base: Expr
    index: Expr
    span: Span = _span()


@dataclass(frozen=True)
class BinOp(Expr):
    """``op`` is one of ``+ - * / % == != < <= > >= and or``."""
    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Neg(Expr):
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Not(Expr):
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Cond(Expr):
    test: Expr
    then: Expr
    orelse: Expr
    span: Span = _span()


@dataclass(frozen=True)
class InRange(Expr):
    value: Expr
    low: Expr
    high: Expr
    span: Span = _span()


@dataclass(frozen=True)
class InSet(Expr):
    value: Expr
    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class CardLit(Expr):
    """``RANK of SUIT``: ``K of trump``, ``10 of hearts``."""
    rank: Expr
    suit: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Quant(Expr):
    """``any/all/sum/count(x in DOMAIN: body)``; DOMAIN is ``players`` or a zone."""
    kind: str
    var: str
    domain: Expr
    body: Expr
    span: Span = _span()


@dataclass(frozen=True)
class NextPlayer(Expr):
    """``next(q after EXPR: COND)``: the first player clockwise after EXPR for whom COND holds."""
    var: str
    after: Expr
    cond: Expr
    span: Span = _span()


# -- statements --------------------------------------------------------------
@dataclass(frozen=True)
class Case(Expr):
    """``case E { K, K: V ... else: V }``: the value of the first arm one of whose keys equals E."""
    value: Expr
    arms: tuple[tuple[tuple[Expr, ...], Expr], ...]
    orelse: Expr | None
    span: Span = _span()


@dataclass(frozen=True)
class Stmt:
    pass


@dataclass(frozen=True)
class Assign(Stmt):
    target: str
    index: Expr | None
    op: str  # "=", "+=", "-="
    value: Expr
    span: Span = _span()
    target_span: Span = _span()


@dataclass(frozen=True)
class Move(Stmt):
    count: Expr | None  # None means "all"
    source: Expr
    dest: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Deal(Stmt):
    packets: tuple[Expr, ...]
    source: Expr
    dest: str  # a per-player zone family
    starting: Expr
    span: Span = _span()
    dest_span: Span = _span()


@dataclass(frozen=True)
class Shuffle(Stmt):
    zone: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Gather(Stmt):
    zone: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Reveal(Stmt):
    zone: Expr
    span: Span = _span()


@dataclass(frozen=True)
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class For(Stmt):
    """``for VAR in DOMAIN``: ``over`` is players, sides, suits, range (``low..high``) or cards (of ``low``,
    a zone)."""
    var: str
    body: tuple[Stmt, ...]
    span: Span = _span()
    over: str = "players"
    low: Expr | None = None
    high: Expr | None = None


@dataclass(frozen=True)
class RandomAssign(Stmt):
    """``VAR = random {V: W, ...}`` or ``VAR = random LO..HI``: a chance event picks the value."""
    target: str
    index: Expr | None
    op: str
    items: tuple[tuple[Expr, int | None], ...]  # (value, weight) of a set; () for a range
    low: Expr | None
    high: Expr | None
    span: Span = _span()
    target_span: Span = _span()


@dataclass(frozen=True)
class Goto(Stmt):
    phase: str
    span: Span = _span()
    phase_span: Span = _span()


@dataclass(frozen=True)
class EndDeal(Stmt):
    span: Span = _span()


@dataclass(frozen=True)
class Score(Stmt):
    table: str
    span: Span = _span()
    table_span: Span = _span()


@dataclass(frozen=True)
class Misplaced(Stmt):
    """A declaration written where only statements are allowed (reported by resolve)."""
    what: str
    span: Span = _span()


# -- declarations ------------------------------------------------------------
@dataclass(frozen=True)
class TypeRef:
    kind: str  # "int", "bool" or a type name ("player", "suit", "card", "rank", enum name)
    low: "int | Expr | None" = None    # an int, or an expression of options folded by the compiler
    high: "int | Expr | None" = None
    span: Span = _span()
    range_span: Span = _span()  # the ``low..high`` part of an int type


@dataclass(frozen=True)
class Param:
    kind: str  # "card", "choose", "domain", "range" (an int from low to high)
    name: str
    zone: Expr | None = None  # card: the zone chosen from; choose: the source
    low: Expr | None = None
    high: Expr | None = None
    dest: Expr | None = None
    type_name: str | None = None
    span: Span = _span()


@dataclass(frozen=True)
class ActionDecl:
    name: str
    label: str | None
    param: Param | None
    guard: Expr | None
    body: tuple[Stmt, ...]
    override: bool = False
    span: Span = _span()
    name_span: Span = _span()
    public: bool = False        # `action NAME(c: card in Z) "label" public`: the card chosen is shown to all
    visibility: str | None = None
    visibility_span: Span = _span()


@dataclass(frozen=True)
class CardRule:
    """``lead c when COND`` (the card led) or ``card c when COND`` (every card played)."""
    kind: str  # "lead" or "card"
    var: str
    condition: Expr
    span: Span = _span()


@dataclass(frozen=True)
class DefDecl:
    """``def NAME(P: T, ...): T = EXPR``: a pure named definition, expanded where it is called."""
    name: str
    params: tuple[tuple[str, TypeRef], ...]
    result: TypeRef
    body: Expr
    override: bool = False
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True)
class FollowRule:
    kind: str  # "suit", "head", "trump"
    condition: Expr | None
    span: Span = _span()


@dataclass(frozen=True)
class TrickDecl:
    count: Expr | None
    leader: Expr | None
    trump: Expr | None
    follow: tuple[FollowRule, ...]
    skip: Expr | None
    then: tuple[Stmt, ...] | None
    span: Span = _span()
    after: tuple[Stmt, ...] | None = None  # ``after trick { ... }``: runs after every trick
    more_skips: tuple[Expr, ...] = ()  # `skip A, B`: the players after the first
    bowers: Expr | None = None  # `bowers J`: the rank of the bowers
    card_rules: tuple[CardRule, ...] = ()  # `lead c when ...`, `card c when ...`, in order
    trump_order: tuple[Expr, ...] = ()     # `trump order C, C, ...`: cards above every other trump, highest first
    dummy: Expr | None = None              # `dummy P [by Q]`: P's cards are chosen by Q (default his partner)
    dummy_by: Expr | None = None
    repeated: tuple[tuple[str, Span], ...] = ()   # a clause given a second time (its word, its span): E102


@dataclass(frozen=True)
class PhaseDecl:
    name: str
    actor: Expr | None
    actions: tuple[ActionDecl, ...]
    do: tuple[Stmt, ...] | None
    trick: TrickDecl | None
    override: bool = False
    span: Span = _span()
    name_span: Span = _span()
    extra_actors: tuple[Span, ...] = field(default=(), compare=False)
    extra_tricks: tuple[Span, ...] = field(default=(), compare=False)
    extra_dos: tuple[Span, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class DeckDecl:
    suits: tuple[str, ...]
    ranks: tuple[str, ...]
    colors: tuple[tuple[str, tuple[str, ...]], ...]
    span: Span = _span()
    rank_spans: tuple[Span, ...] = field(default=(), compare=False)
    suit_spans: tuple[Span, ...] = field(default=(), compare=False)
    color_spans: tuple[tuple[Span, ...], ...] = field(default=(), compare=False)  # one per member, per colour


@dataclass(frozen=True)
class OptionDecl:
    name: str
    type: TypeRef
    value: Expr
    override: bool = False
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True)
class EnumDecl:
    name: str
    values: tuple[str, ...]
    span: Span = _span()
    name_span: Span = _span()
    labels: tuple[str | None, ...] = ()   # per value: its display label ("abondance déclarée"), or None


@dataclass(frozen=True)
class ZoneDecl:
    name: str
    per: str | None
    visibility: str
    home: bool
    span: Span = _span()
    name_span: Span = _span()
    attr_spans: tuple[tuple[str, Span], ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class VarDecl:
    name: str
    scope: str  # "match" or "deal"
    type: TypeRef
    per: str | None
    init: Expr | None
    span: Span = _span()
    name_span: Span = _span()
    visibility: str | None = None      # `, public` / `, private` / `, hidden` after the declaration; None: not said
    visibility_span: Span = _span()


@dataclass(frozen=True)
class RowDecl:
    """A row of a scoring table.  ``override``: written ``override row`` (only in a variant) to replace the row of
    that name of a base table in place; ``table``: the table named in ``override row TABLE.ROW`` at the top level
    of a variant (None for a row written inside a ``table`` block)."""
    name: str | None
    guard: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()
    override: bool = False
    name_span: Span = _span()
    table: str | None = None
    table_span: Span = _span()


@dataclass(frozen=True)
class TableDecl:
    name: str
    rows: tuple[RowDecl, ...]
    override: bool = False
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True)
class MatchDecl:
    first_dealer: Expr | None
    next_dealer: Expr | None
    start: str | None
    ends_when: Expr | None
    returns_var: str | None
    returns: Expr | None
    span: Span = _span()
    start_span: Span = _span()
    first_dealer_random: bool = False  # `first dealer random`
    repeated: tuple[tuple[str, Span], ...] = ()   # a clause given a second time (its words, its span): E102


@dataclass(frozen=True)
class PropertyDecl:
    name: str
    kind: str
    expr: Expr | None = None
    phases: tuple[str, ...] = ()
    target: str | None = None
    player: Expr | None = None
    override: bool = False
    span: Span = _span()
    name_span: Span = _span()
    phase_spans: tuple[Span, ...] = field(default=(), compare=False)
    target_span: Span = _span()


@dataclass(frozen=True)
class RemoveDecl:
    """``remove WHAT NAME``; ``remove row TABLE.ROW`` sets ``table`` (the row is removed from that table only)."""
    what: str
    name: str
    span: Span = _span()
    table: str | None = None
    table_span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True)
class RuleFile:
    path: str
    game: str | None
    title: str | None
    extends: str | None
    players: int | None
    sides: tuple[tuple[int, ...], ...]
    deck: DeckDecl | None
    options: tuple[OptionDecl, ...]
    enums: tuple[EnumDecl, ...]
    zones: tuple[ZoneDecl, ...]
    vars: tuple[VarDecl, ...]
    phases: tuple[PhaseDecl, ...]
    tables: tuple[TableDecl, ...]
    match: MatchDecl | None
    properties: tuple[PropertyDecl, ...]
    removes: tuple[RemoveDecl, ...]
    misplaced: tuple[Misplaced, ...]
    span: Span = _span()
    extends_span: Span = _span()
    players_span: Span = _span()
    game_span: Span = _span()  # the game's name in ``game NAME``
    defs: tuple[DefDecl, ...] = ()
    row_overrides: tuple[RowDecl, ...] = ()   # ``override row TABLE.ROW: ...`` at the top level, in source order

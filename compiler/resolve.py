"""Pass 3: name resolution and type checking of expressions and statements.

:class:`Scope` knows every name a rule file declares (deck, options, enums,
zones, variables, phases, tables) and turns AST expressions and statements into
typed IR nodes, reporting unknown names (E103, with a did-you-mean hint),
type mismatches (E104), bad ranks and suits (E105, E106), wrong arity (E107),
unknown functions (E108), unknown phases (E109), misplaced declarations
(E110), assignments to constants (E111), indexing errors (E112), bad ranges
(E114) and unknown tables (E117).  A failed sub-expression yields an
``ERROR``-typed constant so that checking goes on and all errors are found.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import ir
from . import syntax as S
from .diagnostics import Reporter, did_you_mean
from .ir import BOOL, CARD, INT, PLAYER, RANK, SUIT, ZONE, ZONES, Type
from .span import Span

ERROR = Type("error")
ANY = Type("any")  # the type of `none`, compatible with player, suit, card, enum

# name -> (argument kinds, result type); "a" = per-player array, "z" = zone, "p" = player, "c" = card,
# "s" = suit, "i" = int.
FUNCTIONS: dict[str, tuple[tuple[str, ...], Type, str]] = {
    "size": (("z",), INT, "number of cards in a zone"),
    "has": (("z", "c"), BOOL, "whether a zone holds a card"),
    "top": (("z",), CARD, "the top (last added) card of a zone; none if empty"),
    "suit": (("c",), SUIT, "the suit of a card"),
    "rank": (("c",), RANK, "the rank of a card"),
    "left": (("p",), PLAYER, "the next player clockwise"),
    "right": (("p",), PLAYER, "the previous player clockwise"),
    "partner": (("p",), PLAYER, "the player opposite (4 players) or the other player (2)"),
    "side": (("p",), INT, "the 0-based side (partnership) of a player"),
    "tricks": (("p",), INT, "tricks the player has won in this deal"),
    "played": (("p",), BOOL, "whether the player has played to the current trick"),
    "total": (("a",), INT, "sum of a per-player or per-side variable"),
    "max": (("a",), INT, "largest value of a per-player or per-side variable"),
    "min": (("a",), INT, "smallest value of a per-player or per-side variable"),
    "abs": (("i",), INT, "absolute value"),
    "color": (("s",), INT, "the 0-based colour group of a suit (deck colors)"),
    "seat": (("i",), PLAYER, "the player in seat n (0-based)"),
    "ord": (("e",), INT, "the 0-based position of an enum value"),
}

_ARG_WORDS = {"z": "zone", "c": "card", "p": "player", "s": "suit", "i": "int", "a": "per-player variable",
              "e": "enum value"}


def signature(fn: str) -> str:
    """``size(zone): number of cards in a zone`` -- the usage line of a built-in function."""
    kinds, _, doc = FUNCTIONS[fn]
    return f"{fn}({', '.join(_ARG_WORDS[k] for k in kinds)}): {doc}"


BUILTINS: dict[str, tuple[Type, str]] = {
    "dealer": (PLAYER, "the dealer of the current deal"),
    "eldest": (PLAYER, "the player left of the dealer"),
    "actor": (PLAYER, "the player taking the current action"),
    "leader": (PLAYER, "the player who led the current trick"),
    "winner": (PLAYER, "the winner of the last completed trick"),
    "trick_number": (INT, "the current trick, 1-based"),
    "led_suit": (SUIT, "the suit led to the current trick, or none"),
    "deal_number": (INT, "deals completed in this match"),
}


def _compatible(want: Type, got: Type) -> bool:
    if ERROR in (want, got):
        return True
    if got == ANY:
        return want.kind in ("player", "suit", "card", "enum", "rank", "any")
    if want.kind == "int" and got.kind == "int":
        return True
    if want.kind == "enum" or got.kind == "enum":
        return want.kind == got.kind and want.enum == got.enum
    return want.kind == got.kind


@dataclass
class Scope:
    """Names of one (merged) rule file and the reporter errors go to."""
    rep: Reporter
    players: int
    deck: ir.Deck
    options: dict[str, ir.Option] = field(default_factory=dict)
    enums: dict[str, ir.Enum] = field(default_factory=dict)
    enum_values: dict[str, tuple[str, int]] = field(default_factory=dict)
    zones: dict[str, ir.Zone] = field(default_factory=dict)
    vars: dict[str, tuple[Type, str | None, str]] = field(default_factory=dict)  # name -> (type, per, scope)
    phases: set[str] = field(default_factory=set)
    tables: set[str] = field(default_factory=set)
    has_sides: bool = False
    gain_allowed: bool = False  # gain(VAR) is only meaningful in a deal_bound property

    # -- helpers -------------------------------------------------------------
    def all_names(self) -> set[str]:
        return (set(self.options) | set(self.enum_values) | set(self.zones) | set(self.vars) | set(BUILTINS)
                | set(self.deck.suits) | {r for r in self.deck.ranks if r.isidentifier()})

    def type_of_name(self, name: str) -> Type | None:
        if name in ("player", "suit", "card", "rank"):
            return Type(name)
        if name in self.enums:
            return Type("enum", enum=name)
        return None

    def resolve_type(self, t: S.TypeRef) -> Type:
        if t.kind == "int":
            if t.low is not None and t.high is not None and t.low > t.high:
                self.rep.error("E114", f"empty range {t.low}..{t.high}", t.range_span,
                               f"write the lower bound first: {t.high}..{t.low}")
            return Type("int", t.low, t.high)
        if t.kind == "bool":
            return BOOL
        got = self.type_of_name(t.kind)
        if got is None:
            self.rep.error("E103", f"unknown type '{t.kind}'", t.span,
                           did_you_mean(t.kind, ["int", "bool", "player", "suit", "card", "rank", *self.enums])
                           or "types are int, bool, player, suit, card, rank or a declared enum")
            return ERROR
        return got

    def expect(self, e: ir.Expr, got: Type, want: Type, span: Span, what: str = "") -> None:
        if got.kind in ("array", "zones") and want.kind not in ("array", "zones"):
            self.need_index(e, got, span)
        elif not _compatible(want, got):
            self.rep.error("E104", f"type mismatch{(' in ' + what) if what else ''}: expected {want}, found {got}",
                           span)

    def need_index(self, e: ir.Expr, got: Type, span: Span) -> None:
        """E112: a per-player zone or a per-player/per-side variable used without ``[index]``."""
        name = getattr(e, "name", None) or "this"
        if got == ZONES:
            self.rep.error("E112", f"'{name}' is one zone per player and needs an index", span,
                           f"say whose, e.g. {name}[actor]")
        else:
            self.rep.error("E112", f"'{name}' has one value per {got.enum or 'player'} and needs an index", span,
                           f"say whose, e.g. {name}[actor]")

    # -- expressions -----------------------------------------------------------
    def expr(self, e: S.Expr, env: dict[str, Type], want: Type | None = None) -> tuple[ir.Expr, Type]:
        """Resolve ``e`` under local bindings ``env``; ``want`` (optional) lets ints name ranks or seats."""
        x, t = self._expr(e, env, want)
        return x, t

    def check(self, e: S.Expr, env: dict[str, Type], want: Type, what: str = "") -> ir.Expr:
        x, t = self._expr(e, env, want)
        self.expect(x, t, want, e.span, what)
        return x

    def _err(self) -> tuple[ir.Expr, Type]:
        return ir.Const(0, ERROR, "<error>"), ERROR

    def _expr(self, e: S.Expr, env: dict[str, Type], want: Type | None) -> tuple[ir.Expr, Type]:
        sp = e.span
        if isinstance(e, S.IntLit):
            if want is not None and want.kind == "rank":
                return self._rank_const(str(e.value), sp)
            if want is not None and want.kind == "player":
                if not 0 <= e.value < self.players:
                    self.rep.error("E104", f"no seat {e.value}: seats are 0..{self.players - 1}", sp)
                    return self._err()
                return ir.Const(e.value, PLAYER, f"seat {e.value}", sp), PLAYER
            return ir.Const(e.value, INT, str(e.value), sp), INT
        if isinstance(e, S.BoolLit):
            return ir.Const(e.value, BOOL, "true" if e.value else "false", sp), BOOL
        if isinstance(e, S.NoneLit):
            t = want if want is not None and want.kind in ("player", "suit", "card", "enum", "rank") else ANY
            return ir.Const(ir.NONE, t, "none", sp), t
        if isinstance(e, S.Name):
            return self._name(e, env, want)
        if isinstance(e, S.Call):
            return self._call(e, env)
        if isinstance(e, S.Index):
            return self._index(e, env, want)
        if isinstance(e, S.BinOp):
            return self._binop(e, env)
        if isinstance(e, S.Not):
            x = self.check(e.operand, env, BOOL, "'not'")
            return ir.Not(x, sp), BOOL
        if isinstance(e, S.Neg):
            x = self.check(e.operand, env, INT, "'-'")
            return ir.Neg(x, sp), INT
        if isinstance(e, S.Cond):
            test = self.check(e.test, env, BOOL, "the condition of 'if'")
            a, ta = self._expr(e.then, env, want)
            b, tb = self._expr(e.orelse, env, want if ta in (ANY, ERROR) else ta)
            t = ta if ta not in (ANY, ERROR) else tb
            if t.kind in ("zone", "zones", "array"):
                self.rep.error("E104", "'if ... then ... else' chooses between values, not zones or "
                                       "per-player variables", sp,
                               "put the 'if' around the statement, or index inside: if c then a[p] else b[p]")
                return self._err()
            self.expect(b, tb, t, e.orelse.span, "'else'")
            return ir.Cond(test, a, b, t, sp), t
        if isinstance(e, S.InRange):
            v, tv = self._expr(e.value, env, None)
            lo = self.check(e.low, env, tv if tv.kind != "error" else INT, "a range bound")
            hi = self.check(e.high, env, tv if tv.kind != "error" else INT, "a range bound")
            if isinstance(lo, ir.Const) and isinstance(hi, ir.Const) and tv.kind == "int" and lo.value > hi.value:
                self.rep.error("E114", f"empty range {lo.value}..{hi.value}", sp, "write the lower bound first")
            return (ir.BinOp("and", ir.BinOp(">=", v, lo, BOOL, sp), ir.BinOp("<=", v, hi, BOOL, sp), BOOL, sp),
                    BOOL)
        if isinstance(e, S.InSet):
            v, tv = self._expr(e.value, env, None)
            items = tuple(self.check(i, env, tv if tv.kind not in ("error", "any") else INT, "a set item")
                          if tv.kind not in ("error",) else self._expr(i, env, None)[0] for i in e.items)
            return ir.InSet(v, items, sp), BOOL
        if isinstance(e, S.CardLit):
            r = self.check(e.rank, env, RANK, "the rank of a card")
            s = self.check(e.suit, env, SUIT, "the suit of a card")
            if isinstance(r, ir.Const) and r.value == ir.NONE and r.type == RANK:
                self.rep.error("E105", "a card needs a rank, not 'none'", e.rank.span,
                               f"this deck's ranks are {' '.join(self.deck.ranks)}")
                return self._err()
            if isinstance(s, ir.Const) and s.value == ir.NONE and s.type == SUIT:
                self.rep.error("E106", "a card needs a suit, not 'none'", e.suit.span,
                               f"this deck's suits are {' '.join(self.deck.suits)}")
                return self._err()
            if isinstance(r, ir.Const) and isinstance(s, ir.Const) and r.type == RANK and s.type == SUIT:
                n = len(self.deck.ranks)
                card = s.value * n + (n - 1 - r.value)
                return ir.Const(card, CARD, self.deck.card_name(card), sp), CARD
            return ir.Call("card", (r, s), CARD, sp), CARD
        if isinstance(e, S.Quant):
            return self._quant(e, env)
        if isinstance(e, S.NextPlayer):
            after = self.check(e.after, env, PLAYER, "'next ... after'")
            inner = dict(env)
            inner[e.var] = PLAYER
            cond = self.check(e.cond, inner, BOOL, "the condition of 'next'")
            return ir.NextPlayer(e.var, after, cond, sp), PLAYER
        raise AssertionError(type(e))  # pragma: no cover

    def _rank_const(self, label: str, sp: Span) -> tuple[ir.Expr, Type]:
        ranks = self.deck.ranks
        if label not in ranks:
            self.rep.error("E105", f"unknown rank '{label}'", sp,
                           did_you_mean(label, ranks) or f"this deck's ranks are {' '.join(ranks)}")
            return self._err()
        strength = len(ranks) - 1 - ranks.index(label)
        return ir.Const(strength, RANK, label, sp), RANK

    def _name(self, e: S.Name, env: dict[str, Type], want: Type | None) -> tuple[ir.Expr, Type]:
        n, sp = e.id, e.span
        if n in env:
            return ir.Local(n, env[n], sp), env[n]
        if want is not None and want.kind == "rank" and n in self.deck.ranks:
            return self._rank_const(n, sp)
        if n in self.options:
            o = self.options[n]
            return ir.Const(o.value, o.type, o.text, sp), o.type
        if n in self.vars:
            t, per, _ = self.vars[n]
            if per is not None:
                return ir.VarRef(n, t, per, sp), Type("array", enum=per)
            return ir.VarRef(n, t, None, sp), t
        if n in self.zones:
            z = self.zones[n]
            return ir.ZoneRef(n, z.per_player, sp), (ZONES if z.per_player else ZONE)
        if n in BUILTINS:
            t = BUILTINS[n][0]
            return ir.Builtin(n, t, sp), t
        if n in self.deck.suits:
            return ir.Const(self.deck.suits.index(n), SUIT, n, sp), SUIT
        if n in self.enum_values:
            en, i = self.enum_values[n]
            t = Type("enum", enum=en)
            return ir.Const(i, t, n, sp), t
        if n in self.deck.ranks:
            return self._rank_const(n, sp)
        if n == "players":
            self.rep.error("E104", "'players' is only a quantifier domain", sp, "write any(p in players: ...)")
            return self._err()
        cands = self.all_names() | set(env)
        if want is not None and want.kind in ("zone", "zones"):
            hint = did_you_mean(n, self.zones) or did_you_mean(n, cands) or \
                f"the zones are {', '.join(self.zones)}"
            self.rep.error("E103", f"unknown zone '{n}'", sp, hint)
            return self._err()
        if want is not None and want.kind == "suit":
            hint = did_you_mean(n, [*self.deck.suits, *self._names_of_kind("suit", env)]) or \
                f"this deck's suits are {' '.join(self.deck.suits)}"
            self.rep.error("E106", f"unknown suit '{n}'", sp, hint)
            return self._err()
        if want is not None and want.kind == "rank":
            return self._rank_const(n, sp)
        self.rep.error("E103", f"unknown name '{n}'", sp, did_you_mean(n, cands))
        return self._err()

    def _names_of_kind(self, kind: str, env: dict[str, Type]) -> list[str]:
        """Declared names (options, variables, locals) whose values are of type ``kind``."""
        out = [n for n, o in self.options.items() if o.type.kind == kind]
        out += [n for n, (t, per, _) in self.vars.items() if t.kind == kind and per is None]
        out += [n for n, t in env.items() if t.kind == kind]
        return out

    def _index(self, e: S.Index, env: dict[str, Type], want: Type | None = None) -> tuple[ir.Expr, Type]:
        base, tb = self._expr(e.base, env, ZONES if want is not None and want.kind == "zone" else None)
        if tb == ERROR:
            self._expr(e.index, env, None)
            return self._err()
        if tb == ZONES:
            idx = self.check(e.index, env, PLAYER, "a zone index")
            return ir.Index(base, idx, e.span), ZONE
        if tb.kind == "array":
            per = tb.enum
            idx, ti = self._expr(e.index, env, PLAYER)
            if per == "player":
                self.expect(idx, ti, PLAYER, e.index.span, "an index")
            elif ti.kind not in ("player", "int", "error"):
                self.rep.error("E104", f"type mismatch in an index: expected a player or a side number, found {ti}",
                               e.index.span)
            if per == "side" and ti.kind == "player":
                idx = ir.Call("side", (idx,), INT, e.index.span)
            if not isinstance(base, ir.VarRef):  # pragma: no cover - only variables have array types
                self.rep.error("E112", "only a variable or a zone can be indexed", e.span)
                return self._err()
            return ir.Index(base, idx, e.span), base.type
        self.rep.error("E112", f"cannot index a value of type {tb}", e.span,
                       "only per-player zones and per-player or per-side variables take [index]")
        return self._err()

    def _call(self, e: S.Call, env: dict[str, Type]) -> tuple[ir.Expr, Type]:
        if e.fn == "gain":
            return self._gain(e, env)
        if e.fn not in FUNCTIONS:
            for a in e.args:
                self._expr(a, env, None)
            hint = did_you_mean(e.fn, FUNCTIONS) or f"functions are {', '.join(sorted(FUNCTIONS))}"
            if e.fn in self.vars or e.fn in self.zones:
                hint = f"'{e.fn}' is not a function; index it with [ ]"
            self.rep.error("E108", f"unknown function '{e.fn}'", e.fn_span, hint)
            return self._err()
        kinds, result, _ = FUNCTIONS[e.fn]
        if len(e.args) != len(kinds):
            self.rep.error("E107", f"'{e.fn}' takes {len(kinds)} argument{'s' if len(kinds) != 1 else ''}, "
                                   f"given {len(e.args)}", e.span, signature(e.fn))
            for a in e.args:
                self._expr(a, env, None)
            return self._err()
        args = []
        want_map = {"p": PLAYER, "c": CARD, "s": SUIT, "i": INT}
        for k, a in zip(kinds, e.args):
            if k == "z":
                x, t = self._expr(a, env, ZONE)
                if t == ZONES:
                    self.need_index(x, t, a.span)
                elif t not in (ZONE, ERROR):
                    self.rep.error("E104", f"type mismatch in '{e.fn}': expected a zone, found {t}", a.span)
                args.append(x)
            elif k == "a":
                x, t = self._expr(a, env, None)
                if t.kind not in ("array", "error"):
                    self.rep.error("E104", f"type mismatch in '{e.fn}': expected a per-player or per-side "
                                           f"variable, found {t}", a.span)
                args.append(x)
            elif k == "e":
                x, t = self._expr(a, env, None)
                if t.kind not in ("enum", "error"):
                    self.rep.error("E104", f"type mismatch in '{e.fn}': expected an enum value, found {t}", a.span)
                args.append(x)
            else:
                args.append(self.check(a, env, want_map[k], f"'{e.fn}'"))
        return ir.Call(e.fn, tuple(args), result, e.span), result

    def _gain(self, e: S.Call, env: dict[str, Type]) -> tuple[ir.Expr, Type]:
        """``gain(VAR)``: how much a match variable (or its total/max/min) changed during one deal."""
        if not self.gain_allowed:
            for a in e.args:
                self._expr(a, env, None)
            self.rep.error("E119", "gain() is only allowed in a 'deal_bound' property", e.fn_span,
                           "gain(VAR) is the change of a match variable during one deal; "
                           "write 'property NAME: deal_bound ...'")
            return self._err()
        if len(e.args) != 1:
            self.rep.error("E107", f"'gain' takes 1 argument, given {len(e.args)}", e.span,
                           "gain(VAR): the change of a match variable during one deal")
            for a in e.args:
                self._expr(a, env, None)
            return self._err()
        x = self.check(e.args[0], env, INT, "'gain'")
        v = x
        if isinstance(v, ir.Call) and v.fn in ("total", "max", "min"):
            v = v.args[0]
        if isinstance(v, ir.Index):
            v = v.base
        if not (isinstance(v, ir.VarRef) and self.vars.get(v.name, (None, None, ""))[2] == "match"):
            if not (isinstance(x, ir.Const) and x.type == ERROR):
                self.rep.error("E119", "gain() takes a match variable", e.args[0].span,
                               "e.g. gain(points[p]) or gain(total(points)); deal variables restart every deal")
            return self._err()
        return ir.Call("gain", (x,), INT, e.span), INT

    _ARITH = {"+", "-", "*", "/", "%"}
    _ORDER = {"<", "<=", ">", ">="}

    def _binop(self, e: S.BinOp, env: dict[str, Type]) -> tuple[ir.Expr, Type]:
        op = e.op
        if op in ("and", "or"):
            a = self.check(e.left, env, BOOL, f"'{op}'")
            b = self.check(e.right, env, BOOL, f"'{op}'")
            return ir.BinOp(op, a, b, BOOL, e.span), BOOL
        if op in self._ARITH:
            a = self.check(e.left, env, INT, f"'{op}'")
            b = self.check(e.right, env, INT, f"'{op}'")
            return ir.BinOp(op, a, b, INT, e.span), INT
        a, ta = self._expr(e.left, env, None)
        b, tb = self._expr(e.right, env, ta if ta not in (ERROR, ANY) else None)
        if ta in (ANY,) and tb not in (ANY, ERROR):
            a, ta = self._expr(e.left, env, tb)
        for x, t, sub in ((a, ta, e.left), (b, tb, e.right)):
            if t.kind in ("zones", "array"):
                self.need_index(x, t, sub.span)
                return self._err()
        if ta.kind == "zone" or tb.kind == "zone":
            self.rep.error("E104", f"cannot compare {ta} with {tb}", e.span, "compare size(zone) or top(zone)")
            return self._err()
        if not _compatible(ta, tb) and not _compatible(tb, ta):
            self.rep.error("E104", f"type mismatch in '{op}': {ta} and {tb}", e.span)
        elif op in self._ORDER and ta.kind in ("bool", "player", "suit", "card"):
            self.rep.error("E104", f"'{op}' does not order values of type {ta}", e.span,
                           "ints, ranks and enum values are ordered")
        return ir.BinOp(op, a, b, BOOL, e.span), BOOL

    def _quant(self, e: S.Quant, env: dict[str, Type]) -> tuple[ir.Expr, Type]:
        if isinstance(e.domain, S.Name) and e.domain.id == "players":
            dom = None
            vt = PLAYER
        else:
            d, td = self._expr(e.domain, env, ZONE)
            if td == ZONES:
                self.need_index(d, td, e.domain.span)
            elif td not in (ZONE, ERROR):
                self.rep.error("E104", f"a quantifier ranges over 'players' or a zone, found {td}", e.domain.span)
            dom = d
            vt = CARD
        inner = dict(env)
        inner[e.var] = vt
        if e.kind == "sum":
            body = self.check(e.body, inner, INT, "the body of 'sum'")
            return ir.Quant("sum", e.var, dom, body, e.span), INT
        body = self.check(e.body, inner, BOOL, f"the body of '{e.kind}'")
        return ir.Quant(e.kind, e.var, dom, body, e.span), (INT if e.kind == "count" else BOOL)

    # -- statements ------------------------------------------------------------
    def zone_expr(self, e: S.Expr, env: dict[str, Type], what: str) -> ir.Expr:
        x, t = self._expr(e, env, ZONE)
        if t == ZONES:
            self.need_index(x, t, e.span)
        elif t not in (ZONE, ERROR):
            self.rep.error("E104", f"type mismatch in {what}: expected a zone, found {t}", e.span)
        return x

    def block(self, stmts: tuple[S.Stmt, ...], env: dict[str, Type]) -> tuple[ir.Stmt, ...]:
        return tuple(s for s in (self.stmt(x, env) for x in stmts) if s is not None)

    def stmt(self, s: S.Stmt, env: dict[str, Type]) -> ir.Stmt | None:
        sp = s.span
        if isinstance(s, S.Assign):
            return self._assign(s, env)
        if isinstance(s, S.Move):
            cnt = self.check(s.count, env, INT, "a card count") if s.count is not None else None
            return ir.Move(cnt, self.zone_expr(s.source, env, "'move'"), self.zone_expr(s.dest, env, "'move'"), sp)
        if isinstance(s, S.Deal):
            packets = tuple(self.check(p, env, INT, "a packet size") for p in s.packets)
            src = self.zone_expr(s.source, env, "'deal'")
            z = self.zones.get(s.dest)
            if z is None:
                self.rep.error("E103", f"unknown zone '{s.dest}'", s.dest_span, did_you_mean(s.dest, self.zones))
            elif not z.per_player:
                self.rep.error("E112", f"'deal' needs a per-player zone, and '{s.dest}' is shared", s.dest_span,
                               "declare it 'per player', or use 'move'")
            start = self.check(s.starting, env, PLAYER, "'starting'")
            return ir.Deal(packets, src, s.dest, start, sp)
        if isinstance(s, S.Shuffle):
            return ir.Shuffle(self.zone_expr(s.zone, env, "'shuffle'"), sp)
        if isinstance(s, S.Gather):
            return ir.Gather(self.zone_expr(s.zone, env, "'gather'"), sp)
        if isinstance(s, S.Reveal):
            return ir.Reveal(self.zone_expr(s.zone, env, "'reveal'"), sp)
        if isinstance(s, S.If):
            branches = tuple((self.check(c, env, BOOL, "the condition of 'if'"), self.block(b, env))
                             for c, b in s.branches)
            return ir.If(branches, self.block(s.orelse, env), sp)
        if isinstance(s, S.For):
            inner = dict(env)
            inner[s.var] = PLAYER
            return ir.For(s.var, self.block(s.body, inner), sp)
        if isinstance(s, S.Goto):
            if s.phase not in self.phases:
                self.rep.error("E109", f"unknown phase '{s.phase}'", s.phase_span or sp,
                               did_you_mean(s.phase, self.phases))
            return ir.Goto(s.phase, sp)
        if isinstance(s, S.EndDeal):
            return ir.EndDeal(sp)
        if isinstance(s, S.Score):
            if s.table not in self.tables:
                self.rep.error("E117", f"unknown scoring table '{s.table}'", s.table_span or sp,
                               did_you_mean(s.table, self.tables))
            return ir.Score(s.table, sp)
        if isinstance(s, S.Misplaced):
            self.rep.error("E110", f"'{s.what}' is not allowed inside an effect block", sp,
                           f"declare the {s.what} directly in a phase")
            return None
        raise AssertionError(type(s))  # pragma: no cover

    def _assign(self, s: S.Assign, env: dict[str, Type]) -> ir.Stmt | None:
        n = s.target
        if n not in self.vars:
            if n in self.options:
                self.rep.error("E111", f"cannot assign to option '{n}': options are constants", s.target_span,
                               "declare a 'match var' or 'deal var' instead")
            elif n in BUILTINS or n in env or n in self.zones:
                self.rep.error("E111", f"cannot assign to '{n}'", s.target_span,
                               "only variables declared with 'match var' or 'deal var' can be assigned")
            else:
                self.rep.error("E103", f"unknown variable '{n}'", s.target_span, did_you_mean(n, self.vars))
            self._expr(s.value, env, None)
            return None
        t, per, _ = self.vars[n]
        idx = None
        if per is not None:
            if s.index is None:
                self.rep.error("E112", f"'{n}' has one value per {per} and needs an index", s.target_span,
                               f"say whose, e.g. {n}[actor]")
            else:
                idx, ti = self._expr(s.index, env, PLAYER)
                if per == "player":
                    self.expect(idx, ti, PLAYER, s.index.span, "an index")
                elif ti.kind == "player":
                    idx = ir.Call("side", (idx,), INT, s.index.span)
        elif s.index is not None:
            self.rep.error("E112", f"'{n}' is a single value and takes no index", s.index.span)
        if s.op != "=" and t.kind not in ("int", "error"):
            self.rep.error("E104", f"'{s.op}' needs an int variable; '{n}' is {t}", s.span)
            self._expr(s.value, env, None)
            return None
        value = self.check(s.value, env, t, f"the assignment to '{n}'")
        return ir.Assign(n, idx, s.op, value, s.span)

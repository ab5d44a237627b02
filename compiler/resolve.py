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
    "ord": (("e",), INT, "the 0-based position of an enum value, a suit (in 'suits'), or a rank's strength "
                         "(0 for the lowest)"),
    "holder": (("c",), PLAYER, "the player whose hand holds the card, or none"),
    "clockwise": (("p", "i"), PLAYER, "the player n seats clockwise from p (n may be negative)"),
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
    "player_count": (INT, "the number of players (a constant)"),
}


def _subexprs(e):
    """``e`` and every expression inside it."""
    from dataclasses import fields as dc_fields
    yield e
    for f in dc_fields(e):
        v = getattr(e, f.name)
        if isinstance(v, ir.Expr):
            yield from _subexprs(v)
        elif isinstance(v, tuple):
            for x in v:
                if isinstance(x, ir.Expr):
                    yield from _subexprs(x)


def has_error(e: ir.Expr) -> bool:
    """Whether ``e`` holds a part already refused (an error constant, or a variable whose type was refused):
    what is built of it is not reported again."""
    return any(isinstance(x, (ir.Const, ir.VarRef)) and x.type == ERROR for x in _subexprs(e))


def fold_int(e) -> int | None:
    """The value of an int expression made of constants (options are constants) and ``+ - * -x``; else None."""
    if isinstance(e, ir.Const) and e.type.kind == "int" and not isinstance(e.value, bool):
        return int(e.value)
    if isinstance(e, ir.Neg):
        v = fold_int(e.operand)
        return None if v is None else -v
    if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
        a, b = fold_int(e.left), fold_int(e.right)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def int_bounds(e, deck_size: int) -> tuple[int, int] | None:
    """The least and the largest value an int expression can take whatever the state, from constants, options,
    the declared ranges of variables and definitions (``int in 0..13``), ``size(...)`` (0 to ``deck_size``
    cards), ``tricks(p)`` (0 to ``deck_size``), ``abs``, ``min``/``max``/``total`` of a ranged variable,
    ``-x``, ``+ - *`` and ``if``; None when one of its parts has no bound (an int without a range,
    ``deal_number``).  An over-approximation: the expression's value always lies between the two."""
    v = fold_int(e)
    if v is not None:
        return v, v
    if isinstance(e, ir.Neg):
        b = int_bounds(e.operand, deck_size)
        return None if b is None else (-b[1], -b[0])
    if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
        a, b = int_bounds(e.left, deck_size), int_bounds(e.right, deck_size)
        if a is None or b is None:
            return None
        if e.op == "+":
            return a[0] + b[0], a[1] + b[1]
        if e.op == "-":
            return a[0] - b[1], a[1] - b[0]
        products = [x * y for x in a for y in b]
        return min(products), max(products)
    if isinstance(e, ir.Cond):
        a, b = int_bounds(e.then, deck_size), int_bounds(e.orelse, deck_size)
        return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
    if isinstance(e, ir.Call) and e.fn in ("size", "tricks"):
        return 0, deck_size
    if isinstance(e, ir.Call) and e.fn == "abs":
        b = int_bounds(e.args[0], deck_size)
        return None if b is None else (0 if b[0] <= 0 <= b[1] else min(abs(b[0]), abs(b[1])),
                                       max(abs(b[0]), abs(b[1])))
    if isinstance(e, ir.Call) and e.fn in ("min", "max") and e.args:
        return int_bounds(e.args[0], deck_size)
    if isinstance(e, ir.Index):
        return int_bounds(e.base, deck_size)
    t = getattr(e, "type", None)
    if isinstance(e, (ir.VarRef, ir.Call)) and t is not None and t.kind == "int" and t.low is not None \
            and t.high is not None:
        return t.low, t.high
    return None


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
    num_sides: int = 0
    gain_allowed: bool = False  # gain(VAR) is only meaningful in a deal_bound property
    defs: dict = field(default_factory=dict)       # name -> S.DefDecl
    def_ir: dict = field(default_factory=dict)     # name -> (param names, param types, result type, IR body or None)
    def_stack: list = field(default_factory=list)  # the definitions being expanded (recursion is an error)
    fresh: int = 0
    bad_names: set = field(default_factory=set)    # options whose declaration failed: uses are not reported again

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
            lo, hi = self._bound(t.low), self._bound(t.high)
            if lo is ERROR or hi is ERROR:
                return ERROR
            if lo is not None and hi is not None and lo > hi:
                self.rep.error("E114", f"empty range {lo}..{hi}", t.range_span,
                               f"write the lower bound first: {hi}..{lo}")
            return Type("int", lo, hi)
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
            hint = None
            if want.kind == "int" and got.kind == "bool":
                hint = "a condition is not a number: write 'if CONDITION then 1 else 0' for 1 when it holds"
            elif want.kind == "bool" and got.kind == "int":
                hint = "a number is not a condition: compare it, e.g. 'x > 0' or 'x == 1'"
            self.rep.error("E104", f"type mismatch{(' in ' + what) if what else ''}: expected {want}, found {got}",
                           span, hint)

    def need_index(self, e: ir.Expr, got: Type, span: Span) -> None:
        """E112: a per-player zone or a per-player/per-side variable used without ``[index]``."""
        name = getattr(e, "name", None) or "this"
        if got == ZONES:
            self.rep.error("E112", f"'{name}' is one zone per player and needs an index", span,
                           f"say whose, e.g. {name}[actor]")
        else:
            self.rep.error("E112", f"'{name}' has one value per {got.enum or 'player'} and needs an index", span,
                           f"say whose, e.g. {name}[actor]")

    def _bound(self, b):
        """A range bound: an int as written, or an expression of options folded to one (else E104)."""
        if b is None or isinstance(b, int):
            return b
        x = self.check(b, {}, INT, "a range bound")
        v = fold_int(x)
        if v is None:
            if not has_error(x):
                self.rep.error("E104", "a range bound must be a constant: a number, an option, or (an expression "
                                       "of them)", b.span, "e.g. int in 0..(2 * target)")
            return ERROR
        return v

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
            if isinstance(lo, ir.Const) and isinstance(hi, ir.Const) and tv.kind in ("int", "rank", "enum") and \
                    not isinstance(lo.value, bool) and not isinstance(hi.value, bool) and lo.value > hi.value and \
                    (tv.kind == "int" or hi.value >= 0):     # (none, -1, is no rank or enum value)
                what = "" if tv.kind == "int" else (" (ranks go from the weakest to the strongest)" if
                                                     tv.kind == "rank" else " (in the order the values are declared)")
                self.rep.error("E114", f"empty range {lo.text or lo.value}..{hi.text or hi.value}{what}", sp,
                               "write the lower bound first")
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
        if isinstance(e, S.Case):
            return self._case(e, env, want)
        if isinstance(e, S.NextPlayer):
            after = self.check(e.after, env, PLAYER, "'next ... after'")
            inner = dict(env)
            inner[e.var] = PLAYER
            cond = self.check(e.cond, inner, BOOL, "the condition of 'next'")
            return ir.NextPlayer(e.var, after, cond, sp), PLAYER
        raise AssertionError(type(e))  # pragma: no cover

    def _case(self, e: S.Case, env: dict[str, Type], want: Type | None) -> tuple[ir.Expr, Type]:
        """``case V { K, K: X ... else: Y }`` lowered to ``if V in {K, K} then X else ...``: no new IR."""
        v, tv = self._expr(e.value, env, None)
        if tv.kind in ("zone", "zones", "array"):
            self.rep.error("E104", f"'case' chooses on a value, not {tv}", e.value.span)
            return self._err()
        arms = []
        t = want if want is not None and want.kind != "error" else None
        key_values = set()
        for keys, value in e.arms:
            ks = tuple(self.check(k, env, tv if tv.kind not in ("error", "any") else INT, "a 'case' key")
                       for k in keys)
            for k in ks:
                if isinstance(k, ir.Const):
                    key_values.add(k.value)
            x, tx = self._expr(value, env, t)
            if t is None or t.kind in ("any", "error"):
                t = tx
            else:
                self.expect(x, tx, t, value.span, "a 'case' value")
            arms.append((ks, x, e.span))
        if t is not None and t.kind in ("zone", "zones", "array"):
            self.rep.error("E104", "'case' chooses between values, not zones or per-player variables", e.span)
            return self._err()
        if e.orelse is not None:
            rest, tr = self._expr(e.orelse, env, t)
            if t is None or t.kind in ("any", "error"):
                t = tr
            else:
                self.expect(rest, tr, t, e.orelse.span, "the 'else' of 'case'")
        else:
            domain = self._finite_domain(tv)
            missing = None if domain is None else [name for val, name in domain if val not in key_values]
            if domain is None or missing:
                article = "an" if str(tv)[:1] in "aeiou" else "a"
                what = f"no value for {', '.join(missing[:4])}" if missing else f"{article} {tv} can take any value"
                self.rep.error("E104", f"'case' without 'else': {what}", e.span,
                               "add 'else: VALUE' as the last arm")
                return self._err()
            ks, rest, _ = arms.pop()   # every value is listed: the last arm needs no test
        out = rest
        for ks, x, sp in reversed(arms):
            test = ir.InSet(v, ks, sp) if len(ks) > 1 else ir.BinOp("==", v, ks[0], BOOL, sp)
            out = ir.Cond(test, x, out, t, sp)
        return out, t

    def _finite_domain(self, t: Type) -> list[tuple[int, str]] | None:
        """The values of a finite type with their names (None for an int or a card)."""
        if t.kind == "suit":
            return list(enumerate(self.deck.suits))
        if t.kind == "rank":
            n = len(self.deck.ranks)
            return [(n - 1 - i, r) for i, r in enumerate(self.deck.ranks)]
        if t.kind == "bool":
            return [(True, "true"), (False, "false")]
        if t.kind == "enum" and t.enum in self.enums:
            return list(enumerate(self.enums[t.enum].values))
        if t.kind == "player":
            return [(i, f"seat {i}") for i in range(self.players)]
        return None

    # -- named definitions ---------------------------------------------------
    def _def_call(self, e: S.Call, env: dict[str, Type]) -> tuple[ir.Expr, Type]:
        """A call of ``def NAME(...)``: the body with the arguments in place of the parameters."""
        d = self.defs[e.fn]
        if len(e.args) != len(d.params):
            self.rep.error("E107", f"'{e.fn}' takes {len(d.params)} argument{'s' if len(d.params) != 1 else ''}, "
                                   f"given {len(e.args)}", e.span,
                           f"def {e.fn}({', '.join(n for n, _ in d.params)}) is declared on line {d.span.line}")
            for a in e.args:
                self._expr(a, env, None)
            return self._err()
        got = self.def_body(e.fn, e.fn_span)
        if got is None:
            for a in e.args:
                self._expr(a, env, None)
            return self._err()
        names, types, result, body = got
        mapping = {}
        for n, t, a in zip(names, types, e.args):
            mapping[n] = self.check(a, env, t, f"argument '{n}' of '{e.fn}'")
        return self._substitute(body, mapping), result

    def def_body(self, name: str, call_span: Span | None = None):
        """(parameter names, parameter types, result type, IR body) of a definition, resolved once; None after
        an error (reported once, at the definition)."""
        if name in self.def_ir:
            return self.def_ir[name]
        d = self.defs[name]
        if name in self.def_stack:
            chain = " -> ".join([*self.def_stack[self.def_stack.index(name):], name])
            self.rep.error("E121", f"definition '{name}' calls itself ({chain})", call_span or d.name_span,
                           "a definition is expanded where it is used, so it cannot be recursive")
            return None
        self.def_stack.append(name)
        try:
            before = len(self.rep.diagnostics)
            names = tuple(n for n, _ in d.params)
            types = tuple(self.resolve_type(t) for _, t in d.params)
            result = self.resolve_type(d.result)
            inner = dict(zip(names, types))
            body = self.check(d.body, inner, result, f"the body of '{name}'")
            ok = len(self.rep.diagnostics) == before
            self.def_ir[name] = (names, types, result, body) if ok else None
        finally:
            self.def_stack.pop()
        return self.def_ir[name]

    def _substitute(self, e, mapping: dict):
        """``e`` with each Local named in ``mapping`` replaced; the body's own bound variables get fresh names so
        that no argument is captured."""
        from dataclasses import fields as dc_fields, replace as dc_replace
        if isinstance(e, ir.Local):
            return mapping.get(e.name, e)
        if isinstance(e, (ir.Quant, ir.NextPlayer)):
            # the bound variable shadows a parameter of its name; it is renamed only where an argument
            # mentions a local of that name (which it would capture), so equal expansions stay equal
            inner = {k: v for k, v in mapping.items() if k != e.var}
            changes = {}
            if any(isinstance(x, ir.Local) and x.name == e.var for v in inner.values() for x in _subexprs(v)):
                self.fresh += 1
                new = f"{e.var}'{self.fresh}"
                inner[e.var] = ir.Local(new, CARD if isinstance(e, ir.Quant) and e.domain is not None else PLAYER,
                                        e.span)
                changes["var"] = new
            for f in dc_fields(e):
                v = getattr(e, f.name)
                if isinstance(v, ir.Expr):
                    changes[f.name] = self._substitute(v, inner if f.name in ("body", "cond") else mapping)
            return dc_replace(e, **changes)
        if not isinstance(e, ir.Expr):
            return e
        changes = {}
        for f in dc_fields(e):
            v = getattr(e, f.name)
            if isinstance(v, ir.Expr):
                changes[f.name] = self._substitute(v, mapping)
            elif isinstance(v, tuple) and v and isinstance(v[0], ir.Expr):
                changes[f.name] = tuple(self._substitute(x, mapping) for x in v)
        return dc_replace(e, **changes) if changes else e

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
        if n in self.bad_names:
            return self._err()
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
        if n == "player_count":
            return ir.Const(self.players, INT, str(self.players), sp), INT
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
            if n in ("trick", "taken"):    # the built-in zones of trick play, only in a game with a trick phase
                hint = f"'{n}' is a built-in zone of a 'trick' phase, and this game has none: declare a zone of " \
                       f"your own ({'zone table: public' if n == 'trick' else 'zone won: per player, hidden'})"
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

    def _per_index(self, index: S.Expr, env: dict[str, Type], per: str) -> ir.Expr | None:
        """The index of a ``per player`` variable (a player) or a ``per side`` one (a player, meaning his side:
        ``side(P)``, or the side's number: a number is a side, never a seat); None after an error."""
        idx, ti = self._expr(index, env, PLAYER if per == "player" else None)
        if per == "player":
            self.expect(idx, ti, PLAYER, index.span, "an index")
            return idx
        if ti.kind not in ("player", "int", "error"):
            self.rep.error("E104", f"type mismatch in an index: expected a player or a side number, found {ti}",
                           index.span)
            return None
        if isinstance(index, S.IntLit) and not 0 <= index.value < self.num_sides:
            self.rep.error("E104", f"no side {index.value}: the sides are numbered 0..{self.num_sides - 1}",
                           index.span, "index a per-side variable with a player (his side) or a side's number")
            return None
        return ir.Call("side", (idx,), INT, index.span) if ti.kind == "player" else idx

    def _index(self, e: S.Index, env: dict[str, Type], want: Type | None = None) -> tuple[ir.Expr, Type]:
        base, tb = self._expr(e.base, env, ZONES if want is not None and want.kind == "zone" else None)
        if tb == ERROR:
            self._expr(e.index, env, None)
            return self._err()
        if tb == ZONES:
            idx = self.check(e.index, env, PLAYER, "a zone index")
            return ir.Index(base, idx, e.span), ZONE
        if tb.kind == "array":
            idx = self._per_index(e.index, env, tb.enum)
            if idx is None:
                return self._err()
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
        if e.fn in self.defs:
            return self._def_call(e, env)
        if e.fn in self.bad_names:           # a definition whose declaration was refused (reported there)
            for a in e.args:
                self._expr(a, env, None)
            return self._err()
        if e.fn not in FUNCTIONS:
            for a in e.args:
                self._expr(a, env, None)
            hint = did_you_mean(e.fn, [*FUNCTIONS, *self.defs]) or f"functions are {', '.join(sorted(FUNCTIONS))}"
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
                if t.kind not in ("enum", "suit", "rank", "error"):
                    self.rep.error("E104", f"type mismatch in '{e.fn}': expected an enum value, a suit or a rank, "
                                           f"found {t}", a.span)
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
            if s.count is not None:
                cnt, tc = self._expr(s.count, env, None)
                if tc.kind == "card":     # move K of spades from ..., move c from ...: that one card
                    return ir.MoveCard(cnt, self.zone_expr(s.source, env, "'move'"),
                                       self.zone_expr(s.dest, env, "'move'"), sp)
                self.expect(cnt, tc, INT, s.count.span, "a card count (or a card)")
            else:
                cnt = None
            return ir.Move(cnt, self.zone_expr(s.source, env, "'move'"), self.zone_expr(s.dest, env, "'move'"), sp)
        if isinstance(s, S.Deal):
            packets = tuple(self.check(p, env, INT, "a packet size") for p in s.packets)
            src = self.zone_expr(s.source, env, "'deal'")
            z = self.zones.get(s.dest)
            if z is None and s.dest in self.bad_names:
                pass                                # a refused zone, reported where it is declared
            elif z is None:
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
            return self._for(s, env)
        if isinstance(s, S.RandomAssign):
            return self._random(s, env)
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

    def _for(self, s: S.For, env: dict[str, Type]) -> ir.Stmt | None:
        inner = dict(env)
        source = high = None
        if s.over == "players":
            inner[s.var] = PLAYER
        elif s.over == "sides":
            if not self.num_sides:
                self.rep.error("E104", "'for ... in sides' needs sides: this game has none", s.span,
                               "declare them with players N sides {0 2} {1 3}")
            inner[s.var] = INT
        elif s.over == "suits":
            inner[s.var] = SUIT
        elif s.over == "range":
            source = self.check(s.low, env, INT, "the start of a 'for' range")
            high = self.check(s.high, env, INT, "the end of a 'for' range")
            inner[s.var] = INT
        else:
            if isinstance(s.low, S.Name) and s.low.id in ("players",):
                inner[s.var] = PLAYER
                return ir.For(s.var, self.block(s.body, inner), s.span)
            source = self.zone_expr(s.low, env, "'for ... in'")
            inner[s.var] = CARD
        return ir.For(s.var, self.block(s.body, inner), s.span, s.over, source, high)

    def _random(self, s: S.RandomAssign, env: dict[str, Type]) -> ir.Stmt | None:
        """``VAR = random {...}`` / ``random LO..HI``: a chance event; the outcomes are listed at compile time."""
        target = self._assign(S.Assign(s.target, s.index, "=", S.NoneLit(s.span), s.span, s.target_span),
                              env, value_check=False)
        if s.op != "=":
            self.rep.error("E104", f"'{s.op} random' is not allowed: write VAR = random ...", s.span)
            return None
        if target is None:
            return None
        t, _, _ = self.vars[s.target]
        values: list = []
        weights: list = []
        if s.items:
            for x, w in s.items:
                values.append(self.check(x, env, t, "a 'random' outcome"))
                if w is not None and w <= 0:
                    self.rep.error("E114", f"a 'random' outcome needs a weight of 1 or more, not {w}", x.span)
                weights.append(1 if w is None else w)
        else:
            lo = self.check(s.low, env, INT, "a 'random' bound")
            hi = self.check(s.high, env, INT, "a 'random' bound")
            if not (isinstance(lo, ir.Const) and isinstance(hi, ir.Const)):
                if ERROR not in (getattr(lo, "type", None), getattr(hi, "type", None)):
                    self.rep.error("E104", "the bounds of 'random LO..HI' must be constants (numbers or options)",
                                   s.span, "for outcomes computed in play, list them: random {a, b, c}")
                return None
            if lo.type == ERROR or hi.type == ERROR:
                return None
            if lo.value > hi.value:
                self.rep.error("E114", f"empty range {lo.value}..{hi.value}", s.span, "write the lower bound first")
                return None
            if hi.value - lo.value >= 10_000:
                self.rep.error("E114", f"'random {lo.value}..{hi.value}' has more than 10,000 outcomes", s.span)
                return None
            if t.kind not in ("int", "player", "error"):
                self.rep.error("E104", f"'random LO..HI' gives an int, and '{s.target}' is {t}", s.span,
                               "list the values instead: random {a, b}")
                return None
            for v in range(lo.value, hi.value + 1):
                if t.kind == "player" and not 0 <= v < self.players:
                    self.rep.error("E104", f"no seat {v}: seats are 0..{self.players - 1}", s.span)
                    return None
                values.append(ir.Const(v, t if t.kind == "player" else INT, str(v), s.span))
                weights.append(1)
        return ir.RandomAssign(s.target, target.index, tuple(values), tuple(weights), s.span)

    def _assign(self, s: S.Assign, env: dict[str, Type], value_check: bool = True) -> ir.Stmt | None:
        n = s.target
        if n == "dealer" and value_check:
            if s.index is not None or s.op != "=":
                self.rep.error("E111", "the dealer is set with 'dealer = PLAYER'", s.target_span,
                               "no index, no '+=' or '-='")
                return None
            return ir.SetDealer(self.check(s.value, env, PLAYER, "the dealer"), s.span)
        if n not in self.vars:
            if n in self.options:
                self.rep.error("E111", f"cannot assign to option '{n}': options are constants", s.target_span,
                               "declare a 'match var' or 'deal var' instead")
            elif n in BUILTINS or n in env or n in self.zones:
                self.rep.error("E111", f"cannot assign to '{n}'", s.target_span,
                               "only variables declared with 'match var' or 'deal var', and the dealer "
                               "('dealer = PLAYER'), can be assigned")
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
                idx = self._per_index(s.index, env, per)
        elif s.index is not None:
            self.rep.error("E112", f"'{n}' is a single value and takes no index", s.index.span)
        if s.op != "=" and t.kind not in ("int", "error"):
            self.rep.error("E104", f"'{s.op}' needs an int variable; '{n}' is {t}", s.span)
            self._expr(s.value, env, None)
            return None
        if not value_check:
            return ir.Assign(n, idx, s.op, ir.Const(ir.NONE, t), s.span)
        value = self.check(s.value, env, t, f"the assignment to '{n}'")
        return ir.Assign(n, idx, s.op, value, s.span)

"""Expressions of the IR compiled to Python closures ``f(state, env) -> value``.

``env`` maps local names (action parameters, loop and quantifier variables) to
values.  Values follow the IR encoding (:mod:`atout.compiler.ir`): players,
suits, ranks (as strengths), cards and enum values are ints, ``none`` is -1.
Errors in the rules that only show at run time (a division by zero, an index
out of range) raise :class:`RuleError` with the source location.
"""
from __future__ import annotations

from typing import Callable

from atout.compiler import ir
from atout.compiler.span import Span

Fn = Callable[[object, dict], object]


class RuleError(Exception):
    """The rules led to an impossible step (e.g. a draw from a stock with too few cards)."""

    def __init__(self, message: str, span: Span | None = None):
        self.span = span
        where = f"{span.path}:{span.line}:{span.col}: " if span is not None and span.line else ""
        super().__init__(where + message)


class StepLimitError(RuleError):
    """Effects ran ``MAX_AUTO_STEPS`` steps without a decision (a loop of automatic phases): the rule error of
    the engine's step limit, which cost it that many steps."""


class ExprCompiler:
    """Compiles IR expressions for one game; ``layout`` gives zone indices and deck facts."""

    def __init__(self, layout):
        self.L = layout
        self._cache: dict[int, Fn] = {}

    def __call__(self, e: ir.Expr) -> Fn:
        key = id(e)
        f = self._cache.get(key)
        if f is None:
            f = self._compile(e)
            self._cache[key] = f
        return f

    def zone(self, e: ir.Expr) -> Callable[[object, dict], int]:
        """A closure giving the zone index of a zone expression."""
        L = self.L
        if isinstance(e, ir.ZoneRef):
            idx = L.zone_base[e.name]
            return lambda st, env: idx
        if isinstance(e, ir.Index) and isinstance(e.base, ir.ZoneRef):
            base = L.zone_base[e.base.name]
            n = L.players
            fi = self(e.index)
            span = e.span

            def f(st, env):
                p = fi(st, env)
                if not 0 <= p < n:
                    raise RuleError(f"no player {p} to index zone '{e.base.name}'", span)
                return base + p
            return f
        raise TypeError(f"not a zone expression: {e!r}")  # pragma: no cover

    def _compile(self, e: ir.Expr) -> Fn:  # noqa: C901 - one case per node type
        if isinstance(e, ir.Const):
            v = e.value
            return lambda st, env: v
        if isinstance(e, ir.VarRef):
            name = e.name
            return lambda st, env: st.vars[name]
        if isinstance(e, ir.Local):
            name = e.name
            return lambda st, env: env[name]
        if isinstance(e, ir.Builtin):
            return self._builtin(e.name)
        if isinstance(e, ir.Index):
            base = e.base
            assert isinstance(base, ir.VarRef)
            name = base.name
            fi = self(e.index)
            span = e.span

            def index(st, env):
                arr = st.vars[name]
                i = fi(st, env)
                if not 0 <= i < len(arr):
                    raise RuleError(f"index {i} out of range for '{name}'", span)
                return arr[i]
            return index
        if isinstance(e, ir.Call):
            return self._call(e)
        if isinstance(e, ir.BinOp):
            return self._binop(e)
        if isinstance(e, ir.Not):
            f = self(e.operand)
            return lambda st, env: not f(st, env)
        if isinstance(e, ir.Neg):
            f = self(e.operand)
            return lambda st, env: -f(st, env)
        if isinstance(e, ir.Cond):
            t, a, b = self(e.test), self(e.then), self(e.orelse)
            return lambda st, env: a(st, env) if t(st, env) else b(st, env)
        if isinstance(e, ir.InSet):
            fv = self(e.value)
            items = [self(i) for i in e.items]
            if all(isinstance(i, ir.Const) for i in e.items):
                consts = frozenset(i.value for i in e.items)
                return lambda st, env: fv(st, env) in consts
            return lambda st, env: fv(st, env) in {g(st, env) for g in items}
        if isinstance(e, ir.Quant):
            return self._quant(e)
        if isinstance(e, ir.NextPlayer):
            return self._next_player(e)
        raise TypeError(type(e))  # pragma: no cover

    def _builtin(self, name: str) -> Fn:
        n = self.L.players
        table = {
            "dealer": lambda st, env: st.dealer,
            "eldest": lambda st, env: (st.dealer + 1) % n,
            "actor": lambda st, env: st.actor,
            "leader": lambda st, env: st.trick_leader,
            "winner": lambda st, env: st.last_winner,
            "trick_number": lambda st, env: st.trick_number,
            "led_suit": lambda st, env: st._led_suit() if st.trick_cards else -1,
            "deal_number": lambda st, env: st.deal_number,
        }
        return table[name]

    def _call(self, e: ir.Call) -> Fn:  # noqa: C901
        L = self.L
        fn = e.fn
        n = L.players
        if fn in ("size", "top", "has"):
            fz = self.zone(e.args[0])
            if fn == "size":
                return lambda st, env: len(st.zones[fz(st, env)])
            if fn == "top":
                return lambda st, env: (st.zones[fz(st, env)][-1] if st.zones[fz(st, env)] else -1)
            fc = self(e.args[1])
            return lambda st, env: fc(st, env) in st.zones[fz(st, env)]
        if fn in ("total", "max", "min"):
            name = e.args[0].name  # type: ignore[attr-defined]
            agg = {"total": sum, "max": max, "min": min}[fn]
            return lambda st, env: agg(st.vars[name])
        if fn == "gain":
            raise TypeError("gain() is only meaningful in deal_bound properties")  # pragma: no cover
        args = [self(a) for a in e.args]
        a0 = args[0] if args else None
        if fn == "suit":
            suit_of = L.suit_of
            return lambda st, env: suit_of[c] if (c := a0(st, env)) >= 0 else -1
        if fn == "rank":
            strength = L.strength_of
            return lambda st, env: strength[c] if (c := a0(st, env)) >= 0 else -1
        if fn == "card":
            nr = L.nranks
            a1 = args[1]

            def card(st, env):
                r, s = a0(st, env), a1(st, env)
                return -1 if r < 0 or s < 0 else s * nr + (nr - 1 - r)
            return card
        if fn in ("left", "right", "partner", "side", "tricks"):
            # a function of a player: 'none' (or no seat) is a rule error, never a wrap-around
            span = e.span
            msg = f"{fn}() of none, not a player"

            def seat(st, env):
                p = a0(st, env)
                if not 0 <= p < n:
                    raise RuleError(msg, span)
                return p
            if fn == "left":
                return lambda st, env: (seat(st, env) + 1) % n
            if fn == "right":
                return lambda st, env: (seat(st, env) - 1) % n
            if fn == "partner":
                partner = L.partner
                return lambda st, env: partner[seat(st, env)]
            if fn == "side":
                side_of = L.side_of
                return lambda st, env: side_of[seat(st, env)]
            return lambda st, env: st.tricks_won[seat(st, env)]
        if fn == "played":
            return lambda st, env: any(p == a0(st, env) for p, _ in st.trick_cards)
        if fn == "abs":
            return lambda st, env: abs(a0(st, env))
        if fn == "color":
            color_of = L.color_of
            return lambda st, env: color_of.get(a0(st, env), -1)
        if fn == "seat":
            return lambda st, env: a0(st, env) % n
        if fn == "ord":
            return a0
        if fn == "holder":
            hb = L.hand_base

            def holder(st, env):
                c = a0(st, env)
                if c >= 0:
                    for p in range(n):
                        if c in st.zones[hb + p]:
                            return p
                return -1
            return holder
        if fn == "clockwise":
            a1 = args[1]
            span = e.span

            def clockwise(st, env):
                p = a0(st, env)
                if not 0 <= p < n:
                    raise RuleError("clockwise() of none, not a player", span)
                return (p + a1(st, env)) % n
            return clockwise
        raise TypeError(f"unknown function {fn}")  # pragma: no cover

    def _binop(self, e: ir.BinOp) -> Fn:  # noqa: C901
        a, b = self(e.left), self(e.right)
        op = e.op
        if op == "and":
            return lambda st, env: a(st, env) and b(st, env)
        if op == "or":
            return lambda st, env: a(st, env) or b(st, env)
        if op == "+":
            return lambda st, env: a(st, env) + b(st, env)
        if op == "-":
            return lambda st, env: a(st, env) - b(st, env)
        if op == "*":
            return lambda st, env: a(st, env) * b(st, env)
        if op in ("/", "%"):
            span = e.span

            def div(st, env):
                x, y = a(st, env), b(st, env)
                if y == 0:
                    raise RuleError("division by zero", span)
                return x // y if op == "/" else x % y
            return div
        if op == "==":
            return lambda st, env: a(st, env) == b(st, env)
        if op == "!=":
            return lambda st, env: a(st, env) != b(st, env)
        if op == "<":
            return lambda st, env: a(st, env) < b(st, env)
        if op == "<=":
            return lambda st, env: a(st, env) <= b(st, env)
        if op == ">":
            return lambda st, env: a(st, env) > b(st, env)
        if op == ">=":
            return lambda st, env: a(st, env) >= b(st, env)
        raise TypeError(op)  # pragma: no cover

    def _next_player(self, e: ir.NextPlayer) -> Fn:
        """The first seat clockwise after ``after`` (itself last) satisfying ``cond``; -1 (none) if none."""
        after, cond = self(e.after), self(e.cond)
        var = e.var
        n = self.L.players
        span = e.span

        def f(st, env):
            p = after(st, env)
            if not 0 <= p < n:
                raise RuleError(f"next({var} after ...): the start is {'none' if p < 0 else p}, not a player", span)
            inner = dict(env)
            for k in range(1, n + 1):
                q = (p + k) % n
                inner[var] = q
                if cond(st, inner):
                    return q
            return -1
        return f

    def _quant(self, e: ir.Quant) -> Fn:
        body = self(e.body)
        var = e.var
        n = self.L.players
        if e.domain is None:
            def domain(st, env):
                return range(n)
        else:
            fz = self.zone(e.domain)

            def domain(st, env):
                return list(st.zones[fz(st, env)])

        def values(st, env):
            inner = dict(env)
            for x in domain(st, env):
                inner[var] = x
                yield body(st, inner)
        kind = e.kind
        if kind == "any":
            return lambda st, env: any(values(st, env))
        if kind == "all":
            return lambda st, env: all(values(st, env))
        if kind == "sum":
            return lambda st, env: sum(values(st, env))
        return lambda st, env: sum(1 for v in values(st, env) if v)

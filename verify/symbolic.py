"""Symbolic execution of the rules over z3: the concrete states an abstract state stands for, as constraints.

The explorer's abstract domain (:mod:`.absint`) keeps values one by one: a sum over the cards of a zone it
does not track is an interval, and the relation between two such sums is lost.  That is too coarse where a
deal is scored from the cards taken: in Hearts every heart and the Q of spades end in some player's tricks,
so the points of a hand add up to 26, which no interval shows.  This module states what an abstract state
knows as z3 constraints over the concrete states it stands for, and evaluates the rules' expressions and
effect blocks over them, exactly as the machine does (:mod:`atout.engine.machine`):

* the variables: an exact value is a constant; an interval, a forgotten value or a value of no interest is a
  z3 constant bounded by what is known (its interval, its type's values);
* the cards: each card's zone is a z3 constant (``loc[c]``, a zone slot); a tracked card's zone is the one
  the abstraction keeps; every zone whose size is kept holds exactly that many cards; every card is in
  exactly one zone (the engine only moves cards, :func:`atout.verify.smt.conservation`);
* the tricks won: the exact split when it is kept, else any split of the total (or of each side's total);
* the control (dealer, trick number, leader, the trick on the table) as the abstract state has it.

Every concrete state the abstract state stands for satisfies the constraints (an over-approximation), so a
condition that z3 proves unsatisfiable under them holds in no such state: a rule error that cannot happen, a
bound that cannot be broken.  A construct this module does not follow exactly raises :class:`NotEncodable`,
and the caller keeps its abstract verdict.

Rule errors are recorded as conditions with the guard under which the expression is evaluated (the operands
of ``and``/``or`` are evaluated as the machine does, left first); an error of a quantifier over the cards
of a zone is recorded whatever the order of its cards (an over-approximation).  Execution does not stop at
a possible error: a state that would stop there continues with some value, which can only add behaviours.
"""
from __future__ import annotations

import z3

from atout.compiler import ir

from .values import ANON, Interval, is_top

Value = object   # a Python int or bool (a constant), or a z3 term


class NotEncodable(Exception):
    """A construct the symbolic execution does not follow exactly (the caller's verdict stays as it was)."""


# -- values: Python constants folded, z3 terms otherwise ------------------------------------------------------
def _const(x) -> bool:
    return isinstance(x, (bool, int))


def as_bool(x):
    return z3.BoolVal(x) if isinstance(x, bool) else x


def as_int(x):
    if isinstance(x, bool):
        raise NotEncodable("a condition used as a number")
    return z3.IntVal(x) if isinstance(x, int) else x


def ite(c, a, b):
    """``if c then a else b``, folded when ``c`` is a constant."""
    if isinstance(c, bool):
        return a if c else b
    if _const(a) and _const(b) and a == b and type(a) is type(b):
        return a
    if isinstance(a, bool) or isinstance(b, bool) or z3.is_bool(a) or z3.is_bool(b):
        return z3.If(c, as_bool(a), as_bool(b))
    return z3.If(c, as_int(a), as_int(b))


def land(a, b):
    if a is False or b is False:
        return False
    if a is True:
        return b
    if b is True:
        return a
    return z3.And(a, b)


def lor(a, b):
    if a is True or b is True:
        return True
    if a is False:
        return b
    if b is False:
        return a
    return z3.Or(a, b)


def lnot(a):
    return (not a) if isinstance(a, bool) else z3.Not(a)


def any_of(xs):
    out = False
    for x in xs:
        out = lor(out, x)
    return out


def all_of(xs):
    out = True
    for x in xs:
        out = land(out, x)
    return out


def total(xs):
    consts = sum(x for x in xs if _const(x) and not isinstance(x, bool))
    terms = [x for x in xs if not _const(x)]
    if not terms:
        return consts
    return z3.Sum(terms + ([z3.IntVal(consts)] if consts else []))


def eq(a, b):
    if _const(a) and _const(b):
        return a == b
    if isinstance(a, bool) or isinstance(b, bool) or z3.is_bool(a) or z3.is_bool(b):
        return as_bool(a) == as_bool(b)
    return as_int(a) == as_int(b)


def floordiv(a, b):
    """Python's ``a // b`` (rounding down), as the engine computes it (SMT's ``div`` rounds otherwise for a
    negative divisor)."""
    if _const(a) and _const(b):
        return a // b
    a, b = as_int(a), as_int(b)
    return z3.If(b >= 0, a / b, -((-a) / b))


def mod(a, b):
    """Python's ``a % b`` (the sign of the divisor)."""
    if _const(a) and _const(b):
        return a % b
    a, b = as_int(a), as_int(b)
    return a - b * floordiv(a, b)


def _arith(op, a, b):
    if _const(a) and _const(b) and not isinstance(a, bool) and not isinstance(b, bool):
        return {"+": a + b, "-": a - b, "*": a * b}[op]
    a, b = as_int(a), as_int(b)
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b}[op]()


def _compare(op, a, b):
    if _const(a) and _const(b):
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
    if op in ("==", "!="):
        r = eq(a, b)
        return r if op == "==" else lnot(r)
    a, b = as_int(a), as_int(b)
    return {"<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[op]()


def cases(x, values, fn):
    """``fn(v)`` for the value ``v`` that ``x`` takes among ``values`` (an if-chain; the last value is the
    default, so callers record an error where ``x`` may take none of them)."""
    if _const(x):
        return fn(x)
    values = list(values)
    out = fn(values[-1])
    for v in reversed(values[:-1]):
        out = ite(as_int(x) == v, fn(v), out)
    return out


# -- what a state is ----------------------------------------------------------------------------------------
class SymbolicState:
    """The concrete states one abstract state stands for, as z3 constants and ``constraints``.

    Build with :func:`from_abstract` (a state of an exploration) or :func:`unconstrained` (any state of the
    game: every value of its type)."""

    def __init__(self, game):
        self.game = game
        self.n = game.players
        self.constraints: list = []
        self.vars: dict = {}           # name -> value, or list of values (per player / per side)
        self.initial: dict = {}        # name -> the values at the start (for gains): the same shape
        self.dealer: Value = 0
        self.deal_number: Value = 0
        self.trick_number: Value = 0
        self.actor: Value = -1
        self.leader: Value = -1
        self.winner: Value = -1
        self.tricks: list = [0] * self.n
        self.trick_cards: list = []    # (player, card value)
        self.sizes: list = []          # per zone slot: an int, or None when not kept
        self.tracked: dict = {}        # card id -> its zone slot (exactly known)
        self._loc: list | None = None  # per card: its zone slot (z3 constants), made on first use
        self.direct: set = set()       # cards whose own zone an expression asked (per-card encoding)
        self.profiles: list = []       # per quantifier over a zone evaluated: each card's value there
        self.classes: list | None = None
        self.class_of: dict = {}
        self._count: list | None = None
        self._fresh = 0

    # -- fresh constants -------------------------------------------------------------------------------------
    def fresh(self, t: ir.Type, name: str = "v"):
        """A z3 constant for any value of type ``t`` (its declared range for an int)."""
        self._fresh += 1
        return self.named(t, f"{name}!{self._fresh}")

    def named(self, t: ir.Type, label: str):
        """The z3 constant named ``label`` for any value of type ``t`` (its declared range for an int, added
        to the constraints): equal labels give the same constant."""
        if t.kind == "bool":
            return z3.Bool(label)
        x = z3.Int(label)
        lo, hi = _type_bounds(self.game, t)
        if lo is not None:
            self.constraints.append(x >= lo)
        if hi is not None:
            self.constraints.append(x <= hi)
        return x

    def bounded(self, lo, hi, name: str = "v"):
        self._fresh += 1
        x = z3.Int(f"{name}!{self._fresh}")
        if lo is not None:
            self.constraints.append(x >= lo)
        if hi is not None:
            self.constraints.append(x <= hi)
        return x

    # -- cards ------------------------------------------------------------------------------------------------
    # Two encodings of where the cards are.  Per card: each card's zone slot is a z3 constant (``loc[c]``).
    # By classes (:meth:`use_classes`): cards that every expression of the run treats alike form a class,
    # and the number of its cards in each slot is a z3 constant (``count[class][slot]``), a far smaller
    # problem (Hearts' scoring: the hearts, the Q of spades, the rest).

    def use_classes(self, classes: list) -> None:
        """Encode the cards by ``classes`` (tuples of card ids partitioning the deck; a tracked card alone)."""
        self.classes = classes
        self.class_of = {c: k for k, cards in enumerate(classes) for c in cards}

    def loc(self, c: int):
        """The zone slot of card ``c`` (per-card encoding)."""
        if self.classes is not None:
            raise NotEncodable("the zone of one card among others like it")
        if self._loc is None:
            self._make_placement()
        self.direct.add(c)
        return self._loc[c]

    def _make_placement(self):
        g = self.game
        nslots = len(g.zone_slots)
        loc = []
        for c in range(g.num_cards):
            if c in self.tracked:
                loc.append(self.tracked[c])
                continue
            x = z3.Int(f"loc!{c}")
            self.constraints += [x >= 0, x < nslots]
            loc.append(x)
        self._loc = loc
        for z, size in enumerate(self.sizes):
            if size is None:
                continue
            self.constraints.append(as_bool(eq(total([ite(eq(loc[c], z), 1, 0) for c in range(g.num_cards)]),
                                               size)))

    def count(self, k: int, slot: int):
        """The number of cards of class ``k`` in ``slot`` (by-class encoding)."""
        if self._count is None:
            self._make_counts()
        return self._count[k][slot]

    def _make_counts(self):
        nslots = len(self.game.zone_slots)
        counts = []
        for k, cards in enumerate(self.classes):
            if len(cards) == 1 and cards[0] in self.tracked:
                z0 = self.tracked[cards[0]]
                counts.append([1 if z == z0 else 0 for z in range(nslots)])
                continue
            row = [z3.Int(f"count!{k}!{z}") for z in range(nslots)]
            self.constraints += [x >= 0 for x in row]
            self.constraints.append(z3.Sum(row) == len(cards))
            counts.append(row)
        self._count = counts
        for z, size in enumerate(self.sizes):
            if size is not None:
                self.constraints.append(as_bool(eq(total([counts[k][z] for k in range(len(counts))]), size)))

    def size(self, slot: int):
        s = self.sizes[slot]
        if s is not None:
            return s
        if self.classes is not None:
            return total([self.count(k, slot) for k in range(len(self.classes))])
        return total([ite(eq(self.loc(c), slot), 1, 0) for c in range(self.game.num_cards)])

    def in_zone(self, c, slot, member: bool = False) -> Value:
        """Whether card ``c`` (a constant or a term) is in ``slot``; ``member``: asked by a quantifier over the
        slot's cards (not a read of that card's own zone)."""
        if _const(c):
            if c < 0:
                return False
            if self.classes is not None:
                k = self.class_of[c]
                if len(self.classes[k]) != 1:
                    raise NotEncodable("the zone of one card among others like it")
                return eq(self.count(k, slot), 1)
            if member:
                if self._loc is None:
                    self._make_placement()
                return eq(self._loc[c], slot)
            return eq(self.loc(c), slot)
        return cases(c, range(-1, self.game.num_cards), lambda k: self.in_zone(k, slot))


_MEMOIZED = frozenset({ir.BinOp, ir.Cond, ir.Call, ir.Quant, ir.NextPlayer, ir.InSet})


def _reads(game, e: ir.Expr) -> tuple[tuple, frozenset]:
    """``(locals, variables)`` that expression ``e`` reads (sorted local names; variable names), computed once
    per node of the game's IR (kept on the game, which owns the nodes: their ids stay theirs)."""
    cache = game.__dict__.setdefault("_symbolic_reads", {})
    got = cache.get(id(e))
    if got is None or got[1] is not e:     # (a copied game's cache names other objects)
        from .liveness import subexprs
        local, var = set(), set()
        for x in subexprs(e):
            if x.__class__ is ir.Local:
                local.add(x.name)
            elif x.__class__ is ir.VarRef:
                var.add(x.name)
        got = cache[id(e)] = ((tuple(sorted(local)), frozenset(var)), e)
    return got[0]


def _ident(v):
    """What makes two values the same expression: a constant itself, a z3 term its (hash-consed) id."""
    return ("c", v) if _const(v) else ("t", v.get_id())


def classes_from(S: "SymbolicState") -> list:
    """The classes of cards a run distinguishes (see :meth:`SymbolicState.use_classes`): a tracked card, or
    a card whose own zone was read, alone; the others grouped by their values in every quantifier over a
    zone the run evaluated."""
    groups: dict = {}
    out = []
    for c in range(S.game.num_cards):
        if c in S.tracked or c in S.direct:
            out.append((c,))
            continue
        groups.setdefault(tuple(p[c] for p in S.profiles), []).append(c)
    out += [tuple(cards) for cards in groups.values()]
    return out


def _type_bounds(game, t: ir.Type):
    k = t.kind
    if k == "int":
        return t.low, t.high
    if k == "player":
        return -1, game.players - 1
    if k == "suit":
        return -1, len(game.deck.suits) - 1
    if k == "rank":
        return -1, game.nranks - 1
    if k == "card":
        return -1, game.num_cards - 1
    if k == "enum":
        e = next((e for e in game.ir.enums if e.name == t.enum), None)
        return -1, (len(e.values) - 1 if e is not None else None)
    return None, None


def _abstract_value(S: SymbolicState, v, t: ir.Type, name: str):
    """A value of the symbolic state for the abstract value ``v`` of type ``t``."""
    if isinstance(v, Interval):
        lo, hi = _type_bounds(S.game, t)
        lo = v.lo if lo is None or (v.lo is not None and v.lo > lo) else lo
        hi = v.hi if hi is None or (v.hi is not None and v.hi < hi) else hi
        return S.bounded(lo, hi, name)
    if is_top(v):
        return S.fresh(t, name)
    if t.kind == "card" and v == ANON:
        return S.bounded(0, S.game.num_cards - 1, name)
    if isinstance(v, bool) or isinstance(v, int):
        return v
    raise NotEncodable(f"the value {v!r} of '{name}'")


def from_abstract(A, w) -> SymbolicState:
    """The symbolic state of abstract state ``w`` of abstraction ``A``.

    Match variables (forgotten by the abstraction) take any value of their type; their values at this point
    are the ``initial`` ones, from which gains are measured.  A frozen variable forgotten in ``w``'s phase
    takes any value here; :func:`with_entries` adds what play entered the phase with."""
    S = SymbolicState(A.game)
    g = A.g
    n = S.n
    for v in g.vars:
        val = w.vars[v.name]
        if v.per is not None:
            width = n if v.per == "player" else max(1, len(g.sides))
            cells = [_abstract_value(S, val[i] if val.__class__ is tuple else val, v.type, f"{v.name}[{i}]")
                     for i in range(width)]
            S.vars[v.name] = cells
            S.initial[v.name] = list(cells)
        else:
            x = _abstract_value(S, val, v.type, v.name)
            S.vars[v.name] = x
            S.initial[v.name] = x
    S.dealer = w.dealer
    S.deal_number = S.bounded(0, None, "deal_number") if not isinstance(w.deal_number, int) else w.deal_number
    S.trick_number = w.trick_number
    S.actor, S.leader, S.winner = w.actor, w.trick_leader, w.last_winner
    won = w.tricks_won
    if won and won[0] in ("T", "S"):
        S.tricks = [S.bounded(0, None, f"tricks[{p}]") for p in range(n)]
        if won[0] == "T":
            S.constraints.append(as_bool(eq(total(S.tricks), won[1])))
        else:
            for k, side in enumerate(g.sides):
                S.constraints.append(as_bool(eq(total([S.tricks[p] for p in side]), won[1][k])))
    else:
        S.tricks = list(won)
    S.trick_cards = [(p, c if c >= 0 else S.bounded(0, S.game.num_cards - 1, "played"))
                     for p, c in w.trick_cards]
    S.sizes = [s if s >= 0 else None for s in w.sizes]
    S.tracked = {c: z for c, z in zip(A.track, w.tracked) if z >= 0}
    return S


def unconstrained(game) -> SymbolicState:
    """Any state of ``game``: every variable any value of its type, any dealer, any split of the cards."""
    S = SymbolicState(game)
    g = game.ir
    n = S.n
    for v in g.vars:
        if v.per is not None:
            width = n if v.per == "player" else max(1, len(g.sides))
            S.vars[v.name] = [S.fresh(v.type, f"{v.name}[{i}]") for i in range(width)]
        else:
            S.vars[v.name] = S.fresh(v.type, v.name)
        S.initial[v.name] = S.vars[v.name]
    S.dealer = S.bounded(0, n - 1, "dealer")
    S.deal_number = S.bounded(0, None, "deal_number")
    S.trick_number = S.bounded(0, None, "trick_number")
    S.actor = S.bounded(-1, n - 1, "actor")
    S.leader = S.bounded(-1, n - 1, "leader")
    S.winner = S.bounded(-1, n - 1, "winner")
    S.tricks = [S.bounded(0, None, f"tricks[{p}]") for p in range(n)]
    S.sizes = [None] * len(game.zone_slots)
    return S


# -- expressions --------------------------------------------------------------------------------------------
class Evaluator:
    """IR expressions as values of a :class:`SymbolicState`, with the rule errors they may raise.

    ``errors`` collects ``(condition, message)``: the evaluation raises that rule error when the condition
    holds (the guard under which the expression was evaluated is part of it)."""

    def __init__(self, S: SymbolicState):
        self.S = S
        self.game = S.game
        self.errors: list = []
        self._memo: dict = {}     # reads this module does not model: one constant per expression and locals
        self._values: dict = {}   # (id of a compound expression, its locals' values) -> (value, errors, vars read)

    def error(self, guard, cond, message: str, span=None) -> None:
        c = land(guard, cond)
        if c is False:
            return
        where = f"{span.path}:{span.line}:{span.col}: " if span is not None and getattr(span, "line", 0) else ""
        self.errors.append((c, where + message))

    def forget_reads(self, var: str | None = None) -> None:
        """A write happened (to ``var``; None: to anything): the unmodelled reads may now have other values,
        and the expressions that read ``var`` too."""
        self._memo.clear()
        if var is None:
            self._values.clear()
        else:
            self._values = {k: v for k, v in self._values.items() if var not in v[2]}

    def opaque(self, e: ir.Expr, env: dict, t: ir.Type):
        """A read this module does not model: one constant per expression (and values of the locals it
        reads), so that the same expression has one value in one state."""
        from .liveness import subexprs
        used = tuple(sorted((x.name, str(env[x.name])) for x in subexprs(e)
                            if isinstance(x, ir.Local) and x.name in env))
        key = (e, used)     # IR nodes are equal (and hash) without their spans
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self.S.fresh(t, "read")
        return got

    def player(self, e: ir.Expr, env: dict, guard, what: str):
        """The seat ``e`` denotes; an error where it is not a player."""
        p = self.expr(e, env, guard)
        n = self.S.n
        if _const(p):
            if not 0 <= p < n:
                self.error(guard, True, f"{what} is {'none' if p < 0 else p}, not a player", e.span)
            return p
        self.error(guard, z3.Or(p < 0, p >= n), f"{what} is not a player", e.span)
        return p

    def slot(self, e: ir.Expr, env: dict, guard):
        """The zone slot of a zone expression (an int, or a z3 term for ``hand[p]`` with ``p`` not known)."""
        g = self.game
        if isinstance(e, ir.ZoneRef):
            return g.zone_base[e.name]
        p = self.player(e.index, env, guard, f"the player indexing zone '{e.base.name}'")
        base = g.zone_base[e.base.name]
        return base + p if _const(p) else as_int(p) + base

    def slots(self, e: ir.Expr, env: dict, guard) -> list:
        """``[(condition, slot)]``: the zone ``e`` is, by case."""
        z = self.slot(e, env, guard)
        if _const(z):
            return [(True, z)]
        base = self.game.zone_base[e.base.name]
        return [(eq(z, base + p), base + p) for p in range(self.S.n)]

    def expr(self, e: ir.Expr, env: dict, guard=True):
        """The value of ``e`` (an int, a bool or a z3 term) with the locals ``env``; the rule errors it may raise
        are recorded under ``guard``.  A compound expression is encoded once per values of the locals it
        reads, until a variable it reads is written (:meth:`forget_reads`): user functions are inlined, so
        Bridge's score reads ``result()`` a dozen times.  Its errors are recorded relative to its own
        evaluation and conjoined with each guard it is used under (a guard only ever conditions errors)."""
        if e.__class__ not in _MEMOIZED:
            return self._expr(e, env, guard)
        names, _ = reads = _reads(self.game, e)
        key = (id(e),) + tuple(_ident(env[n]) for n in names if n in env)
        hit = self._values.get(key)
        if hit is None:
            first = len(self.errors)
            try:
                v = self._expr(e, env, True)
            finally:          # also when the encoding gives up: what was recorded is conditioned all the same
                errs = self.errors[first:]
                del self.errors[first:]
                self._guarded(guard, errs)
            self._values[key] = (v, errs, reads[1])
            return v
        v, errs, _ = hit
        self._guarded(guard, errs)
        return v

    def _guarded(self, guard, errs) -> None:
        for c, message in errs:
            c = land(guard, c)
            if c is not False:
                self.errors.append((c, message))

    def _expr(self, e: ir.Expr, env: dict, guard=True):  # noqa: C901 - one case per node type
        cls = e.__class__
        S = self.S
        if cls is ir.Const:
            return e.value
        if cls is ir.Local:
            return env[e.name]
        if cls is ir.VarRef:
            v = S.vars[e.name]
            if isinstance(v, list):
                raise NotEncodable(f"'{e.name}' without its index")
            return v
        if cls is ir.Index:
            arr = S.vars[e.base.name]
            i = self.expr(e.index, env, guard)
            if _const(i):
                if not 0 <= i < len(arr):
                    self.error(guard, True, f"index {i} out of range for '{e.base.name}'", e.span)
                    return arr[0]
                return arr[i]
            self.error(guard, z3.Or(i < 0, i >= len(arr)), f"index out of range for '{e.base.name}'", e.span)
            return cases(i, range(len(arr)), lambda k: arr[k])
        if cls is ir.Builtin:
            return self.builtin(e)
        if cls is ir.BinOp:
            return self.binop(e, env, guard)
        if cls is ir.Not:
            return lnot(self.expr(e.operand, env, guard))
        if cls is ir.Neg:
            x = self.expr(e.operand, env, guard)
            return -x if _const(x) else -as_int(x)
        if cls is ir.Cond:
            t = self.expr(e.test, env, guard)
            a = self.expr(e.then, env, land(guard, t))
            b = self.expr(e.orelse, env, land(guard, lnot(t)))
            return ite(t, a, b)
        if cls is ir.InSet:
            v = self.expr(e.value, env, guard)
            return any_of(eq(v, self.expr(i, env, guard)) for i in e.items)
        if cls is ir.Quant:
            return self.quant(e, env, guard)
        if cls is ir.NextPlayer:
            return self.next_player(e, env, guard)
        if cls is ir.Call:
            return self.call(e, env, guard)
        raise NotEncodable(f"the expression {cls.__name__}")

    def builtin(self, e: ir.Builtin):
        S = self.S
        name = e.name
        if name == "dealer":
            return S.dealer
        if name == "eldest":
            d = S.dealer
            return (d + 1) % S.n if _const(d) else (as_int(d) + 1) % S.n
        if name == "actor":
            return S.actor
        if name == "leader":
            return S.leader
        if name == "winner":
            return S.winner
        if name == "trick_number":
            return S.trick_number
        if name == "deal_number":
            return S.deal_number
        if name == "led_suit":
            if not S.trick_cards:
                return -1
            if any(ph.trick is not None and (ph.trick.bowers is not None or ph.trick.trump_order)
                   for ph in self.game.ir.phases):
                raise NotEncodable("the suit led under bowers or a trump order")
            return self._suit(S.trick_cards[0][1])
        raise NotEncodable(f"the name '{name}'")

    def _suit(self, c):
        nr = self.game.nranks
        if _const(c):
            return -1 if c < 0 else c // nr
        return z3.If(c >= 0, c / nr, -1)

    def binop(self, e: ir.BinOp, env, guard):
        op = e.op
        a = self.expr(e.left, env, guard)
        if op == "and":
            return land(a, self.expr(e.right, env, land(guard, a)))
        if op == "or":
            return lor(a, self.expr(e.right, env, land(guard, lnot(a))))
        b = self.expr(e.right, env, guard)
        if op in ("+", "-", "*"):
            return _arith(op, a, b)
        if op in ("/", "%"):
            self.error(guard, eq(b, 0), "division by zero", e.span)
            safe = ite(eq(b, 0), 1, b)
            return floordiv(a, safe) if op == "/" else mod(a, safe)
        return _compare(op, a, b)

    def quant(self, e: ir.Quant, env, guard):
        kind = e.kind
        if e.domain is None:
            # over the players in seat order, as the engine: 'any' stops at the first true, 'all' at the first false
            vals = []
            go = guard
            for p in range(self.S.n):
                v = self.expr(e.body, {**env, e.var: p}, go)
                vals.append(v)
                if kind == "any":
                    go = land(go, lnot(v))
                elif kind == "all":
                    go = land(go, v)
            return self._combine(kind, [(True, v) for v in vals])
        # over the cards of a zone: every card (or class of cards), weighed by its membership (the order of
        # the zone is not known)
        S = self.S
        out = []
        for zc, z in self.slots(e.domain, env, guard):
            items = []
            if S.classes is None:
                profile = []
                for c in range(self.game.num_cards):
                    m = S.in_zone(c, z, member=True)
                    v = self.expr(e.body, {**env, e.var: c}, land(land(guard, zc), m))
                    profile.append(_ident(v))
                    if m is not False:
                        items.append((m, v))
                S.profiles.append(profile)
                out.append((zc, self._combine(kind, items)))
                continue
            for k, cards in enumerate(S.classes):
                n_in = S.count(k, z)
                some = _compare(">=", n_in, 1)
                if some is False:
                    continue
                vals = [self.expr(e.body, {**env, e.var: c}, land(land(guard, zc), some)) for c in cards]
                if len({_ident(v) for v in vals}) != 1:
                    raise NotEncodable("cards of one class valued differently")
                items.append((some, n_in, vals[0]))
            out.append((zc, self._combine_counts(kind, items)))
        if len(out) == 1 and out[0][0] is True:
            return out[0][1]
        res = out[-1][1]
        for zc, v in reversed(out[:-1]):
            res = ite(zc, v, res)
        return res

    @staticmethod
    def _combine(kind, items):
        if kind == "any":
            return any_of(land(m, v) for m, v in items)
        if kind == "all":
            return all_of(lor(lnot(m), v) for m, v in items)
        if kind == "sum":
            return total([ite(m, v, 0) for m, v in items])
        return total([ite(land(m, v), 1, 0) for m, v in items])

    @staticmethod
    def _combine_counts(kind, items):
        """``items``: ``(some card of the class is there, how many, the value of each)``."""
        if kind == "any":
            return any_of(land(some, v) for some, _, v in items)
        if kind == "all":
            return all_of(lor(lnot(some), v) for some, _, v in items)
        if kind == "sum":
            return total([_arith("*", n_in, v) for _, n_in, v in items])
        return total([ite(v, n_in, 0) for _, n_in, v in items])

    def next_player(self, e: ir.NextPlayer, env, guard):
        n = self.S.n
        start = self.player(e.after, env, guard, f"next({e.var} after ...): the start")

        def from_start(p):
            res = -1
            conds = []
            go = guard
            for k in range(1, n + 1):
                q = (p + k) % n
                c = self.expr(e.cond, {**env, e.var: q}, go)
                conds.append((q, c))
                go = land(go, lnot(c))
            for q, c in reversed(conds):
                res = ite(c, q, res)
            return res
        return cases(start, range(n), from_start)

    def call(self, e: ir.Call, env, guard):  # noqa: C901 - one case per function
        fn = e.fn
        S = self.S
        g = self.game
        n = S.n
        if fn in ("size", "has", "top"):
            zs = self.slots(e.args[0], env, guard)
            if fn == "size":
                return self._by_zone(zs, S.size)
            if fn == "has":
                c = self.expr(e.args[1], env, guard)
                return self._by_zone(zs, lambda z: S.in_zone(c, z))
            return self.opaque(e, env, ir.CARD)      # the order of a zone is not kept
        if fn in ("total", "max", "min"):
            cells = S.vars[e.args[0].name]
            if fn == "total":
                return total(cells)
            best = cells[0]
            for x in cells[1:]:
                best = ite(_compare(">" if fn == "max" else "<", x, best), x, best)
            return best
        args = e.args
        if fn == "suit":
            return self._suit(self.expr(args[0], env, guard))
        if fn == "rank":
            c = self.expr(args[0], env, guard)
            nr = g.nranks
            if _const(c):
                return -1 if c < 0 else g.strength_of[c]
            return z3.If(c >= 0, nr - 1 - c % nr, -1)
        if fn == "card":
            r = self.expr(args[0], env, guard)
            s_ = self.expr(args[1], env, guard)
            nr = g.nranks
            if _const(r) and _const(s_):
                return -1 if r < 0 or s_ < 0 else s_ * nr + (nr - 1 - r)
            return ite(lor(_compare("<", r, 0), _compare("<", s_, 0)), -1,
                       _arith("+", _arith("*", s_, nr), _arith("-", nr - 1, r)))
        if fn in ("left", "right", "partner", "side", "tricks", "clockwise"):
            p = self.player(args[0], env, guard, f"the player of {fn}()")
            if fn == "left":
                return (p + 1) % n if _const(p) else (as_int(p) + 1) % n
            if fn == "right":
                return (p - 1) % n if _const(p) else (as_int(p) + n - 1) % n
            if fn == "partner":
                return cases(p, range(n), lambda q: g.partner[q])
            if fn == "side":
                return cases(p, range(n), lambda q: g.side_of[q])
            if fn == "tricks":
                return cases(p, range(n), lambda q: S.tricks[q])
            k = self.expr(args[1], env, guard)
            return mod(_arith("+", p, k), n)
        if fn == "played":
            p = self.expr(args[0], env, guard)
            return any_of(eq(p, q) for q, _ in S.trick_cards)
        if fn == "abs":
            x = self.expr(args[0], env, guard)
            return abs(x) if _const(x) else z3.If(x >= 0, x, -x)
        if fn == "color":
            s_ = self.expr(args[0], env, guard)
            return cases(s_, range(-1, len(g.deck.suits)), lambda k: g.color_of.get(k, -1))
        if fn == "seat":
            return mod(self.expr(args[0], env, guard), n)
        if fn == "ord":
            return self.expr(args[0], env, guard)
        if fn == "holder":
            c = self.expr(args[0], env, guard)
            hb = g.hand_base

            def holder(k):
                if k < 0 or hb is None:
                    return -1
                out = -1
                for p in reversed(range(n)):
                    out = ite(eq(S.loc(k), hb + p), p, out)
                return out
            return cases(c, range(-1, g.num_cards), holder)
        raise NotEncodable(f"the function {fn}()")

    @staticmethod
    def _by_zone(zs, fn):
        if len(zs) == 1 and zs[0][0] is True:
            return fn(zs[0][1])
        res = fn(zs[-1][1])
        for c, z in reversed(zs[:-1]):
            res = ite(c, fn(z), res)
        return res


# -- effect blocks ------------------------------------------------------------------------------------------
class Execution:
    """The symbolic run of an effect block from a :class:`SymbolicState`.

    After :meth:`run`: ``errors`` (``(condition, message)``: a rule error the block may raise); ``writes``
    (``(var, cell, gain, condition)`` for each write to a match variable with a range: the gain since the
    start of the block, and when the write happens); ``scores`` (``(table, [(row, condition)])`` for each
    ``score``: when each row fires); the final values in ``S.vars``.

    ``range_errors``: whether a write that takes a match variable out of its range is a rule error here (as
    the abstraction's ``range_errors``); otherwise it is recorded in ``writes`` for the lemma of
    :mod:`.match_ranges`."""

    STATEMENTS = (ir.Assign, ir.If, ir.For, ir.Score, ir.EndDeal)

    def __init__(self, S: SymbolicState, range_errors: bool = False):
        self.S = S
        self.ev = Evaluator(S)
        self.errors = self.ev.errors
        self.range_errors = range_errors
        self.writes: list = []
        self.scores: list = []

    def run(self, stmts, env: dict | None = None, cond=True):
        """Run ``stmts`` under ``cond``; returns the condition under which execution goes on after them
        (``end deal`` stops it)."""
        env = env or {}
        for s in stmts:
            if cond is False:
                return False
            cond = self.stmt(s, env, cond)
        return cond

    def stmt(self, s, env, cond):  # noqa: C901 - one case per statement type
        cls = s.__class__
        if cls is ir.Assign:
            self.assign(s, env, cond)
            return cond
        if cls is ir.If:
            taken = False
            after = False
            for c, body in s.branches:
                cz = self.ev.expr(c, env, land(cond, lnot(taken)))
                here = land(land(cond, lnot(taken)), cz)
                after = lor(after, self.run(body, env, here))
                taken = lor(taken, cz)
            return lor(after, self.run(s.orelse, env, land(cond, lnot(taken))))
        if cls is ir.For:
            for v in self._loop(s):
                cond = self.run(s.body, {**env, s.var: v}, cond)
            return cond
        if cls is ir.Score:
            table = self.S.game.ir.table(s.table)
            guards = [self.ev.expr(r.guard, env, cond) for r in table.rows]   # all read before any fires
            self.scores.append((s.table, cond, [(r.name, land(cond, gz)) for r, gz in zip(table.rows, guards)]))
            alive = cond      # the rows that hold run in table order; an 'end deal' in one drops the rest
            for r, gz in zip(table.rows, guards):
                done = self.run(r.body, env, land(alive, gz))
                alive = lor(land(alive, lnot(gz)), done)
            return alive
        if cls is ir.EndDeal:
            return False
        raise NotEncodable(f"the statement {cls.__name__} ({s.span.path}:{s.span.line})")

    def _loop(self, s: ir.For):
        g = self.S.game
        if s.over == "players":
            return range(g.players)
        if s.over == "sides":
            return range(len(g.ir.sides))
        if s.over == "suits":
            return range(len(g.deck.suits))
        if s.over == "range" and isinstance(s.source, ir.Const) and isinstance(s.high, ir.Const):
            return range(s.source.value, s.high.value + 1)
        raise NotEncodable(f"a loop over {s.over} ({s.span.path}:{s.span.line})")

    def assign(self, s: ir.Assign, env, cond):
        S = self.S
        var = S.game.var_decl[s.var]
        value = self.ev.expr(s.value, env, cond)
        cur = S.vars[s.var]
        if s.index is None:
            if isinstance(cur, list):
                raise NotEncodable(f"'{s.var}' assigned without its index")
            cells = [(True, None)]
        else:
            i = self.ev.expr(s.index, env, cond)
            width = len(cur)
            if _const(i):
                if not 0 <= i < width:
                    self.ev.error(cond, True, f"index {i} out of range for '{s.var}'", s.span)
                    return
                cells = [(True, i)]
            else:
                self.ev.error(cond, z3.Or(i < 0, i >= width), f"index out of range for '{s.var}'", s.span)
                cells = [(eq(i, k), k) for k in range(width)]
        for hit, k in cells:
            c = land(cond, hit)
            if c is False:
                continue
            old = cur if k is None else cur[k]
            new = value if s.op == "=" else _arith("+" if s.op == "+=" else "-", old, value)
            t = var.type
            if t.kind == "int" and t.low is not None:
                out = lor(_compare("<", new, t.low), _compare(">", new, t.high))
                if var.scope == "deal" or self.range_errors or s.op == "=":
                    self.ev.error(c, out, f"'{s.var}' would leave its range {t.low}..{t.high}", s.span)
                else:
                    start = S.initial[s.var] if k is None else S.initial[s.var][k]
                    self.writes.append((s.var, k, _arith("-", new, start), c))
            stored = ite(c, new, old)
            if k is None:
                S.vars[s.var] = stored
            else:
                row = list(S.vars[s.var])
                row[k] = stored
                S.vars[s.var] = row
        self.ev.forget_reads(s.var)

    def gains(self, name: str) -> list:
        """The change of match variable ``name`` (each cell) since the start of the block."""
        cur = self.S.vars[name]
        start = self.S.initial[name]
        if not isinstance(cur, list):
            return [_arith("-", cur, start)]
        return [_arith("-", a, b) for a, b in zip(cur, start)]


def encodable(stmts) -> bool:
    """Whether every statement of ``stmts`` (nested blocks and the rows of the tables they score included)
    is one :class:`Execution` follows."""
    from .liveness import walk
    return all(isinstance(s, Execution.STATEMENTS) for s in walk(stmts))


# -- solving --------------------------------------------------------------------------------------------------
def solver(S: SymbolicState, rlimit: int) -> z3.Solver:
    s = z3.Solver()
    s.set("rlimit", rlimit)
    for c in S.constraints:
        s.add(as_bool(c))
    return s


def possible(s: z3.Solver, cond) -> bool | None:
    """Whether ``cond`` can hold under the solver's constraints: True, False, or None (z3 gave up)."""
    if cond is False:
        return False
    if cond is True:
        r = s.check()
    else:
        r = s.check(as_bool(cond))
    if r == z3.unknown:
        return None
    return r == z3.sat


# -- scoring tables -------------------------------------------------------------------------------------------------
def table_holds_everywhere(game, table: ir.Table, rlimit: int) -> bool | None:
    """Whether exactly one row of ``table`` applies in every state of the game, whatever the values of what
    the rows read (each variable any value of its type, any split of the cards): then no exploration is
    needed.  False when z3 finds a valuation with an overlap or a gap (which may be unreachable: the caller
    then looks at the reachable outcomes); None when not decided.  A condition that raises a rule error is
    left to ``builtin:no_rule_error``."""
    S = unconstrained(game)
    ev = Evaluator(S)
    try:
        guards = [ev.expr(r.guard, {}) for r in table.rows]
    except NotEncodable:
        return None
    s = solver(S, rlimit)
    for i in range(len(guards)):
        for j in range(i + 1, len(guards)):
            got = possible(s, land(guards[i], guards[j]))
            if got is not False:
                return None if got is None else False
    got = possible(s, lnot(any_of(guards)))
    return None if got is None else not got


def from_concrete(st) -> SymbolicState:
    """The one concrete engine state ``st`` as a symbolic state (every value a constant, every card's zone
    known): for tests that hold the symbolic evaluation against the engine's."""
    game = st.game
    S = SymbolicState(game)
    for v in game.ir.vars:
        val = st.vars[v.name]
        S.vars[v.name] = list(val) if isinstance(val, list) else val
        S.initial[v.name] = list(val) if isinstance(val, list) else val
    S.dealer, S.deal_number, S.trick_number = st.dealer, st.deal_number, st.trick_number
    S.actor, S.leader, S.winner = st.actor, st.trick_leader, st.last_winner
    S.tricks = list(st.tricks_won)
    S.trick_cards = list(st.trick_cards)
    S.sizes = [len(z) for z in st.zones]
    S.tracked = {c: i for i, z in enumerate(st.zones) for c in z}
    return S



# -- bounds ------------------------------------------------------------------------------------------------------
OUT = 10 ** 12   # beyond any value a rule reaches


def bounds(s: z3.Solver, term, cond=True, hint=None):
    """``(lo, hi)`` of ``term`` under the solver's constraints where ``cond`` holds (None: unbounded, or not
    decided); None when ``cond`` cannot hold.  Each bound is found by galloping from a model's value (a
    bound twice as far each time, then halving the gap): a few satisfiability checks, cheaper than z3's
    optimiser here.  ``hint``, a guess ``(lo, hi)`` or a list of guesses (similar terms' bounds; None
    entries: no guess), is tried first, each guess of a side from the nearest: a right guess costs two
    checks, a wrong one narrows the search; the bounds returned are what z3 shows either way.  The solver is
    left as it was."""
    s.push()
    try:
        if cond is not True:
            s.add(as_bool(cond))
        r = s.check()
        if r == z3.unsat:
            return None
        if r != z3.sat:
            return (None, None)
        if _const(term):
            return (term, term)
        t = as_int(term)
        v = s.model().eval(t, model_completion=True)
        if not z3.is_int_value(v):
            return (None, None)
        guesses = [] if hint is None else [hint] if isinstance(hint, tuple) else list(hint)
        lo = _greatest(s, -t, -v.as_long(), [-g[0] for g in guesses if g[0].__class__ is int])
        hi = _greatest(s, t, v.as_long(), [g[1] for g in guesses if g[1].__class__ is int])
        return (None if lo is None else -lo, hi)
    finally:
        s.pop()


def _greatest(s, u, known: int, guesses=()):
    """The greatest value of ``u`` under the solver's constraints, ``known`` one of its values; None when
    unbounded (beyond :data:`OUT`) or when z3 gives up.  ``guesses``: values tried first, the least above
    ``known`` first (see :func:`bounds`)."""
    def above(x):                     # a value of u >= x, or False (none), or None (z3 gave up)
        r = s.check(u >= x)
        if r == z3.unsat:
            return False
        if r != z3.sat:
            return None
        return s.model().eval(u, model_completion=True).as_long()
    for guess in sorted({g for g in guesses if g.__class__ is int and g < OUT}):
        if guess <= known:
            continue                  # a value of u already reaches it
        got = above(guess)
        if got is False:              # the greatest lies in known .. guess - 1
            return _bisect(above, known, known + 1, guess - 1)
        if got is None:
            break
        got2 = above(got + 1)         # at least the guess: is it the greatest?
        if got2 is False:
            return got
        if got2 is None:
            return None
        known = got2                  # beyond it: on to the next guess, then gallop on
    step = 1
    while True:                       # gallop: a value at least ``step`` beyond the best known?
        got = above(known + step)
        if got is None:
            return None
        if got is False:
            break
        known = got
        if known >= OUT:
            return None
        step *= 2
    return _bisect(above, known, known + 1, known + step - 1)   # the greatest: known .. known + step - 1


def _bisect(above, known: int, lo: int, hi: int):
    """The greatest value, ``known`` one of them and none above ``hi``: halving ``lo .. hi``."""
    while lo <= hi:
        got = above((lo + hi) // 2)
        if got is None:
            return None
        if got is False:
            hi = (lo + hi) // 2 - 1
        else:
            known = got
            lo = known + 1
    return known

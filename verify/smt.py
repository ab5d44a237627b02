"""The verifier's SMT queries (z3).

* :func:`conservation` — the total of zone sizes is an inductive invariant:
  every effect that moves cards preserves it (checked statement by statement on a
  symbolic encoding of zone sizes; together with the engine's representation,
  where a card only ever moves from one zone to another, every card is always in
  exactly one zone).
* :func:`ranking_function` — a linear ranking function for the edges of a loop
  of the abstract graph: integer coefficients over zone sizes, int variables and
  phase weights, bounded below and decreasing by at least 1 on every edge.
* :func:`table_cases` — overlap and gap queries for a scoring table over the
  reachable outcomes (the abstract valuations seen at ``score``).
* :func:`bounded_under` — the largest value of a sum of variables while a
  condition (the match's ``ends when``) does not hold.

Every query runs with z3's resource limit (``rlimit``, a count of z3's own work, the same on every machine
and at any load); reaching it is reported as unknown, never as a proof.  Queries are built in a fixed order
(lists, never sets), so that z3 finds the same model, and the same ranking function, in every run.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from atout.compiler import ir

from .absint import ANON, Interval
from .liveness import walk
from .symbolic import floordiv, mod


class SolverTimeout(Exception):
    pass


def _check(s: z3.Solver):
    r = s.check()
    if r == z3.unknown:
        raise SolverTimeout(s.reason_unknown())
    return r


# -- conservation -----------------------------------------------------------------------------------
def conservation(game, rlimit: int) -> tuple[bool, int, str | None]:
    """Check that every card-moving effect preserves the total of zone sizes.

    Returns (holds, number of effects checked, description of a violating effect or None).
    """
    slots = game.zone_slots
    n = len(slots)
    checked = 0
    shapes_done = set()
    for stmt, where in _card_effects(game.ir):
        for src_slots, dst_slots in _slot_choices(game, stmt):
            for src in src_slots:
                for dst in dst_slots:
                    # the formula only depends on the kind of effect and on whether source and destination
                    # are the same zone: check each shape once per effect
                    shape = (id(stmt), type(stmt).__name__, isinstance(stmt, ir.Move) and stmt.count is None,
                             src == dst)
                    checked += 1
                    if shape in shapes_done:
                        continue
                    shapes_done.add(shape)
                    s = z3.Solver()
                    s.set("rlimit", rlimit)
                    pre = [z3.Int(f"s{i}") for i in range(n)]
                    post = list(pre)
                    for x in pre:
                        s.add(x >= 0)
                    if isinstance(stmt, ir.Gather):
                        post = [z3.IntVal(0)] * n
                        post[dst] = z3.Sum(pre)
                    elif isinstance(stmt, ir.Move) and stmt.count is None:
                        post[dst] = pre[dst] + pre[src] if src != dst else pre[dst]
                        if src != dst:
                            post[src] = z3.IntVal(0)
                    else:
                        k = z3.Int("k")
                        s.add(k >= 0, k <= pre[src])
                        if src != dst:
                            post[src] = pre[src] - k
                            post[dst] = pre[dst] + k
                    s.add(z3.Sum(post) != z3.Sum(pre))
                    if _check(s) == z3.sat:
                        return False, checked, f"{where}: {type(stmt).__name__} from {slots[src].label} to " \
                                               f"{slots[dst].label}"
    return True, checked, None


def _card_effects(g: ir.Game):
    for ph in g.phases:
        bodies = [(a.body, f"{ph.name}.{a.name}") for a in ph.actions] + [(ph.body, ph.name)]
        if ph.trick is not None:
            bodies.append((ph.trick.then, f"{ph.name}.trick"))
        for a in ph.actions:
            if a.param is not None and a.param.kind == "choose":
                yield ir.Move(ir.Const(1, ir.INT), a.param.zone, a.param.dest, a.param.span), f"{ph.name}.{a.name}"
        if ph.trick is not None:
            yield ir.Move(ir.Const(1, ir.INT), ir.Index(ir.ZoneRef("hand", True), ir.Builtin("actor", ir.PLAYER)),
                          ir.ZoneRef("trick"), ph.span), f"{ph.name} (a card played)"
            yield ir.Move(None, ir.ZoneRef("trick"), ir.Index(ir.ZoneRef("taken", True),
                                                             ir.Builtin("winner", ir.PLAYER)), ph.span), \
                f"{ph.name} (a trick taken)"
        for body, where in bodies:
            for s in walk(body):
                if isinstance(s, (ir.Move, ir.Gather)):
                    yield s, where
                elif isinstance(s, ir.Deal):
                    yield ir.Move(ir.Const(1, ir.INT), s.source, ir.Index(ir.ZoneRef(s.dest, True),
                                                                          ir.Builtin("actor", ir.PLAYER)),
                                  s.span), where
    for t in g.tables:
        for r in t.rows:
            for s in walk(r.body):
                if isinstance(s, (ir.Move, ir.Gather)):
                    yield s, f"table {t.name}.{r.name}"


def _slots(game, e) -> list[int]:
    if isinstance(e, ir.ZoneRef):
        return [game.zone_base[e.name]]
    base = game.zone_base[e.base.name]
    return [base + p for p in range(game.players)]


def _slot_choices(game, stmt):
    if isinstance(stmt, ir.Gather):
        yield [0], _slots(game, stmt.zone)
    else:
        yield _slots(game, stmt.source), _slots(game, stmt.dest)


# -- ranking functions -----------------------------------------------------------------------------------
@dataclass
class Ranking:
    terms: list[tuple[int, str]]   # (coefficient, feature)
    phase_weights: dict[str, int]

    def __str__(self) -> str:
        """``2*size(stock) - size(trick) + w(phase) with w = {...}``: signs written once, unit coefficients
        left out."""
        text = ""
        for c, f in self.terms:
            if not c:
                continue
            term = f if abs(c) == 1 else f"{abs(c)}*{f}"
            text += (("- " if c < 0 else "+ ") if text else ("-" if c < 0 else "")) + term + " "
        w = ", ".join(f"{p}: {v}" for p, v in sorted(self.phase_weights.items()) if v)
        text = text.rstrip() or "0"
        return text + (f" + w(phase) with w = {{{w}}}" if w else "")


MAX_RANKING_ROWS = 20_000   # distinct constraints beyond which no ranking function is sought


def ranking_function(edges: list[tuple[dict, str, dict, str]], features: list[str], rlimit: int,
                     bound: int = 8, max_rows: int = MAX_RANKING_ROWS) -> Ranking | None:
    """Find integer coefficients c_f in -bound..bound and phase weights w_P in 0..64 such that for every edge
    (src values, src phase, dst values, dst phase): r(src) - r(dst) >= 1 and r >= 0 on every state,
    with r(x) = sum_f c_f * x_f + w(phase).  ``edges`` hold feature values (ints).  Returns None if none
    exists in that family, on z3's resource limit, or when the distinct constraints (a state's vector of
    features with its phase; an edge's difference of vectors with its two phases) number more than
    ``max_rows``: a ranking function is an explanation beside a proof by acyclicity, bounded by a count so
    that the same input always gets the same answer.

    The constraints are written as SMT-LIB text in the order the edges are given (z3's model depends on it),
    each distinct one once, and parsed by z3 in one call."""
    phases = sorted({e[1] for e in edges} | {e[3] for e in edges})
    states: dict = {}
    steps: dict = {}
    for sv, sp, dv, dp in edges:
        a = tuple(sv[f] for f in features)
        b = tuple(dv[f] for f in features)
        states[(a, sp)] = None
        states[(b, dp)] = None
        steps[(tuple(x - y for x, y in zip(a, b)), sp, dp)] = None
        if len(states) + len(steps) > max_rows:
            return None
    ph = {p: f"w{i}" for i, p in enumerate(phases)}

    def linear(vec) -> list[str]:
        return [f"(* {_smt_int(k)} c{i})" for i, k in enumerate(vec) if k]

    out = [f"(declare-const c{i} Int)" for i in range(len(features))]
    out += [f"(declare-const {w} Int)" for w in ph.values()]
    out += [f"(assert (and (>= c{i} {_smt_int(-bound)}) (<= c{i} {bound})))" for i in range(len(features))]
    out += [f"(assert (and (>= {w} 0) (<= {w} 64)))" for w in ph.values()]
    for vec, p in states:
        out.append(f"(assert (>= (+ 0 {' '.join(linear(vec) + [ph[p]])}) 0))")
    for vec, p, q in steps:
        terms = linear(vec) + ([f"{ph[p]} (- {ph[q]})"] if p != q else [])
        out.append(f"(assert (>= (+ 0 {' '.join(terms)}) 1))")
    s = z3.Solver()
    s.set("rlimit", rlimit)
    s.from_string("\n".join(out))
    try:
        if _check(s) != z3.sat:
            return None
    except SolverTimeout:
        return None
    m = s.model()
    terms = [(m.eval(z3.Int(f"c{i}"), model_completion=True).as_long(), f) for i, f in enumerate(features)]
    return Ranking([(k, f) for k, f in terms if k], {p: m.eval(z3.Int(ph[p]), model_completion=True).as_long()
                                                     for p in phases})


def _smt_int(k: int) -> str:
    return str(k) if k >= 0 else f"(- {-k})"


# -- scoring tables ---------------------------------------------------------------------------------------------
def table_cases(game, table: ir.Table, outcomes: set, rlimit: int):
    """Overlaps and gaps of ``table`` over the reachable ``outcomes`` (abstract valuations at ``score``).

    Returns (overlaps, gaps): lists of (row names, witness text).  A witness is a model of the z3 query.
    """
    n = game.players
    g = game.ir
    s = z3.Solver()
    s.set("rlimit", rlimit)
    enc = _Encoder(game)
    # the outcome: one of the reachable valuations, as far as the rows read them (equal projections once)
    project = _projection(table)
    alts = [_outcome(enc, outcome, n) for outcome in dict.fromkeys(project(o) for o in outcomes)]
    s.add(z3.Or(alts) if alts else z3.BoolVal(False))
    guards = [enc.expr(r.guard) for r in table.rows]
    overlaps, gaps = [], []
    for i in range(len(guards)):
        for j in range(i + 1, len(guards)):
            s.push()
            s.add(guards[i], guards[j])
            if _check(s) == z3.sat:
                overlaps.append(((table.rows[i].name, table.rows[j].name), enc.describe(s.model())))
            s.pop()
    s.push()
    s.add(z3.Not(z3.Or(guards)) if guards else z3.BoolVal(True))
    if _check(s) == z3.sat:
        gaps.append(((), enc.describe(s.model())))
    s.pop()
    return overlaps, gaps


def _projection(table: ir.Table):
    """``f(outcome) -> outcome`` keeping what the rows' conditions read: the variables they name, the tricks
    won when they call ``tricks()``, the dealer when they name a seat relative to him.  An outcome is a box
    (a constraint per variable, the tricks' constraints among themselves), so a condition over what is kept
    holds in some valuation of the projection exactly when it holds in some valuation of the outcome."""
    from .liveness import subexprs
    names, tricks, dealer = set(), False, False
    for r in table.rows:
        for x in subexprs(r.guard):
            if isinstance(x, ir.VarRef):
                names.add(x.name)
            elif isinstance(x, ir.Call) and x.fn == "tricks":
                tricks = True
            elif isinstance(x, ir.Builtin):
                dealer = True

    def f(outcome):
        vars_, won, d = outcome
        return (tuple((k, v) for k, v in vars_ if k in names), won if tricks else None, d if dealer else None)
    return f


def _outcome(enc, outcome, n):
    """The z3 constraint of one abstract scoring outcome (deal variables, tricks won, dealer)."""
    vars_, won, dealer = outcome
    conj = [enc.dealer == dealer] if dealer is not None else []
    if won is None:
        conj += [t >= 0 for t in enc.tricks]
    elif won and won[0] == "T":
        conj += [t >= 0 for t in enc.tricks] + [z3.Sum(enc.tricks) == won[1]]
    elif won and won[0] == "S":
        conj += [t >= 0 for t in enc.tricks]
        for k, side in enumerate(enc.game.ir.sides):
            conj.append(z3.Sum([enc.tricks[p] for p in side]) == won[1][k])
    else:
        conj += [enc.tricks[p] == won[p] for p in range(n)]
    for name, v in vars_:
        kind = enc.kinds.get(name)
        if name in enc.vars:
            conj.append(_in_abstract(enc.vars[name], v, n, kind))
        elif name in enc.arrays and kind == "int" and v.__class__ is tuple and len(v) == len(enc.arrays[name]):
            conj += [_in_abstract(x, c, n, kind) for x, c in zip(enc.arrays[name], v)]
    # every value of a ranged variable stays in its range (a write out of it is a rule error)
    conj += enc.ranges
    return z3.And(conj)


def outcomes_showing(game, table: ir.Table, outcomes, rows: tuple, rlimit: int) -> list:
    """The outcomes among ``outcomes`` at which the two rows named ``rows`` can both apply (an overlap), or,
    for ``rows == ()``, at which no row can apply (a gap): where to look for a concrete witness."""
    enc = _Encoder(game)
    guards = {r.name: enc.expr(r.guard) for r in table.rows}
    want = z3.And([guards[r] for r in rows]) if rows else z3.Not(z3.Or(list(guards.values())))
    s = z3.Solver()
    s.set("rlimit", rlimit)
    s.add(want)
    out = []
    for outcome in outcomes:
        s.push()
        s.add(_outcome(enc, outcome, game.players))
        if _check(s) == z3.sat:
            out.append(outcome)
        s.pop()
    return out


def _in_abstract(x, v, n, kind: str | None = None):
    """The constraint on ``x`` (a z3 term) that it takes a value abstract value ``v`` stands for; ``kind``: the
    variable's type kind.  A card the abstraction does not track is the anonymous card (ANON, -2): any card,
    never the number -2."""
    if kind == "card" and v == ANON:
        return z3.BoolVal(True)
    if isinstance(v, Interval):
        c = []
        if v.lo is not None:
            c.append(x >= v.lo)
        if v.hi is not None:
            c.append(x <= v.hi)
        return z3.And(c) if c else z3.BoolVal(True)
    if isinstance(v, tuple):  # a forgotten value ("top", ...), or an array
        return z3.BoolVal(True)
    if isinstance(v, bool):
        return x == z3.BoolVal(v)
    return x == v


class _Encoder:
    """IR expressions over the scoring outcome (deal variables, tricks, dealer) as z3 terms.

    Anything else (match variables, cards) is a fresh unconstrained constant: an over-approximation."""

    def __init__(self, game):
        self.game = game
        g = game.ir
        n = game.players
        self.n = n
        self.dealer = z3.Int("dealer")
        self.deal_number = z3.Int("deal_number")
        self.tricks = [z3.Int(f"tricks_{p}") for p in range(n)]
        self.vars = {}
        for v in g.vars:
            if v.per is not None:
                continue
            if v.type.kind == "bool":
                self.vars[v.name] = z3.Bool(v.name)
            else:
                self.vars[v.name] = z3.Int(v.name)
        self.arrays = {v.name: [(z3.Bool if v.type.kind == "bool" else z3.Int)(f"{v.name}_{i}")
                                for i in range(n if v.per == "player" else max(1, len(g.sides)))]
                       for v in g.vars if v.per is not None}
        self.fresh = 0
        self.kinds = {v.name: v.type.kind for v in g.vars}
        self.ranges = []          # the declared ranges of the int variables, as constraints on their terms
        for v in g.vars:
            if v.type.kind != "int":
                continue
            for x in self.arrays[v.name] if v.per is not None else [self.vars[v.name]]:
                if v.type.low is not None:
                    self.ranges.append(x >= v.type.low)
                if v.type.high is not None:
                    self.ranges.append(x <= v.type.high)

    def _new(self, kind="int"):
        self.fresh += 1
        return z3.Int(f"free_{self.fresh}") if kind != "bool" else z3.Bool(f"freeb_{self.fresh}")

    def expr(self, e, env=None):  # noqa: C901
        env = env or {}
        n = self.n
        if isinstance(e, ir.Const):
            return z3.BoolVal(e.value) if isinstance(e.value, bool) else z3.IntVal(e.value)
        if isinstance(e, ir.Local):
            return env[e.name]
        if isinstance(e, ir.VarRef):
            return self.vars.get(e.name, self._new("bool" if e.type.kind == "bool" else "int"))
        if isinstance(e, ir.Builtin):
            if e.name == "dealer":
                return self.dealer
            if e.name == "deal_number":
                return self.deal_number
            if e.name == "eldest":
                return (self.dealer + 1) % n
            return self._new()
        if isinstance(e, ir.Index) and isinstance(e.base, ir.VarRef) and e.base.name in self.arrays:
            arr = self.arrays[e.base.name]
            idx = self.expr(e.index, env)
            out = arr[-1]
            for i in range(len(arr) - 1):
                out = z3.If(idx == i, arr[i], out)
            return out
        if isinstance(e, ir.Call) and e.fn == "tricks":
            idx = self.expr(e.args[0], env)
            out = self.tricks[-1]
            for i in range(n - 1):
                out = z3.If(idx == i, self.tricks[i], out)
            return out
        if isinstance(e, ir.Call) and e.fn in ("partner", "side"):
            table = self.game.partner if e.fn == "partner" else self.game.side_of
            x = self.expr(e.args[0], env)
            out = z3.IntVal(-1)
            for p in range(n - 1, -1, -1):
                out = z3.If(x == p, z3.IntVal(table[p]), out)
            return out
        if isinstance(e, ir.Call) and e.fn in ("suit", "rank", "color"):
            # as the engine: a table of the card (suit) and none (-1) for none or a value the table lacks
            table = {"suit": lambda: enumerate(self.game.suit_of), "rank": lambda: enumerate(self.game.strength_of),
                     "color": lambda: self.game.color_of.items()}[e.fn]()
            x = self.expr(e.args[0], env)
            out = z3.IntVal(-1)
            for k, v in sorted(table, reverse=True):
                out = z3.If(x == k, z3.IntVal(v), out)
            return out
        if isinstance(e, ir.Call) and e.fn == "seat":
            return mod(self.expr(e.args[0], env), n)
        if isinstance(e, ir.Call) and e.fn == "ord":
            return self.expr(e.args[0], env)
        if isinstance(e, ir.Call) and e.fn == "left":
            return (self.expr(e.args[0], env) + 1) % n
        if isinstance(e, ir.Call) and e.fn == "right":
            return (self.expr(e.args[0], env) + n - 1) % n
        if isinstance(e, ir.BinOp):
            a, b = self.expr(e.left, env), self.expr(e.right, env)
            op = e.op
            if op == "and":
                return z3.And(a, b)
            if op == "or":
                return z3.Or(a, b)
            # '/' and '%' round down as the engine does (z3's div and mod differ for a negative divisor)
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: floordiv(a, b),
                    "%": lambda: mod(a, b), "==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b,
                    "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[op]()
        if isinstance(e, ir.Not):
            return z3.Not(self.expr(e.operand, env))
        if isinstance(e, ir.Neg):
            return -self.expr(e.operand, env)
        if isinstance(e, ir.Cond):
            return z3.If(self.expr(e.test, env), self.expr(e.then, env), self.expr(e.orelse, env))
        if isinstance(e, ir.InSet):
            v = self.expr(e.value, env)
            return z3.Or([v == self.expr(i, env) for i in e.items])
        if isinstance(e, ir.Quant) and e.domain is None:
            vals = [self.expr(e.body, {**env, e.var: z3.IntVal(p)}) for p in range(n)]
            if e.kind == "any":
                return z3.Or(vals)
            if e.kind == "all":
                return z3.And(vals)
            if e.kind == "sum":
                return z3.Sum(vals)
            return z3.Sum([z3.If(v, 1, 0) for v in vals])
        t = getattr(e, "type", None)
        return self._new("bool" if t is not None and t.kind == "bool" else "int")

    def describe(self, m) -> str:
        parts = [f"dealer seat {m.eval(self.dealer, model_completion=True)}"]
        parts += [f"tricks[{p}]={m.eval(t, model_completion=True)}" for p, t in enumerate(self.tricks)]
        for name, x in self.vars.items():
            v = m.eval(x, model_completion=False)
            if not z3.is_const(v) or z3.is_true(v) or z3.is_false(v) or z3.is_int_value(v):
                if str(v) != name:
                    parts.append(f"{name}={v}")
        for name, xs in self.arrays.items():
            vals = [m.eval(x, model_completion=False) for x in xs]
            if any(z3.is_int_value(v) for v in vals):     # cells the rows read (the others are unconstrained)
                parts.append(f"{name}=[{', '.join(str(v) if z3.is_int_value(v) else '?' for v in vals)}]")
        return ", ".join(parts)


# -- bounds ---------------------------------------------------------------------------------------------------
def bounded_under(game, var: str, condition: ir.Expr, rlimit: int, floor: int | None = None) -> int | None:
    """The largest total of per-player (or per-side) int match variable ``var`` while ``condition`` is false,
    over the variable's declared range, each cell at least ``floor`` when it is given (what the caller proved:
    no cell ever falls below its initial value); None when unbounded (or unknown)."""
    enc = _Encoder(game)
    arr = enc.arrays[var]
    decl = next(v for v in game.ir.vars if v.name == var)
    opt = z3.Optimize()
    opt.set("rlimit", rlimit)
    for x in arr:
        if decl.type.low is not None:
            opt.add(x >= decl.type.low)
        if decl.type.high is not None:
            opt.add(x <= decl.type.high)
        if floor is not None:
            opt.add(x >= floor)
    opt.add(z3.Not(enc.expr(condition)))
    h = opt.maximize(z3.Sum(arr))
    r = opt.check()
    if r != z3.sat:
        return None
    val = opt.upper(h)
    if not z3.is_int_value(val):
        return None
    return val.as_long()


def deal_number_bound(game, condition: ir.Expr, rlimit: int) -> int | None:
    """The largest ``deal_number`` while ``condition`` (the match's ``ends when``) is false; None when the
    condition does not bound it (or does not read it)."""
    from .liveness import subexprs
    if not any(isinstance(x, ir.Builtin) and x.name == "deal_number" for x in subexprs(condition)):
        return None
    enc = _Encoder(game)
    opt = z3.Optimize()
    opt.set("rlimit", rlimit)
    opt.add(enc.deal_number >= 0)
    opt.add(z3.Not(enc.expr(condition)))
    h = opt.maximize(enc.deal_number)
    if opt.check() != z3.sat:
        return None
    val = opt.upper(h)
    return val.as_long() if z3.is_int_value(val) else None


# -- zero-sum effects -----------------------------------------------------------------------------------------
class NotEncodable(Exception):
    """An effect the symbolic store cannot follow exactly (a loop over the cards of a zone, a range that is not
    constant): the caller's verdict is undecided."""


# what an expression may read that statements other than assignments change
_ZONE_READS = frozenset({"size", "has", "top", "holder", "tricks", "played"})
_DEALER_READS = frozenset({"dealer", "eldest"})


class _SymStore:
    """Symbolic execution of effect blocks over z3: the changes they make to int variables.

    Exact for assignments, ``if``, ``for``, ``score`` and ``random``; a path stops at ``goto`` and ``end deal``.
    A value read after the block changed what the encoding reads (a card moved, then ``size()``; ``dealer = P``,
    then ``dealer``; a variable written, then read through a construct the store does not follow) is not
    encoded (NotEncodable): never the value from before the block."""

    def __init__(self, game, enc: "_Encoder"):
        self.game = game
        self.enc = enc
        self.store: dict = {}
        self.written: set = set()        # variables assigned so far
        self.moved = False               # a card moved so far
        self.dealer_moved = False        # 'dealer = P' so far
        for v in game.ir.vars:
            if v.per is not None:
                self.store[v.name] = list(enc.arrays[v.name])
            elif v.name in enc.vars:
                self.store[v.name] = enc.vars[v.name]

    def _stale(self, e) -> str | None:
        """What ``e`` would read from before the block (the encoder's initial values), or None."""
        from .liveness import subexprs
        for x in subexprs(e):
            if isinstance(x, ir.VarRef) and x.name in self.written:
                return f"'{x.name}' read after it was written"
            if self.moved and (isinstance(x, ir.ZoneRef) or isinstance(x, ir.Call) and x.fn in _ZONE_READS):
                return "a zone read after a card moved"
            if self.dealer_moved and isinstance(x, ir.Builtin) and x.name in _DEALER_READS:
                return "the dealer read after 'dealer = P'"
        return None

    def expr(self, e, env):
        if isinstance(e, ir.VarRef) and e.per is None and e.name in self.store:
            return self.store[e.name]
        if isinstance(e, ir.Index) and isinstance(e.base, ir.VarRef) and e.base.name in self.store:
            arr = self.store[e.base.name]
            idx = self.expr(e.index, env)
            out = arr[-1]
            for i in range(len(arr) - 1):
                out = z3.If(idx == i, arr[i], out)
            return out
        if isinstance(e, ir.BinOp):
            a, b = self.expr(e.left, env), self.expr(e.right, env)
            if e.op == "and":
                return z3.And(a, b)
            if e.op == "or":
                return z3.Or(a, b)
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "==": lambda: a == b,
                    "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b,
                    ">=": lambda: a >= b, "/": lambda: floordiv(a, b), "%": lambda: mod(a, b)}[e.op]()
        if isinstance(e, ir.Not):
            return z3.Not(self.expr(e.operand, env))
        if isinstance(e, ir.Neg):
            return -self.expr(e.operand, env)
        if isinstance(e, ir.Cond):
            return z3.If(self.expr(e.test, env), self.expr(e.then, env), self.expr(e.orelse, env))
        if isinstance(e, ir.InSet):
            v = self.expr(e.value, env)
            return z3.Or([v == self.expr(i, env) for i in e.items])
        if isinstance(e, ir.Call) and e.fn == "abs":
            x = self.expr(e.args[0], env)
            return z3.If(x >= 0, x, -x)
        why = self._stale(e)
        if why is not None:
            raise NotEncodable(f"{why} ({e.span.path}:{e.span.line})")
        return self.enc.expr(e, env)

    def run(self, stmts, env, cond=z3.BoolVal(True)):
        """Run ``stmts`` where ``cond`` holds; returns the condition under which control reaches their end
        (a ``goto`` or ``end deal`` stops a path)."""
        for s in stmts:
            if isinstance(s, (ir.Goto, ir.EndDeal)):
                return z3.BoolVal(False)
            if isinstance(s, ir.Assign):
                val = self.expr(s.value, env)
                if s.index is not None:
                    arr = self.store.get(s.var)
                    if arr is None:
                        continue
                    idx = self.expr(s.index, env)
                    for i in range(len(arr)):
                        new = arr[i] + val if s.op == "+=" else arr[i] - val if s.op == "-=" else val
                        arr[i] = z3.If(z3.And(cond, idx == i), new, arr[i])
                elif s.var in self.store:
                    old = self.store[s.var]
                    new = old + val if s.op == "+=" else old - val if s.op == "-=" else val
                    self.store[s.var] = z3.If(cond, new, old)
                self.written.add(s.var)
            elif isinstance(s, ir.If):
                taken = z3.BoolVal(False)
                through = z3.BoolVal(False)
                for c, body in s.branches:
                    cz = self.expr(c, env)
                    here = z3.And(cond, z3.Not(taken), cz)
                    through = z3.Or(through, self.run(body, env, here))
                    taken = z3.Or(taken, cz)
                cond = z3.Or(through, self.run(s.orelse, env, z3.And(cond, z3.Not(taken))))
            elif isinstance(s, ir.RandomAssign):
                # a chance event: the variable takes any value (the values are not tracked here)
                self.enc.fresh += 1
                val = z3.Int(f"random_{self.enc.fresh}")
                if s.index is not None:
                    arr = self.store.get(s.var)
                    if arr is None:
                        continue
                    idx = self.expr(s.index, env)
                    for i in range(len(arr)):
                        arr[i] = z3.If(z3.And(cond, idx == i), val, arr[i])
                elif s.var in self.store:
                    self.store[s.var] = z3.If(cond, val, self.store[s.var])
                self.written.add(s.var)
            elif isinstance(s, ir.For):
                g = self.game.ir
                if s.over == "players":
                    values = range(self.game.players)
                elif s.over == "sides":
                    values = range(len(g.sides))
                elif s.over == "suits":
                    values = range(len(g.deck.suits))
                elif s.over == "range" and isinstance(s.source, ir.Const) and isinstance(s.high, ir.Const):
                    values = range(s.source.value, s.high.value + 1)
                else:
                    raise NotEncodable(f"a loop over {s.over} ({s.span.path}:{s.span.line})")
                for p in values:
                    cond = self.run(s.body, {**env, s.var: z3.IntVal(p)}, cond)
            elif isinstance(s, ir.Score):
                # as the engine: every row's condition is read before any row fires
                rows = self.game.ir.table(s.table).rows
                guards = [self.expr(row.guard, env) for row in rows]
                for row, gz in zip(rows, guards):
                    cond = z3.Or(z3.And(cond, z3.Not(gz)), self.run(row.body, env, z3.And(cond, gz)))
            elif isinstance(s, ir.SetDealer):
                self.dealer_moved = True
            elif isinstance(s, (ir.Move, ir.MoveCard, ir.Deal, ir.Gather)):
                self.moved = True
        return cond


def preserves_total(game, var: str, outcomes_by_table: dict, rlimit: int) -> tuple[bool | None, str]:
    """Whether every effect that changes per-player/per-side ``var`` leaves its total unchanged.

    Table rows are checked over the reachable outcomes at their ``score`` (``outcomes_by_table``); any
    other assignment to ``var`` (in an action or a phase) must preserve the total for all values.
    Returns (True, description) when proved, (False, witness) when a row changes the total on a
    reachable outcome, (None, reason) when undecided."""
    from .liveness import walk
    g = game.ir
    n = game.players
    checked = 0
    # assignments outside tables
    for ph in g.phases:
        bodies = [a.body for a in ph.actions] + [ph.body]
        if ph.trick is not None:
            bodies += [ph.trick.then, ph.trick.after]
        for b in bodies:
            if any(isinstance(s, ir.ASSIGNS) and s.var == var for s in walk(b)):
                enc = _Encoder(game)
                sym = _SymStore(game, enc)
                before = list(sym.store[var])
                try:
                    sym.run(tuple(s for s in b if not isinstance(s, ir.Score)), {"actor": z3.Int("actor")})
                except NotEncodable as e:
                    return None, f"the effects of phase '{ph.name}' are not encoded: {e}"
                s = z3.Solver()
                s.set("rlimit", rlimit)
                s.add(z3.Sum(sym.store[var]) != z3.Sum(before))
                if _check(s) == z3.sat:
                    return None, f"an effect of phase '{ph.name}' may change total({var})"
                checked += 1
    for t in g.tables:
        rows = [r for r in t.rows if any(isinstance(s, ir.ASSIGNS) and s.var == var for s in walk(r.body))]
        if not rows:
            continue
        outcomes = outcomes_by_table.get(t.name)
        if not outcomes:
            return None, f"table '{t.name}' is never scored in the abstraction"
        for r in rows:
            enc = _Encoder(game)
            sym = _SymStore(game, enc)
            before = list(sym.store[var])
            try:
                guard = sym.expr(r.guard, {})       # read before any row fires, as the engine does
                sym.run(r.body, {})
            except NotEncodable as e:
                return None, f"row '{r.name}' of table '{t.name}' is not encoded: {e}"
            s = z3.Solver()
            s.set("rlimit", rlimit)
            s.add(z3.Or([_outcome(enc, outcome, n) for outcome in outcomes]))
            s.add(guard)
            s.add(z3.Sum(sym.store[var]) != z3.Sum(before))
            if _check(s) == z3.sat:
                return False, f"row '{r.name}' of table '{t.name}' changes total({var}) ({enc.describe(s.model())})"
            checked += 1
    return True, f"SMT (z3): each of the {checked} effects that change {var} preserves total({var})"


def deal_ranking(game, then_block, prim: str, sec: str, K: int, outcomes, rlimit: int) -> tuple[bool, int]:
    """Whether Q = K*total(prim) + total(sec) rises by at least 1 through ``then_block`` for every reachable
    outcome and every value of the match variables in their declared ranges while the match goes on;
    returns (holds, the largest Q while the match goes on)."""
    g = game.ir
    n = game.players
    enc = _Encoder(game)
    sym = _SymStore(game, enc)
    pre = {name: list(v) for name, v in sym.store.items() if isinstance(v, list)}
    s = z3.Solver()
    s.set("rlimit", rlimit)
    for v in g.vars:
        if v.scope == "match" and v.per is not None and v.type.kind == "int":
            for x in pre[v.name]:
                if v.type.low is not None:
                    s.add(x >= v.type.low)
                if v.type.high is not None:
                    s.add(x <= v.type.high)
            if v.type.low is None or v.type.high is None:
                if v.name in (prim, sec):
                    return False, 0
    s.add(z3.Not(enc.expr(g.match.ends_when)))
    s.add(z3.Or([_outcome(enc, outcome, n) for outcome in outcomes]) if outcomes else z3.BoolVal(False))
    try:
        sym.run(then_block, {})
    except NotEncodable:
        return False, 0
    q_pre = K * z3.Sum(pre[prim]) + z3.Sum(pre[sec])
    q_post = K * z3.Sum(sym.store[prim]) + z3.Sum(sym.store[sec])
    s.push()
    s.add(q_post - q_pre < 1)
    if _check(s) != z3.unsat:
        return False, 0
    s.pop()
    opt = z3.Optimize()
    opt.set("rlimit", rlimit)
    for c in s.assertions():
        opt.add(c)
    h = opt.maximize(q_pre)
    if opt.check() != z3.sat:
        return False, 0
    top = opt.upper(h)
    if not z3.is_int_value(top):
        return False, 0
    return True, top.as_long()

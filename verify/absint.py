"""An abstract interpreter of the IR: the finite over-approximation the verifier explores.

The abstraction keeps, exactly: the control (phase, a card choice in progress,
the trick in progress, the dealer), the size of every zone, the deal-scope
variables (ints are exact up to the largest constant they are compared with,
then widened to an interval ``[T+1, ∞)``), and the zone of each *tracked* card
(the cards that rule files name with literals such as ``K of trumps``, for every
suit).  It forgets: the identity of every other card (an *anonymous* card: its
suit is any suit, its rank any rank that is not fully tracked), the order of
cards in a zone, the match-scope variables (any value), and the follow rules and
the winner of a trick (any card of the hand may be played, any player may win).

Every concrete run of the engine is matched by a run of the abstraction (it
over-approximates), so a property that holds on every abstract state holds in the
game.  The converse is not true: an abstract counterexample is only reported as
refuted after the engine replays it (:mod:`atout.verify.concretize`).

Each abstract step records the *events* that concretization needs (which action,
which tracked or anonymous card, which chance draw) and whether it is *exact*
(computed without guessing a card-dependent value): exact steps exist concretely
from every concrete state of the abstract source state.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from atout.compiler import ir

ANON = -2   # an anonymous (untracked) card
NONE = -1
FORGOT = -3  # the zone of a tracked card that no longer matters (see liveness)
DEAD = -1    # the size of a zone that no longer matters
UNKNOWN = -2  # the size of a zone the abstraction does not keep (any number of cards)
IN_DEAD = -4  # the zone of a tracked card that lies in a zone no phase reads for the rest of the deal


def _inc(sizes: list, i: int, k: int) -> None:
    """Add k cards to zone i (an unknown or dead size stays so)."""
    if sizes[i] >= 0:
        sizes[i] += k
MATCH_OVER = "<match over>"
ERROR = "<rule error>"


@dataclass(frozen=True)
class Interval:
    """An abstract int: every value in lo..hi (None: unbounded)."""
    lo: int | None
    hi: int | None

    def __repr__(self) -> str:
        return f"[{'' if self.lo is None else self.lo}..{'' if self.hi is None else self.hi}]"


TOP_INT = Interval(None, None)


def _lo(v):
    return v.lo if isinstance(v, Interval) else v


def _hi(v):
    return v.hi if isinstance(v, Interval) else v


def _add(a, b, sign=1):
    if not isinstance(a, Interval) and not isinstance(b, Interval):
        return a + sign * b
    alo, ahi, blo, bhi = _lo(a), _hi(a), _lo(b), _hi(b)
    if sign < 0:
        blo, bhi = (None if bhi is None else -bhi), (None if blo is None else -blo)
    lo = None if alo is None or blo is None else alo + blo
    hi = None if ahi is None or bhi is None else ahi + bhi
    return Interval(lo, hi)


def _cmp(op: str, a, b) -> list[bool]:
    """Possible outcomes of ``a op b`` for abstract ints (or any exact values)."""
    if not isinstance(a, Interval) and not isinstance(b, Interval):
        return [_CMP[op](a, b)]
    alo, ahi, blo, bhi = _lo(a), _hi(a), _lo(b), _hi(b)

    def lt(x_hi, y_lo):  # surely x < y
        return x_hi is not None and y_lo is not None and x_hi < y_lo

    if op in ("==", "!="):
        disjoint = lt(ahi, blo) or lt(bhi, alo)
        if disjoint:
            return [op == "!="]
        return [True, False]
    if op == "<":
        if lt(ahi, blo):
            return [True]
        if bhi is not None and alo is not None and alo >= bhi:
            return [False]
        return [True, False]
    if op == "<=":
        if ahi is not None and blo is not None and ahi <= blo:
            return [True]
        if lt(bhi, alo):
            return [False]
        return [True, False]
    if op == ">":
        return _cmp("<", b, a)
    if op == ">=":
        return _cmp("<=", b, a)
    raise ValueError(op)  # pragma: no cover


_CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _uniq(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


@dataclass
class Work:
    """A mutable abstract state while a step runs; ``key()`` freezes it."""
    phase: str | None
    sel: tuple | None
    sizes: list[int]
    tracked: list[int]          # zone slot of each tracked card
    vars: dict
    dealer: int
    trick: tuple                # (trick_number, played ((player, card), ...), to_play, leader, tricks_won, last_winner)
    gains: tuple                # per-deal gain of the watched match variables: ((g_p for p) for each var)
    revealed: frozenset = frozenset()
    exact: bool = True
    events: list = field(default_factory=list)
    actor: int = -1

    def copy(self) -> "Work":
        return Work(self.phase, self.sel, self.sizes[:], self.tracked[:],
                    {k: (v[:] if v.__class__ is list else v) for k, v in self.vars.items()},
                    self.dealer, self.trick, self.gains, self.revealed, self.exact, list(self.events), self.actor)

    def key(self) -> tuple:
        return (self.phase, self.sel, tuple(self.sizes), tuple(self.tracked),
                tuple(tuple(v) if v.__class__ is list else v for v in self.vars.values()),
                self.dealer, self.trick, self.gains, self.revealed)


class Abstraction:
    """The abstract semantics of one compiled game.

    ``track``: card ids whose zone is tracked exactly; ``watch``: names of per-player int match
    variables whose per-deal gain is tracked (for ``deal_bound`` properties); ``exact_match_vars``:
    match variables kept exact instead of being forgotten (for small control variables).
    """

    def __init__(self, game, track: tuple[int, ...] = (), watch: tuple[str, ...] = (),
                 exact_match_vars: tuple[str, ...] = (), extra_zones=(), extra_vars=(), blur=(),
                 extra_phases=None):
        self.game = game          # engine Game (zone layout, deck facts)
        self.g = game.ir
        self.track = tuple(track)
        self.track_index = {c: i for i, c in enumerate(self.track)}
        self.watch = tuple(watch)
        self.blur = frozenset(blur)  # zones whose size is forgotten at each decision (property-directed)
        self.suit_vars = sorted(v.name for v in game.ir.vars if v.type.kind == "suit" and v.per is None)
        self.card_vars = sorted(v.name for v in game.ir.vars if v.type.kind == "card" and v.per is None)
        self.n = game.players
        self.nr = game.nranks
        ranks_tracked = {}
        for c in self.track:
            ranks_tracked.setdefault(game.strength_of[c], set()).add(game.suit_of[c])
        nsuits = len(self.g.deck.suits)
        self.full_ranks = {r for r, s in ranks_tracked.items() if len(s) == nsuits}
        self.anon_ranks = [r for r in range(self.nr) if r not in self.full_ranks]
        self.match_vars = {v.name for v in self.g.vars if v.scope == "match" and v.name not in exact_match_vars}
        self.var_types = {v.name: v for v in self.g.vars}
        self.threshold = {k: v for k, v in _thresholds(self.g).items()
                          if any(x.name == k and x.type.kind == "int" for x in self.g.vars)}
        self.gain_threshold = _gain_threshold(self.g)
        self.hidden = game.hidden_zone
        self.slots = game.zone_slots
        from .liveness import Liveness, card_literals
        self.live = Liveness(self.g, extra_zones=set(extra_zones), extra_vars=set(extra_vars),
                             extra_phases=extra_phases)
        self.literals = card_literals(self.g)
        self.deal_var_names = [v.name for v in self.g.vars if v.scope == "deal"]
        self.symmetric = self._is_suit_symmetric()
        self.rotational = self._is_rotation_symmetric()
        # With many tricks, which player won each is too much to enumerate: keep only the total.
        self.blur_tricks = any(ph.trick is not None and isinstance(ph.trick.count, ir.Const) and
                               ph.trick.count.value >= 8 for ph in self.g.phases)
        from .liveness import subexprs as _sub
        self.ends_reads = {x.name for x in _sub(self.g.match.ends_when) if isinstance(x, ir.VarRef)}
        self.score_sources: dict = {}  # (table, valuation) -> (source key, move) that first reached it
        self.current = None  # (source key, move) of the step being computed (set by the explorer)
        self.seen_true: set[int] = set()    # ids of guards and conditions that held in some abstract state
        self.seen_false: set[int] = set()
        self.score_outcomes: dict[str, set] = {}  # table -> abstract valuations at 'score'

    def _is_suit_symmetric(self) -> bool:
        """True when no rule names a particular suit (or card), so relabelling suits maps runs to runs."""
        from .liveness import rule_expressions, subexprs
        g = self.g
        if g.deck.colors or any(ph.trick is not None and getattr(ph.trick, "bowers", None) is not None
                                for ph in g.phases):
            return False
        exprs = rule_expressions(g, first_dealer=True)
        for e in exprs:
            for x in subexprs(e):
                if isinstance(x, ir.Const) and x.type.kind in ("suit", "card") and x.value >= 0:
                    return False
        return True

    def _is_rotation_symmetric(self) -> bool:
        """True when no rule names a particular seat (other than the first dealer) and there are no fixed sides:
        turning the table maps runs to runs, so every state can be seen from the dealer's seat 0."""
        from .liveness import rule_expressions, subexprs
        g = self.g
        if g.sides:
            return False
        if any(a.param is not None and a.param.kind == "domain" and a.param.type.kind == "player"
               for ph in g.phases for a in ph.actions):
            return False
        exprs = rule_expressions(g, first_dealer=False)
        for e in exprs:
            for x in subexprs(e):
                if isinstance(x, ir.Const) and x.type.kind == "player" and x.value >= 0:
                    return False
                if isinstance(x, ir.Call) and x.fn in ("seat", "side"):
                    return False
                if isinstance(x, ir.Index) and isinstance(x.index, ir.Const) and not isinstance(x.index.value, bool):
                    return False
        return True

    def rotate(self, w: Work) -> int:
        """Turn the table so that the dealer sits in seat 0; returns the rotation r (seat s becomes s - r)."""
        r = w.dealer
        if not self.rotational or r <= 0:
            return 0
        n = self.n

        def pl(p):
            return (p - r) % n if isinstance(p, int) and not isinstance(p, bool) and p >= 0 else p

        w.dealer = 0
        for v in self.g.vars:
            val = w.vars[v.name]
            if v.per == "player":
                val = [val[(i + r) % n] for i in range(n)]
                if v.type.kind == "player":
                    val = [pl(x) for x in val]
                w.vars[v.name] = val
            elif v.type.kind == "player":
                w.vars[v.name] = pl(val)
        slot_map = self.slot_rotation(r)
        sizes = list(w.sizes)
        for old, new in enumerate(slot_map):
            sizes[new] = w.sizes[old]
        w.sizes = sizes
        w.tracked = [slot_map[z] if z >= 0 else z for z in w.tracked]
        w.revealed = frozenset(slot_map[z] for z in w.revealed)
        tn, played, to_play, leader, won, last = w.trick
        if won and won[0] not in ("T", "S"):
            won = tuple(won[(i + r) % n] for i in range(n))
        w.trick = (tn, tuple((pl(p), c) for p, c in played), pl(to_play), pl(leader), won, pl(last))
        w.gains = tuple(tuple(g[(i + r) % n] for i in range(n)) if len(g) == n else g for g in w.gains)
        w.actor = pl(w.actor)
        return r

    def slot_rotation(self, r: int) -> list[int]:
        """Where each zone slot goes when seat s becomes s - r."""
        n = self.n
        out = list(range(len(self.slots)))
        for z in self.g.zones:
            if z.per_player:
                b = self.game.zone_base[z.name]
                for i in range(n):
                    out[b + i] = b + (i - r) % n
        return out

    def canonical_suits(self, w: Work) -> tuple | None:
        """Relabel suits so that suit variables take the smallest labels first; returns the permutation
        (old suit -> new suit) applied, or None when the labels were already canonical or the game names a suit."""
        if not self.symmetric:
            return None
        order = []
        for name in self.suit_vars:
            v = w.vars[name]
            if isinstance(v, int) and v >= 0 and v not in order:
                order.append(v)
        ns = len(self.g.deck.suits)
        order += [s_ for s_ in range(ns) if s_ not in order]
        perm = [0] * ns
        for new, old in enumerate(order):
            perm[old] = new
        if all(perm[i] == i for i in range(ns)):
            return None
        perm = tuple(perm)
        for name in self.suit_vars:
            v = w.vars[name]
            if isinstance(v, int) and v >= 0:
                w.vars[name] = perm[v]
        if self.track:
            nr = self.nr
            new = list(w.tracked)
            for i, c in enumerate(self.track):
                s_, r = divmod(c, nr)
                new[self.track_index[perm[s_] * nr + r]] = w.tracked[i]
            w.tracked = new

            def pc(c):
                if c is None or c < 0:
                    return c
                s_, r = divmod(c, nr)
                return perm[s_] * nr + r
            tn, played, to_play, leader, won, last = w.trick
            w.trick = (tn, tuple((p, pc(c)) for p, c in played), to_play, leader, won, last)
            for name in self.card_vars:
                v = w.vars[name]
                if isinstance(v, int):
                    w.vars[name] = pc(v)
        return perm

    def no_tricks(self) -> tuple:
        """Tricks won at the start of a deal: per player, or only the total (``("T", n)``) for long deals."""
        if not self.blur_tricks:
            return (0,) * self.n
        if self.g.sides:
            return ("S", (0,) * len(self.g.sides))
        return ("T", 0)

    def forget(self, w: Work) -> None:
        """Replace what no phase reachable in this deal reads by canonical values (see liveness)."""
        if w.phase is None or w.phase not in self.live.zones:
            return
        L = self.live
        zones = L.zones[w.phase]
        for i, slot in enumerate(self.slots):
            if slot.name not in zones:
                w.sizes[i] = DEAD
            elif slot.name in self.blur and w.sizes[i] >= 0:
                w.sizes[i] = UNKNOWN
        vars_ = L.vars[w.phase]
        for v in self.g.vars:
            if v.scope == "deal" and v.name not in vars_:
                w.vars[v.name] = self._init_value(v, w)
        if self.track:
            live = self._live_cards(w)
            w.tracked = [z if c in live else FORGOT for c, z in zip(self.track, w.tracked)]
            # a tracked card in a dead zone stays there until the next deal (nothing moves cards out of a
            # zone that no phase reads): which dead zone no longer matters
            w.tracked = [z if z < 0 or w.sizes[z] != DEAD else IN_DEAD for z in w.tracked]

    def _live_cards(self, w: Work) -> set[int]:
        live = set()
        after = self.live.assigned_after[w.phase]
        for rank, suit in self.literals:
            if suit is None:
                live.add(rank.value)
                continue
            ranks = self.eval(rank, w, {}) if not _reads_locals(rank) else list(range(self.nr))
            if isinstance(suit, ir.VarRef) and suit.name not in after or isinstance(suit, ir.Const):
                suits = self.eval(suit, w, {})
            else:
                suits = list(range(len(self.g.deck.suits)))
            for r in ranks:
                for s_ in suits:
                    if isinstance(r, int) and isinstance(s_, int) and r >= 0 and s_ >= 0:
                        live.add(s_ * self.nr + (self.nr - 1 - r))
        return live

    # -- initial states ---------------------------------------------------------------------
    def deal_starts(self) -> list[Work]:
        """Abstract states at the start of a deal, one per possible dealer (match variables forgotten)."""
        out = []
        g = self.game
        for dealer in range(self.n):
            sizes = [0] * len(g.zone_slots)
            sizes[g.home_zone] = g.num_cards
            w = Work(None, None, sizes, [g.home_zone] * len(self.track), {}, dealer,
                     (0, (), -1, -1, self.no_tricks(), -1), tuple((0,) * self.n for _ in self.watch))
            for v in self.g.vars:
                w.vars[v.name] = self._init_value(v, w)
            out.append(w)
        return out

    def _init_value(self, v: ir.Var, w: Work):
        if v.name in self.match_vars:
            val = self._top_of(v.type)
        else:
            vals = self.eval(v.init, w, {})
            val = vals[0] if len(vals) == 1 else self._top_of(v.type)
            val = self._widen(v.name, val)
        if v.per == "player":
            return [val] * self.n
        if v.per == "side":
            return [val] * max(1, len(self.g.sides))
        return val

    def _top_of(self, t: ir.Type):
        if t.kind == "int":
            return Interval(t.low, t.high)
        return ("top", t.kind, t.enum)

    # -- expressions ---------------------------------------------------------------------------
    def domain(self, t: ir.Type) -> list:
        if t.kind == "bool":
            return [True, False]
        if t.kind == "player":
            return list(range(self.n)) + [NONE]
        if t.kind == "suit":
            return list(range(len(self.g.deck.suits))) + [NONE]
        if t.kind == "rank":
            return list(range(self.nr)) + [NONE]
        if t.kind == "enum":
            e = next(e for e in self.g.enums if e.name == t.enum)
            return list(range(len(e.values))) + [NONE]
        if t.kind == "card":
            return list(self.track) + [ANON, NONE]
        raise ValueError(t)

    def _expand(self, v, t: ir.Type | None = None) -> list:
        """A stored value as the list of exact values it stands for (ints stay intervals)."""
        if isinstance(v, tuple) and v and v[0] == "top":
            kind, enum = v[1], v[2]
            return self.domain(ir.Type(kind, enum=enum))
        return [v]

    def eval(self, e: ir.Expr, w: Work, env: dict) -> list:  # noqa: C901
        """Possible values of ``e`` in ``w`` (a list; more than one means the abstraction cannot tell)."""
        cls = e.__class__
        if cls is ir.Const:
            return [e.value]
        if cls is ir.BinOp:
            return self._binop(e, w, env)
        if cls is ir.Call:
            return self._call(e, w, env)
        if isinstance(e, ir.Local):
            return self._expand(env[e.name])
        if isinstance(e, ir.VarRef):
            return self._expand(w.vars[e.name])
        if isinstance(e, ir.Builtin):
            return self._builtin(e.name, w)
        if isinstance(e, ir.Index):
            arr = w.vars[e.base.name]
            out = []
            for i in self.eval(e.index, w, env):
                if isinstance(i, Interval):
                    for x in arr:
                        out.extend(self._expand(x))
                elif 0 <= i < len(arr):
                    out.extend(self._expand(arr[i]))
            return _uniq(out) or [TOP_INT]
        if isinstance(e, ir.Not):
            return _uniq([not x for x in self.eval(e.operand, w, env)])
        if isinstance(e, ir.Neg):
            return _uniq([_add(0, x, -1) for x in self.eval(e.operand, w, env)])
        if isinstance(e, ir.Cond):
            out = []
            for t in self.eval(e.test, w, env):
                out.extend(self.eval(e.then if t else e.orelse, w, env))
            return _uniq(out)
        if isinstance(e, ir.InSet):
            items = [self.eval(i, w, env) for i in e.items]
            out = []
            for v in self.eval(e.value, w, env):
                can_true = any(True in self._compare("==", v, it) for alts in items for it in alts)
                can_false = all(any(False in self._compare("==", v, it) for it in alts) for alts in items)
                if can_true:
                    out.append(True)
                if can_false:
                    out.append(False)
            return _uniq(out)
        if isinstance(e, ir.BinOp):
            return self._binop(e, w, env)
        if isinstance(e, ir.Call):
            return self._call(e, w, env)
        if isinstance(e, ir.Quant):
            return self._quant(e, w, env)
        if isinstance(e, ir.NextPlayer):
            out = []
            for start in self.eval(e.after, w, env):
                if not isinstance(start, int) or start < 0:
                    out.append(NONE)
                    continue
                decided = False
                for k in range(1, self.n + 1):
                    p = (start + k) % self.n
                    vals = self.eval(e.cond, w, {**env, e.var: p})
                    if True in vals:
                        out.append(p)
                    if vals == [True]:
                        decided = True
                        break
                if not decided:
                    out.append(NONE)
            return _uniq(out)
        raise TypeError(type(e))  # pragma: no cover

    def _builtin(self, name: str, w: Work) -> list:
        tn, played, to_play, leader, won, last = w.trick
        if name == "dealer":
            return [w.dealer]
        if name == "eldest":
            return [(w.dealer + 1) % self.n]
        if name == "actor":
            return [w.actor]
        if name == "leader":
            return [leader]
        if name == "winner":
            return [last]
        if name == "trick_number":
            return [tn]
        if name == "led_suit":
            if not played:
                return [NONE]
            return self._suits_of(played[0][1])
        if name == "deal_number":
            return [Interval(0, None)]
        raise ValueError(name)  # pragma: no cover

    def _suits_of(self, c) -> list:
        if c == NONE:
            return [NONE]
        if c == ANON:
            return list(range(len(self.g.deck.suits)))
        return [self.game.suit_of[c]]

    def _ranks_of(self, c, w: Work | None = None) -> list:
        if c == NONE:
            return [NONE]
        if c == ANON:
            if w is not None and FORGOT in w.tracked:
                return list(range(self.nr))
            return list(self.anon_ranks)
        return [self.game.strength_of[c]]

    def zone_slots(self, e: ir.Expr, w: Work, env: dict) -> list[int]:
        if isinstance(e, ir.ZoneRef):
            return [self.game.zone_base[e.name]]
        base = self.game.zone_base[e.base.name]
        return [base + p for p in self.eval(e.index, w, env) if isinstance(p, int) and 0 <= p < self.n]

    def cards_in(self, w: Work, slot: int) -> tuple[list[int], int]:
        """(tracked cards in the zone, number of anonymous cards in it)."""
        tr = [c for c, z in zip(self.track, w.tracked) if z == slot]
        size = w.sizes[slot]
        if size < 0:
            return tr, UNKNOWN
        return tr, size - len(tr)

    def _call(self, e: ir.Call, w: Work, env: dict) -> list:  # noqa: C901
        fn = e.fn
        n = self.n
        if fn == "size":
            return _uniq([w.sizes[z] if w.sizes[z] >= 0 else Interval(0, None)
                          for z in self.zone_slots(e.args[0], w, env)])
        if fn == "top":
            out = []
            for z in self.zone_slots(e.args[0], w, env):
                tr, anon = self.cards_in(w, z)
                out.extend(tr)
                if anon:
                    out.append(ANON)
                if not tr and not anon:
                    out.append(NONE)
            return _uniq(out)
        if fn == "has":
            out = []
            for z in self.zone_slots(e.args[0], w, env):
                tr, anon = self.cards_in(w, z)
                for c in self.eval(e.args[1], w, env):
                    if c == NONE:
                        out.append(False)
                    elif c == ANON:
                        out.extend([True, False] if anon else [False])
                    elif c in self.track_index and w.tracked[self.track_index[c]] != FORGOT:
                        out.append(w.tracked[self.track_index[c]] == z)
                    else:
                        out.extend([True, False] if anon else [False])
            return _uniq(out)
        if fn in ("total", "max", "min"):
            arr = w.vars[e.args[0].name]
            vals = [x for x in arr]
            if any(isinstance(x, (Interval, tuple)) for x in vals):
                if fn == "total":
                    acc = 0
                    for x in vals:
                        acc = _add(acc, x if not isinstance(x, tuple) else TOP_INT)
                    return [acc]
                return [TOP_INT]
            return [{"total": sum, "max": max, "min": min}[fn](vals)]
        if fn == "card":
            out = []
            for r in self.eval(e.args[0], w, env):
                for s in self.eval(e.args[1], w, env):
                    if r == NONE or s == NONE:
                        out.append(NONE)
                        continue
                    c = s * self.nr + (self.nr - 1 - r)
                    out.append(c if c in self.track_index else ANON)
            return _uniq(out)
        if fn == "suit":
            return _uniq([s for c in self.eval(e.args[0], w, env) for s in self._suits_of(c)])
        if fn == "rank":
            return _uniq([r for c in self.eval(e.args[0], w, env) for r in self._ranks_of(c, w)])
        if fn == "tricks":
            won = w.trick[4]
            if won and won[0] == "T":  # only the total is kept (see blur_tricks)
                return [Interval(0, won[1])]
            if won and won[0] == "S":  # only each side's total is kept
                return _uniq([Interval(0, won[1][self.game.side_of[p]]) for p in self.eval(e.args[0], w, env)
                              if isinstance(p, int) and 0 <= p < n])
            return _uniq([won[p] for p in self.eval(e.args[0], w, env) if isinstance(p, int) and 0 <= p < n])
        if fn == "played":
            ps = [p for p, _ in w.trick[1]]
            return _uniq([p in ps for p in self.eval(e.args[0], w, env)])
        vals = self.eval(e.args[0], w, env) if e.args else []
        if fn == "left":
            return _uniq([(p + 1) % n if isinstance(p, int) and p >= 0 else NONE for p in vals])
        if fn == "right":
            return _uniq([(p - 1) % n if isinstance(p, int) and p >= 0 else NONE for p in vals])
        if fn == "partner":
            return _uniq([self.game.partner[p] if isinstance(p, int) and p >= 0 else NONE for p in vals])
        if fn == "side":
            return _uniq([self.game.side_of[p] if isinstance(p, int) and p >= 0 else NONE for p in vals])
        if fn == "abs":
            return _uniq([abs(v) if not isinstance(v, Interval) else TOP_INT for v in vals])
        if fn == "color":
            return _uniq([self.game.color_of.get(s, -1) for s in vals])
        if fn == "seat":
            return _uniq([v % n if not isinstance(v, Interval) else p for v in vals for p in
                          ([0] if not isinstance(v, Interval) else range(n))])
        if fn == "ord":
            return vals
        raise ValueError(fn)  # pragma: no cover

    def _binop(self, e: ir.BinOp, w: Work, env: dict) -> list:
        op = e.op
        won = w.trick[4]
        if op == "+" and won and won[0] == "S":
            side = self._side_sum(e)
            if side is not None:   # tricks(a) + tricks(b) of the two partners: the side's exact total
                return [won[1][side]]
        if op in ("and", "or"):
            out = []
            for a in self.eval(e.left, w, env):
                if op == "and" and not a:
                    out.append(False)
                elif op == "or" and a:
                    out.append(True)
                else:
                    out.extend(self.eval(e.right, w, env))
            return _uniq(out)
        left = self.eval(e.left, w, env)
        right = self.eval(e.right, w, env)
        out = []
        for a in left:
            for b in right:
                if op == "+":
                    out.append(_add(a, b))
                elif op == "-":
                    out.append(_add(a, b, -1))
                elif op in ("*", "/", "%"):
                    if isinstance(a, Interval) or isinstance(b, Interval):
                        out.append(TOP_INT)
                    elif op == "*":
                        out.append(a * b)
                    elif b == 0:
                        out.append(TOP_INT)
                    else:
                        out.append(a // b if op == "/" else a % b)
                else:
                    out.extend(self._compare(op, a, b))
        return _uniq(out)

    def _side_sum(self, e: ir.BinOp):
        a, b = e.left, e.right
        if all(isinstance(x, ir.Call) and x.fn == "tricks" and isinstance(x.args[0], ir.Const) for x in (a, b)):
            pa, pb = a.args[0].value, b.args[0].value
            side_of = self.game.side_of
            if pa != pb and side_of[pa] == side_of[pb] and len(self.g.sides[side_of[pa]]) == 2:
                return side_of[pa]
        return None

    def _compare(self, op: str, a, b) -> list[bool]:
        if a == ANON or b == ANON:
            if op in ("==", "!="):
                return [True, False] if (a == ANON and b in (ANON,) or a == ANON and b != NONE and
                                         b not in self.track_index or b == ANON and a != NONE and
                                         a not in self.track_index) else [op == "!="]
            return [True, False]
        return _cmp(op, a, b)

    def _quant(self, e: ir.Quant, w: Work, env: dict) -> list:
        if e.domain is None:
            results = []
            for p in range(self.n):
                inner = dict(env)
                inner[e.var] = p
                results.append(self.eval(e.body, w, inner))
            if e.kind == "any":
                if any(r == [True] for r in results):
                    return [True]
                return _uniq([True, False] if any(True in r for r in results) else [False])
            if e.kind == "all":
                if any(r == [False] for r in results):
                    return [False]
                return _uniq([True, False] if any(False in r for r in results) else [True])
            if e.kind == "sum":
                won = w.trick[4]
                if won and won[0] == "T" and isinstance(e.body, ir.Call) and e.body.fn == "tricks" and \
                        isinstance(e.body.args[0], ir.Local) and e.body.args[0].name == e.var:
                    return [won[1]]  # the total of tricks won is exact even when the split is not kept
                acc = 0
                for r in results:
                    acc = _add(acc, r[0]) if len(r) == 1 else _add(acc, TOP_INT)
                return [acc]
            lo = sum(1 for r in results if r == [True])
            hi = sum(1 for r in results if True in r)
            return [lo] if lo == hi else [Interval(lo, hi)]
        # over the cards of a zone: tracked cards exactly, anonymous ones unknown
        results_lo, results_hi = 0, 0
        anys, alls = [], []
        for z in self.zone_slots(e.domain, w, env):
            tr, anon = self.cards_in(w, z)
            vals = []
            for c in tr + ([ANON] if anon else []):
                inner = dict(env)
                inner[e.var] = c
                vals.append((c, self.eval(e.body, w, inner)))
            for c, r in vals:
                k = anon if c == ANON else 1
                if e.kind == "count":
                    results_lo += k if r == [True] else 0
                    results_hi += k if True in r else 0
                anys.append(True in r)
                alls.append(r == [True])
            if e.kind == "sum":
                return [TOP_INT]
        if e.kind == "count":
            return [results_lo] if results_lo == results_hi else [Interval(results_lo, results_hi)]
        if e.kind == "any":
            return [True, False] if any(anys) else [False]
        return [True] if all(alls) else [True, False]

    # -- statements -----------------------------------------------------------------------------
    def _widen(self, name: str, v):
        t = self.threshold.get(name)
        if t is None:
            return v
        if isinstance(v, Interval):
            lo, hi = v.lo, v.hi
            if lo is not None and lo > t + 1:
                lo = t + 1
            if hi is not None and hi > t + 1:
                hi = None
            if lo is not None and lo < -t - 2:
                lo = None
            if hi is not None and hi < -t - 2:
                hi = -t - 2
            return Interval(lo, hi)
        if not isinstance(v, int) or isinstance(v, bool):
            return v
        if v > t:
            return Interval(t + 1, None)
        if v < -t - 1:
            return Interval(None, -t - 2)
        return v

    def run(self, stmts, w: Work, env: dict) -> list[tuple[Work, str | None]]:
        """Run a block; returns [(state, exit)] with exit None (fell through), 'goto:P', 'end' or 'over'/'error:...'."""
        results = [(w, None)]
        for s in stmts:
            nxt = []
            for st, ex in results:
                if ex is not None:
                    nxt.append((st, ex))
                else:
                    nxt.extend(self._stmt(s, st, env))
            if len(nxt) > 1:  # branches that end in the same abstract state are one outcome
                merged = {}
                for st, ex in nxt:
                    merged.setdefault((st.key(), ex, st.exact), (st, ex))
                nxt = list(merged.values())
            results = nxt
        return results

    def _fork(self, w: Work, values: list, exact: bool = True):
        """Copies of ``w`` for each value (inexact when there is more than one)."""
        if len(values) == 1:
            return [(w, values[0])]
        out = []
        for v in values:
            c = w.copy()
            c.exact = False
            out.append((c, v))
        return out

    def _stmt(self, s: ir.Stmt, w: Work, env: dict) -> list:  # noqa: C901
        if isinstance(s, ir.Assign):
            return self._assign(s, w, env)
        if isinstance(s, ir.If):
            return self._if(s.branches, s.orelse, w, env)
        if isinstance(s, ir.For):
            results = [(w, None)]
            for p in range(self.n):
                inner = dict(env)
                inner[s.var] = p
                nxt = []
                for st, ex in results:
                    nxt.extend([(st, ex)] if ex is not None else self.run(s.body, st, inner))
                results = nxt
            return results
        if isinstance(s, ir.Goto):
            return [(w, "goto:" + s.phase)]
        if isinstance(s, ir.EndDeal):
            return [(w, "end")]
        if isinstance(s, ir.Score):
            rows = self.g.table(s.table).rows
            val = self._valuation(w)
            self.score_outcomes.setdefault(s.table, set()).add(val)
            self.score_sources.setdefault((s.table, val), self.current)
            results = [(w, None)]
            for row in rows:
                nxt = []
                for st, ex in results:
                    if ex is not None:
                        nxt.append((st, ex))
                        continue
                    vals = self.eval(row.guard, st, env)
                    self.note(row.guard, vals)
                    for st2, val in self._fork(st, vals):
                        nxt.extend(self.run(row.body, st2, env) if val else [(st2, None)])
                results = nxt
            return results
        if isinstance(s, (ir.Shuffle,)):
            return [(w, None)]
        if isinstance(s, ir.Reveal):
            out = []
            for st, z in self._fork(w, self.zone_slots(s.zone, w, env)):
                st.revealed = st.revealed | {z}
                out.append((st, None))
            return out
        if isinstance(s, ir.Gather):
            out = []
            for st, dst in self._fork(w, self.zone_slots(s.zone, w, env)):
                st.sizes = [0] * len(st.sizes)
                st.sizes[dst] = self.game.num_cards
                st.tracked = [dst] * len(st.tracked)
                out.append((st, None))
            return out
        if isinstance(s, ir.Move):
            return self._move(s, w, env)
        if isinstance(s, ir.Deal):
            return self._deal(s, w, env)
        raise TypeError(type(s))  # pragma: no cover

    def note(self, e: ir.Expr, vals: list) -> None:
        if True in vals:
            self.seen_true.add(id(e))
        if False in vals:
            self.seen_false.add(id(e))

    def _valuation(self, w: Work) -> tuple:
        """What a scoring table may read: deal variables, tricks won, dealer (match variables are unknown)."""
        return (tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in sorted(w.vars.items())),
                w.trick[4], w.dealer)

    def _if(self, branches, orelse, w: Work, env: dict) -> list:
        if not branches:
            return self.run(orelse, w, env)
        (cond, body), rest = branches[0], branches[1:]
        out = []
        vals = self.eval(cond, w, env)
        self.note(cond, vals)
        for st, val in self._fork(w, vals):
            out.extend(self.run(body, st, env) if val else self._if(rest, orelse, st, env))
        return out

    def _assign(self, s: ir.Assign, w: Work, env: dict) -> list:
        out = []
        values = self.eval(s.value, w, env)
        idxs = self.eval(s.index, w, env) if s.index is not None else [None]
        for st, idx in self._fork(w, idxs):
            if isinstance(idx, Interval):
                st.exact = False
                idx_list = list(range(len(st.vars[s.var])))
            else:
                idx_list = [idx]
            for st2, val in self._fork(st, values):
                for i in idx_list:
                    st3 = st2.copy() if len(idx_list) > 1 else st2
                    self._assign_one(s, st3, i, val)
                    out.extend(self._check_over(st3, s.var))
        return out

    def _assign_one(self, s: ir.Assign, w: Work, i, val) -> None:
        name = s.var
        cur = w.vars[name][i] if i is not None else w.vars[name]
        if isinstance(cur, tuple) and cur and cur[0] == "top":
            cur = TOP_INT
        new = val
        if s.op == "+=":
            new = _add(cur, val)
        elif s.op == "-=":
            new = _add(cur, val, -1)
        if name in self.watch and i is not None:
            k = self.watch.index(name)
            delta = val if s.op == "+=" else (_add(0, val, -1) if s.op == "-=" else TOP_INT)
            gains = list(w.gains)
            row = list(gains[k])
            row[i] = _add(row[i], delta) if not isinstance(row[i], Interval) or True else row[i]
            gains[k] = tuple(row)
            w.gains = tuple(gains)
        if name in self.match_vars:
            v = self.var_types[name]
            new = self._top_of(v.type)
        else:
            new = self._widen(name, new)
        if i is not None:
            w.vars[name][i] = new
        else:
            w.vars[name] = new

    def _check_over(self, w: Work, var: str | None = None) -> list:
        """The match may end after an assignment: fork into 'over' when ``ends when`` may hold."""
        if var is not None and var not in self.ends_reads:
            return [(w, None)]
        vals = self.eval(self.g.match.ends_when, w, {})
        out = []
        for st, v in self._fork(w, vals):
            out.append((st, "over") if v else (st, None))
        return out

    def _move(self, s: ir.Move, w: Work, env: dict) -> list:
        out = []
        for st, src in self._fork(w, self.zone_slots(s.source, w, env)):
            for st2, dst in self._fork(st, self.zone_slots(s.dest, st, env)):
                if s.count is None:
                    if st2.sizes[src] < 0 or st2.sizes[dst] < 0:
                        if st2.sizes[src] != 0:
                            st2.sizes[dst] = UNKNOWN if st2.sizes[dst] != DEAD else DEAD
                    else:
                        st2.sizes[dst] += st2.sizes[src]
                    st2.sizes[src] = 0
                    st2.tracked = [dst if z == src else z for z in st2.tracked]
                    out.append((st2, None))
                    continue
                for st3, k in self._fork(st2, self.eval(s.count, st2, env)):
                    if isinstance(k, Interval):
                        out.append((st3, "error:a draw of an unknown number of cards"))
                        continue
                    out.extend(self._draw(st3, src, [dst] * k))
        return out

    def _deal(self, s: ir.Deal, w: Work, env: dict) -> list:
        out = []
        base = self.game.zone_base[s.dest]
        for st, src in self._fork(w, self.zone_slots(s.source, w, env)):
            for st2, start in self._fork(st, self.eval(s.starting, st, env)):
                dests_options = [[]]
                for pk in s.packets:
                    sizes = [k for k in self.eval(pk, st2, env) if not isinstance(k, Interval)]
                    dests_options = [d + [base + (start + j) % self.n for j in range(self.n) for _ in range(k)]
                                     for d in dests_options for k in sizes]
                for dests in dests_options:
                    st3 = st2.copy() if len(dests_options) > 1 else st2
                    out.extend(self._draw(st3, src, dests))
        return out

    def _draw(self, w: Work, src: int, dests: list[int]) -> list:
        """Move one card per destination from ``src``: chance when ``src`` is hidden (each tracked card or an
        anonymous one), the top cards otherwise (any of the zone's cards: order is not tracked)."""
        extra = []
        if w.sizes[src] == UNKNOWN:  # the abstraction does not know: the draw may also find too few cards
            bad = w.copy()
            bad.exact = False
            extra = [(bad, f"error:a draw of {len(dests)} cards may find too few in {self.slots[src].label}")]
        elif len(dests) > w.sizes[src]:
            return [(w, f"error:a draw of {len(dests)} cards finds only {w.sizes[src]} in "
                        f"{self.slots[src].label}")]
        states = [w]
        for d in dests:
            nxt = []
            for st in states:
                tr, anon = self.cards_in(st, src)
                options = [("card", c) for c in tr] + ([("anon", None)] if anon else [])
                chance = self.hidden[src]
                for kind, c in options:
                    st2 = st.copy() if len(options) > 1 else st
                    if len(options) > 1 and not chance:
                        st2.exact = False
                    _inc(st2.sizes, src, -1)
                    _inc(st2.sizes, d, 1)
                    if kind == "card":
                        st2.tracked[self.track_index[c]] = d
                    st2.events.append(("draw", src, d, c if kind == "card" else ANON))
                    nxt.append(st2)
            merged = {}
            for st in nxt:  # identical abstract outcomes of different draws are one outcome
                merged.setdefault(st.key(), st)
            states = list(merged.values())
        return [(st, None) for st in states] + extra


def _reads_locals(e) -> bool:
    from .liveness import subexprs
    return any(isinstance(x, ir.Local) for x in subexprs(e))


def _gain_threshold(g: ir.Game) -> int:
    """How far a per-deal gain that a move can raise again and again is kept exact before it is widened.

    A move that changes nothing but the gains (an announcement whose guard forgets that it was made) could
    otherwise be repeated into infinitely many abstract states (see ``Explorer._add``).  The gains stay exact
    one beyond every constant of the game's ``deal_bound`` properties, so that a violation is an exact
    abstract state with a short path to replay."""
    from .liveness import subexprs
    out = 1
    for p in g.properties:
        if p.kind == "deal_bound" and p.expr is not None:
            for x in subexprs(p.expr):
                if isinstance(x, ir.Const) and isinstance(x.value, int) and not isinstance(x.value, bool):
                    out = max(out, abs(x.value) + 1)
    return out


def _widen_gain(v, t: int):
    """``v`` (an int or Interval) with every bound beyond +-t widened to infinity (an over-approximation)."""
    if isinstance(v, Interval):
        lo = None if v.lo is not None and v.lo < -t else v.lo
        hi = None if v.hi is not None and v.hi > t else v.hi
        if lo is not None and lo > t:
            lo = t + 1
        if hi is not None and hi < -t:
            hi = -t - 1
        return Interval(lo, hi)
    if isinstance(v, bool) or not isinstance(v, int):
        return v
    if v > t:
        return Interval(t + 1, None)
    if v < -t:
        return Interval(None, -t - 1)
    return v


def _thresholds(g: ir.Game) -> dict[str, int]:
    """For each int variable, the largest constant it is compared with or that bounds it."""
    out: dict[str, int] = {}

    def var_of(e):
        if isinstance(e, ir.VarRef):
            return e.name
        if isinstance(e, ir.Index) and isinstance(e.base, ir.VarRef):
            return e.base.name
        return None

    def visit(e):
        if isinstance(e, ir.BinOp):
            for a, b in ((e.left, e.right), (e.right, e.left)):
                name = var_of(a)
                if name is not None and isinstance(b, ir.Const) and isinstance(b.value, int) and \
                        not isinstance(b.value, bool):
                    out[name] = max(out.get(name, 0), abs(b.value))
            visit(e.left)
            visit(e.right)
        elif isinstance(e, ir.InSet):
            name = var_of(e.value)
            for i in e.items:
                if name is not None and isinstance(i, ir.Const) and isinstance(i.value, int):
                    out[name] = max(out.get(name, 0), abs(i.value))
            visit(e.value)
        elif isinstance(e, (ir.Not, ir.Neg)):
            visit(e.operand)
        elif isinstance(e, ir.Cond):
            visit(e.test), visit(e.then), visit(e.orelse)
        elif isinstance(e, ir.Call):
            for a in e.args:
                visit(a)
        elif isinstance(e, ir.Quant):
            visit(e.body)
        elif isinstance(e, ir.Index):
            visit(e.index)

    def visit_stmts(stmts):
        for s in stmts:
            if isinstance(s, ir.Assign):
                visit(s.value)
            elif isinstance(s, ir.If):
                for c, b in s.branches:
                    visit(c)
                    visit_stmts(b)
                visit_stmts(s.orelse)
            elif isinstance(s, ir.For):
                visit_stmts(s.body)
            elif isinstance(s, ir.Move) and s.count is not None:
                visit(s.count)

    for ph in g.phases:
        for a in ph.actions:
            visit(a.guard)
            visit_stmts(a.body)
        visit_stmts(ph.body)
        if ph.trick is not None:
            visit_stmts(ph.trick.then)
    for t in g.tables:
        for r in t.rows:
            visit(r.guard)
            visit_stmts(r.body)
    visit(g.match.ends_when)
    for v in g.vars:
        if v.type.kind == "int" and v.type.high is not None:
            out.setdefault(v.name, 0)
    for v in g.vars:
        if v.type.kind == "int" and v.name not in out:
            out[v.name] = 0
    return out

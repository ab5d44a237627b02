"""The verifier's abstract domain of the rules' machine: the finite over-approximation it explores.

The rules themselves (phases, effects, tricks, scoring, deals, rule errors) are run by
:class:`atout.engine.machine.Machine`, the same code as the engine's.  This module gives that
machine an abstract domain, :class:`AbstractState`:

* kept exactly: the control (phase, a card choice in progress, the effects in progress, the trick on
  the table, the dealer), the size of every zone, the deal-scope variables (an int is exact up to the
  largest constant it is compared with or bounded by, then an interval), and the zone of each
  *tracked* card (the cards the rules name by a literal such as ``K of trumps``, for every suit);
* forgotten: the identity of every other card (an *anonymous* card: any suit, any rank that is not
  fully tracked), the order of cards in a zone, the match-scope variables (any value of their type;
  the per-deal *gains* of the watched ones are kept instead), which card the follow rules allow (any
  card of the hand) and who wins a trick (any player who played to it).

Where the machine needs a value the abstraction does not know (a condition, a player, a card drawn),
the abstract state *chooses* (:meth:`AbstractState.choose`); the explorer (:mod:`.explore`) runs every
sequence of choices, so every concrete run of the engine is matched by a run of the abstraction and a
property that holds on every abstract state holds in the game.  A rule error of the engine is a
``RuleError`` here too: the explorer makes it an error state.  A construct the abstraction cannot
bound (a number of cards it cannot tell) raises :class:`Unsupported`, which makes every verdict that
depends on the exploration unknown, naming the construct.
"""
from __future__ import annotations

import itertools

from atout.compiler import ir
from atout.engine.evaluate import RuleError
from atout.engine.machine import RANDOM_DRAW, Machine

from .abstract_eval import AbstractEvaluator, ExprError
from .symmetry import dealer_set_in_deal, order_dependent_loop, side_number_misuse, side_turns, suit_order_read
from .values import (ANON, DEAD, DEAL_START, ERROR, FORGOT, IN_DEAD, MATCH_OVER, NONE, TOP_INT, UNKNOWN,
                     Interval, add, clamp, compare, hi_of, is_top, join, lo_of, uniq, widen, widen_gain)

__all__ = ["ANON", "DEAD", "DEAL_START", "ERROR", "FORGOT", "IN_DEAD", "MATCH_OVER", "NONE", "UNKNOWN",
           "Interval", "Abstraction", "AbstractState", "StateKey", "Unsupported", "Chooser"]

MAX_ENUMERATED_INT = 64   # an int the machine needs exactly is enumerated up to this many values


class Unsupported(Exception):
    """A construct the abstraction cannot model; the exploration stops and its verdicts are unknown."""

    def __init__(self, what: str, span=None):
        where = f" ({span.path}:{span.line})" if span is not None and getattr(span, "line", 0) else ""
        super().__init__(what + where)
        self.what = what
        self.span = span


class Chooser:
    """Replays a prefix of choices, then takes the first option of every new choice and records how many
    there were (the explorer enumerates the rest)."""

    __slots__ = ("prefix", "taken", "counts")

    def __init__(self, prefix: tuple = ()):
        self.prefix = prefix
        self.taken: list[int] = []
        self.counts: list[int] = []

    def pick(self, n: int) -> int:
        i = len(self.taken)
        k = self.prefix[i] if i < len(self.prefix) else 0
        self.taken.append(k)
        self.counts.append(n)
        return k


TRUE_AT_KEPT = 16   # source states kept per condition that held (where builtin:guards steers engine matches)
MAX_ENTRY_STARTS = 64   # distinct states an entry suffix starts in, beyond which its phase gets no relation


class Abstraction(AbstractEvaluator):
    """The abstract semantics of one compiled game (the context every :class:`AbstractState` shares).

    ``track``: card ids whose zone is tracked exactly; ``watch``: names of per-player (or per-side) int
    match variables whose per-deal gain is tracked; ``blur``: zones whose size is forgotten at each
    decision (hidden zones whose size no property needs); ``props``: the properties whose reads are kept.
    """

    def __init__(self, game, track: tuple[int, ...] = (), watch: tuple[str, ...] = (), blur=(), props=None,
                 range_errors: bool = False, rlimit: int = 20_000_000, coarse=(), assume_counters: bool = True):
        self.game = game          # engine Game (zone layout, deck facts)
        self.range_errors = range_errors
        # deal variables read only as data (liveness.data_only_vars) forgotten at every rest, as dead ones are;
        # the counters among them (see counters_of) may not leave their range on '+=': proved over the graph
        # once it is complete (explore.Explorer._check_counters), or the exploration stops
        self.coarse = frozenset(coarse)
        self.counters = counters_of(game.ir, self.coarse) if assume_counters else frozenset()
        self.counter_names = tuple(sorted(self.counters))
        self.rlimit = rlimit      # z3's resource limit for the queries of the symbolic refinements (.smt_refine)
        self.g = game.ir
        self.track = tuple(track)
        self.track_index = {c: i for i, c in enumerate(self.track)}
        self.watch = tuple(watch)
        self.blur = frozenset(blur)
        self.suit_vars = [v for v in game.ir.vars if v.type.kind == "suit"]
        self.card_vars = [v for v in game.ir.vars if v.type.kind == "card"]
        self.player_vars = [v for v in game.ir.vars if v.type.kind == "player"]
        self.n = game.players
        self.nr = game.nranks
        ranks_tracked: dict = {}
        for c in self.track:
            ranks_tracked.setdefault(game.strength_of[c], set()).add(game.suit_of[c])
        nsuits = len(self.g.deck.suits)
        self.full_ranks = {r for r, s in ranks_tracked.items() if len(s) == nsuits}
        self.anon_ranks = [r for r in range(self.nr) if r not in self.full_ranks]
        self.match_vars = {v.name for v in self.g.vars if v.scope == "match"}
        self.var_types = {v.name: v for v in self.g.vars}
        self.threshold = _thresholds(self.g)
        self.gain_threshold = _gain_threshold(self.g)
        self.hidden = game.hidden_zone
        self.slots = game.zone_slots
        self.bower_rank = next((ph.trick.bowers for ph in self.g.phases
                                if ph.trick is not None and ph.trick.bowers is not None), None)
        self.order_cards = frozenset(c for ph in self.g.phases if ph.trick is not None for c in ph.trick.trump_order)
        from .liveness import Liveness, card_literals
        self.live = Liveness(self.g, props)
        # per trick phase, the deal variables it keeps unchanged until its deal-end block reads them (not kept
        # there: liveness.frozen_at_deal_ends), and their values each time play entered the phase
        self.frozen = {ph: tuple(sorted(names)) for ph, names in self.live.frozen.items()}
        self.companions = {ph: tuple(sorted(names)) for ph, names in self.live.companions.items()}
        self.entries: dict = {ph: {} for ph in self.frozen}
        # the blocks whose last statements set the frozen variables before a goto into their phase, the
        # abstract states where those statements start, per phase, and the phases where one could not be kept
        # (.smt_refine.entry_relation)
        from .smt_refine import entry_suffixes
        self.entry_blocks = entry_suffixes(self.g, self.frozen)
        self.entry_starts: dict = {ph: {} for ph in {b[3] for b in self.entry_blocks.values()}}
        self.entry_broken: set = set()
        self.literals = card_literals(self.g)
        # 'actor' read where the engine may still hold the previous deal's (the deal start: see to_hub)
        self.actor_read_at_rest = _reads_actor_between_decisions(self.g)
        self.suits_refused = self.rotation_refused = None   # why a symmetry below is not used (a construct)
        self.side_turn = ()
        self.symmetric = self._is_suit_symmetric()
        self.rotational = self._is_rotation_symmetric()
        # With many tricks, which player won each is too much to enumerate: keep only the total.
        self.blur_tricks = any(ph.trick is not None and isinstance(ph.trick.count, ir.Const) and
                               ph.trick.count.value >= 8 for ph in self.g.phases)
        # With sides, each side's total is kept (("S", totals)), or, when only statements read how the tricks
        # split, only the total until one of them runs (see split_reads)
        self.split_reads = split_reads(self.g) if self.blur_tricks and self.g.sides else None
        self._splits: dict = {}
        # per action, the positions of the variables it sets before reading them (see killed_at)
        self._killed: dict = {}
        self.entry_start_calls = 0   # runs of record_entry_start (a move that makes one is run for itself)
        from .liveness import subexprs
        ends = list(subexprs(self.g.match.ends_when))
        self.ends_reads = {x.name for x in ends if isinstance(x, ir.VarRef)}
        self.ends_match_only = all(self.var_types[n].scope == "match" for n in self.ends_reads)
        # 'ends when' reads nothing but variables (and deal_number, which only changes when a deal ends, where
        # the machine checks it anyway): after a write to another variable it is still false.  A list of what
        # is pure, not of what is not: a construct added later (or holder(), which reads where a card lies)
        # makes it impure until it is known to be pure
        self.ends_pure = all(_pure_part(x) for x in ends)
        # a match of one deal: 'ends when' holds whenever deal_number >= 1, whatever else it reads (z3), so
        # every state before the end is in the first deal, deal_number 0, and the match ends with that deal
        self.one_deal = _one_deal(game, rlimit)
        # a match of at most MAX_EXACT_DEALS deals whose rules read deal_number (a hand that shrinks each deal):
        # deal_number is kept exactly, else the rules would run with every deal's number in every deal
        self.exact_deals = not self.one_deal and _exact_deals(game, rlimit)
        self.score_sources: dict = {}  # (table, valuation) -> (source key, move) that first reached it
        self.current = None  # (source key, move) of the step being computed (set by the explorer)
        self.seen_true: set[int] = set()    # ids of guards and conditions that held in some abstract state
        self.true_at: dict[int, set] = {}   # id -> some source keys of the moves where it held (steering)
        self.seen_false: set[int] = set()
        self.score_outcomes: dict[str, dict] = {}  # table -> abstract valuations at 'score' (insertion-ordered)
        self.match_range_writes: list = []   # (source key, var, index, gain so far) of writes to ranged match vars
        self.write_blocks: dict = {}         # index in match_range_writes -> the deal-end block it was made in
        self.counter_unbounded: set = set()  # counters raised or set by a value with no upper bound

        # trick phases whose 'then' block surely leaves the phase: id of the block -> the trick fields nothing
        # reads from there on (see forget_after_tricks)
        from .liveness import read_after_tricks
        self.then_blocks: dict[int, tuple] = {}
        for ph in self.g.phases:
            if ph.trick is not None and ph.trick.then:
                reads = read_after_tricks(self.g, ph)
                if reads is not None:
                    builtins, calls, goes = reads
                    if goes:
                        continue   # a phase gone to keeps the trick's fields (and rests with them)
                    dead = tuple(f for f, name in (("last_winner", "winner"), ("trick_leader", "leader"),
                                                   ("actor", "actor")) if name not in builtins)
                    self.then_blocks[id(ph.trick.then)] = (dead, "tricks" not in calls)
        # the deal-end tails of choice phases' actions (a trick played by hand that ends the deal): (id of the
        # block, index of the tail's first statement) -> the tail (liveness.action_deal_ends)
        from .liveness import action_deal_ends
        self.end_tails: dict[tuple, tuple] = {(id(block), start): block[start:]
                                              for _, block, start in action_deal_ends(self.g)}

    def forget_after_tricks(self, w: "AbstractState") -> None:
        """At the start of a trick phase's ``then`` block (the last trick taken) that surely ends the deal
        (``end deal`` resets the trick's fields), replace by canonical values those nothing reads until then:
        who won the last trick, who led it, who played last, the actor, and the tricks won when no
        ``tricks()`` is read.  Deals that differ only there then share their scoring."""
        dead, tricks_dead = self.then_blocks[id(w.frames[-1][0])]
        w.to_play = -1
        for f in dead:
            setattr(w, f, -1)
        if tricks_dead:
            w.tricks_won = self.no_tricks()

    # -- symmetries ----------------------------------------------------------------------------------
    def _is_suit_symmetric(self) -> bool:
        """True when no rule or property names a particular suit (or card), so relabelling suits maps runs
        to runs."""
        from .liveness import rule_expressions, subexprs
        g = self.g
        if g.deck.colors or self.bower_rank is not None or self.order_cards:
            return False
        for e in rule_expressions(g, first_dealer=True):
            for x in subexprs(e):
                if isinstance(x, ir.Const) and x.type.kind in ("suit", "card") and x.value >= 0:
                    return False
        self.suits_refused = suit_order_read(g) or order_dependent_loop(g, ("suits",))
        return self.suits_refused is None

    def _is_rotation_symmetric(self) -> bool:
        """True when no rule or property names a particular seat (other than the first dealer) and there are
        sides that turning the table maps to sides, side numbers used only as such and ``for`` loops over
        players and sides whose turns do not depend on their order (:mod:`.symmetry`): turning the table maps
        runs to runs, so every state can be seen from the dealer's seat 0."""
        from .liveness import rule_expressions, subexprs
        g = self.g
        self.side_turn = side_turns(g)
        if self.side_turn is None:
            self.rotation_refused = "the sides are not turned into sides by every turn of the table"
            return False
        self.rotation_refused = side_number_misuse(g) or order_dependent_loop(g, ("players", "sides")) or \
            dealer_set_in_deal(g)
        if self.rotation_refused is not None:
            return False
        if any(a.param is not None and a.param.kind == "domain" and a.param.type.kind == "player"
               for ph in g.phases for a in ph.actions):
            return False
        for e in rule_expressions(g, first_dealer=False):
            for x in subexprs(e):
                if isinstance(x, ir.Const) and x.type.kind == "player" and x.value >= 0:
                    return False
                if isinstance(x, ir.Call) and x.fn == "seat":
                    return False
                if isinstance(x, ir.Index) and isinstance(x.index, ir.Const) and not isinstance(x.index.value, bool):
                    return False
        return True

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

    def rotate(self, w: "AbstractState") -> int:
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
                val = tuple(val[(i + r) % n] for i in range(n))
                if v.type.kind == "player":
                    val = tuple(pl(x) for x in val)
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
        won = w.tricks_won
        if won and won[0] not in ("T", "S"):
            w.tricks_won = [won[(i + r) % n] for i in range(n)]
        turn = self.side_turn[r] if self.side_turn else None   # side k becomes side turn[k]
        if turn is not None:
            if won and won[0] == "S":
                w.tricks_won = ("S", _permuted(won[1], turn))
            for v in self.g.vars:
                if v.per == "side":
                    val = _permuted(w.vars[v.name], turn)
                    w.vars[v.name] = tuple(pl(x) for x in val) if v.type.kind == "player" else val
        w.trick_cards = [(pl(p), c) for p, c in w.trick_cards]
        w.to_play, w.trick_leader, w.last_winner, w.actor = pl(w.to_play), pl(w.trick_leader), \
            pl(w.last_winner), pl(w.actor)
        per = [self.var_types[name].per for name in self.watch]
        w.gains = tuple(tuple(g[(i + r) % n] for i in range(n)) if p == "player" else
                        _permuted(g, turn) if p == "side" and turn is not None else g
                        for g, p in zip(w.gains, per))
        return r

    def canonical_suits(self, w: "AbstractState") -> tuple | None:
        """Relabel suits so that suit variables take the smallest labels first; returns the permutation
        (old suit -> new suit) applied, or None when the labels were already canonical or the game names a
        suit."""
        if not self.symmetric:
            return None
        order = []
        for v in self.suit_vars:
            vals = w.vars[v.name] if v.per is not None else [w.vars[v.name]]
            for x in vals:
                if isinstance(x, int) and not isinstance(x, bool) and x >= 0 and x not in order:
                    order.append(x)
        ns = len(self.g.deck.suits)
        order += [s_ for s_ in range(ns) if s_ not in order]
        perm = [0] * ns
        for new, old in enumerate(order):
            perm[old] = new
        if all(perm[i] == i for i in range(ns)):
            return None
        perm = tuple(perm)
        self.relabel_suits(w, perm)
        return perm

    def relabel_suits(self, w: "AbstractState", perm: tuple) -> None:
        """Apply the suit permutation ``perm`` (old suit -> new suit) to ``w``'s suit and card values, its
        tracked cards and the trick on the table."""
        nr = self.nr

        def ps(s_):
            return perm[s_] if isinstance(s_, int) and not isinstance(s_, bool) and s_ >= 0 else s_

        def pc(c):
            if not isinstance(c, int) or isinstance(c, bool) or c < 0:
                return c
            s_, r = divmod(c, nr)
            return perm[s_] * nr + r

        for v in self.suit_vars + self.card_vars:
            f = ps if v.type.kind == "suit" else pc
            val = w.vars[v.name]
            w.vars[v.name] = tuple(f(x) for x in val) if v.per is not None else f(val)
        if self.track:
            new = list(w.tracked)
            for i, c in enumerate(self.track):
                new[self.track_index[pc(c)]] = w.tracked[i]
            w.tracked = new
        w.trick_cards = [(p, pc(c)) for p, c in w.trick_cards]

    def no_tricks(self):
        """Tricks won at the start of a deal: per player, or only the total (``("T", n)``) for long deals."""
        if not self.blur_tricks:
            return [0] * self.n
        if self.g.sides and self.split_reads is None:
            return ("S", (0,) * len(self.g.sides))
        return ("T", 0)

    def splits(self, n: int) -> list[tuple[int, ...]]:
        """Every way ``n`` tricks can be shared among the sides (each side's total, in the order of
        ``sides``): what a total kept alone stands for when a statement reads the split."""
        got = self._splits.get(n)
        if got is None:
            k = len(self.g.sides)
            got = self._splits[n] = [c for c in itertools.product(range(n + 1), repeat=k) if sum(c) == n]
        return got

    # -- liveness ---------------------------------------------------------------------------------------
    def forget(self, w: "AbstractState") -> None:
        """Replace what nothing still to run in this deal reads by canonical values (see liveness)."""
        if w.phase is None or w.phase not in self.live.zones:
            return
        L = self.live
        zones = L.zones[w.phase]
        sizes = w.sizes
        for i, slot in enumerate(self.slots):
            if slot.name not in zones:
                sizes[i] = DEAD
            elif slot.name in self.blur and sizes[i] >= 0:
                sizes[i] = UNKNOWN
        live_vars = L.vars[w.phase]
        coarse = self.coarse
        for v in self.g.vars:
            if v.scope == "deal" and (v.name not in live_vars or v.name in coarse):
                w.vars[v.name] = self.dead_value(v)
        if self.track:
            live = self._live_cards(w)
            w.tracked = [z if c in live else FORGOT for c, z in zip(self.track, w.tracked)]
            # a forgotten card on the trick is one anonymous card more (as if it had been played as one)
            w.trick_cards = [(p, c if c < 0 or w.tracked[self.track_index[c]] != FORGOT else ANON)
                             for p, c in w.trick_cards]
            # a tracked card in a dead zone stays there until the next deal (nothing moves cards out of a
            # zone that nothing reads): which dead zone no longer matters
            w.tracked = [z if z < 0 or sizes[z] != DEAD else IN_DEAD for z in w.tracked]

    def record_entry(self, w: "AbstractState") -> None:
        """``w`` (not yet forgotten) has just entered a phase with frozen variables: keep their values (with the
        companions), and their images under every relabelling of the suits and every turn of the table that
        the exploration uses (:meth:`entry_orbit`)."""
        names = self.frozen[w.phase] + self.companions[w.phase]
        raw = tuple(w.vars[n] for n in names)
        seen = self.__dict__.setdefault("_entries_raw", set())
        if (w.phase, raw) in seen:
            return
        seen.add((w.phase, raw))
        images = self.entry_orbit(w, names)
        for t in images:
            self.entries[w.phase].setdefault(t, None)
        most = self.__dict__.setdefault("entry_images", {})
        most[w.phase] = max(most.get(w.phase, 1), len(images))

    def entry_orbit(self, w: "AbstractState", names: tuple) -> list[tuple]:
        """The values of ``names`` in ``w`` under every suit permutation (when suits are relabelled and one of
        them holds a suit or a card) and every turn of the table (when it is turned and one of them is per
        player, per side or a player).  The states z3 reads them beside are in the labels of some node or of a
        move's start, not always those of ``w``; the concrete entries are closed under the symmetries the
        exploration uses, so their images are entries too, and the constraint on the frozen values holds in
        any labels (the companions tie each image to the state's own values)."""
        decls = [self.var_types[n] for n in names]
        perms = [None]
        if self.symmetric and any(v.type.kind in ("suit", "card") for v in decls):
            perms += [p for p in itertools.permutations(range(len(self.g.deck.suits))) if list(p) != sorted(p)]
        turns = [0]
        if self.rotational and any(v.per is not None or v.type.kind == "player" for v in decls):
            turns = list(range(self.n))
        out = []
        for perm in perms:
            for r in turns:
                u = w.clone()
                if perm is not None:
                    self.relabel_suits(u, perm)
                u.dealer = r
                self.rotate(u)
                t = tuple(u.vars[n] for n in names)
                if t not in out:
                    out.append(t)
        return out

    def killed_at(self, act: ir.Action) -> tuple[int, ...]:
        """The positions, in a state's variables (declaration order, as in its key), of the deal variables whose
        values before ``act`` do not matter to it (:func:`.liveness.killed_on_entry`); computed once per action."""
        got = self._killed.get(id(act))
        if got is None:
            from .liveness import killed_on_entry
            names = killed_on_entry(self.g, act)
            got = self._killed[id(act)] = tuple(i for i, v in enumerate(self.g.vars) if v.name in names)
        return got

    def record_entry_start(self, w: "AbstractState") -> None:
        """``w``, its next statement the start of an entry suffix (:attr:`entry_blocks`; no draw pending),
        keeps the state for z3 (one per part of it the suffix reads).  A suffix started inside another
        block or with local names cannot be run from the state alone: its phase gets no entry relation."""
        self.entry_start_calls += 1
        body, start, suffix, phase = self.entry_blocks[id(w.frames[-1][0])]
        if len(w.frames) != 1 or w.frames[0][2] or w.frames[0][3] is not None:
            self.entry_broken.add(phase)
            return
        from .smt_refine import _memo_key
        # what the suffix reads, and what it may leave as it was: the frozen variables, the dealer, the deal
        key = (_memo_key(self, w, suffix), tuple(w.vars[n] for n in self.frozen[phase]), w.dealer, w.deal_number)
        starts = self.entry_starts[phase]
        if key not in starts:
            if len(starts) >= MAX_ENTRY_STARTS:
                self.entry_broken.add(phase)      # z3 would run the suffix too many times: no relation
                return
            starts[key] = (w.clone(), suffix)

    def dead_value(self, v: ir.Var):
        """The canonical value of a variable nothing reads any more."""
        val = ("top", v.type.kind, v.type.enum) if v.type.kind != "int" else Interval(v.type.low, v.type.high)
        if v.per == "player":
            return (val,) * self.n
        if v.per == "side":
            return (val,) * max(1, len(self.g.sides))
        return val

    def _live_cards(self, w) -> set[int]:
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
            if any(x.__class__ is ExprError or isinstance(x, Interval) for x in ranks + suits):
                ranks, suits = list(range(self.nr)), list(range(len(self.g.deck.suits)))
            for r in ranks:
                for s_ in suits:
                    if isinstance(r, int) and isinstance(s_, int) and r >= 0 and s_ >= 0:
                        live.add(s_ * self.nr + (self.nr - 1 - r))
        return live

    def surely_legal(self, w) -> bool:
        """Whether every state of the game that the case ``w`` stands for has a legal move although the
        abstraction found none in ``w``: an action of its phase has a card parameter whose zone surely holds a
        card (its size kept exactly) and whose guard z3 proved to hold for some card of any nonempty zone
        (:func:`.legal_card.always_legal`, asked once per action), or z3 proved that some action of its choice
        phase is legal whenever the zones its guards read hold a card each, and they surely do
        (:func:`.legal_card.phase_always_legal`, asked once per phase).  Only then is ``w`` not a possible dead
        end (:meth:`.explore.Explorer.moves`)."""
        if w.phase is None or w.phase == DEAL_START or w.selecting is not None:
            return False
        cache = self.__dict__.setdefault("_always_legal", {})
        ph = self.game.phases[w.phase]
        for act in ph.actions:
            p = act.param
            if p is None or p.kind != "card":
                continue
            ok = cache.get(id(act))
            if ok is None:
                from .legal_card import always_legal
                ok = cache[id(act)] = always_legal(self.game, act, self.rlimit,
                                                   ph.actor if ph.kind == "choice" else None)
            if ok and self._surely_holds_a_card(w, p.zone):
                return True
        if ph.kind == "choice":
            phases = self.__dict__.setdefault("_phase_always_legal", {})
            if ph.name not in phases:
                from .legal_card import phase_always_legal
                phases[ph.name] = phase_always_legal(self.game, ph, self.rlimit)
            zones = phases[ph.name]
            if zones is not None and all(self._surely_holds_a_card(w, z) for z in zones):
                return True
        return False

    def _surely_holds_a_card(self, w, z) -> bool:
        """Whether the zone expression ``z`` names one zone slot in ``w`` and its size, kept exactly, is 1 or more."""
        from .legal_card import names_one_zone
        if not names_one_zone(z):
            return False
        if z.__class__ is ir.ZoneRef:
            slot = self.game.zone_base[z.name]
        else:
            seats = self.values(z.index, w, {})
            if len(seats) != 1 or seats[0].__class__ is not int or not 0 <= seats[0] < self.n:
                return False
            slot = self.game.zone_base[z.base.name] + seats[0]
        return w.sizes[slot] >= 1

    # -- values ------------------------------------------------------------------------------------------
    def top_of(self, t: ir.Type):
        if t.kind == "int":
            return Interval(t.low, t.high)
        return ("top", t.kind, t.enum)

    def widen_var(self, name: str, v):
        t = self.threshold.get(name)
        if t is None:
            return v
        return widen(v, t)

    def note(self, e: ir.Expr, vals: list) -> None:
        if True in vals:
            i = id(e)
            self.seen_true.add(i)
            if self.current is not None:
                at = self.true_at.setdefault(i, set())
                if len(at) < TRUE_AT_KEPT:
                    at.add(self.current[0])
        if False in vals:
            self.seen_false.add(id(e))

    # -- initial states --------------------------------------------------------------------------------
    def deal_starts(self) -> list["AbstractState"]:
        """The start of the first deal, one abstract state per possible first dealer (match variables
        forgotten)."""
        out = []
        if self.game.dealer_by_chance:
            dealers = list(range(self.n))
        else:
            probe = AbstractState(self)
            dealers = [d for d in self.eval(self.g.match.first_dealer, probe, {})
                       if isinstance(d, int) and 0 <= d < self.n] or list(range(self.n))
        for dealer in dealers:
            w = AbstractState(self)
            w.dealer = dealer
            w.first = True
            w.to_hub()
            out.append(w)
        return out


def _one_deal(game, rlimit: int) -> bool:
    """Whether the match is one deal: z3 shows that 'ends when' holds as soon as deal_number >= 1."""
    from . import smt
    try:
        return smt.deal_number_bound(game, game.ir.match.ends_when, rlimit) == 0
    except smt.SolverTimeout:
        return False


MAX_EXACT_DEALS = 16   # deals of a match (a bound z3 proves) up to which a deal_number the rules read is kept


def _exact_deals(game, rlimit: int) -> bool:
    """Whether deal_number is kept exactly: the rules read it (outside 'ends when': a phase, a table, a
    definition, the dealers, a property) and z3 shows that the match ends within :data:`MAX_EXACT_DEALS`
    deals."""
    from . import smt
    if not _reads_deal_number(game.ir):
        return False
    try:
        top = smt.deal_number_bound(game, game.ir.match.ends_when, rlimit)
    except smt.SolverTimeout:
        return False
    return top is not None and top + 1 <= MAX_EXACT_DEALS


def _reads_deal_number(g: ir.Game) -> bool:
    """Whether ``g`` reads ``deal_number`` anywhere but in 'ends when'."""
    from .liveness import exprs_of, subexprs
    ends = g.match.ends_when
    return any(isinstance(x, ir.Builtin) and x.name == "deal_number"
               for e in exprs_of(g) if e is not ends for x in subexprs(e))


NO_COUNT = (0, None, None, 0)   # a counter untouched by the move in progress (see AbstractState._count)


def counters_of(g: ir.Game, names) -> frozenset:
    """The counters among the variables ``names``: scalar int deal variables with a declared range that are
    only ever set by ``=`` or raised by ``+=`` of a constant >= 0, so that on any path their value is the
    last value set plus what was added since (how Explorer._check_counters bounds them)."""
    out = set()
    writes: dict = {}
    for s in ir.all_stmts(g):
        if isinstance(s, ir.ASSIGNS):
            writes.setdefault(s.var, []).append(s)
    for v in g.vars:
        if v.name not in names or v.per is not None or v.type.kind != "int" or v.type.high is None:
            continue
        ok = all(isinstance(s, ir.Assign) and s.index is None and
                 (s.op == "=" or s.op == "+=" and isinstance(s.value, ir.Const) and
                  isinstance(s.value.value, int) and s.value.value >= 0) for s in writes.get(v.name, ()))
        if ok:
            out.add(v.name)
    return frozenset(out)


def _reads_locals(e) -> bool:
    from .liveness import subexprs
    return any(isinstance(x, ir.Local) for x in subexprs(e))


class StateKey(tuple):
    """The key of an abstract state: a tuple (equal to, and hashing as, the plain tuple of its fields) that
    computes its hash once.  A node's key is looked up again and again (the explorer's table, the graph, its
    algorithms) and a nested tuple's hash is otherwise recomputed, field by field, at every lookup."""

    def __hash__(self):
        try:
            return self._hash
        except AttributeError:
            h = self._hash = tuple.__hash__(self)
            return h

    def __reduce__(self):   # a copy recomputes its hash (string hashes differ from one process to the next)
        return StateKey, (tuple(self),)


def _reads_split(e) -> bool:
    """Whether expression ``e`` reads how the tricks won split among players or sides: a ``tricks(...)``
    anywhere except in ``sum(p in players: tricks(p))``, the total."""
    from .liveness import _children
    if isinstance(e, ir.Quant) and e.kind == "sum" and e.domain is None and isinstance(e.body, ir.Call) and \
            e.body.fn == "tricks" and isinstance(e.body.args[0], ir.Local) and e.body.args[0].name == e.var:
        return False
    if isinstance(e, ir.Call) and e.fn == "tricks":
        return True
    return any(_reads_split(c) for c in _children(e))


def split_reads(g: ir.Game) -> frozenset | None:
    """The ids of the statements that read how the tricks split (their own expressions; a ``score``, the
    conditions of its table's rows), when nothing else does (a guard, an actor, a trick's options, the
    match, a property): then an abstract state keeps only the total of tricks won until a statement of these
    runs, which first chooses each way the total can split among the sides (:meth:`AbstractState._exec`);
    the split chosen is kept for the rest of the deal.  Nothing is lost against keeping each side's total
    from the start: who wins a trick is not modelled (any player who played), so until something reads the
    split, every split of a total is reached with the rest of the state alike.  None when something other
    than a statement reads the split."""
    from .liveness import exprs_of_stmt, phase_stmts, rule_expressions
    stmts = [x for ph in g.phases for x in phase_stmts(g, ph)]
    stmts += [x for t in g.tables for r in t.rows for x in ir.walk_stmts(r.body)]   # tables no phase scores too
    in_stmts: set = set()
    reads: set = set()
    for x in stmts:
        own = list(exprs_of_stmt(x))
        if isinstance(x, ir.Score):
            own += [r.guard for r in g.table(x.table).rows]
        in_stmts.update(id(e) for e in own)
        if any(_reads_split(e) for e in own):
            reads.add(id(x))
    for t in g.tables:
        in_stmts.update(id(r.guard) for r in t.rows)
    for e in rule_expressions(g):
        if id(e) not in in_stmts and _reads_split(e):
            return None
    return frozenset(reads)


# functions of their arguments alone (no zone, card place or trick state read)
_PURE_FUNCTIONS = frozenset({"total", "max", "min", "abs", "side", "partner", "left", "right", "seat", "clockwise",
                             "ord", "color", "suit", "rank"})


def _pure_part(x) -> bool:
    """Whether expression node ``x`` (one of 'ends when''s nodes) reads nothing but variables, constants,
    locals and deal_number."""
    if isinstance(x, (ir.Const, ir.VarRef, ir.Local, ir.Index, ir.BinOp, ir.Not, ir.Neg, ir.Cond, ir.InSet,
                      ir.NextPlayer)):
        return True
    if isinstance(x, ir.Quant):
        return x.domain is None          # over players (or sides): no zone
    if isinstance(x, ir.Call):
        return x.fn in _PURE_FUNCTIONS
    if isinstance(x, ir.Builtin):
        return x.name == "deal_number"
    return False


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


class AbstractState(Machine):
    """An abstract state of a match: the machine's fields, with zones as sizes (and the zones of the tracked
    cards), values as abstract values.  ``exact`` is False once a choice the abstraction could not tell
    was made; ``events`` records what a concrete replay must reproduce (draws and trick winners)."""

    def __init__(self, A: Abstraction):
        self.A = A
        self.game = A.game
        g = A.game
        self.sizes = [0] * len(g.zone_slots)
        self.sizes[g.home_zone] = g.num_cards
        self.tracked = [g.home_zone] * len(A.track)
        self.vars: dict = {}
        self.dealer = 0
        self.deal_number = 0 if A.one_deal or A.exact_deals else None
        self.actor = -1
        self.phase = None
        self.terminal = False
        self.revealed = frozenset()
        self.tricks_won = A.no_tricks()
        self.trick_cards = []
        self.trick_leader = -1
        self.trick_number = 0
        self.last_winner = -1
        self.to_play = -1
        self.deal_open = False
        self.dirty = False
        self.selecting = None
        self.frames = []
        self.pending = []
        self.gains = tuple((0,) * _width(A, name) for name in A.watch)
        self.end_gains = None        # the deal's gains when this step ended a deal (or the match)
        self.first = False           # the deal start of the first deal of the match
        self.ends_touched = False    # a variable 'ends when' reads was written since it was last checked
        self.exact = True
        self.events = []
        self.chooser = None
        self.pins = None             # while legal moves are computed: closed subexpressions' chosen values
        # per counter of a coarse abstraction, what the move in progress did to it (see _count)
        self.ctr = (NO_COUNT,) * len(A.counter_names) if A.counter_names else None
        for v in A.g.vars:
            self.vars[v.name] = A.dead_value(v) if v.scope == "deal" else self._match_top(v)

    def _match_top(self, v: ir.Var):
        val = self.A.top_of(v.type)
        if v.per == "player":
            return (val,) * self.A.n
        if v.per == "side":
            return (val,) * max(1, len(self.A.g.sides))
        return val

    def clone(self) -> "AbstractState":
        new = object.__new__(AbstractState)
        new.__dict__ = self.__dict__.copy()     # a copy of the whole dict: faster than filling an empty one
        new.sizes = list(self.sizes)
        new.tracked = list(self.tracked)
        new.vars = dict(self.vars)          # per-player values are tuples (replaced, never changed in place)
        if self.tricks_won.__class__ is list:
            new.tricks_won = list(self.tricks_won)
        new.trick_cards = list(self.trick_cards)
        new.frames = [list(f) for f in self.frames]
        new.pending = list(self.pending)
        new.events = list(self.events)
        new.chooser = None
        return new

    # -- keys ----------------------------------------------------------------------------------------------
    def key(self) -> tuple:
        """The state as a hashable value at rest (no effects in progress): what identifies a node."""
        return StateKey((self.phase, _sel_key(self.selecting), self.actor, tuple(self.sizes), tuple(self.tracked),
                         tuple(self.vars.values()),
                         self.dealer, self.trick_number, tuple(self.trick_cards), self.to_play, self.trick_leader,
                         tuple(self.tricks_won) if self.tricks_won.__class__ is list else self.tricks_won,
                         self.last_winner, self.gains, self.revealed, self.first, self.deal_number))

    def mid_key(self) -> tuple:
        """The state with its effects in progress (frames, pending draws), to merge equal intermediate states."""
        frames = tuple((id(f[0]), f[1], tuple(sorted(f[2].items())), f[3]) for f in self.frames)
        return (self.key(), frames, tuple(self.pending), self.dirty, self.ends_touched, self.terminal,
                self.deal_open, self.end_gains, self.ctr)

    def legal_moves(self) -> dict:
        """The machine's legal moves, every closed subexpression taking one value throughout (a case of the
        state): a card turned up has one suit for every guard that reads it."""
        self.pins = {}
        try:
            return Machine._legal(self)
        finally:
            self.pins = None

    def score_rows(self, table: ir.Table, env: dict) -> list:
        """The rows that fire, every closed subexpression taking one value in all the conditions (they are
        read in one state: ``points[0] < 5`` cannot hold in one row and fail in the next)."""
        if self.pins is not None:
            return Machine.score_rows(self, table, env)
        self.pins = {}
        try:
            return Machine.score_rows(self, table, env)
        finally:
            self.pins = None

    # -- choices -------------------------------------------------------------------------------------------
    def _exec(self, s: ir.Stmt, env: dict) -> None:
        """The machine's, where a statement that reads how the tricks split (:func:`split_reads`) first
        chooses one way the total kept can split among the sides."""
        won = self.tricks_won
        if won.__class__ is tuple and won[0] == "T" and self.chooser is not None:
            reads = self.A.split_reads
            if reads and id(s) in reads:
                self.tricks_won = ("S", self.choose(self.A.splits(won[1])))
        Machine._exec(self, s, env)

    def choose(self, options: list, chance: bool = False):
        """One of ``options``; the explorer runs every one.  A choice among several options that is not a
        chance outcome makes the step inexact (the abstraction could not tell)."""
        if not options:
            raise AssertionError("a choice without options")  # pragma: no cover
        if len(options) == 1:
            return options[0]
        if not chance:
            self.exact = False
        return options[self.chooser.pick(len(options))]

    def _one(self, vals: list):
        v = self.choose(vals)
        if v.__class__ is ExprError:
            raise RuleError(v.message, v.span)
        return v

    # -- the machine's abstract domain: values -------------------------------------------------------------
    def test(self, e: ir.Expr, env: dict) -> bool:
        vals = self.A.values(e, self, env)
        self.A.note(e, vals)
        got = self._one(vals)
        if len(vals) > 1:
            self.narrow(e, got, env)
        return got

    def _apply(self, action, how: tuple) -> None:
        """As the machine's, the action's guard first assumed true: a move is applied only where it is legal
        (``bid(n: 0..hand_size)`` chosen with ``n`` = 3 leaves ``hand_size`` at 3)."""
        kind = how[0]
        if kind == "named":
            act, value = how[1], how[2]
            self.narrow(act.guard, True, {} if act.param is None else {act.param.name: value})
        elif kind == "card":
            act = how[1]
            self.narrow(act.guard, True, {act.param.name: action})
        Machine._apply(self, action, how)

    def narrow(self, e: ir.Expr, want: bool, env: dict) -> None:
        """Restrict the int variables ``e`` compares to where ``e`` can take the value ``want``: after a
        condition was chosen true or false (a branch of ``if``, a guard held), ``x <= 2`` leaves ``x`` in
        ``lo..2``.  Sound: every concrete state where the condition took that value keeps its value of ``x``;
        only ``and``/``or``/``not`` and comparisons of an int variable (or a player's cell of one) with a
        value the abstraction knows as an int or an interval are read, anything else leaves the state as it
        is.  Each side is evaluated before any cell is narrowed."""
        if e.__class__ is ir.Not:
            self.narrow(e.operand, not want, env)
            return
        if e.__class__ is not ir.BinOp:
            return
        op = e.op
        if op == "and" or op == "or":
            if (op == "and") == want:        # both sides took the value
                self.narrow(e.left, want, env)
                self.narrow(e.right, want, env)
            return
        if op not in _FLIP:
            return
        cell = self._int_cell(e.left, env)
        other = e.right
        if cell is None:
            cell, other, op = self._int_cell(e.right, env), e.left, _FLIP[op]
            if cell is None:
                return
        name, i = cell
        row = self.vars[name]
        cur = row if i is None else row[i]
        if cur.__class__ is int:
            return                           # exact already (the common case): nothing to narrow
        vals = self.A.values(other, self, env)
        if not vals or any(v.__class__ is not int and v.__class__ is not Interval or v.__class__ is bool
                           for v in vals):
            return
        o = join(vals)
        o_lo, o_hi = lo_of(o), hi_of(o)
        if not want:
            op = _NEGATE[op]
        lo = hi = None
        if op == "<":
            hi = None if o_hi is None else o_hi - 1
        elif op == "<=":
            hi = o_hi
        elif op == ">":
            lo = None if o_lo is None else o_lo + 1
        elif op == ">=":
            lo = o_lo
        elif op == "==":
            lo, hi = o_lo, o_hi
        else:
            return                           # !=: an interval has no hole
        c_lo, c_hi = lo_of(cur), hi_of(cur)
        n_lo = c_lo if lo is None else (lo if c_lo is None else max(c_lo, lo))
        n_hi = c_hi if hi is None else (hi if c_hi is None else min(c_hi, hi))
        if n_lo is not None and n_hi is not None and n_lo > n_hi:
            return                           # no value left: the evaluation was coarser; keep the state
        t = self.A.threshold.get(name)
        if t is not None:      # whole classes of the widening: a value beyond it stands for all of them
            if n_hi is not None and n_hi > t:
                n_hi = None
            if n_lo is not None and n_lo > t:
                n_lo = t + 1
            if n_lo is not None and n_lo < -t - 1:
                n_lo = None
            if n_hi is not None and n_hi < -t - 1:
                n_hi = -t - 2
            if c_lo is not None and (n_lo is None or n_lo < c_lo):
                n_lo = c_lo
            if c_hi is not None and (n_hi is None or n_hi > c_hi):
                n_hi = c_hi
        new = n_lo if n_lo is not None and n_lo == n_hi and (t is None or -t - 1 <= n_lo <= t) \
            else Interval(n_lo, n_hi)
        if new != cur:
            self._set_cell(cell, new)

    def _set_cell(self, cell: tuple, value) -> None:
        """Write ``value`` to the variable or the player's cell ``cell`` (from :meth:`_int_cell`), an exact
        value widened as every written value is (:meth:`Abstraction.widen_var`)."""
        name, i = cell
        if value.__class__ is int:
            value = self.A.widen_var(name, value)
        if i is None:
            self.vars[name] = value
        else:
            row = self.vars[name]
            self.vars[name] = row[:i] + (value,) + row[i + 1:]

    def _int_cell(self, e: ir.Expr, env: dict):
        """``(variable, None)`` for a deal variable of type int, ``(variable, i)`` for cell ``i`` of a per-player
        or per-side one whose index the abstraction knows exactly; else None.  Never a match variable: within
        a deal it stands for any value of its range, which is how :mod:`.alpha` maps a concrete state (a
        narrowed value there would no longer cover it); a deal variable is narrowed by whole classes of its
        widening (:meth:`Abstraction.widen_var`), for the same reason."""
        A = self.A
        if e.__class__ is ir.VarRef:
            var = A.var_types.get(e.name)
            if var is not None and var.per is None and var.scope == "deal" and var.type.kind == "int" \
                    and self.vars.get(e.name).__class__ in (int, Interval):
                return e.name, None
            return None
        if e.__class__ is ir.Index and e.base.__class__ is ir.VarRef:
            var = A.var_types.get(e.base.name)
            if var is None or var.per is None or var.scope != "deal" or var.type.kind != "int":
                return None
            row = self.vars.get(e.base.name)
            if row.__class__ is not tuple or all(x.__class__ is int for x in row):
                return None                  # every cell exact: nothing to narrow
            idx = self.A.values(e.index, self, env)
            if len(idx) != 1 or idx[0].__class__ is not int \
                    or not 0 <= idx[0] < len(row) or row[idx[0]].__class__ not in (int, Interval):
                return None
            return e.base.name, idx[0]
        return None

    def _assign(self, s: ir.Assign, env: dict) -> None:
        """As the machine's, but a value written to a match variable whose gain is not watched is forgotten
        at once: its possible values are joined (an interval of the ints; the range check of ``=`` sees the
        same extremes) instead of being chosen one by one.  Only a possible rule error is a choice.  Likewise a
        forgotten rank or suit (:attr:`Abstraction.coarse`: a chosen card's, :func:`.liveness.chosen_card_vars`)
        that may take several values takes them all at once (its type's top), as it will at the next rest."""
        A = self.A
        var = A.var_types[s.var]
        top = var.name in A.coarse and var.type.kind != "int"
        if (var.scope != "match" or var.name in A.watch) and not top:
            return Machine._assign(self, s, env)
        vals = A.eval(s.value, self, env)
        if len(vals) > 1:
            errs = [v for v in vals if v.__class__ is ExprError]
            vals = [v for v in vals if v.__class__ is not ExprError]
            if errs:
                err = self.choose(errs + ([None] if vals else []))
                if err is not None:
                    raise RuleError(err.message, err.span)
            if top and len(vals) > 1:
                value = A.top_of(var.type)
            else:
                value = join(vals) if var.type.kind == "int" else vals[0]
        else:
            value = self._one(vals)
        i = None
        if s.index is not None:
            i = self._var_index(var, s.index, env, s.span)
        self._write_checked(var, i, value, s.op, s.span)

    def ev(self, e: ir.Expr, env: dict):
        return self._one(self.A.values(e, self, env))

    def ev_int(self, e: ir.Expr, env: dict, what: str = "a number", cap: int | None = None) -> int:
        v = self.ev(e, env)
        if isinstance(v, Interval) and cap is not None and (v.hi is None or v.hi > cap):
            if v.lo is not None and v.lo >= cap:
                return cap
            v = Interval(v.lo, cap)
        if isinstance(v, Interval):
            if v.lo is None or v.hi is None or v.hi - v.lo >= MAX_ENUMERATED_INT:
                raise Unsupported(f"{what} ({ir._expr_text(e)}) that the abstraction cannot bound", e.span)
            v = self.choose(list(range(v.lo, v.hi + 1)))
            cell = self._int_cell(e, env)     # 'deal hand_size ...' with 2 chosen: hand_size is 2 from here
            if cell is not None and (cap is None or v < cap):
                self._set_cell(cell, v)
        return v

    def ev_player(self, e: ir.Expr, env: dict) -> int:
        v = self.ev(e, env)
        if isinstance(v, Interval):
            v = self.choose(list(range(self.A.n)) + [NONE])
        return v

    def combine(self, op: str, old, value):
        return add(old, value, 1 if op == "+=" else -1)

    def out_of_range(self, var: ir.Var, value, op: str) -> bool:
        lo, hi = var.type.low, var.type.high
        if op == "+=" and var.name in self.A.counters:
            # a counter of a coarse abstraction (forgotten, so any value of its range here): that no '+='
            # takes it past its range is proved once the graph is complete (Explorer._check_counters)
            return False
        if var.scope == "match" and op != "=" and not self.A.range_errors:
            # the old value is unknown here (match variables are forgotten): the range is proved separately,
            # from the per-deal gains recorded at each such write (verify/match_ranges.py); when it is not,
            # the exploration is run again with range_errors, and such a write may fail
            return False
        below = compare("<", value, lo)
        above = compare(">", value, hi)
        can_out = True in below or True in above
        can_in = False in below and False in above
        return self.choose(([True] if can_out else []) + ([False] if can_in else []))

    def value_text(self, value) -> str:
        return repr(value) if isinstance(value, Interval) else str(value)

    def read(self, var: ir.Var, i):
        v = self.vars[var.name] if i is None else self.vars[var.name][i]
        return TOP_INT if is_top(v) and var.type.kind == "int" else v

    def write(self, var: ir.Var, i, value, op: str, operand) -> None:
        A = self.A
        name = var.name
        if name in A.ends_reads:
            self.ends_touched = True
        if name in A.watch:
            k = A.watch.index(name)
            delta = operand if op == "+=" else (add(0, operand, -1) if op == "-=" else TOP_INT)
            gains = list(self.gains)
            row = list(gains[k])
            idxs = [i] if i is not None else range(len(row))
            for j in idxs:
                row[j] = add(row[j], delta)
            gains[k] = tuple(row)
            self.gains = tuple(gains)
        if self.ctr is not None and name in A.counters:
            self._count(name, op, value if op == "=" else operand)
        if var.scope == "match":
            if var.type.kind == "int" and var.type.low is not None and op != "=":
                A.match_range_writes.append((A.current, name, i, self.gains[A.watch.index(name)]
                                             if name in A.watch else None))
            value = A.top_of(var.type)
        else:
            if var.type.kind == "int" and var.type.low is not None:
                value = clamp(value, var.type.low, var.type.high)   # the branch where the range check passed
            value = A.widen_var(name, value)
        if i is None:
            self.vars[name] = value
        else:
            row = list(self.vars[name])
            row[i] = value
            self.vars[name] = tuple(row)

    def _count(self, name: str, op: str, value) -> None:
        """Record a write to a counter in :attr:`ctr`: per counter ``(pre, inner, reset, post)``, the sum added
        before the move's first reset, the highest value between two resets, the value of the last reset
        (None: none yet) and the sum added since.  ``value``: the operand of ``+=``, the value of ``=``."""
        k = self.A.counter_names.index(name)
        pre, inner, reset, post = self.ctr[k]
        hi = hi_of(value)
        if hi is None:
            self.A.counter_unbounded.add(name)     # the exploration then stops (Explorer._check_counters)
            hi = 0
        if op == "+=":
            if reset is None:
                pre += hi
            else:
                post += hi
        else:
            if reset is not None:
                inner = max(inner, reset + post)
            reset, post = hi, 0
        ctr = list(self.ctr)
        ctr[k] = (pre, inner, reset, post)
        self.ctr = tuple(ctr)

    def init_var(self, v: ir.Var) -> None:
        A = self.A
        if v.scope == "match":
            val = A.top_of(v.type)
        else:
            val = A.widen_var(v.name, self.ev(v.init, {}))
            if self.ctr is not None and v.name in A.counters:
                self._count(v.name, "=", val)
        if v.per == "player":
            self.vars[v.name] = (val,) * A.n
        elif v.per == "side":
            self.vars[v.name] = (val,) * max(1, len(A.g.sides))
        else:
            self.vars[v.name] = val

    # -- the machine's abstract domain: zones ----------------------------------------------------------------
    def cards(self, slot: int) -> list:
        tr, anon = self.A.cards_in(self, slot)
        return tr + ([ANON] if anon is None or anon > 0 else [])

    def size(self, slot: int) -> int:
        s = self.sizes[slot]
        if s >= 0:
            return s
        return self.choose(list(range(self.game.num_cards + 1)))

    def short(self, slot: int, n: int) -> str | None:
        s = self.sizes[slot]
        pend = sum(1 for a, _ in self.pending if a == slot)
        if s >= 0:
            return None if n <= s - pend else str(s - pend)
        if n == 0:
            return None
        return self.choose([None, "too few (the abstraction does not keep the number)"])

    def move_card(self, card, src: int, dst: int) -> None:
        sizes = self.sizes
        if sizes[src] >= 0:
            sizes[src] -= 1
        if sizes[dst] >= 0:
            sizes[dst] += 1
        if card != ANON:
            self.tracked[self.A.track_index[card]] = dst

    def move_all(self, src: int, dst: int) -> None:
        if src == dst:
            return
        sizes = self.sizes
        if sizes[src] < 0 or sizes[dst] < 0:
            if sizes[src] != 0 and sizes[dst] != DEAD:
                sizes[dst] = UNKNOWN
        else:
            sizes[dst] += sizes[src]
        sizes[src] = 0
        self.tracked = [dst if z == src else z for z in self.tracked]

    def gather(self, dst: int) -> None:
        self.sizes = [0] * len(self.sizes)
        self.sizes[dst] = self.game.num_cards
        self.tracked = [dst] * len(self.tracked)

    def draw_visible(self, src: int, dst: int) -> None:
        c = self.choose(self.cards(src))          # the top card: the abstraction does not keep the order
        self.events.append(("draw", src, dst, c))
        self.move_card(c, src, dst)

    def resolve_chance(self) -> None:
        """The next pending draw takes one class of card from its (hidden) source: a chance outcome.  A pending
        ``VAR = random {...}`` takes each of its outcomes."""
        src, dst = self.pending[0]
        if src == RANDOM_DRAW:
            i = self.choose(list(range(len(dst[3]))), chance=True)
            self.events.append(("random", dst[0], i))
            self._resolve_random(i)
            return
        tr, anon = self.A.cards_in(self, src)
        options = tr + ([ANON] if anon is None or anon > 0 else [])
        if not options:
            # the zone's cards are known to be none, though what let the draw start (a size the abstraction
            # forgot) did not say so: a state no play may have, or a draw from an empty zone, which the
            # engine refuses; an error outcome over-approximates both (never a proof of anything false)
            raise RuleError("a draw from a zone the abstraction knows to be empty")
        if anon is None and len(options) > 1:
            self.exact = False     # whether an anonymous card is left is not known
        c = self.choose(options, chance=True)
        self.events.append(("draw", src, dst, c))
        self._resolve_draw(c)

    def reveal(self, slot: int) -> None:
        self.revealed = self.revealed | {slot}

    # -- the machine's abstract domain: tricks and deals -------------------------------------------------------
    def playable(self, trick: ir.Trick) -> list:
        """Any card of the hand: the follow rules and the ``lead``/``card`` rules only narrow what the engine
        allows, so they are not modelled (an over-approximation).  Their conditions are evaluated, as the
        engine evaluates them, for the rule errors they may raise (a division by zero, a function of none)."""
        hand = self.cards(self.game.hand_base + self.to_play)
        if self.trick_cards:
            for r in trick.follow:
                self._may_fail(r.condition, {})
        for r in trick.card_rules:
            if r.kind == "card" or not self.trick_cards:
                for c in hand:
                    self._may_fail(r.condition, {r.var: c})
        return hand

    def player_to_move(self) -> int:
        """The machine's, when the abstraction knows the dummy (and who plays for him) exactly; otherwise the
        player to move is not known and the verdicts that need it are unknown."""
        trick = self.game.phases[self.phase].trick if self.phase is not None and self.actor >= 0 else None
        if trick is not None and trick.dummy is not None and self.selecting is None:
            for e in (trick.dummy, trick.dummy_by):
                if e is not None and len(self.A.eval(e, self, {})) != 1:
                    raise Unsupported("a dummy (or the player who plays for him) that the abstraction cannot tell",
                                      e.span)
        return Machine.player_to_move(self)

    def _may_fail(self, e: ir.Expr, env: dict) -> None:
        """A rule error where ``e``'s evaluation may raise one (an error state the explorer keeps); else nothing:
        the value itself is not used."""
        vals = self.A.eval_unpinned(e, self, env)   # only the errors matter: no value is pinned for them
        errs = [v for v in vals if v.__class__ is ExprError]
        if errs and (len(errs) == len(vals) or self.choose([False, True])):
            raise RuleError(errs[0].message, errs[0].span)

    def move_named(self, card, src: int, dst: int, s: ir.Stmt) -> None:
        """The card must be in ``src``: a tracked card where the abstraction keeps its zone, else (an anonymous
        card, a tracked card whose zone was forgotten) it may or may not be, and both ways are explored."""
        msg = f"cannot move a card that is not in {self.game.zone_slots[src].label}"
        if card == NONE:
            raise RuleError("cannot move none: not a card", s.span)
        tr, anon = self.A.cards_in(self, src)
        if card != ANON and card in self.A.track_index and self.tracked[self.A.track_index[card]] >= 0:
            if self.tracked[self.A.track_index[card]] != src:
                raise RuleError(msg, s.span)
        elif card == ANON or card not in self.A.track_index:
            # an anonymous card, or one the rules name that this exploration does not track: among the
            # anonymous cards of the zone, if it has any
            if anon == 0 or (anon is None and self.choose([False, True])):
                raise RuleError(msg, s.span)
            card = ANON
        elif self.choose([False, True]):
            raise RuleError(msg, s.span)
        self.move_card(card, src, dst)

    def loop_cards(self, slot: int, s: ir.For) -> list:
        """Every card of the zone, an anonymous one as often as there are anonymous cards there (the loop runs
        once per card); a zone whose size is not kept cannot be looped over."""
        tr, anon = self.A.cards_in(self, slot)
        if anon is None:
            raise Unsupported(f"a loop over the cards of {self.game.zone_slots[slot].label}, whose number of cards "
                              f"the abstraction does not keep", s.span)
        return tr + [ANON] * anon

    def trick_winner(self, trick: ir.Trick) -> int:
        w = self.choose(uniq([p for p, _ in self.trick_cards]))  # who wins is not modelled: any player who played
        self.events.append(("trick_won", w))
        return w

    def add_trick(self, winner: int) -> None:
        won = self.tricks_won
        if won and won[0] == "T":
            self.tricks_won = ("T", won[1] + 1)
        elif won and won[0] == "S":
            sides = list(won[1])
            sides[self.game.side_of[winner]] += 1
            self.tricks_won = ("S", tuple(sides))
        else:
            won[winner] += 1

    def tricks_total(self) -> int:
        won = self.tricks_won
        if won and won[0] == "T":
            return won[1]
        if won and won[0] == "S":
            return sum(won[1])
        return sum(won)

    def reset_deal(self) -> None:
        self.tricks_won = self.A.no_tricks()
        self.revealed = frozenset()
        self.gains = tuple((0,) * _width(self.A, name) for name in self.A.watch)

    def count_deal(self) -> None:
        if self.A.one_deal:
            self.deal_number = 1
        elif self.A.exact_deals and self.deal_number.__class__ is int:
            self.deal_number += 1
        else:
            self.deal_number = None

    def log_deal(self, complete: bool) -> None:
        if self.deal_open:
            self.deal_open = False
            self.end_gains = self.gains

    def _start_deal(self) -> None:
        """The end of a deal leads to the next deal's start node (see :meth:`to_hub`)."""
        self.to_hub()

    def to_hub(self) -> None:
        """Become the start node of a deal (phase :data:`DEAL_START`): the deal variables at their initial
        values, no trick, and, when the first phase gathers the cards, every card at home."""
        A = self.A
        self.phase = DEAL_START
        self.selecting = None
        # the engine keeps the actor from the deal's last decision until the next one: kept where a property, a
        # table or an automatic phase may read it before that decision, else none (the canonical value)
        if not A.actor_read_at_rest:
            self.actor = -1
        self.frames = []
        self.trick_cards = []
        self.trick_number = 0
        self.trick_leader = -1
        self.to_play = -1
        self.last_winner = -1
        self.tricks_won = A.no_tricks()
        self.revealed = frozenset()
        self.gains = tuple((0,) * _width(A, name) for name in A.watch)
        for v in A.g.vars:
            if v.scope == "deal":
                self.vars[v.name] = A.dead_value(v)
        first = A.g.phase(A.g.match.start)
        if first.kind == "auto" and first.body and isinstance(first.body[0], ir.Gather) and \
                isinstance(first.body[0].zone, ir.ZoneRef):
            home = self.game.zone_base[first.body[0].zone.name]
            self.sizes = [0] * len(self.sizes)
            self.sizes[home] = self.game.num_cards
            self.tracked = [home] * len(self.tracked)

    def start_from_hub(self) -> None:
        """The deal-start node's one move: start the deal (the first deal checks ``ends when`` first, as the
        engine does when a match starts)."""
        first = self.first
        self.first = False
        Machine._start_deal(self)
        if first:
            self.dirty = True
            self.ends_touched = "first"

    def _match_over(self) -> bool:
        """As the machine's; where 'ends when' was just found false at the end of a deal and reads only match
        variables (which the next deal's start leaves as they are), it is not read again at the next rest:
        the engine's second reading, on the same values, is false too, and the abstraction's would choose
        again between the outcomes its values allow, ending the match in states no play reaches (with the
        deal variables already reset)."""
        over = Machine._match_over(self)
        if not over and self.A.ends_pure and self.A.ends_match_only:
            self.ends_touched = False
        return over

    def _check_end(self) -> None:
        """As the engine, but without evaluating 'ends when' again when nothing it reads has changed since it
        was last false (it is still false); the first check of the match reads the match variables' initial
        values, as the engine's does (nothing has changed them yet)."""
        if self.A.ends_pure and not self.ends_touched:
            self.dirty = False
            return
        first = self.ends_touched == "first"
        self.ends_touched = False
        if not first:
            Machine._check_end(self)
            return
        saved, saved_number = dict(self.vars), self.deal_number
        for v in self.A.g.vars:
            if v.scope == "match":
                val = self.ev(v.init, {})
                self.vars[v.name] = (val,) * len(saved[v.name]) if v.per is not None else val
        self.deal_number = 0      # no deal has been played yet
        try:
            self.dirty = False
            over = self.test(self.A.g.match.ends_when, {})
        finally:
            self.vars = saved
            self.deal_number = saved_number
        if over:
            self._end_match()

    # -- scoring ---------------------------------------------------------------------------------------------
    def on_score(self, table: str, rows) -> None:
        val = self.valuation()
        A = self.A
        A.score_outcomes.setdefault(table, {}).setdefault(val, None)
        A.score_sources.setdefault((table, val), A.current)

    def valuation(self) -> tuple:
        """What a scoring table may read: deal variables, tricks won, dealer (match variables are unknown)."""
        won = self.tricks_won
        return (tuple(sorted(self.vars.items())),
                tuple(won) if won.__class__ is list else won, self.dealer)


def _reads_actor_between_decisions(g: ir.Game) -> bool:
    """Whether ``actor`` is read by a property, a scoring table, an automatic phase, a variable's initial value
    or the match: where it may still be the previous deal's (choice and trick phases set it before reading)."""
    from .liveness import exprs_of, subexprs
    nodes = (g.properties, g.tables, g.vars, g.match, tuple(ph.body for ph in g.phases if ph.kind == "auto"))
    return any(isinstance(x, ir.Builtin) and x.name == "actor" for e in exprs_of(nodes) for x in subexprs(e))


def _permuted(values: tuple, turn: tuple) -> tuple:
    """``values`` per side, side ``k``'s value moved to side ``turn[k]``."""
    out = [None] * len(values)
    for k, x in enumerate(values):
        out[turn[k]] = x
    return tuple(out)


def _width(A: Abstraction, name: str) -> int:
    v = A.var_types[name]
    return A.n if v.per == "player" else max(1, len(A.g.sides))


def _sel_key(sel):
    if sel is None:
        return None
    act, k, lo, hi = sel
    return (act.name, k, lo, hi)


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


def _thresholds(g: ir.Game) -> dict[str, int]:
    """For each int deal variable, how far its value is kept exact: the largest constant it is compared
    with, added to it or that bounds its declared range (beyond, values are merged into an interval)."""
    from .liveness import rule_expressions, subexprs
    out: dict[str, int] = {v.name: 0 for v in g.vars if v.type.kind == "int"}

    def var_of(e):
        if isinstance(e, ir.VarRef):
            return e.name
        if isinstance(e, ir.Index) and isinstance(e.base, ir.VarRef):
            return e.base.name
        return None

    def note(name, c):
        if name in out and isinstance(c, ir.Const) and isinstance(c.value, int) and not isinstance(c.value, bool):
            out[name] = max(out[name], abs(c.value))

    for e in rule_expressions(g):
        for x in subexprs(e):
            if isinstance(x, ir.BinOp):
                for a, b in ((x.left, x.right), (x.right, x.left)):
                    note(var_of(a), b)
            elif isinstance(x, ir.InSet):
                for i in x.items:
                    note(var_of(x.value), i)
    for v in g.vars:
        if v.type.kind == "int" and v.type.low is not None and v.scope == "deal":
            out[v.name] = max(out[v.name], abs(v.type.low), abs(v.type.high))
    return out

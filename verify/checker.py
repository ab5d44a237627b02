"""Checking the properties of a rule file and the built-in checks; verdicts with evidence.

:class:`Verifier` plans one exploration of the abstraction (:mod:`.explore`) per kind of precision the
properties need, and decides each property:

* ``proved`` — with the method (exhaustive exploration of the over-approximating abstraction and its
  size; an attractor; a ranking function found by z3; an inductive invariant checked by z3; SMT over the
  reachable scoring outcomes);
* ``refuted`` — only with a concrete counterexample replayed by the engine (or a lasso whose cycle the
  engine replayed);
* ``unknown`` — with what was tried.

Budgets are units of work, never time (:class:`Budget`), so that the same file gets the same verdicts on
any machine at any load; the wall-clock ``timeout`` is only a safety, and a verdict it cut says so.
"""
from __future__ import annotations

import contextlib
import gc
import time
from dataclasses import dataclass, field

from atout.compiler import ir

from .absint import Abstraction
from .concretize import realize
from .explore import CoarsenLimit, CounterLimit, ExplorationLimit, Explorer, StateLimit


@contextlib.contextmanager
def without_cyclic_gc():
    """Run without the cyclic garbage collector (reference counting still frees everything else): for work
    that allocates millions of objects that live on (an exploration's states and edges) and makes almost no
    reference cycles; automatic collections would traverse all of them again and again."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_frozen = [0]   # how many frozen_heap() contexts are open


@contextlib.contextmanager
def frozen_heap():
    """Keep the cyclic garbage collector off what exists when a verification starts (the compiled game, the
    modules) and off every exploration finished inside (:meth:`Verifier._explore` freezes it): they live to
    the end, and each automatic collection would traverse them again (a quarter of Euchre's CPU time).
    Collections still run for what the searches make.  Everything is unfrozen at the end, so that it can be
    collected once it is dropped."""
    gc.freeze()
    _frozen[0] += 1
    try:
        yield
    finally:
        _frozen[0] -= 1
        if not _frozen[0]:
            gc.unfreeze()


@dataclass
class Counterexample:
    kind: str                       # trace or lasso
    steps: list[dict]               # record steps from the start of the match
    cycle_start: int | None = None  # lasso: index of the first step of the cycle
    cycle_len: int | None = None
    note: str = ""
    play_by_play: list[str] = field(default_factory=list)


@dataclass
class Result:
    name: str
    kind: str
    verdict: str                    # proved, refuted, unknown
    method: str
    seconds: float = 0.0
    counterexample: Counterexample | None = None
    detail: str = ""
    # the Spec of the exploration the verdict was decided on when it is not the property's own (spec_for):
    # None when z3 decided it without one; the cross-check maps the concrete runs into that exploration
    explored: object = "own"

    def as_json(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "verdict": self.verdict, "method": self.method,
               "seconds": round(self.seconds, 4)}
        if self.detail:
            out["detail"] = self.detail
        if self.counterexample is not None:
            c = self.counterexample
            out["counterexample"] = {"kind": c.kind, "steps": c.steps, "note": c.note,
                                     "play_by_play": c.play_by_play}
            if c.kind == "lasso":
                out["counterexample"]["cycle_start"] = c.cycle_start
                out["counterexample"]["cycle_length"] = c.cycle_len
        return out


@dataclass
class Finding:
    kind: str
    message: str
    where: str = ""
    counterexample: Counterexample | None = None

    def as_json(self) -> dict:
        out = {"kind": self.kind, "message": self.message}
        if self.where:
            out["where"] = self.where
        if self.counterexample is not None:
            out["counterexample"] = {"kind": self.counterexample.kind, "steps": self.counterexample.steps,
                                     "play_by_play": self.counterexample.play_by_play}
        return out


MAX_TRACKED = 8  # more named cards than this (e.g. whist's 16 honours) are not tracked: too many placements


@dataclass
class Budget:
    """What the verifier may spend, in units of work (the defaults suffice for every shipped game).

    ``max_states``: abstract states per exploration; ``max_transitions``: its transitions (what its memory
    grows with: about 10 KB each with its states, measured on Bridge and Oh Hell; a game of few states and
    many moves stops here, not at ``max_states``); ``rlimit``: z3's resource limit per query (its own
    deterministic count of work); ``replays``: attempts to realise one abstract path concretely;
    ``search_steps``: engine steps of one concrete search for a counterexample (seeded matches, steered or
    not); ``coarsen_at``: abstract states an exploration keeps the deal variables it may forget
    (:meth:`Verifier.forgettable_vars`) exactly before it is run again with them forgotten
    (:meth:`Verifier._explore`), ``coarsen_probe``: ``(states, ratio)``, past that many states, the ratio of
    them to the states with those variables blanked at which it gives up keeping them sooner, and
    ``coarsen_early`` another such pair, for an exploration that multiplies its states from the start (a
    chosen card's rank, kept exactly, multiplies them by 13); ``cross_check``: seeded engine
    matches replayed against the abstraction after verifying, ``cross_steps`` engine steps of them in all
    (the last match is cut there: long matches such as solo whist's would otherwise make the cross-check
    the bulk of a run); ``timeout``: a wall-clock safety in seconds
    (None: none), the only budget that depends on the machine: a verdict it cut says so."""
    max_states: int = 400_000
    max_transitions: int = 1_000_000
    rlimit: int = 20_000_000
    replays: int = 80
    search_steps: int = 60_000
    cross_check: int = 24
    cross_steps: int = 12_000
    timeout: float | None = 600.0
    coarsen_at: int = 100_000
    coarsen_probe: tuple = (5_000, 2.0)
    coarsen_early: tuple = (500, 8.0)
    t0: float = field(default_factory=time.perf_counter)

    @property
    def deadline(self) -> float | None:
        return None if self.timeout is None else self.t0 + self.timeout

    def expired(self) -> bool:
        return self.timeout is not None and time.perf_counter() > self.t0 + self.timeout


TIMEOUT_NOTE = "the wall-clock safety --timeout fired before it finished; raise --timeout to decide it"


def tracked_cards(game) -> tuple[int, ...]:
    """Cards named by literals in the rules, for every value of their suit and rank expressions."""
    from .liveness import card_literals
    out = set()
    nr = game.nranks
    ns = len(game.deck.suits)
    for rank, suit in card_literals(game.ir):
        if suit is None:
            out.add(rank.value)
            continue
        ranks = [rank.value] if isinstance(rank, ir.Const) else list(range(nr))
        suits = [suit.value] if isinstance(suit, ir.Const) else list(range(ns))
        for r in ranks:
            for s in suits:
                if r >= 0 and s >= 0:
                    out.add(s * nr + (nr - 1 - r))
    return tuple(sorted(out))


def _finer(a: tuple, b: tuple) -> bool:
    """Whether the exploration with key ``a`` (:meth:`Verifier._key`) keeps at least what the one with key ``b``
    keeps: in every phase the same zones and variables live or more, the same cards tracked and gains watched,
    fewer zones blurred, the same range errors.  Its abstraction is then a refinement of ``b``'s."""
    za, va, ta, wa, ba, ra = a
    zb, vb, tb, wb, bb, rb = b
    if (ta, wa, ra) != (tb, wb, rb) or not set(ba) <= set(bb):
        return False
    for mine, theirs in ((dict(za), zb), (dict(va), vb)):
        for phase, kept in theirs:
            if phase not in mine or not set(kept) <= set(mine[phase]):
                return False
    return True


def _keeps_reads(prop: ir.Property) -> bool:
    """Whether the exploration of ``prop`` keeps the property's own reads live (see :meth:`Verifier.spec_for`)."""
    return prop.kind in ("invariant", "conserves", "can_force")


def _reads_cards(prop: ir.Property) -> bool:
    """Whether an invariant names cards (it is then decided on the exploration that tracks them)."""
    from .liveness import subexprs
    return prop.kind == "invariant" and any(
        isinstance(x, ir.Call) and x.fn in ("has", "top", "card") or isinstance(x, ir.Const) and
        x.type.kind == "card" for x in subexprs(prop.expr))


@dataclass(frozen=True)
class Spec:
    """What an exploration keeps: ``precise`` tracks the named cards and the per-deal gains (only the gains
    with ``blind``); ``props`` are the names of the properties whose reads stay live; ``exact_sizes`` keeps
    every zone size (no blur); ``range_errors`` lets writes to ranged match variables fail (when their ranges
    are not proved)."""
    precise: bool = False
    props: tuple = ()
    exact_sizes: bool = False
    range_errors: bool = False
    blind: bool = False


class Verifier:
    """Verifies one compiled game.  ``game`` is an :class:`atout.engine.Game`."""

    def __init__(self, game, budget: Budget | None = None, progress=None, timeout: float | None = None):
        self.game = game
        self.g = game.ir
        self.budget = budget or Budget()
        if timeout is not None:
            self.budget.timeout = timeout
        self.progress = progress or (lambda msg: None)
        self._explorations: dict = {}
        self._plan: dict = {}          # property name -> the key of the exploration it is decided on
        self._shared_plan: dict = {}   # property name -> keys of the precise explorations that may serve it
        self._lemma = None
        self._coarsened = False        # an exploration passed budget.coarsen_at: the data-only variables are forgotten
        self._coarsen_why = None       # what made the first exploration give up keeping them (None: coarsen_at)
        self._keys: dict = {}          # Spec -> its exploration key (see _key)
        self.group_properties = True   # False: each property that keeps its reads gets its own exploration
        # the properties checked in this run (set by the CLI; by default none): a request is served by the
        # card-blind group's exploration only when one of them makes it run anyway (_covering_spec)
        self.run_properties: frozenset = frozenset()
        # whether the precise exploration will be run anyway (set by verify_game): card-blind requests share it
        self.precise_needed = False
        self.findings: list[Finding] = []
        self._by_sizes: dict = {}      # invariant name -> Result proved from the conservation of cards, or None
        # abstract states, transitions and machine steps of every exploration (those that stopped included),
        # explorations finished, explorations stopped by a limit
        self.work = {"abstract_states": 0, "transitions": 0, "machine_steps": 0, "explorations": 0,
                     "stopped_explorations": 0}

    # -- explorations ----------------------------------------------------------------------------
    def proved_by_sizes(self, prop: ir.Property) -> "Result | None":
        """The proof of an invariant over zone sizes that follows from the conservation of cards (z3, no
        exploration: :mod:`.zone_sizes`), or None.  Such an invariant is left out of every exploration's
        monitors and of the reads the explorations keep, so that it does not make them larger."""
        if prop.kind != "invariant" or prop.expr is None:
            return None
        if prop.name not in self._by_sizes:
            from .zone_sizes import size_invariant
            ok, how = size_invariant(self.game, prop.expr, self.budget.rlimit)
            self._by_sizes[prop.name] = Result(prop.name, prop.kind, "proved", how) if ok else None
        return self._by_sizes[prop.name]

    def watched(self, precise: bool) -> tuple:
        """Per-player/side int match variables whose per-deal gains the exploration tracks: those deal bounds
        and the end of the match read, and those with a declared range (their range is proved from them)."""
        if not precise:
            return ()
        from .liveness import subexprs
        names = set()
        for p in self.g.properties:
            if p.kind == "deal_bound" and p.expr is not None:
                names |= {x.name for x in subexprs(p.expr) if isinstance(x, ir.VarRef)}
        names |= {x.name for x in subexprs(self.g.match.ends_when) if isinstance(x, ir.VarRef)}
        if self.range_lemma_possible() is None:
            names |= {v.name for v in self.g.vars if v.scope == "match" and v.type.low is not None}
        return tuple(v.name for v in self.g.vars if v.name in names and v.scope == "match" and
                     v.per is not None and v.type.kind == "int")

    def spec_for(self, prop: ir.Property, lemma: bool = True) -> Spec:
        """The exploration a property is decided on (``lemma=False``: before the ranges of the match variables
        are known, with ``range_errors`` left false)."""
        fix = self._range_spec if lemma else (lambda spec: spec)
        if prop.kind in ("deal_bound", "complete"):
            return Spec(precise=True)
        if prop.kind == "invariant":
            return fix(Spec(precise=_reads_cards(prop), props=(prop.name,)))
        if prop.kind in ("conserves", "can_force"):
            return fix(Spec(props=(prop.name,)))
        return fix(Spec())

    def gains_specs(self, cards_first: bool = False) -> list[Spec]:
        """The explorations that watch the per-deal gains: card-blind, and tracking the cards the rules name
        (when they name any, and not too many), the one tracking cards first when ``cards_first``.  A check
        over the gains (a deal bound, a scoring table, the ranges of the match variables) tries them in turn
        (:meth:`ladder`): each over-approximates the game, so a proof on either is a proof."""
        specs = [Spec(precise=True, blind=True)]
        track = tracked_cards(self.game)
        if track and len(track) <= MAX_TRACKED:
            specs.insert(0 if cards_first else 1, Spec(precise=True))
        return specs

    def ladder(self, specs: list, attempt, quick_refute: bool = False) -> "Result":
        """Decide a check on the explorations ``specs`` (in order of preference).  ``attempt(spec, final)``
        returns the check's Result on that exploration; with ``final`` False it only tries to prove, without
        the concrete searches for a counterexample.  Each exploration is first tried for a proof; when none
        proves the check, the first one that could be explored tries in full (its counterexample searches
        steered by it).  The Result names the exploration it was decided on (``explored``).

        ``quick_refute``: ``attempt(spec, "quick")`` tries a proof and, failing it, a short engine search for a
        violation (a count of steps, never a time), on every exploration but the last, before the next one
        is made: a violation the engine plays is the answer whatever a finer abstraction would say (a Hearts
        variant's broken deal bound waited 85 s for the exploration tracking its named cards; it is now
        refuted in 0.1 s)."""
        first = None
        for i, spec in enumerate(specs):
            r = attempt(spec, "quick" if quick_refute and i + 1 < len(specs) else False)
            if r.verdict != "unknown":
                r.explored = spec
                return r
            first = first or r
        for spec in specs:
            if self.exploration(spec)[0] is None:
                continue
            r = attempt(spec, True)
            if r.verdict != "unknown":
                r.explored = spec
            return r
        return first

    def cards_matter(self, names) -> bool:
        """Whether an effect outside the deal-end blocks that z3 follows (:mod:`.symbolic`) writes one of the
        variables ``names``: their gains may then depend on where the named cards went during play, which the
        exploration tracking them keeps (Écarté's king of trumps, announced in play).  Inside such a block the
        cards are followed symbolically anyway, so the card-blind exploration comes first."""
        from .liveness import phase_stmts
        followed = self.followed_statements()
        names = set(names)
        for ph in self.g.phases:
            for x in phase_stmts(self.g, ph):
                if isinstance(x, ir.ASSIGNS) and x.var in names and id(x) not in followed:
                    return True
        return False

    def followed_statements(self) -> set:
        """The ids of the statements of the deal-end blocks that z3 follows (:mod:`.symbolic`,
        :func:`.liveness.deal_end_blocks`): the ``then`` blocks that surely end the deal and the deal-end tails
        of choice phases' actions that hold only statements it executes, with the rows of the tables they
        score."""
        got = self.__dict__.get("_followed")
        if got is None:
            from .liveness import deal_end_blocks, scored_tables, walk
            got = set()
            for _, block, _, _ in deal_end_blocks(self.g):
                stmts = list(walk(block))
                for t in scored_tables(self.g, stmts):
                    for r in t.rows:
                        stmts.extend(walk(r.body))
                got |= {id(x) for x in stmts}
            self._followed = got
        return got

    def _range_spec(self, spec: Spec) -> Spec:
        if spec.precise:
            return spec
        ok = self.range_lemma()[0]
        return Spec(spec.precise, spec.props, spec.exact_sizes, range_errors=not ok)

    def _key(self, spec: Spec):
        """What identifies an exploration: the liveness it keeps, the cards it tracks, the gains it watches,
        the zones it blurs, whether ranged match variables may fail (equal keys share one exploration)."""
        got = self._keys.get(spec)
        if got is None:
            got = self._keys[spec] = self._compute_key(spec)
        return got

    def _compute_key(self, spec: Spec):
        props = [p for p in self.g.properties if p.name in spec.props]
        track = tracked_cards(self.game) if spec.precise and not spec.blind else ()
        if len(track) > MAX_TRACKED:
            track = ()   # too many named cards to track their placements (e.g. whist's 16 honours)
        if spec.precise and not spec.props and not track:
            riders = self._riders()
            props = [p for p in self.g.properties if p.name in riders]
        watch = self.watched(spec.precise)
        from .liveness import Liveness
        live = Liveness(self.g, props)
        blur = ()
        if not spec.exact_sizes:
            from .liveness import counted_only_zones
            counted = counted_only_zones(self.g, props)
            read = set()
            for p in props:
                read |= _zones_read(p.expr)
            blur = tuple(z.name for z in self.g.zones if z.name in counted or track and not z.per_player and
                         z.visibility == "hidden" and z.name not in live.observed and z.name not in read)
        key = (tuple(sorted(live.zones.items())), tuple(sorted(live.vars.items())), track, watch, blur,
               spec.range_errors)
        return key, props, track, watch, blur

    def exploration(self, spec: Spec):
        """``(Explored or None, Abstraction, reason it stopped or None)`` for ``spec``, explored once.  The
        exploration carries the monitors of every property planned on an exploration with the same key.

        A card-blind request is served by the precise exploration when that one is needed anyway
        (:attr:`precise_needed`) and differs from it only by the per-deal gains it watches: gains are
        bookkeeping beside the same rules, so every verdict of the card-blind abstraction holds on it.
        When that shared exploration stopped short (a state budget), the request is explored on its own.

        Likewise the properties that keep their own reads live (invariants, ``conserves``, ``can_force``) are
        first decided together, on one exploration keeping the reads of all of them (:meth:`_group_spec`):
        keeping more is only more precise, and each gets its own exploration if that one stops short."""
        from .monitors import monitored
        needs = [p.name for p in self.g.properties if p.name in spec.props and monitored(p)]
        for alt in self._alternatives(spec):
            got = self._exploration(alt)
            if got[0] is not None and all(n in got[0].monitors for n in needs):
                return got
        return self._exploration(spec)

    def _alternatives(self, spec: Spec, group: bool = True) -> list:
        """The shared explorations that may serve ``spec``, in the order they are tried: the precise one
        (:meth:`_shared_spec`) for it or for its group, then its group's (:meth:`_group_spec`; not with
        ``group`` False)."""
        g = self._group_spec(spec)
        alts = [self._shared_spec(spec), g and self._shared_spec(g)] + ([g, self._covering_spec(spec)] if group
                                                                        else [])
        return [a for a in alts if a is not None]

    def _covering_spec(self, spec: Spec) -> Spec | None:
        """The card-blind group's spec (:meth:`_group_spec`) for a card-blind request that keeps no property's
        reads (a termination, ``can_end``, the built-in checks), when that exploration is explored in this run
        anyway (a property of the group in :attr:`run_properties` that nothing else can serve) and keeps at
        least what ``spec``'s does (:func:`_finer`): every verdict on a finer over-approximation holds."""
        if spec.props or spec.precise or spec.exact_sizes or not self.group_properties:
            return None
        group = self._card_blind_group()
        if not group:
            return None
        cover = Spec(False, group, False, spec.range_errors, False)
        needed = False
        for p in self.g.properties:
            if p.name in group and p.name in self.run_properties:
                own = self.spec_for(p)
                g = self._group_spec(own)
                if g == cover and self._shared_spec(own) is None and self._shared_spec(g) is None:
                    needed = True
                    break
        if not needed or not _finer(self._key(cover)[0], self._key(spec)[0]):
            return None
        return cover

    def _card_blind_group(self) -> tuple:
        """The names of the card-blind properties that keep their reads (one exploration: :meth:`_group_spec`)."""
        return tuple(p.name for p in self.g.properties if _keeps_reads(p) and not _reads_cards(p)
                     and self.proved_by_sizes(p) is None)

    def _group_spec(self, spec: Spec) -> Spec | None:
        """The spec of the exploration shared by every property that keeps its reads live and is explored
        as precisely as ``spec`` (card-blind, or tracking the named cards when it reads cards)."""
        if len(spec.props) != 1 or spec.exact_sizes or not self.group_properties:
            return None
        group = self._card_blind_group() if not spec.precise else \
            tuple(p.name for p in self.g.properties if _keeps_reads(p) and _reads_cards(p)
                  and self.proved_by_sizes(p) is None)
        if spec.props[0] not in group or group == spec.props:
            return None
        return Spec(spec.precise, group, spec.exact_sizes, spec.range_errors, spec.blind)

    def _shared_spec(self, spec: Spec) -> Spec | None:
        """The precise exploration's spec when it can serve the card-blind ``spec`` (see :meth:`exploration`):
        it tracks no card and keeps at least the values ``spec``'s keeps (:func:`_finer`, the reads of
        ``spec``'s properties included: their monitors are then attached to it, :meth:`_planned`)."""
        if not self.precise_needed or spec.precise or spec.exact_sizes or spec.range_errors:
            return None
        precise = Spec(precise=True)     # when it tracks no card, the exploration gains_specs starts with
        key, props, track, watch, blur = self._key(precise)
        own = self._key(spec)[0]
        if track or not _finer(key[:3] + own[3:4] + key[4:], own):    # the gains it watches besides
            return None
        return Spec(precise=True, blind=True)

    def _riders(self) -> tuple:
        """The card-blind properties that keep their reads (:meth:`_card_blind_group`) and ride on the precise
        exploration when it tracks no card: their reads are kept there too, so that one exploration serves
        them (:meth:`_shared_spec`) instead of one of their own.  Only when the run checks one of them, and
        when every write of a watched variable is in a deal-end block that z3 follows: the gains then change
        only as a deal ends, and do not multiply the states those reads split during play (Solo Whist: 5,675
        states either way, against 2 x 5,675 for two explorations).  Empty otherwise."""
        got = self.__dict__.get("_rider_names")
        if got is None:
            got = ()
            group = self._card_blind_group() if self.precise_needed and self.group_properties else ()
            if any(n in self.run_properties for n in group):
                watched = set(self.watched(True))
                followed = self.followed_statements()
                if all(id(x) in followed for x in ir.all_stmts(self.g)
                       if isinstance(x, ir.ASSIGNS) and x.var in watched):
                    got = group
            self._rider_names = got
        return got

    def _exploration(self, spec: Spec):
        key, props, track, watch, blur = self._key(spec)
        got = self._explorations.get(key)
        if got is None:
            planned = [p for p in self.g.properties if p.kind in ("invariant", "conserves") and
                       self._planned(p, key)]
            got = self._explore(props, track, watch, blur, spec, planned)
            self._explorations[key] = got
        ex, A, err, monitors = got
        if ex is not None:   # the monitors of an exploration that stopped short decide nothing
            ex.monitors = monitors
        return ex, A, err

    def _planned(self, prop, key) -> bool:
        """Whether ``prop`` is decided on the exploration with ``key``.  Its key is first computed without the
        range lemma (whose own exploration is precise, so never that of a card-blind property)."""
        if self.proved_by_sizes(prop) is not None:
            return False
        if prop.name not in self._plan:
            spec = self.spec_for(prop, lemma=False)
            group = self._group_spec(spec)
            self._plan[prop.name] = (self._key(spec)[0], None if group is None else self._key(group)[0])
        own, grouped = self._plan[prop.name]
        if own[:-1] == key[:-1] and self._key(self.spec_for(prop))[0] == key:
            return True
        if prop.name not in self._shared_plan:    # served by the precise exploration (see _shared_spec)?
            self._shared_plan[prop.name] = {self._key(x)[0] for x in
                                            self._alternatives(self.spec_for(prop, lemma=False), group=False)}
        if key in self._shared_plan[prop.name]:
            return True
        if grouped is None or grouped[:-1] != key[:-1]:
            return False
        group = self._group_spec(self.spec_for(prop))
        return group is not None and self._key(group)[0] == key

    def _explore(self, props, track, watch, blur, spec, planned):
        """Explore; when the game has deal variables the explorer may forget (:meth:`forgettable_vars`) and
        keeping them exactly passes ``budget.coarsen_at`` states, or once past ``budget.coarsen_probe[0]``
        states multiplies them by ``budget.coarsen_probe[1]`` (:attr:`.explore.Explorer.coarse_probe`), explore
        again with them forgotten (a coarser
        over-approximation: every verdict on it holds in the game).  The counters among them may not leave
        their range there, which the explorer then proves over the graph; where it cannot, the coarse
        abstraction is explored once more with their writes allowed to fail (rule errors, which the built-in
        check then has to decide).  Decided by counts of states, never by the clock."""
        coarse = self.forgettable_vars()
        at = self.budget.coarsen_at
        args = (props, track, watch, blur, spec, planned)
        if not coarse or self.budget.max_states <= at:
            return self._explore_once(*args, self.budget.max_states)
        if not self._coarsened:
            got = self._explore_once(*args, at, coarsen=True)
            if got is not None:
                return got
            # the later explorations of this game keep the same variables: they are forgotten from the start
            self._coarsened = True
        from .liveness import forgotten_text
        self.progress(f"{self._coarsen_why or f'more than {at} abstract states'}: forgetting "
                      f"{forgotten_text(self.g, coarse)}")
        got = self._explore_once(*args, self.budget.max_states, coarse)
        if got is None:      # a counter may leave its range
            self.progress("a counter may leave its range: exploring with its writes allowed to fail")
            got = self._explore_once(*args, self.budget.max_states, coarse, counters=False)
        return got

    def forgettable_vars(self) -> frozenset:
        """The game's deal variables that an exploration forgets when keeping them makes it too large, computed
        once: those read only as data (:func:`.liveness.data_only_vars`) and the ranks and suits of chosen
        cards read only in conditions (:func:`.liveness.chosen_card_vars`).  Forgetting any deal variable is
        an over-approximation; these are the ones whose exact values decide no verdict in the usual games."""
        got = self.__dict__.get("_forgettable")
        if got is None:
            from .liveness import chosen_card_vars, data_only_vars
            got = self._forgettable = data_only_vars(self.g) | chosen_card_vars(self.g)
        return got

    def _explore_once(self, props, track, watch, blur, spec, planned, max_states, coarse=(), coarsen=False,
                      counters=True):
        """One exploration (``coarse``: the deal variables forgotten at every rest; ``counters``: the counters
        among them assumed in range, to be proved); None when it passed ``max_states`` with ``coarsen`` (the
        caller explores a coarser abstraction), or when an assumed counter may leave its range (the caller
        explores again without the assumption)."""
        from .monitors import monitors_for
        A = Abstraction(self.game, track=track, watch=watch, blur=blur, props=props,
                        range_errors=spec.range_errors, rlimit=self.budget.rlimit, coarse=coarse,
                        assume_counters=counters)
        monitors = monitors_for(self, A, planned)
        what = f"tracking {len(track)} cards" if track else "card-blind"
        self.progress(f"exploring the abstraction ({what})")
        try:
            with without_cyclic_gc():
                try:
                    probe = ((self.forgettable_vars(),) + self.budget.coarsen_probe + self.budget.coarsen_early
                             if coarsen else None)
                    ex = Explorer(A, max_states=max_states, deadline=self.budget.deadline,
                                  max_transitions=self.budget.max_transitions,
                                  monitors=list(monitors.values()), coarse_probe=probe).explore()
                finally:
                    if _frozen[0]:    # before the collector is back on: it would traverse all of it once more
                        gc.freeze()   # the exploration lives on: later collections leave it alone (frozen_heap)
        except StateLimit as exc:
            if coarsen:
                self._coarsen_why = str(exc) if isinstance(exc, CoarsenLimit) else None
                return None
            self._stopped_work(exc)
            return None, A, str(exc), monitors
        except CounterLimit:
            return None
        except ExplorationLimit as exc:
            self._stopped_work(exc)
            return None, A, str(exc), monitors
        self.work["abstract_states"] += len(ex.states)
        self.work["transitions"] += ex.transitions
        self.work["machine_steps"] += ex.steps
        self.work["explorations"] += 1
        return ex, A, None, monitors

    def _stopped_work(self, exc) -> None:
        """Count the work of an exploration that stopped before its end (what :meth:`.Explorer.explore`
        attached to ``exc``) in :attr:`work`, so that a report of unknown verdicts says how far it got."""
        self.work["abstract_states"] += getattr(exc, "states", 0)
        self.work["transitions"] += getattr(exc, "transitions", 0)
        self.work["machine_steps"] += getattr(exc, "steps", 0)
        self.work["stopped_explorations"] += 1

    def monitor(self, name: str, ex):
        """The monitor of an invariant or conserves property on exploration ``ex`` (the one it was decided on:
        its counterexamples are paths of that graph); never None."""
        m = getattr(ex, "monitors", {}).get(name)
        if m is None:
            raise RuntimeError(f"no monitor was attached for '{name}'")   # a verifier bug, never a proof
        if hasattr(m, "settle"):
            m.settle()
        return m

    def range_lemma_possible(self) -> str | None:
        """None when the range lemma can be attempted; else why not (a ranged match variable that an effect
        sets with '=': its value after that is not its value at the deal's start plus a gain)."""
        from .liveness import phase_stmts
        ranged = {v.name for v in self.g.vars if v.scope == "match" and v.type.low is not None}
        for ph in self.g.phases:
            for s in phase_stmts(self.g, ph):
                if (isinstance(s, ir.RandomAssign) or isinstance(s, ir.Assign) and s.op == "=") and s.var in ranged:
                    return f"'{s.var}' is set with '=' ({s.span.path}:{s.span.line})"
        return None

    def range_lemma(self) -> tuple[bool, str]:
        """``(holds, why)``: whether no ``+=``/``-=`` write to a ranged match variable can leave its range
        (see :mod:`.match_ranges`): from the per-deal gains, else by z3 over the deal-end blocks when every
        write of a match variable is in one (:func:`.match_ranges.prove_in_blocks`)."""
        if self._lemma is None:
            from .match_ranges import prove_in_blocks, prove_match_ranges
            self._lemma = (True, "no match variable has a declared range")
            if any(v.scope == "match" and v.type.low is not None for v in self.g.vars):
                why = self.range_lemma_possible()
                self._lemma = (False, f"the ranges of the match variables are not proved: {why}") if why \
                    else prove_match_ranges(self)
                if not self._lemma[0]:
                    self._lemma = prove_in_blocks(self) or self._lemma
        return self._lemma

    # -- paths -------------------------------------------------------------------------------------
    def path_to(self, ex, target_keys: set, via_exact: bool = False):
        """Shortest path (initial key, [edge data], target) from the start of the match to one of
        ``target_keys``; None if there is none."""
        adj = ex.successors()
        preds = {}
        frontier = []
        for k in ex.initial:
            preds[k] = None
            frontier.append(k)
        best = None
        i = 0
        while i < len(frontier):
            k = frontier[i]
            i += 1
            if k in target_keys:
                best = k
                break
            for succ, keyed in adj[k].items():
                for data in keyed.values():
                    if succ not in preds and (not via_exact or data["exact"]):
                        preds[succ] = (k, data)
                        frontier.append(succ)
        if best is None:
            return None
        edges = []
        k = best
        while preds[k] is not None:
            k0, data = preds[k]
            edges.append(data)
            k = k0
        return k, list(reversed(edges)), best

    def replay(self, A, ex, init, edges, check, **kw):
        kw.setdefault("attempts", self.budget.replays)
        return realize(self.game, A, init, edges, check, init_perm=ex.initial_perm.get(init),
                       init_rot=ex.initial_rot.get(init, 0), **kw)

    # -- play-by-play --------------------------------------------------------------------------------
    def play_by_play(self, steps: list[dict], start: int = 0) -> list[str]:
        """Readable lines for the steps (from the match start), each with the rule line that fired."""
        from atout.engine.evaluate import RuleError
        st = self.game.new_initial_state()
        out = []
        for i, step in enumerate(steps):
            where = _rule_line(st, step["action"])
            who = "chance" if step["player"] < 0 else f"seat {step['player']}"
            try:
                st.apply_action(step["action"])
            except RuleError as exc:  # a counterexample to 'no rule error' ends with the step that fails
                out.append(f"{i + 1:4d}. {who:>7}: {step['text']:<28} {where:<26} rule error: {exc}")
                break
            if i >= start:
                out.append(f"{i + 1:4d}. {who:>7}: {step['text']:<28} {where:<26} {_values(st)}")
        return out


def _zones_read(e) -> set:
    from .liveness import _zone_name, subexprs
    out = set()
    if e is not None:
        for x in subexprs(e):
            if isinstance(x, ir.ZoneRef):
                out.add(x.name)
            elif isinstance(x, ir.Index) and _zone_name(x):
                out.add(_zone_name(x))
    return out


def _rule_line(st, action: int | None = None) -> str:
    """``file:line (phase)`` of the rule that a step from ``st`` applies: the action taken (``action``, its id),
    the trick block for a card played, the phase for a chance outcome (lines 1-based)."""
    import os
    g = st.game
    if st.is_terminal():
        return ""
    ph = g.phases.get(st.phase) if st.phase else None
    if ph is None:
        return ""
    sp = ph.span
    if st.is_chance_node():
        return f"{os.path.basename(sp.path)}:{sp.line} ({ph.name})"
    if ph.kind == "trick" and st.selecting is None:
        t = ph.trick.span
        return f"{os.path.basename(t.path)}:{t.line} (trick)"
    taken = None
    if action is not None:
        try:
            how = st._legal().get(action)
        except Exception:      # a rule error computing the legal moves: the step reports it
            how = None
        taken = how[1] if how is not None and len(how) > 1 and isinstance(how[1], ir.Action) else None
    for a in ([taken] if taken is not None else ph.actions):
        return f"{os.path.basename(a.span.path)}:{a.span.line} ({ph.name})"
    return f"{os.path.basename(sp.path)}:{sp.line} ({ph.name})"


def _values(st) -> str:
    g = st.game
    parts = []
    for i, slot in enumerate(g.zone_slots):
        if slot.name in ("trick", "taken"):
            continue
        parts.append(f"{slot.label}={len(st.zones[i])}")
    for v in g.ir.vars:
        if v.type.kind == "int":
            val = st.vars[v.name]
            parts.append(f"{v.name}={val}")
    if any(st.tricks_won):
        parts.append(f"tricks={st.tricks_won}")
    return " ".join(parts)

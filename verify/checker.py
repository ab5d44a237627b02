"""Checking the properties of a rule file and the built-in checks; verdicts with evidence.

:func:`verify_game` explores the abstraction (:mod:`.explore`) once per kind of
precision needed, then decides each property:

* ``proved`` — with the method (exhaustive exploration of the over-approximating
  abstraction and its size; an attractor; a ranking function found by z3; an
  inductive invariant checked by z3; SMT over the reachable scoring outcomes);
* ``refuted`` — only with a concrete counterexample replayed by the engine (or a
  lasso whose cycle the engine replayed);
* ``unknown`` — with what was tried.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import networkx as nx

from atout.compiler import ir

from . import smt
from .absint import ANON, ERROR, MATCH_OVER, Abstraction, Interval, Work
from .concretize import realize
from .explore import ExplorationLimit, Explorer
from .liveness import subexprs


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


class Budget:
    def __init__(self, seconds: float):
        self.t0 = time.perf_counter()
        self.deadline = self.t0 + seconds
        self.seconds = seconds

    def left_ms(self, cap: float = 10.0) -> int:
        return max(1, int(1000 * min(cap, self.deadline - time.perf_counter())))

    def expired(self) -> bool:
        return time.perf_counter() > self.deadline


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


class Verifier:
    """Verifies one compiled game.  ``game`` is an :class:`atout.engine.Game`."""

    def __init__(self, game, timeout: float = 60.0, progress=None):
        self.game = game
        self.g = game.ir
        self.budget = Budget(timeout)
        self.progress = progress or (lambda msg: None)
        self._explorations: dict = {}
        self.findings: list[Finding] = []

    # -- explorations ----------------------------------------------------------------------------
    def watched(self) -> tuple:
        from .liveness import subexprs
        names = set()
        for p in self.g.properties:
            if p.kind == "deal_bound" and p.expr is not None:
                for x in subexprs(p.expr):
                    if isinstance(x, ir.VarRef):
                        names.add(x.name)
        names |= {x.name for x in subexprs(self.g.match.ends_when) if isinstance(x, ir.VarRef)}
        return tuple(v.name for v in self.g.vars if v.name in names and v.scope == "match" and
                     v.per is not None and v.type.kind == "int")

    def exploration(self, precise: bool, extra: frozenset = frozenset(), extra_phases: frozenset | None = None,
                    exact_sizes: bool = False):
        """The abstract graph.  ``precise`` tracks named cards and per-deal gains (slower); ``extra`` zones
        stay live (their sizes exact) in ``extra_phases`` (None: in every phase), for properties that read
        them."""
        gains = precise   # a precise graph also tracks the per-deal gains
        track = tracked_cards(self.game) if precise else ()
        if precise and len(track) > MAX_TRACKED:
            track = ()   # too many named cards to track their placements (e.g. whist's 16 honours)
        if extra:
            from .liveness import Liveness
            base = Liveness(self.g)
            phases = extra_phases if extra_phases is not None else [p.name for p in self.g.phases]
            if all(extra <= base.zones[p] for p in phases):
                extra, extra_phases = frozenset(), None   # already live where needed: share the base graph
        key = (gains, track, extra, extra_phases, exact_sizes)
        if key in self._explorations:
            return self._explorations[key]
        t0 = time.perf_counter()
        # per-deal gains of the match variables that deal bounds and the end of the match read
        watch = self.watched() if gains else ()
        blur = ()
        if track and not exact_sizes:
            from .liveness import Liveness
            observed = Liveness(self.g).observed
            blur = tuple(z.name for z in self.g.zones if not z.per_player and z.visibility == "hidden"
                         and z.name not in observed and z.name not in extra)
        A = Abstraction(self.game, track=track, watch=watch, blur=blur, extra_zones=extra,
                        extra_phases=extra_phases)
        obs = _Observers(self, A)
        self.progress(f"exploring the abstraction ({'tracking ' + str(len(track)) + ' cards' if precise else 'card-blind'})")
        try:
            ex = Explorer(A, deadline=self.budget.deadline, observers=[obs]).explore()
        except ExplorationLimit as exc:
            self._explorations[key] = (None, A, obs, str(exc))
            return self._explorations[key]
        ex.seconds = time.perf_counter() - t0
        self._explorations[key] = (ex, A, obs, None)
        return self._explorations[key]

    # -- paths -------------------------------------------------------------------------------------
    def path_to(self, ex, target_keys: set, via_exact: bool = False):
        """Shortest path (initial key, [edge data]) from a deal start to one of ``target_keys``."""
        G = ex.graph
        best = None
        preds = {}
        frontier = []
        for k in ex.initial:
            preds[k] = None
            frontier.append(k)
        i = 0
        while i < len(frontier):
            k = frontier[i]
            i += 1
            if k in target_keys:
                best = k
                break
            for _, succ, key, data in G.out_edges(k, keys=True, data=True):
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
        return realize(self.game, A, init, ex.initial_events.get(init, ()), edges, check,
                       init_perm=ex.initial_perm.get(init), **kw)

    # -- play-by-play --------------------------------------------------------------------------------
    def play_by_play(self, steps: list[dict], start: int = 0) -> list[str]:
        """Readable lines for the steps (from the match start), each with the rule line that fired."""
        from atout.engine.evaluate import RuleError
        st = self.game.new_initial_state()
        out = []
        for i, step in enumerate(steps):
            where = _rule_line(st)
            who = "chance" if step["player"] < 0 else f"seat {step['player']}"
            try:
                st.apply_action(step["action"])
            except RuleError as exc:  # a counterexample to 'no short draw' ends with the step that fails
                out.append(f"{i + 1:4d}. {who:>7}: {step['text']:<28} {where:<26} rule error: {exc}")
                break
            if i >= start:
                out.append(f"{i + 1:4d}. {who:>7}: {step['text']:<28} {where:<26} {_values(st)}")
        return out


class _Observers:
    """Checks on raw abstract successors (before dead values are forgotten)."""

    def __init__(self, V: Verifier, A: Abstraction):
        self.V = V
        self.A = A
        self.enter_target: list = []   # (kind, src key, move, raw state) for states entering any phase
        self.raw_by_phase: dict = {}

    def __call__(self, w: Work, kind: str, src, move):
        if kind != "decision" or w.phase is None:
            return
        self.raw_by_phase.setdefault(w.phase, []).append((src, move, w.copy()))


def _rule_line(st) -> str:
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
    for a in ph.actions:
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

"""Exhaustive exploration of the abstraction: the abstract game graph.

Nodes are frozen abstract states at decision points (plus two sinks: the end of
the match and a rule error).  A *move* is one decision of the player to act (a
named action, a card of a tracked or anonymous class, ``done``), followed by
every effect up to the next decision, chance draws included; a move leads to one
or more successors (chance outcomes and values the abstraction cannot tell).

The graph is a :class:`networkx.MultiDiGraph`; each edge carries the move, the
actor, the events needed to replay it, whether it is exact, and, when it ends a
deal, the deal's gains.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import networkx as nx

from atout.compiler import ir

from .absint import ANON, ERROR, MATCH_OVER, UNKNOWN, Abstraction, Interval, Work, _inc, _widen_gain


DEAL_START = "<deal start>"


class ExplorationLimit(Exception):
    """The abstraction has more states than the budget allows (reported as 'unknown')."""


@dataclass(frozen=True)
class Move:
    kind: str          # named, card, choose, done, play, start
    action: str        # action name ('' for play/start)
    value: object      # parameter value, card class (tracked card id or ANON)
    actor: int

    def __str__(self) -> str:
        return f"{self.kind}:{self.action}:{self.value}"


@dataclass
class Explored:
    graph: nx.MultiDiGraph
    states: dict          # key -> Work
    initial: list         # keys of the deal-start states
    seconds: float
    deal_ends: list = field(default_factory=list)   # (key of the state before, gains at end of deal)
    errors: list = field(default_factory=list)      # (key, message)
    initial_events: dict = field(default_factory=dict)  # initial key -> draws that made it
    initial_perm: dict = field(default_factory=dict)    # initial key -> suit relabelling applied to it
    initial_rot: dict = field(default_factory=dict)     # initial key -> seat rotation applied to it


class Explorer:
    """Builds the abstract game graph of ``abstraction`` from every deal start."""

    def __init__(self, A: Abstraction, max_states: int = 400_000, deadline: float | None = None,
                 observers=()):
        self.A = A
        self.g = A.g
        self.max_states = max_states
        self.deadline = deadline
        self.observers = list(observers)  # f(raw successor Work, kind, source key, move) before forgetting

    # -- macro steps --------------------------------------------------------------------------
    def settle(self, results) -> list[tuple[Work, str]]:
        """Continue effects until every result is at a decision, the match end, or an error."""
        out = []
        todo = list(results)
        guard = 0
        while todo:
            guard += 1
            if guard > 100_000:
                raise ExplorationLimit("automatic phases loop without a decision")
            w, ex = todo.pop()
            if ex is None:
                out.append((w, "decision"))
            elif ex == "over":
                out.append((w, "over"))
            elif ex.startswith("error:"):
                out.append((w, ex))
            elif ex == "end":
                out.append((w, "end"))
            else:
                phase = ex[len("goto:"):]
                todo.extend(self.enter(w, phase))
        return out

    def enter(self, w: Work, name: str) -> list[tuple[Work, str | None]]:
        ph = self.g.phase(name)
        w.phase = name
        w.sel = None
        if ph.kind == "auto":
            return self.A.run(ph.body, w, {})
        if ph.kind == "trick":
            t = ph.trick
            out = []
            won = w.trick[4]
            for st, leader in self.A._fork(w, self.A.eval(t.leader, w, {})):
                for st2, skip in self.A._fork(st, self.A.eval(t.skip, st, {})):
                    if leader == skip:
                        leader = self._next_active(leader, skip)
                    st2.trick = (1, (), leader, leader, won, st2.trick[5])
                    out.append((st2, None))
            return out
        return [(w, None)]

    def start_deal(self, w: Work) -> list[tuple[Work, str]]:
        w = w.copy()
        w.events = []
        return self.settle(self.enter(w, self.g.match.start))

    def end_deal(self, w: Work) -> list[tuple[Work, str]]:
        """Reset the deal and rotate the dealer: the successor is the next deal's start node (a chance node
        whose one move deals the cards), or the end of the match."""
        A = self.A
        out = []
        for st, dealer in A._fork(w, A.eval(self.g.match.next_dealer, w, {})):
            st.dealer = dealer
            for v in self.g.vars:
                if v.scope == "deal":
                    st.vars[v.name] = A._init_value(v, st)
            st.trick = (0, (), -1, -1, A.no_tricks(), -1)
            st.gains = tuple((0,) * A.n for _ in A.watch)
            st.revealed = frozenset()
            for st2, ex in A._check_over(st):
                if ex == "over":
                    out.append((st2, "over"))
                else:
                    out.append((self.hub(st2), "decision"))
        return out

    def hub(self, w: Work) -> Work:
        """The start node of a deal.  When the first phase gathers the cards, where they were no longer matters."""
        w.phase = DEAL_START
        w.sel = None
        w.actor = -1
        first = self.g.phase(self.g.match.start)
        if first.kind == "auto" and first.body and isinstance(first.body[0], ir.Gather) and \
                isinstance(first.body[0].zone, ir.ZoneRef):
            home = self.A.game.zone_base[first.body[0].zone.name]
            w.sizes = [0] * len(w.sizes)
            w.sizes[home] = self.A.game.num_cards
            w.tracked = [home] * len(w.tracked)
        return w

    def _next_active(self, p: int, skip) -> int:
        q = (p + 1) % self.A.n
        while q == skip:
            q = (q + 1) % self.A.n
        return q

    def moves(self, w: Work) -> list[tuple[Move, list[tuple[Work, str]]]]:
        """Every decision available in ``w`` with its results (before settling)."""
        A = self.A
        if w.phase == DEAL_START:
            st = w.copy()
            st.events = []
            return [(Move("start", "", None, -1), [(st, "goto:" + self.g.match.start)])]
        ph = self.g.phase(w.phase)
        out = []
        if w.sel is not None:
            return self._selection_moves(w, ph)
        if ph.kind == "choice":
            for st, actor in A._fork(w, A.eval(ph.actor, w, {})):
                st.actor = actor
                out.extend(self._action_moves(st, ph, actor))
            return out
        # trick phase
        tn, played, to_play, leader, won, last = w.trick
        w.actor = to_play
        hand = self.A.game.hand_base + to_play
        tr, anon = A.cards_in(w, hand)
        results = []
        for c in tr + ([ANON] if anon else []):
            st = w.copy()
            st.exact = st.exact and len(tr) + (1 if anon else 0) == 1
            results.extend(self._play(st, ph, to_play, hand, c))
        if results:
            out.append((Move("play", "", None, to_play), results))
        out.extend(self._action_moves(w, ph, to_play))
        return out

    def _action_moves(self, w: Work, ph: ir.Phase, actor: int):
        A = self.A
        out = []
        for act in ph.actions:
            p = act.param
            if p is None:
                values = [None]
            elif p.kind == "domain":
                values = [v for v in A.domain(p.type) if v != -1]
            elif p.kind == "card":
                values = []
                for z in A.zone_slots(p.zone, w, {}):
                    tr, anon = A.cards_in(w, z)
                    values.extend(tr + ([ANON] if anon else []))
            else:  # choose: starting a selection
                out.extend(self._start_choose(w, ph, act, actor))
                continue
            for v in values:
                env = {} if p is None else {p.name: v}
                gvals = A.eval(act.guard, w, env)
                A.note(act.guard, gvals)
                for st, ok in A._fork(w.copy(), gvals):
                    if not ok:
                        continue
                    if len(gvals) > 1:
                        st.events.append(("unsure",))
                    st.actor = actor
                    if p is not None and p.kind == "card" and v == ANON:
                        st.exact = False
                    kind = "named" if p is None or p.kind == "domain" else "card"
                    res = A.run(act.body, st, env)
                    if ph.kind == "trick":
                        res = [(s, "stay" if ex is None else ex) for s, ex in res]
                    out.append((Move(kind, act.name, v, actor), res))
        return out

    def _start_choose(self, w: Work, ph, act, actor):
        A = self.A
        p = act.param
        out = []
        gvals = A.eval(act.guard, w, {p.name: 0})
        A.note(act.guard, gvals)
        for st, ok in A._fork(w.copy(), gvals):
            if not ok:
                continue
            for st2, lo in A._fork(st, A.eval(p.low, st, {})):
                for st3, hi0 in A._fork(st2, A.eval(p.high, st2, {})):
                    for st4, src in A._fork(st3, A.zone_slots(p.zone, st3, {})):
                        if isinstance(lo, Interval) or isinstance(hi0, Interval):
                            continue
                        hi = min(hi0, st4.sizes[src]) if st4.sizes[src] >= 0 else hi0
                        if lo > 0 and hi < max(lo, 1):
                            continue
                        st4.actor = actor
                        st4.sel = (act.name, 0, lo, hi)
                        if hi >= 1:
                            out.extend(self._selection_moves(st4, ph))
                        if lo <= 0:
                            st5 = st4.copy()
                            st5.sel = None
                            out.append((Move("done", act.name, 0, actor), A.run(act.body, st5, {p.name: 0})))
        return out

    def _selection_moves(self, w: Work, ph):
        A = self.A
        name, k, lo, hi = w.sel
        act = next(a for a in ph.actions if a.name == name)
        p = act.param
        out = []
        srcs = A.zone_slots(p.zone, w, {})
        dsts = A.zone_slots(p.dest, w, {})
        if len(srcs) != 1 or len(dsts) != 1:
            raise ExplorationLimit("a card choice whose zones the abstraction cannot tell")
        src, dst = srcs[0], dsts[0]
        if k < hi:
            tr, anon = A.cards_in(w, src)
            for c in tr + ([ANON] if anon else []):
                st = w.copy()
                _inc(st.sizes, src, -1)
                _inc(st.sizes, dst, 1)
                if c != ANON:
                    st.tracked[A.track_index[c]] = dst
                st.events.append(("choose", src, dst, c))
                if k + 1 >= hi:
                    st.sel = None
                    res = A.run(act.body, st, {p.name: k + 1})
                else:
                    st.sel = (name, k + 1, lo, hi)
                    res = [(st, None)]
                out.append((Move("choose", name, c, w.actor), res))
        if k >= lo and k > 0:
            st = w.copy()
            st.sel = None
            out.append((Move("done", name, k, w.actor), A.run(act.body, st, {p.name: k})))
        return out

    def _play(self, w: Work, ph, p: int, hand: int, c) -> list:
        A = self.A
        tz = A.game.trick_zone
        _inc(w.sizes, hand, -1)
        _inc(w.sizes, tz, 1)
        if c != ANON:
            w.tracked[A.track_index[c]] = tz
        w.events.append(("play", hand, tz, c))
        tn, played, to_play, leader, won, last = w.trick
        played = played + ((p, c),)
        t = ph.trick
        results = []
        for st, skip in A._fork(w, A.eval(t.skip, w, {})):
            active = [q for q in range(A.n) if q != skip]
            if len(played) < len(active):
                st.trick = (tn, played, self._next_active(p, skip), leader, won, last)
                results.append((st, "stay"))
                continue
            for st2, winner in A._fork(st, [q for q, _ in played]):
                if won and won[0] == "T":
                    won2 = ["T", won[1] + 1]
                elif won and won[0] == "S":
                    sides = list(won[1])
                    sides[A.game.side_of[winner]] += 1
                    won2 = ["S", tuple(sides)]
                else:
                    won2 = list(won)
                    won2[winner] += 1
                taken = A.game.taken_base + winner
                if st2.sizes[tz] >= 0:
                    _inc(st2.sizes, taken, st2.sizes[tz])
                else:
                    st2.sizes[taken] = UNKNOWN if st2.sizes[taken] != DEAD else DEAD
                st2.sizes[tz] = 0
                st2.tracked = [taken if z == tz else z for z in st2.tracked]
                st2.events.append(("trick_won", winner))
                st2.trick = (tn, (), -1, leader, tuple(won2), winner)
                after = A.run(t.after, st2, {}) if t.after else [(st2, None)]
                for st2b, ex_after in after:
                    if ex_after is not None:
                        results.append((st2b, ex_after))
                        continue
                    results.extend(self._after_trick(st2b, t, tn, leader, tuple(won2), winner))
        return results

    def _after_trick(self, st2, t, tn, leader, won2, winner):
        """After a trick (and its ``after trick`` block): the next trick, led by the winner, or ``then``."""
        A = self.A
        results = []
        for st3, count in A._fork(st2, A.eval(t.count, st2, {})):
            if not isinstance(count, Interval) and tn >= count:
                st3.trick = (tn, (), -1, leader, won2, winner)
                results.extend(A.run(t.then, st3, {}))
            else:
                st3.trick = (tn + 1, (), winner, winner, won2, winner)
                results.append((st3, "stay"))
        return results

    # -- the graph -------------------------------------------------------------------------------
    def explore(self) -> Explored:
        t0 = time.perf_counter()
        A = self.A
        G = nx.MultiDiGraph()
        states: dict = {}
        frontier = []
        initial = []
        ex = Explored(G, states, initial, 0.0)
        G.add_node(MATCH_OVER)
        for w in A.deal_starts():
            key = self._add(self.hub(w), "decision", states, frontier, ex, None)
            if key not in initial:
                initial.append(key)
                ex.initial_events[key] = ()
                ex.initial_perm[key] = getattr(w, "perm", None)
                ex.initial_rot[key] = getattr(w, "rot", 0)
        while frontier:
            if len(states) > self.max_states:
                raise ExplorationLimit(f"more than {self.max_states} abstract states")
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise ExplorationLimit("time budget exhausted during exploration")
            key = frontier.pop()
            w = states[key]
            A.current = (key, None)
            seen_edges = set()
            for move, results in self.moves(w.copy()):
                for st, exit_ in results:
                    for st2, kind in self._after(st, exit_, ex, key):
                        for obs in self.observers:
                            obs(st2, kind, key, move)
                        events, exact = tuple(st2.events), st2.exact
                        gains = getattr(st2, "_end_gains", None)
                        if gains is None and kind == "over":
                            gains = st2.gains
                        succ = self._add(st2, kind, states, frontier, ex, key)
                        if (succ, move, gains) in seen_edges:
                            continue  # the same outcome of the same move, reached by other draws
                        seen_edges.add((succ, move, gains))
                        G.add_edge(key, succ, move=move, events=events, exact=exact, end_gains=gains,
                                   perm=getattr(st2, "perm", None), rot=getattr(st2, "rot", 0))
        ex.seconds = time.perf_counter() - t0
        return ex

    def _after(self, st: Work, exit_: str | None, ex: Explored, src_key):
        if exit_ in (None, "stay"):
            return [(st, "decision")]
        if exit_ == "over" or (exit_ and exit_.startswith("error:")):
            return [(st, exit_)]
        if exit_ == "end":
            gains = st.gains
            out = []
            for st2, kind in self.end_deal(st):
                st2._end_gains = gains
                out.append((st2, kind))
            ex.deal_ends.append((src_key, gains))
            return out
        res = self.settle([(st, exit_)])
        out = []
        for st2, kind in res:
            if kind == "end":
                gains = st2.gains
                for st3, kind3 in self.end_deal(st2):
                    st3._end_gains = gains
                    out.append((st3, kind3))
                ex.deal_ends.append((src_key, gains))
            else:
                out.append((st2, kind))
        return out

    def _add(self, st: Work, kind: str, states, frontier, ex: Explored, src_key):
        if kind == "over":
            return MATCH_OVER
        if kind.startswith("error:"):
            node = (ERROR, kind[len("error:"):])
            if node not in ex.graph:
                ex.graph.add_node(node)
                ex.errors.append((src_key, kind[len("error:"):]))
            return node
        self.A.forget(st)
        st.perm = self.A.canonical_suits(st)
        st.rot = self.A.rotate(st)
        key = st.key()
        # key[7] is the gains (Work.key)
        if isinstance(src_key, tuple) and len(src_key) == len(key) and key[7] != src_key[7] and \
                key[:7] == src_key[:7] and key[8:] == src_key[8:]:
            # the move changed nothing but the per-deal gains, so it can be repeated for ever: widen them
            # beyond what the deal_bound properties compare with, else the states would never run out
            t = self.A.gain_threshold
            st.gains = tuple(tuple(_widen_gain(x, t) for x in row) for row in st.gains)
            key = st.key()
        if key not in states:
            clean = st.copy()
            clean.events = []
            clean.exact = True
            states[key] = clean
            ex.graph.add_node(key)
            frontier.append(key)
        return key

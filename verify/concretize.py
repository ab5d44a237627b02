"""Concretization: turn an abstract path into a concrete sequence the engine replays.

An abstract path fixes the decisions (named actions, the class of each card:
a tracked card or an anonymous one) and the classes of the chance draws, and the
winner of each trick.  :func:`realize` searches for concrete cards and chance
outcomes that follow it (random restarts, bounded), replays them in the engine,
and returns the record only if the engine accepts every step and the caller's
``check`` holds on the final concrete state.  A path that cannot be realized is
never reported as a refutation.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from atout.engine.state import IllegalActionError

from .absint import ANON


@dataclass
class Realization:
    steps: list[dict]      # [{"player", "action", "text"}] from the start of the match
    state: object          # the engine state at the end
    prefix_len: int        # steps before the abstract path starts (earlier deals played by random bots)


class _Fail(Exception):
    pass


def realize(game, A, init_key, init_events, edges, check, attempts: int = 300, seed: int = 0,
            extra_cycles: int = 0, cycle_from: int | None = None, init_perm=None,
            seconds: float = 3.0) -> Realization | None:
    """Find concrete steps following ``edges`` (a list of edge-data dicts) from the deal start ``init_key``.

    ``check(state) -> bool`` must hold at the end.  With ``extra_cycles`` > 0, the edges from index
    ``cycle_from`` on are replayed that many more times (a lasso's cycle).
    """
    rng = random.Random(seed)
    tracked = set(A.track)
    want_dealer = None if A.rotational else init_key[5]
    seq = list(edges)
    if extra_cycles and cycle_from is not None:
        seq = seq + seq[cycle_from:] * extra_cycles
    import time
    t_end = time.perf_counter() + seconds
    for _ in range(attempts):
        if time.perf_counter() > t_end:
            break
        try:
            st, steps, prefix = _reach_deal(game, want_dealer, rng)
            sigma = _Relabel(game, A)
            sigma.turn(st.dealer - init_key[5])   # the abstraction sees the table from the dealer's seat
            _draws(st, steps, init_events, tracked, rng, sigma)
            sigma.compose(init_perm)
            for e in seq:
                _apply_move(st, steps, e, tracked, rng, sigma)
                sigma.compose(e.get("perm"))
                sigma.turn(e.get("rot", 0))
            if check(st):
                return Realization(steps, st, prefix)
        except (_Fail, IllegalActionError):
            continue
    return None


def _record(st, steps, action):
    player = st.current_player()
    steps.append({"player": player if player >= 0 else -1, "action": action, "text": st.action_to_string(action)})
    st.apply_action(action)


def _reach_deal(game, dealer: int, rng):
    """A concrete state at the first chance node of a deal dealt by ``dealer`` (earlier deals: random play)."""
    st = game.new_initial_state()
    steps: list[dict] = []
    for _ in range(5000):
        if st.is_terminal():
            raise _Fail("the match ended before the wanted deal")
        if (dealer is None or st.dealer == dealer) and st.is_chance_node() and not _deal_started(st):
            return st, steps, len(steps)
        acts = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
        _record(st, steps, rng.choice(acts))
    raise _Fail("no such deal")


def _deal_started(st) -> bool:
    """Whether any card of the current deal has been dealt yet (the home zone is no longer full)."""
    g = st.game
    return len(st.zones[g.home_zone]) != g.num_cards


class _Relabel:
    """The map from the abstraction's labels to the engine's: the explorer relabels suits by symmetry and
    turns the table so that the dealer sits in seat 0."""

    def __init__(self, game, A=None):
        self.nr = game.nranks
        self.n = game.players
        self.A = A
        self.sigma = list(range(len(game.deck.suits)))
        self.R = 0  # concrete seat = (abstract seat + R) mod n
        self._slots = None

    def turn(self, r: int) -> None:
        if r:
            self.R = (self.R + r) % self.n
            self._slots = None

    def seat(self, p):
        return (p + self.R) % self.n if p is not None and p >= 0 else p

    def slot(self, z):
        if self.A is None or not self.R:
            return z
        if self._slots is None:
            self._slots = self.A.slot_rotation(-self.R)
        return self._slots[z]

    def compose(self, perm) -> None:
        if perm is None:
            return
        inv = [0] * len(perm)
        for old, new in enumerate(perm):
            inv[new] = old
        self.sigma = [self.sigma[inv[a]] for a in range(len(perm))]

    def card(self, c):
        if c is None or c < 0:
            return c
        s, r = divmod(c, self.nr)
        return self.sigma[s] * self.nr + r

    def suit(self, s):
        return self.sigma[s] if s is not None and s >= 0 else s


def _draws(st, steps, events, tracked, rng, sigma):
    for ev in events:
        if ev[0] != "draw":
            continue
        _, src, dst, c = ev
        src, dst = sigma.slot(src), sigma.slot(dst)
        if not st.is_chance_node():
            if st.game.hidden_zone[src]:
                raise _Fail("expected a chance node")
            continue  # a move from a visible zone is not a chance event
        psrc, pdst = st.pending[0]
        if (psrc, pdst) != (src, dst):
            raise _Fail("chance draw between other zones")
        _record(st, steps, _pick(st.zones[src], sigma.card(c), tracked, rng))


def _pick(cards, c, tracked, rng):
    if c is not None and c >= 0:
        if c not in cards:
            raise _Fail("tracked card not available")
        return c
    pool = [x for x in cards if x not in tracked]
    if not pool:
        raise _Fail("no anonymous card available")
    return rng.choice(pool)


def _apply_move(st, steps, e: dict, tracked, rng, sigma):
    move = e["move"]
    events = list(e["events"])
    g = st.game
    if move.kind == "start":  # the deal: chance draws only
        _draws(st, steps, events, tracked, rng, sigma)
        return
    if st.is_terminal() or st.is_chance_node():
        raise _Fail("not at a decision")
    if st.current_player() != sigma.seat(move.actor):
        raise _Fail("another player is to act")
    legal = st.legal_actions()
    if move.kind == "named":
        value = move.value
        act = next((x for x in g.phases[st.phase].actions if x.name == move.action), None)
        if act is not None and act.param is not None and act.param.type.kind == "suit":
            value = sigma.suit(value)
        a = g.slot_index.get((move.action, value))
        if a not in legal:
            raise _Fail("named action not legal")
        _record(st, steps, a)
    elif move.kind == "done":
        if g.done_action not in legal:
            raise _Fail("done not legal")
        _record(st, steps, g.done_action)
    elif move.kind in ("card", "choose"):
        want = sigma.card(move.value)
        cands = [a for a in legal if a < g.num_cards and (a == want if want is not None and
                                                          want >= 0 else a not in tracked)]
        if not cands:
            raise _Fail("no card of the class")
        _record(st, steps, rng.choice(cands))
    elif move.kind == "play":
        play_ev = next((ev for ev in events if ev[0] == "play"), None)
        won_ev = next((ev for ev in events if ev[0] == "trick_won"), None)
        c = sigma.card(play_ev[3]) if play_ev else ANON
        cands = [a for a in legal if a < g.num_cards and (a == c if c >= 0 else a not in tracked)]
        if not cands:
            raise _Fail("no legal card of the class")
        a = _choose_for_winner(st, cands, sigma.seat(won_ev[1]) if won_ev else None, rng)
        if won_ev is not None:
            # who takes the trick, read before the effects that follow it run: after the last trick of a
            # deal the engine ends the deal and starts the next, which resets last_winner
            probe = st.clone()
            probe._play_card(a)
            if probe.last_winner != sigma.seat(won_ev[1]):
                raise _Fail("trick won by another player")
        _record(st, steps, a)
    else:  # pragma: no cover
        raise _Fail(f"unknown move {move.kind}")
    _draws(st, steps, events, tracked, rng, sigma)


def _choose_for_winner(st, cands, winner, rng):
    """Prefer a card that lets ``winner`` take the trick (strongest for him, weakest for the others)."""
    g = st.game
    ph = g.phases[st.phase]
    trump = g.compile(ph.trick.trump)(st, {})
    me = st.current_player()
    if winner is None:
        return rng.choice(cands)
    best = None
    for p, c in st.trick_cards:
        if best is None or st._beats(c, best, trump):
            best = c

    def strength(c):
        return (g.suit_of[c] == trump, g.strength_of[c])

    if me == winner:
        if best is None:
            return max(cands, key=strength) if rng.random() < 0.8 else rng.choice(cands)
        beating = [c for c in cands if st._beats(c, best, trump)]
        return max(beating or cands, key=strength)
    losing = [c for c in cands if best is None or not st._beats(c, best, trump)]
    return min(losing or cands, key=strength) if rng.random() < 0.8 else rng.choice(cands)

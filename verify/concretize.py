"""Concretization: turn an abstract path into a concrete sequence the engine replays.

An abstract path fixes the decisions (named actions, the class of each card: a tracked card or an
anonymous one), the classes of the chance draws and the winner of each trick.  :func:`realize` searches
for concrete cards and chance outcomes that follow it (seeded random restarts, a bounded number of
attempts), replays them in the engine, and returns the record only if the engine accepts every step and
the caller's ``check`` holds on the final concrete state.  A path that cannot be realised is never
reported as a refutation.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from atout.engine.evaluate import RuleError
from atout.engine.machine import RANDOM_DRAW
from atout.engine.state import IllegalActionError

from .values import ANON


@dataclass
class Realization:
    steps: list[dict]      # [{"player", "action", "text"}] from the start of the match
    state: object          # the engine state at the end (None when the last step raised a rule error)
    prefix_len: int        # steps before the abstract path starts
    error: str | None = None   # the rule error the last step raised (expect_error)
    error_phase: str | None = None   # the phase the engine was in when it raised it


class _Fail(Exception):
    pass


def realize(game, A, init_key, edges, check, attempts: int = 300, seed: int = 0, extra_cycles: int = 0,
            cycle_from: int | None = None, init_perm=None, init_rot: int = 0,
            expect_error: bool = False) -> Realization | None:
    """Find concrete steps following ``edges`` (a list of edge-data dicts) from the first deal's start node
    ``init_key``.

    ``check(state) -> bool`` must hold at the end.  With ``extra_cycles`` > 0, the edges from index
    ``cycle_from`` on are replayed that many more times (a lasso's cycle).  With ``expect_error``, success
    is the engine raising a rule error at the last edge.
    """
    rng = random.Random(seed)
    tracked = set(A.track)
    seq = list(edges)
    if extra_cycles and cycle_from is not None:
        seq = seq + seq[cycle_from:] * extra_cycles
    dealer0 = _hub_dealer(A, init_key, init_rot)
    for _ in range(attempts):
        steps: list[dict] = []
        try:
            st = game.new_initial_state()
            if st.is_chance_node() and game.dealer_by_chance and st.pending and st.pending[0][0] < 0:
                _record(st, steps, dealer0)
            if st.is_terminal() or st.dealer != dealer0:
                raise _Fail("the match does not start with this dealer")
            sigma = _Relabel(game, A)
            sigma.turn(init_rot)
            sigma.compose(init_perm)
            for k, e in enumerate(seq):
                try:
                    _apply_move(st, steps, e, tracked, rng, sigma)
                except RuleError as exc:
                    if expect_error and k == len(seq) - 1:
                        return Realization(steps, None, 0, str(exc), st.phase)
                    raise _Fail("a rule error on the way") from None
                sigma.compose(e.get("perm"))
                sigma.turn(e.get("rot", 0))
            if not expect_error and check(st):
                return Realization(steps, st, 0)
        except (_Fail, IllegalActionError):
            continue
    return None


def _hub_dealer(A, init_key, rot: int) -> int:
    """The concrete first dealer of an initial deal-start node (seen from the dealer's seat when rotated)."""
    dealer = init_key[6]
    return (dealer + rot) % A.n if rot else dealer


def _record(st, steps, action):
    player = st.current_player()
    steps.append({"player": player if player >= 0 else -1, "action": action, "text": st.action_to_string(action)})
    st.apply_action(action)


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
        if ev[0] == "random":     # 'VAR = random {...}': outcome i of the list, the engine's chance action i
            if not st.is_chance_node() or st.pending[0][0] != RANDOM_DRAW:
                raise _Fail("expected a 'random' chance node")
            _record(st, steps, ev[2])
            continue
        if ev[0] != "draw":
            continue
        _, src, dst, c = ev
        src, dst = sigma.slot(src), sigma.slot(dst)
        if not st.game.hidden_zone[src]:
            continue  # a move from a visible zone is not a chance event: the engine takes the top card
        if not st.is_chance_node():
            raise _Fail("expected a chance node")
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
    if move is None:
        raise _Fail("an edge without a move")
    if move.kind == "start":  # the deal: chance draws only
        _draws(st, steps, events, tracked, rng, sigma)
        return
    if st.is_terminal() or st.is_chance_node():
        raise _Fail("not at a decision")
    if st.current_player() != sigma.seat(move.actor):
        raise _Fail("another player is to act")
    try:
        legal = st.legal_actions()
    except RuleError:
        raise _Fail("a rule error on the way") from None
    if move.kind == "named":
        value = move.value
        act = next((x for x in g.phases[st.phase].actions if x.name == move.action), None)
        if act is not None and act.param is not None:
            if act.param.type.kind == "suit":
                value = sigma.suit(value)
            elif act.param.type.kind == "player":
                value = sigma.seat(value)
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
        won_ev = next((ev for ev in events if ev[0] == "trick_won"), None)
        c = sigma.card(move.value) if move.value is not None else ANON
        cands = [a for a in legal if a < g.num_cards and (a == c if c >= 0 else a not in tracked)]
        if not cands:
            raise _Fail("no legal card of the class")
        a = _choose_for_winner(st, cands, sigma.seat(won_ev[1]) if won_ev else None, rng)
        if won_ev is not None:
            # who takes the trick, read before the effects that follow it run: after the last trick of a
            # deal the engine ends the deal and starts the next, which resets last_winner
            probe = st.clone()
            try:
                probe._play_card(a)
            except RuleError:
                pass
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
    trump = st._trump(ph.trick)
    me = st.current_player()
    if winner is None:
        return rng.choice(cands)
    best = None
    for p, c in st.trick_cards:
        if best is None or st._beats(c, best, trump):
            best = c
    so, strength_of = st._order(trump)

    def strength(c):
        return (so[c] == trump, strength_of[c])

    if me == winner:
        if best is None:
            return max(cands, key=strength) if rng.random() < 0.8 else rng.choice(cands)
        beating = [c for c in cands if st._beats(c, best, trump)]
        return max(beating or cands, key=strength)
    losing = [c for c in cands if best is None or not st._beats(c, best, trump)]
    return min(losing or cands, key=strength) if rng.random() < 0.8 else rng.choice(cands)

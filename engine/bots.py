"""Bots that play any compiled game: ``random``, ``greedy`` and ``ismcts`` (:mod:`.ismcts`).

A bot is called with a state where it is to act and returns one legal action.
Bots see only what their seat may see, except that the greedy bot's one-step
look-ahead reads public variables of a cloned state (no hidden cards).
"""
from __future__ import annotations

import random


class RandomBot:
    """Uniformly random legal action."""
    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def step(self, state) -> int:
        return self.rng.choice(state.decision_actions())


class GreedyBot:
    """A simple greedy player.

    * A named action that immediately raises the bot's own match score (e.g. announcing
      the king of trumps) is taken at once.
    * In a trick: win the trick as cheaply as possible when some card wins it, otherwise
      throw the weakest card (a non-trump before a trump).
    * When choosing cards to give up (a discard): give up the weakest non-trump cards
      first, and stop ("done") once every remaining card is a trump or an honour.
    * Other named choices: uniformly random.
    """
    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def step(self, state) -> int:
        g = state.game
        legal = state.decision_actions()
        me = state.current_player()
        named = [a for a in legal if a >= g.num_cards]
        cards = [a for a in legal if a < g.num_cards]
        best, best_gain = None, 0
        for a in named:
            gain = self._score_gain(state, a, me)
            if gain > best_gain:
                best, best_gain = a, gain
        if best is not None:
            return best
        phase = g.phases[state.phase]
        if cards and phase.kind == "trick":
            return self._trick_card(state, cards)
        if cards and state.selecting is not None or (cards and g.done_action in legal) or (
                cards and any(a.param is not None and a.param.kind == "choose" for a in phase.actions)):
            trump = self._trump(state)
            weak = [c for c in cards if g.suit_of[c] != trump and g.strength_of[c] < g.nranks // 2]
            if weak:
                return min(weak, key=lambda c: g.strength_of[c])
            if g.done_action in legal:
                return g.done_action
            return min(cards, key=lambda c: (g.suit_of[c] == trump, g.strength_of[c]))
        return self.rng.choice(legal)

    @staticmethod
    def _score_gain(state, action: int, me: int) -> int:
        clone = state.clone()
        before = _own_score(state, me)
        try:
            clone.apply_action(action)
        except Exception:  # a rule error in the look-ahead: not a gain
            return 0
        return _own_score(clone, me) - before

    @staticmethod
    def _trump(state) -> int:
        g = state.game
        for ph in g.phases.values():
            if ph.kind == "trick" and ph.trick is not None:
                return g.compile(ph.trick.trump)(state, {})
        return -1

    def _trick_card(self, state, cards: list[int]) -> int:
        g = state.game
        trick = g.phases[state.phase].trick
        trump = g.compile(trick.trump)(state, {})
        strength = g.strength_of
        if state.trick_cards:
            best = state.trick_cards[0][1]
            for _, c in state.trick_cards[1:]:
                if state._beats(c, best, trump):
                    best = c
            winners = [c for c in cards if state._beats(c, best, trump)]
            if winners:
                return min(winners, key=lambda c: (g.suit_of[c] == trump, strength[c]))
            return min(cards, key=lambda c: (g.suit_of[c] == trump, strength[c]))
        # leading: the strongest non-trump, else the strongest card
        plain = [c for c in cards if g.suit_of[c] != trump]
        return max(plain or cards, key=lambda c: strength[c])


def _own_score(state, me: int) -> int:
    total = 0
    for v in state.game.ir.vars:
        if v.scope == "match" and v.per == "player" and v.type.kind == "int":
            total += state.vars[v.name][me]
    return total


def _ismcts(seed=None, iterations: int | None = None):
    from .ismcts import DEFAULT_ITERATIONS, ISMCTSBot
    return ISMCTSBot(seed, DEFAULT_ITERATIONS if iterations is None else iterations)


BOTS = {"random": RandomBot, "greedy": GreedyBot, "ismcts": _ismcts}
#: The largest search budget ``ismcts:N`` accepts (iterations a move).
MAX_ISMCTS_ITERATIONS = 100_000


def bot_name(text: str) -> str:
    """``text`` if it names a bot: ``random``, ``greedy``, ``ismcts`` or ``ismcts:N`` (N iterations a move,
    1..100,000; the default is 200); raises ValueError saying what is accepted otherwise."""
    name, colon, budget = text.partition(":")
    if name in BOTS and not colon:
        return text
    if name == "ismcts" and colon:
        if budget.isdigit() and 1 <= int(budget) <= MAX_ISMCTS_ITERATIONS:
            return f"ismcts:{int(budget)}"
        raise ValueError(f"'{text}': the iterations of ismcts:N are a whole number from 1 to "
                         f"{MAX_ISMCTS_ITERATIONS:,}, e.g. ismcts:400")
    raise ValueError(f"no bot '{text}': the bots are random, greedy, ismcts and ismcts:N (N iterations a move)")


def make_bot(name: str, seed: int | None = None):
    """A bot by name (``random``, ``greedy``, ``ismcts`` or ``ismcts:N``, see :func:`bot_name`); raises
    KeyError for another name."""
    try:
        base, _, budget = bot_name(name).partition(":")
    except ValueError:
        raise KeyError(name) from None
    return _ismcts(seed, int(budget)) if budget else BOTS[base](seed)

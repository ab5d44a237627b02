"""Differential test: rules/euchre.atout against OpenSpiel's own ``euchre`` (open_spiel 2.0.2).

Both games are driven side by side with the same chance outcomes (dealer, deal, upcard) and the same choices.
Action ids differ, so they are mapped by meaning: a card by its rank and suit (Atout numbers cards suit by suit,
highest rank first; OpenSpiel numbers them rank by rank from the 9, suits C D H S); a bid, the alone and partner
decisions by what they do.  At every step the player to act, the legal action *sets* (chance outcomes with their
probabilities at chance nodes) must be equal after mapping; at the end the returns must be equal.

The default run plays 2,000 seeded games (500 for each of OpenSpiel's four parameter settings); set
``ATOUT_EUCHRE_GAMES=N`` for a longer run of N games per setting.  Half of the games use a biased policy
(preferring to make trumps and to go alone, or passing whenever it may) so that the rare paths (lone hands, lone
defenders, marches, hands thrown in) are reached.
"""
from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path

import pyspiel
import pytest

from _agreement import play_against_openspiel

from atout.compiler import compile_file
from atout.engine import Game

RULES = Path(__file__).resolve().parent.parent / "rules" / "euchre.atout"
GAMES = int(os.environ.get("ATOUT_EUCHRE_GAMES", "500"))
SETTINGS = [(False, True), (False, False), (True, True), (True, False)]  # (allow_lone_defender, stick_the_dealer)

# OpenSpiel's non-card actions (its documentation and action_to_string): 24 Pass, 25+s make suit s trump
# (suits C D H S), 29 Alone, 30 Partner.
OS_PASS, OS_ALONE, OS_PARTNER = 24, 29, 30


def _game(tmp_path: Path, lone_defender: bool, stick: bool) -> Game:
    """rules/euchre.atout with its two options set (a variant file that overrides them)."""
    variant = tmp_path / f"euchre_{int(lone_defender)}{int(stick)}.atout"
    variant.write_text(f'extends "{RULES}"\n'
                       f"override option stick_the_dealer: bool = {'true' if stick else 'false'}\n"
                       f"override option allow_lone_defender: bool = {'true' if lone_defender else 'false'}\n",
                       encoding="utf-8")
    return Game(compile_file(str(variant)))


def _maps(game: Game) -> tuple[dict[int, int], dict[int, int]]:
    """(atout card id -> OpenSpiel card id, atout named action id -> OpenSpiel action id), built from names."""
    os_card = {pyspiel.euchre.card_string(c): c for c in range(24)}
    cards = {}
    for c in range(game.num_cards):
        suit = game.deck.suits[game.suit_of[c]]
        rank = game.deck.ranks[c % game.nranks]
        cards[c] = os_card[suit[0].upper() + ("T" if rank == "10" else rank)]
    os_suit = {"clubs": 0, "diamonds": 1, "hearts": 2, "spades": 3}
    named = {}
    for i, slot in enumerate(game.ir.action_slots):
        a = game.num_cards + i
        if slot.name == "pass":
            named[a] = OS_PASS
        elif slot.name == "call":
            named[a] = 25 + os_suit[game.deck.suits[slot.value]]
        elif slot.name == "alone":
            named[a] = OS_ALONE
        elif slot.name == "partner":
            named[a] = OS_PARTNER
    return cards, named


def _policy(rng: random.Random, legal: list[int], mode: int) -> int:
    """Mode 0, 2: uniform; 1: prefers making trumps and going alone; 3: passes whenever it may (so that the hand
    is thrown in when the dealer is not stuck); these reach the rare paths."""
    if mode == 3 and OS_PASS in legal:
        return OS_PASS
    if mode == 1 and rng.random() < 0.3:
        calls = [a for a in legal if 25 <= a <= 28]
        if calls:
            return rng.choice(calls)
        if OS_ALONE in legal:
            return OS_ALONE
    return rng.choice(legal)


def play_both(game: Game, os_game, cards, named, seed: int) -> tuple[list[float], int]:
    """Play one game in both engines; asserts agreement at every step; returns (returns, steps).  OpenSpiel's
    first chance node picks the dealer: its outcomes are seats, not cards."""
    to_os = {**cards, **named}
    ours, steps = play_against_openspiel(game, os_game, seed, to_os.__getitem__,
                                         lambda rng, legal: _policy(rng, legal, seed % 4),
                                         chance_to_os=lambda k, a: a if k == 0 else cards[a])
    return ours.returns(), steps


@pytest.mark.parametrize("lone_defender,stick", SETTINGS)
def test_euchre_agrees_with_openspiel(tmp_path, lone_defender, stick):
    game = _game(tmp_path, lone_defender, stick)
    os_game = pyspiel.load_game("euchre", {"allow_lone_defender": lone_defender, "stick_the_dealer": stick})
    assert game.num_players() == os_game.num_players() == 4
    cards, named = _maps(game)
    assert sorted(cards.values()) == list(range(24))
    assert sorted(set(named.values())) == [24, 25, 26, 27, 28, 29, 30]
    outcomes = Counter()
    for seed in range(GAMES):
        returns, _ = play_both(game, os_game, cards, named, seed)
        outcomes[abs(returns[0])] += 1
    # The games reached every kind of result of the settings (a check that the rare paths were exercised).
    kinds = {1, 2, 4} | ({0} if not stick else set())
    assert set(outcomes) == kinds, outcomes


def test_card_mapping_is_by_identity(tmp_path):
    """Hand-checked points of the mapping: OpenSpiel's C9 is 0, SA is 23, HJ is 10 (its documentation)."""
    game = _game(tmp_path, False, True)
    cards, named = _maps(game)
    by_name = {game.card_str(c): cards[c] for c in cards}
    assert by_name["9♣"] == 0 and by_name["A♠"] == 23 and by_name["J♥"] == 10 and by_name["10♦"] == 5

"""Differential test: rules/hearts.atout against OpenSpiel's own ``hearts`` (open_spiel 2.0.x).

Both games are driven side by side with the same chance outcomes (the pass direction, the deal) and the same
choices.  Card ids differ and are mapped by name (Atout numbers cards suit by suit, highest rank first; OpenSpiel
rank by rank from the 2, suits C D H S: its ``2C`` is 0 and ``AS`` 51).  The pass direction is chance outcome
``i`` in both (no pass, left, across, right).  At every step the player to act and the legal action *sets* (chance
outcomes with their probabilities at chance nodes) must be equal after mapping; at the end the returns must be
equal.

The default run plays 1,200 seeded games over eight parameter settings (every one of OpenSpiel's eight
parameters flipped from its default in some setting); ``ATOUT_HEARTS_GAMES=N`` plays N games per setting.  Half
of the games use a policy that prefers hearts and the Q of spades (so that moons are shot and hearts broken
early), the other half a uniform one.
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

RULES = Path(__file__).resolve().parent.parent / "rules" / "hearts.atout"
GAMES = int(os.environ.get("ATOUT_HEARTS_GAMES", "150"))

DEFAULTS = {"pass_cards": True, "no_pts_on_first_trick": True, "can_lead_any_club": False, "jd_bonus": False,
            "avoid_all_tricks_bonus": False, "must_break_hearts": True, "qs_breaks_hearts": True,
            "can_lead_hearts_instead_of_qs": False}
SETTINGS = [
    {},
    {"pass_cards": False},
    {"no_pts_on_first_trick": False, "can_lead_any_club": True},
    {"jd_bonus": True},
    {"avoid_all_tricks_bonus": True, "jd_bonus": True},
    {"must_break_hearts": False},
    {"qs_breaks_hearts": False, "can_lead_hearts_instead_of_qs": True},
    {"can_lead_hearts_instead_of_qs": True, "pass_cards": False},
]
OS_RANKS = "23456789TJQKA"
OS_SUITS = "CDHS"


def _game(tmp_path: Path, params: dict) -> Game:
    """rules/hearts.atout with OpenSpiel's parameters as its options (a variant file that overrides them)."""
    variant = tmp_path / f"hearts_{abs(hash(tuple(sorted(params.items()))))}.atout"
    lines = [f'extends "{RULES}"']
    for k, v in params.items():
        lines.append(f"override option {k}: bool = {'true' if v else 'false'}")
    variant.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Game(compile_file(str(variant)))


def _card_map(game: Game) -> dict[int, int]:
    """atout card id -> OpenSpiel card id (rank * 4 + suit), by name."""
    out = {}
    for c in range(game.num_cards):
        suit = game.deck.suits[game.suit_of[c]]
        rank = game.deck.ranks[c % game.nranks]
        out[c] = OS_RANKS.index("T" if rank == "10" else rank) * 4 + OS_SUITS.index(suit[0].upper())
    return out


def _policy(rng: random.Random, legal: list[int], mode: int) -> int:
    """Mode 1: prefers hearts and the Q of spades half of the time (moons, early breaks); else uniform."""
    if mode == 1 and rng.random() < 0.5:
        points = [a for a in legal if a % 4 == 2 or a == 10 * 4 + 3]
        if points:
            return rng.choice(points)
    return rng.choice(legal)


def _os_outcomes(k: int, theirs) -> dict[int, float]:
    """OpenSpiel's outcomes at its ``k``-th chance node.  Its own inconsistency: with pass_cards=false its first
    chance node lists the four directions in chance_outcomes() but only "no pass" in legal_actions(); its
    parameter means no pass, and so does the rule file: one outcome, probability 1."""
    other = dict(theirs.chance_outcomes())
    if k == 0 and set(theirs.legal_actions()) != set(other):
        other = {a: 1.0 for a in theirs.legal_actions()}
    return other


def play_both(game: Game, os_game, cards: dict[int, int], seed: int) -> tuple[list[float], int]:
    """Play one game in both engines; asserts agreement at every step; returns (returns, steps).  The first
    chance node is the pass direction: its outcomes are 0..3 in both; the others are cards."""
    ours, steps = play_against_openspiel(game, os_game, seed, cards.__getitem__,
                                         lambda rng, legal: _policy(rng, legal, seed % 2),
                                         chance_to_os=lambda k, a: a if k == 0 else cards[a],
                                         os_outcomes=_os_outcomes)
    return ours.returns(), steps


@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults")
def test_hearts_agrees_with_openspiel(tmp_path, params):
    game = _game(tmp_path, params)
    os_game = pyspiel.load_game("hearts", {**DEFAULTS, **params})
    assert game.num_players() == os_game.num_players() == 4
    cards = _card_map(game)
    assert sorted(cards.values()) == list(range(52))
    returns = Counter()
    for seed in range(GAMES):
        r, _ = play_both(game, os_game, cards, seed)
        returns[0 in r or -10 in r] += 1     # a moon was shot (a player returned 0: 26 points)
    assert returns[False] > 0, returns


def test_card_mapping_is_by_identity(tmp_path):
    """Hand-checked points of the mapping: OpenSpiel's 2C is 0, AS is 51, QS is 43, 3C is 4 (its card order)."""
    game = _game(tmp_path, {})
    by_name = {game.card_str(c): v for c, v in _card_map(game).items()}
    assert (by_name["2♣"], by_name["A♠"], by_name["Q♠"], by_name["3♣"], by_name["2♦"]) == (0, 51, 43, 4, 1)


def test_moons_are_shot(tmp_path):
    """The biased policy reaches the rare path: in some seeded game a player shoots the moon (returns 26, 0, 0, 0
    up to the seat: the shooter 26 - 0, the others 26 - 26)."""
    game = _game(tmp_path, {})
    os_game = pyspiel.load_game("hearts")
    cards = _card_map(game)
    moons = 0
    for seed in range(1, 400, 2):
        r, _ = play_both(game, os_game, cards, seed)
        if sorted(r) == [0.0, 0.0, 0.0, 26.0]:
            moons += 1
            break
    assert moons, "no moon in 200 biased games"

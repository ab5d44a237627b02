"""Differential test: rules/spades.atout against OpenSpiel's own ``spades`` (open_spiel 2.0.x).

Both games are driven side by side with the same deal and the same choices.  Card ids differ and are mapped by
name (Atout numbers cards suit by suit, highest rank first; OpenSpiel suit by suit from the 2, suits C D H S: its
``C2`` is 0 and ``SA`` 51).  A bid of n tricks is action 52 + n in both (an int parameter ``bid(n: 0..13)``
numbers its actions in the order of its values).  At every step the player to act and the legal action *sets*
(chance outcomes with their probabilities at chance nodes) must be equal after mapping; at the end the returns
must be equal.

The default run plays 1,200 seeded games over eight parameter settings (each of OpenSpiel's five parameters
changed in some setting, with thresholds low enough for the win bonus and the mercy rule to be reached in one
hand); ``ATOUT_SPADES_GAMES=N`` plays N games per setting.  Half of the games use a policy that bids nil or high
more often (nil bids made and broken, bags, sets), the other half a uniform one.
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

RULES = Path(__file__).resolve().parent.parent / "rules" / "spades.atout"
GAMES = int(os.environ.get("ATOUT_SPADES_GAMES", "150"))

DEFAULTS = {"use_mercy_rule": True, "mercy_threshold": -350, "win_threshold": 500, "win_or_loss_bonus": 200,
            "num_tricks": 2}
SETTINGS = [
    {},
    {"win_threshold": 100},
    {"mercy_threshold": -100},
    {"win_threshold": 60, "mercy_threshold": -60, "win_or_loss_bonus": 50},
    {"mercy_threshold": 0, "win_threshold": 80},
    {"use_mercy_rule": False, "mercy_threshold": -100},
    {"num_tricks": 5},
    {"win_or_loss_bonus": 0, "win_threshold": 0},
]
OS_RANKS = "23456789TJQKA"
OS_SUITS = "CDHS"
BID = 52


def _game(tmp_path: Path, params: dict) -> Game:
    """rules/spades.atout with OpenSpiel's parameters as its options (a variant file that overrides them)."""
    variant = tmp_path / f"spades_{len(list(tmp_path.iterdir()))}.atout"
    lines = [f'extends "{RULES}"']
    for k, v in params.items():
        kind = "bool" if isinstance(v, bool) else "int"
        text = ("true" if v else "false") if isinstance(v, bool) else str(v)
        lines.append(f"override option {k}: {kind} = {text}")
    variant.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Game(compile_file(str(variant)))


def _action_map(game: Game) -> dict[int, int]:
    """atout action id -> OpenSpiel action id: cards by name (suit * 13 + rank from the 2), bids by value."""
    out = {}
    for c in range(game.num_cards):
        suit = game.deck.suits[game.suit_of[c]]
        rank = game.deck.ranks[c % game.nranks]
        out[c] = OS_SUITS.index(suit[0].upper()) * 13 + OS_RANKS.index("T" if rank == "10" else rank)
    for i, slot in enumerate(game.ir.action_slots):
        assert slot.name == "bid"
        out[game.num_cards + i] = BID + slot.value
    return out


def _policy(rng: random.Random, legal: list[int], mode: int) -> int:
    """Mode 1: bids nil a third of the time and high a third of the time; else uniform."""
    bids = [a for a in legal if a >= BID]
    if mode == 1 and bids:
        r = rng.random()
        if r < 0.33 and BID in bids:
            return BID
        if r < 0.66:
            return max(bids)
    return rng.choice(legal)


def play_both(game: Game, os_game, to_os: dict[int, int], seed: int) -> tuple[list[float], int]:
    """Play one game in both engines; asserts agreement at every step; returns (returns, steps)."""
    ours, steps = play_against_openspiel(game, os_game, seed, to_os.__getitem__,
                                         lambda rng, legal: _policy(rng, legal, seed % 2))
    return ours.returns(), steps


@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults")
def test_spades_agrees_with_openspiel(tmp_path, params):
    game = _game(tmp_path, params)
    os_game = pyspiel.load_game("spades", {**DEFAULTS, **params})
    assert game.num_players() == os_game.num_players() == 4
    assert game.num_distinct_actions() == os_game.num_distinct_actions() == 66
    to_os = _action_map(game)
    assert sorted(to_os.values()) == list(range(66))
    results = Counter()
    for seed in range(GAMES):
        r, _ = play_both(game, os_game, to_os, seed)
        results[r[0] > 0] += 1
    assert results[True] and results[False], results     # both sides won hands


def test_action_mapping_is_by_identity(tmp_path):
    """Hand-checked points of the mapping (OpenSpiel's action strings): C2 is 0, SA is 51, CA is 12, bid 0 is 52."""
    game = _game(tmp_path, {})
    to_os = _action_map(game)
    by_name = {game.card_str(c): to_os[c] for c in range(game.num_cards)}
    assert (by_name["2♣"], by_name["A♠"], by_name["A♣"], by_name["2♦"]) == (0, 51, 12, 13)
    assert to_os[game.slot_index[("bid", 0)]] == 52 and to_os[game.slot_index[("bid", 13)]] == 65


def test_bonus_and_mercy_are_reached(tmp_path):
    """With low thresholds the two rare rows fire in seeded games: a side that scores at least win_threshold
    and beats the other gets the bonus; one at or below mercy_threshold that is beaten loses it.  Without them a
    hand scores from -290 (two broken nils and 10 bags: -200 + 10 - 100) to 230 (13 bid and made beside a nil
    made), by hand; so with a bonus of 500 a return above 330 is a bonus and one below -330 a mercy loss."""
    params = {"win_threshold": 60, "mercy_threshold": -60, "win_or_loss_bonus": 500}
    game = _game(tmp_path, params)
    os_game = pyspiel.load_game("spades", {**DEFAULTS, **params})
    to_os = _action_map(game)
    seen = set()
    for seed in range(120):
        r, _ = play_both(game, os_game, to_os, seed)
        seen |= {"bonus" for x in r if x > 330} | {"mercy" for x in r if x < -330}
        if seen == {"bonus", "mercy"}:
            break
    assert seen == {"bonus", "mercy"}, seen

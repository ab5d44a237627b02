"""Deal-start bounds of the match variables (verify/match_invariant.py, issue 10).

* By hand: the bounds of tests/fixtures/audit/games_reset.atout (a game of 3 points, both sides reset when
  one is won, a bonus of 1 then 2 more) and of Whist's rubber (LW short whist: below 5 points a side when a
  deal starts, one game at most, rubber points 0 before a game and 1 to 3 after one).
* Concretely: at the start of every deal of seeded engine matches, the values satisfy the bounds (the
  abstraction covers the concrete runs).
* Where a match variable is written outside the deal-end blocks (Ecarte's king of trumps, scored during
  play), no bound is claimed.  The soundness cases games_reset / games_reset_faults check the verdicts.
"""
from __future__ import annotations

import functools
import os
import random

import pytest

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify import match_invariant
from atout.verify.absint import Abstraction
from atout.verify.checker import Spec, Verifier

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES_RESET = os.path.join(ROOT, "tests", "fixtures", "audit", "games_reset.atout")
WHIST = os.path.join(ROOT, "rules", "whist.atout")


@functools.lru_cache(maxsize=None)
def _bounds(path):
    game = Game(compile_file(path))
    ex, A, err = Verifier(game).exploration(Spec(precise=True, blind=True))
    assert ex is not None, err
    return game, ex.match_bounds


def _holds(bounds: dict, values: dict) -> bool:
    def cell(name, i):
        return values[name] if i is None else values[name][i]
    for ((name, i), case), b in bounds.items():
        if case is not None:
            (y, j), k = case
            if cell(y, j) != k:
                continue
            if b is match_invariant.BOTTOM:
                return False
        if b is match_invariant.BOTTOM:
            continue
        lo, hi = b
        v = cell(name, i)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return False
    return True


def _deal_starts(game, matches: int, seed: int) -> list:
    rng = random.Random(seed)
    starts = []
    for _ in range(matches):
        st = game.new_initial_state()
        steps = 0
        while not st.is_terminal() and steps < 20000:
            if st.is_chance_node():
                st.apply_action(rng.choice(st.chance_outcomes())[0])
            else:
                st.apply_action(rng.choice(st.legal_actions()))
            steps += 1
        starts.extend(d["before"] for d in st.deal_values)
    return starts


def test_games_reset_bounds_by_hand():
    """points <= 2 (3 wins a game and resets both), games <= 1 (the second ends the match), and the bonus
    is 0 before a first game, 1 after it (so the bonus tells the games too)."""
    _, bounds = _bounds(GAMES_RESET)
    assert match_invariant.describe(bounds) == (
        "points[0] <= 2, points[1] <= 2, games[0] <= 1, games[1] <= 1, bonus[0] <= 1, bonus[1] <= 1, "
        "games[0] == 0 -> bonus[0] <= 0, games[0] == 1 -> bonus[0] == 1, "
        "games[1] == 0 -> bonus[1] <= 0, games[1] == 1 -> bonus[1] == 1, "
        "bonus[0] == 0 -> games[0] <= 0, bonus[0] == 1 -> games[0] == 1, "
        "bonus[1] == 0 -> games[1] <= 0, bonus[1] == 1 -> games[1] == 1")


def test_whist_bounds_by_hand():
    """LW short whist: a side has at most 4 points when a deal starts (5 wins a game, which resets both),
    at most one game, and 0 rubber points before a game, 1 to 3 after one (3, 2 or 1 for the game)."""
    _, bounds = _bounds(WHIST)
    text = match_invariant.describe(bounds)
    for part in ("points[0] <= 4", "points[1] <= 4", "games[0] <= 1", "games[1] <= 1",
                 "games[0] == 0 -> rubber[0] <= 0", "games[0] == 1 -> 1 <= rubber[0] <= 3",
                 "games[1] == 1 -> 1 <= rubber[1] <= 3"):
        assert part in text, (part, text)


@pytest.mark.parametrize("path,matches", [(GAMES_RESET, 40), (WHIST, 6)], ids=["games_reset", "whist"])
def test_bounds_hold_at_every_concrete_deal_start(path, matches):
    game, bounds = _bounds(path)
    assert bounds
    starts = _deal_starts(game, matches, seed=11)
    assert len(starts) > matches          # matches of several deals
    bad = [s for s in starts if not _holds(bounds, s)]
    assert not bad, bad[:3]
    # and the bounds are not vacuous: some deal starts at the extremes they allow
    if path == GAMES_RESET:
        assert any(s["games"][0] == 1 and s["bonus"][0] == 1 for s in starts)
        assert any(max(s["points"]) == 2 for s in starts)


def test_no_bound_where_a_match_variable_is_written_during_play():
    """Ecarte's king of trumps scores a point when it is announced, in the middle of a deal: the match
    variables do not keep their deal-start values up to the deal-end block, so nothing is claimed."""
    game = Game(compile_file(os.path.join(ROOT, "rules", "ecarte.atout")))
    assert not match_invariant.applies(Abstraction(game))
    game2, _ = _bounds(GAMES_RESET)
    assert match_invariant.applies(Abstraction(game2))


def test_a_bound_that_fails_is_not_claimed():
    """A check with a violated holds(): the helper is not vacuous."""
    bounds = {(("points", 0), None): (None, 2)}
    assert _holds(bounds, {"points": [2, 3]})
    assert not _holds(bounds, {"points": [3, 0]})

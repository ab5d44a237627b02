"""The ranges of the match variables proved by z3 over the deal-end blocks (verify/match_ranges.py,
``prove_in_blocks``; issue 10: one exploration instead of two for Whist).

The gains route of the range lemma gives up when a ranged match variable is set with ``=`` (Whist resets
``points`` when a game is won).  When every write of a match variable is in a deal-end block that z3 follows,
the lemma is proved instead by induction over the deals, block by block.  The values below are by hand:

* games_reset.atout: points stay in 0..3 (2 + 1), the bonus in 0..3 (1, then 1 + 2): proved.  Its faulty twin
  adds 3 for the second game (1 + 3 = 4 > 3): not proved.
* Whist with ``game_points`` G: a side has at most G - 1 points when a deal starts (G wins a game, which
  resets both sides), tricks add at most 7 (13 - 6), and honours score only while both sides stand below G
  after the tricks (at most G - 1 + 4).  So the most ``points`` can reach is G - 1 + 7 = G + 6: within its
  range 0..15 for G = 9 (15), outside it for G = 10 (16, long whist).
"""
from __future__ import annotations

import os

import pytest

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify.checker import Verifier
from atout.verify.match_ranges import prove_in_blocks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AUDIT = os.path.join(ROOT, "tests", "fixtures", "audit")


def _verifier(path, **options):
    return Verifier(Game(compile_file(path, {k: str(v) for k, v in options.items()} or None)))


def test_games_reset_ranges_proved_over_the_blocks():
    V = _verifier(os.path.join(AUDIT, "games_reset.atout"))
    ok, why = V.range_lemma()
    assert ok, why
    assert "deal-end block" in why and "induction over the deals" in why
    # the '=' resets rule out the route over the gains: only the blocks prove it
    assert V.range_lemma_possible() is not None


def test_a_bonus_past_its_range_is_not_proved():
    V = _verifier(os.path.join(AUDIT, "games_reset_faults.atout"))
    ok, why = V.range_lemma()
    assert not ok
    assert prove_in_blocks(V) is None


@pytest.mark.parametrize("game_points,holds", [(9, True), (10, False)])
def test_whist_points_range_by_hand(game_points, holds):
    """G - 1 + 7 points at most: 15 for G = 9 (in 0..15), 16 for G = 10 (outside)."""
    V = _verifier(os.path.join(ROOT, "rules", "whist.atout"), game_points=game_points)
    ok, why = V.range_lemma()
    assert ok is holds, why
    if holds:
        assert "points[0] <= 8" in why     # the deal-start bound it rests on: G - 1


def test_no_claim_where_a_match_variable_is_written_during_play():
    """Ecarte's king of trumps scores when it is announced, in the middle of a deal: the blocks do not hold
    every write, so this route claims nothing (the gains route decides Ecarte's ranges)."""
    V = _verifier(os.path.join(ROOT, "rules", "ecarte.atout"))
    assert prove_in_blocks(V) is None

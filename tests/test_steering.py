"""The steered searches of the verifier weigh every kind of move (:func:`atout.verify.playouts.varied_sample`).

A steered search looks one step ahead at up to ``STEER_POOL`` options of a decision and plays the one whose
next state is closest, in the abstract graph, to where it wants to go.  When a decision has more options than
that, a uniform sample would leave out a rare kind of move most of the time: Bridge's pass is one action among
36 at the opening call, and a passed-out deal needs four passes in a row.  The sample now takes one option of
each kind (each named action, each card action, a card play) first.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify import playouts
from atout.verify.checker import Budget
from atout.verify.cli import verify_game

ROOT = Path(__file__).resolve().parent.parent


def _opening_call(path: str):
    """The first decision of a match of ``path``: its state, after the deal's chance steps (seeded)."""
    game = Game(compile_file(str(ROOT / path)))
    st = game.new_initial_state()
    rng = random.Random(3)
    while st.is_chance_node():
        st.apply_action(rng.choice([a for a, _ in st.chance_outcomes()]))
    return game, st


def test_every_kind_of_move_is_weighed_at_bridges_opening_call():
    game, st = _opening_call("rules/bridge.atout")
    options = st.legal_actions()
    # by hand: nobody has bid, so no double or redouble; the pass and each of the 35 bids 1C..7NT are legal
    names = {a: st.action_to_string(a) for a in options}
    assert len(options) == 36
    passes = [a for a, text in names.items() if text == "Pass"]
    assert len(passes) == 1
    for seed in range(20):
        pool = playouts.varied_sample(st, options, random.Random(seed))
        assert len(pool) == playouts.STEER_POOL == len(set(pool))
        assert set(pool) <= set(options)
        assert passes[0] in pool                 # a uniform sample of 16 of 36 leaves it out 5 times in 9
    # and the bids are not always the same ones
    assert len({frozenset(playouts.varied_sample(st, options, random.Random(s))) for s in range(5)}) > 1


def _guards_verdict(steps: int) -> str:
    results, _ = verify_game(Game(compile_file(str(ROOT / "tests/data/long_auction.atout"))), names=[],
                             builtins=True, budget=Budget(search_steps=steps))
    return next(r.verdict for r in results if r.name == "builtin:guards")


def test_a_passed_out_deal_is_reached_by_steering(monkeypatch):
    """tests/data/long_auction.atout: 60 bids and a pass; the condition 'passes == 4' holds only when the four
    players pass in a row before any bid.  Steering weighs the pass at every call and makes it hold within
    2,000 engine steps; with the uniform sample used before, the same budget never does (unknown)."""
    assert _guards_verdict(2000) == "proved"
    monkeypatch.setattr(playouts, "varied_sample",
                        lambda st, options, rng, k=playouts.STEER_POOL: rng.sample(options, k))
    assert _guards_verdict(2000) == "unknown"


def test_the_searches_of_one_verification_share_the_coverage_and_the_distances():
    """The coverage index and the distances to a set of targets are made once per exploration (kept on it),
    give what fresh ones give, and are made afresh once the graph has grown."""
    from atout.verify.alpha import Coverage, alpha, coverage_of
    from atout.verify.checker import Verifier
    game = Game(compile_file(str(ROOT / "tests/data/partnership_auction.atout")))
    V = Verifier(game)
    prop = next(p for p in game.ir.properties if p.name == "deal_swing")
    ex, A, _ = V.exploration(V.spec_for(prop))
    cov = coverage_of(ex, A)
    assert coverage_of(ex, A) is cov
    fresh = Coverage(ex, A)
    _, st = _opening_call("tests/data/partnership_auction.atout")
    key = alpha(A, st)[0]
    assert cov.find_all(key) == fresh.find_all(key) and cov.find_all(key)
    targets = set(list(ex.states)[-5:])
    dist = playouts._distances(ex, targets)
    assert dist == playouts.distances_to(ex, targets) and playouts._distances(ex, targets) is dist
    ex.graph.add_node(("a node added later",))
    assert coverage_of(ex, A) is not cov
    assert playouts._distances(ex, targets) is not dist


@pytest.mark.parametrize("pool", [12, 16, 30])
def test_a_search_the_abstraction_cannot_guide_plays_on_instead_of_weighing(monkeypatch, pool):
    """tests/fixtures/audit/table_rows_read_deal_number.atout: row b of table t fires only in the second deal
    when both players bid 29 (of 0..29); in the third deal with both bids 29 no row fires, so 'complete t' is
    false (by hand, the file's header).  The abstraction keeps the bids as an interval, so every bid weighed
    looks alike: a search that weighed them at every decision spent its budget on look-ahead (the code before
    found one of the two, which one depending on the sample size).  Now such a decision is played at random
    once its options looked alike, and the matches go on: both are found, whatever the sample size."""
    monkeypatch.setattr(playouts, "STEER_POOL", pool)
    game = Game(compile_file(str(ROOT / "tests/fixtures/audit/table_rows_read_deal_number.atout")))
    results, _ = verify_game(game)
    got = {r.name: r.verdict for r in results}
    assert got["ct"] == got["builtin:table:t"] == "refuted"
    assert got["builtin:guards"] == "proved"


def test_a_move_that_draws_is_weighed_by_where_the_draw_leads():
    """tests/data/swap_until_empty.atout (by hand, its header): the stock's condition holds only at the
    eleventh swap in a row; each swap ends at a chance node (the draw), which the steering now weighs by the
    decision the draw leads to.  The guards check witnesses every condition in the engine."""
    game = Game(compile_file(str(ROOT / "tests/data/swap_until_empty.atout")))
    results, _ = verify_game(game, names=[], builtins=True)
    guards = next(r for r in results if r.name == "builtin:guards")
    assert guards.verdict == "proved", guards.method

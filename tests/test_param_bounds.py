"""An int parameter whose bounds are read from the state (`bid(n: 0..hand_size)`, Oh Hell's bid of 0 to the
number of cards dealt): one action id per value the bounds can ever take, legal only between the bounds as they
stand.  The truth is in the header of tests/data/param_bounds/shrinking_bids.atout (hands of 3, 2, then 1
card); the engine, the exported module, the OpenSpiel export and the verifier are held to it."""
from __future__ import annotations

import random
from pathlib import Path

import pyspiel
import pytest

from _agreement import load_module, play_side_by_side
from atout.compiler import CompileError, compile_file, compile_text
from atout.engine import IllegalActionError, load
from atout.export import render
from atout.verify.checker import Budget
from atout.verify.cli import verify_game
from atout.verify.crosscheck import CrossCheck

DATA = Path(__file__).resolve().parent / "data" / "param_bounds"
BIDS = DATA / "shrinking_bids.atout"


def test_one_action_per_value_the_bounds_can_take():
    g = compile_file(str(BIDS))
    bid = next(a for p in g.phases for a in p.actions if a.name == "bid")
    # hand_size is declared 1..3: the lower bound is the constant 0, the upper one at most 3
    assert (bid.param.type.low, bid.param.type.high) == (0, 3)
    game = load(str(BIDS))
    names = [game.new_initial_state().action_to_string(a) for a in range(game.num_distinct_actions())]
    assert [n for n in names if n.startswith("bid")] == ["bid 0", "bid 1", "bid 2", "bid 3"]


def _bidding_states(game, seeds):
    """Every bidding decision of seeded random matches, with the number of cards in the bidder's hand."""
    for seed in seeds:
        rng = random.Random(seed)
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(rng.choice(st.chance_outcomes())[0])
                continue
            if st.phase == "bidding":
                yield st
            st.apply_action(rng.choice(st.legal_actions()))


def test_legal_bids_are_zero_to_the_cards_dealt():
    game = load(str(BIDS))
    seen = set()
    for st in _bidding_states(game, range(12)):
        cards = st.vars["hand_size"]
        assert cards == 3 - st.vars["round"]
        legal = [st.action_to_string(a) for a in st.legal_actions()]
        assert legal == [f"bid {n}" for n in range(cards + 1)]
        seen.add(cards)
        if cards < 3:          # 'bid 3' exists but is not legal with fewer cards: refused with a message
            bid3 = next(a for a in range(game.num_distinct_actions()) if st.action_to_string(a) == "bid 3")
            with pytest.raises(IllegalActionError):
                st.clone().apply_action(bid3)
    assert seen == {1, 2, 3}          # three deals, hands of 3, 2 and 1 card


def test_exported_module_and_openspiel_agree(tmp_path):
    out = tmp_path / "shrinking_bids_mod.py"
    out.write_text(render(str(BIDS), "python"), encoding="utf-8")
    mod = load_module(out, "shrinking_bids_mod")
    assert play_side_by_side(BIDS, mod, range(40)) > 1000
    # OpenSpiel needs bounds on the returns: at most 13 + 12 + 11 points
    ranged = tmp_path / "shrinking_bids_ranged.atout"
    ranged.write_text(BIDS.read_text(encoding="utf-8").replace(
        "match var points: int per player", "match var points: int in 0..36 per player"), encoding="utf-8")
    os_out = tmp_path / "shrinking_bids_os.py"
    os_out.write_text(render(str(ranged), "openspiel"), encoding="utf-8")
    os_mod = load_module(os_out, "shrinking_bids_os")
    pyspiel.random_sim_test(pyspiel.load_game(os_mod.SHORT_NAME), num_sims=5, serialize=True, verbose=False)


def test_verdicts_known_by_hand():
    """The bounds are in the guard, and the abstraction narrows hand_size by the bid chosen: no bid exceeds
    the hand (proved), seat 0 can bid 3 (refuted with a replayed trace); the cross-check agrees."""
    cross = CrossCheck()
    results, _ = verify_game(load(str(BIDS)), budget=Budget(cross_check=60, cross_steps=30_000), cross=cross)
    verdicts = {r.name: r.verdict for r in results}
    assert verdicts["bid_within_hand"] == "proved"
    assert verdicts["bid_at_most_two"] == "refuted"
    assert verdicts["builtin:no_rule_error"] == "proved"
    assert verdicts["builtin:no_dead_end"] == "proved"
    assert cross.failures == [] and cross.matches == 60


@pytest.mark.parametrize("bounds, message", [
    ("0..points[actor]", "give 'points' a range"),
    ("0..deal_number", "a bound of an int parameter must have a known range"),
    ("hand_size..0", "empty range"),
])
def test_bounds_without_a_known_range_are_errors(bounds, message):
    text = BIDS.read_text(encoding="utf-8").replace("bid(n: 0..hand_size)", f"bid(n: {bounds})")
    with pytest.raises(CompileError) as exc:
        compile_text(text, "bad.atout")
    assert message in str(exc.value)


def test_a_bid_above_the_hand_is_refused_with_the_bounds(tmp_path):
    """At the prompt, 'bid 3' with two cards dealt names the bounds and their line (not a Python error)."""
    from atout.engine.terminal import table_of
    game = load(str(BIDS))
    st = next(s for s in _bidding_states(game, range(12)) if s.vars["hand_size"] == 2)
    bid3 = next(a for a in range(game.num_distinct_actions()) if st.action_to_string(a) == "bid 3")
    why = table_of(game).why_not(st, bid3, st.legal_actions())
    assert why == "'bid 3' is not allowed now: 3 is outside `n: 0..hand_size` as it stands (shrinking_bids.atout:38)"
    guarded = tmp_path / "guarded.atout"
    guarded.write_text(BIDS.read_text(encoding="utf-8").replace('"bid" {', '"bid" when n != 1 {'), encoding="utf-8")
    g2 = load(str(guarded))
    st2 = next(s for s in _bidding_states(g2, range(12)) if s.vars["hand_size"] == 3)
    bid1 = next(a for a in range(g2.num_distinct_actions()) if st2.action_to_string(a) == "bid 1")
    assert table_of(g2).why_not(st2, bid1, st2.legal_actions()).startswith(
        "'bid 1' is not allowed now: its condition `n != 1` does not hold")

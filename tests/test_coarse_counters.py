"""Forgetting the deal variables read only as data when an exploration grows too large, and the counters
among them bounded by the longest path of the abstract graph (issue 10: Bridge's auction).

Expected values are by hand, in the header of tests/fixtures/audit/auction_calls.atout: an auction of ten
bids has at most 3 + 9 * 10 + 1 = 94 calls, so ``calls: int in 0..94`` holds and ``0..93`` does not."""
from __future__ import annotations

import functools
import os

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify.checker import Budget, Spec, Verifier
from atout.verify.cli import verify_game
from atout.verify.crosscheck import CrossCheck
from atout.verify.liveness import data_only_vars

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AUDIT = os.path.join(ROOT, "tests", "fixtures", "audit")
SMALL = 500      # coarsen_at for the fixtures: the auction keeping the call numbers exactly passes it


@functools.lru_cache(maxsize=None)
def game_of(name: str) -> Game:
    path = os.path.join(ROOT, "rules", name) if name.endswith(".atout") else os.path.join(AUDIT, name + ".atout")
    return Game(compile_file(path))


def test_data_only_variables_of_bridge_are_the_call_numbers():
    # by reading rules/bridge.atout: calls is only copied into the named_* numbers, which only decide (in an
    # assignment's value, or in an 'if' that only sets them) who of a side declares; level, strain,
    # doubling, passes and declarer are read by guards and conditions
    assert data_only_vars(game_of("bridge.atout").ir) == {
        "calls", "named_clubs", "named_diamonds", "named_hearts", "named_spades", "named_notrump"}
    # Écarté reads every deal variable in a condition
    assert data_only_vars(game_of("ecarte.atout").ir) == frozenset()


@functools.lru_cache(maxsize=None)
def verified(name: str, coarsen_at: int):
    cross = CrossCheck()
    results, _ = verify_game(game_of(name), budget=Budget(coarsen_at=coarsen_at, cross_check=24), cross=cross)
    return {r.name: r for r in results}, cross


def test_the_counter_is_bounded_by_the_longest_auction():
    V = Verifier(game_of("auction_calls"), Budget(coarsen_at=SMALL))
    ex, A, err = V.exploration(Spec())
    assert err is None
    assert A.coarse == {"calls", "named_low", "named_notrump"}
    assert A.counters == {"calls"}
    assert ex.counter_bounds == {"calls": 94}      # 3 + 9 * 10 + 1, by hand


def test_the_true_verdicts_are_proved_on_the_coarse_abstraction():
    # by hand (the fixture's header): the auction ends, the points are zero-sum, no call overflows 'calls'.
    # Keeping the call numbers exactly, the exploration passes 400,000 states: the coarse one is needed.
    coarse, cross = verified("auction_calls", SMALL)
    assert "forgetting calls" in coarse["builtin:no_rule_error"].method
    assert "'calls' proved at most 94" in coarse["builtin:no_rule_error"].method
    for name in ("auction_ends", "zero_sum", "builtin:no_rule_error", "builtin:no_dead_end", "builtin:no_trap"):
        assert coarse[name].verdict == "proved", name
    # the seeded matches of the cross-check map into the coarse abstraction, step by step
    assert cross.matches == 24 and cross.steps > 0 and not cross.failures


def test_a_counter_one_call_too_short_is_not_proved():
    got, cross = verified("auction_calls_short", SMALL)
    r = got["builtin:no_rule_error"]
    assert r.verdict != "proved"
    assert "'calls'" in r.method and "0..93" in r.method
    # the rest is still decided, on the coarse abstraction with the counter's writes allowed to fail
    assert got["auction_ends"].verdict == "proved"
    assert got["builtin:no_dead_end"].verdict == "proved"
    assert not cross.failures
    # the longest auction does overflow: 3 passes, then each bid followed by P P X P P XX P P
    g = game_of("auction_calls_short")
    st = g.new_initial_state()
    while st.is_chance_node():
        st.apply_action(st.chance_outcomes()[0][0])
    names = {a: st.action_to_string(a) for a in st.legal_actions()}
    by_name = {v: k for k, v in names.items()}
    for _ in range(3):
        st.apply_action(by_name["Pass"])
    try:
        for n in range(10):
            st.apply_action([a for a in st.legal_actions() if st.action_to_string(a).startswith("bid")][0])
            for call in ["Pass", "Pass", "Dbl", "Pass", "Pass", "RDbl", "Pass", "Pass"][: 8 if n < 9 else 8]:
                legal = {st.action_to_string(a): a for a in st.legal_actions()}
                st.apply_action(legal[call])
        st.apply_action({st.action_to_string(a): a for a in st.legal_actions()}["Pass"])
    except Exception as exc:     # the 94th call raises the rule error
        assert "calls" in str(exc) and "0..93" in str(exc)
    else:
        raise AssertionError("the 94th call did not overflow 'calls'")


def test_the_probe_coarsens_once_the_call_numbers_multiply_the_states():
    # the fixture's exact exploration passes 400,000 states; long before coarsen_at, the states with the call
    # numbers blanked already number half as many or less: the probe gives up keeping them
    V = Verifier(game_of("auction_calls"), Budget(coarsen_at=300_000, coarsen_probe=(2_000, 2.0)))
    ex, A, err = V.exploration(Spec())
    assert err is None and A.coarse == {"calls", "named_low", "named_notrump"}
    assert "times as many as with the deal variables read only as data forgotten" in V._coarsen_why
    assert ex.counter_bounds == {"calls": 94}


def test_the_probe_leaves_dead_data_only_variables_alone():
    # Solo Whist's data-only variables (stake, taken, target) are dead at every rest: blanking them would merge
    # no state (the ratio is exactly 1), so even a probe at 1.01 never fires
    V = Verifier(game_of("solo_whist.atout"), Budget(coarsen_at=300_000, coarsen_probe=(500, 1.01)))
    assert V.forgettable_vars()
    ex, A, err = V.exploration(Spec())
    assert err is None and A.coarse == frozenset() and V._coarsen_why is None

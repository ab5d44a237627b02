"""Verifier bugs found by the broken Écarté variants (tests/fixtures/broken/, issue 3 item 6), one test
each; tests/test_broken_variants.py checks the variants themselves.
"""
from __future__ import annotations

import os


from atout.compiler import compile_file
from atout.engine import Game
from atout.engine.evaluate import RuleError
from atout.verify import smt
from atout.verify.values import Interval
from atout.verify.checker import Spec, Verifier
from atout.verify.properties import check_reachable
from atout.compiler import ir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ECARTE = os.path.join(ROOT, "rules", "ecarte.atout")
BROKEN = os.path.join(ROOT, "tests", "fixtures", "broken")


def _game(path):
    return Game(compile_file(path))


def test_a_path_whose_last_trick_ends_the_deal_replays():
    """The engine starts the next deal right after the last trick, which resets last_winner: the concretizer
    must read the trick's winner before that (it used to reject every such path unless the match ended)."""
    game = _game(ECARTE)
    V = Verifier(game, timeout=30)
    ex, A, err = V.exploration(Spec(precise=False))
    # a deal end that does not end the match: the edge leads to the next deal's start
    ends = [(u, d) for u, v, d in ex.graph.edges(data=True)
            if d.get("end_gains") is not None and isinstance(v, tuple) and v[0] == "<deal start>"
            and any(ev[0] == "trick_won" for ev in d["events"])]
    assert ends
    real = None
    for u, d in ends[:20]:
        init, edges, _ = V.path_to(ex, {u})
        real = V.replay(A, ex, init, edges + [d],
                        lambda st: not st.is_terminal() and st.deal_log and st.deal_log[-1]["complete"])
        if real is not None:
            break
    assert real is not None
    assert sum(real.state.deal_log[-1]["tricks"]) == 5     # five tricks were played in the deal that ended


def test_gains_that_a_move_repeats_are_widened_beyond_the_bound():
    """An announcement that can be repeated (its guard forgets that it was made) used to give infinitely
    many abstract states; the gains are now exact up to one more than the deal bound's constant (3)."""
    from atout.verify.values import widen_gain as _widen_gain
    assert _widen_gain(4, 4) == 4
    assert _widen_gain(5, 4) == Interval(5, None)
    assert _widen_gain(Interval(6, None), 4) == Interval(5, None)     # a fixpoint: repeating changes nothing
    assert _widen_gain(-5, 4) == Interval(None, -5)
    game = _game(os.path.join(BROKEN, "king_counted_twice.atout"))
    V = Verifier(game, timeout=60)
    ex, A, err = V.exploration(Spec(precise=True))
    assert err is None and A.gain_threshold == 4
    values = {x for w in ex.states.values() for row in w.gains for x in row}
    assert {0, 1, 2, 3, 4, Interval(5, None)} <= values
    assert all(isinstance(x, Interval) or -4 <= x <= 4 for x in values)


def test_play_by_play_of_a_rule_error_ends_with_the_error():
    """A counterexample to builtin:no_rule_error ends with the step that the engine refuses (a rule error);
    printing it used to raise that error and crash `atout verify`."""
    game = _game(os.path.join(BROKEN, "reshuffle_drops_discards.atout"))
    V = Verifier(game, timeout=30)
    st = game.new_initial_state()
    steps = []
    # the non-dealer exchanges 1 card, then both 5 each time: 21 - 1 - 5 - 5 - 5 - 5 leaves the stock empty
    # when the dealer must draw, and his reshuffle forgets the discards
    first = True
    while len(steps) < 500:
        if st.is_chance_node():
            a = st.chance_outcomes()[0][0]
        else:
            legal = st.legal_actions()
            named = {game.slot(x).name: x for x in legal if x >= game.num_cards}
            a = named.get("propose", named.get("accept", legal[0]))
            if st.phase == "elder_exchange" and first and game.done_action in legal:
                a, first = game.done_action, False
        steps.append({"player": -1 if st.is_chance_node() else st.current_player(), "action": a,
                      "text": st.action_to_string(a)})
        try:
            st.apply_action(a)
        except RuleError:
            break
    lines = V.play_by_play(steps)
    assert "rule error" in lines[-1] and "in stock" in lines[-1]


def test_witness_runs_stop_at_a_dead_end():
    """The seeded runs that witness reachability used to crash (IndexError) on a state with no legal action."""
    game = _game(os.path.join(BROKEN, "play_has_no_way_out.atout"))
    V = Verifier(game, timeout=30)
    r = check_reachable(V, ir.Property("everything_reachable", "reachable"))
    assert r.verdict == "proved"   # every phase and action is reached before play gets stuck


def test_outcomes_showing_a_gap_are_exactly_the_refused_deals_with_two_tricks_for_the_dealer():
    """The scoring witness is searched only where z3 says the gap is: in scoring_gap.atout the row for a
    refusal lost by the dealer reads 0..1 tricks, so a refused deal in which the dealer takes exactly 2 (and
    so no exchange took place) scores nothing (source §5).  'refused' and 'exchanges' are frozen during the
    tricks (not kept there: liveness.frozen_at_deal_ends), so an outcome at the scoring may have them any
    value; the deal-end blocks, where z3 gives them the values play entered the tricks with, show the gap
    exactly (the outcomes still hold every deal that may show it, the search's targets)."""
    from atout.verify import smt_refine
    from atout.verify.values import Interval, is_top
    game = _game(os.path.join(BROKEN, "scoring_gap.atout"))
    V = Verifier(game, timeout=30)
    ex, A, err = V.exploration(Spec(precise=True))
    assert set(A.frozen["play"]) == {"exchanges", "refused"}
    table = game.ir.table("deal_score")
    outcomes = list(A.score_outcomes["deal_score"])
    gap = smt.outcomes_showing(game, table, outcomes, (), 5000)
    assert gap

    def may(v, want):
        return is_top(v) or v == want or isinstance(v, Interval) and want in v

    rest = [o for o in outcomes if o not in gap]      # every outcome that may be the gap is among them
    assert all(not (may(dict(v)["refused"], True) and may(dict(v)["exchanges"], 0) and w[d] == 2) for v, w, d in rest)
    checked, overlaps, gaps = smt_refine.table_in_blocks(A, ex.end_blocks, "deal_score")
    assert checked and gaps == [()] and overlaps == []
    overlap = smt.outcomes_showing(game, table, outcomes, ("played_3_4", "played_vole"), 5000)
    assert overlap == []       # those two rows never both apply

"""When ``ends when`` is evaluated: when play comes to rest (before a decision or a chance event), and at the
end of every deal, never in the middle of a block of effects (docs/language.md, *How a match runs*).  The
engine, the exported module and the verifier agree (issue 11: a match used to end between the two points
of one scoring row)."""
from __future__ import annotations

import random
from pathlib import Path

from _agreement import export_python

from atout.engine import load
from atout.verify.cli import verify_game

BOTH = Path(__file__).parent / "fixtures" / "semantics" / "both_score.atout"


def _play(state, seed):
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_the_engine_runs_a_scoring_row_to_its_end():
    game = load(str(BOTH))
    for seed in range(5):
        st = _play(game.new_initial_state(), seed)
        # by hand: a point each per deal, five points end the match: five deals, 5 to 5, a draw of returns
        assert st.vars["points"] == [5, 5]
        assert len(st.deal_log) == 5
        assert st.returns() == [1.0, 1.0]


def test_the_exported_module_agrees(tmp_path):
    mod = export_python(BOTH, tmp_path, "both_score_module")
    for seed in range(5):
        st = _play(mod.Game().new_initial_state(), seed)
        assert st.returns() == [1.0, 1.0]
        assert st.deal_number == 5


def test_the_verifier_proves_every_deal_scores_one_each():
    """The last deal, which ends the match, scores both points too; the cross-check (the abstraction covers
    the engine's concrete runs) finds nothing."""
    from atout.verify.crosscheck import CrossCheck
    game = load(str(BOTH))
    cross = CrossCheck()
    results, _ = verify_game(game, names=["one_each"], builtins=False, cross=cross)
    (r,) = results
    assert r.verdict == "proved", r.method
    assert cross.matches > 0 and not cross.failures, cross.failures

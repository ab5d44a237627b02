"""Which case of an incomplete scoring table the verifier shows: z3 lists every overlapping pair of rows and a
gap over the outcomes of the abstraction, some of them beyond what play reaches; the engine is asked for each
in turn (overlaps first), and the verdict names the rows that the replayed deal fired.  The truth of
tests/data/table_cases.atout is in its header."""
from __future__ import annotations

import os

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify.cli import verify_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "tests", "data", "table_cases.atout")


def _scorings(game, steps):
    """Replay ``steps`` in the engine: [(table, rows fired, x)] for each 'score'."""
    st = game.new_initial_state()
    out = []
    st.on_score = lambda table, rows: out.append((table, list(rows), st.vars["x"]))
    for step in steps:
        legal = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
        assert step["action"] in legal, step
        st.apply_action(step["action"])
    return out


def test_the_overlap_named_is_the_one_the_engine_replayed_and_a_gap_is_tried_after_an_overlap():
    game = Game(compile_file(GAME))
    results, _ = verify_game(game, names=["result_complete", "gapped_complete"])
    got = {r.name: r for r in results}
    r = got["result_complete"]
    # z3's first pair ('odd', 'odd_or_marked' at m = 3) is never reached; the message once named it anyway
    assert r.verdict == "refuted" and "rows 'odd_or_marked' and 'marked' overlap" in r.method, r.method
    assert "'odd' and" not in r.method
    table, rows, x = _scorings(game, r.counterexample.steps)[-2]     # (the last is 'gapped', scored after it)
    assert table == "result" and rows == ["odd_or_marked", "marked"] and x == 1
    g = got["gapped_complete"]
    # the overlap of 'odd' and 'odd_too' cannot be replayed; the gap can (it was unknown)
    assert g.verdict == "refuted" and "no row applies" in g.method, g.method
    table, rows, x = _scorings(game, g.counterexample.steps)[-1]
    assert table == "gapped" and rows == [] and x == 1

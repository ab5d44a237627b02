"""Every construct the exporters translate, on a made-up game (tests/data/every_construct.atout): the exported
module agrees with the engine at every step, the OpenSpiel export passes OpenSpiel's random simulation test, and
the diagram renders."""
from __future__ import annotations

from pathlib import Path

import pyspiel

from _agreement import load_module, needs_dot, parse_dot, play_side_by_side, render_svg
from atout.export import render

RULES = Path(__file__).resolve().parent / "data" / "every_construct.atout"


def test_module_agrees_with_engine(tmp_path):
    out = tmp_path / "every_construct_mod.py"
    out.write_text(render(str(RULES), "python"), encoding="utf-8")
    text = out.read_text(encoding="utf-8")
    # the effects that draw inside a loop, a branch and a scoring row are compiled into resumable blocks
    assert "s.loc[0] = 0" in text and "s.resume =" in text
    assert "_next_player(" in text  # next(q after p: COND), translated
    mod = load_module(out, "every_construct_mod")
    seen = {"draw after a trick": 0, "match ended between two tricks": 0}

    def look(state, observed):
        if state.phase == "play" and state.is_chance_node():
            seen["draw after a trick"] += 1  # 'after trick' draws from the stock: the effects resume after it
        if state.is_terminal() and sum(state.tricks_won) == 3 and not state.trick_cards:
            # 'after trick' of the third trick scored the winning points: the match ends at rest, before the
            # fourth trick's lead (docs/language.md: 'ends when' is checked when play comes to rest)
            seen["match ended between two tricks"] += 1
    assert play_side_by_side(RULES, mod, range(160), deep_every=1, on_state=look) > 10000
    assert all(seen.values()), seen


def test_openspiel_and_diagram(tmp_path):
    out = tmp_path / "every_construct_os.py"
    out.write_text(render(str(RULES), "openspiel"), encoding="utf-8")
    mod = load_module(out, "every_construct_os")
    game = pyspiel.load_game(mod.SHORT_NAME)
    assert game.max_game_length() > 0  # five deals at most, each bounded
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    parse_dot(render(str(RULES), "dot"))


@needs_dot
def test_diagram_renders_with_graphviz(tmp_path):
    dot = tmp_path / "g.dot"
    dot.write_text(render(str(RULES), "dot"), encoding="utf-8")
    render_svg(dot)


def test_diagram_text_of_next():
    """Diagram labels print next(q after P: C) in the syntax of the rule file."""
    from atout.compiler import compile_file
    from atout.export.diagram import expr_text

    game = compile_file(str(RULES))
    feel = next(a for p in game.phases for a in p.actions if a.name == "feel")
    assert expr_text(feel.guard).endswith(" and (next(q after actor: (m == calm) or (q == actor)) != none)")

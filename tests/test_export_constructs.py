"""Every construct the exporters translate, on a made-up game (tests/data/every_construct.atout): the exported
module agrees with the engine at every step, the OpenSpiel export passes OpenSpiel's random simulation test, and
the diagram renders."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pyspiel

from _agreement import load_module, play_side_by_side
from atout.export import render

RULES = Path(__file__).resolve().parent / "data" / "every_construct.atout"


def test_module_agrees_with_engine(tmp_path):
    out = tmp_path / "every_construct_mod.py"
    out.write_text(render(str(RULES), "python"), encoding="utf-8")
    text = out.read_text(encoding="utf-8")
    # the effects that draw inside a loop, a branch and a scoring row are compiled into resumable blocks
    assert "s.loc[0] = 0" in text and "s.resume =" in text
    mod = load_module(out, "every_construct_mod")
    assert play_side_by_side(RULES, mod, range(120), deep_every=1) > 10000


def test_openspiel_and_diagram(tmp_path):
    out = tmp_path / "every_construct_os.py"
    out.write_text(render(str(RULES), "openspiel"), encoding="utf-8")
    mod = load_module(out, "every_construct_os")
    game = pyspiel.load_game(mod.SHORT_NAME)
    assert game.max_game_length() > 0  # five deals at most, each bounded
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    dot = tmp_path / "g.dot"
    dot.write_text(render(str(RULES), "dot"), encoding="utf-8")
    run = subprocess.run([shutil.which("dot") or "dot", "-Tsvg", str(dot)], capture_output=True, text=True)
    assert run.returncode == 0 and "<svg" in run.stdout, run.stderr

"""The transitions budget (--max-transitions): an exploration's memory grows with its transitions, so a game
of few states and many moves (a newcomer's seven deals of Oh Hell: 94,670 states, 2.2 million transitions,
10 GB) stops at a count, as --max-states stops one of many states: the same verdicts on every machine."""
from __future__ import annotations

import os
import subprocess
import sys

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify.checker import Budget
from atout.verify.cli import verify_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ECARTE = os.path.join(ROOT, "rules", "ecarte.atout")


def test_an_exploration_past_its_transitions_is_unknown_and_says_which_budget():
    game = Game(compile_file(ECARTE))
    results, _ = verify_game(game, names=["three_point_cap"], builtins=False,
                             budget=Budget(max_transitions=500, cross_check=0))
    r = results[0]
    assert r.verdict == "unknown"
    assert "more than 500 transitions" in r.method and "raise --max-transitions" in r.method, r.method


def test_the_default_budget_decides_ecarte_and_a_bad_value_is_a_usage_error():
    # Écarté's largest exploration has 1,936 transitions: the default (2,000,000) leaves its verdicts alone
    game = Game(compile_file(ECARTE))
    results, _ = verify_game(game, names=["three_point_cap"], builtins=False, budget=Budget(cross_check=0))
    assert results[0].verdict == "proved"
    out = subprocess.run([sys.executable, "-m", "atout.cli", "verify", ECARTE, "--max-transitions", "0"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "--max-transitions must be positive" in out.stderr
    assert "Traceback" not in out.stderr

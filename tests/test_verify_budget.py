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
    # Écarté's largest exploration has 1,936 transitions: the default (1,000,000) leaves its verdicts alone
    game = Game(compile_file(ECARTE))
    results, _ = verify_game(game, names=["three_point_cap"], builtins=False, budget=Budget(cross_check=0))
    assert results[0].verdict == "proved"
    out = subprocess.run([sys.executable, "-m", "atout.cli", "verify", ECARTE, "--max-transitions", "0"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "--max-transitions must be positive" in out.stderr
    assert "Traceback" not in out.stderr


def test_the_timeout_stops_z3_following_the_deal_end_blocks(monkeypatch):
    """A fuzzed game spent 147 s in z3 after its search, past --timeout 20: the safety is checked there too,
    and the exploration stops as it does during the search (ExplorationLimit, its work counted), never with
    some deal-end blocks followed and others not.  The clock is made to pass the deadline right after the
    search, so the test does not depend on the machine's speed."""
    import pytest
    from atout.verify import explore as E
    from atout.verify.absint import Abstraction
    game = Game(compile_file(ECARTE))
    real_search = E.Explorer._search

    def search_then_late(self, *args):
        real_search(self, *args)
        self.deadline = 0.0          # the wall clock is past it from here on
    monkeypatch.setattr(E.Explorer, "_search", search_then_late)
    ex = E.Explorer(Abstraction(game, watch=("points",)), deadline=1e18)   # watching the gains: z3 follows the blocks
    with pytest.raises(E.ExplorationLimit) as info:
        ex.explore()
    assert "while z3 followed the deal-end blocks" in str(info.value)
    assert info.value.states > 0 and info.value.transitions > 0


def test_a_stopped_exploration_still_lists_every_built_in_check():
    """A newcomer's run cut by a limit lost builtin:conservation from the table, a z3 proof that needs no
    exploration: every built-in check is listed, those that need the exploration unknown with its reason."""
    from atout.verify.builtin import builtin_names
    game = Game(compile_file(ECARTE))
    results, _ = verify_game(game, names=[], builtins=True, budget=Budget(max_states=50, cross_check=0))
    by = {r.name: r for r in results}
    assert list(by) == builtin_names(game.ir)
    assert by["builtin:conservation"].verdict == "proved"
    assert all(by[n].verdict == "unknown" and "exploration stopped" in by[n].method
               for n in ("builtin:no_rule_error", "builtin:no_dead_end", "builtin:no_trap", "builtin:guards"))

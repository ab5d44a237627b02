"""Every shipped rule file compiles, simulates through the CLI, and its `invariant` properties
hold in every state of a few random matches (a sanity check; `atout verify` proves them)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import atout
from atout.cli import main
from atout.engine.bots import RandomBot

ROOT = Path(__file__).resolve().parents[2]
RULES = sorted((ROOT / "rules").glob("*.atout"))
NEW_GAMES = ["whist", "solo_whist", "ecarte_classic", "ecarte_ew"]


def test_the_new_games_are_shipped():
    assert {p.stem for p in RULES} >= set(NEW_GAMES) | {"ecarte"}


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_simulate_runs(path, capsys):
    """`atout simulate FILE -n N --seed 1` (N small here; 200 is checked by hand, see the report)."""
    assert main(["simulate", str(path), "-n", "4", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches"] == 4
    assert sum(out["wins_by_seat"].values()) == 4
    assert out["deals"] >= 4


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_check_runs(path, capsys):
    assert main(["check", str(path)]) == 0
    assert ": ok: game" in capsys.readouterr().out


@pytest.mark.parametrize("name", NEW_GAMES)
def test_invariants_hold_along_random_play(name):
    game = atout.load(str(ROOT / "rules" / f"{name}.atout"))
    invariants = [p for p in game.ir.properties if p.kind == "invariant"]
    assert invariants
    checks = [(p.name, game.compile(p.expr)) for p in invariants]
    for seed in range(2):
        rng = random.Random(seed)
        bots = [RandomBot(rng.randrange(2**32)) for _ in range(game.players)]
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal() and steps < 4000:
            for prop, f in checks:
                for p in range(game.players):
                    assert f(state, {"p": p}), f"{prop} fails for p={p} at step {steps}:\n{state}"
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(bots[state.current_player()].step(state))
            steps += 1


def test_properties_of_the_issue_are_stated():
    """Issue 4 asks for these properties in the files (they compile; `atout verify` decides them)."""
    kinds = {}
    for name in NEW_GAMES:
        game = atout.compile_file(str(ROOT / "rules" / f"{name}.atout"))
        kinds[name] = {p.name: p.kind for p in game.properties}
    assert kinds["ecarte_classic"]["exchange_terminates"] == "terminates"
    solo = kinds["solo_whist"]
    assert solo["auction_terminates"] == "terminates"
    assert solo["every_contract_reachable"] == "reachable"
    assert solo["tricks_sum_to_13"] == "invariant"
    assert solo["settlement_zero_sum"] == "deal_bound"
    assert solo["misere_has_no_trumps"] == "invariant"
    assert solo["match_terminates"] == "match_terminates"
    assert kinds["whist"]["every_deal_scores"] == "deal_bound"
    assert kinds["whist"]["rubber_ends"] == "match_terminates"

"""Helpers shared by the export tests: load a generated module, play it side by side with the engine."""
from __future__ import annotations

import importlib.util
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pydot
import pytest

from atout.engine import load
from atout.export import render

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rules").glob("*.atout"))


needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed (apt-get install graphviz renders diagrams)")


def parse_dot(text: str):
    """The DOT text parsed by pydot (pure Python): exactly one graph, with nodes and edges."""
    graphs = pydot.graph_from_dot_data(text)
    assert graphs is not None and len(graphs) == 1, "not one DOT graph"
    g = graphs[0]
    assert g.get_nodes() and g.get_edges(), "a DOT graph without nodes or edges"
    return g


def render_svg(path: Path) -> str:
    """Graphviz's rendering of a DOT file (the test using it is marked ``needs_dot``)."""
    run = subprocess.run([shutil.which("dot"), "-Tsvg", str(path)], capture_output=True, text=True)
    assert run.returncode == 0 and "<svg" in run.stdout, run.stderr
    return run.stdout


def load_module(path: Path, name: str):
    """Import the Python file at ``path`` as a fresh module called ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def export_python(rule_file: Path, out_dir: Path, name: str):
    out = out_dir / f"{name}.py"
    out.write_text(render(str(rule_file), "python"), encoding="utf-8")
    return load_module(out, name)


def assert_same_state(a, b, where: str, players: int, deep: bool) -> None:
    """The engine state ``a`` and the module state ``b`` agree on everything the API shows."""
    assert a.current_player() == b.current_player(), where
    assert a.is_terminal() == b.is_terminal(), where
    assert a.is_chance_node() == b.is_chance_node(), where
    assert a.history == b.history, where
    if a.is_terminal():
        assert a.returns() == b.returns(), where
        assert str(a) == str(b), where
        return
    assert a.returns() == b.returns() == [0.0] * players, where
    legal = a.legal_actions()
    assert legal == b.legal_actions(), where
    if a.is_chance_node():
        assert a.chance_outcomes() == b.chance_outcomes(), where
    for act in legal:
        assert a.action_to_string(act) == b.action_to_string(act), where
    if deep:
        for p in range(players):
            assert a.observation_string(p) == b.observation_string(p), f"{where}, seat {p}"
            assert a.information_state_string(p) == b.information_state_string(p), f"{where}, seat {p}"
        assert str(a) == str(b), where


def play_side_by_side(rule_file: Path, module, seeds, deep_every: int = 1, max_steps: int = 20000,
                      on_state=None) -> int:
    """Play seeded random matches in the engine and in the module; returns the number of steps compared.
    ``on_state(engine_state, deep)`` is called at every state compared (``deep``: observations compared too)."""
    game = load(str(rule_file))
    mgame = module.Game()
    steps = 0
    for seed in seeds:
        rng = random.Random(seed)
        a, b = game.new_initial_state(), mgame.new_initial_state()
        n = 0
        while True:
            where = f"{rule_file.name} seed {seed} step {n}"
            assert_same_state(a, b, where, game.players, deep=(n % deep_every == 0))
            if on_state is not None:
                on_state(a, n % deep_every == 0)
            if a.is_terminal():
                break
            if n % 17 == 5:  # a clone goes on exactly like the original
                b = b.clone()
            legal = a.legal_actions()
            action = legal[rng.randrange(len(legal))]
            a.apply_action(action)
            b.apply_action(action)
            n += 1
            assert n < max_steps, where
        steps += n
    return steps


def play_against_openspiel(game, os_game, seed: int, action_to_os, policy, chance_to_os=None, os_outcomes=None):
    """Play one match in the engine and in an OpenSpiel game side by side, the same chance outcomes and choices;
    assert at every step that the player to act, the terminal flag and the legal actions (at a chance node, the
    outcomes with their probabilities) are equal once mapped, and at the end that the returns are equal.

    ``action_to_os(a)``: our action id as OpenSpiel's; ``chance_to_os(k, a)``: our outcome ``a`` at the ``k``-th
    chance node (0-based) as OpenSpiel's (default ``action_to_os``); ``os_outcomes(k, theirs)``: OpenSpiel's
    outcomes there as ``{id: probability}`` (default its ``chance_outcomes()``); ``policy(rng, legal)`` picks
    among OpenSpiel's sorted legal ids.  Returns (the engine's final state, the number of steps)."""
    rng = random.Random(seed)
    ours = game.new_initial_state()
    theirs = os_game.new_initial_state()
    steps = chances = 0
    while True:
        where = f"seed {seed}, step {steps}, history {theirs.history()}"
        assert ours.current_player() == theirs.current_player(), where
        assert ours.is_terminal() == theirs.is_terminal(), where
        if theirs.is_terminal():
            break
        if theirs.is_chance_node():
            k = chances
            to_os = (lambda a: chance_to_os(k, a)) if chance_to_os is not None else action_to_os
            mine = {to_os(a): p for a, p in ours.chance_outcomes()}
            other = os_outcomes(k, theirs) if os_outcomes is not None else dict(theirs.chance_outcomes())
            assert mine.keys() == other.keys(), where
            assert all(abs(mine[a] - other[a]) < 1e-12 for a in other), where
            action = rng.choice(sorted(other))
            back = {to_os(a): a for a, _ in ours.chance_outcomes()}
            chances += 1
        else:
            mine = {action_to_os(a) for a in ours.legal_actions()}
            other = set(theirs.legal_actions())
            assert mine == other, f"{where}: atout {sorted(mine)} openspiel {sorted(other)}\n{ours}"
            action = policy(rng, sorted(other))
            back = {action_to_os(a): a for a in ours.legal_actions()}
        ours.apply_action(back[action])
        theirs.apply_action(action)
        steps += 1
    assert ours.returns() == theirs.returns(), f"seed {seed}: atout {ours.returns()} openspiel {theirs.returns()}"
    return ours, steps

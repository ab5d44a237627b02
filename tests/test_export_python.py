"""The exported Python module of every shipped game agrees with the engine on every state of seeded random matches
(current player, legal actions, chance outcomes and their probabilities, action texts, observations, information
states, returns), imports only the standard library, and plays at the terminal."""
from __future__ import annotations

import ast
import io
import itertools
import subprocess
import sys

import pytest

from _agreement import SHIPPED, export_python, load_module, play_side_by_side

STDLIB = set(sys.stdlib_module_names)


# Matches compared at every state (observations and information states included), then matches compared at every
# state on actions, chance outcomes, texts and returns, and on observations every 50th state.  A whist rubber is 3
# to 9 deals of 104 steps and a Solo Whist match 16 deals (about 1,750 steps), so they play fewer matches.
MATCHES = {"whist": (6, 120), "solo_whist": (2, 60)}


@pytest.mark.parametrize("rule_file", SHIPPED, ids=lambda p: p.stem)
def test_module_agrees_with_engine(tmp_path, rule_file):
    mod = export_python(rule_file, tmp_path, f"exported_{rule_file.stem}")
    deep, more = MATCHES.get(rule_file.stem, (40, 200))
    contracts, revealed = set(), 0

    def look(state, observed):
        nonlocal revealed
        if state.phase == "play" and "playing" in state.vars:
            contracts.add(state.vars["playing"])
            revealed += bool(observed and state.revealed)
    steps = play_side_by_side(rule_file, mod, range(deep), deep_every=1, on_state=look)
    steps += play_side_by_side(rule_file, mod, range(deep, deep + more), deep_every=50, on_state=look)
    assert steps > 5000
    if rule_file.stem == "solo_whist":
        # the sample plays every contract (0..6, proposal to abondance declaree), and compares observations of
        # states in which the misere ouverte hand is exposed ('after trick' reveals it)
        assert contracts == set(range(7)) and revealed > 0


@pytest.mark.parametrize("rule_file", SHIPPED, ids=lambda p: p.stem)
def test_module_imports_only_the_standard_library(tmp_path, rule_file):
    mod = export_python(rule_file, tmp_path, f"stdlib_{rule_file.stem}")
    tree = ast.parse(open(mod.__file__, encoding="utf-8").read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported and imported <= STDLIB, imported
    # and it runs in a Python without Atout on its path (-I: isolated, no site-packages)
    code = ("import sys; sys.path.insert(0, %r); import %s as m; s = m.Game().new_initial_state(); "
            "print(s.current_player())" % (str(tmp_path), mod.__name__))
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def test_module_is_specialised_not_an_interpreter(tmp_path):
    """The module holds no IR: no Atout import, no expression tree, compiled expressions instead."""
    rule_file = next(p for p in SHIPPED if p.stem == "euchre")
    mod = export_python(rule_file, tmp_path, "specialised_euchre")
    text = open(mod.__file__, encoding="utf-8").read()
    assert "import atout" not in text and "from atout" not in text
    assert "BinOp" not in text and "VarRef" not in text
    # the bidding guard of the rule file, translated: passes < 7 or not stick_the_dealer (true)
    assert "((s.v2 < 7) or (not True))" in text


@pytest.mark.parametrize("stem", ["euchre", "solo_whist"])
def test_terminal_play_against_random_bots(tmp_path, stem):
    """`python OUT.py` lets a person play: feed it answers on stdin until the match ends."""
    rule_file = next(p for p in SHIPPED if p.stem == stem)
    mod = export_python(rule_file, tmp_path, f"play_{stem}")
    answers = itertools.chain(["hello", "99"], itertools.repeat("1"))
    out = io.StringIO()
    assert mod.play(seat=2, seed=5, input_fn=lambda prompt: next(answers), out=out) == 0
    text = out.getvalue()
    assert "refused" in text and "== match over" in text and "returns: seat 0:" in text
    if stem == "solo_whist":
        # the whole match: 16 deals, the auction and the play of each; the turn-up is on view during trick 1 only
        assert "| deal 16 |" in text and "phase auction | seat 2 to act" in text and "phase play" in text
        views = text.split("\n\n")
        assert all("turnup=none" in v for v in views if "\ntrick 2: " in v)
        assert all("turnup=none" not in v for v in views if "\ntrick 1: " in v)
    # and as a script, quitting at once
    run = subprocess.run([sys.executable, mod.__file__, "--seat", "1", "--seed", "3"], input="quit\n",
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "bye" in run.stdout, run.stderr
    run = subprocess.run([sys.executable, mod.__file__, "--seat", "9"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 2 and "--seat must be" in run.stderr


def test_illegal_actions_are_refused(tmp_path):
    rule_file = next(p for p in SHIPPED if p.stem == "ecarte")
    mod = export_python(rule_file, tmp_path, "illegal_ecarte")
    s = mod.Game().new_initial_state()
    with pytest.raises(mod.IllegalActionError):
        s.apply_action(10_000)
    while s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    bad = next(a for a in range(mod.NUM_DISTINCT_ACTIONS) if a not in s.legal_actions())
    with pytest.raises(mod.IllegalActionError):
        s.apply_action(bad)


def test_loader_helper(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("X = 1\n")
    assert load_module(p, "helper_m").X == 1


def test_a_construct_newer_than_the_exporter_is_refused():
    """An IR field the exporter does not know (a made-up later one, 'Trick.shuffle_after') stops the export, loudly."""
    import dataclasses

    from atout.compiler import compile_file, ir
    from atout.export.python_module import ExportError, generate

    game = compile_file(str(next(p for p in SHIPPED if p.stem == "euchre")))
    Later = dataclasses.make_dataclass("Trick", [("shuffle_after", tuple, dataclasses.field(default=()))],
                                       bases=(ir.Trick,), frozen=True)
    play = next(p for p in game.phases if p.trick is not None)
    trick = Later(**{f.name: getattr(play.trick, f.name) for f in dataclasses.fields(ir.Trick)},
                  shuffle_after=(ir.EndDeal(),))
    phases = tuple(dataclasses.replace(p, trick=trick) if p is play else p for p in game.phases)
    with pytest.raises(ExportError, match="Trick.shuffle_after"):
        generate(dataclasses.replace(game, phases=phases))
    # with the field at its default the export goes on
    trick = Later(**{f.name: getattr(play.trick, f.name) for f in dataclasses.fields(ir.Trick)})
    phases = tuple(dataclasses.replace(p, trick=trick) if p is play else p for p in game.phases)
    assert "def _play_" in generate(dataclasses.replace(game, phases=phases))

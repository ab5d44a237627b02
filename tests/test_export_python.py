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

from _agreement import ROOT, SHIPPED, export_python, load_module, play_side_by_side
from atout.engine import load
from atout.engine.terminal import play_terminal

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
    # the bidding guard of the rule file, translated: passes < 7 or not stick_the_dealer (an option, true: folded)
    assert "if (V['passes'] < 7):" in text


@pytest.mark.parametrize("stem", ["euchre", "solo_whist", "ecarte", "whist"])
def test_terminal_play_is_atout_plays_own_table(tmp_path, stem):
    """`python OUT.py` runs the table of `atout play` (engine/table_ui.py, embedded verbatim): fed the same
    answers, with random opponents and the same seed, the module prints exactly what the engine prints, refusals,
    trick and deal reports included, to the end of the match."""
    rule_file = next(p for p in SHIPPED if p.stem == stem)
    mod = export_python(rule_file, tmp_path, f"play_{stem}")
    ui_source = (ROOT / "engine" / "table_ui.py").read_text(encoding="utf-8")
    assert mod._TABLE_UI == ui_source
    transcripts = []
    for play in (lambda i, o: mod.play(seat=1, seed=5, input_fn=i, out=o),
                 lambda i, o: play_terminal(load(str(rule_file)), 1, "random", 5, i, o)):
        answers = itertools.chain(["hello", "99", "10h 7h", "help", "show"], itertools.repeat("1"))
        out = io.StringIO()
        assert play(lambda prompt: next(answers), out) == 0
        transcripts.append(out.getvalue())
    module_text, engine_text = transcripts
    assert module_text == engine_text
    text = module_text
    assert "refused" in text and "== match over" in text and "returns: seat 0:" in text
    assert "   trick: " in text and "-- deal 1 over" in text
    if stem == "solo_whist":
        # the whole match: 16 deals, the auction and the play of each
        assert "-- deal 16 over" in text and "-- play begins: " in text
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

"""`atout export FILE --to TARGET -o OUT` on every shipped game and on bad input."""
from __future__ import annotations

import json

import pytest

from _agreement import SHIPPED, needs_dot, parse_dot, render_svg
from atout.cli import main
from atout.compiler import compile_file


@pytest.mark.parametrize("rule_file", SHIPPED, ids=lambda p: p.stem)
@pytest.mark.parametrize("target", ["python", "openspiel", "dot", "mermaid", "json"])
def test_every_shipped_game_exports(tmp_path, rule_file, target, capsys):
    out = tmp_path / f"out.{target}"
    assert main(["export", str(rule_file), "--to", target, "-o", str(out)]) == 0
    assert f"exported to {target}" in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
    game = compile_file(str(rule_file))
    if target in ("python", "openspiel"):
        compile(text, str(out), "exec")
    elif target == "dot":
        parsed = parse_dot(text)
        names = {n.get_name().strip('"') for n in parsed.get_nodes()}
        assert len(names) >= len(game.phases)
        for phase in game.phases:
            assert f'"{phase.name}\\n(' in text
    elif target == "mermaid":
        assert text.splitlines()[1] == "stateDiagram-v2"
        assert sum(1 for line in text.splitlines() if line.startswith("  state ")) == len(game.phases) + 3
    else:
        data = json.loads(text)
        assert data["format"] == "atout-ir/1"
        assert [p["name"] for p in data["game"]["phases"]] == [p.name for p in game.phases]
        assert len(data["game"]["action_slots"]) == len(game.action_slots)


def test_bad_input_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.atout"
    bad.write_text("game x\nplayers 2\ndeck { suits a ranks K }\nphase p { actor 7 }\n", encoding="utf-8")
    out = tmp_path / "o.py"
    assert main(["export", str(bad), "--to", "python", "-o", str(out)]) == 2
    assert "error[" in capsys.readouterr().err and not out.exists()
    assert main(["export", str(tmp_path / "missing.atout"), "--to", "json", "-o", str(out)]) == 2
    assert "cannot read rule file" in capsys.readouterr().err
    assert main(["export", str(SHIPPED[0]), "--to", "json", "-o", str(tmp_path / "no" / "dir" / "o.json")]) == 2
    assert "cannot write" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["export", str(SHIPPED[0]), "--to", "pdf", "-o", str(out)])
    assert exc.value.code == 2


def test_openspiel_needs_bounded_returns(tmp_path, capsys):
    text = """game unbounded
players 2
deck { suits a b ranks K Q }
zone stock: hidden, home
zone hand: per player, private
match var points: int per player = 0
phase deal { do { deal 2 from stock to hand starting eldest
  goto bid } }
phase bid { actor eldest action take { points[actor] += 1 end deal } }
match { start deal ends when any(q in players: points[q] >= 3) returns(p) = points[p] - deal_number }
"""
    path = tmp_path / "unbounded.atout"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "o.py"
    assert main(["export", str(path), "--to", "openspiel", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "returns(p) has none" in err and "int in 0..99" in err and not out.exists()
    assert main(["export", str(path), "--to", "python", "-o", str(out)]) == 0


@needs_dot
@pytest.mark.parametrize("rule_file", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_diagram_renders_with_graphviz(tmp_path, rule_file):
    out = tmp_path / "out.dot"
    assert main(["export", str(rule_file), "--to", "dot", "-o", str(out)]) == 0
    render_svg(out)

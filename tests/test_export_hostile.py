"""A rule file is untrusted input: a game full of hostile names and strings (Python keywords and built-ins as
names, names that look like the generated code's own identifiers, strings that try to close quotes, inject code,
format fields and escapes) exports to every target, and the exported code runs, agrees with the engine and
executes nothing it should not."""
from __future__ import annotations

import json
import re

import pyspiel
import pytest

from pathlib import Path

from _agreement import export_python, needs_dot, parse_dot, render_svg, load_module, play_side_by_side
from atout.engine import load
from atout.export import render

HOSTILE = r"""
game __import__ "Title \"\"\" '''; __import__('os').system('touch MARKER1') #\n{0.__class__} %s %(prog)s \\ end"
players 2
deck {
  suits def class
  ranks None True __init__
}
option __builtins__: bool = true
enum e_ { yield await }
zone print: hidden, home
zone hand: per player, private
zone self: public
match var s: int in 0..10 per player = 0
deal var v0: e_ = none
deal var _b0: player = none
deal var State: int in 0..5 = 0
phase lambda {
  do {
    gather print
    shuffle print
    deal 2, 1 from print to hand starting eldest
    _b0 = eldest
    goto return
  }
}
phase return {
  actor _b0
  action exec "'); __import__('os').system('touch MARKER2') #{}" when __builtins__ { goto _enter_0 }
  action raise(x: e_) "\"\"\"{x} <b>&amp;</b> -->" {
    v0 = x
    State += 1
    if State < 3 { _b0 = left(_b0) goto return }
    goto _enter_0
  }
}
phase _enter_0 {
  trick {
    count 3
    leader eldest
    trump def
    follow suit
    then { score except end deal }
  }
}
table except {
  row import: tricks(0) >= 2 => { s[0] += 1 }
  row from: tricks(1) >= 2 => { s[1] += 1 }
}
match {
  first dealer 0
  start lambda
  ends when deal_number >= 2
  returns(q1) = s[q1] - s[left(q1)]
}
"""


@pytest.fixture()
def hostile(tmp_path, monkeypatch):
    folder = tmp_path / "dir {0} 'q' \"dq\" %s"
    folder.mkdir()
    path = folder / "hostile.atout"
    path.write_text(HOSTILE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    yield path
    assert not list(tmp_path.rglob("MARKER*")), "exported code ran text from the rule file"


def test_python_module_is_safe_and_agrees(hostile, tmp_path):
    mod_path = tmp_path / "hostile_mod.py"
    mod_path.write_text(render(str(hostile), "python"), encoding="utf-8")
    mod = load_module(mod_path, "hostile_mod")
    assert mod.TITLE == load(str(hostile)).ir.title and mod.SOURCE == str(hostile)
    assert play_side_by_side(hostile, mod, range(30)) > 100
    s = mod.Game().new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    assert s.action_to_string(s.legal_actions()[-1]).startswith('"""{x} <b>')


def test_openspiel_export_is_safe(hostile, tmp_path):
    path = tmp_path / "hostile_os.py"
    path.write_text(render(str(hostile), "openspiel"), encoding="utf-8")
    mod = load_module(path, "hostile_os")
    assert re.fullmatch(r"[a-z0-9_]+", mod.SHORT_NAME)
    game = pyspiel.load_game(mod.SHORT_NAME)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@needs_dot
def test_hostile_diagram_renders_with_graphviz(hostile, tmp_path):
    out = tmp_path / "h.dot"
    out.write_text(render(str(hostile), "dot"), encoding="utf-8")
    render_svg(out)


def test_diagrams_and_json_are_safe(hostile, tmp_path):
    dot = render(str(hostile), "dot")
    parse_dot(dot)
    mermaid = render(str(hostile), "mermaid")
    for line in mermaid.splitlines():
        bare = re.sub(r"#\d+;", "", line)  # Mermaid entity codes stand for the escaped characters
        assert re.fullmatch(r'%% [^"<>&:;#{}]*|stateDiagram-v2|  state "[^"<>&:;#{}]*" as \w+|'
                            r'  (\[\*\]|\w+) --> (\[\*\]|\w+)( : [^"<>&:;#{}]*)?', bare), line
    data = json.loads(render(str(hostile), "json"))
    assert data["game"]["title"].startswith('Title """')


def test_loops_nested_deeper_than_python_allows(tmp_path):
    """25 nested ``for`` loops (Python compiles at most 20 nested blocks in one function): the module imports,
    and agrees with the engine.  Three loops run twice, the others once: the innermost statement runs 2**3 = 8
    times, so the dealer scores 8 when the eldest hand passes (``tiny_duel``'s pass scores 1 otherwise)."""
    text = (Path(__file__).parent / "data" / "tiny_duel.atout").read_text(encoding="utf-8")
    body = "points[dealer] += 1"
    for k in range(25):
        body = f"for i{k} in 1..{2 if k in (3, 11, 20) else 1} {{ {body} }}"
    old = "    points[dealer] += 1\n    end deal"
    assert old in text
    path = tmp_path / "deep_loops.atout"
    path.write_text(text.replace(old, f"    {body}\n    end deal").replace("in 0..10 per player", "in 0..20 per player"),
                    encoding="utf-8")
    mod = export_python(path, tmp_path, "deep_loops")
    state = mod.Game().new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    [passing] = [a for a in state.legal_actions() if state.action_to_string(a) == "I pass"]
    state.apply_action(passing)
    assert state.is_terminal() and max(state.returns()) == 8
    assert play_side_by_side(path, mod, range(10)) > 10

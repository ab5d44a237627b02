"""Visibility of variables (`, public` / `, private` / `, hidden`) and the leak lint W001.

The lint's verdicts on small games are known by reading them (which assignment reads which unseen card);
the observations are checked against the state itself: an entry a seat may not see is '?' in its
strings and 0 in its OpenSpiel tensor, in the engine and in the exported modules alike.
"""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from _agreement import SHIPPED, load_module
from atout.compiler import CompileError, compile_file, compile_text
from atout.compiler.visibility import leak_warnings, secret_variables
from atout.engine import Game, load
from atout.engine.observe import table_string
from atout.export import render

ROOT = Path(__file__).resolve().parent.parent

BASE = """game t "T"
players 2
deck {{ suits hearts spades  ranks A K Q }}
zone stock: hidden, home
zone hand: per player, private
zone pile: hidden
zone shown: public
match var points: int in 0..9 per player = 0
{decls}
phase deal {{
  do {{
    gather stock
    shuffle stock
    deal 3 from stock to hand starting eldest
{deal}
    goto pick
  }}
}}
phase pick {{
  actor eldest
  action {public_kw}give(c: card in hand[actor]) "give" {public_kw2}{{
    move c from hand[actor] to pile
{give}
    goto play
  }}
}}
phase play {{
  trick {{
    count 2
    follow suit
    then {{
      score s
      end deal
    }}
  }}
}}
table s {{
  row a: tricks(eldest) >= 1 {row_extra}=> {{ points[eldest] += 1 }}
  row b: tricks(eldest) == 0 => {{ points[dealer] += 1 }}
}}
match {{
  start deal
  ends when any(p in players: points[p] >= 3)
  returns(p) = points[p]
}}
"""


def game(decls="", deal="", give="", public=False, row_extra=""):
    text = BASE.format(decls=decls, deal=deal, give=give, public_kw="", public_kw2="public " if public else "",
                       row_extra=row_extra)
    return compile_text(text, "t.atout")


def warned(g) -> list[str]:
    return [d.message.split("'")[1] for d in leak_warnings(g)]


@pytest.mark.parametrize("decls, deal, give, expected", [
    # the cards of a private zone, of a hidden zone, and through holder(): a leak
    ("deal var x: bool = false", "    x = has(hand[eldest], A of hearts)", "", ["x"]),
    ("deal var x: card = none", "", "    x = top(pile)", ["x"]),
    ("deal var x: player = none", "    x = holder(A of hearts)", "", ["x"]),
    # how many cards a zone holds, and the cards of a public zone: no leak
    ("deal var x: int = 0", "    x = size(hand[eldest])", "", []),
    ("deal var x: card = none", "    x = top(shown)", "", []),
    # an implicit flow (an assignment under a condition on a hand), and one through another variable
    ("deal var x: int = 0", "    if has(hand[dealer], K of spades) { x = 1 }", "", ["x"]),
    ("deal var x: int = 0\ndeal var y: int = 0", "    x = size(hand[eldest])\n    y = x", "", []),
    ("deal var x: int = 0\ndeal var y: int = 0",
     "    x = count(c in hand[eldest]: suit(c) == hearts)\n    y = x + 1", "", ["x", "y"]),
    # a loop over the cards of a hand binds a secret card
    ("deal var x: card = none", "    for c in hand[eldest] { x = c }", "", ["x"]),
    # declared: hidden and private are seen as declared, public is the author's word that it is announced
    ("deal var x: bool = false, hidden", "    x = has(hand[eldest], A of hearts)", "", []),
    ("deal var x: bool = false, public", "    x = has(hand[eldest], A of hearts)", "", []),
    ("deal var x: int per player = 0, private\ndeal var y: int = 0",
     "    for p in players { x[p] = count(c in hand[p]: rank(c) == A) }\n    y = x[0]", "", ["y"]),
    # the card picked by a hidden choice (a discard) is a secret; the picked card's count is not
    ("deal var x: card = none", "", "    x = c", ["x"]),
])
def test_leak_analysis(decls, deal, give, expected):
    assert warned(game(decls, deal, give)) == expected


def test_a_public_choice_and_a_scoring_row_are_announcements():
    assert warned(game("deal var x: card = none", give="    x = c", public=True)) == []
    # a row's condition may read a hand: the score is written down for everyone
    g = game("deal var x: int = 0", row_extra="and has(hand[eldest], A of hearts) ")
    assert warned(g) == [] and "points" not in secret_variables(g)


def test_taken_is_public_unless_a_rule_fills_it_with_unseen_cards():
    assert warned(game("deal var x: int = 0", give="    x = count(d in taken[0]: suit(d) == hearts)")) == []
    g = game("deal var x: int = 0",
             give="    x = count(d in taken[0]: suit(d) == hearts)\n    move 1 from hand[dealer] to taken[0]")
    assert warned(g) == ["x"]


def test_the_warning_points_at_the_assignment_with_a_hint():
    d = leak_warnings(game("deal var x: bool = false", "    x = has(hand[eldest], A of hearts)"))[0]
    assert (d.code, d.severity, d.span.line, d.span.col) == ("W001", "warning", 15, 5)   # line 15: the 9th line is the declaration
    assert "deal var x: bool = false, hidden" in d.hint and "deal var x: bool = false, public" in d.hint


def test_a_private_variable_needs_an_owner():
    with pytest.raises(CompileError) as info:
        game("deal var x: int = 0, private")
    assert [d.code for d in info.value.diagnostics] == ["E122"]
    with pytest.raises(CompileError) as info:
        game("deal var x: int = 0, home")
    assert [d.code for d in info.value.diagnostics] == ["E122"]


@pytest.mark.parametrize("rule_file", SHIPPED, ids=lambda p: p.stem)
def test_no_shipped_game_leaks(rule_file):
    assert leak_warnings(compile_file(str(rule_file))) == []


def _play_to_trick_phase(g: Game, seed: int):
    state, rng = g.new_initial_state(), random.Random(seed)
    while state.is_chance_node() or g.phases[state.phase].kind != "trick":
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_whist_honours_are_hidden_from_every_seat():
    # rules/whist.atout: `held` (the honours each side holds) is hidden: the players cannot know them
    g = load(str(ROOT / "rules" / "whist.atout"))
    for seed in range(20):
        state = _play_to_trick_phase(g, seed)
        if any(state.vars["held"]):
            break
    assert any(state.vars["held"])
    for p in range(4):
        assert "held=[?, ?]" in state.observation_string(p)
        assert "held" not in table_string(state, p)
    assert f"held=[{state.vars['held'][0]}, {state.vars['held'][1]}]" in str(state)


PRIVATE = BASE.format(decls="deal var strength: int per player = 0, private\ndeal var secret: int = 0, hidden",
                      deal="    for p in players { strength[p] = count(c in hand[p]: rank(c) == A) + 1 }\n"
                           "    secret = count(c in hand[dealer]: suit(c) == hearts) + 1",
                      give="", public_kw="", public_kw2="", row_extra="")


def test_private_and_hidden_entries_in_engine_module_and_openspiel(tmp_path):
    path = tmp_path / "private.atout"
    path.write_text(PRIVATE, encoding="utf-8")
    g = load(str(path))
    mod_path = tmp_path / "private_os.py"
    mod_path.write_text(render(str(path), "openspiel"), encoding="utf-8")
    mod = load_module(mod_path, "private_os")
    import pyspiel
    game = pyspiel.load_game(mod.SHORT_NAME)
    state, twin = g.new_initial_state(), game.new_initial_state()
    rng = random.Random(5)
    while state.is_chance_node():
        a = rng.choice(state.legal_actions())
        state.apply_action(a)
        twin.apply_action(a)
    s = state.vars["strength"]
    assert min(s) >= 1 and state.vars["secret"] >= 1
    assert f"strength=[{s[0]}, ?]" in state.observation_string(0)
    assert f"strength=[?, {s[1]}]" in state.observation_string(1)
    assert "secret=?" in state.observation_string(0) and "secret=?" in state.observation_string(1)
    for p in range(2):   # the exported module shows exactly what the engine shows
        assert twin.observation_string(p) == state.observation_string(p)
        assert twin.information_state_string(p) == state.information_state_string(p)
    # the OpenSpiel tensor: the entry a seat does not see is 0, its own is the value
    names = list(mod.VAR_NAMES)
    start = sum(k * c for _, k, c in mod.VAR_ENCODING[:names.index("strength")])
    observer = game.make_py_observer()
    for p in range(2):
        observer.set_from(twin, p)
        vals = observer.dict["vars"]
        assert [vals[start], vals[start + 1]] == [s[0] if p == 0 else 0, s[1] if p == 1 else 0]
        assert vals[start + 2] == 0          # `secret`, the next variable: nobody sees it
    full = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                      private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
    observer = game.make_py_observer(full)
    observer.set_from(twin, 0)
    assert list(observer.dict["vars"][start:start + 3]) == [s[0], s[1], state.vars["secret"]]
    assert np.array(twin.observation_tensor(0)).sum() != np.array(twin.observation_tensor(1)).sum() or s[0] == s[1]

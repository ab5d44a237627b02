"""`trump order C1, C2, ...` (issue 9) on tests/data/trump_order.atout, tricks worked out by hand from Skat's rule:
the jacks are the highest trumps, J♣ > J♠ > J♥, then the trump suit's cards; a jack follows as a trump, not as
its printed suit; with no trump suit (the grand) the jacks alone are trumps.

Card ids (suits clubs spades hearts, ranks A 10 J 7): A♣ 0, 10♣ 1, J♣ 2, 7♣ 3, A♠ 4, 10♠ 5, J♠ 6, 7♠ 7, A♥ 8,
10♥ 9, J♥ 10, 7♥ 11.  The dealer is seat 0; cards are dealt one at a time from seat 1, so seat 1 gets the 1st,
4th, 7th and 10th card dealt, seat 2 the 2nd, 5th, ..., seat 0 the 3rd, 6th, ...
"""
from __future__ import annotations

from pathlib import Path

import pytest

from _agreement import export_python, play_side_by_side
from atout.compiler import CompileError, compile_file, compile_text
from atout.engine import Game

RULES = Path(__file__).resolve().parent / "data" / "trump_order.atout"
A_C, T_C, J_C, S_C, A_S, T_S, J_S, S_S, A_H, T_H, J_H, S_H = range(12)


def _game(tmp_path, trump: str) -> Game:
    path = tmp_path / f"jacks_{trump}.atout"
    path.write_text(f'extends "{RULES}"\noverride option trump_suit: suit = {trump}\n', encoding="utf-8")
    return Game(compile_file(str(path)))


def _deal(game, hands: dict[int, list[int]]):
    st = game.new_initial_state()
    for k in range(4):
        for seat in (1, 2, 0):
            st.apply_action(hands[seat][k])
    return st


def test_jacks_over_the_trump_suit(tmp_path):
    game = _game(tmp_path, "hearts")
    st = _deal(game, {1: [J_S, A_C, T_S, S_S], 2: [A_H, S_C, A_S, T_H], 0: [J_C, T_C, S_H, J_H]})
    note = game.slot_index[("note", None)]
    # seat 1 leads J♠: a trump.  Seat 2 must follow trumps: A♥, 10♥ (not his clubs or his A♠)
    st.apply_action(J_S)
    assert sorted(a for a in st.legal_actions() if a != note) == [A_H, T_H]
    assert st.action_to_string(note) and st.vars["led"] == -1
    st.apply_action(note)
    assert st.vars["led"] == 2            # a jack led under hearts leads trumps: led_suit is hearts
    st.apply_action(A_H)
    # seat 0 holds J♣, J♥, 7♥ (trumps) and 10♣: he must follow with a trump
    assert sorted(a for a in st.legal_actions() if a != note) == sorted([J_C, S_H, J_H])
    st.apply_action(J_C)                  # J♣ is the highest trump: seat 0 wins over J♠ and A♥
    assert st.vars["points"] == [1, 0, 0] and st.current_player() == 0
    # seat 0 leads 10♣: seat 1 follows with A♣ (clubs); seat 2 with 7♣; nobody may play J♣-like jacks as clubs
    st.apply_action(T_C)
    assert st.legal_actions() == [A_C]
    st.apply_action(A_C)
    assert st.legal_actions() == [S_C]
    st.apply_action(S_C)
    assert st.vars["points"] == [1, 1, 0]     # A♣ beats 10♣ (A above 10 in this deck)


def test_the_grand_jacks_alone_are_trumps(tmp_path):
    game = _game(tmp_path, "none")
    st = _deal(game, {1: [J_H, A_C, T_S, S_S], 2: [A_H, S_C, J_S, T_H], 0: [J_C, T_C, S_H, A_S]})
    note = game.slot_index[("note", None)]
    st.apply_action(J_H)                  # a jack: the only trumps; seat 2 must play his jack, not a heart
    assert sorted(a for a in st.legal_actions() if a != note) == [J_S]
    assert note not in st.legal_actions()  # no trump suit: a jack led leads no suit (led_suit is none)
    st.apply_action(J_S)
    assert sorted(st.legal_actions()) == [J_C]
    st.apply_action(J_C)
    assert st.vars["points"] == [1, 0, 0]     # J♣ > J♠ > J♥
    # A♥ led: hearts are a plain suit; seat 1 has no heart and no trump left, any card
    st.apply_action(S_H)                  # seat 0 leads 7♥
    assert sorted(st.legal_actions()) == [A_C, T_S, S_S, note]    # (and he may note the suit led)


def test_module_agrees_with_engine(tmp_path):
    mod = export_python(RULES, tmp_path, "jacks_mod")
    assert play_side_by_side(RULES, mod, range(40), deep_every=2) > 400


@pytest.mark.parametrize("line,message", [
    ("trump order J of clubs, J of clubs", "twice in the trump order"),
    ("trump order hearts", "a trump order lists cards of the deck"),
    ("trump order J of clubs\n    bowers J", "'bowers' or a 'trump order', not both"),
])
def test_bad_trump_orders(line, message):
    text = RULES.read_text(encoding="utf-8").replace("    trump order J of clubs, J of spades, J of hearts", "    " + line)
    if "bowers" in line:
        text = text.replace("deck {\n", "deck {\n  colors black { clubs spades } red { hearts }\n")
    with pytest.raises(CompileError) as info:
        compile_text(text, "jacks.atout")
    assert any(message in d.message for d in info.value.diagnostics), [d.message for d in info.value.diagnostics]

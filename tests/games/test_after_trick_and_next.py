"""The constructs added for Whist and Solo Whist (docs/language.md, trick play and expressions):
``after trick { ... }`` and ``next(q after p: COND)``."""
from __future__ import annotations

from pathlib import Path

import pytest

import atout
from atout.compiler import CompileError, compile_text, ir
from atout.engine import Game

ROOT = Path(__file__).resolve().parents[2]

AFTER_TRICK = """
game toy "after trick"
players 2
deck { suits a b ranks K Q J }
zone stock: hidden, home
zone hand: per player, private
match var seen: int = 0        # each trick appends two digits: its number and its winner
match var at_then: int = 0
match var deals: int = 0
phase deal { do { gather stock  deal 3 from stock to hand starting eldest  goto play } }
phase play {
  trick {
    count 3
    follow suit
    after trick { seen = seen * 100 + trick_number * 10 + (if winner == 1 then 1 else 0) }
    then {
      at_then = seen
      deals += 1
      end deal
    }
  }
}
match { start deal ends when deals >= 1 returns(p) = 0 }
"""


def test_after_trick_runs_after_each_trick_before_the_next_lead_and_before_then():
    g = Game(compile_text(AFTER_TRICK, "toy.atout"))
    aK, aQ, aJ, bK, bQ, bJ = range(6)          # ids: suit a then b, ranks K Q J
    s = g.new_initial_state()
    for c in (aK, aQ, bJ, aJ, bK, bQ):        # eldest (seat 1) is dealt first: aK aQ bJ; seat 0: aJ bK bQ
        s.apply_action(c)
    s.apply_action(aK)                         # seat 1 leads
    s.apply_action(aJ)                         # seat 0 follows: trick 1 to seat 1
    assert s.vars["seen"] == 11 and s.current_player() == 1
    s.apply_action(aQ)
    s.apply_action(bK)                         # void in a, no trumps: trick 2 to seat 1
    assert s.vars["seen"] == 1121
    s.apply_action(bJ)
    s.apply_action(bQ)                         # trick 3 to seat 0
    assert s.is_terminal()
    assert s.vars["seen"] == 112130
    assert s.vars["at_then"] == 112130         # the last trick's block ran before 'then'


NEXT = """
game toy "next"
players 4
deck { suits a ranks K Q }
zone stock: hidden, home
match var r1: player = none
match var r2: player = none
match var r3: player = none
match var r4: player = none
match var r5: player = none
phase start {
  do {
    r1 = next(q after 0: true)
    r2 = next(q after 3: true)
    r3 = next(q after 1: q == 1)
    r4 = next(q after 1: false)
    r5 = next(q after 1: q == 0 or q == 2)
    goto wait
  }
}
phase wait { actor eldest action stop { end deal } }
match { start start ends when deal_number >= 1 returns(p) = 0 }
"""


def test_next_player_clockwise_with_itself_last_or_none():
    g = Game(compile_text(NEXT, "next.atout"))
    s = g.new_initial_state()
    assert [s.vars[f"r{i}"] for i in range(1, 6)] == [1, 0, 1, -1, 2]


def test_next_player_dump():
    text = ir.dump(compile_text(NEXT, "next.atout"))
    assert "value: next(q after seat 1:player: ((q == seat 0:player) or (q == seat 2:player)))" in text


@pytest.mark.parametrize("old, new, code", [
    ("r1 = next(q after 0: true)", "r1 = next(q after true: true)", "E104"),
    ("r1 = next(q after 0: true)", "r1 = next(q after 0: 1)", "E104"),
    ("r1 = next(q after 0: true)", "r1 = next(q after 0: p == 1)", "E103"),
])
def test_next_player_errors(old, new, code):
    with pytest.raises(CompileError) as err:
        compile_text(NEXT.replace(old, new), "bad.atout")
    assert [d.code for d in err.value.diagnostics] == [code]


@pytest.mark.parametrize("stmt", ["goto play", "end deal", "if trick_number == 2 { end deal }"])
def test_after_trick_cannot_jump(stmt):
    text = AFTER_TRICK.replace("after trick { seen", "after trick { " + stmt + "  seen")
    with pytest.raises(CompileError) as err:
        compile_text(text, "bad.atout")
    (d,) = err.value.diagnostics
    assert d.code == "E110" and "after trick" in d.message


def test_dump_shows_after_only_when_used():
    assert "after: [" in ir.dump(compile_text(AFTER_TRICK, "toy.atout"))
    ecarte = atout.compile_file(str(ROOT / "rules" / "ecarte.atout"))
    assert "after:" not in ir.dump(ecarte)
    assert ecarte.phase("play").trick.after == ()

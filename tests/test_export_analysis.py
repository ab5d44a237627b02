"""The game facts the OpenSpiel export derives from the IR, on small games whose answers are known by hand."""
from __future__ import annotations

from atout.compiler import compile_text
from atout.export.analysis import max_decisions, utility_bounds

GAME = """game t
players 2
deck { suits a b ranks K Q }
zone stock: hidden, home
zone hand: per player, private
match var points: int in -1..4 per player = 0
deal var n: %s = 0
phase deal { do { deal 2 from stock to hand starting eldest
  goto ask } }
phase ask {
  actor eldest
  action again when n < 3 { n += 1 goto ask }
  action stop { goto play }
}
phase play { trick { count 2 leader eldest then { points[winner] += 1 end deal } } }
match { start deal ends when deal_number >= %d returns(p) = %s }
"""


def test_bound_of_a_counted_loop():
    # 'again' at most 3 times (n counts 0..3), 'stop' once, then 2 tricks of 2 cards: 3 + 1 + 4 = 8 per deal
    assert max_decisions(compile_text(GAME % ("int in 0..3", 1, "points[p]"))) == 8
    assert max_decisions(compile_text(GAME % ("int in 0..3", 3, "points[p]"))) == 24


def test_no_bound_without_a_bounded_counter():
    assert max_decisions(compile_text(GAME % ("int", 1, "points[p]"))) is None
    # the match never ends after a known number of deals
    text = (GAME % ("int in 0..3", 1, "points[p]")).replace("ends when deal_number >= 1",
                                                             "ends when points[0] >= 4")
    assert max_decisions(compile_text(text)) is None


def test_utility_bounds():
    assert utility_bounds(compile_text(GAME % ("int in 0..3", 1, "points[p]"))) == (-1, 4)
    assert utility_bounds(compile_text(GAME % ("int in 0..3", 1, "points[p] * 2 - points[left(p)]"))) == (-6, 9)
    assert utility_bounds(compile_text(GAME % ("int in 0..3", 1, "if points[p] > 0 then 2 else -3"))) == (-3, 2)
    assert utility_bounds(compile_text(GAME % ("int in 0..3", 1, "n"))) == (0, 3)
    assert utility_bounds(compile_text(GAME % ("int", 1, "n"))) is None

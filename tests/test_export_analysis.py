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


DERIVED = """game t
players 2
deck { suits a b ranks K Q }
zone stock: hidden, home
zone hand: per player, private
match var gains: int per player = 0
deal var n: %s = 0
deal var bonus: int = 0
phase deal { do { deal 2 from stock to hand starting eldest
  bonus = 2
  goto ask } }
phase ask {
  actor eldest
  action again when n < 3 { n += 1 bonus += %s goto ask }
  action stop { goto play }
}
phase play { trick { count 2 leader eldest
  after trick { gains[winner] += bonus }
  then { for p in players { gains[p] -= 1 } end deal } } }
match { start deal ends when deal_number >= 2 returns(p) = gains[p] }
"""


def test_ranges_derived_from_assignments():
    """Variables declared without a range get one from their assignments, worked out by hand:
    - 'ask' is on a loop that pays a step of n (0..3, +1) each time round: at most 4 visits a deal;
    - bonus is 0 or set to 2, then 'again' adds 1 at most 4 times: 0..6 (a loose bound: the guard allows 3);
    - gains: 'after trick' runs after each of the 2 tricks and adds bonus (0..6): +12 at most a deal; 'then'
      takes 1 from each player once a deal (a loop over the 2 players: 2 runs, -2); 2 deals: -4..24."""
    from atout.export.analysis import _Bounds, phase_visits

    g = compile_text(DERIVED % ("int in 0..3", "1"))
    assert phase_visits(g) == {"deal": 1, "ask": 4, "play": 1}
    b = _Bounds(g)
    assert b.var("bonus") == (0, 6)
    assert utility_bounds(g) == (-4, 24)


def test_no_derived_range_without_bounded_runs_or_when_self_dependent():
    # n has no range: nothing bounds the loop through 'ask', so neither bonus nor gains has a bound
    assert utility_bounds(compile_text(DERIVED % ("int", "1"))) is None
    # bonus += bonus: its change depends on its own value
    assert utility_bounds(compile_text(DERIVED % ("int in 0..3", "bonus"))) is None
    # a match of unknown length: the changes of a match variable add up without bound
    text = (DERIVED % ("int in 0..3", "1")).replace("ends when deal_number >= 2", "ends when gains[0] > 5")
    assert utility_bounds(compile_text(text)) is None


def test_a_flag_that_is_reset_does_not_bound_an_action():
    """An action in trick play counts once per deal only if its flag, once set, stays set."""
    text = """game t
players 2
deck { suits a b ranks K Q }
zone stock: hidden, home
zone hand: per player, private
match var points: int in 0..9 per player = 0
deal var said: bool = false
phase deal { do { deal 2 from stock to hand starting eldest
  goto play } }
phase play {
  trick { count 2 leader eldest then { end deal } }
  action say when not said { said = true  %s }
}
match { start deal ends when deal_number >= 1 returns(p) = points[p] }
"""
    # 'say' at most once, then 2 tricks of 2 cards: 1 + 4 decisions
    assert max_decisions(compile_text(text % "")) == 5
    # said = false again: 'say' can be repeated without end
    assert max_decisions(compile_text(text % "said = false")) is None

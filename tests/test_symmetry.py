"""The symmetries the abstraction uses (verify/symmetry.py): turning the table, now with sides, and relabelling
suits are used only when the rules treat every seat (suit) alike.

Known truth: the three games of tests/data/symmetry/ other than partnership.atout have a property that is
false, by hand (their headers say why), and that a symmetry the rules break would have "proved".  The
partnership game is explored with the table turned and without: the same verdicts, a quarter of the states
(the dealer is in every state and the first dealer is drawn by lot, so each orbit has four states)."""
from __future__ import annotations

import os

import pytest

from atout.compiler import compile_text, ir
from atout.engine import Game, load
from atout.verify import absint
from atout.verify.absint import Abstraction
from atout.verify.cli import verify_game
from atout.verify.crosscheck import CrossCheck
from atout.verify.properties import bound_holds
from atout.verify.symmetry import loop_order_free, side_turns

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "symmetry")


def _verify(path, names=None):
    cross = CrossCheck()
    results, _ = verify_game(load(path), names=names, builtins=False, cross=cross)
    return {r.name: r for r in results}, cross


# -- known truth: a construct that tells seats or suits apart keeps the symmetry off ------------------------

@pytest.mark.parametrize("stem, prop, symmetry, construct", [
    ("players_loop_order", "first_is_dealer", "rotational", "'for p in players' loop (line 22)"),
    ("suits_loop_order", "same", "symmetric", "'for s in suits' loop (line 26)"),
    ("suit_order", "first_suit", "symmetric", "ord() of a suit (line 41)"),
])
def test_a_construct_that_tells_seats_or_suits_apart_keeps_the_symmetry_off(stem, prop, symmetry, construct):
    path = os.path.join(DATA, f"{stem}.atout")
    A = Abstraction(load(path))
    assert getattr(A, symmetry) is False
    why = A.rotation_refused if symmetry == "rotational" else A.suits_refused
    assert construct in why
    results, cross = _verify(path, [prop])
    r = results[prop]
    assert r.verdict == "refuted", r.method          # false by hand (the file's header)
    assert r.counterexample is not None and r.counterexample.steps
    assert cross.failures == [] and cross.matches > 0


# -- sides turned with the table ------------------------------------------------------------------------------

def _game(sides: str, body: str = "", decls: str = "") -> ir.Game:
    text = f"""game t "t"
players 4 {sides}
deck {{ suits hearts spades  ranks A K }}
zone stock: hidden, home
zone hand: per player, private
match var points: int per side = 0
match var capped: int in 0..9 per side = 0
match var tally: int = 0
match var ranged: int in 0..9 = 0
deal var first_seen: player = none
deal var before: int per side = 0
deal var pts: int per player = 0
{decls}
phase deal {{
  do {{
    gather stock
    shuffle stock
    deal 1 from stock to hand starting eldest
    {body}
    goto go
  }}
}}
phase go {{
  actor eldest
  action ok "ok" {{ end deal }}
}}
match {{
  start deal
  ends when deal_number >= 2
  returns(p) = points[p]
}}
"""
    return compile_text(text, "t.atout")


def test_side_turns_map_each_side_to_the_side_its_seats_form_once_turned():
    # partners opposite: turning by one seat or three swaps the sides, by two keeps them (by hand)
    assert side_turns(_game("sides {0 2} {1 3}")) == ((0, 1), (1, 0), (0, 1), (1, 0))
    # partners side by side: turning by one seat splits {0 1} into seats 3 and 0, of two sides
    assert side_turns(_game("sides {0 1} {2 3}")) is None
    assert side_turns(load(os.path.join(ROOT, "tests", "data", "tiny_duel.atout")).ir) == ()


def _loop(g: ir.Game) -> ir.For:
    body = next(ph for ph in g.phases if ph.name == "deal").body
    return next(s for s in ir.walk_stmts(body) if isinstance(s, ir.For))


@pytest.mark.parametrize("body, free", [
    # each turn writes its own cell, reads nothing written
    ("for p in players { pts[p] += 1 }", True),
    ("for s in sides { capped[s] += 1 }", True),
    # partners write the same value to their side's cell (Whist's 'before[p] = points[p]')
    ("for p in players { before[p] = points[p] }", True),
    # sums add up in any order: a variable without a range, not read in the loop
    ("for p in players { tally += 1 }", True),
    # ... but a range can be left in one order and not in another (+3 then -3 against -3 then +3)
    ("for p in players { ranged += 1 }", False),
    # the first seat the loop meets
    ("for p in players { if first_seen == none { first_seen = p } }", False),
    # every turn writes its own value: the last one stays
    ("for p in players { before[p] = pts[p] }", False),
    # a turn reads what another wrote
    ("for p in players { pts[p] = total(pts) }", False),
    # not only assignments
    ("for p in players { move all from hand[p] to stock }", False),
])
def test_loops_whose_turns_do_not_depend_on_their_order(body, free):
    g = _game("sides {0 2} {1 3}", body)
    why = loop_order_free(_loop(g), {v.name: v for v in g.vars})
    assert (why is None) is free, why


@pytest.mark.parametrize("body, kept", [
    ("if side(eldest) == side(dealer) { tally += 1 }", True),
    ("points[1 - side(dealer)] += 1", True),
    ("for s in sides { if s != side(eldest) { points[s] += 1 } }", True),
    ("if side(eldest) == 0 { tally += 1 }", False),         # side 0 by number
    ("tally = side(dealer)", False),                         # a side stored as a number
    ("for s in sides { tally += s }", False),
])
def test_side_numbers_used_only_as_sides_keep_the_table_turning(body, kept):
    g = _game("sides {0 2} {1 3}", body)
    A = Abstraction(Game(g))
    assert A.rotational is kept, A.rotation_refused


def test_euchre_turns_the_table_with_its_sides():
    A = Abstraction(load(os.path.join(ROOT, "rules", "euchre.atout")))
    assert A.rotational and A.rotation_refused is None
    assert A.side_turn == ((0, 1), (1, 0), (0, 1), (1, 0))


def test_partnership_turned_and_unturned_agree(monkeypatch):
    path = os.path.join(DATA, "partnership.atout")
    turned, cross = _verify(path)
    assert cross.failures == [] and cross.matches == 24 and cross.steps > 0
    monkeypatch.setattr(absint.Abstraction, "_is_rotation_symmetric", lambda self: False)
    still, cross_still = _verify(path)
    assert cross_still.failures == []
    assert {n: r.verdict for n, r in turned.items()} == {n: r.verdict for n, r in still.items()}
    # known truth (by hand): with a bonus the dealer's side takes 2 points for a sweep, and never more
    assert turned["a_side_gains_at_most_one"].verdict == "refuted"
    assert turned["nobody_gains_three"].verdict == "proved"
    # the bonus's claimer is recorded in his side's cell: turned, the cell and the seat in it move together
    assert turned["captain_on_his_side"].verdict == "proved"
    assert turned["at_most_two_points"].verdict == "proved"
    counts = []
    for results in (turned, still):
        method = results["one_sweep_a_deal"].method
        counts.append(int(method.split("(")[1].split(" abstract states")[0]))
    assert counts[1] == 4 * counts[0]


def test_a_deal_bound_on_a_per_side_variable_is_read_per_player_side():
    game = load(os.path.join(DATA, "partnership.atout"))
    props = {p.name: p for p in game.ir.properties}
    deal = {"gains": {"points": [2, 0], "sweeps": [1, 0]}}
    # gain(points[p]) <= 1 for every player p: players 0 and 2 are side 0, which gained 2
    assert bound_holds(props["a_side_gains_at_most_one"].expr, deal, game) is False
    assert bound_holds(props["a_side_gains_at_most_one"].expr, {"gains": {"points": [1, 1]}}, game)
    assert bound_holds(props["nobody_gains_three"].expr, deal, game)


def test_a_dealer_moved_within_a_deal_keeps_the_table_still():
    # what the abstraction keeps aside within a deal is seen from the dealer's seat of that deal
    A = Abstraction(Game(_game("sides {0 2} {1 3}", "dealer = left(dealer)")))
    assert A.rotational is False and "moves the dealer within a deal" in A.rotation_refused
    assert Abstraction(Game(_game("sides {0 2} {1 3}"))).rotational is True

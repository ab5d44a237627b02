"""Invariants over zone sizes proved from the conservation of cards, without exploration (verify/zone_sizes.py,
issue 10 item 1).

Expected values are by hand: a deck of N cards is always split among the zones, so any statement that follows
from "the sizes are at least 0 and add up to N" holds, and nothing else is concluded from that alone.
"""
from __future__ import annotations

import os
import random

import pytest

from atout.compiler import compile_file, compile_text
from atout.engine import Game
from atout.verify.checker import Verifier
from atout.verify.cli import verify_game
from atout.verify.zone_sizes import reads_only_sizes, size_invariant

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Two players, twelve cards, a stock, hands and a discard pile; one trick phase.
GAME = """
game sizes
players 2
deck {{
  suits spades hearts
  ranks A K Q J 10 9
}}
zone stock: hidden, home
zone hand: per player, private
zone discards: public
deal var swaps: int in 0..2 = 0
phase deal {{
  do {{
    gather stock
    shuffle stock
    deal 3, 2 from stock to hand starting eldest
    goto swap
  }}
}}
phase swap {{
  actor eldest
  action discard(c: card in hand[actor]) when swaps < 2 {{
    move c from hand[actor] to discards
    move 1 from stock to hand[actor]
    swaps += 1
    goto swap
  }}
  action keep "keep" {{ goto play }}
}}
phase play {{
  trick {{
    count 5
    leader eldest
    follow suit
    then {{ end deal }}
  }}
}}
match {{
  first dealer 0
  next dealer left(dealer)
  start deal
  ends when deal_number >= 2
  returns(p) = tricks(p)
}}
{props}
"""


def _game(props: str) -> Game:
    return Game(compile_text(GAME.format(props=props), "sizes.atout"))


def _expr(game, name):
    return next(p.expr for p in game.ir.properties if p.name == name)


ALL = "size(stock) + size(discards) + size(trick) + sum(p in players: size(hand[p]) + size(taken[p]))"


@pytest.mark.parametrize("expr, expected", [
    (f"{ALL} == 12", True),                              # every card is somewhere
    ("size(stock) <= 12", True),                         # no zone holds more than the deck
    ("size(hand[0]) + size(hand[1]) + size(stock) <= 12", True),
    ("all(p in players: size(hand[p]) <= 12 - size(stock))", True),
    ("count(p in players: size(hand[p]) > 6) <= 1", True),   # two hands cannot both hold 7 of 12 cards
    ("size(hand[left(0)]) + size(hand[partner(1)]) <= 12", True),
    ("not (size(stock) > 6 and size(discards) > 6)", True),
    (f"{ALL} == 11", False),                             # a wrong total
    ("size(stock) <= 11", False),                        # all twelve could be in the stock for all z3 knows
    ("count(p in players: size(hand[p]) > 5) <= 1", False),
])
def test_what_the_conservation_of_cards_implies(expr, expected):
    game = _game(f"property inv: invariant {expr}")
    ok, how = size_invariant(game, _expr(game, "inv"), 20_000_000)
    assert ok is expected, how
    if ok:
        assert "without exploration" in how and "12 cards" in how


@pytest.mark.parametrize("expr", [
    "swaps <= 2",                                # a variable
    "size(stock) / 2 <= 6",                      # a division may be a rule error
    "sum(c in stock: 1) <= 12",                  # a quantifier over cards
    "tricks(0) <= 5",                            # tricks are not sizes
    "size(hand[dealer]) <= 12",                  # a player the state decides
])
def test_other_invariants_are_not_size_invariants(expr):
    game = _game(f"property inv: invariant {expr}")
    assert not reads_only_sizes(game, _expr(game, "inv"))
    ok, why = size_invariant(game, _expr(game, "inv"), 20_000_000)
    assert ok is None and why.startswith("not an invariant over zone sizes")


def test_a_false_size_invariant_is_still_refuted_by_exploration():
    """Not implied by conservation is not a refutation: the exploration decides, and finds the violation
    (the stock holds 7 cards after the deal, not 12); and one that holds for another reason (at most two
    discards a deal, the pile gathered at each deal) is proved by the exploration."""
    game = _game("property stock_full: invariant size(stock) == 12\n"
                 "property two_discards: invariant size(discards) <= 2")
    results, _ = verify_game(game, builtins=False, timeout=120)
    got = {r.name: r for r in results}
    assert got["stock_full"].verdict == "refuted" and got["stock_full"].counterexample is not None
    assert got["two_discards"].verdict == "proved"
    assert "exhaustive exploration" in got["two_discards"].method   # not implied by conservation alone


def test_a_size_invariant_is_left_out_of_the_explorations_and_holds_on_engine_runs():
    """The proved invariant takes no exploration and does not make the others' explorations keep the sizes
    it reads; the cross-check still evaluates it on concrete states, and independently of the verifier the
    engine's zones add up to the deck in every state of seeded random matches."""
    game = _game(f"property all_cards: invariant {ALL} == 12\n"
                 "property few_swaps: invariant swaps <= 2")
    V = Verifier(game)
    prop = next(p for p in game.ir.properties if p.name == "all_cards")
    assert V.proved_by_sizes(prop) is not None
    assert V._group_spec(V.spec_for(next(p for p in game.ir.properties if p.name == "few_swaps"))) is None
    from atout.verify.cli import CrossCheck
    cross = CrossCheck()
    results, _ = verify_game(game, builtins=False, timeout=120, cross=cross)
    got = {r.name: r for r in results}
    assert got["all_cards"].verdict == "proved" and "without exploration" in got["all_cards"].method
    assert got["few_swaps"].verdict == "proved"
    assert cross.matches > 0 and not cross.failures
    rng = random.Random(7)
    for _ in range(30):
        st = game.new_initial_state()
        while not st.is_terminal():
            assert sum(len(z) for z in st.zones) == 12
            if st.is_chance_node():
                st.apply_action(rng.choice([a for a, _ in st.chance_outcomes()]))
            else:
                st.apply_action(rng.choice(st.legal_actions()))


def test_hearts_fifty_two_cards_is_proved_without_exploring():
    """Hearts' fifty_two_cards was unknown (its exploration did not finish); it names every zone."""
    game = Game(compile_file(os.path.join(ROOT, "rules", "hearts.atout")))
    prop = next(p for p in game.ir.properties if p.name == "fifty_two_cards")
    ok, how = size_invariant(game, prop.expr, 20_000_000)
    assert ok is True and "52 cards" in how
    thirteen = next(p for p in game.ir.properties if p.name == "thirteen_tricks")
    assert size_invariant(game, thirteen.expr, 20_000_000)[0] is None     # tricks are not zone sizes

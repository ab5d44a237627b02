"""Invariant monitors evaluate ``invariant C`` once per player only when ``C`` reads a free ``p`` (issue 10:
Spades' two invariants quantify over the players themselves, and were evaluated four times each).  The free
locals are read by hand from the rule files' text."""
from __future__ import annotations

import os

from atout.compiler import compile_file
from atout.verify.liveness import free_locals, players_bound

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _props(path):
    g = compile_file(os.path.join(ROOT, path))
    return g, {p.name: p.expr for p in g.properties}


def test_a_free_p_is_bound_to_every_player():
    g, props = _props("tests/data/card_blind.atout")          # invariant size(hand[p]) <= 3
    assert free_locals(props["hands_hold_three"]) == {"p"}
    assert list(players_bound(g, props["hands_hold_three"])) == list(range(g.players))


def test_a_quantified_p_is_not_free():
    g, props = _props("rules/spades.atout")
    # all(p in players: contract[p] + contract[partner(p)] <= 13); sum(p in players: tricks(p)) <= 13
    for name in ("bids_at_most_thirteen_a_side", "thirteen_tricks"):
        assert free_locals(props[name]) == frozenset(), name
        assert list(players_bound(g, props[name])) == [0]
    g, props = _props("rules/whist.atout")                    # held[0] + held[1] <= 4
    assert free_locals(props["honours_split"]) == frozenset()

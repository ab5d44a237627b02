"""A seeded golden playthrough of Écarté: every step of two matches, greedy (seat 0) against random
(seat 1), with the hands at each deal and after each exchange, every trick and its winner, and the
points of each deal.  The matches are matches 0 and 1 of ``atout simulate rules/ecarte.atout -n 2
--seed 7 --bot greedy --bot random`` (match 0 is played without any proposal; match 1 has
refusals and an exchange).

Regenerate with ``python -m pytest tests/test_golden_playthrough.py --update-goldens`` and read the diff: the
golden was checked by hand against the rules (follow rules, scoring) when it was first accepted.
"""
from __future__ import annotations

import os
import random

from atout.engine.bots import make_bot
from atout.engine.simulate import play_match

from conftest import ECARTE, GOLDEN_DIR, ROOT, hand, zone

SEED = 7
BOTS = ["greedy", "random"]


def _cards(g, cs) -> str:
    return " ".join(g.card_str(c) for c in sorted(cs, key=lambda c: (g.suit_of[c], -g.strength_of[c])))


def render_playthrough(game, seed: int = SEED, bots=BOTS, match: int = 0) -> str:
    """The text of match ``match`` of ``simulate`` with ``seed`` (the RNG convention of engine/simulate.py)."""
    rng = random.Random(f"{seed}:{match}")
    players = [make_bot(bots[p % len(bots)], rng.randrange(2**32)) for p in range(game.players)]
    result = play_match(game, players, rng)
    g = game
    out = [f"# {g.ir.title}, {os.path.relpath(ECARTE, ROOT)}: match {match} of seed {seed}; "
           + ", ".join(f"seat {p} {bots[p % len(bots)]}" for p in range(g.players)),
           "# step, who, action; '=' lines show the hands (full information); '>' a trick and its winner"]
    s = g.new_initial_state()
    deal_seen = -1
    n_deals = 0
    for k, step in enumerate(result.steps, 1):
        if s.deal_number != deal_seen:
            deal_seen = s.deal_number
            out.append(f"deal {s.deal_number + 1}: dealer seat {s.dealer}, eldest seat {(s.dealer + 1) % g.players}")
        trick_before = list(s.trick_cards)
        trick_no = s.trick_number
        tricks_before = list(s.tricks_won)
        phase_before = s.phase
        who = "chance" if step["player"] < 0 else f"seat {step['player']}"
        text = s.action_to_string(step["action"])
        assert text == step["text"]
        s.apply_action(step["action"])
        out.append(f"{k:4d} {who:>7}: {text}")
        if phase_before == "deal" and s.phase == "declare" or (
                phase_before == "dealer_exchange" and s.phase == "declare"):
            out.append(f"     = turn-up {_cards(g, zone(s, 'turnup'))}; hand 0: {_cards(g, hand(s, 0))}; "
                       f"hand 1: {_cards(g, hand(s, 1))}; points {s.vars['points']}")
        if phase_before == "play" and step["player"] >= 0 and len(trick_before) == 1 and not s.trick_cards:
            cards = trick_before + [(step["player"], step["action"])]
            # after the last trick a new deal has begun: the winner is whose tricks went up in the deal log
            after = s.tricks_won if s.deal_number == deal_seen else s.deal_log[-1]["tricks"]
            winner = next(p for p in range(g.players) if after[p] > tricks_before[p])
            played = ", ".join(f"seat {p} {g.card_str(c)}" for p, c in cards)
            out.append(f"     > trick {trick_no}: {played} -> seat {winner}")
        if len(s.deal_log) > n_deals:
            d = s.deal_log[n_deals]
            n_deals += 1
            out.append(f"     -- deal {n_deals} over: tricks {d['tricks']}, points this deal {d['points']} "
                       f"(exchanges {d['vars']['exchanges']}); score {s.vars['points']}")
    out.append(f"match over after {len(result.steps)} steps: score {s.vars['points']}, returns {s.returns()}")
    return "\n".join(out) + "\n"


def test_golden_playthrough_seed7(ecarte, update_goldens):
    path = os.path.join(GOLDEN_DIR, "ecarte_seed7.txt")
    text = render_playthrough(ecarte, match=0) + "\n" + render_playthrough(ecarte, match=1)
    if update_goldens or not os.path.exists(path):
        assert update_goldens, f"{path} is missing: run pytest with --update-goldens and read it"
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    with open(path, encoding="utf-8") as fh:
        expected = fh.read()
    assert text == expected, "the seed-7 playthrough changed; if intended, --update-goldens and read the diff"

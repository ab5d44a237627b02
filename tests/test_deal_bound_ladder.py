"""A deal bound is decided on the card-blind exploration first, then on one tracking the named cards
(:meth:`atout.verify.checker.Verifier.ladder`).  A bound the engine breaks is refuted before the finer
exploration is made: a helper's Hearts variant (the queen of spades worth 12) broke the inherited
'points_per_hand' and waited 85 s for an exploration of 237,575 states tracking three cards, which a
violation played by the engine makes useless."""
from __future__ import annotations

from pathlib import Path

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify.checker import Spec
from atout.verify.cli import verify_game

HEARTS = Path(__file__).resolve().parent.parent / "rules" / "hearts.atout"


def test_a_broken_bound_is_refuted_before_the_finer_exploration(tmp_path):
    """By hand: with the queen of spades worth 12 a hand gives 13 + 12 = 25 points in all, or 77 when the moon
    is shot (the shooter 25 - 26 = -1, each other player 26), never 26 or 78 as the inherited property says."""
    variant = tmp_path / "hearts_q12.atout"
    variant.write_text(f'extends "{HEARTS}"\ngame hearts_q12 "Hearts, the queen of spades worth 12"\n'
                       "override def penalty(c: card): int = case c {\n"
                       "  Q of spades: 12,\n"
                       "  J of diamonds: if jd_bonus then -10 else 0,\n"
                       "  else: if suit(c) == hearts then 1 else 0\n"
                       "}\n")
    results, _ = verify_game(Game(compile_file(str(variant))), names=["points_per_hand"], builtins=False)
    (r,) = results
    assert r.verdict == "refuted", r.method
    V = verify_game.last
    assert r.explored == Spec(precise=True, blind=True)
    assert V._explorations and not any(_tracks(V, key) for key in V._explorations), \
        "no exploration tracking the named cards was made"
    st = V.game.new_initial_state()          # the counterexample replayed: the deal's points add up to 25 or 77
    for step in r.counterexample.steps:
        st.apply_action(step["action"])
    total = sum(st.deal_log[-1]["gains"]["points"])
    assert total in (25, 77)


def _tracks(V, key) -> bool:
    """Whether the exploration kept under ``key`` tracks cards (its spec's tracked cards are in the key)."""
    got = V._explorations[key]
    return bool(got[1] is not None and got[1].track)

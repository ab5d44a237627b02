"""deal_number kept exactly where the rules read it and the match has few deals (issue 10 review, a newcomer's
Oh Hell: the hand shrinks by one card a deal).

Without it the abstraction ran every deal with every deal's number: a hand of 0 cards, or of -1, was a rule
error that no deal has, and 'no rule error' stayed unknown.  The known values are the rules' own: the fixture
deals 2 cards, then 1 (tests/fixtures/audit/shrinking_hands.atout, argued in its header)."""
from __future__ import annotations

from pathlib import Path

from atout.compiler import compile_file, compile_text
from atout.engine import Game
from atout.verify.absint import MAX_EXACT_DEALS, Abstraction
from atout.verify.checker import Budget
from atout.verify.cli import verify_game
from atout.verify.crosscheck import CrossCheck

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "audit" / "shrinking_hands.atout"
TEXT = FIXTURE.read_text(encoding="utf-8")


def _game(text: str) -> Game:
    return Game(compile_text(text, "shrinking.atout"))


def test_deal_number_is_kept_when_read_and_the_deals_are_few():
    assert Abstraction(Game(compile_file(str(FIXTURE)))).exact_deals
    # more deals than MAX_EXACT_DEALS: not kept (the bound is z3's, from 'ends when')
    many = TEXT.replace("ends when deal_number >= 2", f"ends when deal_number >= {MAX_EXACT_DEALS + 1}") \
        .replace("hand_size = 2 - deal_number", "hand_size = 2 - deal_number % 2")
    assert not Abstraction(_game(many)).exact_deals
    # a match whose rules never read deal_number (only 'ends when' does): nothing to keep
    fixed = TEXT.replace("hand_size = 2 - deal_number", "hand_size = 2")
    assert not Abstraction(_game(fixed)).exact_deals


def test_the_cross_check_maps_every_deal_onto_the_exploration():
    game = Game(compile_file(str(FIXTURE)))
    cross = CrossCheck()
    results, _ = verify_game(game, budget=Budget(cross_check=24), cross=cross)
    verdicts = {r.name: r.verdict for r in results}
    assert cross.matches == 24 and not cross.failures, cross.failures[:1]
    assert verdicts["builtin:no_rule_error"] == "proved" and verdicts["someone_scores"] == "refuted"


def test_a_parameter_value_no_deal_allows_is_refuted():
    """With 2 cards at most, a bid of 3 is never legal ('n <= hand_size'): reachability is refuted and names
    the value (it needed every value witnessed to be proved, and said unknown)."""
    game = _game(TEXT.replace("bid(n: 0..2)", "bid(n: 0..3)") + "\nproperty all_bids: reachable\n")
    results, _ = verify_game(game, names=["all_bids"], builtins=False)
    r = results[0]
    assert r.verdict == "refuted" and "with 3 " in r.method, r.method

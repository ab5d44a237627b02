"""Tricks won kept as a total until a statement reads how they split (:func:`atout.verify.absint.split_reads`).

In a game with sides and long deals the abstraction kept each side's total of tricks; who wins a trick is
not modelled, so every split of a total is reached with the rest of the state alike, and when only
statements (a deal's scoring) read the split, the abstract state now keeps only the total and a statement
that reads the split runs under each way it can split.  The verdicts must be those of the per-side
abstraction, on fewer states; the cross-check maps seeded engine matches into the graph (the abstraction
covers concrete runs); and the truth by hand of tests/data/partnership_auction.atout holds: a side gains
at most 160 in a deal (a doubled 4 bid and no trick taken by the declarer's side: 8 short, 20 each).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify import absint
from atout.verify.absint import split_reads
from atout.verify.cli import verify_game
from atout.verify.crosscheck import CrossCheck

ROOT = Path(__file__).resolve().parent.parent
AUCTION = ROOT / "tests/data/partnership_auction.atout"


def _verdicts(path, monkeypatch=None, per_side: bool = False):
    if per_side:
        monkeypatch.setattr(absint, "split_reads", lambda g: None)
    cross = CrossCheck()
    results, _ = verify_game(Game(compile_file(str(path))), cross=cross)
    work = verify_game.last.work["abstract_states"]
    return {r.name: r.verdict for r in results}, work, cross


@pytest.mark.parametrize("path", ["rules/bridge.atout", "rules/whist.atout", "rules/spades.atout",
                                  "tests/data/partnership_auction.atout"])
def test_only_statements_read_the_split_in_the_shipped_partnership_games(path):
    got = split_reads(compile_file(str(ROOT / path)))
    assert got, "only statements read the split, and some do (the scoring)"
    assert absint.Abstraction(Game(compile_file(str(ROOT / path)))).no_tricks() == ("T", 0)


def test_a_guard_that_reads_the_split_keeps_each_sides_total(tmp_path):
    text = AUCTION.read_text().replace('action pass "Pass" {', 'action pass "Pass" when tricks(actor) == 0 {')
    f = tmp_path / "guarded.atout"
    f.write_text(text)
    assert split_reads(compile_file(str(f))) is None
    A = absint.Abstraction(Game(compile_file(str(f))))
    assert A.no_tricks() == ("S", (0, 0))


def test_a_property_that_reads_a_players_tricks_keeps_each_sides_total(tmp_path):
    f = tmp_path / "prop.atout"
    f.write_text(AUCTION.read_text() + "property few: invariant tricks(0) + tricks(2) <= 8\n")
    assert split_reads(compile_file(str(f))) is None


def test_the_total_gives_the_per_side_verdicts_on_fewer_states(monkeypatch):
    total, states, cross = _verdicts(AUCTION)
    with monkeypatch.context() as m:
        per_side, per_side_states, per_side_cross = _verdicts(AUCTION, m, per_side=True)
    assert total == per_side
    assert total["deal_swing"] == "proved" and total["eight_tricks"] == "proved"
    assert states < per_side_states
    assert cross.failures == [] and per_side_cross.failures == []
    assert cross.steps > 0


def test_a_bound_below_the_truth_is_refuted_with_the_total(tmp_path):
    f = tmp_path / "tight.atout"
    f.write_text(AUCTION.read_text().replace("gain(points[p]) <= 160", "gain(points[p]) <= 150"))
    results, _ = verify_game(Game(compile_file(str(f))), names=["deal_swing"])
    assert results[0].verdict == "refuted"
    assert "160" in "\n".join(results[0].counterexample.play_by_play)


def test_a_split_read_during_the_deal_is_kept_for_the_rest_of_it(tmp_path):
    """The audit's case (a split read after each trick): once a statement has chosen how the total splits,
    the next trick adds to that split; choosing it afresh at each read would forget that a side's tricks
    never go down.  By hand: 'odd' can never become true (North-South reached 5 tricks and then had fewer),
    so the invariant is proved and the condition that sets it never holds (builtin:guards refuted), as with
    each side's total kept from the start; and the cross-check maps every run into the graph."""
    text = AUCTION.read_text().replace(
        "deal var calls: int in 0..60 = 0",
        "deal var calls: int in 0..60 = 0\ndeal var ns_lead: bool = false\ndeal var odd: bool = false").replace(
        "    then {\n", "    after trick {\n      if tricks(0) + tricks(2) >= 5 { ns_lead = true }\n"
        "      if ns_lead and tricks(0) + tricks(2) < 5 { odd = true }\n    }\n    then {\n", 1)
    text += "property never_odd: invariant not odd\n"
    f = tmp_path / "after_split.atout"
    f.write_text(text)
    assert split_reads(compile_file(str(f)))
    cross = CrossCheck()
    results, _ = verify_game(Game(compile_file(str(f))), cross=cross)
    got = {r.name: r.verdict for r in results}
    assert got["never_odd"] == "proved" and got["builtin:guards"] == "refuted"
    assert cross.failures == [] and cross.steps > 0

"""Deal-end tails: a game whose tricks are played by hand ends its deal inside an action
(``if done < 3 { goto play }  score settle  end deal``), not in a trick phase's ``then`` block.

The explorer summarises such a tail once per distinct state, z3 follows it, and the deal variables that only
it reads (the bids of tests/data/bids_by_hand.atout) are not kept through the tricks: their values on entering
the phase are recorded and given to z3 (docs/verify.md, "Frozen variables").  The expected tails, frozen
variables and verdicts below are worked out by reading the rules (each file's header says why)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from atout.compiler import compile_file, compile_text, ir
from atout.engine import Game
from atout.verify.cli import verify_game
from atout.verify.crosscheck import CrossCheck
from atout.verify.liveness import action_deal_ends, deal_end_blocks, frozen_at_deal_ends

DATA = Path(__file__).resolve().parent / "data"
BIDS = DATA / "bids_by_hand.atout"
TAIL = "    if done < 3 { goto play }\n    score settle\n    end deal\n"


def _variant(tail: str) -> str:
    text = BIDS.read_text(encoding="utf-8")
    assert TAIL in text
    return text.replace(TAIL, tail)


def _tails(g) -> list:
    """``[(phase, [statement kinds of the tail], whole block?)]``."""
    return [(ph.name, [type(s).__name__ for s in block[start:]], start == 0) for ph, block, start in action_deal_ends(g)]


def test_the_tail_after_the_last_goto():
    """bids_by_hand: the play's last two statements ('score settle', 'end deal') follow the last 'goto'; the
    auction's bid always goes to a phase (no tail)."""
    g = compile_file(str(BIDS))
    assert _tails(g) == [("play", ["Score", "EndDeal"], False)]
    assert [(ph.name, len(stmts)) for ph, stmts, _, _ in deal_end_blocks(g)] == [("play", 2)]


@pytest.mark.parametrize("tail, expected", [
    # the scoring in an 'else': the else block is the tail, from its first statement
    ("    if done < 3 { goto play } else {\n      score settle\n      end deal\n    }\n",
     ("play", ["Score", "EndDeal"], True)),
    # the scoring under the last trick's 'if', then the goto: the branch is the tail (the body may go on
    # past an 'if' without an 'else', so no tail of the body holds it)
    ("    if done == 3 {\n      score settle\n      end deal\n    }\n    goto play\n",
     ("play", ["Score", "EndDeal"], True)),
    # a tail that reads the card played: only the 'end deal' after that read is a tail
    ("    if done < 3 { goto play }\n    score settle\n    if suit(c) == spades { bidder = none }\n"
     "    end deal\n", ("play", ["EndDeal"], False)),
])
def test_tails_by_hand(tail, expected):
    assert _tails(compile_text(_variant(tail))) == [expected]


def test_the_bids_are_frozen_in_play():
    """The bids are read in the auction (its guard) and by the scoring of the tail alone: frozen in 'play'.
    'bidder' is written only in the deal and the auction: kept with them (a companion)."""
    g = compile_file(str(BIDS))
    frozen, unwritten = frozen_at_deal_ends(g, g.properties)["play"]
    assert frozen == {"bid"}
    assert unwritten == {"bid", "bidder"}


@pytest.mark.parametrize("change", [
    # the play's guard reads a bid: read in the phase, not only by the tail
    ("      when led == none or", "      when bid[actor] >= 0 and led == none or"),
    # the tail reads the card played: the scoring is no longer in a tail z3 follows
    (TAIL, "    if done < 3 { goto play }\n    score settle\n    if suit(c) == spades { bidder = none }\n"
           "    end deal\n"),
    # the match reads a bid (at any moment)
    ("ends when deal_number >= 2", "ends when deal_number >= 2 or bid[0] > 3"),
])
def test_not_frozen_when_read_elsewhere(change):
    text = BIDS.read_text(encoding="utf-8")
    assert change[0] in text
    g = compile_text(text.replace(change[0], change[1], 1))
    assert "play" not in frozen_at_deal_ends(g, g.properties)


def _run(text_or_path):
    g = Game(compile_file(str(text_or_path)) if isinstance(text_or_path, Path) else compile_text(text_or_path))
    cross = CrossCheck()
    results, _ = verify_game(g, cross=cross)
    states = max(int(m.group(1)) for r in results for m in re.finditer(r"\((\d+) abstract states", r.method))
    return {r.name: r.verdict for r in results}, cross, states


EXPECTED = {"side_cap": "proved", "total_cap": "proved", "total_floor": "refuted", "bids_fit": "proved",
            "low_bids": "refuted", "tricks_add_up": "proved"}


@pytest.mark.parametrize("which", ["as written", "scoring in an else"])
def test_bids_by_hand_decided(which):
    """By hand (the file's header): side_cap, total_cap, bids_fit and tricks_add_up hold, total_floor and
    low_bids do not, and every built-in check holds.  With the bids kept through the tricks the abstraction
    had 36,649 states (every split of the bids times every state of the play); frozen, under 2,000."""
    text = BIDS if which == "as written" else \
        _variant("    if done < 3 { goto play } else {\n      score settle\n      end deal\n    }\n")
    verdicts, cross, states = _run(text)
    assert {k: verdicts[k] for k in EXPECTED} == EXPECTED
    assert {v for k, v in verdicts.items() if k.startswith("builtin:")} == {"proved"}, verdicts
    assert states < 2000
    # the abstraction covers the engine's matches, and the proved properties hold in their states
    assert cross.matches > 0 and cross.states > 0 and not cross.failures, cross.as_json()




# -- the recorded entries speak the node's labels (found by an adversarial probe) ---------------------------------
# The verdicts of these games are tests/test_soundness_cases.py's (each file's header argues them by hand);
# here, that each has what made it wrong before: a frozen variable beside kept ones that z3 pairs it with.
AUDIT = Path(__file__).resolve().parent / "fixtures" / "audit"


@pytest.mark.parametrize("name, phase, frozen, companion", [
    ("frozen_suit_relabelled", "three", {"named"}, "second"),
    ("frozen_suit_relabelled_trick", "three", {"named"}, "second"),
    ("frozen_companion_invariant", "play", {"a"}, "b"),
    ("lucky_suit_match_end", "play", {"lucky"}, "trumps"),
    ("frozen_entry_labels", "count", {"a"}, "s"),
])
def test_the_audit_cases_freeze_what_their_headers_say(name, phase, frozen, companion):
    g = compile_file(str(AUDIT / f"{name}.atout"))
    got, unwritten = frozen_at_deal_ends(g, g.properties)[phase]
    assert got == frozen and companion in unwritten

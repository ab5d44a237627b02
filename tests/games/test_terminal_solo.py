"""`atout play rules/solo_whist.atout`: a person bids and plays through a deal at the terminal
(scripted input fed to atout.engine.terminal.play_terminal)."""
from __future__ import annotations

import io
import re
from pathlib import Path

import atout
from atout.engine.terminal import play_terminal

ROOT = Path(__file__).resolve().parents[2]


def test_a_person_bids_and_plays_a_deal_of_solo_whist():
    game = atout.load(str(ROOT / "rules" / "solo_whist.atout"))
    out = io.StringIO()
    answers = iter(["bid solp",       # a typo: refused, asked again
                    "bid solo"])      # seat 1 is eldest: the first to speak, solo is legal
    asked = []

    def scripted(prompt: str) -> str:
        asked.append(prompt)
        if "-- deal 1 over" in out.getvalue():
            return "quit"
        return next(answers, "1")     # then the first legal action each time: pass, a card, ...

    status = play_terminal(game, seat=1, bot="random", seed=5, input_fn=scripted, out=out)
    text = out.getvalue()
    assert status == 0
    assert asked and all(p == "seat 1> " for p in asked)
    assert "refused: 'bid solp' is not a legal action here; did you mean 'bid solo'?" in text
    assert "you: bid solo" in text
    # the auction offered the ladder and the pass
    assert "bid proposal" in text and "bid abondance déclarée" in text and ". pass" in text
    # the human played cards to tricks: 13 of them
    assert text.count("you: play ") == 13
    assert "-- deal 1 over: " in text and ("this deal: units " in text or "no score this deal" in text)
    assert "bye (the match was left unfinished)" in text


def test_whist_at_the_terminal_shows_the_partnerships_and_each_side_s_points():
    """Issue 11: the deal summary said 'points this deal you 0, seat 1 0, ...' while a side scored 3."""
    game = atout.load(str(ROOT / "rules" / "whist.atout"))
    out = io.StringIO()

    def scripted(prompt: str) -> str:
        return "quit" if "-- deal 1 over" in out.getvalue() else "1"
    assert play_terminal(game, seat=0, bot="random", seed=3, input_fn=scripted, out=out) == 0
    text = out.getvalue()
    assert "partners: you & seat 2 vs seat 1 & seat 3" in text
    # 13 tricks: one side takes at least 7, so it scores odd tricks (LW): the summary names that side
    summary = next(line for line in text.splitlines() if line.startswith("-- deal 1 over"))
    tricks = [int(x) for x in re.findall(r"(?:you|seat \d) (\d+)", summary.split(";")[0])]
    ours, theirs = tricks[0] + tricks[2], tricks[1] + tricks[3]
    winner, odd = ("you & seat 2", ours - 6) if ours > theirs else ("seat 1 & seat 3", theirs - 6)
    assert re.search(rf"this deal: points .*{winner} {odd}\b", summary), summary

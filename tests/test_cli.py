"""The ``atout`` command on Écarté: check, simulate (statistics and records), replay, play.

The records of ``simulate`` are checked by an independent referee (tests/ecarte_referee.py) written
from the rules digest, not from the engine: every card played obeys the follow rules and every
deal's points follow the scoring table.
"""
from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from collections import Counter

import pytest

from atout.cli import main
from atout.engine.terminal import parse_choice, play_terminal

from conftest import ECARTE, GOLDEN_DIR, ROOT, act, arrange_deal, card, load_game
from ecarte_referee import referee


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- check ------------------------------------------------------------------------------------------

def test_check_prints_a_summary(capsys):
    code, out, err = run(capsys, "check", ECARTE)
    assert code == 0 and err == ""
    # the facts of the rule file, counted by hand: 2 players, 32 cards of 4 suits x 8 ranks; phases deal,
    # declare, answer, elder_exchange, dealer_exchange, play; one table; 6 options; 9 properties;
    # 32 card ids + 6 named actions (play, propose, accept, refuse, announce_king, done)
    for part in ("ok: game 'ecarte'", "2 players", "32 cards (4 suits x 8 ranks)", "6 phases",
                 "1 scoring table,", "6 options", "9 properties", "38 distinct action ids"):
        assert part in out, part


def test_check_a_missing_file_exits_2_without_a_traceback(capsys, tmp_path):
    code, out, err = run(capsys, "check", str(tmp_path / "nope.atout"))
    assert code == 2 and "cannot read rule file" in err and "Traceback" not in err


# -- simulate ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sim1000(tmp_path_factory):
    """``atout simulate rules/ecarte.atout -n 1000 --seed 1 --json --record R`` (run once)."""
    path = tmp_path_factory.mktemp("sim") / "r.jsonl"
    buf = io.StringIO()
    old = sys.stdout
    sys.stdout = buf
    try:
        code = main(["simulate", ECARTE, "-n", "1000", "--seed", "1", "--json", "--record", str(path)])
    finally:
        sys.stdout = old
    assert code == 0
    with open(path, encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    return json.loads(buf.getvalue()), records, path


def test_simulate_1000_every_deal_1_to_3_points_every_match_to_5(sim1000):
    """The issue's 'done when': every deal awards 1 to 3 points, every match ends at 5 or more; the
    referee re-derives every deal's points and tricks from the steps, by the rules."""
    stats, records, _ = sim1000
    assert len(records) == 1000 == stats["matches"]
    for k, rec in enumerate(records):
        assert rec["format"] == "atout-record/1" and rec["match"] == k and rec["game"] == "ecarte"
        deals, score = referee(rec)
        assert [d["points"] for d in rec["deals"]] == [d["points"] for d in deals], k
        assert [d["tricks"] for d in rec["deals"]] == [d["tricks"] for d in deals], k
        assert [d["complete"] for d in rec["deals"]] == [d["complete"] for d in deals], k
        for d in deals:
            assert 1 <= sum(d["points"]) <= 3  # fact 15 (a deal ended by a king awards 1)
        assert max(score) >= 5 and min(score) < 5  # fact 14: it ended as soon as one reached 5
        winner = score.index(max(score))
        assert rec["returns"][winner] == 1.0 and rec["returns"][1 - winner] == -1.0


def test_simulate_statistics_agree_with_the_records(sim1000):
    stats, records, _ = sim1000
    wins = Counter(str(r["returns"].index(1.0)) for r in records)
    assert stats["wins_by_seat"] == dict(wins)
    assert stats["deals"] == sum(len(r["deals"]) for r in records)
    per_deal = Counter(str(sum(d["points"])) for r in records for d in r["deals"])
    assert stats["points_per_deal"]["histogram"] == dict(sorted(per_deal.items()))
    assert stats["points_per_deal"]["min"] >= 1 and stats["points_per_deal"]["max"] <= 3
    assert stats["points_per_deal"]["max_for_one_player"] <= 3
    exch = Counter(str(d["vars"]["exchanges"]) for r in records for d in r["deals"])
    assert stats["deal_variables"]["exchanges"]["histogram"] == dict(sorted(exch.items(), key=lambda kv: int(kv[0])))
    dpm = Counter(str(len(r["deals"])) for r in records)
    assert stats["deals_per_match"]["histogram"] == dict(sorted(dpm.items(), key=lambda kv: int(kv[0])))
    # a match needs at least 2 deals (at most 3 points a deal)
    assert stats["deals_per_match"]["min"] >= 2


def test_simulate_is_reproducible(capsys, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for p in (a, b):
        assert run(capsys, "simulate", ECARTE, "-n", "20", "--seed", "5", "--record", str(p), "--json")[0] == 0
    assert a.read_text(encoding="utf-8") == b.read_text(encoding="utf-8")


def test_simulate_prints_tables(capsys):
    code, out, _ = run(capsys, "simulate", ECARTE, "-n", "5", "--seed", "2", "--bot", "greedy", "--bot", "random")
    assert code == 0
    for part in ("matches won by seat", "points per deal", "deals per match", "exchanges per deal"):
        assert part in out


def test_simulate_bad_arguments_exit_2(capsys):
    code, out, err = run(capsys, "simulate", ECARTE, "-n", "0")
    assert code == 2 and "-n must be at least 1" in err
    with pytest.raises(SystemExit) as exc:
        main(["simulate", ECARTE, "-n", "3", "--bot", "minimax"])
    assert exc.value.code == 2


def test_simulate_record_agrees_with_the_golden(capsys, tmp_path):
    """Matches 0 and 1 of ``--seed 7 --bot greedy --bot random`` are the golden playthrough."""
    path = tmp_path / "s7.jsonl"
    assert run(capsys, "simulate", ECARTE, "-n", "2", "--seed", "7", "--bot", "greedy", "--bot", "random",
               "--record", str(path), "--json")[0] == 0
    golden = open(os.path.join(GOLDEN_DIR, "ecarte_seed7.txt"), encoding="utf-8").read().split("\n\n")
    step = re.compile(r"^\s*\d+\s+(chance|seat (\d)): (.*)$")
    for rec, text in zip((json.loads(line) for line in path.open(encoding="utf-8")), golden):
        lines = [m for m in (step.match(x) for x in text.splitlines()) if m]
        assert [(-1 if m.group(1) == "chance" else int(m.group(2)), m.group(3)) for m in lines] == \
            [(s["player"], s["text"]) for s in rec["steps"]]


# -- replay ----------------------------------------------------------------------------------------------

@pytest.fixture
def small_record(capsys, tmp_path):
    path = tmp_path / "r.jsonl"
    assert run(capsys, "simulate", ECARTE, "-n", "4", "--seed", "3", "--record", str(path), "--json")[0] == 0
    return path


def test_replay_round_trip(capsys, small_record):
    code, out, err = run(capsys, "replay", ECARTE, str(small_record), "--quiet")
    assert code == 0 and err == "" and out == ""          # --quiet: the exit status says it all
    rec = json.loads(small_record.read_text(encoding="utf-8").splitlines()[2])
    code, out, err = run(capsys, "replay", ECARTE, str(small_record), "--match", "2")
    assert code == 0
    shown = [line for line in out.splitlines() if re.match(r"^\s+\d+\s+(chance|seat \d):", line)]
    assert len(shown) == len(rec["steps"])
    for line, step in zip(shown, rec["steps"]):
        text = line.split(": ", 1)[1]
        if step["player"] < 0:     # a card dealt or drawn: where it went
            assert re.fullmatch(re.escape(step["text"]) + r" to (seat \d's hand|the turnup|the \w+)", text), text
        else:
            assert text == step["text"]
    assert out.count("-- deal ") == len(rec["deals"])
    # Écarté has five tricks a deal: each is reported with its winner
    tricks = re.findall(r"trick: .* -> seat (\d) takes it", out)
    assert len(tricks) == 5 * sum(1 for d in rec["deals"] if d["complete"])
    assert f"returns {rec['returns']}" in out


def test_replay_stepper_goes_forward_back_and_jumps_to_a_deal(small_record):
    from atout.engine.replay import Stepper, read_records, step_through
    game = load_game()
    rec = read_records(str(small_record))[1]
    st = Stepper(game, rec)
    assert st.length == len(rec["steps"]) and len(st.deal_starts) == len(rec["deals"])
    # a position is the state after that many steps, whatever the way there
    direct = game.new_initial_state()
    for s in rec["steps"][:40]:
        direct.apply_action(s["action"])
    assert str(st.state_at(40)) == str(direct)
    assert st.target("", 5) == 6 and st.target("n 10", 5) == 15 and st.target("b", 5) == 4
    assert st.target("b 99", 5) == 0 and st.target("end", 5) == st.length and st.target("12", 0) == 12
    assert st.target("deal 2", 0) == st.deal_starts[1] and st.deal_starts[1] > 0
    assert st.target("deal 99", 0).startswith("! deal 99") and st.target("banana", 0).startswith("! 'banana'")
    # deal 2 starts with its first chance outcome: the state there has as many deals played as one
    assert len(st.state_at(st.deal_starts[1]).deal_log) == 1
    assert len(st.state_at(st.deal_starts[1] - 1).deal_log) == 0
    commands = iter(["n", "n 3", "b", "deal 2", "xyzzy", "end", "n", "q"])
    out = io.StringIO()
    assert step_through(st, lambda prompt: next(commands), out) == 0
    text = out.getvalue()
    assert "start of the match" in text and "(the end of the record)" in text and "'xyzzy' is not a command" in text
    assert "returns:" in text       # the last screen is the end of the match, in full


def test_replay_step_shows_a_seats_view(capsys, small_record):
    from atout.engine.replay import Stepper
    st = Stepper(load_game(), read_first(small_record), seat=1)
    screen = st.screen(12)          # after the deal: seat 1 sees his hand, not seat 0's
    assert "hand[0]: 5 cards" in screen or "seat 0's hand 5" in screen
    code, _, err = run(capsys, "replay", ECARTE, str(small_record), "--step", "--seat", "7")
    assert code == 2 and "--seat 7" in err


def read_first(path):
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0])


def _corrupt(path, k: int, fn):
    lines = path.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[k])
    fn(rec)
    lines[k] = json.dumps(rec, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _first_play(rec) -> int:
    return next(i for i, s in enumerate(rec["steps"]) if s["text"].startswith("play "))


def test_replay_of_an_illegal_step_exits_1_naming_the_step(capsys, small_record):
    def swap(rec):
        i = _first_play(rec)
        # the leader plays a card he does not hold: take one from the stock's side (a card never dealt)
        dealt = {s["action"] for s in rec["steps"][:i] if s["player"] == -1}
        rec["steps"][i]["action"] = next(c for c in range(32) if c not in dealt)
        del rec["steps"][i]["text"]
    _corrupt(small_record, 1, swap)
    code, out, err = run(capsys, "replay", ECARTE, str(small_record))
    assert code == 1 and re.search(r"replay error: step \d+: \d+ is not a legal action of seat \d here \(legal: ",
                                   err) and "Traceback" not in err


def test_replay_of_a_changed_text_exits_1(capsys, small_record):
    def retext(rec):
        rec["steps"][_first_play(rec)]["text"] = "play 7♣ (edited)"
    _corrupt(small_record, 0, retext)
    code, _, err = run(capsys, "replay", ECARTE, str(small_record), "--quiet")
    assert code == 1 and "the record says 'play 7♣ (edited)'" in err


def test_replay_of_a_wrong_seat_exits_1(capsys, small_record):
    def reseat(rec):
        i = _first_play(rec)
        rec["steps"][i]["player"] = 1 - rec["steps"][i]["player"]
    _corrupt(small_record, 0, reseat)
    code, _, err = run(capsys, "replay", ECARTE, str(small_record), "--quiet")
    assert code == 1 and "the record says seat" in err


@pytest.mark.parametrize("content, message", [
    ("{not json\n", "r.jsonl:1: not JSON"),
    ('{"format": "something-else", "steps": []}\n', "not an Atout record"),
    ("", "no record in the file"),
])
def test_replay_of_a_malformed_file_exits_2(capsys, tmp_path, content, message):
    path = tmp_path / "r.jsonl"
    path.write_text(content, encoding="utf-8")
    code, _, err = run(capsys, "replay", ECARTE, str(path))
    assert code in (1, 2) and message in err and "Traceback" not in err
    if message != "no record in the file":
        assert code == 2


def test_replay_of_a_truncated_record_says_so(capsys, small_record):
    """A record of a whole match (it has "returns") that stops early disagrees with the engine: exit 1.  A
    record without returns (a verifier's trace) may stop anywhere: '(not finished)', exit 0."""
    def cut(rec):
        rec["steps"] = rec["steps"][:30]
    _corrupt(small_record, 0, cut)
    code, out, err = run(capsys, "replay", ECARTE, str(small_record), "--match", "0")
    assert code == 1 and "stops after step 30, before the end of the match" in err

    def trace(rec):
        for key in ("returns", "deals"):
            rec.pop(key, None)
    _corrupt(small_record, 0, trace)
    code, out, _ = run(capsys, "replay", ECARTE, str(small_record), "--match", "0")
    assert code == 0 and "(not finished)" in out


def test_replay_of_a_missing_file_exits_2(capsys, tmp_path):
    code, _, err = run(capsys, "replay", ECARTE, str(tmp_path / "none.jsonl"))
    assert code == 2 and "cannot read record file" in err


def test_replay_of_another_games_record_exits_1(capsys, small_record):
    _corrupt(small_record, 0, lambda rec: rec.update(game="whist"))
    code, _, err = run(capsys, "replay", ECARTE, str(small_record), "--quiet")
    assert code == 1 and "the record is of game 'whist'" in err


# -- play --------------------------------------------------------------------------------------------------

class Script:
    """Answers for play_terminal's input_fn: the given ones, then ``then`` for ever (None: EOF)."""

    def __init__(self, answers, then="1"):
        self.answers = list(answers)
        self.then = then
        self.prompts = 0

    def __call__(self, prompt):
        self.prompts += 1
        if self.answers:
            return self.answers.pop(0)
        if self.then is None:
            raise EOFError
        return self.then


def _play(answers, then="1", seat=0, seed=4, bot="greedy"):
    out = io.StringIO()
    script = Script(answers, then)
    code = play_terminal(load_game(), seat=seat, bot=bot, seed=seed, input_fn=script, out=out)
    return code, out.getvalue(), script


def test_play_refuses_bad_input_with_a_reason_and_asks_again():
    code, out, script = _play(["", "99", "0", "xyzzy", "K♠ of cups", "help", "quit"])
    assert code == 0
    assert script.prompts == 7  # every refusal asked again
    assert "refused: type a number, an action or a card" in out
    assert re.search(r"refused: 99 is not in the list: choose 1 to \d", out)
    assert "refused: 0 is not in the list" in out
    assert "refused: 'xyzzy' names no action here" in out
    assert "one move per line: its number" in out
    assert out.rstrip().endswith("bye (the match was left unfinished)")


def test_play_names_the_lead_rule_that_bars_a_card():
    """Hearts' first lead must be the 2 of clubs (OpenSpiel's rule; rules/hearts.atout line 92): another card of
    the hand is refused naming that rule and its line, not the follow rules (a newcomer's report)."""
    import random

    from atout.engine import load
    g = load(os.path.join(ROOT, "rules", "hearts.atout"))
    rng = random.Random(1)
    s = g.new_initial_state()
    while s.is_chance_node() or s.phase != "play" or s.trick_cards:
        s.apply_action(rng.choice(s.chance_outcomes())[0] if s.is_chance_node() else rng.choice(s.legal_actions()))
    legal = s.legal_actions()
    assert [s.action_to_string(a) for a in legal] == ["play 2♣"]
    other = next(c for c in s.zones[g.hand_base + s.to_play] if c not in legal)
    text = s.action_to_string(other).removeprefix("play ")
    _, why = parse_choice(g, s, text, legal)
    assert why == (f"{text} may not be played now: the rule `lead c when trick_number > 1 or c == 2 of clubs or "
                   f"(can_lead_any_club and suit(c) == clubs)` (hearts.atout:92) forbids it while you hold a card "
                   f"it allows")


def test_play_refuses_a_card_not_in_hand_and_a_card_barred_by_the_follow_rules():
    """On an arranged trick: 10♠ led, the dealer holds A♠ J♠ 8♠ Q♥ K♦ (must play A♠ or J♠)."""
    g = load_game()
    s = g.new_initial_state()
    arrange_deal(s, "10♠ 7♦ 8♦ 7♣ 8♣", "A♠ J♠ 8♠ Q♥ K♦", "7♥")
    act(s, "play", "10♠")
    legal = s.legal_actions()
    assert parse_choice(g, s, "8s", legal) == (None, "8♠ may not be played now (the follow rules); legal: J♠ A♠")
    assert parse_choice(g, s, "K♥", legal) == (None, "K♥ is not in your hand")
    assert parse_choice(g, s, "j♠", legal) == (card(g, "J♠"), None)
    assert parse_choice(g, s, "play A♠", legal) == (card(g, "A♠"), None)
    assert parse_choice(g, s, "2", legal) == (card(g, "A♠"), None)  # the list is J♠, A♠ (K Q J A order)
    assert parse_choice(g, s, "3", legal) == (None, "3 is not in the list: choose 1 to 2")


def test_play_accepts_named_actions_by_text_or_name():
    g = load_game()
    s = g.new_initial_state()
    arrange_deal(s, "10♠ 7♦ 8♦ 7♣ 8♣", "A♠ J♠ 8♠ Q♥ K♦", "7♥")
    legal = s.legal_actions()
    for text in ("I propose", "i propose", "propose", "2"):
        assert parse_choice(g, s, text, legal) == (g.slot_index[("propose", None)], None), text
    act(s, "propose")
    legal = s.legal_actions()
    assert parse_choice(g, s, "accept", legal) == (g.slot_index[("accept", None)], None)
    assert parse_choice(g, s, "we play", legal) == (g.slot_index[("refuse", None)], None)


def test_play_quit_and_eof_leave_cleanly():
    code, out, _ = _play(["quit"])
    assert code == 0 and "bye" in out and "match over" not in out
    code, out, _ = _play([], then=None)
    assert code == 0 and "bye" in out and "Traceback" not in out


@pytest.mark.parametrize("seat", [0, 1])
def test_play_a_whole_match_by_scripted_input(seat):
    """Always the first action, with a few refused answers on the way: the match ends, the table
    shows the hand, the turn-up, the trumps, the trick and the score at each decision."""
    code, out, script = _play(["nonsense", "1", "99"], then="1", seat=seat, seed=9)
    assert code == 0
    assert "== match over" in out and ("you win" in out or "you lose" in out)
    final = re.findall(r"score: points (?:you|seat 0) (\d+), (?:you|seat 1) (\d+)", out)[-1]
    assert max(int(x) for x in final) >= 5
    assert out.count("refused:") == 2
    assert "your hand: " in out and "turnup: " in out and "trumps: " in out and "points: " in out
    assert re.search(r"on the table, trick \d: seat \d [0-9KQJA]+[♠♥♦♣]", out) or seat == 1
    assert re.search(r"   trick: .* -> (you take|seat \d takes) it", out)
    assert re.search(r"-- deal 1 over: tricks .*; (this deal: points |no score this deal)", out)
    assert re.search(r"^\s+1\. ", out, re.M)  # numbered actions


def test_play_shows_the_draws_and_hides_the_others_discards():
    # seat 1 is eldest in deal 1: propose, and discard the first card if the dealer accepts
    for seed in range(40):
        code, out, _ = _play(["2", "1", "1", "done"], then="1", seat=1, seed=seed, bot="random")
        if "seat 0 (random): Please" in out:
            break
    # two discarded, two drawn, by name
    assert re.search(r"^you draw [0-9KQJA]+[♠♥♦♣] [0-9KQJA]+[♠♥♦♣]$", out, re.M)
    assert re.search(r"^seat 0 \(random\): discard a card$", out, re.M)
    assert not re.search(r"^seat 0 \(random\): discard [0-9KQJA]", out, re.M)
    assert re.search(r"^seat 0 draws \d cards?$", out, re.M)


def test_play_bad_seat_exits_2(capsys):
    code, _, err = run(capsys, "play", ECARTE, "--seat", "2")
    assert code == 2 and "--seat must be 0..1" in err


def _pty_session(argv, answer, timeout=60.0):
    """Run the real command on a pseudo-terminal; ``answer(screen_so_far)`` returns the next keys
    when a prompt shows.  Returns (exit code, everything printed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, close_fds=True)
    os.close(slave)
    seen = b""
    pending = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            r, _, _ = select.select([master], [], [], 0.5)
            if r:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                seen += data
                pending += data
                if re.search(rb"seat \d> $", pending):
                    pending = b""
                    os.write(master, answer(seen.decode("utf-8", "replace")))
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return code, seen.decode("utf-8", "replace")


def test_atout_play_on_a_terminal_to_the_end():
    """The real command on a pty, a person answering '1' at every prompt: the match ends, exit 0."""
    code, out = _pty_session([sys.executable, "-m", "atout.cli", "play", ECARTE, "--seed", "13"],
                             lambda screen: b"1\n")
    assert code == 0, out[-2000:]
    assert "== match over" in out and "Traceback" not in out


def test_atout_play_on_a_terminal_ctrl_d_leaves():
    code, out = _pty_session([sys.executable, "-m", "atout.cli", "play", ECARTE, "--seat", "1", "--seed", "2"],
                             lambda screen: b"\x04")
    assert code == 0 and "bye (the match was left unfinished)" in out


def _deal_through_pty(rule_file: str, seat: int, seed: int) -> str:
    """Play the first deal of ``rule_file`` on a real pty as seat ``seat``, answering Enter at a forced move
    and '1' otherwise, then 'quit' once the deal is over; returns the screen."""
    def answer(screen):
        if "-- deal 1 over" in screen:
            return b"quit\n"
        last = screen[screen.rfind("\n\n"):]
        return b"\n" if "press Enter" in last else b"1\n"
    code, out = _pty_session([sys.executable, "-m", "atout.cli", "play", os.path.join(ROOT, "rules", rule_file),
                              "--seat", str(seat), "--seed", str(seed)], answer, timeout=120)
    assert code == 0 and "Traceback" not in out, out[-3000:]
    assert "-- deal 1 over" in out and "bye (the match was left unfinished)" in out
    return out.replace("\r\n", "\n")


def _hands_shown(out: str) -> list[set[str]]:
    return [set(line.split(": ", 1)[1].split()) for line in out.splitlines() if line.startswith("your hand: ")]


@pytest.mark.parametrize("rule_file, seat", [("ecarte.atout", 1), ("whist.atout", 0), ("solo_whist.atout", 2)])
def test_a_deal_at_the_terminal_shows_what_a_player_needs_and_nothing_more(rule_file, seat):
    """Issue 11: a deal of Écarté, Whist and Solo Whist played at a real terminal to its end."""
    out = _deal_through_pty(rule_file, seat, seed=4)
    hands = _hands_shown(out[:out.index("-- deal 1 over")])
    assert hands
    if rule_file != "ecarte.atout":    # no draws: every hand shown is part of the thirteen cards first shown
        assert len(hands[0]) == 13 and all(h <= hands[0] for h in hands)
    # another seat's hand is shown by its size only, never by its cards
    assert re.search(r"seat \d's hand \d+", out) and not re.search(r"seat \d's hand: ", out)
    assert "trumps" in out and "   trick: " in out and "tricks won: " in out
    assert "held" not in out      # Whist's honours are hidden (`, hidden`): no seat may know them
    if rule_file == "whist.atout":
        assert "partners: you & seat 2 vs seat 1 & seat 3" in out
        over = next(line for line in out.splitlines() if line.startswith("-- deal 1 over"))
        tricks = [int(x) for x in re.findall(r"(?:you|seat \d) (\d+)", over.split(";")[0])]
        ours, theirs = tricks[0] + tricks[2], tricks[1] + tricks[3]
        assert ours + theirs == 13
        # LW: the side with more than six tricks scores one point per odd trick (and honours, 0, 2 or 4);
        # the other side scores only honours
        scored = next(part for part in over.split("; ") if part.startswith("scored "))
        got = dict(re.findall(r"(you & seat 2|seat 1 & seat 3) (\d+)", scored))
        win, lose = ("you & seat 2", "seat 1 & seat 3") if ours > theirs else ("seat 1 & seat 3", "you & seat 2")
        assert int(got[win]) - (max(ours, theirs) - 6) in (0, 2, 4) and int(got[lose]) in (0, 2, 4)
    if rule_file == "solo_whist.atout":
        begins = next(line for line in out.splitlines() if line.startswith("-- play begins: "))
        assert ("no trumps" in begins or "trumps " in begins) and "declarer seat" in begins
        assert "playing " in begins and "_" not in begins          # contracts by their labels


def test_play_takes_exactly_one_action_per_line_and_refuses_ambiguity():
    """Issue 11: '10h 7h' discarded only 7♥, 'banana K♠' played K♠, 'bid' placed the lowest bid."""
    from atout.engine.terminal import parse_choice
    g = load_game()
    s = g.new_initial_state()
    arrange_deal(s, "10♠ 7♦ 8♦ 7♣ 8♣", "A♠ J♠ 8♠ Q♥ K♦", "7♥")
    legal = s.legal_actions()      # the non-dealer (seat 1) to declare: I play, I propose
    a, _ = parse_choice(g, s, "propose", legal)       # the rule file's name of the action
    assert a is not None and s.action_to_string(a) == "I propose"
    a, why = parse_choice(g, s, "banana", legal)
    assert a is None and "'banana' names no action here" in why
    a, why = parse_choice(g, s, "done", legal)        # no card is being chosen in the declaration
    assert a is None and why == "'done' ends a choice of cards, and none is being made now (phase declare)"
    a, why = parse_choice(g, s, "1 2", legal)
    assert a is None and why == "'1 2' names 2 moves: one move per line (type one number, then the next)"
    act(s, "propose")
    act(s, "accept")
    legal = s.legal_actions()      # the non-dealer discards: cards of his hand
    a, why = parse_choice(g, s, "done", legal)        # source text: each discards at least one card
    assert a is None and why == "'done' is not allowed yet: choose at least 1 card first (0 chosen so far)"
    a, why = parse_choice(g, s, "10s 7d", legal)
    assert a is None and "names 2 cards: one action per line" in why
    a, why = parse_choice(g, s, "banana 10s", legal)
    assert a is None and "'banana' names no action here" in why
    a, why = parse_choice(g, s, "10s", legal)
    assert a is not None and s.action_to_string(a).endswith("10♠")


def test_play_names_the_condition_of_a_rule_that_does_not_allow_a_move():
    import atout
    from atout.engine.terminal import parse_choice
    game = atout.load(os.path.join(ROOT, "rules", "solo_whist.atout"))
    st = game.new_initial_state()
    import random
    rng = random.Random(0)
    while st.is_chance_node():
        st.apply_action(rng.choice([a for a, _ in st.chance_outcomes()]))
    legal = st.legal_actions()
    a, why = parse_choice(game, st, "bid", legal)
    assert a is None and "is ambiguous" in why and "bid solo" in why and "bid abondance déclarée" in why
    a, _ = parse_choice(game, st, "bid solo", legal)
    st.apply_action(a)                       # seat 1 bids solo; seat 2 may not bid a proposal now
    a, why = parse_choice(game, st, "bid proposal", st.legal_actions())
    assert a is None and "is not allowed now: its condition" in why and "solo_whist.atout:" in why
    a, why = parse_choice(game, st, "misère ouverte", st.legal_actions())   # the label, accents and spaces
    assert a is not None and st.action_to_string(a) == "bid misère ouverte"
    for typed in ("misere ouverte", "bid misere_ouverte", "misere_ouverte"):   # or the name in the rules
        assert parse_choice(game, st, typed, st.legal_actions())[0] == a, typed
    a, _ = parse_choice(game, st, "bid abondance déclarée", st.legal_actions())
    st.apply_action(a)                       # seat 2 bids the highest contract: no bid is left to seat 3
    a, why = parse_choice(game, st, "bid", st.legal_actions())
    assert a is None and why.startswith("'bid' is not allowed now: none of bid proposal, bid solo, ") and \
        "is legal (bid proposal: its condition `not passed[actor] and c > bid` does not hold (solo_whist.atout:" in why


def test_simulate_counts_rows_and_per_side_variables(capsys):
    """Whist: thirteen tricks a deal, so exactly one side makes odd tricks (LW): the two odd-tricks rows
    fire once per deal between them; per-side variables are reported per side."""
    code, out, _ = run(capsys, "simulate", os.path.join(ROOT, "rules", "whist.atout"), "-n", "10", "--seed", "2",
                       "--json")
    assert code == 0
    s = json.loads(out)
    rows = s["scoring_rows"]
    assert rows["trick_points.odd_tricks_0_2"] + rows["trick_points.odd_tricks_1_3"] == s["deals"]
    mv = s["match_variables"]
    assert mv["games"]["per"] == "side" and len(mv["games"]["mean_at_end"]) == 2
    # a rubber is the best of three games (LW): it ends 2-0 or 2-1, so 2 or 3 games a match in all
    assert 2.0 <= sum(mv["games"]["mean_at_end"]) <= 3.0


def test_the_end_of_match_message_counts_partnerships():
    """A best result shared by exactly one side's members is that side's win (Spades: -81 beats -170), as
    `atout simulate` counts it; shared by players of different sides, or without sides, it is a tie."""
    from atout.engine import load
    from atout.engine.terminal import _outcome
    spades = load(os.path.join(ROOT, "rules", "spades.atout"))
    hearts = load(os.path.join(ROOT, "rules", "hearts.atout"))
    assert _outcome(spades, [-81, -170, -81, -170], 0) == "your side wins"
    assert _outcome(spades, [-81, -170, -81, -170], 1) == "you lose"
    assert _outcome(spades, [10, 10, 0, 0], 0) == "a tie"      # seats 0 and 1 are not partners
    assert _outcome(hearts, [26, 26, 0, 0], 0) == "a tie"
    assert _outcome(hearts, [26, 26, 0, 0], 2) == "you lose"
    assert _outcome(hearts, [26, 0, 0, 0], 0) == "you win"


def test_option_on_the_command_line_is_a_variant_without_a_file(capsys, tmp_path):
    """`--option target=1` is `override option target: int in 1..99 = 1` (source §10 plays to 5)."""
    variant = tmp_path / "to_one.atout"
    variant.write_text(f'extends "{ECARTE}"\ngame ecarte "to one"\noverride option target: int in 1..99 = 1\n')
    from atout.compiler import compile_file, ir
    def dump(g):   # the canonical IR, but for the title
        return [line for line in ir.dump(g).splitlines() if not line.lstrip().startswith("title:")]
    assert dump(compile_file(ECARTE, {"target": "1"})) == dump(compile_file(str(variant)))
    assert dump(compile_file(ECARTE, {"target": "1"})) != dump(compile_file(ECARTE))
    code, out, _ = run(capsys, "simulate", ECARTE, "-n", "20", "--seed", "1", "--json", "--option", "target=1")
    stats = json.loads(out)
    assert code == 0 and stats["deals_per_match"]["max"] == 1     # the first score ends a match to one point
    code, _, err = run(capsys, "check", ECARTE, "--option", "targt=1")
    assert code == 2 and "error[E103]: the game has no option 'targt'" in err and "did you mean 'target'" in err
    code, _, err = run(capsys, "check", ECARTE, "--option", "target")
    assert code == 2 and "write NAME=VALUE" in err
    code, _, err = run(capsys, "check", ECARTE, "--option", "target=0")
    assert code == 2 and "outside 1..99" in err



def test_a_refused_option_value_is_reported_once(capsys, tmp_path):
    """A newcomer's Oh Hell: `--option max_hand=abc` where max_hand bounds a range through an expression and a
    variable that bounds an action's parameter; only the value is an error (it was reported three times, the
    others saying 'not a constant')."""
    f = tmp_path / "bounds.atout"
    f.write_text("""game bounds
players 2
deck { suits spades hearts  ranks A K }
option max_hand: int in 1..2 = 1
zone stock: hidden, home
zone hand: per player, private
match var points: int in 0..9 per player = 0
deal var size_now: int in 1..max_hand = 1
deal var bid_total: int in 0..(player_count * max_hand) = 0
phase deal { do { gather stock  shuffle stock  deal 1 from stock to hand starting eldest  goto bid } }
phase bid { actor eldest
  action bid(n: 0..size_now) "bid" { bid_total += n  goto play } }
phase play { trick { count 1  follow suit  then { points[winner] += 1  end deal } } }
match { first dealer seat(0)  start deal  ends when deal_number >= 1  returns(p) = points[p] }
""")
    assert run(capsys, "check", str(f))[0] == 0
    code, _, err = run(capsys, "check", str(f), "--option", "max_hand=abc")
    assert code == 2 and err.count("error[") == 1 and "unknown name 'abc'" in err, err

def test_replay_step_headers_say_chance_and_the_last_deal(small_record):
    """The stepper's header at a chance node says cards are being dealt (not 'seat -1 to act'), and at the end
    of a match names the last deal played (a match of 3 deals ends 'deal 3', not 'deal 4')."""
    from atout.engine.replay import Stepper
    rec = read_first(small_record)
    st = Stepper(load_game(), rec, seat=1)
    assert "cards being dealt" in st.screen(0).splitlines()[2] and "seat -1" not in st.screen(0)
    last = st.screen(st.length)
    assert f"deal {len(rec['deals'])} ·" in last and "match over" in last
    assert f"| deal {len(rec['deals'])} |" in str(st.state_at(st.length))
    assert st.target("n -3", 5).startswith("! 'n -3': a count of steps is a number")


def test_simulate_names_the_match_that_stopped_in_a_rule_error(capsys, tmp_path):
    """Two tricks of a one-card hand: the second trick finds the players without a card (a newcomer's report:
    the run stopped without saying which match)."""
    f = tmp_path / "short.atout"
    f.write_text("""game short
players 2
deck { suits spades hearts  ranks A K }
zone stock: hidden, home
zone hand: per player, private
match var points: int in 0..9 per player = 0
phase deal { do { gather stock  shuffle stock  deal 1 from stock to hand starting eldest  goto play } }
phase play { trick { count 2  follow suit  then { points[winner] += 1  end deal } } }
match { start deal  ends when any(p in players: points[p] >= 3)  returns(p) = points[p] }
""", encoding="utf-8")
    assert main(["simulate", str(f), "-n", "3", "--seed", "7"]) == 1
    err = capsys.readouterr().err
    assert "rule error: seat 1 has no legal action" in err
    assert "in match 0 of the run (0-based) with seed 7" in err and "Traceback" not in err


def test_simulate_reports_progress_in_lines_when_stderr_is_not_a_terminal(capsys):
    """A newcomer's `simulate --bot ismcts 2> log` printed nothing for nine minutes: without a terminal the bar
    is off, so a line is printed at the start and at every tenth of the matches (none with --quiet)."""
    code, _, err = run(capsys, "simulate", ECARTE, "-n", "20", "--seed", "1")
    lines = err.splitlines()
    assert code == 0 and lines[0].startswith("simulating 20 matches of ecarte")
    assert lines[1:] == [f"simulated {k}/20 matches" for k in range(2, 21, 2)]
    code, _, err = run(capsys, "simulate", ECARTE, "-n", "3", "--seed", "1", "--quiet")
    assert code == 0 and err == ""


def test_play_tells_who_takes_the_turn_up_and_the_draws_before_play_begins(tmp_path):
    """A newcomer's German Whist: the winner of a trick takes the face-up card (never said) and the loser's
    draw was told after '-- play begins'.  Here: one trick for the turn-up, then one that counts."""
    f = tmp_path / "gw.atout"
    f.write_text("""game gw
players 2
deck { suits spades hearts  ranks A K }
zone stock: hidden, home
zone hand: per player, private
zone turnup: public
match var points: int in 0..9 per player = 0
deal var trumps: suit = none
phase deal { do { gather stock  shuffle stock  deal 1 from stock to hand starting eldest
  move 1 from stock to turnup  trumps = suit(top(turnup))  goto draw } }
phase draw { trick { count 1  trump trumps  follow suit
  after trick { move all from turnup to hand[winner]  move 1 from stock to hand[left(winner)] }
  then { goto play } } }
phase play { trick { count 1  trump trumps  follow suit  then { points[winner] += 1  end deal } } }
match { first dealer seat(0)  start deal  ends when deal_number >= 1  returns(p) = points[p] }
""")
    from atout.engine import load
    for seed in range(6):
        out = io.StringIO()
        assert play_terminal(load(str(f)), seat=0, bot="random", seed=seed, input_fn=Script([]), out=out) == 0
        lines = out.getvalue().splitlines()
        trick = next(i for i, line in enumerate(lines) if line.strip().startswith("trick:"))
        takes = [i for i, line in enumerate(lines) if line.endswith("(turnup)")]
        draws = [i for i, line in enumerate(lines) if re.match(r"(you draw|seat \d draws) ", line)]
        begins = next(i for i, line in enumerate(lines) if line.startswith("-- play begins"))
        winner = "you" if lines[trick].endswith("you take it") else "seat 1"
        assert len(takes) == 1 and lines[takes[0]].startswith(f"{winner} take") and trick < takes[0] < begins
        assert len(draws) == 1 and takes[0] < draws[0] < begins, lines


def test_an_internal_error_is_a_message_and_status_3_not_a_traceback(capsys, monkeypatch):
    """A bug of Atout itself (here a check made to fail) is reported in one located line, exit status 3, as
    for a verifier bug; ATOUT_TRACEBACK=1 lets the exception through for a bug report."""
    import atout.cli as cli

    def broken(args):
        raise ZeroDivisionError("division by zero")
    monkeypatch.setattr(cli, "cmd_check", broken)
    monkeypatch.delenv("ATOUT_TRACEBACK", raising=False)
    code, _, err = run(capsys, "check", ECARTE)
    assert code == 3 and "internal error" in err and "ZeroDivisionError" in err and "Traceback" not in err
    monkeypatch.setenv("ATOUT_TRACEBACK", "1")
    with pytest.raises(ZeroDivisionError):
        cli.main(["check", ECARTE])

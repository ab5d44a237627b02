"""Inputs a newcomer (or a fuzzer) gives that once hung, exhausted memory or printed a traceback (issue 11):
each now gets a located message and exit status 2, or a clean rule error."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _agreement import export_python

from atout.cli import main
from atout.compiler import compile_file
from atout.engine import load
from atout.engine.evaluate import RuleError

SKELETON = Path(__file__).resolve().parent.parent / "docs" / "examples" / "skeleton.atout"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
def test_a_device_is_refused_without_reading_it(capsys):
    code, _, err = run(capsys, "check", "/dev/zero")
    assert code == 2 and "not a regular file (a device)" in err and "Traceback" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "rules.atout"
    os.mkfifo(fifo)
    variant = tmp_path / "v.atout"
    variant.write_text('extends "rules.atout"\ngame v "v"\n')
    for target in (fifo, variant):     # as FILE, and as the target of 'extends'
        run_ = subprocess.run([sys.executable, "-m", "atout.cli", "check", str(target)], capture_output=True,
                              text=True, timeout=60)
        assert run_.returncode == 2 and "not a regular file (a pipe)" in run_.stderr, run_.stderr


def test_a_huge_file_is_refused(capsys, tmp_path):
    big = tmp_path / "big.atout"
    with open(big, "wb") as fh:
        fh.truncate(5 * 1024 * 1024)     # sparse: 5 MB of nothing, over the 4 MB limit
    code, _, err = run(capsys, "check", str(big))
    assert code == 2 and "too large" in err


def test_a_byte_order_mark_and_old_mac_line_ends_are_read(tmp_path):
    text = SKELETON.read_text(encoding="utf-8")
    bom = tmp_path / "bom.atout"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    mac = tmp_path / "mac.atout"
    mac.write_bytes(text.replace("\n", "\r").encode())
    base = compile_file(str(SKELETON))
    for f in (bom, mac):
        g = compile_file(str(f))
        assert g.name == "skeleton" and [p.name for p in g.phases] == [p.name for p in base.phases]
        # the same lines: the table's row is reported at the skeleton's line of it
        assert [r.span.line for r in g.tables[0].rows] == [r.span.line for r in base.tables[0].rows]


def test_a_packet_larger_than_any_deck_is_a_rule_error_in_engine_and_module(tmp_path):
    rules = tmp_path / "huge_packet.atout"
    rules.write_text(f'extends "{SKELETON}"\ngame huge "huge"\noverride phase deal {{\n  do {{\n'
                     '    gather stock\n    deal 99999999999999999999 from stock to hand starting eldest\n'
                     '    goto play\n  }\n}\n')
    with pytest.raises(RuleError, match="needs 199999999999999999998 cards"):
        load(str(rules)).new_initial_state()
    mod = export_python(rules, tmp_path, "huge_packet_module")
    with pytest.raises(Exception, match="needs 199999999999999999998 cards") as info:
        mod.Game().new_initial_state()
    assert type(info.value).__name__ == "RuleError"


# -- the command line: files to write, options ----------------------------------------------------------------
ECARTE = str(Path(__file__).resolve().parent.parent / "rules" / "ecarte.atout")


def test_a_record_onto_a_directory_is_refused_and_nothing_is_left(capsys, tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    code, _, err = run(capsys, "simulate", ECARTE, "-n", "2", "--record", str(folder))
    assert code == 2 and "it is a directory" in err and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["records"] and not os.listdir(folder)


def test_sigterm_during_simulate_leaves_no_partial_record(tmp_path):
    import signal
    import time
    out = tmp_path / "m.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "atout.cli", "simulate", ECARTE, "-n", "100000", "--record",
                             str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    part = tmp_path / "m.jsonl.part"
    for _ in range(600):
        if part.exists() and part.stat().st_size > 0:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "Traceback" not in err, err
    assert not part.exists() and not out.exists()


def test_trace_out_onto_a_file_is_refused_before_verifying(capsys, tmp_path):
    f = tmp_path / "traces"
    f.write_text("not a folder")
    code, out, err = run(capsys, "verify", ECARTE, "--trace-out", str(f), "--json")
    assert code == 2 and "not a folder" in err and out == ""
    code, _, err = run(capsys, "verify", ECARTE, "--trace-out", str(f / "sub"))
    assert code == 2 and "cannot make the folder" in err


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_a_timeout_must_be_a_finite_positive_number(capsys, value):
    code, _, err = run(capsys, "verify", ECARTE, "--timeout", value)
    assert code == 2 and "--timeout must be a positive number" in err


# -- records that do not replay -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def record(tmp_path_factory):
    """One match of Écarté recorded by ``atout simulate --record`` (its first line, as a dict)."""
    import json
    path = tmp_path_factory.mktemp("rec") / "r.jsonl"
    assert main(["simulate", ECARTE, "-n", "1", "--seed", "3", "--record", str(path), "--json"]) == 0
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0])


def _replay(capsys, tmp_path, rec_or_bytes):
    import json
    path = tmp_path / "bad.jsonl"
    if isinstance(rec_or_bytes, bytes):
        path.write_bytes(rec_or_bytes)
    else:
        path.write_text(json.dumps(rec_or_bytes) + "\n", encoding="utf-8")
    return run(capsys, "replay", ECARTE, str(path), "--quiet")


def test_the_recorded_match_replays(capsys, tmp_path, record):
    code, out, err = _replay(capsys, tmp_path, record)
    assert code == 0, err


def _tampered(record, how):
    import copy
    rec = copy.deepcopy(record)
    how(rec)
    return rec


MALFORMED = {      # exit status 2: not a well-formed record file
    "returns null": (lambda r: r.update(returns=None), "\"returns\" must be a list of numbers"),
    "action Infinity": (lambda r: r["steps"][0].update(action=float("inf")), "\"action\" must be an integer"),
    "action 1.0": (lambda r: r["steps"][0].update(action=float(r["steps"][0]["action"])),
                   "\"action\" must be an integer"),
    "player as a string": (lambda r: r["steps"][0].update(player="-1"), "\"player\" must be an integer"),
    "match not a number": (lambda r: r.update(match="zero"), "\"match\" must be an integer"),
    "deals not a list": (lambda r: r.update(deals="x"), "\"deals\" must be a list"),
}
DISAGREEING = {    # exit status 1: a record that the engine does not replay as recorded
    "illegal action": (lambda r: r["steps"][0].update(action=999), "999 is not a legal chance outcome"),
    "truncated": (lambda r: r.update(steps=r["steps"][:-3]), "before the end of the match"),
    "a step after the end": (lambda r: r["steps"].append(dict(r["steps"][-1])), "the match is over after step"),
    "a deal's points changed": (lambda r: r["deals"][0].update(points=[7, 7]), "deal 1: the record's summary "
                                                                               "differs from the engine's in points"),
    "a deal deleted": (lambda r: r["deals"].pop(), "the record summarises"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED) + sorted(DISAGREEING))
def test_a_bad_record_exits_with_the_reason(capsys, tmp_path, record, case):
    how, message = MALFORMED[case] if case in MALFORMED else DISAGREEING[case]
    code, _, err = _replay(capsys, tmp_path, _tampered(record, how))
    assert code == (2 if case in MALFORMED else 1) and message in err and "Traceback" not in err, err


def test_a_record_that_is_not_text_or_too_deep_exits_2(capsys, tmp_path):
    code, _, err = _replay(capsys, tmp_path, b"\xff\xfe\x00garbage\n")
    assert code == 2 and "not UTF-8 text" in err
    code, _, err = _replay(capsys, tmp_path, b"[" * 100_000 + b"]" * 100_000 + b"\n")
    assert code == 2 and "not an Atout record" in err


# -- the engine's API, as OpenSpiel's: bad ids and seats raise ----------------------------------------------
@pytest.fixture(scope="module")
def both_states(tmp_path_factory):
    """An Écarté state from the engine and one from its exported module, at the first chance node."""
    mod = export_python(Path(ECARTE), tmp_path_factory.mktemp("mod"), "ecarte_api_module")
    return [load(ECARTE).new_initial_state(), mod.Game().new_initial_state()]


@pytest.mark.parametrize("bad", [True, 6.0, "3", None])
def test_an_action_must_be_an_integer_id(both_states, bad):
    for st in both_states:
        with pytest.raises(ValueError, match="an action is an integer id"):
            st.apply_action(bad)


def test_a_bad_seat_or_action_id_raises(both_states):
    for st in both_states:
        for seat in (-1, 2, 1.0):
            with pytest.raises(ValueError, match="no seat"):
                st.observation_string(seat)
            with pytest.raises(ValueError, match="no seat"):
                st.information_state_string(seat)
        # Écarté has 32 cards and 6 named actions: ids 0..37 (docs/records.md)
        with pytest.raises(ValueError, match="0..37"):
            st.action_to_string(38)
        assert st.action_to_string(37) and st.action_to_string(0)


def test_huge_returns_are_a_rule_error(tmp_path):
    rules = tmp_path / "huge_returns.atout"
    big = "1" + "0" * 315
    rules.write_text(f'extends "{SKELETON}"\ngame huge "huge"\noverride option target: int in 1..20 = 1\n'
                     f'match {{\n  first dealer 0\n  next dealer left(dealer)\n  start deal\n'
                     f'  ends when any(p in players: points[p] >= target)\n  returns(q) = {big}\n}}\n')
    import random as _r
    for st in (load(str(rules)).new_initial_state(),
               export_python(rules, tmp_path, "huge_returns_module").Game().new_initial_state()):
        rng = _r.Random(1)
        while not st.is_terminal():
            legal = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
            st.apply_action(rng.choice(legal))
        with pytest.raises(Exception, match="too large for a float") as info:
            st.returns()
        assert type(info.value).__name__ == "RuleError"


# -- rules that break down in play: a rule error with a reason, never a traceback --------------------------------
DEAD_END = f'''extends "{SKELETON}"
game dead "a phase whose only action is never allowed"
phase ask {{
  actor eldest
  action go "go" when false {{ goto play }}
}}
override phase deal {{
  do {{
    gather stock
    deal 3, 2 from stock to hand starting eldest
    move 1 from stock to turnup
    trumps = suit(top(turnup))
    goto ask
  }}
}}
'''


@pytest.mark.parametrize("bot, jobs", [("random", "1"), ("greedy", "1"), ("random", "2")])
def test_a_player_with_no_legal_action_is_a_rule_error_in_simulate(capsys, tmp_path, bot, jobs):
    rules = tmp_path / "dead.atout"
    rules.write_text(DEAD_END)
    code, _, err = run(capsys, "simulate", str(rules), "-n", "2", "--bot", bot, "-j", jobs)
    assert code == 1 and "rule error: seat 1 has no legal action (phase 'ask'" in err   # from a worker too
    assert "Traceback" not in err


def test_a_player_with_no_legal_action_is_a_rule_error_at_the_terminal(tmp_path):
    import io
    from atout.engine.terminal import play_terminal
    rules = tmp_path / "dead.atout"
    rules.write_text(DEAD_END)
    with pytest.raises(RuleError, match="seat 1 has no legal action"):
        play_terminal(load(str(rules)), seat=1, bot="random", seed=1, input_fn=lambda p: "1", out=io.StringIO())


SHORT_HANDS = """game short_hands
players 2
deck { suits spades hearts  ranks A K Q }
zone stock: hidden, home
zone hand: per player, private
match var points: int in 0..10 per player = 0
phase deal { do { gather stock  shuffle stock  deal 1 from stock to hand starting eldest  goto play } }
phase play { trick { count 2  follow suit  then { points[winner] += 1  end deal } } }
match { first dealer seat(0)  start deal  ends when deal_number >= 2  returns(p) = points[p] }
"""


def test_a_trick_phase_out_of_cards_names_the_empty_hand(tmp_path):
    """One card each and two tricks: after the first trick its winner (seat 0 or 1) must lead from an empty
    hand.  Every engine says so, rather than that the phase's conditions are all false."""
    rules = tmp_path / "short.atout"
    rules.write_text(SHORT_HANDS)
    mod = export_python(rules, tmp_path, "short_hands_module")
    for game in (load(str(rules)), load(str(rules), compiled=False), mod.Game()):
        st = game.new_initial_state()
        with pytest.raises(Exception, match=r"has no legal action \(phase 'play', deal 1, after 4 actions\): it is "
                           r"seat [01]'s turn to play to trick 2 and hand\[[01]\] is empty; check that the deal "
                           r"gives each player a card for every trick") as info:
            while not st.is_terminal():
                st.apply_action(st.decision_actions()[0] if not st.is_chance_node() else st.legal_actions()[0])
        assert type(info.value).__name__ == "RuleError"


def test_a_match_that_never_ends_is_a_rule_error():
    import random as _r
    from atout.engine.bots import RandomBot
    from atout.engine.simulate import play_match
    rules_text = SKELETON.read_text(encoding="utf-8").replace("ends when any(p in players: points[p] >= target)",
                                                               "ends when false")
    assert "ends when false" in rules_text
    from atout.compiler import compile_text
    from atout.engine import Game
    game = Game(compile_text(rules_text, str(SKELETON)))
    with pytest.raises(RuleError, match="has not ended after 500 steps"):
        play_match(game, [RandomBot(1), RandomBot(2)], _r.Random(1), max_steps=500)


# -- variants --------------------------------------------------------------------------------------------------
def test_a_removed_var_can_be_declared_again(tmp_path):
    v = tmp_path / "v.atout"
    v.write_text(f'extends "{SKELETON}"\ngame v "v"\nremove var points\nmatch var points: int in 0..9 per player = 0\n')
    g = compile_file(str(v))
    (points,) = [x for x in g.vars if x.name == "points"]
    assert (points.type.low, points.type.high) == (0, 9)


def test_a_missing_declaration_of_a_variant_is_located_at_its_game_line(capsys, tmp_path):
    base = tmp_path / "base.atout"
    base.write_text('game b "base"\ndeck { suits spades hearts ranks A K }\n')
    v = tmp_path / "v.atout"
    v.write_text('extends "base.atout"\ngame v "v"\n')
    code, _, err = run(capsys, "check", str(v))
    assert code == 2 and f"{v}:2:6: error[E101]: missing 'players N' declaration" in err and "<builtin>" not in err


def test_check_lists_a_new_game_line_players_and_match(capsys, tmp_path):
    v = tmp_path / "v.atout"
    v.write_text(f'extends "{SKELETON}"\ngame v2 "other"\nplayers 3\n')
    code, out, _ = run(capsys, "check", str(v))
    assert code == 0 and "(no change)" not in out
    assert '~ game: skeleton "A five-trick skeleton" -> v2 "other"' in out and "~ players: 2 -> 3" in out


def test_many_errors_are_rendered_once_each_and_capped(capsys, tmp_path):
    """20,000 errors used to take minutes (each diagnostic split the whole source again): now the file is
    split once and the first 200 are printed, with the count of the rest."""
    rules = tmp_path / "many.atout"
    rules.write_text(SKELETON.read_text(encoding="utf-8")
                     + "".join(f"\nproperty p{i}: invariant nosuch > 0\n" for i in range(3000)), encoding="utf-8")
    code, _, err = run(capsys, "check", str(rules))
    assert code == 2 and err.count("error[E103]: unknown name 'nosuch'") == 200
    assert "3000 errors (2800 not shown: fix the first ones and check again)" in err


def test_history_is_a_list_and_callable_as_in_openspiel(both_states):
    for st in both_states:
        st = st.clone()
        first = st.chance_outcomes()[0][0]
        st.apply_action(first)
        assert st.history == [first] and st.history() == [first]
        h = st.history()
        h.append(99)                     # a copy, as OpenSpiel's
        assert st.history() == [first] and st.clone().history() == [first]


def test_a_draw_from_a_zone_known_empty_gives_a_verdict_not_a_failure():
    """Verified for one property, the abstraction reached a draw from a zone it knew to be empty (a size it
    had forgotten let the draw start) and the verifier failed; ``a = random 0..2`` makes ``a <= 1`` false."""
    from atout.compiler import compile_file
    from atout.engine import Game
    from atout.verify.cli import verify_game
    game = Game(compile_file(str(Path(__file__).resolve().parent / "data" / "draw_known_empty.atout")))
    for name in ("i0_le", "i0_okhi"):
        results, _ = verify_game(game, names=[name], builtins=False)
        (r,) = [x for x in results if x.name == name]
        assert "failed" not in r.method, r.method
        assert r.verdict == ("refuted" if name == "i0_le" else "proved"), (name, r.verdict, r.method)


def test_a_per_player_truth_value_read_by_the_match_end_is_verified(capsys):
    """A newcomer's Knock-Out Whist: `match var out: bool per player` read in `ends when` crashed `atout verify`
    with a z3 traceback (the encoder of 'ends when' took every per-player variable for an int)."""
    import json
    path = str(Path(__file__).resolve().parent / "data" / "bool_per_player.atout")
    code, out, err = run(capsys, "verify", path, "--json")
    assert code in (0, 1) and "Traceback" not in err, err
    verdicts = {r["name"]: r for r in json.loads(out)["properties"]}
    assert not [n for n, r in verdicts.items() if "failed" in r["method"]], verdicts
    assert verdicts["knocked_out_scored"]["verdict"] != "refuted"      # true: 'out' is set only with a point
    assert verdicts["builtin:no_rule_error"]["verdict"] == "proved"

"""Diagnostics: every error kind has a fixture under tests/diagnostics with its exact expected output.

Each ``tests/diagnostics/NAME.atout`` is the valid game ``tests/diagnostics/base/tiny.atout`` with one
mistake (or, in ``multiple_errors``, several); ``NAME.expected`` is the full text ``atout check`` must print
on stderr, written by hand: location, message, source line, carets under exactly the offending text, hint.
The expected files use the path as these tests pass it (``tests/diagnostics/NAME.atout``, relative to the
repository root).  To see a fixture's output: ``atout check tests/diagnostics/NAME.atout``.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from atout.cli import main
from atout.compiler import CompileError, compile_file, compile_text
from atout.compiler.diagnostics import CODES

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "diagnostics"
CASES = sorted(p.stem for p in FIXTURES.glob("*.atout"))


def run_check(capsys, monkeypatch, path: str) -> tuple[int, str, str]:
    """Run ``atout check PATH`` in-process from the repository root: (exit status, stdout, stderr)."""
    monkeypatch.chdir(ROOT)
    code = main(["check", path])
    out, err = capsys.readouterr()
    return code, out, err


def test_base_game_is_valid():
    # The fixtures are this game with mistakes; it must itself compile, or the fixtures would test nothing.
    game = compile_file(str(FIXTURES / "base" / "tiny.atout"))
    assert (game.players, game.deck.size, [p.name for p in game.phases]) == (2, 6, ["deal", "declare", "play"])


def test_every_code_has_a_fixture():
    codes = {c.split("_")[0] for c in CASES if re.match(r"[EW]\d{3}_", c)}
    assert codes == set(CODES), f"codes without a fixture: {sorted(set(CODES) - codes)}"
    assert len(CASES) >= 18


@pytest.mark.parametrize("name", CASES)
def test_fixture_output_is_exact(name, capsys, monkeypatch):
    rel = f"tests/diagnostics/{name}.atout"
    code, out, err = run_check(capsys, monkeypatch, rel)
    expected = (FIXTURES / f"{name}.expected").read_text(encoding="utf-8")
    if name.startswith("W"):    # a warning: the file compiles, check succeeds and says so on stdout
        assert code == 0 and out.startswith(f"{rel}: ok: ")
        assert err == expected
        assert re.findall(r"(?:error|warning)\[([EW]\d{3})\]", err) == [name[:4]]
        return
    assert code == 2
    assert out == ""
    assert err == expected
    assert "Traceback" not in err
    # The code in a fixture's name is the code it reports (several for multiple_errors).
    if name.startswith("E"):
        assert re.findall(r"error\[(E\d{3})\]", err) == [name[:4]]


def test_multiple_errors_are_reported_together_in_source_order(capsys, monkeypatch):
    code, _, err = run_check(capsys, monkeypatch, "tests/diagnostics/multiple_errors.atout")
    heads = re.findall(r"^tests/diagnostics/multiple_errors.atout:(\d+):(\d+): error\[(E\d+)\]", err, re.M)
    positions = [(int(line), int(col)) for line, col, _ in heads]
    assert [c for _, _, c in heads] == ["E103", "E104", "E109", "E104"]
    assert positions == sorted(positions) and len(set(positions)) == 4
    assert err.rstrip().endswith("4 errors")


def test_compile_error_carries_every_diagnostic():
    with pytest.raises(CompileError) as info:
        compile_file(str(FIXTURES / "multiple_errors.atout"))
    assert [d.code for d in info.value.diagnostics] == ["E103", "E104", "E109", "E104"]
    assert [d.span.line for d in info.value.diagnostics] == [13, 26, 26, 43]


# -- files that are not rule files -------------------------------------------------------------------
def _check_clean(capsys, monkeypatch, path: str, code: str, message: str) -> str:
    status, out, err = run_check(capsys, monkeypatch, path)
    assert status == 2 and out == ""
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:1:1: error[{code}]: "), first
    assert message in first, first
    assert err.rstrip().endswith("1 error")
    return err


def test_missing_file(capsys, monkeypatch, tmp_path):
    err = _check_clean(capsys, monkeypatch, str(tmp_path / "nope.atout"), "E120", "No such file or directory")
    assert "hint: check the path" in err


def test_directory(capsys, monkeypatch, tmp_path):
    (tmp_path / "a.atout").write_text("game a\n")
    err = _check_clean(capsys, monkeypatch, str(tmp_path), "E120", "it is a directory")
    assert "hint: give the path of one rule file (a.atout)" in err


def test_binary_file(capsys, monkeypatch, tmp_path):
    png = tmp_path / "image.atout"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    _check_clean(capsys, monkeypatch, str(png), "E120", "not a text file (a NUL byte at offset 8)")
    latin1 = tmp_path / "latin1.atout"
    latin1.write_bytes("game ecarte \"Écarté\"\n".encode("latin-1"))
    _check_clean(capsys, monkeypatch, str(latin1), "E120", "not UTF-8 text (byte 0xc9 at offset 13)")


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n# and another\n"])
def test_empty_or_comment_only_file(capsys, monkeypatch, tmp_path, text):
    f = tmp_path / "empty.atout"
    f.write_text(text)
    err = _check_clean(capsys, monkeypatch, str(f), "E101", "the file declares nothing")
    assert "docs/language.md" in err


def test_extends_cycle(capsys, monkeypatch, tmp_path):
    (tmp_path / "a.atout").write_text('extends "b.atout"\n')
    (tmp_path / "b.atout").write_text('extends "a.atout"\n')
    status, _, err = run_check(capsys, monkeypatch, str(tmp_path / "a.atout"))
    assert status == 2 and "Traceback" not in err
    assert f"{tmp_path / 'b.atout'}:1:9: error[E118]: 'extends' cycle" in err


def test_compile_text_rejects_extends():
    from atout.compiler import compile_text
    with pytest.raises(CompileError) as info:
        compile_text('extends "base.atout"\n', "v.atout")
    assert [d.code for d in info.value.diagnostics] == ["E118"]


@pytest.mark.parametrize("name", ["E003_unexpected_eof", "E120_missing_base", "multiple_errors"])
def test_real_process_exit_status_and_no_traceback(name):
    # The same as the in-process runs, through the installed entry point, as a user runs it.
    proc = subprocess.run([sys.executable, "-m", "atout.cli", "check", f"tests/diagnostics/{name}.atout"],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (FIXTURES / f"{name}.expected").read_text(encoding="utf-8")


def test_reserved_word_hint_only_for_declared_variables(tmp_path):
    # 'deal' is a keyword and, in the fixture game, a phase name: a syntax error after the keyword 'deal'
    # is an ordinary one, not "'deal' cannot name a variable" (phases never appear in expressions).
    text = (FIXTURES / "base" / "tiny.atout").read_text(encoding="utf-8").replace("    goto declare", "    deal = 1")
    path = tmp_path / "t.atout"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CompileError) as info:
        compile_file(str(path))
    [d] = info.value.diagnostics
    assert (d.code, d.message, d.span.line, d.span.col) == ("E001", "unexpected '='", 16, 10)
    # Declared as a variable, the same word gets the reserved-word diagnostic at the word itself.
    path.write_text(text.replace("match var points", "deal var deal: int = 0\nmatch var points"), encoding="utf-8")
    with pytest.raises(CompileError) as info:
        compile_file(str(path))
    [d] = info.value.diagnostics
    assert (d.code, d.span.line, d.span.col) == ("E001", 17, 5)
    assert d.message == "'deal' is a reserved word and cannot name a variable"
    assert d.hint.startswith("rename the variable 'deal' declared on line 10")


# -- names of the built-in trick play in a game that plays its tricks by hand ------------------------------
_HAND_PLAYED = (FIXTURES / "E103_trick_builtin_without_trick_phase.atout").read_text(encoding="utf-8")


@pytest.mark.parametrize("read, name", [("winner", "winner"), ("leader", "leader"), ("trick_number", "trick_number"),
                                        ("led_suit", "led_suit"), ("played(eldest)", "played(...)"),
                                        ("tricks(dealer)", "tricks(...)")])
def test_every_trick_play_name_is_refused_without_a_trick_phase(read, name):
    """Each name only a trick phase sets (always 0, none or false elsewhere) is an error where it is read,
    with the variable to declare instead; the same file with a trick phase compiles (the fixture E103_unknown_zone
    is tiny.atout, which has one and reads tricks(eldest))."""
    text = _HAND_PLAYED.replace("turn = left(turn)", f"turn = if {read} == {read} then left(turn) else turn")
    with pytest.raises(CompileError) as info:
        compile_text(text, "hand.atout")
    line = text.splitlines().index(f"    turn = if {read} == {read} then left(turn) else turn") + 1
    got = [(d.code, d.span.col) for d in info.value.diagnostics if name in d.message and d.span.line == line]
    assert got == [("E103", 15), ("E103", 19 + len(read))]     # both reads (the def's tricks(eldest) is the other)
    assert all(d.code == "E103" and "belongs to the built-in trick play" in d.message for d in info.value.diagnostics)
    assert all("deal var" in d.hint for d in info.value.diagnostics)


def test_the_trick_play_zones_are_named_in_the_hint():
    text = _HAND_PLAYED.replace("move c from hand[actor] to table", "move c from hand[actor] to taken[actor]")
    with pytest.raises(CompileError) as info:
        compile_text(text, "hand.atout")
    d = next(d for d in info.value.diagnostics if "taken" in d.message)
    assert d.code == "E103" and "built-in zone of a 'trick' phase" in d.hint and "zone won" in d.hint


def test_a_trick_phase_still_reads_them():
    game = compile_file(str(FIXTURES / "base" / "tiny.atout"))
    assert any(p.kind == "trick" for p in game.phases)


_SIDES_GAME = """game side_numbers "t"
players 4 sides {0 1} {2 3}
deck { suits hearts spades  ranks A K }
zone stock: hidden, home
zone hand: per player, private
match var bonus: int per side = 0
phase deal {
  do {
    gather stock
    deal 1 from stock to hand starting eldest
    bonus[INDEX] += 1
    goto go
  }
}
phase go {
  actor eldest
  action ok "ok" { end deal }
}
match {
  start deal
  ends when deal_number >= 1
  returns(p) = bonus[p]
}
"""


def test_a_number_indexing_a_per_side_variable_is_the_sides_number():
    """language.md: a per-side variable is indexed "with a player, meaning his side, or with the side's
    number".  With partners side by side ({0 1} {2 3}) seat 1 is on side 0, so bonus[1] must be side 1's
    cell (it was read as seat 1, whose side is 0)."""
    import random

    from atout.engine import Game
    game = Game(compile_text(_SIDES_GAME.replace("INDEX", "1"), "t.atout"))
    st, rng = game.new_initial_state(), random.Random(0)
    while st.is_chance_node():
        st.apply_action(rng.choice(st.chance_outcomes())[0])
    assert st.vars["bonus"] == [0, 1]
    game = Game(compile_text(_SIDES_GAME.replace("INDEX", "seat(1)"), "t.atout"))   # a player: his side
    st = game.new_initial_state()
    while st.is_chance_node():
        st.apply_action(rng.choice(st.chance_outcomes())[0])
    assert st.vars["bonus"] == [1, 0]


def test_a_side_number_out_of_range_is_refused_where_written():
    with pytest.raises(CompileError) as exc:
        compile_text(_SIDES_GAME.replace("INDEX", "2"), "t.atout")
    text = str(exc.value)
    assert "t.atout:11:11: error[E104]: no side 2: the sides are numbered 0..1" in text

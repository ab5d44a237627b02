"""Fuzzing the compiler: a mutated rule file compiles to IR or fails with CompileError, never anything else.

The mutations start from ``rules/ecarte.atout`` (and the small fixture game): delete, duplicate, swap or
replace random tokens (names by names, numbers by numbers, so that many mutants still parse and reach the
semantic passes), insert keywords and punctuation, or delete, duplicate and swap whole lines.  Whatever
comes out, ``compile_file`` must return an IR (which must then dump) or raise ``CompileError`` whose every
diagnostic renders with a known code -- no Python exception may escape.

The last tests pin the crashes this fuzzing (and reading the compiler with it in mind) found, one by one.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atout.compiler import CompileError, compile_file, ir
from atout.compiler.diagnostics import CODES
from atout.compiler.parse import keywords

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {
    "ecarte": (ROOT / "rules" / "ecarte.atout").read_text(encoding="utf-8"),
    "tiny": (ROOT / "tests" / "diagnostics" / "base" / "tiny.atout").read_text(encoding="utf-8"),
    "nap": (ROOT / "docs" / "examples" / "nap.atout").read_text(encoding="utf-8"),
}
_TOKEN = re.compile(r'\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"|[A-Za-z_]\w*|\d+|\.\.|[=!<>]=|\+=|-=|=>|\S')
_EXTRA = ["(", ")", "[", "]", "{", "}", ",", ":", "-", "..", "0", "7", "99999999999999999999", '"\\q"',
          "none", "of", "per side", "sides {0} {1}", "&&", ";"]


def _tokens(text: str) -> list[str]:
    toks = _TOKEN.findall(text)
    assert "".join(toks) == text
    return toks


def _is_word(t: str) -> bool:
    return bool(t) and (t[0].isalpha() or t[0] == "_")


@st.composite
def mutants(draw) -> str:
    text = SOURCES[draw(st.sampled_from(sorted(SOURCES)))]
    if draw(st.integers(0, 9)) < 3:  # line mutations
        lines = text.split("\n")
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            op = draw(st.sampled_from(["delete", "duplicate", "swap"]))
            if op == "delete":
                del lines[i]
            elif op == "duplicate":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines)
    toks = _tokens(text)
    significant = [i for i, t in enumerate(toks) if not t.isspace() and not t.startswith("#")]
    vocab = sorted({toks[i] for i in significant} | set(keywords()) | set(_EXTRA))
    words = [v for v in vocab if _is_word(v)]
    numbers = [v for v in vocab if v.isdigit()]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.sampled_from(significant))
        j = draw(st.sampled_from(significant))
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "replace", "replace", "replace"]))
        if op == "delete":
            toks[i] = ""
        elif op == "duplicate":
            toks[j] = toks[j] + " " + toks[i]
        elif op == "swap":
            toks[i], toks[j] = toks[j], toks[i]
        elif op == "insert":
            toks[i] = toks[i] + " " + draw(st.sampled_from(vocab))
        else:
            pool = words if _is_word(toks[i]) else numbers if toks[i].isdigit() else vocab
            toks[i] = draw(st.sampled_from(pool))
    return "".join(toks)


def _compile_or_diagnose(path: Path) -> str:
    """'ok' or 'error'; any exception other than CompileError propagates (and fails the test)."""
    try:
        game = compile_file(str(path))
    except CompileError as exc:
        assert exc.diagnostics, "a CompileError without diagnostics"
        for d in exc.diagnostics:
            assert d.code in CODES, d.code
            assert d.span.path == str(path) and d.span.line >= 1 and d.span.col >= 1, d
        text = exc.render()
        assert "Traceback" not in text and re.search(r"\d+ errors?$", text)
        return "error"
    assert isinstance(game, ir.Game)
    assert ir.dump(game).startswith("Game\n")
    return "ok"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutants())
def test_mutated_rule_files_never_crash_the_compiler(tmp_path, text):
    path = tmp_path / "mutant.atout"
    path.write_text(text, encoding="utf-8")
    _compile_or_diagnose(path)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200))
def test_arbitrary_bytes_never_crash_the_compiler(tmp_path, data):
    path = tmp_path / "bytes.atout"
    path.write_bytes(data)
    try:
        compile_file(str(path))
    except CompileError as exc:
        assert {d.code for d in exc.diagnostics} <= set(CODES)


# -- crashes found while fuzzing, each pinned with the diagnostic it now gets ------------------------
TINY = SOURCES["tiny"]


def _codes(tmp_path, *edits: tuple[str, str]) -> list[str]:
    text = TINY
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "case.atout"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CompileError) as info:
        compile_file(str(path))
    return [d.code for d in info.value.diagnostics]


RETURNS = "returns(p) = points[p]"
ENDS = "ends when any(p in players: points[p] >= target)"
PLAY = 'action play "I play" { goto play }'


@pytest.mark.parametrize("edits, codes", [
    # AssertionError in resolve: indexing an 'if' that chooses between per-player variables.
    ([(RETURNS, "returns(p) = (if true then points else points)[p]")], ["E104"]),
    # TypeError in the engine later: an 'if' choosing the zone to move from.
    ([("    shuffle stock", "    move 1 from (if true then stock else discards) to hand[dealer]")], ["E104"]),
    # UnicodeDecodeError / UnicodeEncodeError: escapes the string decoder did not know.
    ([('game tiny "Tiny"', 'game tiny "T\\xzz"')], ["E002"]),
    ([('game tiny "Tiny"', 'game tiny "T\\u0100"')], ["E002"]),
    # RecursionError: thousands of nested operators.
    ([(RETURNS, RETURNS + " + 1" * 3000)], ["E004"]),
    ([(ENDS, "ends when " + "not " * 3000 + "true")], ["E004"]),
    # Silently wrong card id: 'none of hearts' was compiled to a card of the next suit.
    ([(PLAY, 'action play "I play" when has(hand[actor], none of hearts) { goto play }')], ["E105"]),
])
def test_fuzz_findings_are_diagnosed(tmp_path, edits, codes):
    assert _codes(tmp_path, *edits) == codes


def test_escapes_the_language_knows(tmp_path):
    path = tmp_path / "escapes.atout"
    path.write_text(TINY.replace('game tiny "Tiny"', 'game tiny "say \\"hi\\"\\tor \\\\"'), encoding="utf-8")
    assert compile_file(str(path)).title == 'say "hi"\tor \\'

"""Golden IR dumps: ``tests/golden/NAME.ir`` is ``atout dump rules/NAME.atout``, reviewed by eye and committed.

A change to the compiler that changes the IR of a shipped game shows up here as a diff.  When the change is
intended, regenerate and review::

    python -m pytest tests/test_golden_ir.py --update-goldens     # or ATOUT_UPDATE_GOLDENS=1
    git diff tests/golden

Also here: the IR ignores source positions, so the same game written with other whitespace and comments
compiles to an equal IR with an identical dump.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from atout.cli import main
from atout.compiler import compile_file, compile_text, ir

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
# Écarté always; any other game once its golden has been generated (--update-goldens) and committed.
GOLDENS = sorted({"ecarte"} | {p.stem for p in GOLDEN.glob("*.ir")})


@pytest.mark.parametrize("name", GOLDENS)
def test_dump_matches_golden(name, update_goldens, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["dump", f"rules/{name}.atout"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    golden = GOLDEN / f"{name}.ir"
    if update_goldens:
        golden.write_text(out, encoding="utf-8")
    assert golden.exists(), f"no golden {golden}: run python -m pytest tests/test_golden_ir.py --update-goldens"
    assert out == golden.read_text(encoding="utf-8")


def test_dump_is_canonical():
    text = ir.dump(compile_file(str(ROOT / "rules" / "ecarte.atout")))
    # No object reprs or addresses, no source positions, same text from a second compilation.
    assert not re.search(r"0x[0-9a-f]{6,}|<[a-zA-Z_.]+ object|Span\(|line=", text)
    assert text == ir.dump(compile_file(str(ROOT / "rules" / "ecarte.atout")))
    # A ranged int constant is bracketed so that it cannot be read as an 'in a..b' test.
    assert "(points[p] >= 5:(int in 1..99))" in text


_TOKEN = re.compile(r'\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"|[^\s#"]+')


def _respace(text: str, seed: int) -> str:
    """The same rule file with every comment dropped and every run of whitespace replaced at random."""
    rng = random.Random(seed)
    out = []
    for tok in _TOKEN.findall(text):
        if tok.startswith("#"):
            continue
        if tok.isspace():
            tok = rng.choice([" ", "\n", "\t", "  \n\n    ", "\n # a comment\n"])
        out.append(tok)
    return "".join(out)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spans_are_excluded_from_ir_equality(seed):
    path = ROOT / "rules" / "ecarte.atout"
    original = compile_file(str(path))
    text = _respace(path.read_text(encoding="utf-8"), seed)
    respaced = compile_text(text, "respaced.atout")
    # The positions really differ ...
    assert original.phases[1].span.line != respaced.phases[1].span.line or \
        original.phases[1].span.col != respaced.phases[1].span.col
    assert original.phases[1].span.path != respaced.phases[1].span.path
    # ... and yet the games are equal, node for node, and dump identically.
    assert respaced == original
    assert ir.dump(respaced) == ir.dump(original)


def test_ir_equality_is_not_vacuous():
    # The counterpart: a one-word change of meaning makes the IRs differ (and the dumps say where).
    path = ROOT / "rules" / "ecarte.atout"
    text = path.read_text(encoding="utf-8")
    changed = compile_text(text.replace("option target: int in 1..99 = 5", "option target: int in 1..99 = 7"),
                           "changed.atout")
    original = compile_file(str(path))
    assert changed != original
    diff = [(a, b) for a, b in zip(ir.dump(original).splitlines(), ir.dump(changed).splitlines()) if a != b]
    assert ("      value: 5", "      value: 7") in diff

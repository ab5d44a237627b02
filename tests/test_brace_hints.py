"""A deleted '}' is reported as a missing '}' (issue 11), and a hint says so only when a '}' is lacking.

A bounded form of the campaign of ``tests/_brace_campaign.py`` (which runs over every shipped rule file): every
single '}' of two shipped games is deleted in turn, and the first diagnostic must be a syntax error (E001 or
E003) whose hint says that a '}' is missing and names the '{' that is still open or, by the indentation, the
block whose '}' was deleted -- never "a reserved word", never a list of tokens that leaves the brace out.  Over
all the shipped files the campaign measured 85 misleading hints of 279 deletions before the change (43 blaming a
reserved word, 42 others; 26 more only listed '}' among the tokens expected) and none after: all 278 hints then
say that a '}' is missing and name the block whose '}' was deleted (before: 62 of 167).
"""
from __future__ import annotations

import re
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest

from _brace_campaign import MISLEADING, classify, names_block, run_file

from atout.compiler import CompileError
from atout.compiler.parse import parse_text

ROOT = Path(__file__).resolve().parent.parent
TINY = (ROOT / "tests" / "diagnostics" / "base" / "tiny.atout").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """{file: [(line of the deleted '}', first diagnostic, line of the '{' it closed)]} for two shipped games,
    and the seconds it took."""
    work = tmp_path_factory.mktemp("braces")
    out = {}
    t0 = time.perf_counter()
    for name in ("ecarte.atout", "euchre.atout"):
        src = ROOT / "rules" / name
        shutil.copy(src, work / name)
        out[name] = [(line, d, opened) for _, line, d, opened in run_file(src, work)]
    return out, time.perf_counter() - t0


def test_every_deleted_brace_is_reported_as_a_missing_brace(campaign):
    results, seconds = campaign
    counts = Counter()
    for name, runs in results.items():
        assert len(runs) >= 40, name
        for line, d, opened in runs:
            c = classify(d)
            counts[c] += 1
            if d is None:           # a '}' in a comment or a string: nothing changes
                continue
            assert d.code in ("E001", "E003"), (name, line, d)
            assert c not in MISLEADING, f"{name}: '}}' deleted at line {line}: {d.message} / {d.hint}"
            counts["names"] += names_block(d, opened)
    brace = counts["brace"]
    judged = sum(counts[c] for c in ("brace", "expects", "reserved", "other"))
    assert brace / judged >= 0.95, counts          # measured: all 90
    assert counts["names"] / brace >= 0.9, counts  # measured: all 90
    assert seconds < 30


def _first(text: str):
    with pytest.raises(CompileError) as info:
        parse_text(text, "t.atout")
    [d] = info.value.diagnostics
    return d.code, d.span.line, d.span.col, d.message, d.hint


def test_a_keyword_read_as_a_name_is_seen_through():
    # 'row' after an unclosed row body is read as a variable (an assignment may start there): the '}' goes before it.
    text = TINY.replace("row won: tricks(eldest) >= 2 => { points[eldest] += 1 }",
                        "row won: tricks(eldest) >= 2 => { points[eldest] += 1")
    assert _first(text) == ("E001", 39, 7, "unexpected name 'lost'",
                            "is a '}' missing before 'row'? the '{' on line 38 is not closed")
    # 'option' after an unclosed deck is read as two more ranks: the '}' goes at the start of the line.
    text = TINY.replace("ranks A K Q }", "ranks A K Q")
    assert _first(text) == ("E001", 6, 14, "unexpected ':'",
                            "is a '}' missing before 'option'? the '{' on line 5 is not closed")


def test_else_after_an_unclosed_branch():
    text = TINY.replace("    points[dealer] += 1\n",
                        "    if points[dealer] > 0 { points[dealer] += 1 else { points[eldest] += 1 }\n")
    assert _first(text) == ("E001", 23, 49, "unexpected keyword 'else'",
                            "is a '}' missing? the '{' on line 23, column 27 is not closed")


def test_the_indentation_names_the_block_that_lacks_its_brace():
    text = TINY.replace("    goto declare\n  }\n", "    goto declare\n")      # the 'do' block's '}'
    assert _first(text) == ("E001", 18, 1, "unexpected keyword 'phase'",
                            "is a '}' missing? the '{' on line 11 is not closed; by the indentation, the block "
                            "opened on line 12 lacks its '}' (the '}' on line 17 closes it instead)")
    # A continued head ('action a "x"' then '    when C {') is indented like its first line: no false lead.
    text = TINY.replace('  action play "I play" { goto play }',
                        '  action play "I play"\n      when true {\n    goto play\n  }')
    text = text.replace("    end deal\n  }\n}\n", "    end deal\n  }\n", 1)   # phase declare's '}'
    code, line, col, message, hint = _first(text)
    assert (code, message) == ("E001", "unexpected keyword 'phase'")
    assert hint == "is a '}' missing? the '{' on line 19 is not closed"


def test_several_braces_and_the_end_of_the_file():
    text = TINY.replace("    goto declare\n  }\n}\n", "    goto declare\n")
    assert _first(text)[4] == "are 2 '}' missing before 'phase'? the '{' on lines 11 and 12 are not closed"
    text = TINY.replace("  returns(p) = points[p]\n}\n", "  returns(p) = points[p]\n")
    assert _first(text)[0] == "E001"        # 'property' where the match block's items go
    code, *_, hint = _first(TINY.rstrip() + "\nmatch {")
    assert (code, hint) == ("E003", "is a '}' missing? the '{' on line 47 is not closed")


@pytest.mark.parametrize("old, new, hint", [
    # The braces balance: no '}' is missing, whatever the parser would accept after one.
    ("  actor eldest\n", "  actor eldest\n  option x: int = 1\n",
     "'option' begins a declaration, which cannot be inside the block opened on line 19: move it out of the "
     "block (the braces of the file balance, so none is lacking)"),
    ('action play "I play" { goto play }', 'action play "I play" { ; goto play }',
     "a ';' may only end a statement inside a block; remove it"),
    ("deal 3 from stock", "deal 3 stock", "expected ',' or 'from'"),
    ("    shuffle stock", "    shufle stock", "'shufle' (line 14) was read as a name: did you mean 'shuffle'? "
                                               "(expected '=', '+=' or '-=' or an operator)"),
])
def test_no_missing_brace_where_none_is_missing(old, new, hint):
    assert TINY.count(old) == 1
    assert _first(TINY.replace(old, new))[4] == hint


def test_moderate_nesting_compiles_and_deep_nesting_says_the_true_limit():
    from atout.compiler import compile_text
    from atout.compiler.parse import MAX_DEPTH

    def nested(n: int) -> str:
        body = "points[dealer] += 1"
        for i in range(n):
            body = f"if points[dealer] >= {i % 3} {{ {body} }}"
        return TINY.replace("    points[dealer] += 1\n", "    " + body + "\n")

    assert compile_text(nested(48), "t.atout").phase("declare")
    text = nested(MAX_DEPTH)
    code, line, col, message, hint = _first(text)
    assert (code, line) == ("E004", 23)
    assert message == f"nested too deeply: more than {MAX_DEPTH} levels of blocks and expressions"
    assert re.search(r"each block inside another is a level", hint)
    # The action's block is level 1 and the k-th 'if' holds the block at level k + 1; the condition of the
    # (MAX_DEPTH - 1)th 'if' is at level MAX_DEPTH and its 'points[dealer]' one level deeper: the caret is there.
    row = text.splitlines()[line - 1]
    assert row[col - 4:col - 1] == "if " and row[:col - 1].count("if ") == MAX_DEPTH - 1

"""docs/language.md: every example compiles, and the reference lists every function, name, keyword and code.

Fenced blocks are checked by their info string:

* ```` ```atout file=PATH ```` -- the block is the file PATH (under docs/examples) verbatim; the file compiles;
* ```` ```atout decls ```` -- declarations appended, in document order, to docs/examples/skeleton.atout;
  the game with all the fragments so far compiles;
* ```` ```atout stmts ```` -- statements put in an action of the game built so far; it compiles;
* ```` ```atout ```` -- a complete rule file; it compiles;
* any other block (```` ```text ````) is not checked.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from atout.compiler import CompileError, compile_file, compile_text
from atout.compiler.diagnostics import CODES
from atout.compiler.parse import keywords
from atout.compiler.resolve import BUILTINS, FUNCTIONS, signature
from atout.engine import Game
from atout.engine.simulate import simulate

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "language.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = [(m.group(1).strip(), m.group(2), TEXT.count("\n", 0, m.start()) + 1)
          for m in re.finditer(r"^```([^\n]*)\n(.*?)^```$", TEXT, re.M | re.S)]
SKELETON = (ROOT / "docs" / "examples" / "skeleton.atout").read_text(encoding="utf-8")


def _compile(text: str, origins: list[str], line: int):
    """Compile ``text``; on failure name, for each diagnostic, the doc line (or skeleton line) it comes from."""
    try:
        return compile_text(text, "example.atout")
    except CompileError as exc:
        where = [f"{origins[d.span.line - 1] if 0 < d.span.line <= len(origins) else '?'}: "
                 f"error[{d.code}]: {d.message}" for d in exc.diagnostics]
        pytest.fail(f"the example at docs/language.md:{line} does not compile:\n" + "\n".join(where))


def _atout_blocks():
    """(kind, info, body, line, game text to compile) for every atout block, fragments accumulated."""
    game = SKELETON
    origins = [f"docs/examples/skeleton.atout:{i + 1}" for i in range(SKELETON.count("\n"))]

    def doc_lines(line: int, body: str) -> list[str]:
        return [f"docs/language.md:{line + 1 + i}" for i in range(body.count("\n"))]

    out = []
    for info, body, line in BLOCKS:
        words = info.split()
        if not words or words[0] != "atout":
            continue
        kind = words[1] if len(words) > 1 else "complete"
        if kind == "decls":
            game = game + "\n" + body
            origins = origins + ["(blank)"] + doc_lines(line, body)
            out.append((kind, info, body, line, (game, origins)))
        elif kind == "stmts":
            indented = "".join("    " + ln + "\n" for ln in body.splitlines())
            wrapped = (game + "\nphase doc_example {\n  actor eldest\n  action doc_example {\n" + indented
                       + "    end deal\n  }\n}\n")
            out.append((kind, info, body, line, (wrapped, origins + ["(wrapper)"] * 4 + doc_lines(line, body))))
        else:
            out.append((kind, info, body, line, (body, doc_lines(line, body))))
    return out


ATOUT = _atout_blocks()


def test_the_doc_has_examples_of_every_kind():
    kinds = [k for k, *_ in ATOUT]
    assert kinds.count("decls") >= 8 and kinds.count("stmts") >= 2 and "complete" in kinds
    assert sum(1 for k in kinds if k.startswith("file=")) == 4


@pytest.mark.parametrize("kind, info, body, line, game", ATOUT, ids=[f"line{b[3]}-{b[0]}" for b in ATOUT])
def test_example_compiles(kind, info, body, line, game):
    if kind.startswith("file="):
        path = ROOT / kind[len("file="):]
        assert body == path.read_text(encoding="utf-8"), f"docs/language.md:{line} differs from {path}"
        try:
            compile_file(str(path))
        except CompileError as exc:
            pytest.fail(exc.render())
        return
    assert kind in ("complete", "decls", "stmts"), f"unknown block kind {info!r} at line {line}"
    _compile(*game, line)


def test_every_block_is_labelled():
    for info, _, line in BLOCKS:
        assert info.split()[:1] in (["atout"], ["text"]), f"block at line {line} has info string {info!r}"


def test_reference_lists_every_function_and_builtin():
    for fn in FUNCTIONS:
        arity = signature(fn).split(":")[0].count(",") + 1     # size(zone): 1 argument
        row = re.search(r"^\| `" + fn + r"\(([^)]*)\)` \|", TEXT, re.M)
        assert row and len(row.group(1).split(",")) == arity, fn
    assert "| `gain(var)` |" in TEXT
    for name in BUILTINS:
        assert f"| `{name}` |" in TEXT, name


def test_reference_lists_every_error_code_and_keyword():
    for code in CODES:
        assert f"| {code} |" in TEXT, code
    block = next(body for info, body, _ in BLOCKS if body.startswith("action actor after"))
    assert block.split() == keywords()


def test_examples_play():
    # The example games are not only well-formed: bots play them to the end without a rule error.
    games = [compile_file(str(ROOT / "docs" / "examples" / f"{name}.atout"))
             for name in ("skeleton", "skeleton_to_seven", "skeleton_vole", "nap")]
    games += [compile_text(body, f"docs/language.md:{line}") for kind, _, body, line, _ in ATOUT if kind == "complete"]
    assert len(games) == 8
    for game in games:
        stats = simulate(Game(game), 5, 1, ["random"], None)
        assert stats.as_json()["matches"] == 5, game.name


def test_documented_action_ids():
    # "Écarté has ... 38 distinct actions"; "Nap: pass (52), bid two .. bid nap (53-56) ... 61".
    ecarte = compile_file(str(ROOT / "rules" / "ecarte.atout"))
    assert ecarte.num_distinct_actions == 38
    assert [s.text for s in ecarte.action_slots] == ["I play", "I propose", "Please", "We play",
                                                     "announce the king of trumps", "done"]
    assert ecarte.deck.card_name(0) == "K of spades" and ecarte.deck.card_name(8) == "K of hearts"
    assert ecarte.deck.card_name(31) == "7 of clubs"
    nap = compile_file(str(ROOT / "docs" / "examples" / "nap.atout"))
    assert nap.num_distinct_actions == 61
    assert [s.text for s in nap.action_slots][:5] == ["pass", "bid two", "bid three", "bid four", "bid nap"]

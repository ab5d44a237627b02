"""``override row TABLE.ROW`` and rows added by a ``table NAME { ... }`` block in a variant (issue 11).

A variant that changes one row of a base scoring table overrides that row alone; the result is the game the
variant copying the whole table (with that row changed) describes: the same IR, compared by its canonical
dump.  An added row goes after the base's rows.  Overriding a row or a table the base does not have is E118,
a new row named like a row of its table E102, each at the right line and column with a hint; ``atout check``
names the rows a variant changes; and the variants play to the end.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from atout.cli import main
from atout.compiler import CompileError, compile_file, compile_text, ir
from atout.engine import load

ROOT = Path(__file__).resolve().parent.parent
ECARTE = ROOT / "rules" / "ecarte.atout"
TINY = ROOT / "tests" / "diagnostics" / "base" / "tiny.atout"

# The row of Écarté's table that the variants below change: the vole of a player who did not propose.
VOLE = "  row played_vole: exchanges == 0 and not refused and tricks(eldest) == 5 => { points[eldest] += 2 }"
NEW_VOLE = "exchanges == 0 and not refused and tricks(eldest) == 5 => { points[eldest] += 3 }"


def _table_block(text: str, name: str) -> str:
    """The text of ``table NAME { ... }`` in ``text`` (its closing '}' alone at the start of a line)."""
    m = re.search(r"^table " + name + r" \{\n.*?^\}\n", text, re.M | re.S)
    assert m, name
    return m.group()


def _write(tmp_path: Path, name: str, base: Path, body: str) -> Path:
    path = tmp_path / name
    path.write_text(f'extends "{base}"\n{body}', encoding="utf-8")
    return path


def _diagnostics(path: Path):
    with pytest.raises(CompileError) as info:
        compile_file(str(path))
    return info.value.diagnostics


def _play(path: Path, matches: int = 4, seed: int = 0) -> None:
    """Random legal actions (chance outcomes by their probability) to the end of ``matches`` matches."""
    game = load(str(path))
    rng = random.Random(seed)
    for _ in range(matches):
        state = game.new_initial_state()
        for _ in range(20000):
            if state.is_terminal():
                break
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert state.is_terminal()
        assert len(state.returns()) == game.num_players()


# -- the same game as copying the whole table ----------------------------------------------------------------
def test_overriding_one_row_of_ecarte_is_the_same_ir_as_copying_the_table(tmp_path):
    text = ECARTE.read_text(encoding="utf-8")
    assert text.count(VOLE) == 1
    whole = _table_block(text, "deal_score").replace(VOLE, "  row played_vole: " + NEW_VOLE)
    copied = _write(tmp_path, "copied.atout", ECARTE, "override " + whole)
    one_row = _write(tmp_path, "one_row.atout", ECARTE, f"override row deal_score.played_vole: {NEW_VOLE}\n")
    in_block = _write(tmp_path, "in_block.atout", ECARTE,
                      f"table deal_score {{\n  override row played_vole: {NEW_VOLE}\n}}\n")
    dumps = [ir.dump(compile_file(str(p))) for p in (copied, one_row, in_block)]
    assert dumps[0] == dumps[1] == dumps[2]
    base = compile_file(str(ECARTE))
    assert dumps[1] != ir.dump(base)
    rows_base = [r.name for r in base.table("deal_score").rows]
    game = compile_file(str(one_row))
    rows = game.table("deal_score").rows
    assert [r.name for r in rows] == rows_base                         # same rows, same order
    changed = [r.name for r, b in zip(rows, base.table("deal_score").rows) if r != b]
    assert changed == ["played_vole"]


def test_an_added_row_lands_at_the_end(tmp_path):
    base_text = TINY.read_text(encoding="utf-8")
    extra = "row extra: tricks(eldest) == 3 => { points[eldest] += 1 }"
    added = _write(tmp_path, "added.atout", TINY, f"table deal_score {{\n  {extra}\n}}\n")
    whole = _table_block(base_text, "deal_score").replace("\n}\n", f"\n  {extra}\n}}\n")
    copied = _write(tmp_path, "copied.atout", TINY, "override " + whole)
    game = compile_file(str(added))
    assert [r.name for r in game.table("deal_score").rows] == ["won", "lost", "extra"]
    assert ir.dump(game) == ir.dump(compile_file(str(copied)))
    # An unnamed added row is named by its position, as the compiler names the rows of a table written out.
    unnamed = _write(tmp_path, "unnamed.atout", TINY, "table deal_score {\n  row: tricks(eldest) == 3 => { }\n}\n")
    assert [r.name for r in compile_file(str(unnamed)).table("deal_score").rows] == ["won", "lost", "row3"]


def test_override_and_addition_together_and_remove_by_table(tmp_path):
    body = ("override row deal_score.won: tricks(eldest) >= 3 => { points[eldest] += 2 }\n"
            "table deal_score {\n  row two: tricks(eldest) == 2 => { points[eldest] += 1 }\n}\n"
            "remove row deal_score.lost\nremove property scoring_complete\n")
    game = compile_file(str(_write(tmp_path, "v.atout", TINY, body)))
    rows = game.table("deal_score").rows
    assert [r.name for r in rows] == ["won", "two"]
    written = compile_text(TINY.read_text(encoding="utf-8").replace(
        _table_block(TINY.read_text(encoding="utf-8"), "deal_score"),
        "table deal_score {\n  row won: tricks(eldest) >= 3 => { points[eldest] += 2 }\n"
        "  row two: tricks(eldest) == 2 => { points[eldest] += 1 }\n}\n").replace(
        "property scoring_complete: complete deal_score\n", ""), "written.atout")
    assert ir.dump(game) == ir.dump(written)


def test_a_row_override_in_a_variant_of_a_variant(tmp_path):
    first = _write(tmp_path, "first.atout", TINY, "table deal_score {\n  row extra: false => { }\n}\n")
    second = _write(tmp_path, "second.atout", first,
                    "override row deal_score.extra: tricks(eldest) == 3 => { points[eldest] += 1 }\n")
    rows = compile_file(str(second)).table("deal_score").rows
    assert [r.name for r in rows] == ["won", "lost", "extra"]
    assert ir.dump(compile_file(str(second))) != ir.dump(compile_file(str(first)))


# -- mistakes -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("body, code, line, col, message, hint", [
    ("override row deal_scor.won: true => { }\n", "E118", 2, 14,
     "cannot override row 'deal_scor.won': the base game has no table 'deal_scor'", "did you mean 'deal_score'?"),
    ("override row deal_score.wno: true => { }\n", "E118", 2, 25,
     "cannot override row 'wno': table 'deal_score' has none", "did you mean 'won'?"),
    ("override row deal_score.draw: true => { }\n", "E118", 2, 25,
     "cannot override row 'draw': table 'deal_score' has none", "the rows of table 'deal_score' are: won, lost"),
    ("table deal_score {\n  override row lots: true => { }\n}\n", "E118", 3, 16,
     "cannot override row 'lots': table 'deal_score' has none", "did you mean 'lost'?"),
    ("table deal_score {\n  row won: true => { }\n}\n", "E102", 3, 7,
     "duplicate row 'won' in table 'deal_score': the base game already has it",
     "write 'override row won' to replace it, or give the new row another name"),
    ("table deal_score {\n  row x: true => { }\n  row x: false => { }\n}\n", "E102", 4, 7,
     "duplicate row 'x' in table 'deal_score'", "the first row 'x' is on line 3; give this one another name"),
    ("table bonus {\n  override row won: true => { }\n}\n", "E118", 3, 16,
     "cannot override row 'won': the base game has no table 'bonus'", "the tables are: deal_score"),
    ("override table deal_score {\n  override row won: true => { }\n}\n", "E118", 3, 16,
     "'override row' inside 'override table deal_score': the table is replaced whole",
     "remove the word 'override' before 'row', or write 'table deal_score { ... }' (without 'override') to "
     "change single rows"),
    ("table deal_score {\n  override row: true => { }\n}\n", "E118", 3, 12,
     "'override row' needs the name of the row of table 'deal_score' it replaces",
     "the rows of table 'deal_score' are: won, lost"),
    ("remove row deal_score.lsot\n", "E118", 2, 23, "cannot remove row 'lsot': table 'deal_score' has none",
     "did you mean 'lost'?"),
    ("remove row dael_score.lost\n", "E118", 2, 12,
     "cannot remove row 'dael_score.lost': the base game has no table 'dael_score'", "did you mean 'deal_score'?"),
    ("remove phase deal_score.lost\n", "E118", 2, 14, "'remove phase deal_score.lost': only a row is named "
     "TABLE.NAME", "write 'remove phase lost'"),
    # A row this variant adds is not the base's: overriding it is E118, wherever the override is written.
    ("override row deal_score.extra: true => { }\ntable deal_score {\n  row extra: false => { }\n}\n", "E118", 2,
     25, "cannot override row 'extra' of table 'deal_score': the base game has none; this file writes it on line 4",
     "change the row on line 4 itself, or override a row of the base"),
    ("table deal_score {\n  row extra: false => { }\n  override row extra: true => { }\n}\n", "E118", 4, 16,
     "cannot override row 'extra' of table 'deal_score': the base game has none; this file writes it on line 3",
     "change the row on line 3 itself, or override a row of the base"),
    # Overriding and removing one row (or action) contradict each other; removing twice is a mistake too.
    ("override row deal_score.won: true => { }\nremove row deal_score.won\n", "E118", 3, 1,
     "cannot remove row 'won': this file also writes it (line 2), adding or overriding it",
     "keep one of the two: the 'remove' or the row on line 2"),
    ("phase declare {\n  override action pass \"I pass\" { end deal }\n}\nremove action pass\n", "E118", 5, 1,
     "cannot remove action 'pass': this file also writes it (line 3), adding or overriding it",
     "keep one of the two: the 'remove' or the action on line 3"),
    ("remove row deal_score.lost\nremove row lost\n", "E118", 3, 1,
     "cannot remove row 'lost' again: line 2 removes it", "remove it once"),
])
def test_mistakes_are_located(tmp_path, body, code, line, col, message, hint):
    path = _write(tmp_path, "v.atout", TINY, body)
    [d] = _diagnostics(path)
    assert (d.code, d.span.path, d.span.line, d.span.col, d.message, d.hint) == \
        (code, str(path), line, col, message, hint)


def test_unnamed_rows_can_only_change_with_override_table(tmp_path):
    base = tmp_path / "base.atout"
    base.write_text(TINY.read_text(encoding="utf-8").replace("row lost:", "row:"), encoding="utf-8")
    [d] = _diagnostics(_write(tmp_path, "v.atout", base, "override row deal_score.lost: true => { }\n"))
    assert d.code == "E118" and (d.span.line, d.span.col) == (2, 25)
    assert d.hint == ("the rows of table 'deal_score' are: won; 1 of its rows has no name: only 'override table "
                      "deal_score' can change it")


def test_override_row_outside_a_variant_and_a_duplicate_row_in_a_table():
    text = TINY.read_text(encoding="utf-8")
    with pytest.raises(CompileError) as info:
        compile_text(text + "override row deal_score.won: true => { }\n", "t.atout")
    [d] = info.value.diagnostics
    assert (d.code, d.span.line, d.span.col) == ("E118", 47, 25)
    assert d.message == "'override' is only allowed in a variant (a file that extends another)"
    with pytest.raises(CompileError) as info:
        compile_text(text.replace("  row lost:", "  override row lost:"), "t.atout")
    assert [(d.code, d.span.line, d.span.col) for d in info.value.diagnostics] == [("E118", 39, 16)]
    with pytest.raises(CompileError) as info:
        compile_text(text.replace("  row lost:", "  row won:"), "t.atout")
    [d] = info.value.diagnostics
    assert (d.code, d.span.line, d.span.col, d.message) == ("E102", 39, 7, "duplicate row 'won' in table "
                                                                           "'deal_score'")
    assert d.hint == "the first row 'won' is on line 38; give this one another name"


def test_a_missing_dot_is_a_syntax_error_with_the_expected_token(tmp_path):
    [d] = _diagnostics(_write(tmp_path, "v.atout", TINY, "override row deal_score won: true => { }\n"))
    assert (d.code, d.span.line, d.span.col, d.message, d.hint) == ("E001", 2, 25, "unexpected name 'won'",
                                                                    "expected '.'")


# -- atout check, and play -------------------------------------------------------------------------------------
def test_check_reports_the_rows_a_variant_changes(tmp_path, capsys, monkeypatch):
    body = ("override row deal_score.won: tricks(eldest) >= 3 => { points[eldest] += 2 }\n"
            "table deal_score {\n  row extra: tricks(eldest) == 3 => { points[eldest] += 1 }\n}\n")
    path = _write(tmp_path, "v.atout", TINY, body)
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == [f"variant of {TINY} (tiny):", "  ~ table deal_score: row won changed, row extra added"]
    assert main(["check", str(ROOT / "docs" / "examples" / "skeleton_vole.atout")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "  ~ table deal_score: row eldest_wins changed, row eldest_vole added"


def test_the_variants_play(tmp_path):
    ecarte = _write(tmp_path, "ecarte_vole3.atout", ECARTE, f"override row deal_score.played_vole: {NEW_VOLE}\n")
    tiny = _write(tmp_path, "tiny_rows.atout", TINY,
                  "override row deal_score.won: tricks(eldest) >= 3 => { points[eldest] += 2 }\n"
                  "table deal_score {\n  row two: tricks(eldest) == 2 => { points[eldest] += 1 }\n}\n")
    for path in (ecarte, tiny, ROOT / "docs" / "examples" / "skeleton_vole.atout"):
        _play(path, matches=4, seed=len(str(path)))

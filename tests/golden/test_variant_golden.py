"""Golden test: a variant compiles to the same IR as the same game written out in full.

rules/ecarte_classic.atout extends rules/ecarte.atout; tests/fixtures/ecarte_classic_full.atout is
the classic game written out without ``extends``.  IR equality ignores source spans.
"""
from __future__ import annotations

from pathlib import Path

from atout.compiler import compile_file, compile_text, ir

ROOT = Path(__file__).resolve().parents[2]
VARIANT = ROOT / "rules" / "ecarte_classic.atout"
FULL = ROOT / "tests" / "fixtures" / "ecarte_classic_full.atout"
BASE = ROOT / "rules" / "ecarte.atout"


def test_variant_ir_equals_the_game_written_in_full():
    variant, full = compile_file(str(VARIANT)), compile_file(str(FULL))
    assert variant == full
    assert ir.dump(variant) == ir.dump(full)


def test_the_comparison_can_fail():
    """The equality is not vacuous: the base game differs, and so does the full text with one
    guard changed (a proposal with one card left in the stock)."""
    full_text = FULL.read_text(encoding="utf-8")
    changed = full_text.replace("when size(stock) >= 2", "when size(stock) >= 1")
    assert changed != full_text
    variant = compile_file(str(VARIANT))
    assert compile_text(changed, "changed.atout") != variant
    assert compile_file(str(BASE)) != variant

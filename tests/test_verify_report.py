"""The text report of ``atout verify`` (issue 11): it fits the terminal, says in plain words what each verdict
means (with the author's comment on the property), and prints a trace shared by two properties once."""
from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _report(columns: int) -> str:
    env = dict(os.environ, COLUMNS=str(columns))
    out = subprocess.run([sys.executable, "-m", "atout.cli", "verify", "rules/ecarte.atout", "--cross-check", "2",
                          "--property", "three_point_cap", "--property", "exchange_terminates",
                          "--property", "match_terminates"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 1, out.stderr    # the two lassos are refuted (README)
    return out.stdout


def test_the_report_fits_80_columns_and_speaks_plainly():
    text = _report(80)
    lines = text.splitlines()
    table = [ln for ln in lines if ln[:1] in "┏┃┡│└"]
    assert table and max(len(ln) for ln in table) <= 80
    flat = " ".join(" ".join(ln.strip("│┃ ").split()) for ln in table)
    # the comment above the property in rules/ecarte.atout, and what the verdicts mean
    assert "source §6: at most three points in one deal" in flat
    assert "no deal breaks it" in flat
    assert "for ever: here is how" in flat


def test_a_shared_trace_is_printed_once():
    text = _report(140)
    assert "match_terminates: the same lasso as for exchange_terminates (above)" in text
    assert text.count("a prefix of") == 1

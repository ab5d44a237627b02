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


def test_a_stopped_exploration_says_how_far_it_got():
    """An exploration that a limit stops still counts in the report's work: with --max-states 100 each one
    stops past 100 abstract states (the check runs before each node is expanded), and the text report says
    how many stopped and how far they got; a finished run says nothing of the kind."""
    import json
    args = [sys.executable, "-m", "atout.cli", "verify", "rules/ecarte.atout", "--cross-check", "0",
            "--max-states", "100", "--property", "three_point_cap"]
    out = subprocess.run(args + ["--json"], capture_output=True, text=True, cwd=ROOT)
    work = json.loads(out.stdout)["work"]
    assert work["explorations"] == 0 and work["stopped_explorations"] >= 1
    assert work["abstract_states"] >= 101 * work["stopped_explorations"]
    text = subprocess.run(args, capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, COLUMNS="200")).stdout
    assert f"0 finished, {work['stopped_explorations']} stopped by a limit; " \
           f"{work['abstract_states']:,} abstract states" in text
    assert "stopped by a limit" not in _report(140)

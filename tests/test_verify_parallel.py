"""``atout verify -j N`` (verify/parallel.py): the checks run in forked processes after the shared
explorations, and every verdict, method, counterexample, finding and cross-check figure is the serial run's.

The expected values are the serial run's own output, computed in the same test: ``-j`` is a second way of
running the same checks, so any difference is a bug of the parallel path."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify import cli as verify_cli
from atout.verify import parallel

ROOT = Path(__file__).resolve().parent.parent
ECARTE = str(ROOT / "rules" / "ecarte.atout")
SKELETON = str(ROOT / "docs" / "examples" / "skeleton.atout")

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="-j forks its workers (Linux only)")


def _verify(*args):
    out = subprocess.run([sys.executable, "-m", "atout.cli", "verify", *args], capture_output=True, text=True,
                         timeout=600)
    return out.returncode, out.stdout, out.stderr


def _without_timings(report: dict) -> dict:
    report = dict(report)
    report.pop("seconds")
    report["properties"] = [{k: v for k, v in r.items() if k != "seconds"} for r in report["properties"]]
    return report


def test_ecarte_j2_gives_the_serial_report():
    code1, out1, _ = _verify(ECARTE, "--json")
    code2, out2, _ = _verify(ECARTE, "--json", "-j", "2")
    assert code1 == code2 == 1          # Écarté's source allows endless exchanges: two refuted properties
    serial, par = json.loads(out1), json.loads(out2)
    verdicts = [r["verdict"] for r in serial["properties"]]
    assert verdicts.count("refuted") == 2 and verdicts.count("proved") == 14
    assert any(r.get("counterexample", {}).get("kind") == "lasso" for r in serial["properties"])
    # everything but the timings: names in order, verdicts, methods, counterexamples, findings, cross-check, work
    assert _without_timings(par) == _without_timings(serial)


def test_j_must_be_positive():
    code, out, err = _verify(ECARTE, "-j", "0")
    assert code == 2
    assert "-j must be 1 or more" in err and "Traceback" not in err


def test_a_dying_worker_leaves_unknown_verdicts_and_the_others_intact(monkeypatch):
    game = Game(compile_file(SKELETON))
    serial, _ = verify_cli.verify_game(game)
    victim = game.ir.properties[0]

    real = verify_cli.CHECKERS[victim.kind]

    def dies(V, p):
        if p.name == victim.name:
            os._exit(7)          # the worker process is killed in the middle of this check
        return real(V, p)

    monkeypatch.setitem(verify_cli.CHECKERS, victim.kind, dies)
    par, _ = verify_cli.verify_game(Game(compile_file(SKELETON)), jobs=2)
    assert [r.name for r in par][:len(game.ir.properties)] == [p.name for p in game.ir.properties]
    got = {r.name: r for r in par}
    assert got[victim.name].verdict == "unknown"
    assert "worker process died during this check" in got[victim.name].method
    # every other check is run again in a process of its own and keeps its serial verdict
    for r in serial:
        if r.name != victim.name:
            assert (got[r.name].verdict, got[r.name].method) == (r.verdict, r.method), r.name
    assert len(par) == len(serial)


def test_one_unit_runs_without_a_pool():
    game = Game(compile_file(SKELETON))
    names = [game.ir.properties[0].name]
    one, _ = verify_cli.verify_game(game, names, jobs=2)     # a single unit: no pool at all
    ref, _ = verify_cli.verify_game(Game(compile_file(SKELETON)), names)
    assert [(r.name, r.verdict, r.method) for r in one] == [(r.name, r.verdict, r.method) for r in ref]

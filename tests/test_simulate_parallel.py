"""`atout simulate -j N`: matches played in N processes give the records and statistics of a serial run.

Match i draws everything from ``random.Random(f"{seed}:{i}")`` (docs/records.md), so where it is played cannot
change it; the results are taken in match order.  The serial run is the reference.
"""
from __future__ import annotations

import json
import os

import pytest

from atout.cli import main
from conftest import ROOT

RULES = {g: os.path.join(ROOT, "rules", f"{g}.atout") for g in ("ecarte", "whist")}


def _simulate(capsys, tmp_path, game: str, n: int, jobs: int, *extra) -> tuple[dict, bytes]:
    record = tmp_path / f"{game}_{jobs}.jsonl"
    code = main(["simulate", str(RULES[game]), "-n", str(n), "--seed", "11", "--json", "--record", str(record),
                 "-j", str(jobs), *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    stats = json.loads(out)
    assert stats["jobs"] == jobs
    for k in ("seconds", "matches_per_second", "jobs"):
        stats.pop(k)
    return stats, record.read_bytes()


@pytest.mark.parametrize("game, n", [("ecarte", 40), ("whist", 3)])
def test_two_workers_give_the_serial_records_byte_for_byte(capsys, tmp_path, game, n):
    serial, serial_record = _simulate(capsys, tmp_path, game, n, 1, "--bot", "greedy", "--bot", "random")
    parallel, parallel_record = _simulate(capsys, tmp_path, game, n, 2, "--bot", "greedy", "--bot", "random")
    assert parallel_record == serial_record
    assert parallel == serial
    lines = serial_record.decode("utf-8").splitlines()
    assert [json.loads(x)["match"] for x in lines] == list(range(n))     # in match order


def test_more_workers_than_matches_and_bad_values(capsys, tmp_path):
    serial, rec1 = _simulate(capsys, tmp_path, "ecarte", 3, 1)
    parallel, rec8 = _simulate(capsys, tmp_path, "ecarte", 3, 8)
    assert rec8 == rec1 and parallel == serial
    assert main(["simulate", str(RULES["ecarte"]), "-n", "3", "-j", "-1"]) == 2
    assert "-j must be 0" in capsys.readouterr().err

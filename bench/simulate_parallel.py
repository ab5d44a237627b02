"""Matches per second of `atout simulate` with 1 and with N worker processes (`-j N`), same run, same seed.

Parallel simulation is judged by wall time (it spends more CPU, not less): the figure is the speed-up of
`-j N` over `-j 1` measured back to back in this run, and a check that both wrote the same record file.

    python bench/simulate_parallel.py [--games ecarte,whist] [-n 2000] [--jobs 2]
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(game: str, n: int, jobs: int, record: str) -> float:
    """Wall seconds of one `atout simulate` run (start-up included)."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "atout.cli", "simulate", str(ROOT / "rules" / f"{game}.atout"),
                          "-n", str(n), "--seed", "1", "--json", "--record", record, "-j", str(jobs)],
                         capture_output=True, text=True, check=True)
    json.loads(out.stdout)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="ecarte,whist")
    ap.add_argument("-n", type=int, default=0, help="matches per run (default: 2000 Écarté, 40 others)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    print(f"| game | matches | -j 1 (matches/s) | -j {args.jobs} (matches/s) | speed-up | same record |")
    print("|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games.split(","):
            n = args.n or (2000 if game.startswith("ecarte") else 40)
            one, many = os.path.join(tmp, f"{game}_1.jsonl"), os.path.join(tmp, f"{game}_n.jsonl")
            t1 = run(game, n, 1, one)
            tn = run(game, n, args.jobs, many)
            same = filecmp.cmp(one, many, shallow=False)
            print(f"| {game} | {n} | {n / t1:.0f} | {n / tn:.0f} | {t1 / tn:.2f}x | {'yes' if same else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

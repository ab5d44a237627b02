"""Matches per second of `atout simulate` with 1 and with N worker processes (`-j N`), and on Ray (`--ray`),
same run, same seed.

Parallel simulation is judged by wall time (it spends more CPU, not less): the figures are the speed-up of
`-j N` over `-j 1` measured back to back in this run, the Ray path's overhead (its wall time minus `-j N`'s:
Ray starting a local instance with one worker per CPU, then shipping each chunk of matches as a task), and a
check that every run wrote the same record file.  Each run's wall time includes the interpreter's start-up;
"play only" is the command's own `seconds` (the matches, after Ray is up); "Ray start-up" is the Ray run's
wall time outside its matches less the `-j N` run's.

    python bench/simulate_parallel.py [--games ecarte,whist] [-n 2000] [--jobs 2] [--no-ray]
"""
from __future__ import annotations

import argparse
import filecmp
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(game: str, n: int, record: str, *extra: str) -> tuple[float, float]:
    """(wall seconds of one `atout simulate` run, start-up included; its own `seconds`)."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "atout.cli", "simulate", str(ROOT / "rules" / f"{game}.atout"),
                          "-n", str(n), "--seed", "1", "--json", "--quiet", "--record", record, *extra],
                         capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, json.loads(out.stdout)["seconds"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="ecarte,whist")
    ap.add_argument("-n", type=int, default=0, help="matches per run (default: 2000 Écarté, 40 others)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-ray", action="store_true", help="leave out the --ray run")
    args = ap.parse_args(argv)
    ray = not args.no_ray and importlib.util.find_spec("ray") is not None
    if not args.no_ray and not ray:
        print("(ray is not installed: no --ray column; pip install 'atout[ray]')", file=sys.stderr)
    j = args.jobs
    head = f"| game | matches | -j 1 (matches/s) | -j {j} (matches/s) | speed-up |"
    rule = "|---|---:|---:|---:|---:|"
    if ray:
        head += (f" --ray, {os.cpu_count()} CPUs (matches/s) | Ray overhead (s) | Ray start-up (s) |"
                 f" play only, -j {j} / --ray (matches/s) |")
        rule += "---:|---:|---:|---:|"
    print(head + " same record |")
    print(rule + "---|")
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games.split(","):
            n = args.n or (2000 if game.startswith("ecarte") else 40)
            records = {k: os.path.join(tmp, f"{game}_{k}.jsonl") for k in ("1", "j", "ray")}
            t1, _ = run(game, n, records["1"], "-j", "1")
            tj, pj = run(game, n, records["j"], "-j", str(j))
            same = filecmp.cmp(records["1"], records["j"], shallow=False)
            line = f"| {game} | {n} | {n / t1:.0f} | {n / tj:.0f} | {t1 / tj:.2f}x |"
            if ray:
                tr, pr = run(game, n, records["ray"], "--ray")
                same = same and filecmp.cmp(records["1"], records["ray"], shallow=False)
                start = (tr - pr) - (tj - pj)     # time outside the matches, beyond -j's own
                line += f" {n / tr:.0f} | {tr - tj:.1f} | {start:.1f} | {n / pj:.0f} / {n / pr:.0f} |"
            print(f"{line} {'yes' if same else 'NO'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

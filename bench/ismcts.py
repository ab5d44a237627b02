"""Win rate of the ISMCTS bot (``--bot ismcts``) against greedy and random, at a stated search budget.

Seats alternate between matches (the bot is seat 0 in even matches, seat 1 in odd ones; in a partnership game
it holds both seats of one side), so the dealer's advantage cancels.  Match i draws everything from
``random.Random(f"ismcts:{i}")``: the figures are reproducible.

    python bench/ismcts.py [--game ecarte] [--matches 1000] [--iterations 100] [--against greedy,random] [-j 2]
"""
from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


_GAMES: dict = {}


def one(args) -> tuple[int, float]:
    """(1 if the bot's side won match i else 0 (0.5 for a tie), CPU seconds of the match's play)."""
    from atout.engine import load
    from atout.engine.bots import make_bot
    from atout.engine.ismcts import ISMCTSBot
    from atout.engine.simulate import play_match
    game_path, i, iterations, against = args
    if game_path not in _GAMES:   # compiled once per worker process (the CPU figure is the play's alone)
        _GAMES[game_path] = load(game_path)
    game = _GAMES[game_path]
    rng = random.Random(f"ismcts:{i}")
    sides = game.ir.sides
    mine = set(sides[i % 2]) if sides else {i % game.players}
    bots = [ISMCTSBot(rng.randrange(2**32), iterations) if p in mine else make_bot(against, rng.randrange(2**32))
            for p in range(game.players)]
    t0 = time.process_time()
    r = play_match(game, bots, rng).returns
    best = max(r)
    top = {p for p, x in enumerate(r) if x == best}
    won = 1.0 if top <= mine else (0.5 if top & mine else 0.0)
    return won, time.process_time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="ecarte")
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--against", default="greedy,random")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args(argv)
    path = str(ROOT / "rules" / f"{a.game}.atout")
    print(f"| game | against | matches | iterations per move | ISMCTS wins | 95% interval | CPU s per match |")
    print("|---|---|---:|---:|---:|---|---:|")
    for against in a.against.split(","):
        jobs = [(path, i, a.iterations, against) for i in range(a.matches)]
        with ProcessPoolExecutor(a.j) as pool:
            results = list(pool.map(one, jobs, chunksize=4))
        w = sum(x for x, _ in results) / len(results)
        half = 1.96 * math.sqrt(max(w * (1 - w), 1e-9) / len(results))
        cpu = sum(t for _, t in results) / len(results)
        print(f"| {a.game} | {against} | {a.matches} | {a.iterations} | {100 * w:.1f}% | "
              f"{100 * (w - half):.1f}-{100 * (w + half):.1f}% | {cpu:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

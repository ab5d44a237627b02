"""Batch simulation: bots play matches; statistics and records.

A match record (one JSON object per line of a ``--record`` file; see
docs/records.md) holds every step of the match in order::

    {"format": "atout-record/1", "game": "ecarte", "rules": "rules/ecarte.atout",
     "seed": 1, "match": 0, "bots": ["random", "random"],
     "steps": [{"player": -1, "action": 12, "text": "deal 8♥"},
               {"player": 1, "action": 33, "text": "I propose"}, ...],
     "deals": [{"points": [0, 2], "vars": {"exchanges": 1, ...}}, ...],
     "returns": [1.0, -1.0]}

``player`` is the 0-based seat, or -1 for a chance outcome.
"""
from __future__ import annotations

import random
import sys
from collections import Counter
from dataclasses import dataclass, field

from .bots import make_bot
from .evaluate import RuleError
from .game import Game

RECORD_FORMAT = "atout-record/1"
MAX_STEPS_PER_MATCH = 200_000


class MatchTooLong(RuleError):
    """A match still going after ``max_steps`` steps: its 'ends when' may never hold."""


@dataclass
class MatchResult:
    steps: list[dict]
    deals: list[dict]
    returns: list[float]
    rows: Counter = field(default_factory=Counter)     # (table, row) -> times it fired in the match
    final: dict = field(default_factory=dict)          # per-player/per-side int match variable -> final values

    def record(self, game: Game, rules: str, seed: int | None, index: int, bots: list[str],
               options: dict[str, str] | None = None) -> dict:
        """The match as a record (docs/records.md); ``options`` (set by ``--option``) are kept only when some
        were set, so that a record of the rule file as written has no ``options`` field."""
        rec = {"format": RECORD_FORMAT, "game": game.name, "rules": rules, "seed": seed, "match": index,
               "bots": bots}
        if options:
            rec["options"] = dict(options)
        rec.update({"steps": self.steps, "deals": self.deals, "returns": self.returns})
        return rec


def play_match(game: Game, bots: list, rng: random.Random, max_steps: int = MAX_STEPS_PER_MATCH) -> MatchResult:
    """Play one match: chance outcomes drawn from ``rng``, seat ``p`` played by ``bots[p]``."""
    state = game.new_initial_state()
    steps: list[dict] = []
    deals: list[dict] = []
    rows: Counter = Counter()
    seen_deals = 0

    def scored(table, fired):
        for r in fired:
            rows[(table, r)] += 1
    state.on_score = scored
    while not state.is_terminal():
        if len(steps) >= max_steps:
            raise MatchTooLong(f"the match has not ended after {max_steps} steps ({state.deal_number} deals): "
                               f"can its 'ends when' ever hold?", state.game.ir.match.span)
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = outcomes[rng.randrange(len(outcomes))][0]
            player = -1
        else:
            player = state.current_player()
            action = bots[player].step(state)
        text = state.action_to_string(action)
        state.apply_action(action)
        steps.append({"player": player, "action": action, "text": text})
        if len(state.deal_log) > seen_deals:
            seen_deals = len(state.deal_log)
            deals.append(state.deal_log[-1])
    final = {v.name: list(state.vars[v.name]) for v in game.ir.vars
             if v.scope == "match" and v.per is not None and v.type.kind == "int"}
    return MatchResult(steps, deals, state.returns(), rows, final)


@dataclass
class Stats:
    """Statistics of simulated matches.  ``sides`` (the game's partnerships, if any): a match whose
    best result is shared by exactly the members of one side is a win for that side (``"side 0 2"``),
    not a tie."""
    players: int
    matches: int = 0
    wins: Counter = field(default_factory=Counter)
    deals_per_match: Counter = field(default_factory=Counter)
    points_per_deal: Counter = field(default_factory=Counter)  # total points awarded in a deal
    max_points_per_player: int = 0
    deal_vars: dict[str, Counter] = field(default_factory=dict)
    final_scores: list[list[int]] = field(default_factory=list)
    actions: int = 0
    sides: tuple[tuple[int, ...], ...] = ()
    rows: Counter = field(default_factory=Counter)          # (table, row) -> times fired
    deals_scored: Counter = field(default_factory=Counter)  # table -> deals where it was scored
    gain_sums: dict = field(default_factory=dict)           # match variable -> summed gain per seat or side
    final_sums: dict = field(default_factory=dict)          # match variable -> summed final value per seat/side
    per: dict = field(default_factory=dict)                 # match variable -> "player" or "side"

    def add(self, result: MatchResult) -> None:
        self.matches += 1
        best = max(result.returns)
        winners = sorted(p for p, r in enumerate(result.returns) if r == best)
        if len(winners) == 1:
            self.wins[winners[0]] += 1
        elif any(sorted(side) == winners for side in self.sides):
            self.wins["side " + " ".join(str(p) for p in winners)] += 1
        else:
            self.wins["tie"] += 1
        self.deals_per_match[len(result.deals)] += 1
        for d in result.deals:
            self.points_per_deal[sum(d["points"])] += 1
            self.max_points_per_player = max(self.max_points_per_player, *d["points"])
            for k, v in d["vars"].items():
                self.deal_vars.setdefault(k, Counter())[v] += 1
            for name, g in (d.get("gains") or {}).items():
                acc = self.gain_sums.setdefault(name, [0] * len(g))
                for i, x in enumerate(g):
                    acc[i] += x
        for name, vals in result.final.items():
            acc = self.final_sums.setdefault(name, [0] * len(vals))
            for i, x in enumerate(vals):
                acc[i] += x
        self.rows.update(result.rows)
        self.actions += len(result.steps)

    def as_json(self) -> dict:
        deals = sum(self.deals_per_match.values()) and sum(k * v for k, v in self.deals_per_match.items())
        return {
            "matches": self.matches,
            "wins_by_seat": {str(k): v for k, v in sorted(self.wins.items(), key=lambda kv: str(kv[0]))},
            "deals": deals,
            "deals_per_match": {"mean": deals / self.matches if self.matches else 0.0,
                                "min": min(self.deals_per_match) if self.deals_per_match else 0,
                                "max": max(self.deals_per_match) if self.deals_per_match else 0,
                                "histogram": {str(k): v for k, v in sorted(self.deals_per_match.items())}},
            "points_per_deal": {"histogram": {str(k): v for k, v in sorted(self.points_per_deal.items())},
                                "min": min(self.points_per_deal) if self.points_per_deal else 0,
                                "max": max(self.points_per_deal) if self.points_per_deal else 0,
                                "max_for_one_player": self.max_points_per_player},
            "deal_variables": {k: {"mean": sum(x * n for x, n in c.items()) / sum(c.values()),
                                   "histogram": {str(x): n for x, n in sorted(c.items())}}
                               for k, c in sorted(self.deal_vars.items())},
            "actions": self.actions,
            "scoring_rows": {f"{t}.{r}": n for (t, r), n in sorted(self.rows.items())},
            "match_variables": {
                name: {"per": self.per.get(name, "player"),
                       "mean_gain_per_deal": [round(x / deals, 4) if deals else 0.0 for x in acc],
                       "mean_at_end": [round(x / self.matches, 4) if self.matches else 0.0
                                       for x in self.final_sums.get(name, [])]}
                for name, acc in sorted(self.gain_sums.items())},
        }


def _play_indexed(game: Game, i: int, seed: int | None, bot_names: list[str]) -> MatchResult:
    """Match ``i`` of a run with ``seed``: its chance outcomes and its bots' seeds come from
    ``random.Random(f"{seed}:{i}")`` alone, so it is the same match in any process, in any order."""
    rng = random.Random(f"{seed}:{i}")
    bots = [make_bot(bot_names[p % len(bot_names)], rng.randrange(2**32)) for p in range(game.players)]
    return play_match(game, bots, rng)


def simulate(game: Game, n: int, seed: int | None, bot_names: list[str], on_match=None, jobs: int = 1) -> Stats:
    """Play ``n`` matches; match ``i`` uses seed ``(seed, i)`` so any match can be replayed alone.

    ``jobs`` > 1 plays them in that many worker processes; the results are taken in match order, so the
    statistics and ``on_match(i, result)`` calls (the records) are exactly those of a serial run.  A rule error
    in a worker is raised here (with its message and location).
    """
    stats = Stats(game.players, sides=game.ir.sides,
                  per={v.name: v.per for v in game.ir.vars if v.scope == "match" and v.per is not None})
    results = _parallel(game, n, seed, bot_names, jobs) if jobs > 1 and n > 1 else \
        (_play_indexed(game, i, seed, bot_names) for i in range(n))
    for i, result in enumerate(results):
        stats.add(result)
        if on_match is not None:
            on_match(i, result)
    return stats


#: Matches per task sent to a worker: large enough to amortise the transfer, small enough for a smooth
#: progress bar and a bounded memory of results waiting to be taken in order.
CHUNK = 16

_WORKER: dict = {}


def _worker_init(ir_game) -> None:
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)      # ctrl-C is the parent's to handle
    _WORKER["game"] = Game(ir_game)


def _worker_chunk(start: int, stop: int, seed, bot_names) -> list[MatchResult]:
    game = _WORKER["game"]
    return [_play_indexed(game, i, seed, bot_names) for i in range(start, stop)]


def _parallel(game: Game, n: int, seed, bot_names: list[str], jobs: int):
    """Yield the results of matches 0..n-1 in order, played by ``jobs`` processes, at most ``2 * jobs`` chunks
    ahead of the consumer."""
    import multiprocessing
    from collections import deque
    from concurrent.futures import ProcessPoolExecutor
    ctx = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init,
                             initargs=(game.ir,)) as pool:
        pending: deque = deque()
        starts = iter(range(0, n, CHUNK))
        try:
            for start in starts:
                pending.append(pool.submit(_worker_chunk, start, min(n, start + CHUNK), seed, bot_names))
                if len(pending) >= 2 * jobs:
                    break
            while pending:
                chunk = pending.popleft().result()
                nxt = next(starts, None)
                if nxt is not None:
                    pending.append(pool.submit(_worker_chunk, nxt, min(n, nxt + CHUNK), seed, bot_names))
                yield from chunk
        finally:
            for f in pending:
                f.cancel()

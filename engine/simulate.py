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
from contextlib import contextmanager
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
    try:
        return play_match(game, bots, rng)
    except RuleError as exc:
        exc.match_index, exc.seed = i, seed      # what reproduces it (the CLI says so)
        raise


def simulate(game: Game, n: int, seed: int | None, bot_names: list[str], on_match=None, jobs: int = 1,
             ray: bool = False, ray_address: str | None = None) -> Stats:
    """Play ``n`` matches; match ``i`` uses seed ``(seed, i)`` so any match can be replayed alone.

    ``jobs`` > 1 plays them in that many worker processes; ``ray`` plays them as Ray tasks, on the cluster at
    ``ray_address`` or on a local Ray instance (see ``ray_session``).  Either way the results are taken in
    match order, so the statistics and ``on_match(i, result)`` calls (the records) are exactly those of a
    serial run.  A rule error in a worker is raised here (with its message and location); ``RayUnavailable``
    when Ray is not installed or cannot be started or reached.
    """
    stats = Stats(game.players, sides=game.ir.sides,
                  per={v.name: v.per for v in game.ir.vars if v.scope == "match" and v.per is not None})
    if ray:
        results = _on_ray(game, n, seed, bot_names, ray_address)
    elif jobs > 1 and n > 1:
        results = _parallel(game, n, seed, bot_names, jobs)
    else:
        results = (_play_indexed(game, i, seed, bot_names) for i in range(n))
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


def _worker_chunk(start: int, stop: int, seed, bot_names, ir_game=None) -> list[MatchResult]:
    """Matches ``start .. stop - 1`` of the run: the one chunk worker of both the process pool and Ray.

    ``ir_game``: the game's IR, for a worker that was not set up by ``_worker_init`` (a Ray task, whose
    argument Ray fetches from its object store); a pool worker has its game from its initializer."""
    game = _WORKER["game"] if ir_game is None else Game(ir_game)
    return [_play_indexed(game, i, seed, bot_names) for i in range(start, stop)]


def _in_order(n: int, window: int, submit, take, cancel):
    """Yield the results of matches 0..n-1 in order.  Chunks of ``CHUNK`` matches are handed out with
    ``submit(start, stop) -> handle``, at most ``window`` chunks ahead of the consumer; ``take(handle)`` waits
    for a chunk's list of results; ``cancel(handle)`` drops a chunk not taken (the consumer stopped early or
    an error is on its way up)."""
    from collections import deque
    pending: deque = deque()
    starts = iter(range(0, n, CHUNK))
    try:
        for start in starts:
            pending.append(submit(start, min(n, start + CHUNK)))
            if len(pending) >= window:
                break
        while pending:
            chunk = take(pending.popleft())
            nxt = next(starts, None)
            if nxt is not None:
                pending.append(submit(nxt, min(n, nxt + CHUNK)))
            yield from chunk
    finally:
        for handle in pending:
            cancel(handle)


def _parallel(game: Game, n: int, seed, bot_names: list[str], jobs: int):
    """Yield the results of matches 0..n-1 in order, played by ``jobs`` processes, at most ``2 * jobs`` chunks
    ahead of the consumer."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    ctx = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init,
                             initargs=(game.ir,)) as pool:
        yield from _in_order(n, 2 * jobs,
                             lambda start, stop: pool.submit(_worker_chunk, start, stop, seed, bot_names),
                             lambda fut: fut.result(), lambda fut: fut.cancel())


# --- Ray -----------------------------------------------------------------------------------------------

RAY_HINT = "install it with: pip install 'atout[ray]'"


class RayUnavailable(Exception):
    """Ray is not installed, or the cluster cannot be reached or started (the command line: exit 2)."""


def _check_ray_address(address: str | None) -> None:
    """Refuse a malformed address, or one where nothing listens, before ``ray.init`` (which, given an address
    where no cluster answers, retries for many minutes).  ``None``, ``"auto"`` and ``"local"`` are Ray's to
    resolve; ``ray://HOST:PORT`` (Ray Client) is checked like ``HOST:PORT``."""
    import socket
    if address is None or address in ("auto", "local"):
        return
    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RayUnavailable(f"Ray address '{address}': write HOST:PORT (the head node's address, as "
                             f"`ray start --head` prints it, e.g. 127.0.0.1:6379), 'auto' (the cluster "
                             f"started on this machine), or give --ray alone to start Ray here")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise RayUnavailable(f"cannot reach a Ray cluster at {address}: {exc.strerror or exc} (is "
                             f"`ray start --head` running there? give --ray alone to start Ray here)") from None


@contextmanager
def ray_session(address: str | None = None, quiet: bool = False):
    """Connect to Ray for the ``with`` block and yield the number of CPUs the cluster offers.

    ``address``: a running cluster's (``ray.init(address=...)``: ``HOST:PORT``, ``auto``, ``ray://...``);
    ``None``: Ray's default (the cluster named by ``RAY_ADDRESS`` if set, else a new local instance, stopped
    at the end).  A process already connected (it called ``ray.init`` itself) keeps its connection: it is
    used as it is and left open.  ``quiet``: Ray logs only errors.  Raises ``RayUnavailable`` when Ray is not
    installed, the address is malformed or unreachable, or ``ray.init`` fails."""
    import logging
    import os
    try:
        import ray
    except ImportError:
        raise RayUnavailable(f"--ray needs Ray, which is not installed: {RAY_HINT}") from None
    _check_ray_address(address if address is not None else os.environ.get("RAY_ADDRESS"))
    started = False
    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.ERROR if quiet else logging.INFO)
        except Exception as exc:  # noqa: BLE001 - ray raises ConnectionError, RuntimeError, ValueError ...
            where = f"the Ray cluster at {address}" if address else "Ray"
            raise RayUnavailable(f"could not start or reach {where}: {exc}") from None
        started = True
    try:
        yield int(ray.cluster_resources().get("CPU", 1))
    finally:
        if started:
            ray.shutdown()


def _on_ray(game: Game, n: int, seed, bot_names: list[str], address: str | None):
    """Yield the results of matches 0..n-1 in order, played as Ray tasks (``_worker_chunk``, one task per
    chunk), at most two chunks per cluster CPU ahead of the consumer."""
    with ray_session(address) as cpus:
        import ray
        task = ray.remote(_worker_chunk)
        ir_ref = ray.put(game.ir)      # stored once; each task reads it from the object store

        def cancel(ref):
            try:
                ray.cancel(ref)
            except Exception:  # noqa: BLE001, S110 - already finished, or Ray is going down: nothing to cancel
                pass

        def take(ref):
            try:
                return ray.get(ref)
            except ray.exceptions.RayTaskError as exc:   # a rule error in a task: raised as it was raised there
                if isinstance(getattr(exc, "cause", None), Exception):
                    raise exc.cause from None
                raise
        yield from _in_order(n, 2 * max(1, cpus),
                             lambda start, stop: task.remote(start, stop, seed, bot_names, ir_ref), take, cancel)

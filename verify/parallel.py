"""``atout verify -j N``: the checks of a run in N processes, with the verdicts of the serial run.

The run first makes, in this process and in the serial order, the explorations the checks will read (each
property's :meth:`Verifier.spec_for`, and the built-in checks' one).  Then N worker processes are forked:
each inherits those explorations (copy-on-write, nothing is sent) and takes the next check from a queue --
one property of the rule file or one built-in check -- so a long concrete search for a counterexample does
not hold the others up.  Only the results travel back, and they are put in the serial
order.  The findings and the cross-check then run here, on the same explorations, as in a serial run.

Why the verdicts are those of ``-j 1``: an exploration is a function of its key and of the budget (state
counts, z3 resource limits, step counts; never the clock, see :class:`.checker.Budget`), and each check reads
only explorations and the game, so it computes the same result in whichever process runs it.  Only the
timings differ, and the work counts when a worker needs an exploration not made beforehand (it makes its
own; the cross-check here then makes it again).

Forking needs the ``fork`` start method (Linux; not macOS or Windows): without it the checks run serially.
The workers leave with ``os._exit`` (multiprocessing's fork start method does so), skipping the teardown of
the inherited heap.
"""
from __future__ import annotations

import multiprocessing
import sys

_UNITS: list = []      # the checks of the run in progress (read by the forked workers)
_VERIFIER = None


def can_fork() -> bool:
    """Whether this platform can fork workers that inherit the explorations."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def prefetch(V, props, run_builtins: bool, progress=None) -> None:
    """Make the explorations the checks of ``props`` (and the built-in checks) read, in the serial order.  A
    failure here is left for the check itself to meet and report; nothing starts once the budget's wall-clock
    safety has expired."""
    from atout.compiler import ir

    from .properties import ladder_specs
    if progress:
        progress("exploring")
    wanted = list(props) + ([ir.Property("builtin", "reachable")] if run_builtins else [])
    for p in wanted:
        if V.budget.expired():
            return
        if V.proved_by_sizes(p) is not None:
            continue   # proved without exploring
        # a check over the gains starts on the cheapest exploration that watches them (and goes on to the
        # next, in its worker, only if that one does not decide it)
        spec = ladder_specs(V, p)[0] if p.kind in ("deal_bound", "complete") else V.spec_for(p)
        try:
            V.exploration(spec)
        except Exception:  # noqa: BLE001 (the check that needs it reports it, as in a serial run)
            pass


def _run(i: int):
    """Worker: check unit ``i``; ``(its result, the work counts it added)``."""
    V = _VERIFIER
    V.progress = lambda msg: None   # the terminal's spinner belongs to the parent (its lock may be held)
    before = dict(V.work)
    result = _UNITS[i]()
    return result, {k: V.work[k] - before.get(k, 0) for k in V.work}


def run_checks(V, units: list, jobs: int) -> list:
    """Run ``units`` (:class:`Unit`) in ``jobs`` forked workers; their results in the order of ``units``.
    The work counts the workers added are added to ``V.work``.

    A worker that dies (killed for memory, a crash in a native library) breaks the pool: the units it left
    unfinished are then run again one by one, each in a process of its own, so that only the unit that kills
    its process ends unknown, saying so."""
    global _UNITS, _VERIFIER
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from .checker import Result
    _UNITS, _VERIFIER = units, V
    fork = multiprocessing.get_context("fork")
    out: list = [None] * len(units)

    def take(i, result, added):
        for k, v in added.items():
            V.work[k] = V.work.get(k, 0) + v
        out[i] = result

    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(units)), mp_context=fork) as pool:
            futures = [pool.submit(_run, i) for i in range(len(units))]
            for i, f in enumerate(futures):
                try:
                    take(i, *f.result())
                except BrokenProcessPool:
                    pass
        for i in [i for i, r in enumerate(out) if r is None]:
            try:
                with ProcessPoolExecutor(max_workers=1, mp_context=fork) as alone:
                    take(i, *alone.submit(_run, i).result())
            except BrokenProcessPool:
                why = "the verifier failed: its worker process died during this check (run again with -j 1)"
                take(i, Result(units[i].name, units[i].kind, "unknown", why), {})
    finally:
        _UNITS, _VERIFIER = [], None
    return out


class Unit:
    """One check of a run: ``unit()`` returns its Result; ``name`` and ``kind`` name it should its worker die."""
    __slots__ = ("name", "kind", "fn")

    def __init__(self, name: str, kind: str, fn):
        self.name, self.kind, self.fn = name, kind, fn

    def __call__(self):
        return self.fn()

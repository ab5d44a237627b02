"""Mutation testing of the verifier (issue 8): single-fault variants of the shipped games, each verified and
then searched concretely (the engine, without the abstraction) for a violation of every property.  A
property proved and concretely violated is a false proof; a refutation whose counterexample does not replay
to a violation is a false refutation.  There must be none.

CI runs MUTANTS_IN_CI mutants of the games that verify in seconds; ``ATOUT_MUTANTS=N`` runs N, spread over
every shipped game.  The report (printed with ``pytest -s``) gives the kill rate: refuted / concretely
violated."""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

from atout.compiler import compile_file
from atout.verify.mutation import mutants, report, run_mutant

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAST = ["ecarte.atout", "ecarte_classic.atout", "ecarte_ew.atout", "solo_whist.atout"]
SHARE = {"ecarte.atout": 34, "ecarte_classic.atout": 12, "ecarte_ew.atout": 8, "solo_whist.atout": 6}
MUTANTS_IN_CI = sum(SHARE.values())


def _plan():
    n = int(os.environ.get("ATOUT_MUTANTS", "0"))
    if n <= 0:
        return [(f, k) for f, k in SHARE.items()]
    files = sorted(f for f in os.listdir(os.path.join(ROOT, "rules")) if f.endswith(".atout"))
    return [(f, n // len(files) + (1 if i < n % len(files) else 0)) for i, f in enumerate(files)]


def _run(args):
    path, index, count, seed = args
    game = compile_file(path)
    m = mutants(game, count, seed=seed)[index]     # the same list of `count` mutants in every worker
    r = run_mutant(m, oracle_matches=120, seed=seed)
    return r


def test_no_false_proof_no_false_refutation():
    jobs = []
    for f, k in _plan():
        for i in range(k):
            jobs.append((os.path.join(ROOT, "rules", f), i, k, 1))
    workers = min(2, os.cpu_count() or 1)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_run, jobs))
    text = report(results)
    print("\n" + text)
    valid = [r for r in results if not r.invalid]
    assert len(valid) >= 0.9 * len(results), [r.invalid for r in results if r.invalid]
    assert len(results) >= MUTANTS_IN_CI or os.environ.get("ATOUT_MUTANTS")
    assert not any(r.false_proofs for r in valid), text
    assert not any(r.false_refutations for r in valid), text
    # the verifier catches faults: most concretely violated properties are refuted
    violated = sum(len(r.violated) for r in valid)
    killed = sum(len(r.killed()) for r in valid)
    assert violated and killed >= 0.6 * violated, text

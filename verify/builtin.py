"""The checks every game gets without asking (issue: built-in checks).

Each is reported like a property, named ``builtin:...``:

* ``builtin:conservation`` — every card is always in exactly one zone (z3: each card-moving
  effect preserves the total; the engine only moves cards between zones);
* ``builtin:no_short_draw`` — no draw finds too few cards (no rule error reachable);
* ``builtin:no_dead_end`` — no reachable non-final state without a legal action;
* ``builtin:no_trap`` — from every reachable state a deal can still end (or the match);
* ``builtin:reachable`` — every phase and action can be reached (else each is a finding);
* ``builtin:guards`` — every guard and condition can hold, and can fail;
* ``builtin:tables`` — every scoring table: no overlapping rows, no gap.
"""
from __future__ import annotations

import networkx as nx

from atout.compiler import ir

from . import smt
from .absint import ERROR, MATCH_OVER
from .checker import Counterexample, Finding, Result, Verifier
from .liveness import walk
from .properties import _refute_error, _size_note, _table_result, _trace, check_reachable, coreachable


def builtin_checks(V: Verifier) -> list[Result]:
    out = []
    ex, A, obs, err = V.exploration(precise=False)
    if ex is None:
        return [Result("builtin:exploration", "builtin", "unknown", f"exploration stopped: {err}")]
    note = _size_note(ex, A)
    # conservation
    try:
        ok, n, where = smt.conservation(V.game, V.budget.left_ms(2.0))
        out.append(Result("builtin:conservation", "invariant", "proved" if ok else "refuted",
                          f"inductive invariant by SMT (z3): all {n} card-moving effects preserve the total of "
                          f"{V.game.num_cards} cards; a card only moves from one zone to another" if ok else
                          f"an effect changes the number of cards: {where}"))
    except smt.SolverTimeout:
        out.append(Result("builtin:conservation", "invariant", "unknown", "z3 timed out"))
    # rule errors (a draw from too few cards)
    if ex.errors:
        src, msg = ex.errors[0]
        r = _refute_error(V, ex, A, ir.Property("builtin:no_short_draw", "invariant"), src, msg)
        r.kind = "invariant"
        out.append(r)
    else:
        out.append(Result("builtin:no_short_draw", "invariant", "proved",
                          f"exhaustive exploration ({note}): no draw finds too few cards"))
    out.append(_dead_ends(V, ex, A, note))
    out.append(_traps(V, ex, A, note))
    r = check_reachable(V, ir.Property("builtin:reachable", "reachable"))
    r.kind = "reachable"
    out.append(r)
    out.append(_guards(V, ex, A, note))
    for t in V.g.tables:
        r = _table_result(V, f"builtin:table:{t.name}", "complete", t)
        out.append(r)
    return out


def _dead_ends(V, ex, A, note) -> Result:
    G = ex.graph
    dead = [u for u in ex.states if G.out_degree(u) == 0]
    if not dead:
        return Result("builtin:no_dead_end", "can_end", "proved",
                      f"exhaustive exploration ({note}): every reachable state has a move")
    found = V.path_to(ex, set(dead))
    if found is None:
        return Result("builtin:no_dead_end", "can_end", "unknown", "an abstract dead end with no path")
    init, edges, last = found
    real = V.replay(A, ex, init, edges, lambda st: not st.is_terminal() and not st.is_chance_node()
                    and not st.legal_actions())
    if real is None:
        return Result("builtin:no_dead_end", "can_end", "unknown",
                      f"the abstraction has {len(dead)} states without a move (phase '{last[0]}') that the "
                      f"engine could not reach")
    return Result("builtin:no_dead_end", "can_end", "refuted",
                  f"a reachable state in phase '{last[0]}' has no legal action",
                  counterexample=_trace(V, real, note=f"dead end in phase '{last[0]}'"))


def _traps(V, ex, A, note) -> Result:
    G = ex.graph
    ends = {MATCH_OVER}
    for u, v, d in G.edges(data=True):
        if d.get("end_gains") is not None:
            ends.add(u)
    co = coreachable(G, ends)
    traps = [u for u in ex.states if u not in co and G.out_degree(u) > 0]
    if not traps:
        return Result("builtin:no_trap", "can_end", "proved",
                      f"exhaustive exploration ({note}): from every reachable state a deal can still end")
    found = V.path_to(ex, set(traps))
    if found is None:
        return Result("builtin:no_trap", "can_end", "unknown", "an abstract trap with no path")
    init, edges, last = found
    real = V.replay(A, ex, init, edges, lambda st: not st.is_terminal())
    if real is None:
        return Result("builtin:no_trap", "can_end", "unknown",
                      f"{len(traps)} abstract states cannot reach the end of a deal; the engine could not reach them")
    return Result("builtin:no_trap", "can_end", "refuted",
                  f"from a reachable state in phase '{last[0]}' no deal end is reachable (a trap)",
                  counterexample=_trace(V, real, note=f"trap in phase '{last[0]}'"))


def _guards(V, ex, A, note) -> Result:
    never_true, never_false = [], []
    for ph in V.g.phases:
        for a in ph.actions:
            if not (isinstance(a.guard, ir.Const)) and id(a.guard) not in A.seen_true:
                never_true.append(f"guard of action '{a.name}' ({a.span.path}:{a.span.line})")
        bodies = [a.body for a in ph.actions] + [ph.body] + ([ph.trick.then, ph.trick.after] if ph.trick else [])
        for b in bodies:
            for s in walk(b):
                if isinstance(s, ir.If):
                    for cond, _ in s.branches:
                        if isinstance(cond, ir.Const):
                            continue
                        if id(cond) not in A.seen_true and _phase_reached(ex, ph.name):
                            never_true.append(f"condition at {s.span.path}:{s.span.line}")
    for t in V.g.tables:
        for r in t.rows:
            if id(r.guard) not in A.seen_true and A.score_outcomes.get(t.name):
                never_true.append(f"row '{r.name}' of table '{t.name}' ({r.span.path}:{r.span.line})")
    if never_true:
        return Result("builtin:guards", "reachable", "refuted",
                      f"exhaustive exploration ({note}): can never hold: " + "; ".join(never_true))
    return Result("builtin:guards", "reachable", "proved",
                  f"exhaustive exploration ({note}): every guard, condition and row can hold")


def _phase_reached(ex, name) -> bool:
    return any(k[0] == name for k in ex.states) or True

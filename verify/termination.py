"""Termination: ``terminates {PHASES}`` and ``terminates match``.

A loop terminates when the abstract graph restricted to its phases has no cycle (every concrete run maps
to an abstract path, and a finite graph without a cycle has no infinite path); a linear ranking function
found by z3 then says *why*.  A cycle is a candidate lasso, reported only once the engine replayed it three
times and every guard on it is decided exactly by the abstraction.  A match terminates when no deal can
go on for ever and the number of deals is bounded (a ranking function over deals, checked by z3).
"""
from __future__ import annotations

import networkx as nx

from atout.compiler import ir
from atout.compiler.resolve import fold_int

from . import smt
from .absint import _width
from .checker import TIMEOUT_NOTE, Counterexample, Result, Spec, Verifier, without_cyclic_gc
from .properties import phase_of, size_note, stopped
from .values import ERROR, MATCH_OVER, Interval, is_interval


def _features(A, w) -> dict:
    f = {}
    for i, slot in enumerate(A.slots):
        if w.sizes[i] >= 0:
            f[f"size({slot.label})"] = w.sizes[i]
    for name, v in w.vars.items():     # numbers only: a seat, a suit or a card is a label, not an amount
        decl = A.var_types.get(name)
        if decl is not None and decl.type.kind == "int" and isinstance(v, int) and not isinstance(v, bool) and \
                not is_interval(v):
            f[name] = v
    if w.selecting is not None:
        f["chosen"] = w.selecting[1]
    return f


@without_cyclic_gc()   # a graph of the loop's nodes and edges, no cycles: nothing to collect
def find_lasso(V, ex, nodes: set, edge_ok=None):
    """A reachable cycle inside ``nodes`` (keys of ``ex.states``) over the edges ``edge_ok(source, edge data)``
    accepts (None: every edge): ``((init, prefix edges, cycle edges) or None, H)``, ``H`` the loop's DiGraph
    over the nodes' positions in ``ex.states`` (:meth:`.explore.Explored.index`: small ints, cheap to hash),
    with at most one edge per pair, the first accepted in the graph's edge order."""
    keys, idx = ex.index()
    inside = [k in nodes for k in keys]
    H = nx.DiGraph()
    H.add_nodes_from(i for i, here in enumerate(inside) if here)   # exploration order: deterministic
    data = {}      # (i, j) -> the first edge from keys[i] to keys[j] that edge_ok accepts, in edge order
    for u, nbrs in ex.graph.adjacency():
        i = idx.get(u)
        if i is None or not inside[i]:
            continue
        for v, keyed in nbrs.items():
            j = idx.get(v)
            if j is not None and inside[j]:
                if edge_ok is None:
                    data[(i, j)] = next(iter(keyed.values()))
                    continue
                for d in keyed.values():
                    if edge_ok(u, d):
                        data[(i, j)] = d
                        break
    H.add_edges_from(data)
    cyc_nodes = set()
    comps = list(nx.strongly_connected_components(H))
    for comp in comps:
        if len(comp) > 1 or any(H.has_edge(u, u) for u in comp):
            cyc_nodes |= comp
    if not cyc_nodes:
        return None, H
    found = V.path_to(ex, {keys[i] for i in cyc_nodes})
    if found is None:
        return None, H
    init, prefix, head_key = found
    head = idx[head_key]
    comp = next(c for c in comps if head in c)
    sub = H.subgraph(comp)
    best = None
    for v in sub.successors(head):
        if v == head:
            best = [head, head]
            break
        try:
            path = nx.shortest_path(sub, v, head)
        except nx.NetworkXNoPath:
            continue
        if best is None or len(path) + 1 < len(best):
            best = [head] + path
    edges = [data[(a, b)] for a, b in zip(best, best[1:])]
    return (init, prefix, edges), H


def _sure_exact(d) -> bool:
    return bool(d["exact"]) and bool(d.get("sure", True))


def _lasso_counterexample(V, real, n_prefix, n_cycle, note):
    decisions = [i for i, s in enumerate(real.steps) if s["player"] >= 0]
    if len(decisions) < 3 * n_cycle:
        cyc = 0
    else:
        cyc = (len(real.steps) - decisions[-3 * n_cycle]) // 3
    start = len(real.steps) - 3 * cyc if cyc else None
    return Counterexample("lasso", real.steps, start, cyc, note,
                          V.play_by_play(real.steps[:start + cyc] if cyc else real.steps,
                                         start=max(0, start - 3) if cyc else 0)), cyc


def check_terminates(V: Verifier, prop: ir.Property) -> Result:
    ex, A, err = V.exploration(V.spec_for(prop))
    if ex is None:
        return stopped(prop.name, prop.kind, err)
    nodes = {k for k in ex.states if phase_of(k) in prop.phases}
    lasso, H = find_lasso(V, ex, nodes)
    if lasso is None and not nodes:
        return Result(prop.name, prop.kind, "proved",
                      f"exhaustive exploration ({size_note(ex, A)}): no decision is taken in "
                      f"{{{', '.join(prop.phases)}}}; play rests there at most at chance nodes inside a move, and "
                      f"automatic phases that could go round through chance would have stopped the exploration "
                      f"(unknown), so no play stays there for ever")
    if lasso is None:
        # acyclic: explain with a ranking function found by z3
        keys = ex.index()[0]
        feats: dict = {}     # per node, computed once (a node is the end of many edges)
        for u in H:
            feats[u] = _features(A, ex.states[keys[u]])
        edges = [(feats[u], keys[u][0], feats[v], keys[v][0]) for u, v in H.edges()]
        common = sorted(set.intersection(*[set(e[0]) & set(e[2]) for e in edges])) if edges else []
        rank = smt.ranking_function(edges, common, V.budget.rlimit) if edges else None
        longest = nx.dag_longest_path_length(H) if H.number_of_nodes() else 0
        if rank is not None:
            return Result(prop.name, prop.kind, "proved",
                          f"ranking function r = {rank} (found by z3): r >= 0 and r decreases by at least 1 on "
                          f"each of the {len(edges)} transitions of the loop in the over-approximating "
                          f"abstraction ({size_note(ex, A)})")
        return Result(prop.name, prop.kind, "proved",
                      f"exhaustive exploration: the loop has no cycle in the over-approximating abstraction "
                      f"({size_note(ex, A)}); every path leaves it within {longest} moves")
    # a move may rest at a chance node of another phase on its way (a do phase's 'random'): play leaves the
    # phases there, so a counterexample is a cycle of moves that rest nowhere else (ex.chance_rests)
    phases = set(prop.phases)
    if any(u in nodes and phs - phases for (u, _), phs in ex.chance_rests.items()):
        lasso, _ = find_lasso(V, ex, nodes, edge_ok=lambda u, d: not ex.chance_rests.get((u, d["move"]), phases) -
                              phases)
    if lasso is None:
        return Result(prop.name, prop.kind, "unknown",
                      f"every cycle of the loop in the abstraction ({size_note(ex, A)}) has a move that may rest "
                      f"at a chance node of another phase on its way (play leaves the phases there), and the "
                      f"abstraction does not tell which of the move's outcomes do")
    init, prefix, cycle = lasso
    exact = all(_sure_exact(d) for d in cycle)
    real = V.replay(A, ex, init, prefix + cycle, lambda st: st.phase in prop.phases,
                    extra_cycles=2, cycle_from=len(prefix))
    if real is None:
        return Result(prop.name, prop.kind, "unknown",
                      f"the abstraction has a cycle in the loop ({len(cycle)} moves) that the engine could not "
                      f"replay")
    note = (f"after the prefix, a cycle of {len(cycle)} decisions returns to the same abstract state (zone "
            f"sizes, and variables as the abstraction keeps them: a counter compared only with small constants "
            f"is kept as an interval); the engine replayed it 3 times")
    if exact:
        note += "; every guard on it depends only on what the abstraction tracks exactly, so it can repeat " \
                "for ever"
    ce, _ = _lasso_counterexample(V, real, len(prefix), len(cycle), note)
    return Result(prop.name, prop.kind, "refuted" if exact else "unknown",
                  "lasso: a reachable cycle of the loop, replayed by the engine" if exact else
                  "a cycle whose guards the abstraction cannot decide exactly", counterexample=ce)


class _Expired(Exception):
    """The wall-clock safety (--timeout) fired while z3 bounded what the deals add (:func:`_deal_count_on`)."""


def _deadline(V: Verifier) -> None:
    if V.budget.expired():
        raise _Expired()


def check_match_terminates(V: Verifier, prop: ir.Property) -> Result:
    ex, A, err = V.exploration(V.spec_for(prop))
    if ex is None:
        return stopped(prop.name, prop.kind, err)
    nodes = set(ex.states)
    lasso, H = find_lasso(V, ex, nodes, edge_ok=lambda u, d: d.get("end_gains") is None)
    try:
        bound = deal_count_bound(V)
    except _Expired:
        return Result(prop.name, prop.kind, "unknown", f"{TIMEOUT_NOTE} (z3 was bounding what each deal adds, for "
                      f"a bound on the number of deals)")
    bound_text = f"; if every deal ends, the match ends within {bound}" if bound else ""
    if lasso is not None:
        init, prefix, cycle = lasso
        exact = all(_sure_exact(d) for d in cycle)
        real = V.replay(A, ex, init, prefix + cycle, lambda st: not st.is_terminal(),
                        extra_cycles=2, cycle_from=len(prefix))
        if real is not None and exact:
            acts = list(dict.fromkeys(d["move"].action or d["move"].kind for d in cycle))
            ce, _ = _lasso_counterexample(V, real, len(prefix), len(cycle),
                                          "a deal that never ends: the cycle " + ", ".join(acts) +
                                          " repeats for ever")
            return Result(prop.name, prop.kind, "refuted",
                          "lasso inside a deal (a cycle of moves that never ends the deal), replayed by the engine"
                          + bound_text, counterexample=ce)
        return Result(prop.name, prop.kind, "unknown", "a cycle inside a deal that the engine could not replay"
                      + bound_text)
    if bound:
        return Result(prop.name, prop.kind, "proved",
                      f"every deal ends (no cycle inside a deal in the abstraction, {size_note(ex, A)}), and "
                      f"the match ends within {bound}")
    return Result(prop.name, prop.kind, "unknown",
                  "every deal ends, but no ranking function over deals was found")


def _deal_effect_ranking(V: Verifier) -> str | None:
    """A lexicographic ranking over deals, K * total(P) + total(S), when every change to match variables
    happens in the scoring at the end of the trick play: z3 checks, by symbolic execution of that block over
    the reachable scoring outcomes, that each deal raises the ranking by at least 1 while the match goes on,
    and that the ranking is bounded while the match goes on (declared ranges)."""
    from .liveness import phase_stmts, subexprs, walk
    g = V.g
    ints = [v for v in g.vars if v.scope == "match" and v.per is not None and v.type.kind == "int"]
    if not ints:
        return None
    names = {v.name for v in ints}
    then_blocks = [ph.trick.then for ph in g.phases if ph.trick is not None]
    if len(then_blocks) != 1:
        return None
    in_then = set()
    for s in walk(then_blocks[0]):
        if isinstance(s, ir.Score):
            in_then |= {id(x) for r in g.table(s.table).rows for x in walk(r.body)}
        in_then.add(id(s))
    scored_tables = [s.table for s in walk(then_blocks[0]) if isinstance(s, ir.Score)]
    everywhere = [s for ph in g.phases for s in phase_stmts(g, ph)] + \
        [x for t in g.tables for r in t.rows for x in walk(r.body)]
    if any(isinstance(s, ir.ASSIGNS) and s.var in names and id(s) not in in_then for s in everywhere):
        return None
    # the ranking rises in that block: every deal must end there (a deal ended by 'end deal' elsewhere, a
    # pass, raises nothing, and a match of such deals need not end)
    if any(isinstance(s, ir.EndDeal) and id(s) not in in_then for s in everywhere):
        return None
    ex, A, err = V.exploration(Spec(precise=True))
    if ex is None or not scored_tables or not A.score_outcomes.get(scored_tables[0]):
        return None
    outcomes = list(A.score_outcomes[scored_tables[0]])
    ends_vars = [v for v in ints if v.name in {x.name for x in subexprs(g.match.ends_when) if isinstance(x, ir.VarRef)}]
    for prim in ends_vars:
        for sec in ints:
            if sec is prim:
                continue
            for K in (8, 16, 32, 64):
                try:
                    ok, bound = smt.deal_ranking(V.game, then_blocks[0], prim.name, sec.name, K, outcomes,
                                                 V.budget.rlimit)
                except smt.SolverTimeout:
                    return None
                if ok:
                    return (f"{bound + 1} deals: ranking function {K}*total({prim.name}) + total({sec.name}) "
                            f"rises by at least 1 in every deal (z3, symbolic execution of the scoring over the "
                            f"reachable outcomes) and stays at most {bound} while the match goes on")
    return None


def deal_count_bound(V: Verifier) -> str | None:
    """A bound on the number of deals: ``deal_number`` bounded (z3) while the match goes on, or a
    per-player/side int match variable read by 'ends when' whose total grows by at least 1 in every deal after
    which the match goes on (the deal that ends it may add anything: no deal follows it),
    and is bounded (z3) while the match goes on."""
    try:
        top = smt.deal_number_bound(V.game, V.g.match.ends_when, V.budget.rlimit)
    except smt.SolverTimeout:
        top = None
    if top is not None:
        return (f"{top + 1} deals: ranking function {top} - deal_number >= 0 while the match goes on (z3), and "
                f"every deal adds 1 to deal_number")
    lex = _deal_effect_ranking(V)
    if lex is not None:
        return lex
    g = V.g
    from .liveness import subexprs
    read = {x.name for x in subexprs(g.match.ends_when) if isinstance(x, ir.VarRef)}
    for spec in V.gains_specs(cards_first=V.cards_matter(read)):
        got = _deal_count_on(V, spec, read)
        if got is not None:
            return got
    return None


def _deal_count_on(V: Verifier, spec, read: set) -> str | None:
    from . import smt_refine
    g = V.g
    ex, A, err = V.exploration(spec)
    if ex is None or not ex.deal_ends:
        return None
    possible: dict = {}     # (deal-end block, gains) -> whether z3 finds a deal ending so there: asked once

    def gains_possible(sid, gains):
        got = possible.get((sid, gains), possible)
        if got is possible:
            _deadline(V)
            got = possible[(sid, gains)] = smt_refine.gains_possible(A, *ex.end_blocks[sid], gains)
        return got

    for k, var in enumerate(A.watch):
        if var not in read:
            continue
        mins = []
        bounds: dict = {}   # deal-end block -> z3's bounds of what it adds to total(var): found once, not per edge

        def total_bounds(sid, var=var, bounds=bounds):
            if sid not in bounds:
                _deadline(V)
                bounds[sid] = smt_refine.total_gain_bounds(A, *ex.end_blocks[sid], var)
            return bounds[sid]
        for u, v, d in ex.graph.edges(data=True):
            gains = d.get("end_gains")
            if gains is None or isinstance(v, tuple) and v and v[0] == ERROR:
                continue
            if v == MATCH_OVER:
                # the deal ends the match: no deal follows it, so what it adds bounds nothing (a concrete deal
                # after which the match goes on is an edge to the next deal's start, never to the end)
                continue
            tot = 0
            for x in gains[k]:
                tot = (tot + x) if not isinstance(x, Interval) and not isinstance(tot, Interval) else Interval(None, None)
            blocks = d.get("end_blocks")
            if blocks and (isinstance(tot, Interval) or tot < 1):
                # the deal ends through deal-end blocks: z3 over them (the abstraction's values one by one lose
                # the relation between the players' gains, and may give a deal end no concrete deal has)
                if all(gains_possible(sid, gains) is False for sid in blocks):
                    continue
                los = [total_bounds(sid) for sid in blocks]
                if all(b is not None and b[0] is not None for b in los):
                    tot = min(b[0] for b in los)
            mins.append(tot)
        if not mins or any(isinstance(x, Interval) for x in mins):
            continue
        least = min(mins)
        if least < 1:
            continue
        decl = A.var_types[var]
        start = fold_int(decl.init) if decl.init is not None else 0
        if start is None:
            continue
        # a cell of a variable without a lower bound is bounded below only by its start, and only where no
        # deal takes from it (else one seat can go down for ever while the total rises: points [199, -1])
        floor = None
        if decl.type.low is None:
            if not _cells_never_fall(ex, k):
                continue
            floor = start
        try:
            top = smt.bounded_under(V.game, var, g.match.ends_when, V.budget.rlimit, floor)
        except smt.SolverTimeout:
            top = None
        if top is None:
            continue
        first = start * _width(A, var)
        deals = max(0, top - first) // least + 1
        return (f"{deals} deals: ranking function {top} - total({var}) >= 0 while the match goes on (z3), "
                f"total({var}) starts at {first} and every deal after which the match goes on adds at least "
                f"{least} to it")
    return None


def _cells_never_fall(ex, k: int) -> bool:
    """Whether no deal of the graph lowers any cell of the ``k``-th watched variable (every deal end's gain of
    every cell is surely >= 0): the cells then never fall below their values at the match's start."""
    for u, v, d in ex.graph.edges(data=True):
        gains = d.get("end_gains")
        if gains is None or isinstance(v, tuple) and v and v[0] == ERROR:
            continue
        for x in gains[k]:
            low = x.lo if isinstance(x, Interval) else x
            if low is None or low < 0:
                return False
    return True


CHECKERS = {"terminates": check_terminates, "match_terminates": check_match_terminates}

"""The verifier's speed-ups change nothing it computes.

Keys that remember their hash, the graph algorithms reading networkx's adjacency dicts, the transitions
counted as they are added, and the garbage collector kept off what lives to the end are optimisations
(docs/benchmarks.md): each result is compared with a second, plain implementation (networkx's own views and
counts, the algorithms as first written), on explorations of real games.
"""
from __future__ import annotations

import gc
import pickle
from pathlib import Path

import networkx as nx
import pytest

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify.absint import StateKey
from atout.verify.checker import Spec, Verifier, frozen_heap, without_cyclic_gc
from atout.verify.graphs import escape_region, moves_of, must_attractor
from atout.verify.properties import phase_of
from atout.verify.termination import find_lasso

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def ecarte():
    """Écarté's card-blind exploration: its exchanges can loop for ever (a cycle the lasso search finds)."""
    V = Verifier(Game(compile_file(str(ROOT / "rules/ecarte.atout"))))
    ex, A, err = V.exploration(Spec())
    assert err is None
    return V, ex


def test_a_state_key_is_its_tuple():
    plain = ("play", None, 0, (1, 2, 3), (), (("top", "player", None), 4), frozenset({1}), False)
    key = StateKey(plain)
    assert key == plain and hash(key) == hash(plain) and hash(key) == hash(key)
    table = {plain: "node"}
    assert table[key] == "node" and {key: 1}[plain] == 1
    assert key[:3] == plain[:3] and isinstance(key, tuple)
    copy = pickle.loads(pickle.dumps(key))
    assert copy == plain and "_hash" not in copy.__dict__     # the hash is computed again, not carried over
    assert hash(copy) == hash(plain)


def test_explored_keys_are_state_keys(ecarte):
    V, ex = ecarte
    assert all(type(k) is StateKey for k in ex.states)
    assert all(k in ex.graph for k in ex.states)


def test_transitions_are_the_graphs_edges(ecarte):
    V, ex = ecarte
    assert ex.transitions == ex.graph.number_of_edges() == sum(1 for _ in ex.graph.edges())
    assert ex.transitions > len(ex.states) > 100


def _moves_reference(G, u):
    out: dict = {}
    for _, v, data in G.out_edges(u, data=True):
        out.setdefault(data["move"], []).append((v, data))
    return out


def test_moves_read_from_the_adjacency_are_networkx_out_edges(ecarte):
    V, ex = ecarte
    adj = ex.successors()
    for u in ex.graph.nodes:
        ref = _moves_reference(ex.graph, u)
        for got in (moves_of(ex.graph, u), moves_of(ex.graph, u, adj)):
            assert list(got) == list(ref)          # the same moves, in the same order
            assert all([(v, id(d)) for v, d in got[m]] == [(v, id(d)) for v, d in ref[m]] for m in ref)


def _path_reference(ex, targets):
    """Breadth-first search over networkx's out_edges (the first implementation of Verifier.path_to)."""
    preds = {k: None for k in ex.initial}
    frontier = list(ex.initial)
    i = 0
    while i < len(frontier):
        k = frontier[i]
        i += 1
        if k in targets:
            edges = []
            while preds[k] is not None:
                k0, d = preds[k]
                edges.append(d)
                k = k0
            return k, [id(d) for d in reversed(edges)], frontier[i - 1]
        for _, succ, _key, d in ex.graph.out_edges(k, keys=True, data=True):
            if succ not in preds:
                preds[succ] = (k, d)
                frontier.append(succ)
    return None


def test_shortest_paths_are_those_of_networkx_out_edges(ecarte):
    V, ex = ecarte
    keys = list(ex.states)
    for target in keys[:: max(1, len(keys) // 40)]:
        got = V.path_to(ex, {target})
        ref = _path_reference(ex, {target})
        assert (got is None) == (ref is None)
        if got is not None:
            assert (got[0], [id(d) for d in got[1]], got[2]) == ref


def _lasso_reference(V, ex, nodes):
    """The first find_lasso: a DiGraph built from G.edges, networkx's SCCs computed twice."""
    G = ex.graph
    H = nx.DiGraph()
    H.add_nodes_from(k for k in ex.states if k in nodes)
    data = {}
    for u, v, d in G.edges(data=True):
        if u in nodes and v in nodes and not H.has_edge(u, v):
            H.add_edge(u, v)
            data[(u, v)] = d
    cyc = set()
    for comp in nx.strongly_connected_components(H):
        if len(comp) > 1 or any(H.has_edge(u, u) for u in comp):
            cyc |= comp
    if not cyc:
        return None, H
    init, prefix, head = V.path_to(ex, cyc)
    comp = next(c for c in nx.strongly_connected_components(H) if head in c)
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
    return (init, prefix, [data[(a, b)] for a, b in zip(best, best[1:])]), H


def test_the_lasso_is_the_one_found_before(ecarte):
    V, ex = ecarte
    exchange = {"declare", "answer", "elder_exchange", "dealer_exchange"}
    assert exchange <= {phase_of(k) for k in ex.states}, "the exchange phases of Écarté are explored"
    for nodes in ({k for k in ex.states if phase_of(k) in exchange}, set(ex.states)):
        got, H = find_lasso(V, ex, nodes)
        ref, H0 = _lasso_reference(V, ex, nodes)
        keys = ex.index()[0]     # H is over the states' positions in exploration order
        assert [keys[i] for i in H.nodes] == list(H0.nodes)
        assert [(keys[i], keys[j]) for i, j in H.edges] == list(H0.edges)
        assert (got is None) == (ref is None)
        if got is not None:
            assert got[0] == ref[0] and [id(d) for d in got[1]] == [id(d) for d in ref[1]]
            assert [id(d) for d in got[2]] == [id(d) for d in ref[2]]
    got, _ = find_lasso(V, ex, {k for k in ex.states if phase_of(k) in exchange})
    assert got is not None and got[2], "Écarté's exchanges can repeat for ever: a cycle exists"


def test_attractors_do_not_depend_on_the_collector(ecarte):
    V, ex = ecarte
    targets = {k for k in ex.states if phase_of(k) == "play"}
    got = must_attractor(ex.graph, targets, lambda u, a: True, chance_helps=True, maybe_dead=ex.maybe_dead,
                         cases=ex.cases)
    with without_cyclic_gc():
        again = must_attractor(ex.graph, targets, lambda u, a: a == 0, maybe_dead=ex.maybe_dead, cases=ex.cases)
    assert targets <= got and again <= got
    esc = escape_region(ex.graph, targets, lambda u, a: a == 0, maybe_dead=ex.maybe_dead, cases=ex.cases)
    assert not (esc & again), "a node the coalition surely leads to the goal is not in the other side's region"


def test_the_collector_is_restored():
    was = gc.isenabled()
    try:
        gc.enable()
        with pytest.raises(ValueError):
            with without_cyclic_gc():
                assert not gc.isenabled()
                raise ValueError("a failure inside")
        assert gc.isenabled()
        gc.disable()
        with without_cyclic_gc():
            pass
        assert not gc.isenabled()       # it was off before: it stays off
        gc.enable()
        with frozen_heap():
            assert gc.get_freeze_count() > 0
            with frozen_heap():
                pass
            assert gc.get_freeze_count() > 0   # the inner context leaves the outer one's freeze alone
        assert gc.get_freeze_count() == 0      # everything can be collected again
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()


def test_witnesses_steered_early_find_all_that_steering_after_the_whole_budget_finds(monkeypatch):
    """Reachability's witnesses: the seeded matches stop once STALE_MATCHES in a row witness nothing new, the
    steered searches are tried, and only then does random play go on.  On Solo Whist the seeded random and
    greedy players never name the first suit trumps, so the order used before (all 60,000 steps of random
    play, then steering) spent the whole budget: the new order finds everything the old one finds (each
    steered search is a fixed function of its action), and plays fewer random steps."""
    from atout.verify import playouts, properties
    game = Game(compile_file(str(ROOT / "rules" / "solo_whist.atout")))
    V = Verifier(game)
    prop = next(p for p in game.ir.properties if p.kind == "reachable")
    ex, A, _ = V.exploration(V.spec_for(prop))
    steps = [0]     # engine steps of the seeded matches, counted as _play_witnesses counts them (a match: its
    play = playouts.play_match      # moves and one more)
    monkeypatch.setattr(playouts, "play_match",
                        lambda *a, **k: (lambda r: steps.__setitem__(0, steps[0] + len(r[0]) + 1) or r)(play(*a, **k)))
    new = properties._witnesses(V, ex, A)
    new_steps = steps[0]
    # the order used before, from the same pieces: every seeded match first, then steering for what is missing
    want = properties._wanted(V)
    old: set = set()
    for _ in properties._play_witnesses(V, old, want):
        pass
    assert ("name_trumps", "name", 0) in want - old          # what random play never takes
    assert steps[0] - new_steps >= V.budget.search_steps      # the old order spent the whole budget on it
    for w in properties._actions_to_witness(V):
        if w not in old and properties._steered_witness(V, ex, A, w):
            old |= {w, w[:2]}
    assert old <= new and want <= new
    assert new_steps < V.budget.search_steps

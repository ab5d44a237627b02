"""Graph algorithms over the abstract game graph: what the abstraction proves about reaching a goal.

The abstract graph over-approximates the game: every concrete step is an edge, but an edge need not
exist concretely.  So:

* *may* questions ("can the goal be reached at all?") are answered by plain graph search, and only their
  negative answer is sound: a state from which no path reaches the goal is a real trap
  (:func:`coreachable`);
* *must* questions ("can the players force the goal?") use only what exists in every concrete state of a
  node: moves that are surely legal (``sure``) and, where an outcome is chosen in the goal's favour,
  edges that are ``exact`` (no guess on the way) (:func:`must_attractor`);
* the dual, :func:`escape_region`, is where the other side (the other players, and chance when it is
  adversarial) has a *must* strategy to keep play away from the goal for ever: a reachable state there
  refutes ``can_force`` and ``can_end``.

Nodes are the explorer's keys; each edge carries ``move``, ``sure`` and ``exact``.
"""
from __future__ import annotations

from .checker import without_cyclic_gc


def moves_of(G, u, adj=None) -> dict:
    """The moves from ``u``: ``{move: [(successor, edge data), ...]}`` in edge order.  ``adj``: the graph's
    adjacency as plain dicts (``successors(G)``), for callers that ask for every node."""
    out: dict = {}
    for v, keyed in (adj[u] if adj is not None else G.adj[u]).items():
        for data in keyed.values():
            got = out.get(data["move"])
            if got is None:
                out[data["move"]] = [(v, data)]
            else:
                got.append((v, data))
    return out


def successors(G) -> dict:
    """``{u: {v: {key: edge data}}}`` of a MultiDiGraph: networkx's own dicts (read them, never change them),
    in its order (that of ``G.out_edges``), without a view object per lookup."""
    return dict(G.adjacency())


def coreachable(G, targets) -> set:
    """Nodes with a path to some node of ``targets`` (targets included): one backward search."""
    seen = set(t for t in targets if t in G)
    stack = list(seen)
    while stack:
        v = stack.pop()
        for u in G.predecessors(v):
            if u not in seen:
                seen.add(u)
                stack.append(u)
    return seen


def _actor(ms: dict):
    """The player to move at a node (from its first move that is one: a rule error met while the legal moves
    were computed is an edge without a move)."""
    return next((m.actor for m in ms if m is not None), None)


@without_cyclic_gc()   # tables of every node and edge, no cycles: nothing to collect
def must_attractor(G, targets: set, coalition, chance_helps: bool = False, maybe_dead=frozenset(),
                   cases=None) -> set:
    """Nodes from which the coalition surely reaches ``targets``.

    ``coalition(node, actor) -> bool`` says whose move it is.  A coalition node joins when one of its
    surely-legal moves is *good* or, when the abstraction split the node into cases (``cases[node]``: the
    moves legal in each), when every case has a good move; any other node joins when all its moves are
    good.  A move is good when all its outcomes are in the attractor or, with ``chance_helps`` (chance plays
    for the coalition), when one of its exact outcomes is.  A node that may have no legal move never joins.
    A backward worklist (the classic attractor of a game graph)."""
    cases = cases or {}
    attr = set(t for t in targets if t in G)
    moves = {}
    pending = {}     # (u, move) -> outcomes not yet in the attractor
    owner = {}
    users: dict = {}  # v -> [(u, move, exact)] moves that have v as an outcome
    bad_left = {}
    adj = successors(G)
    for u in G.nodes:
        if u in attr:
            continue
        ms = moves_of(G, u, adj)
        if not ms or u in maybe_dead:
            continue
        moves[u] = ms
        owner[u] = coalition(u, _actor(ms))
        bad_left[u] = len(ms)
        for m, es in ms.items():
            outs = {}
            for v, d in es:
                outs[v] = outs.get(v, False) or bool(d.get("exact"))
            pending[(u, m)] = len(outs)
            for v, ex in outs.items():
                users.setdefault(v, []).append((u, m, ex))
    good = set()
    queue = list(attr)
    while queue:
        v = queue.pop()
        for u, m, ex in users.get(v, ()):
            if u in attr or (u, m) in good:
                continue
            pending[(u, m)] -= 1
            if pending[(u, m)] > 0 and not (chance_helps and ex):
                continue
            good.add((u, m))
            if owner[u]:
                split = cases.get(u)
                if all(d.get("sure", True) for _, d in moves[u][m]) or \
                        split is not None and all(any((u, x) in good for x in case) for case in split):
                    attr.add(u)
                    queue.append(u)
            else:
                bad_left[u] -= 1
                if bad_left[u] == 0:
                    attr.add(u)
                    queue.append(u)
    return attr


@without_cyclic_gc()   # tables of every node and edge, no cycles: nothing to collect
def escape_region(G, targets: set, coalition, maybe_dead=frozenset(), cases=None) -> set:
    """Nodes from which the other side surely keeps play out of ``targets`` for ever (or in a node with no
    way on): the greatest set W of non-target nodes where

    * at a coalition node, every move (surely legal or not) has an exact outcome in W, or all its outcomes
      in W (chance is the other side's);
    * at any other node, some surely-legal move has an exact outcome in W, or all its outcomes in W (or, for
      a node split into cases, every case has such a move);
    * a node without moves (the end of the match, a rule error, a dead end) is in W.

    From every concrete state of such a node, the other players and chance can keep the coalition from
    the targets, whatever it does.  Computed by removing offending nodes until none is left."""
    cases = cases or {}
    W = {u for u in G.nodes if u not in targets}
    adj = successors(G)
    moves = {u: moves_of(G, u, adj) for u in W}
    owner = {u: coalition(u, _actor(ms)) for u, ms in moves.items() if ms}

    def keeps(u, es) -> bool:
        outs = [(v, bool(d.get("exact"))) for v, d in es]
        return all(v in W for v, _ in outs) or any(ex and v in W for v, ex in outs)

    changed = True
    while changed:
        changed = False
        for u in list(W):
            ms = moves[u]
            if not ms:
                continue
            if owner[u]:
                ok = all(keeps(u, es) for es in ms.values())
            else:
                ok = any(keeps(u, es) and all(d.get("sure", True) for _, d in es) for es in ms.values())
                if not ok and u in cases:
                    ok = all(any(m in ms and keeps(u, ms[m]) for m in case) for case in cases[u])
            if not ok:
                W.discard(u)
                changed = True
    return W


def strategy_move(G, u, W: set, coalition):
    """At a node of an escape region, an edge that keeps play in it: the other side's surely-legal move with an
    exact outcome in W (or any outcome when all are), or for the coalition any move and such an outcome."""
    ms = moves_of(G, u)
    mine = coalition(u, _actor(ms)) if ms else False
    for m, es in ms.items():
        if not mine and not all(d.get("sure", True) for _, d in es):
            continue
        exact = [(v, d) for v, d in es if d.get("exact") and v in W]
        if exact:
            return exact[0]
        if all(v in W for v, _ in es):
            return es[0]
    return None

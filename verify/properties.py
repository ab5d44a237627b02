"""One checker per kind of property, and the built-in checks every game gets.

Each checker returns a :class:`~.checker.Result`.  See :mod:`.checker` for
what each verdict promises.
"""
from __future__ import annotations

import random
import time

import networkx as nx

from atout.compiler import ir
from atout.engine.evaluate import RuleError

from . import smt
from .absint import ANON, ERROR, MATCH_OVER, Interval, _cmp
from .checker import Counterexample, Finding, Result, Verifier
from .liveness import phase_graph, walk


# -- helpers ---------------------------------------------------------------------------------------------
def _phase_of(key) -> str | None:
    return key[0] if isinstance(key, tuple) and key and isinstance(key[0], str) and key[0] not in (ERROR,) \
        else None


def _size_note(ex, A) -> str:
    t = f"{len(ex.states)} abstract states, {ex.graph.number_of_edges()} transitions"
    if A.track:
        t += f", tracking {len(A.track)} named cards"
    return t


def _trace(V: Verifier, real, kind="trace", note="", cycle_start=None, cycle_len=None) -> Counterexample:
    return Counterexample(kind, real.steps, cycle_start, cycle_len, note,
                          V.play_by_play(real.steps, start=max(0, real.prefix_len - 3)))


def _moves_of(G, u):
    """Moves from ``u``: {move: [(succ, data), ...]}."""
    out: dict = {}
    for _, v, data in G.out_edges(u, data=True):
        out.setdefault(data["move"], []).append((v, data))
    return out


def _sure(edges) -> bool:
    return all(not any(ev[0] == "unsure" for ev in d["events"]) for _, d in edges)


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


def attractor(G, targets: set, coalition) -> set:
    """Nodes from which the ``coalition(node, actor)`` players can force reaching ``targets``.

    Moves of coalition players are chosen (only moves whose guard surely holds); every outcome of a move
    (chance, what the abstraction cannot tell) and every move of the other players is adversarial.
    A backward worklist computation (the classic attractor of a game graph)."""
    attr = set(t for t in targets)
    moves = {}
    pending = {}     # (u, move) -> outcomes not yet in the attractor
    owner = {}
    users = {}       # v -> [(u, move)] moves that have v as an outcome
    for u in G.nodes:
        if u in attr:
            continue
        ms = _moves_of(G, u)
        if not ms:
            continue
        moves[u] = ms
        actor = next(iter(ms)).actor
        owner[u] = coalition(u, actor)
        for m, es in ms.items():
            outs = {v for v, _ in es}
            pending[(u, m)] = len(outs)
            for v in outs:
                users.setdefault(v, []).append((u, m))
    bad_left = {u: len(ms) for u, ms in moves.items()}  # opponents' nodes: moves not yet winning
    queue = list(attr)
    while queue:
        v = queue.pop()
        for u, m in users.get(v, ()):
            if u in attr:
                continue
            pending[(u, m)] -= 1
            if pending[(u, m)] > 0:
                continue
            if owner[u]:
                if _sure(moves[u][m]):
                    attr.add(u)
                    queue.append(u)
            else:
                bad_left[u] -= 1
                if bad_left[u] == 0:
                    attr.add(u)
                    queue.append(u)
    return attr


def _gain_eval(e: ir.Expr, gains: dict, p: int):
    """Possible truth values / ints of a deal_bound expression given per-var gains (tuples per player)."""
    if isinstance(e, ir.Const):
        return [e.value]
    if isinstance(e, ir.Call) and e.fn == "gain":
        inner = e.args[0]
        if isinstance(inner, ir.Index) and isinstance(inner.base, ir.VarRef):
            idx = inner.index
            who = p if isinstance(idx, ir.Local) else (idx.value if isinstance(idx, ir.Const) else None)
            row = gains.get(inner.base.name)
            if row is None or who is None:
                return [Interval(None, None)]
            return [row[who]]
        if isinstance(inner, ir.Call) and inner.fn == "total":
            row = gains.get(inner.args[0].name)
            if row is None:
                return [Interval(None, None)]
            acc = 0
            from .absint import _add
            for x in row:
                acc = _add(acc, x)
            return [acc]
        return [Interval(None, None)]
    if isinstance(e, ir.BinOp):
        a = _gain_eval(e.left, gains, p)
        b = _gain_eval(e.right, gains, p)
        out = []
        for x in a:
            for y in b:
                if e.op == "and":
                    out.append(x and y)
                elif e.op == "or":
                    out.append(x or y)
                elif e.op in ("+", "-"):
                    from .absint import _add
                    out.append(_add(x, y, 1 if e.op == "+" else -1))
                else:
                    out.extend(_cmp(e.op, x, y))
        return list(dict.fromkeys(out))
    if isinstance(e, ir.Not):
        return [not x for x in _gain_eval(e.operand, gains, p)]
    return [True, False]


def _concrete_gains(st, var: str) -> list[int] | None:
    if st.deal_open:
        return [st.vars[var][i] - st._deal_start_returns[var][i] for i in range(len(st.vars[var]))]
    return None


def _holds_concretely(e: ir.Expr, st, last_gains: dict) -> bool:
    n = max(len(v) for v in last_gains.values()) if last_gains else st.game.players

    def ev(x, p):
        if isinstance(x, ir.Const):
            return x.value
        if isinstance(x, ir.Call) and x.fn == "gain":
            inner = x.args[0]
            if isinstance(inner, ir.Index):
                row = last_gains[inner.base.name]
                idx = inner.index
                return row[p if isinstance(idx, ir.Local) else idx.value]
            row = last_gains[inner.args[0].name]
            return sum(row)
        if isinstance(x, ir.BinOp):
            a, b = ev(x.left, p), ev(x.right, p)
            return {"and": lambda: a and b, "or": lambda: a or b, "+": lambda: a + b, "-": lambda: a - b,
                    "==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
                    ">": lambda: a > b, ">=": lambda: a >= b}[x.op]()
        if isinstance(x, ir.Not):
            return not ev(x.operand, p)
        raise ValueError(x)

    return all(ev(e, p) for p in range(n))


# -- property kinds ---------------------------------------------------------------------------------------
def check_deal_bound(V: Verifier, prop: ir.Property, exact_sizes: bool = False) -> Result:
    ex, A, obs, err = V.exploration(precise=True, exact_sizes=exact_sizes)
    if ex is None:
        return Result(prop.name, prop.kind, "unknown", f"exploration stopped: {err}")
    n = V.game.players
    names = list(A.watch)

    def violates(gains_t) -> bool:
        gains = dict(zip(names, gains_t))
        return any(False in _gain_eval(prop.expr, gains, p) for p in range(n))

    # the bound is on each deal's gains: checked when a deal ends (or the match ends within it)
    bad_edges = [(u, v, d) for u, v, d in ex.graph.edges(data=True)
                 if d.get("end_gains") is not None and violates(d["end_gains"])]
    ends = sum(1 for _, _, d in ex.graph.edges(data=True) if d.get("end_gains") is not None)
    if not bad_edges:
        return Result(prop.name, prop.kind, "proved",
                      f"exhaustive exploration of an over-approximating abstraction ({_size_note(ex, A)}): "
                      f"the bound holds at all {ends} ways a deal (or the match) can end")
    # zero-sum bounds, gain(total(V)) == 0: symbolic execution of every effect on V (z3), over the
    # reachable outcomes at each 'score' (the interval abstraction loses the relation between the payments)
    zs = _zero_sum_var(prop.expr)
    if zs is not None:
        try:
            ok, why = smt.preserves_total(V.game, zs, A.score_outcomes, V.budget.left_ms(5.0))
        except smt.SolverTimeout:
            ok, why = None, "z3 timed out"
        if ok:
            return Result(prop.name, prop.kind, "proved", why + f" (outcomes from the abstraction, {_size_note(ex, A)})")
    # a candidate: the shortest abstract path, then a concrete replay whose last deal breaks the bound
    found = V.path_to(ex, {u for u, _, _ in bad_edges})
    if found is None:
        return Result(prop.name, prop.kind, "unknown", "an abstract violation with no path from a deal start")
    init, edges, last = found
    extra = [next(d for u, _, d in bad_edges if u == last)]

    def check(st):
        # the last deal ended, and the deal in progress: an edge where the match may end (the abstraction
        # forgets the score) can leave the concrete match going on, with the violation in the open deal
        candidates = [st.deal_log[-1]["gains"]] if st.deal_log else []
        if st.deal_open and (st.is_terminal() or _upper_bounds_only(prop.expr)):
            # a part of a deal breaks an upper bound only if the whole deal can (gains only grow until it
            # ends); a lower bound is about whole deals only
            candidates.append({var: _concrete_gains(st, var) for var in names})
        return any(not _holds_concretely(prop.expr, st, gains) for gains in candidates)

    real = _realize_with_gains(V, A, ex, init, edges + extra, check)
    if real is None:
        # the path fixes who wins each trick, which random cards rarely allow: search seeded engine playouts
        # for a deal whose gains break the bound
        real = _search_playouts(V, lambda st: bool(st.deal_log) and check(st), seconds=3.0)
        if real is not None:
            return Result(prop.name, prop.kind, "refuted",
                          "exhaustive exploration found a violation; a seeded engine playout realised it",
                          counterexample=_trace(V, real, note="the deal's gains break the bound"))
        if A.blur and not exact_sizes and not V.budget.expired():
            # refine: explore again keeping every zone size exact, so that the path respects them
            refined = check_deal_bound(V, prop, exact_sizes=True)
            if refined.verdict != "unknown":
                refined.method += " (after refining the abstraction: every zone size kept exact)"
                return refined
        return Result(prop.name, prop.kind, "unknown",
                      f"the abstraction ({_size_note(ex, A)}) has a violating path that neither its replay nor "
                      f"seeded engine playouts realised", detail="abstract counterexample only")
    return Result(prop.name, prop.kind, "refuted", "exhaustive exploration found a violation; the engine "
                  "replayed it", counterexample=_trace(V, real, note="the deal's gains break the bound"))


def _upper_bounds_only(e) -> bool:
    """Whether ``e`` is a conjunction of upper bounds on gains (``gain(...) <= c``)."""
    if isinstance(e, ir.BinOp) and e.op == "and":
        return _upper_bounds_only(e.left) and _upper_bounds_only(e.right)
    if isinstance(e, ir.BinOp) and e.op in ("<=", "<"):
        return isinstance(e.left, ir.Call) and e.left.fn == "gain" and isinstance(e.right, ir.Const)
    if isinstance(e, ir.BinOp) and e.op in (">=", ">"):
        return isinstance(e.right, ir.Call) and e.right.fn == "gain" and isinstance(e.left, ir.Const)
    return False


def _search_playouts(V: Verifier, check, seconds: float):
    """Seeded random matches (random and greedy bots); the first state after a deal ends where ``check`` holds,
    as a Realization, or None when ``seconds`` run out."""
    from atout.engine.bots import GreedyBot, RandomBot
    from .concretize import Realization
    game = V.game
    rng = random.Random(11)
    t_end = time.perf_counter() + min(seconds, max(0.1, V.budget.deadline - time.perf_counter()))
    while time.perf_counter() < t_end:
        st = game.new_initial_state()
        bots = [(RandomBot if rng.random() < 0.5 else GreedyBot)(rng.randrange(1 << 30)) for _ in range(game.players)]
        steps: list[dict] = []
        deals = 0
        while not st.is_terminal() and len(steps) < 5000:
            if st.is_chance_node():
                outs = st.chance_outcomes()
                a = outs[rng.randrange(len(outs))][0]
            else:
                a = bots[st.current_player()].step(st)
            p = st.current_player()
            steps.append({"player": p if p >= 0 else -1, "action": a, "text": st.action_to_string(a)})
            try:
                st.apply_action(a)
            except RuleError:
                break
            if len(st.deal_log) != deals:
                deals = len(st.deal_log)
                if check(st):
                    return Realization(steps, st, 0)
    return None


def _zero_sum_var(e) -> str | None:
    """``gain(total(V)) == 0`` -> V."""
    if isinstance(e, ir.BinOp) and e.op == "==":
        a, b = e.left, e.right
        if isinstance(b, ir.Call) and b.fn == "gain":
            a, b = b, a
        if isinstance(a, ir.Call) and a.fn == "gain" and isinstance(b, ir.Const) and b.value == 0:
            inner = a.args[0]
            if isinstance(inner, ir.Call) and inner.fn == "total" and isinstance(inner.args[0], ir.VarRef):
                return inner.args[0].name
    return None


def _realize_with_gains(V, A, ex, init, edges, check):
    from .concretize import realize
    return realize(V.game, A, init, ex.initial_events.get(init, ()), edges, check,
                   init_perm=ex.initial_perm.get(init))


def _loop_nodes(ex, phases) -> set:
    return {k for k in ex.states if _phase_of(k) in phases}


def check_can_end(V: Verifier, prop: ir.Property) -> Result:
    return _check_reach(V, prop, lambda u, actor: True, "the players together")


def check_can_force(V: Verifier, prop: ir.Property) -> Result:
    ex, A, obs, err = V.exploration(precise=False)
    if ex is None:
        return Result(prop.name, prop.kind, "unknown", f"exploration stopped: {err}")

    def coalition(u, actor):
        w = ex.states.get(u)
        if w is None:
            return False
        vals = A.eval(prop.player, w, {})
        return vals == [actor]

    who = ir.dump(prop.player).strip() if False else _expr_str(prop.player)
    return _check_reach(V, prop, coalition, f"{who} alone, whatever the others and chance do")


def _expr_str(e) -> str:
    from atout.compiler.ir import _expr_text
    return _expr_text(e)


def _check_reach(V: Verifier, prop: ir.Property, coalition, who: str) -> Result:
    ex, A, obs, err = V.exploration(precise=False)
    if ex is None:
        return Result(prop.name, prop.kind, "unknown", f"exploration stopped: {err}")
    G = ex.graph
    targets = {k for k in ex.states if _phase_of(k) == prop.target}
    loop = _loop_nodes(ex, set(prop.phases))
    attr = attractor(G, targets, coalition)
    missing = [u for u in loop if u not in attr]
    if not missing:
        return Result(prop.name, prop.kind, "proved",
                      f"attractor on the abstraction ({_size_note(ex, A)}): from all {len(loop)} reachable "
                      f"states of {{{', '.join(prop.phases)}}}, {who} can reach '{prop.target}'")
    # a state from which even the over-approximation never reaches the target is a real trap
    co = coreachable(G, targets)
    trapped = [u for u in missing if u not in co]
    if trapped:
        found = V.path_to(ex, set(trapped))
        if found is not None:
            init, edges, last = found
            real = V.replay(A, ex, init, edges, lambda st: st.phase in prop.phases and not st.is_terminal())
            if real is not None:
                return Result(prop.name, prop.kind, "refuted",
                              f"from this state no sequence of moves reaches '{prop.target}' even in the "
                              f"over-approximation", counterexample=_trace(V, real, note="a trap"))
    return Result(prop.name, prop.kind, "unknown",
                  f"attractor on the abstraction ({_size_note(ex, A)}) misses {len(missing)} of {len(loop)} "
                  f"states; the abstraction may be too coarse to show a strategy")


def _features(A, w) -> dict:
    f = {}
    for i, slot in enumerate(A.slots):
        if w.sizes[i] >= 0:
            f[f"size({slot.label})"] = w.sizes[i]
    for name, v in w.vars.items():
        if isinstance(v, int) and not isinstance(v, bool):
            f[name] = v
    if w.sel is not None:
        f["chosen"] = w.sel[1]
    return f


def _find_lasso(V, ex, A, nodes: set, edge_ok=lambda d: True):
    """A reachable cycle inside ``nodes``: ((init, prefix edges, cycle edges) or None, the loop's DiGraph)."""
    G = ex.graph
    H = nx.DiGraph()
    H.add_nodes_from(nodes)
    data = {}
    for u, v, d in G.edges(data=True):
        if u in nodes and v in nodes and edge_ok(d):
            if not H.has_edge(u, v):
                H.add_edge(u, v)
                data[(u, v)] = d
    H.edge_data = data
    cyc_nodes = set()
    for comp in nx.strongly_connected_components(H):
        if len(comp) > 1 or any(H.has_edge(u, u) for u in comp):
            cyc_nodes |= comp
    if not cyc_nodes:
        return None, H
    found = V.path_to(ex, cyc_nodes)
    if found is None:
        return None, H
    init, prefix, head = found
    comp = next(c for c in nx.strongly_connected_components(H) if head in c)
    sub = H.subgraph(comp)
    # a shortest cycle through head: head -> succ -> ... -> head
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


def check_terminates(V: Verifier, prop: ir.Property) -> Result:
    ex, A, obs, err = V.exploration(precise=False)
    if ex is None:
        return Result(prop.name, prop.kind, "unknown", f"exploration stopped: {err}")
    nodes = _loop_nodes(ex, set(prop.phases))
    lasso, H = _find_lasso(V, ex, A, nodes)
    if lasso is None:
        # acyclic: explain with a ranking function found by z3
        edges = []
        for u, v in H.edges():
            edges.append((_features(A, ex.states[u]), u[0], _features(A, ex.states[v]), v[0]))
        common = sorted(set.intersection(*[set(e[0]) & set(e[2]) for e in edges])) if edges else []
        rank = smt.ranking_function(edges, common, V.budget.left_ms(5.0)) if edges else None
        longest = nx.dag_longest_path_length(H) if H.number_of_nodes() else 0
        if rank is not None:
            return Result(prop.name, prop.kind, "proved",
                          f"ranking function r = {rank} (found by z3): r >= 0 and r decreases by at least 1 on "
                          f"each of the {len(edges)} transitions of the loop in the over-approximating "
                          f"abstraction ({_size_note(ex, A)})")
        return Result(prop.name, prop.kind, "proved",
                      f"exhaustive exploration: the loop has no cycle in the over-approximating abstraction "
                      f"({_size_note(ex, A)}); every path leaves it within {longest} moves")
    init, prefix, cycle = lasso
    exact = all(d["exact"] and _sure([(None, d)]) for d in cycle)
    real = V.replay(A, ex, init, prefix + cycle, lambda st: st.phase in prop.phases,
                    extra_cycles=2, cycle_from=len(prefix))
    if real is None:
        return Result(prop.name, prop.kind, "unknown",
                      f"the abstraction has a cycle in the loop ({len(cycle)} moves) that the engine could not "
                      f"replay")
    steps = real.steps
    cyc_steps = _steps_per_cycle(V, real, len(prefix), len(cycle))
    note = (f"after the prefix, a cycle of {len(cycle)} decisions ({cyc_steps} steps with the chance draws) "
            f"returns to the same abstract state (zone sizes, and variables as the abstraction keeps them: "
            f"a counter compared only with small constants is kept as an interval); the engine replayed it 3 times")
    if exact:
        note += "; every guard on it depends only on what the abstraction tracks exactly, so it can repeat " \
                "for ever"
    start = len(steps) - 3 * cyc_steps if cyc_steps else None
    ce = Counterexample("lasso", steps, start, cyc_steps, note,
                        V.play_by_play(steps[:start + cyc_steps] if cyc_steps else steps,
                                       start=max(0, start - 3) if cyc_steps else 0))
    return Result(prop.name, prop.kind, "refuted" if exact else "unknown",
                  "lasso: a reachable cycle of the loop, replayed by the engine" if exact else
                  "a cycle whose guards the abstraction cannot decide exactly", counterexample=ce)


def _steps_per_cycle(V, real, n_prefix, n_cycle) -> int:
    # the last 3 cycles have equal numbers of decisions; count steps by replaying decisions
    decisions = [i for i, s in enumerate(real.steps) if s["player"] >= 0]
    total_decisions_cycle = n_cycle
    if len(decisions) < 3 * total_decisions_cycle:
        return 0
    start = decisions[-3 * total_decisions_cycle]
    return (len(real.steps) - start) // 3


def check_match_terminates(V: Verifier, prop: ir.Property) -> Result:
    ex, A, obs, err = V.exploration(precise=False)
    if ex is None:
        return Result(prop.name, prop.kind, "unknown", f"exploration stopped: {err}")
    nodes = set(ex.states)
    lasso, H = _find_lasso(V, ex, A, nodes, edge_ok=lambda d: d.get("end_gains") is None)
    bound = _deal_count_bound(V)
    bound_text = f"; if every deal ends, the match ends within {bound}" if bound else ""
    if lasso is not None:
        init, prefix, cycle = lasso
        exact = all(d["exact"] and _sure([(None, d)]) for d in cycle)
        real = V.replay(A, ex, init, prefix + cycle, lambda st: not st.is_terminal(),
                        extra_cycles=2, cycle_from=len(prefix))
        if real is not None and exact:
            cyc = _steps_per_cycle(V, real, len(prefix), len(cycle))
            acts = list(dict.fromkeys(d["move"].action or d["move"].kind for d in cycle))
            start = len(real.steps) - 3 * cyc if cyc else None
            ce = Counterexample("lasso", real.steps, start, cyc,
                                "a deal that never ends: the cycle " + ", ".join(acts) + " repeats for ever",
                                V.play_by_play(real.steps[:start + cyc] if cyc else real.steps,
                                               start=max(0, start - 3) if cyc else 0))
            return Result(prop.name, prop.kind, "refuted",
                          "lasso inside a deal (a cycle of moves that never ends the deal), replayed by the engine"
                          + bound_text, counterexample=ce)
        return Result(prop.name, prop.kind, "unknown", "a cycle inside a deal that the engine could not replay"
                      + bound_text)
    if bound:
        return Result(prop.name, prop.kind, "proved",
                      f"every deal ends (no cycle inside a deal in the abstraction, {_size_note(ex, A)}), and "
                      f"the match ends within {bound}")
    return Result(prop.name, prop.kind, "unknown",
                  "every deal ends, but no ranking function over deals was found")


def _deal_effect_ranking(V: Verifier) -> str | None:
    """A lexicographic ranking over deals, K * total(P) + total(S), when every change to match variables
    happens in the scoring at the end of the trick play: z3 checks, by symbolic execution of that block over
    the reachable scoring outcomes, that each deal raises the ranking by at least 1 while the match goes on,
    and that the ranking is bounded while the match goes on (declared ranges)."""
    from .liveness import subexprs, walk
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
    everywhere = []
    for ph in g.phases:
        for b in [a.body for a in ph.actions] + [ph.body] + ([ph.trick.then, ph.trick.after] if ph.trick else []):
            everywhere += list(walk(b))
    for t in g.tables:
        for r in t.rows:
            everywhere += list(walk(r.body))
    if any(isinstance(s, ir.Assign) and s.var in names and id(s) not in in_then for s in everywhere):
        return None
    ex, A, obs, err = V.exploration(precise=True)
    if ex is None or not scored_tables or not A.score_outcomes.get(scored_tables[0]):
        return None
    outcomes = A.score_outcomes[scored_tables[0]]
    ends_vars = [v for v in ints if v.name in {x.name for x in subexprs(g.match.ends_when) if isinstance(x, ir.VarRef)}]
    for prim in ends_vars:
        for sec in ints:
            if sec is prim:
                continue
            for K in (8, 16, 32, 64):
                try:
                    ok, bound = smt.deal_ranking(V.game, then_blocks[0], prim.name, sec.name, K, outcomes,
                                                 V.budget.left_ms(3.0))
                except smt.SolverTimeout:
                    return None
                if ok:
                    return (f"{bound + 1} deals: ranking function {K}*total({prim.name}) + total({sec.name}) "
                            f"rises by at least 1 in every deal (z3, symbolic execution of the scoring over the "
                            f"reachable outcomes) and stays at most {bound} while the match goes on")
    return None


def _deal_count_bound(V: Verifier) -> str | None:
    """A bound on the number of deals: ``deal_number`` bounded (z3) while the match goes on, or a
    per-player/side int match variable read by 'ends when' whose total grows by at least 1 in every deal,
    and is bounded (z3) while the match goes on."""
    try:
        top = smt.deal_number_bound(V.game, V.g.match.ends_when, V.budget.left_ms(2.0))
    except smt.SolverTimeout:
        top = None
    if top is not None:
        return (f"{top + 1} deals: ranking function {top} - deal_number >= 0 while the match goes on (z3), and "
                f"every deal adds 1 to deal_number")
    lex = _deal_effect_ranking(V)
    if lex is not None:
        return lex
    ex, A, obs, err = V.exploration(precise=True)
    if ex is None or not ex.deal_ends:
        return None
    g = V.g
    from .liveness import subexprs
    read = {x.name for x in subexprs(g.match.ends_when) if isinstance(x, ir.VarRef)}
    for k, var in enumerate(A.watch):
        if var not in read:
            continue
        mins = []
        for _, gains in ex.deal_ends:
            row = gains[k]
            tot = 0
            for x in row:
                tot = (tot + x) if not isinstance(x, Interval) and not isinstance(tot, Interval) else Interval(None, None)
            mins.append(tot)
        if any(isinstance(x, Interval) for x in mins):
            continue
        least = min(mins)
        if least < 1:
            continue
        try:
            top = smt.bounded_under(V.game, var, g.match.ends_when, V.budget.left_ms(5.0))
        except smt.SolverTimeout:
            top = None
        if top is None:
            continue
        deals = top // least + 1
        return (f"{deals} deals: ranking function {top} - total({var}) >= 0 while the match goes on (z3), and "
                f"every deal adds at least {least} to total({var})")
    return None


def check_complete(V: Verifier, prop: ir.Property) -> Result:
    return _table_result(V, prop.name, prop.kind, V.g.table(prop.target))


def _table_result(V: Verifier, name: str, kind: str, table: ir.Table) -> Result:
    ex, A, obs, err = V.exploration(precise=True)
    if ex is None:
        return Result(name, kind, "unknown", f"exploration stopped: {err}")
    outcomes = A.score_outcomes.get(table.name, set())
    if not outcomes:
        return Result(name, kind, "unknown", f"table '{table.name}' is never scored in the abstraction")
    try:
        overlaps, gaps = smt.table_cases(V.game, table, outcomes, V.budget.left_ms(5.0))
    except smt.SolverTimeout as exc:
        return Result(name, kind, "unknown", f"z3 timed out ({exc})")
    if not overlaps and not gaps:
        return Result(name, kind, "proved",
                      f"SMT (z3): over the {len(outcomes)} reachable outcomes at 'score {table.name}', exactly one "
                      f"of the {len(table.rows)} rows applies (no overlap, no gap)")
    # concrete witness: replay a path to the scoring step and watch which rows fire
    want_overlap = bool(overlaps)

    def check_rows(fired):
        return (len(fired) > 1) if want_overlap else (len(fired) == 0)

    real = _realize_score(V, A, ex, table, check_rows, overlaps[0][0] if overlaps else ())
    what = ("rows " + " and ".join(f"'{a}'" for a in overlaps[0][0]) + f" overlap ({overlaps[0][1]})") \
        if overlaps else f"no row applies ({gaps[0][1]})"
    if real is None:
        return Result(name, kind, "unknown", f"z3 finds that {what}, but the engine could not replay a deal "
                                             "reaching that outcome")
    return Result(name, kind, "refuted", f"SMT (z3): {what}; the engine replayed such a deal",
                  counterexample=_trace(V, real, note=what))


def _realize_score(V, A, ex, table, check_rows, rows=None):
    """A concrete deal whose scoring by ``table`` satisfies ``check_rows``; with ``rows`` (a pair of row names
    that overlap, or () for a gap), only the outcomes at which z3 says that can happen are tried."""
    from .concretize import realize
    candidates = [(val, src) for (t, val), src in A.score_sources.items() if t == table.name and src]
    if rows is not None:
        try:
            showing = set(smt.outcomes_showing(V.game, table, [val for val, _ in candidates], rows,
                                               V.budget.left_ms(1.0)))
        except smt.SolverTimeout:
            showing = None
        if showing is not None:
            candidates = [c for c in candidates if c[0] in showing]
    # few candidates left (the outcomes that show the fault): try each harder
    attempts = 300 if rows is not None and len(candidates) <= 8 else 40
    random.Random(0).shuffle(candidates)
    fired_log = []
    orig_init = V.game.new_initial_state

    t_end = time.perf_counter() + 4.0
    for val, (src_key, _) in candidates[:40]:
        if time.perf_counter() > t_end:
            break
        if src_key not in ex.states:
            continue
        found = V.path_to(ex, {src_key})
        if found is None:
            continue
        init, edges, _ = found
        outs = [d for _, _, d in ex.graph.out_edges(src_key, data=True)]
        for d in outs[:6]:
            fired_log.clear()

            def new_state(orig=orig_init):
                st = orig()
                st.on_score = lambda t, rows: fired_log.append(rows) if t == table.name else None
                return st
            V.game.new_initial_state = new_state
            try:
                real = realize(V.game, A, init, ex.initial_events.get(init, ()), edges + [d],
                               lambda st: bool(fired_log) and check_rows(fired_log[-1]), attempts=attempts,
                               init_perm=ex.initial_perm.get(init), seconds=max(0.1, t_end - time.perf_counter()))
            finally:
                V.game.new_initial_state = orig_init
            if real is not None:
                return real
    return None


def check_reachable(V: Verifier, prop: ir.Property) -> Result:
    ex, A, obs, err = V.exploration(precise=False)
    if ex is None:
        return Result(prop.name, prop.kind, "unknown", f"exploration stopped: {err}")
    seen_phases = {_phase_of(k) for k in ex.states}
    seen_actions = {(_phase_of(u), d["move"].action) for u, _, d in ex.graph.edges(data=True)}
    missing = []
    for ph in V.g.phases:
        if ph.name not in seen_phases and ph.kind != "auto":
            missing.append(f"phase '{ph.name}'")
        for a in ph.actions:
            if (ph.name, a.name) not in seen_actions:
                missing.append(f"action '{a.name}' of phase '{ph.name}' ({a.span.path}:{a.span.line})")
    if missing:
        return Result(prop.name, prop.kind, "refuted",
                      f"exhaustive exploration of the over-approximating abstraction ({_size_note(ex, A)}): "
                      f"never reachable: {'; '.join(missing)}")
    # witnesses: the engine itself reaches every phase and takes every action (with every parameter value:
    # every contract of a bid ladder, every suit that can be named)
    taken = _witness_actions(V)
    lacking = [(ph.name, a.name) for ph in V.g.phases for a in ph.actions if (ph.name, a.name) not in taken]
    lacking += [(ph.name, f"{a.name} {V.game.value_str(v, a.param.type)}") for ph in V.g.phases for a in ph.actions
                if a.param is not None and a.param.kind == "domain"
                for v in range(_domain_size(V, a.param.type)) if (ph.name, a.name, v) not in taken]
    lacking_ph = [ph.name for ph in V.g.phases if ph.kind != "auto" and ph.name not in {t[0] for t in taken}]
    if lacking or lacking_ph:
        return Result(prop.name, prop.kind, "unknown",
                      f"reachable in the abstraction, but seeded engine runs did not witness: "
                      f"{', '.join(f'{a} in {p}' for p, a in lacking) or ', '.join(lacking_ph)}")
    values = sum(_domain_size(V, a.param.type) for p in V.g.phases for a in p.actions
                 if a.param is not None and a.param.kind == "domain")
    return Result(prop.name, prop.kind, "proved",
                  f"every phase and action was taken in seeded engine runs (concrete witnesses), "
                  f"{sum(len(p.actions) for p in V.g.phases)} actions in {len(V.g.phases)} phases"
                  + (f", every one of the {values} parameter values of actions included" if values else ""))


def _domain_size(V, t: ir.Type) -> int:
    if t.kind == "suit":
        return len(V.g.deck.suits)
    if t.kind == "player":
        return V.game.players
    return next((len(e.values) for e in V.g.enums if e.name == t.enum), 0)


def _witness_actions(V: Verifier) -> set:
    from atout.engine.bots import GreedyBot, RandomBot
    game = V.game
    taken = set()
    want = {(ph.name, a.name) for ph in V.g.phases for a in ph.actions}
    want |= {(ph.name, "") for ph in V.g.phases if ph.kind == "trick"}
    want |= {(ph.name, a.name, v) for ph in V.g.phases for a in ph.actions
             if a.param is not None and a.param.kind == "domain" for v in range(_domain_size(V, a.param.type))}
    rng = random.Random(0)
    t_end = time.perf_counter() + min(3.0, max(0.2, V.budget.deadline - time.perf_counter()) / 4)
    while time.perf_counter() < t_end and not want <= taken:
        st = game.new_initial_state()
        bots = [(RandomBot if rng.random() < 0.7 else GreedyBot)(rng.randrange(1 << 30)) for _ in range(game.players)]
        steps = 0
        while not st.is_terminal() and steps < 3000:
            steps += 1
            if st.is_chance_node():
                outs = st.chance_outcomes()
                st.apply_action(outs[rng.randrange(len(outs))][0])
                continue
            if not st.legal_actions():
                break  # a dead end (reported by builtin:no_dead_end): no action to take
            a = bots[st.current_player()].step(st)
            ph = game.phases[st.phase]
            how = st._legal()[a]
            name = how[1].name if len(how) > 1 and how[1] is not None else ""
            taken.add((st.phase, name))
            if how[0] == "named" and how[2] is not None:
                taken.add((st.phase, name, how[2]))
            if ph.kind == "trick" and how[0] == "play":
                taken.add((st.phase, ""))
            try:
                st.apply_action(a)
            except RuleError:
                break
    return taken


def _total_invariant(V: Verifier, prop: ir.Property) -> Result | None:
    """``total(V) == c`` on a match variable: an inductive invariant if it holds at the start and every
    effect on V preserves the total (z3)."""
    e = prop.expr
    if not (isinstance(e, ir.BinOp) and e.op == "==" and isinstance(e.right, ir.Const) and
            isinstance(e.left, ir.Call) and e.left.fn == "total" and isinstance(e.left.args[0], ir.VarRef)):
        return None
    name = e.left.args[0].name
    decl = next(v for v in V.g.vars if v.name == name)
    init = decl.init.value if isinstance(decl.init, ir.Const) else None
    size = V.game.players if decl.per == "player" else max(1, len(V.g.sides))
    if init is None or init * size != e.right.value:
        return None
    ex, A, obs, err = V.exploration(precise=True)
    if ex is None:
        return None
    try:
        ok, why = smt.preserves_total(V.game, name, A.score_outcomes, V.budget.left_ms(5.0))
    except smt.SolverTimeout:
        return None
    if not ok:
        return None
    return Result(prop.name, prop.kind, "proved", f"inductive invariant: total({name}) = {e.right.value} at the "
                  f"start of the match, and every effect preserves it: {why}")


def check_invariant(V: Verifier, prop: ir.Property) -> Result:
    r = _total_invariant(V, prop)
    if r is not None:
        return r
    ex, A, obs, err = V.exploration(precise=bool(_mentions_cards(prop.expr)), extra=_zones_read(prop.expr))
    if ex is None:
        return Result(prop.name, prop.kind, "unknown", f"exploration stopped: {err}")
    bad = []
    for phase, items in obs.raw_by_phase.items():
        for src, move, w in items:
            for p in range(V.game.players):
                if False in A.eval(prop.expr, w, {"p": p}):
                    bad.append((src, move))
                    break
    for k in ex.initial:
        w = ex.states[k]
    if not bad:
        return Result(prop.name, prop.kind, "proved",
                      f"exhaustive exploration of an over-approximating abstraction ({_size_note(ex, A)}): the "
                      f"invariant holds in every reachable abstract state")
    src, move = bad[0]
    return _refute_by_check(V, ex, A, prop, src, move,
                            lambda st: not all(V.game.compile(prop.expr)(st, {"p": p})
                                               for p in range(V.game.players)),
                            "the invariant fails here")


def _mentions_cards(e) -> bool:
    from .liveness import subexprs
    return any(isinstance(x, ir.Call) and x.fn in ("has", "top", "card") for x in subexprs(e))


def _refute_by_check(V, ex, A, prop, src, move, check, note) -> Result:
    if src is None:
        init, edges = ex.initial[0], []
    else:
        found = V.path_to(ex, {src})
        if found is None:
            return Result(prop.name, prop.kind, "unknown", "an abstract violation with no path")
        init, edges, _ = found
        edges = edges + [d for _, _, d in ex.graph.out_edges(src, data=True) if d["move"] == move][:1]
    real = V.replay(A, ex, init, edges, check)
    if real is None:
        return Result(prop.name, prop.kind, "unknown", "the abstraction has a violation that the engine could "
                                                       "not replay")
    return Result(prop.name, prop.kind, "refuted", "exhaustive exploration found a violation; the engine "
                  "replayed it", counterexample=_trace(V, real, note=note))


def _zones_read(e) -> frozenset:
    from .liveness import subexprs, _zone_name
    out = set()
    if e is not None:
        for x in subexprs(e):
            if isinstance(x, ir.Call) and x.fn in ("size", "top", "has") and _zone_name(x.args[0]):
                out.add(_zone_name(x.args[0]))
            elif isinstance(x, ir.Quant) and x.domain is not None and _zone_name(x.domain):
                out.add(_zone_name(x.domain))
    return frozenset(out)


def check_conserves(V: Verifier, prop: ir.Property) -> Result:
    ex, A, obs, err = V.exploration(precise=False, extra=_zones_read(prop.expr),
                                    extra_phases=frozenset(prop.phases) if _zones_read(prop.expr) else None)
    if ex is None:
        return Result(prop.name, prop.kind, "unknown", f"exploration stopped: {err}")
    phases = set(prop.phases)
    # 1. conservation of cards: an inductive invariant (z3), card by card in the engine by construction
    try:
        ok, n_checked, where = smt.conservation(V.game, V.budget.left_ms(2.0))
    except smt.SolverTimeout:
        return Result(prop.name, prop.kind, "unknown", "z3 timed out on conservation")
    if not ok:
        return Result(prop.name, prop.kind, "refuted", f"an effect changes the number of cards: {where}")
    # 2. no draw in these phases finds too few cards
    for src, msg in ex.errors:
        if src is not None and _phase_of(src) in phases:
            return _refute_by_check(V, ex, A, prop, src, None, lambda st: False, msg) \
                if False else _refute_error(V, ex, A, prop, src, msg)
    # 3. on reaching the target from these phases, the condition holds
    bad = None
    count = 0
    if prop.target is not None:
        for src, move, w in obs.raw_by_phase.get(prop.target, []):
            if src is None or _phase_of(src) not in phases:
                continue
            count += 1
            if prop.expr is not None:
                for p in range(V.game.players):
                    if False in A.eval(prop.expr, w, {"p": p}):
                        bad = (src, move)
                        break
            if bad:
                break
    if bad:
        src, move = bad
        return _refute_by_check(V, ex, A, prop, src, move,
                                lambda st: st.phase == prop.target and not all(
                                    V.game.compile(prop.expr)(st, {"p": p}) for p in range(V.game.players)),
                                f"the condition fails on reaching '{prop.target}'")
    return Result(prop.name, prop.kind, "proved",
                  f"inductive invariant by SMT (z3: all {n_checked} card-moving effects preserve the total of "
                  f"{V.game.num_cards} cards); exhaustive exploration ({_size_note(ex, A)}): no draw in "
                  f"{{{', '.join(prop.phases)}}} finds too few cards"
                  + (f", and the condition holds on all {count} ways of reaching '{prop.target}'"
                     if prop.target else ""))


def _refute_error(V, ex, A, prop, src, msg) -> Result:
    found = V.path_to(ex, {src})
    if found is None:
        return Result(prop.name, prop.kind, "unknown", f"abstract rule error ({msg}) with no path")
    init, edges, _ = found
    bad_edges = [d for _, v, d in ex.graph.out_edges(src, data=True) if isinstance(v, tuple) and v and v[0] == ERROR]
    real = _realize_error(V, A, ex, init, edges + bad_edges[:1])
    if real is None:
        return Result(prop.name, prop.kind, "unknown", f"abstract rule error ({msg}) the engine could not replay")
    return Result(prop.name, prop.kind, "refuted", f"a rule error is reachable: {msg}",
                  counterexample=_trace(V, real, note=msg))


def _realize_error(V, A, ex, init, edges):
    """Replay ``edges``; success when the engine raises a RuleError on the last step."""
    from . import concretize
    holder = {}
    orig = concretize._record

    def record(st, steps, action):
        try:
            orig(st, steps, action)
        except RuleError as exc:
            steps[-1]["error"] = str(exc)
            holder["steps"] = list(steps)
            raise concretize._Fail("rule error reached") from None

    concretize._record = record
    try:
        for seed in range(5):
            holder.clear()
            concretize.realize(V.game, A, init, ex.initial_events.get(init, ()), edges, lambda st: False,
                               attempts=60, seed=seed, init_perm=ex.initial_perm.get(init))
            if "steps" in holder:
                return concretize.Realization(holder["steps"], None, 0)
    finally:
        concretize._record = orig
    return None


CHECKERS = {
    "deal_bound": check_deal_bound,
    "can_end": check_can_end,
    "can_force": check_can_force,
    "terminates": check_terminates,
    "match_terminates": check_match_terminates,
    "complete": check_complete,
    "reachable": check_reachable,
    "invariant": check_invariant,
    "conserves": check_conserves,
}

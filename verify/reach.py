"""Reaching a goal: ``can_end``, ``can_force`` and the built-in ``no_trap``.

A proof uses only what exists in every concrete state of an abstract node (:func:`.graphs.must_attractor`:
surely-legal moves, exact edges where chance is on the goal's side).  A refutation is either a reachable
state from which the over-approximation itself never reaches the goal (a real trap), or a reachable state
of the other side's *escape region* (:func:`.graphs.escape_region`): there the other players and chance
keep play away from the goal for ever whatever the coalition does.  In both cases the engine replays a
path to a concrete state that the node stands for (checked with :mod:`.alpha`); for an escape region, one
play of the other side's strategy is shown as a lasso when the engine can repeat it.
"""
from __future__ import annotations

from .alpha import alpha, coverage_of
from .checker import Counterexample, Result, Verifier
from .graphs import coreachable, escape_region, must_attractor, strategy_move
from .properties import automatic_target, phase_of, size_note, stopped, trace
from .values import DEAL_START, ERROR, MATCH_OVER


def check_can_end(V: Verifier, prop) -> Result:
    return automatic_target(V, prop) or _check_reach(V, prop, lambda u, actor: True, "the players together")


def check_can_force(V: Verifier, prop) -> Result:
    auto = automatic_target(V, prop)
    if auto is not None:
        return auto
    ex, A, err = V.exploration(V.spec_for(prop))
    if ex is None:
        return stopped(prop.name, prop.kind, err)

    def coalition(u, actor):
        """Surely the player's move (for a proof: a move the abstraction cannot attribute is the others')."""
        w = ex.states.get(u)
        if w is None:
            return False
        return A.eval(prop.player, w, {}) == [actor]

    def maybe_coalition(u, actor):
        """Possibly the player's move (for a refutation: the others keep play away only where they surely
        choose; where the player may be the one to move, every move he has must stay away)."""
        w = ex.states.get(u)
        if w is None:
            return True
        vals = A.eval(prop.player, w, {})
        return actor in vals or any(not isinstance(v, int) or isinstance(v, bool) for v in vals)

    from atout.compiler.ir import _expr_text
    return _check_reach(V, prop, coalition, f"{_expr_text(prop.player)} alone, whatever the others and chance do",
                        maybe_coalition)


def _check_reach(V: Verifier, prop, coalition, who: str, maybe_coalition=None) -> Result:
    """``coalition(node, actor)``: the node's move is surely the coalition's (the attractor, a proof);
    ``maybe_coalition``: it may be (the escape region, a refutation; default ``coalition``).

    The states of the phases are their decisions (graph nodes) and their chance nodes, where the engine rests
    too, inside a move's effects (:func:`chance_rests`): a do phase's only states are its chance nodes."""
    ex, A, err = V.exploration(V.spec_for(prop))
    if ex is None:
        return stopped(prop.name, prop.kind, err)
    G = ex.graph
    phases = set(prop.phases)
    targets = {k for k in ex.states if phase_of(k) == prop.target}
    loop = [k for k in ex.states if phase_of(k) in phases]
    rests = chance_rests(ex, phases)
    attr = must_attractor(G, targets, coalition, maybe_dead=ex.maybe_dead, cases=ex.cases)
    missing = [u for u in loop if u not in attr]
    open_rests = [um for um, outs in rests.items() if not outs <= attr]
    where = f"{{{', '.join(prop.phases)}}}"
    if not missing and not open_rests:
        if not loop and not rests:
            return vacuous(prop, ex, A)
        return Result(prop.name, prop.kind, "proved",
                      f"attractor on the abstraction ({size_note(ex, A)}): from all {len(loop)} reachable "
                      f"decision states of {where}{_rests_note(rests)}, {who} can force reaching "
                      f"'{prop.target}' (only surely legal moves; chance and what the abstraction cannot tell "
                      f"adversarial)")
    why: list = []
    if missing:
        r = refute_reach(V, ex, A, prop.name, prop.kind, targets, set(missing), maybe_coalition or coalition,
                         lambda st: st.phase in phases and not st.is_terminal(), prop.target, why=why)
        if r is not None:
            return r
    if open_rests:
        W = escape_region(G, targets, maybe_coalition or coalition, maybe_dead=ex.maybe_dead, cases=ex.cases)
        r = refute_at_chance(V, ex, A, prop.name, prop.kind, open_rests, attr, phases,
                             lambda st: (lambda s: s.phase == prop.target), f"'{prop.target}'", W=W)
        if r is not None:
            return r
    return Result(prop.name, prop.kind, "unknown",
                  f"attractor on the abstraction ({size_note(ex, A)}) misses {len(missing)} of {len(loop)} "
                  f"decision states" + (f" and the chance nodes of {len(open_rests)} of {len(rests)} move(s) "
                                        f"(some outcome of the move is not shown to reach it)" if rests else "")
                  + (f"; found {'; and '.join(why)}" if why else
                     f", and no state was found from which the others surely keep play away from "
                     f"'{prop.target}'") + ": the abstraction may be too coarse to show a strategy")


def vacuous(prop, ex, A) -> Result:
    """Unknown: the exploration saw no state of the property's phases, so a proof would be vacuous."""
    return Result(prop.name, prop.kind, "unknown",
                  f"play never rests in {{{', '.join(prop.phases)}}} in the abstraction ({size_note(ex, A)}): no "
                  f"decision and no chance node there, so the property would hold of no state at all; name the "
                  f"phases where play rests (a do phase without a shuffle, a draw or 'random' never rests)")


def _rests_note(rests: dict) -> str:
    return f" and the chance nodes inside {len(rests)} move(s)" if rests else ""


def chance_rests(ex, phases: set | None) -> dict:
    """``{(node, move): outcomes}`` for every move of the graph whose effects pass a chance node of one of
    ``phases`` (every phase: None).  The engine rests at a chance node (a state of its phase, with chance to
    move), but no graph node stands for it; every continuation from it ends at an outcome of its move, so
    it surely reaches a set of nodes when all the move's outcomes are in it (an over-approximation of its
    own outcomes, which the graph does not keep apart)."""
    adj = ex.successors()
    out = {}
    for (u, m), phs in ex.chance_rests.items():
        if phases is None or phs & phases:
            out[(u, m)] = {v for v, keyed in adj[u].items() if any(d["move"] == m for d in keyed.values())}
    return out


def refute_at_chance(V, ex, A, name, kind, open_rests, attr, phases, goal_for, goal_text, W=None,
                     chance_helps=False, tries: int = 6):
    """A refutation at a chance node of ``phases`` inside one of the moves ``open_rests`` (``[(node, move)]``,
    some outcome outside ``attr``), or None.  The engine replays a path through the move to one of its
    outcomes outside ``attr``; at each chance node of the phases on the way (after the move's decision)
    it searches every continuation for ``goal_for(state)(later state)``: none reaches it (a trap), or,
    unless ``chance_helps``, chance has an outcome after which play stops, none reaches it, or the other
    side's escape region ``W`` holds play (a node that stands for the state)."""
    cov = coverage_of(ex, A)
    rank = {u: i for i, u in enumerate(_by_depth(V, ex, {u for u, _ in open_rests}))}
    adj = ex.successors()
    order = dict.fromkeys(u for u, _ in sorted(open_rests, key=lambda um: rank.get(um[0], len(rank))))
    used = [0]       # engine states searched, up to the search budget (a count: the same answer every time)
    for u, init, edges in _paths(V, ex, order, tries):
        if used[0] >= V.budget.search_steps or V.budget.expired():
            break
        moves = {m for x, m in open_rests if x == u}
        outs = [(v, d) for v, keyed in adj[u].items() if v not in attr for d in keyed.values()
                if d["move"] in moves]
        for v, d in outs[:3]:
            err = isinstance(v, tuple) and bool(v) and v[0] == ERROR
            real = V.replay(A, ex, init, edges + [d], None if err else (lambda st: True), expect_error=err,
                            attempts=min(20, V.budget.replays))
            if real is None:
                continue
            r = _trap_at_chance(V, A, cov, real.steps, phases, goal_for, goal_text, W, chance_helps, name, kind,
                                used)
            if r is not None:
                return r
    return None


def _paths(V, ex, nodes, tries: int):
    """``(node, initial key, edges)`` of the shortest path to each of ``nodes`` (in their order) that has one,
    at most ``tries`` of them."""
    tried = 0
    for node in nodes:
        if tried >= tries:
            break
        found = V.path_to(ex, {node})
        if found is None:
            continue
        tried += 1
        yield node, found[0], found[1]


def _trap_at_chance(V, A, cov, steps, phases, goal_for, goal_text, W, chance_helps, name, kind, used):
    """The refutation at the chance nodes of ``phases`` after the last decision of ``steps`` (the latest
    first, at most :data:`CHANCE_TRIES`), or None; the engine states searched are added to ``used[0]``, and
    the search stops once they pass the budget's ``search_steps``."""
    from atout.engine.evaluate import RuleError
    from .concretize import Realization
    from .playouts import exhaustive
    last = max((i for i, s in enumerate(steps) if s["player"] >= 0), default=-1)
    st = V.game.new_initial_state()
    found = []      # (steps before it, chance state of the phases)
    for i, s in enumerate(steps + [None]):
        if i > last and st.is_chance_node() and (phases is None or st.phase in phases):
            found.append((i, st.clone()))
        if s is None:
            break
        try:
            st.apply_action(s["action"])
        except RuleError:
            break
    cap = V.budget.search_steps

    def search(st, goal):
        if used[0] >= cap:
            return None
        return exhaustive(st, goal, max_states=min(5_000, cap - used[0]), used=used)
    for i, c in reversed(found[-CHANCE_TRIES:]):
        goal = goal_for(c)
        here = f"this chance node (a state of '{c.phase}': the engine rests there for chance to move)"
        if search(c, goal) is False:
            real = Realization(steps[:i], c, i)
            return Result(name, kind, "refuted", f"from {here} no continuation reaches {goal_text}: the engine "
                          f"searched every one (every action and chance outcome)",
                          counterexample=trace(V, real, note=f"a trap: every continuation stops before "
                                                             f"{goal_text}"))
        if chance_helps:
            continue
        for path, r, how in _chance_to_rest(c, goal):
            if used[0] >= cap:
                return None
            if how == "rest":
                if search(r, goal) is False:
                    how = f"a state from which no continuation reaches {goal_text}"
                elif W is not None and any(n in W for n in cov.find_all(alpha(A, r)[0])):
                    how = (f"a state from which the other side keeps play away from {goal_text} whatever the "
                           f"coalition does (a strategy on the abstraction using only surely legal moves)")
                else:
                    continue
            prefix = steps[:i] + path
            real = Realization(prefix, r, i)
            return Result(name, kind, "refuted", f"at {here} chance may move to {how}, never reaching "
                          f"{goal_text} (chance is the other side)",
                          counterexample=trace(V, real, note=f"chance's outcome leads to {how}"))
    return None


CHANCE_TRIES = 4     # chance nodes tried on one replayed path, the latest first


def _chance_to_rest(c, goal, limit: int = 200):
    """``[(chance steps, state, how)]``: the chance outcomes from concrete chance node ``c`` followed to the next
    state where a player decides (``how`` 'rest'), play stops (the end of the match 'the match ends', a
    rule error 'a rule error', the state None), leaving out those that meet ``goal`` on the way; at most
    ``limit`` outcomes, after at most ``10 * limit`` chance nodes expanded (depth first)."""
    from atout.engine.evaluate import RuleError
    out = []
    stack = [([], c)]
    expanded = 0
    while stack and len(out) < limit and expanded < 10 * limit:   # a deal of several cards branches widely
        path, st = stack.pop()
        expanded += 1
        for a, _ in st.chance_outcomes():
            nxt = st.clone()
            step = {"player": -1, "action": a, "text": st.action_to_string(a)}
            try:
                nxt.apply_action(a)
            except RuleError:
                out.append((path + [step], None, "a rule error (play stops)"))
                continue
            if goal(nxt):
                continue
            if nxt.is_terminal():
                out.append((path + [step], nxt, "the end of the match"))
            elif nxt.is_chance_node():
                stack.append((path + [step], nxt))
            else:
                out.append((path + [step], nxt, "rest"))
    return out


def refute_reach(V, ex, A, name, kind, targets, missing, coalition, in_scope, goal_text, chance_helps=False,
                 goal=None, why: list | None = None):
    """A refutation of reaching ``targets`` from the ``missing`` nodes, or None.  With ``chance_helps`` (the
    goal need only be reachable with some chance outcomes), the escape region does not apply; instead the
    engine searches every continuation of a replayed state for ``goal(state)``.  ``why`` (a list) receives
    what was found in the abstraction but not replayed, for the unknown verdict's message."""
    G = ex.graph
    cov = coverage_of(ex, A)
    # a state from which even the over-approximation never reaches the goal is a real trap
    co = coreachable(G, targets)
    trapped = {u for u in missing if u not in co}
    if trapped:
        r = _replay_into(V, ex, A, cov, trapped, in_scope)
        if r is not None:
            real, node = r
            return Result(name, kind, "refuted", f"from this state no sequence of moves and chance outcomes "
                          f"reaches '{goal_text}', even in the over-approximation",
                          counterexample=trace(V, real, note="a trap"))
        # the abstract path fixes too much (who wins each trick, which anonymous card is drawn): seeded engine
        # matches, until one rests in a state that a trapped node stands for (every such state is a trap)
        from .playouts import search_matches

        def in_trap(st):
            return not st.is_terminal() and not st.is_chance_node() and in_scope(st) and \
                any(n in trapped for n in cov.find_all(alpha(A, st)[0]))
        real = search_matches(V.game, in_trap, V.budget.search_steps)
        if real is not None:
            return Result(name, kind, "refuted", f"from this state no sequence of moves and chance outcomes "
                          f"reaches '{goal_text}', even in the over-approximation (a seeded engine match reached "
                          f"it)", counterexample=trace(V, real, note="a trap"))
        if why is not None:
            why.append(f"{len(trapped)} abstract states from which even the over-approximation never reaches "
                       f"'{goal_text}', none of which the engine could replay or reach in "
                       f"{V.budget.search_steps} steps of seeded matches")
    if chance_helps:
        return _exhaustive_trap(V, ex, A, cov, name, kind, missing, in_scope, goal, goal_text)
    W = escape_region(G, targets, coalition, maybe_dead=ex.maybe_dead, cases=ex.cases)
    inside = {u for u in missing if u in W}
    if inside:
        r = _replay_into(V, ex, A, cov, inside, in_scope)
        if r is not None:
            real, node = r
            lasso = _strategy_lasso(V, ex, A, node, W, coalition, len(real.steps), real)
            note = (f"from here the other side keeps play away from '{goal_text}' whatever the coalition does "
                    f"(for ever, or until play stops in a rule error, a dead end or the end of the match): a "
                    f"strategy on the abstraction using only moves that are surely legal and outcomes that exist "
                    f"in every concrete state ({len(W)} abstract states)")
            if lasso is not None:
                return Result(name, kind, "refuted", "the other side's strategy avoids the goal: " + note +
                              "; one play of it, a lasso, replayed by the engine", counterexample=lasso)
            return Result(name, kind, "refuted", note, counterexample=trace(V, real, note=note))
        if why is not None:
            why.append(f"{len(inside)} abstract states where the other side keeps play away from '{goal_text}' "
                       f"(its escape region), none of which the engine could replay: a concrete state there may "
                       f"not exist")
    return None


def _replay_into(V, ex, A, cov, nodes: set, in_scope, order=None, tries: int = 6):
    """A concrete replay to a state that one of ``nodes`` stands for: ``(realization, node)`` or None."""
    for node, init, edges in _paths(V, ex, order if order is not None else _by_depth(V, ex, nodes), tries):
        def check(st):
            if st.is_terminal() or st.is_chance_node() or not in_scope(st):
                return False
            return any(n in nodes for n in cov.find_all(alpha(A, st)[0]))

        real = V.replay(A, ex, init, edges, check, attempts=min(20, V.budget.replays))
        if real is not None:
            return real, next(n for n in cov.find_all(alpha(A, real.state)[0]) if n in nodes)
    return None


def _by_depth(V, ex, nodes: set) -> list:
    """``nodes`` in the order a breadth-first search from the start of the match meets them."""
    G = ex.graph
    seen = set(ex.initial)
    order = [k for k in ex.initial if k in nodes]
    frontier = list(ex.initial)
    i = 0
    while i < len(frontier):
        u = frontier[i]
        i += 1
        for v in G.successors(u):
            if v not in seen:
                seen.add(v)
                frontier.append(v)
                if v in nodes:
                    order.append(v)
    return order


def _exhaustive_trap(V, ex, A, cov, name, kind, missing, in_scope, goal, goal_text):
    """Replay states of ``missing`` nodes (those next to a rule error first, the latest in a deal first) and
    search every concrete continuation for ``goal``; a state none of whose continuations reaches it is a
    trap."""
    from .playouts import exhaustive
    from .values import ERROR
    G = ex.graph
    near_error = [u for u in missing if any(isinstance(v, tuple) and v and v[0] == ERROR for v in G.successors(u))]
    order = [u for u in _by_depth(V, ex, set(near_error))][::-1] + \
        [u for u in _by_depth(V, ex, set(missing) - set(near_error))][::-1]
    for node in order[:6]:
        r = _replay_into(V, ex, A, cov, {node}, in_scope, order=[node], tries=1)
        if r is None:
            continue
        real, _ = r
        if exhaustive(real.state, goal(real.state), max_states=5_000) is False:
            return Result(name, kind, "refuted", f"from this state no continuation reaches {goal_text}: the "
                          f"engine searched every one (every action and chance outcome) and each stops first",
                          counterexample=trace(V, real, note="a trap: every continuation stops before "
                                                             f"{goal_text}"))
    return None


def _strategy_lasso(V, ex, A, start, W, coalition, prefix_len, real):
    """From ``start``, follow the other side's strategy (and the coalition's first move) until a node repeats;
    replay the cycle three times after the prefix that reached ``start``."""
    G = ex.graph
    seen = {start: 0}
    path = []
    u = start
    while True:
        step = strategy_move(G, u, W, coalition)
        if step is None:
            return None
        v, data = step
        path.append(data)
        if v in (MATCH_OVER,) or not isinstance(v, tuple) or v[0] == DEAL_START or v not in ex.states:
            return None
        if v in seen:
            cycle_from = seen[v]
            break
        seen[v] = len(path)
        u = v
    found = V.path_to(ex, {start})
    if found is None:
        return None
    init, prefix, _ = found
    cycle = path[cycle_from:]
    lead = path[:cycle_from]
    real2 = V.replay(A, ex, init, prefix + lead + cycle, lambda st: not st.is_terminal(), extra_cycles=2,
                     cycle_from=len(prefix) + len(lead), attempts=min(60, V.budget.replays))
    if real2 is None:
        return None
    decisions = [i for i, s in enumerate(real2.steps) if s["player"] >= 0]
    if len(decisions) < 3 * len(cycle):
        return None
    first = decisions[-3 * len(cycle)]
    cyc = (len(real2.steps) - first) // 3
    start_i = len(real2.steps) - 3 * cyc
    return Counterexample("lasso", real2.steps, start_i, cyc,
                          "the other side's strategy: the cycle repeats for ever and never reaches the goal",
                          V.play_by_play(real2.steps[:start_i + cyc], start=max(0, start_i - 3)))


def _trap_before_error(V, goal_for, back: int = 12):
    """A concrete rule error (from seeded engine matches), and on its way the latest state from which the
    engine finds no continuation that ends the deal: a trap."""
    from atout.engine.evaluate import RuleError
    from .concretize import Realization
    from .playouts import exhaustive
    from .properties import _search_error
    err = _search_error(V)
    if err is None:
        return None
    steps = err.steps[:-1]      # the last step raised the error
    states = [V.game.new_initial_state()]
    try:
        for s in steps:
            nxt = states[-1].clone()
            nxt.apply_action(s["action"])
            states.append(nxt)
    except RuleError:
        return None
    for k in range(len(states) - 1, max(-1, len(states) - 1 - back), -1):
        st = states[k]
        if st.is_terminal():
            continue
        if exhaustive(st, goal_for(st), max_states=5_000) is False:
            real = Realization(steps[:k], st, 0)
            return Result("builtin:no_trap", "can_end", "refuted",
                          f"from this state no continuation ends the deal: the engine searched every one (every "
                          f"action and chance outcome) and each stops first, in a rule error ({err.error})",
                          counterexample=trace(V, real, note="a trap: every continuation stops before the end of "
                                                             "the deal"))
    return None


def check_no_trap(V: Verifier, ex, A, note) -> Result:
    """``builtin:no_trap``: from every reachable state a deal can still end (or the match), with the players'
    choices and chance outcomes that exist in every concrete state of a node."""
    G = ex.graph
    targets = {MATCH_OVER} | {k for k in ex.states if phase_of(k) == DEAL_START and k not in ex.initial}
    attr = must_attractor(G, targets, lambda u, a: True, chance_helps=True, maybe_dead=ex.maybe_dead,
                          cases=ex.cases)
    # a dead end (no legal action) is a trap too: nothing can end the deal from it
    missing = {u for u in ex.states if u not in attr and u not in targets}
    rests = chance_rests(ex, None)
    open_rests = [um for um, outs in rests.items() if not outs <= attr]
    if not missing and not open_rests:
        return Result("builtin:no_trap", "can_end", "proved",
                      f"exhaustive exploration ({note}): from every reachable state a deal can surely still end "
                      f"(an attractor using only surely legal moves and outcomes that exist in every concrete "
                      f"state; a chance node inside a move, from every outcome of the move)")

    def goal_for(start):
        n0 = len(start.deal_log)     # the deal in progress ends, or the match
        return lambda st: st.is_terminal() or len(st.deal_log) > n0

    if missing:
        r = refute_reach(V, ex, A, "builtin:no_trap", "can_end", targets, missing, lambda u, a: True,
                         lambda st: not st.is_terminal(), "the end of a deal", chance_helps=True, goal=goal_for)
        if r is not None:
            return r
    if open_rests:
        r = refute_at_chance(V, ex, A, "builtin:no_trap", "can_end", open_rests, attr, None, goal_for,
                             "the end of a deal", chance_helps=True)
        if r is not None:
            return r
    r = _trap_before_error(V, goal_for)
    if r is not None:
        return r
    return Result("builtin:no_trap", "can_end", "unknown",
                  f"{len(missing)} abstract states" + (f" and the chance nodes inside {len(open_rests)} move(s)"
                                                       if open_rests else "") +
                  f" are not shown to reach the end of a deal (what the abstraction "
                  f"cannot tell, e.g. a write that may leave a variable's range, may stop them), and no trap "
                  f"was replayed")

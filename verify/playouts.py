"""Concrete searches in the engine: seeded matches and exhaustive search from a state.

The verifier plays the engine itself to find counterexamples the abstract path could not give
(:func:`search_matches`), to witness reachability, to cross-check its own abstraction
(:mod:`.crosscheck`) and, in the mutation tests, as an independent oracle.  Every search is bounded by a
number of matches or of states, never by time, so that it finds the same thing on every machine.
"""
from __future__ import annotations

import random

from atout.engine.evaluate import RuleError, StepLimitError

from .concretize import Realization

MAX_MATCH_STEPS = 4000


def choose_random(rng):
    """A policy: uniformly random chance outcomes and legal actions."""
    def policy(st, options, chance):
        return options[rng.randrange(len(options))]
    return policy


def play_match(game, policy, on_state=None, max_steps: int = MAX_MATCH_STEPS, before_step=None):
    """One match: ``policy(state, options, is_chance) -> option`` picks every chance outcome and action;
    ``on_state(state, steps) -> bool`` is called at the start and after every step (True stops the match);
    ``before_step()``, when given, just before each step is applied.
    Returns ``(steps, final state, rule error text or None)``; a rule error ends the match."""
    st = game.new_initial_state()
    steps: list[dict] = []
    if before_step is not None:
        before_step()
    if on_state is not None and on_state(st, steps):
        return steps, st, None
    while not st.is_terminal() and len(steps) < max_steps:
        chance = st.is_chance_node()
        try:   # the legal moves read the rules' conditions, which may be a rule error themselves
            options = [a for a, _ in st.chance_outcomes()] if chance else st.legal_actions()
            if not options:
                return steps, st, None   # a dead end: nothing to play
            a = policy(st, options, chance)
        except RuleError as exc:
            return steps, st, str(exc)
        p = st.current_player()
        steps.append({"player": p if p >= 0 else -1, "action": a, "text": st.action_to_string(a)})
        if before_step is not None:
            before_step()
        try:
            st.apply_action(a)
        except RuleError as exc:
            return steps, st, str(exc)
        if on_state is not None and on_state(st, steps):
            break
    return steps, st, None


def search_matches(game, found, steps: int, seed: int = 11, policies=None):
    """Seeded matches, ``steps`` engine steps in all, until ``found(state) -> bool`` holds after some step:
    that play as a :class:`Realization` (or None).  ``policies``: a list of policy makers ``f(rng)``, used in
    turn."""
    from atout.engine.bots import GreedyBot
    rng = random.Random(seed)
    makers = policies or [choose_random, _greedy_policy(GreedyBot)]
    used = 0
    k = -1
    while used < steps:
        k += 1
        sub = random.Random(rng.randrange(1 << 30))
        policy = makers[k % len(makers)](sub)
        hit = {}

        def on_state(st, steps):
            if found(st):
                hit["at"] = (list(steps), st)
                return True
            return False

        played, _, _ = play_match(game, policy, on_state, max_steps=min(MAX_MATCH_STEPS, steps - used))
        used += len(played) + 1
        if hit:
            trail, st = hit["at"]
            return Realization(trail, st, 0)
    return None


def _greedy_policy(bot_class):
    def make(rng):
        bots = {}

        def policy(st, options, chance):
            if chance:
                return options[rng.randrange(len(options))]
            p = st.current_player()
            if p not in bots:
                bots[p] = bot_class(rng.randrange(1 << 30))
            return bots[p].step(st)
        return policy
    return make


LOOP_COST = 5_000     # what a step stopped by the engine's step limit counts as in a search's budget of states:
                      # it ran the engine's hundred thousand steps, not one


def exhaustive(state, goal, max_states: int = 20_000, used: list | None = None):
    """Search every continuation of a concrete ``state`` (all actions, all chance outcomes) for one where
    ``goal(state)`` holds.  Returns True (found), False (every continuation explored, none reaches it) or
    None (the budget ran out).  A rule error or a dead end is a continuation that does not reach it.
    ``used`` (a one-element list), when given, has the states searched added to it.  A step the engine stops
    at its step limit (:class:`~atout.engine.evaluate.StepLimitError`) counts as :data:`LOOP_COST` states."""
    stack = [state]
    seen = 0
    try:
        while stack:
            st = stack.pop()
            if goal(st):
                return True
            if st.is_terminal():
                continue
            seen += 1
            if seen > max_states:
                return None
            chance = st.is_chance_node()
            try:
                options = [a for a, _ in st.chance_outcomes()] if chance else st.legal_actions()
            except RuleError:      # the legal moves raise a rule error: a continuation that does not reach it
                continue
            for a in options:
                nxt = st.clone()
                nxt.on_score = st.on_score        # a goal may read the rows the continuation fires
                try:
                    nxt.apply_action(a)
                except StepLimitError:            # a loop of automatic phases: costly
                    seen += LOOP_COST
                    continue
                except RuleError:
                    continue
                stack.append(nxt)
        return False
    finally:
        if used is not None:
            used[0] += seen


def dead_end(st) -> bool:
    """Whether concrete ``st`` is a dead end; a state whose legal moves raise a rule error is not one (it is
    a rule error)."""
    try:
        return st.is_dead_end()
    except RuleError:
        return False


def distances_to(ex, targets) -> dict:
    """Abstract node -> number of moves to the nearest of ``targets`` (reverse breadth-first search)."""
    G = ex.graph
    dist = {t: 0 for t in targets if t in G}
    frontier = list(dist)
    i = 0
    while i < len(frontier):
        v = frontier[i]
        i += 1
        for u in G.predecessors(v):
            if u not in dist:
                dist[u] = dist[v] + 1
                frontier.append(u)
    return dist


def _distances(ex, targets) -> dict:
    """:func:`distances_to`, kept on ``ex`` for the same targets (the witnesses of each value of one action
    steer toward the same nodes); made afresh when the graph gained states or nodes since."""
    cache = ex.__dict__.setdefault("_distances", {})
    key = (frozenset(targets), len(ex.states), len(ex.graph))
    got = cache.get(key)
    if got is None:
        if len(cache) >= 8:
            cache.clear()
        got = cache[key] = distances_to(ex, targets)
    return got


#: the options a steered decision weighs at most (each costs a look-ahead step and an abstraction)
STEER_POOL = 16


def varied_sample(st, options: list, rng: random.Random, k: int = STEER_POOL) -> list:
    """``k`` of the legal ``options`` of the decision at ``st`` for a steered search to weigh: one of each kind
    of move first (each named action, each card action, a card play: ``state._legal()``), at random within
    its kind, then others at random.  A uniform sample would weigh a rare kind (Bridge's pass, one action
    among 35 bids) in a third of the decisions only, and a search that needs four passes in a row would
    almost never try them."""
    how = st._legal()
    kinds: dict = {}
    for a in options:
        h = how.get(a)
        act = h[1] if h is not None and len(h) > 1 else None
        kinds.setdefault((h and h[0], act.name if act is not None else None), []).append(a)
    first = [v[rng.randrange(len(v))] for v in kinds.values()]
    if len(first) >= k:
        return rng.sample(first, k)
    chosen = set(first)
    return first + rng.sample([a for a in options if a not in chosen], k - len(first))


#: the share of random choices a steered search's matches rise to, and over how many failed matches
STEER_EPSILON_MAX = 0.5
STEER_WIDEN = 64
#: chance outcomes drawn, at most, to weigh a decision whose next state is a chance node (a draw after a discard)
CHANCE_LOOKAHEAD = 64


def steered_search(V, ex, A, targets, found, steps: int, seed: int = 7, epsilon: float = 0.15, before_step=None):
    """Seeded engine matches steered toward the abstract ``targets``: at every decision and chance node the
    option whose next state at rest maps (:mod:`.alpha`) closest to a target in the abstract graph is
    preferred (ties, and a share of the choices, at random: ``epsilon`` in the first match, rising with each
    match that failed to :data:`STEER_EPSILON_MAX` over :data:`STEER_WIDEN` matches, since an abstract
    distance followed closely can lead the same wrong way every time).  A decision whose options have all
    been weighed (in one visit, or over several samples) and all looked alike (the abstraction cannot tell
    them apart: a bid kept only as an interval) is not weighed again at the same node with the same
    options: one is played at random, and the budget goes to more matches.  ``steps`` bounds the engine
    steps, the options weighed included.  Returns a :class:`Realization` of the first state where
    ``found(state)`` holds, or None.  ``before_step()``, when given, is called just before every step applied
    (the options weighed included): a ``found`` that watches what a step does (the rows a scoring fires)
    starts afresh."""
    from .alpha import alpha, coverage_of
    dist = _distances(ex, targets)
    if not dist:
        return None
    cov = coverage_of(ex, A)
    far = max(dist.values()) + 1
    memo: dict = {}

    def distance(st, sub=None):
        """The abstract distance of ``st`` to the targets; a chance node's (None without ``sub``) is that of the
        decision its outcomes lead to, drawn with ``sub`` (a discard followed by a draw is a move toward a
        target too: counted as the farthest, a move that draws was never preferred to one that does not)."""
        if st.is_terminal():
            return far
        if st.is_chance_node():
            if sub is None:
                return None
            st = st.clone()
            try:
                for _ in range(CHANCE_LOOKAHEAD):
                    outs = st.chance_outcomes()
                    st.apply_action(outs[sub.randrange(len(outs))][0])
                    used[0] += 1          # (engine steps: counted in the budget as the options weighed are)
                    if not st.is_chance_node():
                        break
            except RuleError:
                return None
            if st.is_terminal():
                return far
            if st.is_chance_node():
                return None
        key = alpha(A, st)[0]
        if key not in memo:     # the nearest of the nodes that stand for it (intervals may overlap)
            memo[key] = min((dist.get(n, far) for n in cov.find_all(key)), default=far)
        return memo[key]

    rng = random.Random(seed)
    tracked = set(A.track)
    used = [0]

    # (node key, options) of a decision -> the distance each option weighed there had; once every option has
    # been weighed (over one visit or several samples) and all had the same, the decision is flat
    weighed: dict = {}
    flat: set = set()

    def make(sub, eps):
        def policy(st, options, chance):
            if len(options) == 1 or sub.random() < eps:
                return options[sub.randrange(len(options))]
            here = None
            if not chance:
                here = (alpha(A, st)[0], tuple(options))
                if here in flat:      # weighing them again would only spend the budget: one at random
                    return options[sub.randrange(len(options))]
            if chance and st.pending and st.pending[0][0] >= 0:
                # chance outcomes of one class (a tracked card, or any untracked one) look alike to the
                # abstraction: weigh one of each
                anon = [a for a in options if a not in tracked]
                pool = [a for a in options if a in tracked] + ([anon[sub.randrange(len(anon))]] if anon else [])
            else:
                pool = options if len(options) <= STEER_POOL else varied_sample(st, options, sub, STEER_POOL)
            scored = []
            used[0] += len(pool)
            for a in pool:
                nxt = st.clone()
                nxt.on_score = st.on_score    # the look-ahead is watched too: 'found' reads the rows it fires
                if before_step is not None:
                    before_step()
                try:
                    nxt.apply_action(a)
                except RuleError:
                    continue
                if found(nxt):
                    return a
                d = distance(nxt, None if chance else sub)
                scored.append((far if d is None else d, a) if not chance else (d if d is not None else far - 1, a))
            if not scored:
                return options[sub.randrange(len(options))]
            best = min(d for d, _ in scored)
            ties = [a for d, a in scored if d == best]
            if here is not None and here not in flat:
                seen = weighed.setdefault(here, {})
                for d, a in scored:
                    seen[a] = d
                if len(seen) == len(options) and len(set(seen.values())) == 1:
                    flat.add(here)
                    del weighed[here]
            return ties[sub.randrange(len(ties))]
        return policy

    tried = 0
    while used[0] < steps:
        sub = random.Random(rng.randrange(1 << 30))
        eps = epsilon + (max(epsilon, STEER_EPSILON_MAX) - epsilon) * min(1.0, tried / STEER_WIDEN)
        tried += 1
        hit = {}

        def on_state(st, trail):
            if found(st):
                hit["at"] = (list(trail), st)
                return True
            return False

        played, _, _ = play_match(V.game, make(sub, eps), on_state, max_steps=MAX_MATCH_STEPS, before_step=before_step)
        used[0] += len(played) + 1
        if hit:
            trail, st = hit["at"]
            return Realization(trail, st, 0)
    return None

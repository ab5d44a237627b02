"""The cross-check: after verifying, the verifier checks its own abstraction against the engine.

It plays seeded matches in the engine, half of them uniformly at random and half *steered*: at every
decision and chance node the policy prefers the action or outcome whose next state the concrete runs have
not yet covered (the abstract node it maps to, :mod:`.alpha`), so that the matches spread over the
explored graph and reach its corners.  On every match it checks:

(a) every concrete decision state is stood for by a node of every exploration a proved verdict used, and
    every concrete step from decision to decision (chance draws included) by one of its edges (with the
    same move);
(b) every proved property holds concretely: an invariant in every observable state, a deal bound on every
    deal, a conserves condition on every arrival at its target, a complete table at every scoring (one row
    fires), no rule error and no dead end when those were proved, a ranking function that decreases.

A failure is a bug of the verifier: it is reported with the concrete trace, and every verdict that relied
on the failing exploration becomes unknown.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from atout.engine.evaluate import RuleError

from .alpha import alpha, coverage_of
from .playouts import MAX_MATCH_STEPS
from .properties import arrival_fails, bound_holds, concrete_test, deal_record
from .values import DEAL_START


@dataclass
class CrossCheck:
    matches: int = 0
    states: int = 0          # concrete decision states mapped into the abstraction
    steps: int = 0           # concrete steps (decision to decision) matched to abstract edges
    observed: int = 0        # concrete states where proved properties were evaluated
    failures: list = field(default_factory=list)   # {"what", "property"?, "steps"}

    def as_json(self) -> dict:
        return {"matches": self.matches, "concrete_states": self.states, "concrete_steps": self.steps,
                "observed_states": self.observed, "failures": self.failures}


class _Graph:
    """One exploration a proved verdict used, with its coverage index."""

    def __init__(self, spec, ex, A):
        self.spec = spec
        self.ex = ex
        self.A = A
        self.cov = coverage_of(ex, A)
        self.users: list[str] = []


def cross_check(V, results, matches: int, max_steps: int | None = None) -> CrossCheck:
    """Play ``matches`` seeded matches (``max_steps`` engine steps in all, if given) and check the abstraction
    and the proved verdicts against them; verdicts that a failure undermines become unknown (in ``results``,
    in place)."""
    from atout.compiler import ir
    out = CrossCheck()
    if matches <= 0:
        return out
    game = V.game
    proved = {r.name: r for r in results if r.verdict == "proved"}
    props = {p.name: p for p in V.g.properties}
    graphs: dict = {}
    for name in proved:
        p = props.get(name)
        if p is None and not name.startswith("builtin:"):
            continue
        spec = proved[name].explored
        if spec is None:
            continue   # proved by z3 without exploring: only checked concretely (b)
        if spec == "own":
            spec = V.spec_for(p if p is not None else ir.Property(name, "reachable"))
        ex, A, err = V.exploration(spec)
        if ex is None:
            continue
        key = id(ex)
        if key not in graphs:
            graphs[key] = _Graph(spec, ex, A)
        graphs[key].users.append(name)
    checks = _concrete_checks(V, proved, props)
    rng = random.Random(2026)
    visited: set = set()
    main = next(iter(graphs.values()), None)
    for k in range(matches):
        if max_steps is not None and out.steps >= max_steps:
            break
        sub = random.Random(rng.randrange(1 << 30))
        steered = k % 2 == 1 and main is not None
        failure = _one_match(V, graphs, checks, sub, steered, main, visited, out, max_steps)
        out.matches += 1
        if failure is not None:
            out.failures.append(failure)
            _undermine(results, failure, graphs, props)
            if len(out.failures) >= 5:
                break
    return out


def _undermine(results, failure, graphs, props=None):
    names = set(failure.get("properties", ()))
    # a table's completeness is one claim under two names: 'complete T' and builtin:table:T
    tables = {n[len("builtin:table:"):] for n in names if n.startswith("builtin:table:")}
    tables |= {p.target for n in names if (p := (props or {}).get(n)) is not None and p.kind == "complete"}
    names |= {f"builtin:table:{t}" for t in tables}
    names |= {n for n, p in (props or {}).items() if p.kind == "complete" and p.target in tables}
    for r in results:
        if r.verdict == "proved" and r.name in names:
            r.verdict = "unknown"
            r.method = (f"verifier bug found by the cross-check ({failure['what']}); the proof was: " + r.method)


def _one_match(V, graphs, checks, rng, steered, main, visited, out, max_steps=None):
    game = V.game
    st = game.new_initial_state()
    steps: list[dict] = []
    prev = {}           # graph id -> the nodes that stand for the last decision, reached along the run
    last_deal = 0
    for c in checks:
        c.start(st)
    while not st.is_terminal() and len(steps) < MAX_MATCH_STEPS and \
            (max_steps is None or out.steps < max_steps):
        for c in checks:
            bad = c.observe(st)
            if bad:
                out.observed += 1
                return {"what": bad, "properties": [c.name], "steps": list(steps)}
        out.observed += 1
        chance = st.is_chance_node()
        try:    # the legal moves read the rules' conditions, which may raise a rule error themselves
            legal = None if chance else st.legal_actions()
            outcomes = [a for a, _ in st.chance_outcomes()] if chance else None
        except RuleError as exc:
            return _rule_error(checks, exc, steps)
        if not chance:
            if not legal:
                return None     # a dead end (builtin:no_dead_end, checked below, decides whether it matters)
            out.states += 1
            failure = None      # every exploration is checked at this state: each that misses it is wrong
            for gid, gr in graphs.items():
                key, _, _ = alpha(gr.A, st)
                nodes = gr.cov.find_all(key)
                before = prev.get(gid)
                if nodes and before is not None:    # the run is a path: some node of the last step leads here
                    nodes = [v for v in nodes if any(_has_step(gr.ex, u, v) for u in before)] or None
                what = None
                if nodes == []:
                    what = f"a concrete state is not in the abstraction: {_short(key)}"
                elif nodes is None:
                    what = "a concrete step is not an edge of the abstraction"
                if what is not None:
                    if failure is None:
                        failure = {"what": what, "properties": [], "steps": list(steps)}
                    failure["properties"] += [u for u in gr.users if u not in failure["properties"]]
                    continue
                prev[gid] = nodes
                if gr is main:
                    visited.update(nodes)
            if failure is not None:
                return failure
            options = legal
        else:
            options = outcomes
        a = _steer(st, options, rng, main, visited) if steered else options[rng.randrange(len(options))]
        p = st.current_player()
        steps.append({"player": p if p >= 0 else -1, "action": a, "text": st.action_to_string(a)})
        try:
            st.apply_action(a)
            dead = st.is_dead_end()    # (the legal moves may raise a rule error)
        except RuleError as exc:
            return _rule_error(checks, exc, steps)
        if dead:
            for c in checks:
                if c.kind in ("no_dead_end", "no_rule_error"):
                    return {"what": f"a dead end after '{c.name}' was proved", "properties": [c.name],
                            "steps": steps}
        out.steps += 1
    for c in checks:
        bad = c.observe(st)
        if bad:
            return {"what": bad, "properties": [c.name], "steps": list(steps)}
    return None


def _rule_error(checks, exc, steps):
    """A match stopped by a rule error (``exc``): a failure if 'no rule error' was proved, else its end."""
    for c in checks:
        if c.kind == "no_rule_error":
            return {"what": f"a rule error after 'no rule error' was proved: {exc}", "properties": [c.name],
                    "steps": list(steps)}
    return None


def _has_step(ex, u, v) -> bool:
    """Whether the abstraction has an edge u -> v (through a deal-start node when the step ends a deal)."""
    G = ex.graph
    if G.has_edge(u, v):
        return True
    return any(isinstance(w, tuple) and w and w[0] == DEAL_START and G.has_edge(w, v) for w in G.successors(u))


def _steer(st, options, rng, main, visited):
    """Prefer an option whose next decision the concrete runs have not visited yet (else at random)."""
    if rng.random() < 0.3 or len(options) == 1:
        return options[rng.randrange(len(options))]
    fresh = []
    sample = options if len(options) <= 8 else rng.sample(options, 8)
    for a in sample:
        nxt = st.clone()
        try:
            nxt.apply_action(a)
        except RuleError:
            fresh.append(a)      # steer into rule errors too: they are where proofs go wrong
            continue
        if nxt.is_terminal() or nxt.is_chance_node():
            continue
        key, _, _ = alpha(main.A, nxt)
        node = main.cov.find(key)
        if node is not None and node not in visited:
            fresh.append(a)
    pool = fresh or options
    return pool[rng.randrange(len(pool))]


def _short(key) -> str:
    text = repr(key)
    return text if len(text) < 300 else text[:300] + "..."


class _Check:
    kind = ""

    def __init__(self, V, name, prop=None):
        self.V = V
        self.name = name
        self.prop = prop

    def start(self, st):
        pass

    def observe(self, st):
        return None


class _Invariant(_Check):
    kind = "invariant"

    def __init__(self, V, name, prop):
        super().__init__(V, name, prop)
        self.holds = concrete_test(V, prop.expr)

    def observe(self, st):
        if not self.holds(st):
            return f"the proved invariant '{self.name}' fails in a concrete state"
        return None


class _DealBound(_Check):
    kind = "deal_bound"

    def start(self, st):
        self.seen = 0
        self.unreadable = False

    def observe(self, st):
        while self.seen < len(st.deal_log) and not self.unreadable:
            d = deal_record(st, self.seen)
            self.seen += 1
            try:
                holds = bound_holds(self.prop.expr, d, self.V.game)
            except ValueError:
                # a gain indexed by what a deal's record does not keep (gain(points[eldest])): this bound
                # is left to the other checks (the abstraction's states and steps), not evaluated here
                self.unreadable = True
                return None
            if not holds:
                return f"the proved deal bound '{self.name}' fails on a concrete deal ({d['gains']})"
        return None


class _Arrival(_Check):
    kind = "conserves"

    def start(self, st):
        self.phase = st.phase

    def observe(self, st):
        came = self.phase
        self.phase = st.phase
        if arrival_fails(self.V, self.prop, came, st):
            return f"the proved condition of '{self.name}' fails on reaching '{self.prop.target}'"
        return None


class _Table(_Check):
    kind = "complete"

    def __init__(self, V, name, table):
        super().__init__(V, name)
        self.table = table
        self.fired = []

    def start(self, st):
        self.fired = []
        prev = st.on_score

        def hook(t, rows, prev=prev):
            if t == self.table:
                self.fired.append(rows)
            if prev is not None:
                prev(t, rows)
        st.on_score = hook

    def observe(self, st):
        while self.fired:
            rows = self.fired.pop(0)
            if len(rows) != 1:
                return f"the proved table '{self.table}' fired {len(rows)} rows on a concrete deal"
        return None


class _Plain(_Check):
    def __init__(self, V, name, kind):
        super().__init__(V, name)
        self.kind = kind


def _concrete_checks(V, proved, props) -> list:
    out = []
    for name in proved:
        p = props.get(name)
        if p is not None:
            if p.kind == "invariant":
                out.append(_Invariant(V, name, p))
            elif p.kind == "deal_bound":
                out.append(_DealBound(V, name, p))
            elif p.kind == "conserves":
                out.append(_Arrival(V, name, p))
            elif p.kind == "complete":
                out.append(_Table(V, name, p.target))
        elif name == "builtin:no_rule_error":
            out.append(_Plain(V, name, "no_rule_error"))
        elif name == "builtin:no_dead_end":
            out.append(_Plain(V, name, "no_dead_end"))
        elif name.startswith("builtin:table:"):
            out.append(_Table(V, name, name[len("builtin:table:"):]))
    return out

"""The checks every game gets without asking.

Each is reported like a property, named ``builtin:...``:

* ``builtin:conservation`` — every card is always in exactly one zone (z3: each card-moving effect
  preserves the total; the engine only moves cards between zones);
* ``builtin:no_rule_error`` — no reachable state raises a rule error: no variable leaves its declared range,
  no bad index or player, no division by zero, no draw from too few cards, no effects looping without a
  decision, no player left without a legal action (a dead end, as ``builtin:no_dead_end``);
* ``builtin:no_dead_end`` — no reachable non-final state without a legal action;
* ``builtin:no_trap`` — from every reachable state a deal can still end (or the match);
* ``builtin:reachable`` — every phase and action can be reached (else each is a finding);
* ``builtin:guards`` — every guard, condition and row can hold;
* ``builtin:table:NAME`` — every scoring table: no overlapping rows, no gap.
"""
from __future__ import annotations

import random

from atout.compiler import ir

from . import smt
from .checker import TIMEOUT_NOTE, Result, Spec, Verifier
from .liveness import walk
from .properties import check_reachable, refute_error, size_note, stopped, table_result, trace
from .reach import check_no_trap


def builtin_checks(V: Verifier, guard=lambda name, fn: fn()) -> list[Result]:
    """Every built-in check; ``guard(name, thunk)`` runs each one (the caller turns a verifier failure into
    an unknown verdict)."""
    return [run() for _, run in builtin_units(V, guard)]


BUILTIN_CHECKS = ("builtin:conservation", "builtin:no_rule_error", "builtin:no_dead_end", "builtin:no_trap",
                  "builtin:reachable", "builtin:guards")


def builtin_names(g: ir.Game) -> list[str]:
    """The names of the built-in checks of game ``g``, in the report's order (that of :func:`builtin_units`)."""
    return list(BUILTIN_CHECKS) + [f"builtin:table:{t.name}" for t in g.tables]


def builtin_units(V: Verifier, guard=lambda name, fn: fn()) -> list[tuple[str, object]]:
    """The built-in checks as ``[(name, thunk returning its Result, run through guard)]``, in the report's
    order.  Each thunk can run on its own, in any order and in any process (``atout verify -j``):
    ``no_rule_error``, which reads the verdict of ``no_dead_end``, makes that one first when this process has
    not made it yet."""
    spec = V.spec_for(ir.Property("builtin", "reachable"))
    try:
        ex, A, err = V.exploration(spec)
    except Exception as exc:  # noqa: BLE001 - a verifier failure is an unknown verdict, never a crash
        ex, A, err = None, None, f"the verifier failed: {type(exc).__name__}: {exc}"
    if ex is None:
        # what may need no exploration still runs (z3's conservation, the engine's witnesses of reachability, a
        # table z3 decides over every value of what its rows read); every other check says why it is not decided
        needs = ["builtin:no_rule_error", "builtin:no_dead_end", "builtin:no_trap", "builtin:guards"]
        kinds = {"builtin:no_dead_end": "can_end", "builtin:no_trap": "can_end", "builtin:guards": "reachable"}
        units = [("builtin:conservation", lambda: guard("builtin:conservation", lambda: _conservation(V))),
                 ("builtin:reachable", lambda: guard("builtin:reachable", lambda: _reachable(V)))]
        units += [(name, lambda name=name: stopped(name, kinds.get(name, "invariant"), err)) for name in needs]
        units += [(f"builtin:table:{t.name}", lambda t=t: guard(f"builtin:table:{t.name}", lambda: table_result(
            V, f"builtin:table:{t.name}", "complete", t, explore=False) or stopped(f"builtin:table:{t.name}",
                                                                                  "complete", err)))
                  for t in V.g.tables]
        order = builtin_names(V.g)
        return sorted(units, key=lambda u: order.index(u[0]))
    note = size_note(ex, A)
    memo: list = []

    def dead() -> Result:
        if not memo:
            memo.append(guard("builtin:no_dead_end", lambda: _dead_ends(V, ex, A, note)))
        return memo[0]

    checks = [("builtin:conservation", lambda: _conservation(V)),
              ("builtin:no_rule_error", lambda: _rule_errors(V, ex, A, note, dead())),
              ("builtin:no_trap", lambda: check_no_trap(V, ex, A, note)),
              ("builtin:reachable", lambda: _reachable(V)),
              ("builtin:guards", lambda: _guards(V, ex, A, note))]
    checks += [(f"builtin:table:{t.name}", lambda t=t: table_result(V, f"builtin:table:{t.name}", "complete", t))
               for t in V.g.tables]
    units = [(name, lambda name=name, fn=fn: guard(name, fn)) for name, fn in checks]
    units.insert(2, ("builtin:no_dead_end", dead))
    return units


def _conservation(V: Verifier) -> Result:
    try:
        ok, n, where = smt.conservation(V.game, V.budget.rlimit)
    except smt.SolverTimeout:
        return Result("builtin:conservation", "invariant", "unknown", "z3 reached its resource limit")
    if ok:
        return Result("builtin:conservation", "invariant", "proved",
                      f"inductive invariant by SMT (z3): all {n} card-moving effects preserve the total of "
                      f"{V.game.num_cards} cards; a card only moves from one zone to another")
    return Result("builtin:conservation", "invariant", "refuted", f"an effect changes the number of cards: {where}")


def _reachable(V: Verifier) -> Result:
    r = check_reachable(V, ir.Property("builtin:reachable", "reachable"))
    r.kind = "reachable"
    return r


def _rule_errors(V: Verifier, ex, A, note, dead: Result) -> Result:
    """No rule error and no dead end (``dead``: the result of ``builtin:no_dead_end``) is reachable."""
    name = "builtin:no_rule_error"
    lemma_ok, lemma = V.range_lemma()
    if dead.verdict != "proved" and not ex.errors:
        return Result(name, "invariant", dead.verdict, "a player may be left without a legal action: "
                      + dead.method, counterexample=dead.counterexample, detail=dead.detail)
    if ex.errors:
        src, msg, move = ex.errors[0]
        r = refute_error(V, ex, A, ir.Property(name, "invariant"), src, msg, move, kind="invariant")
        if r.verdict == "unknown" and not lemma_ok:
            r.method += f"; the ranges of the match variables are not proved ({lemma})"
        return r
    return Result(name, "invariant", "proved",
                  f"exhaustive exploration ({note}): no reachable state raises a rule error (ranges, indices, "
                  f"players, divisions, draws, effects without end) and none is a dead end; " + lemma)


def _dead_ends(V, ex, A, note) -> Result:
    G = ex.graph
    dead = [u for u in ex.states if G.out_degree(u) == 0] + sorted(ex.maybe_dead, key=str)
    if not dead:
        return Result("builtin:no_dead_end", "can_end", "proved",
                      f"exhaustive exploration ({note}): every reachable state has a legal action")
    found = V.path_to(ex, set(dead))
    if found is None:
        return Result("builtin:no_dead_end", "can_end", "unknown", "an abstract dead end with no path")
    init, edges, last = found
    from .playouts import dead_end, search_matches
    real = V.replay(A, ex, init, edges, dead_end)
    if real is None:
        # the state may have no legal action only in some of the cases the abstraction cannot tell apart
        real = search_matches(V.game, dead_end, V.budget.search_steps)
    if real is None:
        return Result("builtin:no_dead_end", "can_end", "unknown",
                      f"the abstraction has {len(dead)} states that may have no legal action (phase "
                      f"'{last[0]}'), which neither a replay nor seeded engine matches reached")
    return Result("builtin:no_dead_end", "can_end", "refuted",
                  f"a reachable state in phase '{real.state.phase}' has no legal action",
                  counterexample=trace(V, real, note=f"dead end in phase '{real.state.phase}'"))


def _conditions(V) -> list[tuple[int, str, object]]:
    """Every guard, condition and row ``builtin:guards`` covers, in the rule file's order:
    ``[(id of its expression, how the report names it, the table it is a row of or None)]``."""
    out = []
    for ph in V.g.phases:
        for a in ph.actions:
            if not isinstance(a.guard, ir.Const):
                out.append((id(a.guard), f"guard of action '{a.name}' ({a.span.path}:{a.span.line})", None))
        bodies = [a.body for a in ph.actions] + [ph.body] + ([ph.trick.then, ph.trick.after] if ph.trick else [])
        for b in bodies:
            for s in walk(b):
                if isinstance(s, ir.If):
                    for cond, _ in s.branches:
                        if not isinstance(cond, ir.Const):
                            out.append((id(cond), f"condition at {s.span.path}:{s.span.line}", None))
    for t in V.g.tables:
        for r in t.rows:
            out.append((id(r.guard), f"row '{r.name}' of table '{t.name}' ({r.span.path}:{r.span.line})", t.name))
    return out


def _guards(V, ex, A, note) -> Result:
    """Every guard, condition and row can hold.  An existence claim: the over-approximating abstraction can
    only refute it (what never holds there never holds in play); a proof needs the engine to make each one
    hold (:func:`_held_in_engine`), else the verdict is unknown."""
    items = _conditions(V)
    # a row of a table the abstraction never scored is not refuted (its scoring may be followed by z3 alone)
    never_true = [what for i, what, table in items
                  if i not in A.seen_true and (table is None or A.score_outcomes.get(table))]
    if never_true:
        return Result("builtin:guards", "reachable", "refuted",
                      f"exhaustive exploration ({note}): can never hold: " + "; ".join(never_true))
    held = _held_in_engine(V, ex, A, [i for i, _, _ in items])
    lacking = [what for i, what, _ in items if i not in held]
    if lacking and V.budget.expired():
        return Result("builtin:guards", "reachable", "unknown", TIMEOUT_NOTE + "; not yet seen to hold in the "
                      "engine: " + "; ".join(lacking))
    if lacking:
        return Result("builtin:guards", "reachable", "unknown",
                      f"each can hold in the over-approximating abstraction ({note}), which proves no more "
                      f"than that; seeded engine matches (up to {V.budget.search_steps} steps, then as many for each "
                      f"steered toward where it held in the abstraction; raise --search-steps) never made these hold: "
                      + "; ".join(lacking))
    guards = sum(1 for _, what, _ in items if what.startswith("guard"))
    rows = sum(1 for _, _, table in items if table is not None)
    return Result("builtin:guards", "reachable", "proved",
                  f"every guard, condition and row held in seeded engine runs (concrete witnesses): {guards} "
                  f"guards, {len(items) - guards - rows} conditions, {rows} rows")


#: seeded matches in a row that make nothing new hold before the steered searches are tried (a random match
#: costs far less per step than a steered one, which weighs its options)
STALE_MATCHES = 16


def _held_in_engine(V, ex, A, wanted: list[int]) -> set[int]:
    """The ids among ``wanted`` (guards, conditions, rows: expressions of ``V.g``) that held in engine runs:
    seeded matches (random and greedy players) until each held or :data:`STALE_MATCHES` in a row add nothing;
    then, for each still missing, matches steered toward the abstract states where it held in the abstraction
    (``A.true_at``); ``search_steps`` engine steps each.  The runs use the interpreter, which evaluates every
    condition through ``test`` (watched here); every state it evaluates one in is reached by legal play."""
    from atout.engine.bots import GreedyBot, RandomBot
    from atout.engine.state import State
    from .playouts import play_match, steered_search
    want = set(wanted)
    held: set[int] = set()

    class Watched(State):
        def test(self, e, env):
            r = State.test(self, e, env)
            if r:               # held: as the machine reads it ('if self.test(...)')
                held.add(id(e))
            return r

    game = V.game
    orig = game.new_initial_state
    game.new_initial_state = lambda: Watched(game)
    try:
        rng = random.Random(0)
        used = stale = 0
        while used < V.budget.search_steps and stale < STALE_MATCHES and not want <= held and \
                not V.budget.expired():
            before = len(held)
            bots = [(RandomBot if rng.random() < 0.7 else GreedyBot)(rng.randrange(1 << 30))
                    for _ in range(game.players)]
            sub = random.Random(rng.randrange(1 << 30))

            def policy(st, options, chance):
                if chance:
                    return options[sub.randrange(len(options))]
                return bots[st.current_player()].step(st)
            played, _, _ = play_match(game, policy, max_steps=3000)
            used += len(played) + 1
            stale = 0 if len(held) > before else stale + 1
        for i in wanted:
            if i in held:
                continue
            if V.budget.expired():      # the wall-clock safety: the verdict says so (never a proof)
                break
            targets = {k for k in A.true_at.get(i, ()) if k in ex.states}
            if targets:
                steered_search(V, ex, A, targets, lambda st, i=i: i in held, V.budget.search_steps)
    finally:
        game.new_initial_state = orig
    return held & want

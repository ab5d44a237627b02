"""One checker per kind of property (the liveness and termination kinds are in :mod:`.reach` and
:mod:`.termination`).

Each checker returns a :class:`~.checker.Result`.  See :mod:`.checker` for what each verdict promises.
"""
from __future__ import annotations

import random

from atout.compiler import ir
from atout.engine.evaluate import RuleError

from . import smt
from .checker import MAX_TRACKED, TIMEOUT_NOTE, Counterexample, Result, Spec, Verifier, tracked_cards
from .playouts import search_matches
from .values import ANON, DEAL_START, ERROR, TOP_INT, Interval, add, compare, is_top


# -- helpers ---------------------------------------------------------------------------------------------
def phase_of(key) -> str | None:
    return key[0] if isinstance(key, tuple) and key and isinstance(key[0], str) and key[0] != ERROR else None


def size_note(ex, A) -> str:
    t = f"{len(ex.states)} abstract states, {ex.transitions} transitions"
    if A.track:
        t += f", tracking {len(A.track)} named cards"
    if A.coarse:
        from .liveness import forgotten_text
        t += f", forgetting {forgotten_text(A.g, A.coarse)}"
        bounds = getattr(ex, "counter_bounds", None) or {}
        if bounds:
            t += ", " + ", ".join(f"'{n}' proved at most {b} on every path" for n, b in sorted(bounds.items()))
    return t


def trace(V: Verifier, real, kind="trace", note="", cycle_start=None, cycle_len=None) -> Counterexample:
    return Counterexample(kind, real.steps, cycle_start, cycle_len, note,
                          V.play_by_play(real.steps, start=max(0, real.prefix_len - 3)))


def stopped(prop_name: str, kind: str, err: str) -> Result:
    if err.startswith("the verifier failed"):
        return Result(prop_name, kind, "unknown", f"{err} (a verifier bug: please report it with the rule file)")
    note = TIMEOUT_NOTE if "--timeout" in err else \
        "raise --max-transitions if the game is finite and the memory allows" if "--max-transitions" in err else \
        "raise --max-states if the game is finite but large"
    return Result(prop_name, kind, "unknown", f"exploration stopped: {err} ({note})")


# what an unrealised abstract violation means: the property may be true (the abstraction over-approximates)
SEARCH_HINT = ("(the property may well be true: the abstraction is coarser than the game there, see "
               "docs/verify.md, 'Limits'; or a violation is rarer than the search: --search-steps searches longer)")


def holds_concretely(V: Verifier, expr: ir.Expr, st) -> bool:
    """``expr`` with ``p`` bound to every player, in a concrete state; a rule error in it does not hold."""
    return concrete_test(V, expr)(st)


def concrete_test(V: Verifier, expr: ir.Expr):
    """:func:`holds_concretely` for ``expr`` as a function of the concrete state, its compiled closure and the
    players it is read for looked up once (for a caller that asks in every state of a match)."""
    from .liveness import players_bound
    f = V.game.compile(expr)
    players = players_bound(V.game, expr)

    def test(st) -> bool:
        try:
            for p in players:
                if not f(st, {"p": p}):     # (a fresh binding each time, as the evaluator may extend it)
                    return False
            return True
        except RuleError:
            return False
    return test


def abstract_detail(V, ex, A, src, expr=None, move=None, last: int = 12) -> str:
    """What an unknown verdict rests on: the last moves (at most ``last``) of the shortest abstract path to the
    node ``src`` (then ``move``, where the violation lies, when given) and, at ``src``, the phase, the player
    to move, the zone sizes and the values of the variables ``expr`` reads (every deal variable when None),
    as the abstraction holds them (``[lo..hi]`` an interval, ``any`` any int, ``?`` a value it does not
    keep).  A starting point for a reader, not a play: no engine replayed it."""
    found = V.path_to(ex, {src}) if src is not None else None
    w = ex.states.get(src) if src is not None else None
    if found is None or w is None:
        return "abstract counterexample: at the start of the match"
    _, edges, _ = found
    g = V.game
    steps = [_move_text(g, d.get("move")) for d in edges]
    if move is not None:
        steps.append(_move_text(g, move) + " (the violation lies in this move or where it leads)")
    shown = steps[-last:]
    path = ("... " if len(steps) > len(shown) else "") + "; ".join(shown)
    names = sorted(_vars_read(expr)) if expr is not None else [v.name for v in V.g.vars if v.scope == "deal"]
    types = {v.name: v.type for v in V.g.vars}
    values = [f"{n} = {_abstract_value(w.vars[n], types.get(n), g)}" for n in names if n in w.vars]
    sizes = [f"{slot.name}{'' if slot.owner is None else f'[{slot.owner}]'}: {_size_text(n)}"
             for slot, n in zip(g.zone_slots, w.sizes)]
    who = w.player_to_move() if w.phase != DEAL_START else None
    return (f"abstract counterexample ({len(steps)} move{'' if len(steps) == 1 else 's'} from the start of the "
            f"match; seats and suits counted as the "
            f"abstraction counts them, from the dealer when it turns the table, suits relabelled when no rule "
            f"names one): {path or 'none'}; "
            f"before the last move: phase '{w.phase}'" +
            (f", seat {who} to move" if isinstance(who, int) and who >= 0 else "") +
            (f"; {', '.join(values)}" if values else "") + f"; zone sizes {', '.join(sizes)}")


def _move_text(g, m) -> str:
    if m is None:
        return "?"
    seat = f"seat {m.actor}" if m.actor is not None and m.actor >= 0 else "chance"
    if m.kind == "start":
        return "a deal starts"
    if m.kind in ("play", "card", "choose"):
        card = g.card_str(m.value) if isinstance(m.value, int) and m.value >= 0 else "an untracked card"
        verb = "plays" if m.kind == "play" else f"{m.action}"
        return f"{seat} {verb} {card}"
    if m.kind == "named":
        return f"{seat} {m.action}" + (f"({m.value})" if m.value is not None else "")
    return f"{seat} {m.action or m.kind} (done)"


def _vars_read(expr) -> set:
    from .liveness import subexprs
    return {x.name for x in subexprs(expr) if isinstance(x, ir.VarRef)}


def _abstract_value(v, t: ir.Type | None = None, g=None) -> str:
    """An abstract value as a reader knows it: ``none``, a suit's or rank's name, ``seat 2``, ``K♠`` (with its
    type ``t`` and the engine's game ``g``); ``[lo..hi]`` an interval, ``any`` what the abstraction forgot
    (every value of the type), ``an untracked card``, ``?`` a value it does not keep."""
    if is_top(v):
        return "any"
    if isinstance(v, tuple) and not isinstance(v, Interval):
        return "(" + ", ".join(_abstract_value(x, t, g) for x in v) + ")"
    if v is None:
        return "?"
    if isinstance(v, Interval):
        return "any" if v.lo is None and v.hi is None else repr(v)
    if t is not None and t.kind == "card" and v == ANON:
        return "an untracked card"
    if t is not None and g is not None and t.kind != "int" and isinstance(v, int):
        try:
            return g.value_str(v, t)
        except (IndexError, KeyError, TypeError):
            return str(v)
    return str(v)


def _size_text(n) -> str:
    return "?" if n is None or n < 0 else str(n)


def refute_at(V, ex, A, prop, src, move, check, note, kind=None, validate=None) -> Result:
    """Replay a path to ``src`` and ``move``'s successors; refuted when ``check`` holds at the end (and
    ``validate(realization)``, when given, holds of the replayed steps)."""
    kind = kind or prop.kind
    if src is None:
        return Result(prop.name, kind, "unknown", "an abstract violation at the start of the match")
    found = V.path_to(ex, {src})
    if found is None:
        return Result(prop.name, kind, "unknown", "an abstract violation with no path")
    init, edges, _ = found
    outs = [d for _, _, d in ex.graph.out_edges(src, data=True) if d["move"] == move] if move is not None else []
    for last in (outs[:6] or [None]):
        real = V.replay(A, ex, init, edges + ([last] if last is not None else []), check)
        if real is not None and (validate is None or validate(real)):
            return Result(prop.name, kind, "refuted", "exhaustive exploration found a violation; the engine "
                          "replayed it", counterexample=trace(V, real, note=note))
    return None


# -- invariants -------------------------------------------------------------------------------------------
def check_invariant(V: Verifier, prop: ir.Property) -> Result:
    r = V.proved_by_sizes(prop)
    if r is not None:
        return Result(r.name, r.kind, r.verdict, r.method, explored=None)
    r = _total_invariant(V, prop)
    if r is not None:
        return r
    ex, A, err = V.exploration(V.spec_for(prop))
    if ex is None:
        return stopped(prop.name, prop.kind, err)
    mon = V.monitor(prop.name, ex)
    if not mon.violations:
        by_smt = (f"; where the abstraction's values alone allowed it to fail ({mon.ruled_out} cases), z3 showed "
                  f"it holds in every concrete state they stand for") if mon.ruled_out else ""
        return Result(prop.name, prop.kind, "proved",
                      f"exhaustive exploration of an over-approximating abstraction ({size_note(ex, A)}): the "
                      f"invariant holds in all {mon.checked} observable abstract states (decisions, chance "
                      f"nodes, the end of the match){by_smt}")
    holds = concrete_test(V, prop.expr)     # (compiled once: the searches ask in every state they reach)
    check = (lambda st: not holds(st))
    for kind, src, move in mon.violations:
        r = refute_at(V, ex, A, prop, src, move, check, "the invariant fails here")
        if r is not None:
            return r
    # the abstract path fixes too much (the trick winners, which anonymous card is drawn): search the engine
    real = search_matches(V.game, check, V.budget.search_steps)
    if real is not None:
        return Result(prop.name, prop.kind, "refuted", "the abstraction has a violation; a seeded engine "
                      "match realised it", counterexample=trace(V, real, note="the invariant fails here"))
    return Result(prop.name, prop.kind, "unknown", f"the abstraction ({size_note(ex, A)}) has a violation that "
                  f"neither its replay nor {V.budget.search_steps} steps of seeded engine searches realised {SEARCH_HINT}",
                  detail=abstract_detail(V, ex, A, mon.violations[0][1], prop.expr, mon.violations[0][2]))


def _total_invariant(V: Verifier, prop: ir.Property) -> Result | None:
    """``total(V) == c`` on a match variable: an inductive invariant if it holds at the start and every
    effect on V preserves the total (z3), provided no state is observable between two of the effect's
    assignments (no draw in those blocks, and ``ends when`` does not read what they assign)."""
    from .liveness import phase_stmts, subexprs, walk
    e = prop.expr
    if not (isinstance(e, ir.BinOp) and e.op == "==" and isinstance(e.right, ir.Const) and
            isinstance(e.left, ir.Call) and e.left.fn == "total" and isinstance(e.left.args[0], ir.VarRef)):
        return None
    name = e.left.args[0].name
    decl = V.game.var_decl[name]
    init = decl.init.value if isinstance(decl.init, ir.Const) else None
    size = V.game.players if decl.per == "player" else max(1, len(V.g.sides))
    if init is None or init * size != e.right.value or decl.scope != "match":
        return None
    ends_reads = {x.name for x in subexprs(V.g.match.ends_when) if isinstance(x, ir.VarRef)}
    for ph in V.g.phases:
        stmts = phase_stmts(V.g, ph)
        if any(isinstance(s, ir.ASSIGNS) and s.var == name for s in stmts):
            assigned = {s.var for s in stmts if isinstance(s, ir.ASSIGNS)}
            if assigned & ends_reads or any(isinstance(s, (ir.Move, ir.Deal)) for s in stmts):
                return None
    for t in V.g.tables:
        if any(isinstance(s, (ir.Move, ir.Deal)) for r in t.rows for s in walk(r.body)):
            return None
    for spec in V.gains_specs(cards_first=V.cards_matter({name})):
        ex, A, err = V.exploration(spec)
        if ex is None:
            continue
        try:
            ok, why = smt.preserves_total(V.game, name, A.score_outcomes, V.budget.rlimit)
        except smt.SolverTimeout:
            ok = False
        if not ok:
            why = _total_in_blocks(V, ex, A, name)
            ok = why is not None
        if ok:
            return Result(prop.name, prop.kind, "proved", f"inductive invariant: total({name}) = {e.right.value} "
                          f"at the start of the match, and every effect preserves it: {why}", explored=spec)
    return None


def _total_in_blocks(V: Verifier, ex, A, name: str) -> str | None:
    """When every write to ``name`` is in a deal-end block z3 follows: that no such block, from any state it
    starts in on exploration ``ex``, changes ``total(name)``."""
    from . import smt_refine
    from .liveness import phase_stmts
    writes = [s for ph in V.g.phases for s in phase_stmts(V.g, ph) if isinstance(s, ir.ASSIGNS) and s.var == name]
    if not writes or not all(id(s) in V.followed_statements() for s in writes) or not ex.end_blocks:
        return None
    for start, block in ex.end_blocks:
        if smt_refine.block_changes_total(A, start, block, name) is not False:
            return None
    return (f"SMT (z3): every write to {name} is in a deal-end block, and none of the {len(ex.end_blocks)} "
            f"distinct blocks ({size_note(ex, A)}), followed from every state it starts in, changes total({name})")


# -- conservation ---------------------------------------------------------------------------------------------
def automatic_target(V: Verifier, prop: ir.Property) -> Result | None:
    """Unknown when the target phase of ``reach PHASE`` is automatic (a ``do`` phase): play passes through it
    within a move and never rests there, and the exploration's states are the rests, so it would never be
    seen reached (a false refutation of ``can_end``, a vacuous proof of ``conserves``); else None."""
    ph = V.g.phase(prop.target) if prop.target is not None else None
    if ph is not None and ph.kind == "auto":
        return Result(prop.name, prop.kind, "unknown",
                      f"the target '{prop.target}' is an automatic phase: play passes through it without resting "
                      f"there, and the verifier sees play only where it rests; name the phase it leads to (or "
                      f"a choice phase) as the target")
    return None


def check_conserves(V: Verifier, prop: ir.Property) -> Result:
    auto = automatic_target(V, prop)
    if auto is not None:
        return auto
    ex, A, err = V.exploration(V.spec_for(prop))
    if ex is None:
        return stopped(prop.name, prop.kind, err)
    phases = set(prop.phases)
    try:
        ok, n_checked, where = smt.conservation(V.game, V.budget.rlimit)
    except smt.SolverTimeout:
        return Result(prop.name, prop.kind, "unknown", "z3 reached its resource limit on conservation")
    if not ok:
        return Result(prop.name, prop.kind, "refuted", f"an effect changes the number of cards: {where}")
    for src, msg, move in ex.errors:
        if ex.error_phases.get((src, msg), {phase_of(src)}) & phases:     # the phase the error was raised in
            return refute_error(V, ex, A, prop, src, msg, move)
    mon = V.monitor(prop.name, ex) if prop.target is not None else None
    count = mon.checked if mon is not None else 0
    if mon is not None and mon.violations:
        for kind, src, move in mon.violations:
            r = refute_at(V, ex, A, prop, src, move, lambda st: st.phase == prop.target,
                          f"the condition fails on reaching '{prop.target}'",
                          validate=lambda real: _arrival_fails(V, prop, real.steps))
            if r is not None:
                return r
        return Result(prop.name, prop.kind, "unknown", f"the abstraction has an arrival at '{prop.target}' where "
                      f"the condition may fail, which the engine could not replay")
    if mon is not None and count == 0:
        return Result(prop.name, prop.kind, "unknown",
                      f"no arrival at '{prop.target}' from {{{', '.join(prop.phases)}}} in the abstraction "
                      f"({size_note(ex, A)}), so the condition would hold of no state at all: check that play "
                      f"rests in those phases (a decision, or a chance node: a shuffle, a draw, 'random') and "
                      f"goes from them to '{prop.target}'")
    return Result(prop.name, prop.kind, "proved",
                  f"inductive invariant by SMT (z3: all {n_checked} card-moving effects preserve the total of "
                  f"{V.game.num_cards} cards); exhaustive exploration ({size_note(ex, A)}): no rule error in "
                  f"{{{', '.join(prop.phases)}}}"
                  + (f", and the condition holds on all {count} ways of reaching '{prop.target}'"
                     if prop.target else ""))


def arrival_fails(V, prop, came, st) -> bool:
    """A concrete violation of ``conserves PHASES reach P where C``: play rested in phase ``came`` (one of
    PHASES), and now rests in ``st``, a state of P, where C fails."""
    return prop.expr is not None and came in prop.phases and st.phase == prop.target and not st.is_terminal() \
        and not holds_concretely(V, prop.expr, st)


def _arrival_fails(V, prop, steps) -> bool:
    """Whether the engine, replaying ``steps``, rests at an arrival that :func:`arrival_fails`."""
    st = V.game.new_initial_state()
    for s in steps:
        came = st.phase if not st.is_terminal() else None
        try:
            st.apply_action(s["action"])
        except RuleError:
            return False
        if arrival_fails(V, prop, came, st):
            return True
    return False


def refute_error(V, ex, A, prop, src, msg, move, kind=None) -> Result:
    """A reachable abstract rule error: refuted when the engine replays a path that raises it."""
    kind = kind or prop.kind
    found = V.path_to(ex, {src})
    if found is None:
        return Result(prop.name, kind, "unknown", f"abstract rule error ({msg}) with no path")
    init, edges, _ = found
    bad = [d for _, v, d in ex.graph.out_edges(src, data=True)
           if isinstance(v, tuple) and v and v[0] == ERROR and v[1] == msg]
    # for 'conserves', the replayed error must be raised in one of its phases (the last move may raise
    # another one on the way, in another phase, where the abstraction's was not real)
    phases = set(prop.phases) if prop.kind == "conserves" else None
    for last in bad[:6] or [None]:
        if last is None or last["move"] is None:
            real = V.replay(A, ex, init, edges, lambda st: _legal_raises(st) and (phases is None or
                                                                           st.phase in phases))
            if real is not None:
                break
            continue
        real = V.replay(A, ex, init, edges + [last], None, expect_error=True)
        if real is not None and (phases is None or real.error_phase in phases):
            break
    else:
        real = None
    if real is None:
        real = _search_error(V, None if prop.kind != "conserves" else set(prop.phases))
    if real is None:
        return Result(prop.name, kind, "unknown", f"the abstraction reaches a rule error ({msg}) that neither its "
                      f"replay nor {V.budget.search_steps} steps of seeded engine searches realised {SEARCH_HINT}")
    return Result(prop.name, kind, "refuted", f"a rule error is reachable: {real.error or msg}",
                  counterexample=trace(V, real, note=real.error or msg))


def _legal_raises(st) -> bool:
    try:
        st.legal_actions()
    except RuleError:
        return True
    return False


def _search_error(V, phases=None):
    """Seeded engine matches (``search_steps`` steps in all) until one ends with a rule error (raised in one
    of ``phases``, if given); done once per set of phases."""
    from .concretize import Realization
    from .playouts import MAX_MATCH_STEPS, choose_random, play_match
    cache = V.__dict__.setdefault("_error_searches", {})
    key = None if phases is None else frozenset(phases)
    if key in cache:
        return cache[key]
    rng = random.Random(5)
    used, found = 0, None
    while used < V.budget.search_steps and found is None:
        steps, st, err = play_match(V.game, choose_random(random.Random(rng.randrange(1 << 30))),
                                    max_steps=min(MAX_MATCH_STEPS, V.budget.search_steps - used))
        used += len(steps) + 1
        if err is not None and (phases is None or st.phase in phases):
            found = Realization(steps, None, 0, err, st.phase)
    cache[key] = found
    return found


# -- per-deal bounds ---------------------------------------------------------------------------------------------
# what a deal bound may read besides the gains: pure functions of the player p and of numbers
BOUND_FUNCTIONS = frozenset({"side", "left", "right", "partner", "clockwise", "seat", "abs"})


def bound_reads_only_gains(expr: ir.Expr) -> bool:
    """Whether the deal bound ``expr`` reads nothing but the deal's gains (``gain(V[i])`` with ``i`` a function
    of the player ``p`` and numbers: ``p``, ``side(p)``, ``partner(p)``, ``seat(1)``, a number;
    ``gain(total(V))``, ``gain(max(V))``, ``gain(min(V))``, ``gain(V)``), numbers, options and functions of
    ``p``.  Anything else (``dealer``, ``eldest``, a variable, a zone) is the state of one deal, which the
    block model's start state does not keep: a deal-end block's summary stands for every deal that reaches
    it, whatever its dealer, when the block does not read him."""
    from .liveness import _children, subexprs

    def index_ok(i) -> bool:      # p, a number, side(p), seat(1), partner(p)...: no gain inside
        return ok(i) and not any(isinstance(x, ir.Call) and x.fn == "gain" for x in subexprs(i))

    def ok(e) -> bool:
        if isinstance(e, ir.Call) and e.fn == "gain":
            inner = e.args[0]
            if isinstance(inner, ir.Index):
                return isinstance(inner.base, ir.VarRef) and index_ok(inner.index)
            if isinstance(inner, ir.Call):
                return inner.fn in ("total", "max", "min") and isinstance(inner.args[0], ir.VarRef)
            return isinstance(inner, ir.VarRef)
        if isinstance(e, ir.Call):
            return e.fn in BOUND_FUNCTIONS and all(ok(a) for a in e.args)
        if isinstance(e, (ir.Const, ir.Local)):
            return True
        if isinstance(e, (ir.BinOp, ir.Not, ir.Neg, ir.Cond, ir.InSet, ir.Quant)):
            if isinstance(e, ir.Quant) and e.domain is not None:
                return False
            return all(ok(c) for c in _children(e))
        return False

    return ok(expr)


def _seat_function(game, fn: str, q, k: int = 0) -> int:
    """The engine's ``fn`` of seat ``q`` (0-based): ``side``, ``seat``, ``partner``, ``left``, ``right``, or
    ``clockwise`` by ``k`` seats; ValueError when ``q`` is not a seat."""
    n = game.players
    if not isinstance(q, int) or isinstance(q, bool) or not 0 <= q < n:
        raise ValueError(f"{q!r} is not a player")
    if fn == "side":
        return game.side_of[q]
    if fn == "seat":
        return q
    if fn == "partner":
        return game.partner[q]
    return (q + {"left": 1, "right": -1}.get(fn, k)) % n


def _cell(idx: ir.Expr, p: int, game) -> int | None:
    """The cell a gain's index names for player ``p``: ``p``, a number, or a function of them (``side(p)``,
    ``partner(p)``, ``seat(1)``) when ``game`` (an engine Game) is given; None when it cannot be told."""
    if isinstance(idx, ir.Local):
        return p
    if isinstance(idx, ir.Const):
        return idx.value if type(idx.value) is int else None
    if game is None or not isinstance(idx, ir.Call) or idx.fn not in ("side", "seat", "partner", "left", "right"):
        return None
    q = _cell(idx.args[0], p, game)
    try:
        return None if q is None else _seat_function(game, idx.fn, q)
    except ValueError:
        return None


def gain_eval(e: ir.Expr, gains: dict, p: int, game=None) -> list:
    """The possible values (bools, ints, :class:`Interval`) of a deal_bound expression given the per-deal
    gains of the watched variables (``{var: tuple per player or side}``, abstract ints), ``p`` the player the
    bound is checked for (0-based), ``game`` (an engine Game) to read indices such as ``side(p)``.  Every form
    the language allows is covered; what is not known (a gain the exploration does not watch) is any value
    of its type, so a bound is never taken to hold by accident."""
    if isinstance(e, ir.Const):
        return [e.value]
    if isinstance(e, ir.Call) and e.fn == "gain":
        inner = e.args[0]
        if isinstance(inner, ir.Index) and isinstance(inner.base, ir.VarRef):
            who = _cell(inner.index, p, game)
            row = gains.get(inner.base.name)
            if row is None or who is None or not 0 <= who < len(row):
                return [TOP_INT]
            return [row[who]]
        if isinstance(inner, ir.Call) and inner.fn == "total":
            row = gains.get(inner.args[0].name)
            if row is None:
                return [TOP_INT]
            acc = 0
            for x in row:
                acc = add(acc, x)
            return [acc]
        return [TOP_INT]            # gain(max(V)), gain(min(V)), a variable not kept per player
    if isinstance(e, ir.BinOp):
        a = gain_eval(e.left, gains, p, game)
        b = gain_eval(e.right, gains, p, game)
        out = []
        for x in a:
            for y in b:
                if e.op == "and":
                    out.append(x and y)
                elif e.op == "or":
                    out.append(x or y)
                elif e.op in ("+", "-"):
                    out.append(add(x, y, 1 if e.op == "+" else -1))
                elif e.op in ("==", "!=", "<", "<=", ">", ">="):
                    out.extend(compare(e.op, x, y))
                elif e.op == "*" and not isinstance(x, Interval) and not isinstance(y, Interval):
                    out.append(x * y)
                else:
                    out.append(TOP_INT)
        return list(dict.fromkeys(out))
    if isinstance(e, ir.Not):
        return list(dict.fromkeys(not x for x in gain_eval(e.operand, gains, p, game)))
    if isinstance(e, ir.Neg):
        return list(dict.fromkeys(add(0, x, -1) for x in gain_eval(e.operand, gains, p, game)))
    if isinstance(e, ir.Cond):
        out = []
        for t in gain_eval(e.test, gains, p, game):
            out.extend(gain_eval(e.then if t else e.orelse, gains, p, game))
        return list(dict.fromkeys(out))
    if isinstance(e, ir.InSet) and all(isinstance(i, ir.Const) for i in e.items):
        items = {i.value for i in e.items}
        out = []
        for x in gain_eval(e.value, gains, p, game):
            if not isinstance(x, Interval):
                out.append(x in items)
                continue
            if any(i in x for i in items):
                out.append(True)
            if x.lo is None or x.hi is None or any(v not in items for v in range(x.lo, x.hi + 1)):
                out.append(False)
        return list(dict.fromkeys(out))
    t = getattr(e, "type", None)
    return [True, False] if t is None or t.kind == "bool" else [TOP_INT]


def bound_holds(e: ir.Expr, deal: dict, game) -> bool:
    """A deal bound on one deal of a concrete match of ``game`` (an engine Game), for every player ``p``
    (0-based): ``deal`` is its :func:`deal_record` (``gains``: per player or side, of the int match variables
    kept so; ``before`` and ``after``: every match variable at the start and at the end of the deal, for
    ``gain(max(V))``, ``gain(min(V))`` and a variable not kept per player).  The forms are those of
    :func:`bound_reads_only_gains` (a gain indexed by ``p``, ``side(p)`` or a number, functions of ``p``);
    raises ValueError on any other (the caller's verdict is then unknown)."""
    gains = deal["gains"]
    before, after = deal.get("before"), deal.get("after")
    n = game.players

    def whole(name, fn):
        if before is None or after is None:
            raise ValueError(f"the values of '{name}' at the start and the end of the deal")
        a, b = after[name], before[name]
        return fn(a) - fn(b) if isinstance(a, list) else a - b

    def ev(x, env):
        if isinstance(x, ir.Const):
            return x.value
        if isinstance(x, ir.Local):
            if x.name not in env:
                raise ValueError(f"the local '{x.name}'")
            return env[x.name]
        if isinstance(x, ir.Call) and x.fn == "gain":
            inner = x.args[0]
            if isinstance(inner, ir.Index):
                return gains[inner.base.name][ev(inner.index, env)]
            if isinstance(inner, ir.VarRef):
                return whole(inner.name, sum)
            name = inner.args[0].name
            if inner.fn == "total":
                return sum(gains[name]) if name in gains else whole(name, sum)
            return whole(name, max if inner.fn == "max" else min)
        if isinstance(x, ir.Call) and x.fn in BOUND_FUNCTIONS:
            a = ev(x.args[0], env)
            if x.fn == "abs":
                return abs(a)
            return _seat_function(game, x.fn, a, ev(x.args[1], env) if x.fn == "clockwise" else 0)
        if isinstance(x, ir.Quant) and x.domain is None:
            values = [ev(x.body, {**env, x.var: q}) for q in range(n)]
            return {"any": any, "all": all, "sum": sum, "count": lambda vs: sum(1 for v in vs if v)}[x.kind](values)
        if isinstance(x, ir.BinOp):
            a = ev(x.left, env)
            if x.op == "and":
                return a and ev(x.right, env)
            if x.op == "or":
                return a or ev(x.right, env)
            b = ev(x.right, env)
            if x.op in ("/", "%") and b == 0:
                raise ValueError("division by zero in the bound")
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a // b,
                    "%": lambda: a % b, "==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b,
                    "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[x.op]()
        if isinstance(x, ir.Not):
            return not ev(x.operand, env)
        if isinstance(x, ir.Neg):
            return -ev(x.operand, env)
        if isinstance(x, ir.Cond):
            return ev(x.then, env) if ev(x.test, env) else ev(x.orelse, env)
        if isinstance(x, ir.InSet):
            return ev(x.value, env) in {ev(i, env) for i in x.items}
        raise ValueError(f"'{ir._expr_text(x)}' in a deal bound")

    return all(ev(e, {"p": p}) for p in range(max(n, 1)))


def deal_record(st, i: int = -1) -> dict:
    """The ``i``-th deal logged by engine state ``st``, with the match variables at its start and end."""
    d = dict(st.deal_log[i])
    values = getattr(st, "deal_values", None)
    if values and len(values) == len(st.deal_log):
        d.update(values[i])
    return d


def deal_broken(V, prop):
    """``check(state)``: the deal that just ended (or ended the match) breaks the bound."""
    def check(st):
        if not st.deal_log:
            return False
        return not bound_holds(prop.expr, deal_record(st), V.game)
    return check


def check_deal_bound(V: Verifier, prop: ir.Property) -> Result:
    """A per-deal bound, on the first exploration watching the gains that decides it (:func:`ladder_specs`);
    the deal ends through a deal-end block are followed symbolically where the abstraction's gains break it.
    A bound that reads more than the deal's gains (``gain(points[dealer])``: whose dealer?) is unknown."""
    if not bound_reads_only_gains(prop.expr):
        return Result(prop.name, prop.kind, "unknown",
                      "the bound reads more than each deal's gains (a gain is decided per player p: write "
                      "gain(V[p]), gain(V[side(p)]), gain(V[n]) with n a number, gain(total(V)), gain(max(V)), "
                      "gain(min(V)) or gain(V), with numbers, options and functions of p such as partner(p); "
                      "the dealer, the eldest or a variable of the deal are not kept with its gains)")
    return V.ladder(ladder_specs(V, prop), lambda spec, final: _deal_bound_on(V, prop, spec, final),
                    quick_refute=True)


def ladder_specs(V: Verifier, prop: ir.Property) -> list:
    """The explorations a deal bound or a scoring table is decided on, in the order they are tried: the one
    tracking the named cards first when they matter to it (see :meth:`.checker.Verifier.cards_matter`)."""
    from .liveness import subexprs
    if prop.kind == "deal_bound":
        names = {x.name for x in subexprs(prop.expr) if isinstance(x, ir.VarRef)}
        return V.gains_specs(cards_first=V.cards_matter(names))
    # a table's outcomes are recorded by every exploration: the card-blind one of the built-in checks, then
    # the one tracking the named cards (first when the rows read cards)
    table = V.g.table(prop.target)
    cards = any(isinstance(x, ir.Call) and x.fn in ("has", "top", "card", "holder") or
                isinstance(x, ir.Const) and x.type.kind == "card" for r in table.rows for x in subexprs(r.guard))
    specs = [V.spec_for(ir.Property(prop.name, "reachable"))]
    track = tracked_cards(V.game)
    if track and len(track) <= MAX_TRACKED:
        specs.insert(0 if cards else 1, Spec(precise=True))
    return specs


#: the share of --search-steps a deal bound's engine searches take on an exploration before a finer one is made
QUICK_SEARCH_SHARE = 10


def _deal_bound_on(V: Verifier, prop: ir.Property, spec: Spec, final: bool | str = True) -> Result:
    """The deal bound on exploration ``spec``: ``final`` False, a proof only; "quick", a proof or else a
    violation realised by the engine (the replay of the shortest abstract path to a violating deal end, then
    searches of 1/:data:`QUICK_SEARCH_SHARE` of the budget); True, the same with the whole budget, then a
    refined exploration (:meth:`.checker.Verifier.ladder`)."""
    exact_sizes = spec.exact_sizes
    ex, A, err = V.exploration(spec)
    if ex is None:
        return stopped(prop.name, prop.kind, err)
    n = V.game.players
    names = list(A.watch)

    memo: dict = {}

    def violates(gains_t) -> bool:
        """Whether the bound can fail for these gains (memoised: many ends of a deal share their gains)."""
        got = memo.get(gains_t)
        if got is None:
            gains = dict(zip(names, gains_t))
            got = memo[gains_t] = any(False in gain_eval(prop.expr, gains, p, V.game) for p in range(n))
        return got

    # the bound is on each deal's gains: checked when a deal ends (or the match ends within it)
    bad_edges = []
    ends = 0
    for u, v, d in ex.graph.edges(data=True):     # one pass: the deal ends counted, the violating ones kept
        if d.get("end_gains") is not None:
            ends += 1
            if violates(d["end_gains"]):
                bad_edges.append((u, v, d))
    # a deal that ends through a deal-end block (the scoring after the last trick): the block's gains
    # followed symbolically (z3 over the cards and values the abstract state allows), where the
    # abstraction's intervals lose the relation between them (Hearts: the points of a hand add up to 26)
    by_smt = 0
    if bad_edges:
        from . import smt_refine
        verdicts: dict = {}
        kept = []
        for u, v, d in bad_edges:
            blocks = d.get("end_blocks")
            if blocks:
                for sid in blocks:
                    if sid not in verdicts:
                        start, block = ex.end_blocks[sid]
                        verdicts[sid] = smt_refine.deal_bound_can_fail(A, start, block, prop.expr)
                if all(verdicts[sid] is False for sid in blocks):
                    by_smt += 1
                    continue
            kept.append((u, v, d))
        bad_edges = kept
    if not bad_edges:
        smt_note = (f"; at {by_smt} of them the gains of the scoring were followed symbolically (z3 over the "
                    f"cards and values the abstract state allows)") if by_smt else ""
        return Result(prop.name, prop.kind, "proved",
                      f"exhaustive exploration of an over-approximating abstraction ({size_note(ex, A)}): "
                      f"the bound holds at all {ends} ways a deal (or the match) can end{smt_note}")
    # zero-sum bounds, gain(total(V)) == 0: symbolic execution of every effect on V (z3), over the
    # reachable outcomes at each 'score' (the interval abstraction loses the relation between the payments)
    zs = _zero_sum_var(prop.expr)
    if zs is not None:
        try:
            ok, why = smt.preserves_total(V.game, zs, A.score_outcomes, V.budget.rlimit)
        except smt.SolverTimeout:
            ok, why = None, "z3 reached its resource limit"
        if ok:
            return Result(prop.name, prop.kind, "proved", why + f" (outcomes from the abstraction, {size_note(ex, A)})")
    if not final:
        return Result(prop.name, prop.kind, "unknown", f"the abstraction ({size_note(ex, A)}) has a deal end "
                      f"that may break the bound")
    check = deal_broken(V, prop)
    # a candidate: the shortest abstract path to a violating deal end, replayed concretely
    found = V.path_to(ex, {u for u, _, _ in bad_edges})
    if found is not None:
        init, edges, last = found
        for d in [d for u, _, d in bad_edges if u == last][:4]:
            real = V.replay(A, ex, init, edges + [d], check)
            if real is not None:
                return Result(prop.name, prop.kind, "refuted", "exhaustive exploration found a violation; the "
                              "engine replayed it", counterexample=trace(V, real, note="the deal's gains break the bound"))
    # the path fixes who wins each trick, which random cards rarely allow: search the engine, steered toward
    # the abstract states where a deal ends breaking the bound, then seeded matches (a share of the budget
    # only, before a finer exploration is made: see Verifier.ladder)
    from .playouts import steered_search
    steps = V.budget.search_steps if final is True else V.budget.search_steps // QUICK_SEARCH_SHARE
    real = steered_search(V, ex, A, {u for u, _, _ in bad_edges}, check, steps)
    if real is None:
        real = search_matches(V.game, check, steps)
    if real is not None:
        return Result(prop.name, prop.kind, "refuted",
                      "exhaustive exploration found a violation; an engine search realised it",
                      counterexample=trace(V, real, note="the deal's gains break the bound"))
    if final == "quick":
        return Result(prop.name, prop.kind, "unknown", f"the abstraction ({size_note(ex, A)}) has a deal end "
                      f"that may break the bound; the engine has not realised one yet")
    if A.blur and not exact_sizes and not V.budget.expired():
        # refine: explore again keeping every zone size exact, so that the path respects them
        refined = _deal_bound_on(V, prop, Spec(spec.precise, spec.props, True, spec.range_errors, spec.blind))
        if refined.verdict != "unknown":
            refined.method += " (after refining the abstraction: every zone size kept exact)"
            return refined
    return Result(prop.name, prop.kind, "unknown",
                  f"the abstraction ({size_note(ex, A)}) has a violating path that neither its replay nor "
                  f"{V.budget.search_steps} steps of seeded engine searches realised {SEARCH_HINT}",
                  detail=abstract_detail(V, ex, A, bad_edges[0][0], prop.expr, bad_edges[0][2].get("move")) +
                  f"; the deal's gains at its end ({', '.join(A.watch)}): "
                  f"{_abstract_value(bad_edges[0][2].get('end_gains'))}")


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


# -- scoring tables ---------------------------------------------------------------------------------------------
def check_complete(V: Verifier, prop: ir.Property) -> Result:
    return table_result(V, prop.name, prop.kind, V.g.table(prop.target))


def table_result(V: Verifier, name: str, kind: str, table: ir.Table, explore: bool = True) -> Result | None:
    """The checks of one table, done once (a ``complete`` property and ``builtin:table:NAME`` share them).
    Without ``explore``, only what needs no exploration: None when z3 does not decide it that way."""
    cache = V.__dict__.setdefault("_tables", {})
    if table.name not in cache:
        r = _table_result(V, name, kind, table, explore)
        if r is None:
            return None
        cache[table.name] = r
    r = cache[table.name]
    return Result(name, kind, r.verdict, r.method, counterexample=r.counterexample, detail=r.detail,
                  explored=r.explored)


def _table_result(V: Verifier, name: str, kind: str, table: ir.Table, explore: bool = True) -> Result | None:
    """A table's checks: first over every valuation of what its rows read (z3, no exploration), then over the
    outcomes reachable at ``score`` on the explorations watching the gains, cheapest first."""
    from . import symbolic
    if symbolic.table_holds_everywhere(V.game, table, V.budget.rlimit):
        return Result(name, kind, "proved",
                      f"SMT (z3): exactly one of the {len(table.rows)} rows applies whatever the values of what "
                      f"they read (every value of each variable's type, any split of the cards): no exploration "
                      f"needed", explored=None)
    if not explore:
        return None
    if V.budget.expired():      # (checked past --timeout for the z3 step above alone: verify.cli._guarded)
        return Result(name, kind, "unknown", TIMEOUT_NOTE)
    return V.ladder(ladder_specs(V, ir.Property(name, "complete", target=table.name)),
                    lambda spec, final: _table_result_on(V, name, kind, table, spec, final))


def _table_result_on(V: Verifier, name: str, kind: str, table: ir.Table, spec: Spec, final: bool = True) -> Result:
    ex, A, err = V.exploration(spec)
    if ex is None:
        return stopped(name, kind, err)
    outcomes = list(A.score_outcomes.get(table.name, {}))
    if not outcomes:
        return Result(name, kind, "unknown", f"table '{table.name}' is never scored in the abstraction")
    try:
        overlaps, gaps = smt.table_cases(V.game, table, outcomes, V.budget.rlimit)
    except smt.SolverTimeout as exc:
        return Result(name, kind, "unknown", f"z3 reached its resource limit ({exc})")
    if not overlaps and not gaps:
        return Result(name, kind, "proved",
                      f"SMT (z3): over the {len(outcomes)} reachable outcomes at 'score {table.name}', exactly one "
                      f"of the {len(table.rows)} rows applies (no overlap, no gap)")
    # scored only in deal-end blocks that z3 follows: the rows over every state each block starts from (the
    # outcomes hold the values one by one, and the frozen variables not at all)
    from . import smt_refine
    from .liveness import phase_stmts
    scores = [s for ph in V.g.phases for s in phase_stmts(V.g, ph) if isinstance(s, ir.Score) and s.table == table.name]
    if scores and ex.end_blocks and all(id(s) in V.followed_statements() for s in scores):
        got = smt_refine.table_in_blocks(A, ex.end_blocks, table.name)
        if got is not None and got[0] and not got[1] and not got[2]:
            return Result(name, kind, "proved",
                          f"SMT (z3): in each of the {got[0]} distinct deal-end blocks that score '{table.name}' "
                          f"({size_note(ex, A)}), followed from every state it starts in, exactly one of the "
                          f"{len(table.rows)} rows applies (no overlap, no gap)")
        if got is not None and got[0] and not got[1] and overlaps:
            # the blocks rule every overlap out (the outcomes lose what they need): search for the gap
            gaps = gaps or [((), f"in a deal-end block, z3 over the {got[0]} that score it")]
            overlaps = []
    if not final:
        return Result(name, kind, "unknown", f"z3 finds an overlap or a gap among the outcomes of the abstraction "
                                             f"({size_note(ex, A)})")
    # each case z3 gives (every overlapping pair of rows, then the gap), until the engine replays one: the
    # outcomes z3 picks for one pair may be beyond what play reaches where another pair's are not
    cases = [(True, rows, witness) for rows, witness in overlaps] + [(False, (), witness) for _, witness in gaps]
    for want_overlap, rows, witness in cases[:_TABLE_CASES]:
        shown = []

        def check_rows(fired, want_overlap=want_overlap, shown=shown):
            if (len(fired) > 1) if want_overlap else (len(fired) == 0):
                shown[:] = fired
                return True
            return False

        # the engine steered toward the abstract states that score such an outcome, then the abstract paths
        real = _steer_score(V, A, ex, table, check_rows, rows if want_overlap else ())
        if real is None:
            real = _realize_score(V, A, ex, table, check_rows, rows if want_overlap else ())
        if real is not None:
            # the replayed deal is the evidence, and its trace shows its values: z3's witness (an outcome of
            # the verifier's own numbering of the seats, read one variable at a time) is not shown beside it,
            # where it would contradict the deal (another dealer, other tricks)
            what = ("rows " + " and ".join(f"'{a}'" for a in shown) + " overlap") if want_overlap \
                else "no row applies"
            return Result(name, kind, "refuted", f"SMT (z3): {what}; the engine replayed such a deal",
                          counterexample=trace(V, real, note=what))
    first = cases[0]
    what = ("rows " + " and ".join(f"'{a}'" for a in first[1]) + f" overlap ({first[2]})") if first[0] \
        else f"no row applies ({first[2]})"
    tried = min(len(cases), _TABLE_CASES) - 1
    others = f", nor one of the {tried} other overlaps and gaps z3 finds" if tried else ""
    return Result(name, kind, "unknown", f"z3 finds that {what}, but the engine could not replay a deal "
                                         f"reaching that outcome{others}")


_TABLE_CASES = 4    # the overlaps and gaps of a table the engine tries to replay before the verdict is unknown


def _realize_score(V, A, ex, table, check_rows, rows=None):
    """A concrete deal whose scoring by ``table`` satisfies ``check_rows``; with ``rows`` (a pair of row names
    that overlap, or () for a gap), only the outcomes at which z3 says that can happen are tried."""
    from .concretize import realize
    candidates = [(val, src) for (t, val), src in A.score_sources.items() if t == table.name and src]
    if rows is not None:
        try:
            showing = set(smt.outcomes_showing(V.game, table, [val for val, _ in candidates], rows,
                                               V.budget.rlimit))
        except smt.SolverTimeout:
            showing = None
        if showing is not None:
            candidates = [c for c in candidates if c[0] in showing]
    attempts = V.budget.replays if rows is not None and len(candidates) <= 8 else max(1, V.budget.replays // 4)
    random.Random(0).shuffle(candidates)
    fired_log = []
    orig_init = V.game.new_initial_state
    for val, (src_key, _) in candidates[:24]:
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
                real = realize(V.game, A, init, edges + [d],
                               lambda st: bool(fired_log) and check_rows(fired_log[-1]), attempts=attempts,
                               init_perm=ex.initial_perm.get(init), init_rot=ex.initial_rot.get(init, 0))
            finally:
                V.game.new_initial_state = orig_init
            if real is not None:
                return real
    return None


def _steer_score(V, A, ex, table, check_rows, rows):
    """A steered engine search for a scoring that ``check_rows`` accepts, toward the abstract states that
    score the outcomes z3 says show the fault."""
    from .playouts import steered_search
    candidates = [(val, src) for (t, val), src in A.score_sources.items() if t == table.name and src]
    try:
        showing = set(smt.outcomes_showing(V.game, table, [val for val, _ in candidates], rows, V.budget.rlimit))
    except smt.SolverTimeout:
        showing = {val for val, _ in candidates}
    targets = {src for val, (src, _) in candidates if val in showing and src in ex.states}
    fired = []

    def found(st):
        while fired:
            if check_rows(fired.pop(0)):
                return True
        return False

    orig = V.game.new_initial_state

    def new_state():
        st = orig()
        st.on_score = lambda t, r: fired.append(r) if t == table.name else None
        return st
    V.game.new_initial_state = new_state
    try:
        # the rows fired by the step just applied, not those of an option weighed before it or of a step that
        # raised a rule error (a replay would not show them)
        return steered_search(V, ex, A, targets, found, V.budget.search_steps, before_step=fired.clear)
    finally:
        V.game.new_initial_state = orig


# -- reachability -------------------------------------------------------------------------------------------------
#: the parameter types whose values no symmetry of the exploration changes (suits are relabelled, seats turned)
FIXED_VALUE_KINDS = ("int", "enum")


def check_reachable(V: Verifier, prop: ir.Property) -> Result:
    ex, A, err = V.exploration(V.spec_for(prop))
    if ex is None:
        return stopped(prop.name, prop.kind, err)
    seen_phases = {phase_of(k) for k in ex.states}
    seen_actions = {(phase_of(u), d["move"].action) for u, _, d in ex.graph.edges(data=True)
                    if d["move"] is not None}
    # the values of a domain parameter that no relabelling of suits or turn of the table changes (an int, an
    # enum value): one the exploration never takes is never taken in play
    seen_values = {(phase_of(u), d["move"].action, d["move"].value) for u, _, d in ex.graph.edges(data=True)
                   if d["move"] is not None and d["move"].kind == "named"}
    missing = []
    for ph in V.g.phases:
        if ph.name not in seen_phases and ph.kind != "auto":
            missing.append(f"phase '{ph.name}'")
        for a in ph.actions:
            if (ph.name, a.name) not in seen_actions:
                missing.append(f"action '{a.name}' of phase '{ph.name}' ({a.span.path}:{a.span.line})")
            elif a.param is not None and a.param.kind == "domain" and a.param.type.kind in FIXED_VALUE_KINDS:
                never = [V.game.value_str(v, a.param.type) for v in ir.domain_values(V.g, a.param.type)
                         if (ph.name, a.name, v) not in seen_values]
                if never:
                    missing.append(f"action '{a.name}' of phase '{ph.name}' with {', '.join(never)} "
                                   f"({a.span.path}:{a.span.line})")
    if missing:
        return Result(prop.name, prop.kind, "refuted",
                      f"exhaustive exploration of the over-approximating abstraction ({size_note(ex, A)}): "
                      f"never reachable: {'; '.join(missing)}")
    # witnesses: the engine itself reaches every phase and takes every action (with every parameter value:
    # every contract of a bid ladder, every suit that can be named)
    taken = _witnesses(V, ex, A)
    lacking = [(ph.name, a.name) for ph in V.g.phases for a in ph.actions if (ph.name, a.name) not in taken]
    lacking += [(ph.name, f"{a.name} {V.game.value_str(v, a.param.type)}") for ph in V.g.phases for a in ph.actions
                if a.param is not None and a.param.kind == "domain"
                for v in ir.domain_values(V.g, a.param.type) if (ph.name, a.name, v) not in taken]
    lacking_ph = [ph.name for ph in V.g.phases if ph.kind != "auto" and ph.name not in {t[0] for t in taken}]
    if lacking or lacking_ph:
        return Result(prop.name, prop.kind, "unknown",
                      f"reachable in the abstraction, but seeded engine matches ({V.budget.search_steps} steps, "
                      f"then as many steered toward each action; raise --search-steps) did not witness: {', '.join(f'{a} in {p}' for p, a in lacking) or ', '.join(lacking_ph)}")
    values = sum(len(ir.domain_values(V.g, a.param.type)) for p in V.g.phases for a in p.actions
                 if a.param is not None and a.param.kind == "domain")
    return Result(prop.name, prop.kind, "proved",
                  f"every phase and action was taken or legal in seeded engine runs (concrete witnesses), "
                  f"{_count(sum(len(p.actions) for p in V.g.phases), 'action')} in "
                  f"{_count(len(V.g.phases), 'phase')}"
                  + (f", every one of the {values} parameter values of actions included" if values else ""))


#: seeded matches in a row that witness nothing new before the steered searches are tried (the random matches
#: then go on, up to their budget, only if something is still missing)
STALE_MATCHES = 4


def _witnesses(V: Verifier, ex, A) -> set:
    """What the engine witnesses: (phase, action) and (phase, action, value) taken or legal, and (phase, "")
    for a trick phase played.  Done once per verification (the property and ``builtin:reachable`` share it).

    Seeded matches (random and greedy players, :func:`_play_witnesses`) run until everything is witnessed or
    :data:`STALE_MATCHES` in a row add nothing; then, for each action (and value) still missing, engine matches
    steered toward the abstract states where it is taken (:func:`_steered_witness`); if something is still
    missing, the seeded matches go on to the end of their budget (``search_steps`` engine steps).  Each steered
    search is a fixed function of its action and of the exploration, so this finds everything that running all
    the seeded matches first and steering after would find (the steering is tried for a superset of the
    actions), and usually much sooner: an action the random players never take (Solo Whist's trumps named
    by the first suit) no longer costs the whole budget of random play."""
    cache = V.__dict__.get("_witnessed")
    if cache is not None:
        return set(cache)
    actions = _actions_to_witness(V)
    want = _wanted(V, actions)
    taken: set = set()
    matches = _play_witnesses(V, taken, want)
    stale = 0
    for new in matches:
        stale = 0 if new else stale + 1
        if stale >= STALE_MATCHES:
            break
    sources = None
    for w in actions:
        if w in taken:
            continue
        if sources is None:
            sources = _move_sources(ex)
        if _steered_witness(V, ex, A, w, sources):
            taken.add(w)
            if len(w) == 3:
                taken.add(w[:2])
    if not want <= taken:
        for _ in matches:     # the rest of the seeded matches' budget
            pass
    V.__dict__["_witnessed"] = frozenset(taken)
    return set(taken)


def _actions_to_witness(V: Verifier) -> list:
    """Every (phase, action), then every (phase, action, value) of an action with a domain parameter (every
    contract of a bid ladder, every suit that can be named), in the rule file's order."""
    return [(ph.name, a.name) for ph in V.g.phases for a in ph.actions] + \
        [(ph.name, a.name, v) for ph in V.g.phases for a in ph.actions
         if a.param is not None and a.param.kind == "domain" for v in ir.domain_values(V.g, a.param.type)]


def _wanted(V: Verifier, actions=None) -> set:
    """What the witnesses must cover: every action and value of :func:`_actions_to_witness` (``actions`` when
    already computed), and (phase, "") for each trick phase (a card played there)."""
    return set(actions if actions is not None else _actions_to_witness(V)) | \
        {(ph.name, "") for ph in V.g.phases if ph.kind == "trick"}


def _move_sources(ex) -> dict:
    """(phase, action name) -> the abstract nodes of ``ex`` with an edge taking that action: one pass over
    the edges."""
    out: dict = {}
    for u, _, d in ex.graph.edges(data=True):
        m = d["move"]
        if m is not None:
            out.setdefault((phase_of(u), m.action), set()).add(u)
    return out


def _steered_witness(V: Verifier, ex, A, w, sources: dict | None = None) -> bool:
    """Whether engine matches steered toward the abstract states where ``w`` ((phase, action) or (phase,
    action, value)) is taken reach a concrete state where it is legal (a witness that it is reachable);
    ``search_steps`` engine steps.  ``sources``: :func:`_move_sources` of ``ex``, when already computed."""
    from .playouts import steered_search
    targets = set((sources if sources is not None else _move_sources(ex)).get((w[0], w[1]), ()))

    def legal_here(st):
        if st.is_terminal() or st.is_chance_node() or st.phase != w[0]:
            return False
        for how in st._legal().values():
            if len(how) > 1 and how[1] is not None and how[1].name == w[1] and \
                    (len(w) == 2 or (how[0] == "named" and how[2] == w[2])):
                return True
        return False
    return bool(targets) and steered_search(V, ex, A, targets, legal_here, V.budget.search_steps) is not None


def _play_witnesses(V: Verifier, taken: set, want: set):
    """Seeded engine matches (random and greedy players), one per step of the generator, each adding what it
    takes to ``taken`` and yielding how many it added; they stop when ``want`` is all taken or after
    ``search_steps`` engine steps in all."""
    from atout.engine.bots import GreedyBot, RandomBot
    from .playouts import play_match
    game = V.game
    rng = random.Random(0)
    used = 0
    while used < V.budget.search_steps:
        if want <= taken:
            return
        before = len(taken)
        bots = [(RandomBot if rng.random() < 0.7 else GreedyBot)(rng.randrange(1 << 30)) for _ in range(game.players)]
        sub = random.Random(rng.randrange(1 << 30))

        def policy(st, options, chance):
            if chance:
                return options[sub.randrange(len(options))]
            a = bots[st.current_player()].step(st)
            how = st._legal()[a]
            name = how[1].name if len(how) > 1 and how[1] is not None else ""
            taken.add((st.phase, name))
            if how[0] == "named" and how[2] is not None:
                taken.add((st.phase, name, how[2]))
            if game.phases[st.phase].kind == "trick" and how[0] == "play":
                taken.add((st.phase, ""))
            return a
        played, _, _ = play_match(game, policy, max_steps=3000)
        used += len(played) + 1
        yield len(taken) - before


CHECKERS = {
    "deal_bound": check_deal_bound,
    "complete": check_complete,
    "reachable": check_reachable,
    "invariant": check_invariant,
    "conserves": check_conserves,
}


def _count(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless ``n`` is 1 ('1 action', '3 phases')."""
    return f"{n} {noun if n == 1 else noun + 's'}"

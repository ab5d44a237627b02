"""Mutation testing of the verifier: single-fault variants of a game, and an independent concrete oracle.

:func:`mutants` derives variants of a compiled game with one fault each, at the IR level: a constant
changed by one, a comparison flipped, ``and``/``or`` swapped, a condition negated, an action, a guard or a
statement dropped, two players (``dealer``/``eldest``, ``left``/``right``) or the two zones of a move
swapped, a scoring row's ``+=`` turned into ``-=``, a declared range widened or narrowed.  Properties are
never mutated: they are the claims the verifier checks.

:func:`concrete_violations` is the oracle: seeded engine matches (random and greedy players, uniformly
random chance) checking each property concretely, without the abstraction.  A property the verifier
*proves* that the oracle violates is a false proof; a property it *refutes* must have a counterexample that
the engine replays to a violation (:func:`refutation_holds`).

``python -m atout.verify.mutation FILE... [-n N] [--seed S]`` runs the comparison and prints a report.
"""
from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field, fields, is_dataclass

from atout.compiler import ir
from atout.engine.evaluate import RuleError

FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "and": "or", "or": "and"}


@dataclass
class Mutant:
    game: ir.Game
    operator: str
    where: str         # file:line of the node changed
    what: str          # what changed, in words

    def describe(self) -> str:
        return f"{self.operator} at {self.where}: {self.what}"


# -- locating and replacing nodes ---------------------------------------------------------------------------
def _paths(node, path=()):
    """Every (path, node) under ``node`` (a dataclass tree), depth first; a path is a tuple of field names
    and tuple indices."""
    yield path, node
    if isinstance(node, tuple):
        for i, x in enumerate(node):
            yield from _paths(x, path + (i,))
    elif is_dataclass(node) and not isinstance(node, type):
        for f in fields(node):
            if f.name in ("span", "type", "source", "properties", "action_slots", "deck", "options", "enums"):
                continue
            yield from _paths(getattr(node, f.name), path + (f.name,))


def _replace(node, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(node, tuple):
        items = list(node)
        items[head] = _replace(items[head], rest, new)
        return tuple(x for x in items if x is not _DROP)
    return dataclasses.replace(node, **{head: _replace(getattr(node, head), rest, new)})


_DROP = object()


def _where(node) -> str:
    sp = getattr(node, "span", None)
    if sp is None or not getattr(sp, "line", 0):
        return "?"
    import os
    return f"{os.path.basename(sp.path)}:{sp.line}"


def _is_int_const(e) -> bool:
    return isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool) and \
        e.type.kind == "int"


def _candidates(g: ir.Game):
    """(operator, path, node, new node or _DROP, description) for every single-fault change of the rules."""
    out = []
    for path, node in _paths(g):
        if not path or path[0] not in ("phases", "tables", "vars", "match"):
            continue
        if _is_int_const(node):
            for d in (1, -1):
                v = node.value + d
                out.append(("constant", path, node, dataclasses.replace(node, value=v, text=str(v)),
                            f"{node.value} becomes {v}"))
        elif isinstance(node, ir.BinOp) and node.op in FLIP:
            out.append(("comparison" if node.op not in ("and", "or") else "logic", path, node,
                        dataclasses.replace(node, op=FLIP[node.op]), f"'{node.op}' becomes '{FLIP[node.op]}'"))
        elif isinstance(node, ir.Builtin) and node.name in ("dealer", "eldest"):
            other = "eldest" if node.name == "dealer" else "dealer"
            out.append(("player", path, node, dataclasses.replace(node, name=other), f"{node.name} becomes {other}"))
        elif isinstance(node, ir.Call) and node.fn in ("left", "right"):
            other = "right" if node.fn == "left" else "left"
            out.append(("player", path, node, dataclasses.replace(node, fn=other), f"{node.fn}() becomes {other}()"))
        elif isinstance(node, ir.Action):
            if not isinstance(node.guard, ir.Const):
                out.append(("guard", path + ("guard",), node.guard, ir.Const(True, ir.BOOL, "true"),
                            f"the guard of '{node.name}' is dropped"))
            phase = g.phases[path[1]]
            if len(phase.actions) > 1 or phase.kind == "trick":
                out.append(("action", path, node, _DROP, f"action '{node.name}' is dropped"))
        elif isinstance(node, ir.Stmt) and isinstance(path[-1], int) and not isinstance(node, (ir.Goto, ir.EndDeal)):
            out.append(("statement", path, node, _DROP, f"a {type(node).__name__.lower()} statement is dropped"))
            if isinstance(node, ir.Assign) and node.op in ("+=", "-=") and path[0] == "tables":
                op = "-=" if node.op == "+=" else "+="
                out.append(("row effect", path, node, dataclasses.replace(node, op=op),
                            f"'{node.var} {node.op}' becomes '{node.var} {op}'"))
            if isinstance(node, ir.Move):
                out.append(("zones", path, node, dataclasses.replace(node, source=node.dest, dest=node.source),
                            "the move's source and destination are swapped"))
            if isinstance(node, ir.If) and node.branches:
                cond, body = node.branches[0]
                neg = ir.Not(cond, span=getattr(cond, "span", None) or cond.span)
                out.append(("condition", path, node, dataclasses.replace(node, branches=((neg, body),) +
                                                                        node.branches[1:]),
                            "the first condition of an 'if' is negated"))
        elif isinstance(node, ir.Var) and node.type.kind == "int" and node.type.low is not None:
            for lo, hi, text in ((node.type.low, node.type.high - 1, "narrowed"),
                                 (node.type.low - 1, node.type.high + 1, "widened")):
                if lo <= hi:
                    out.append(("range", path, node, dataclasses.replace(node, type=ir.Type("int", lo, hi)),
                                f"the range of '{node.name}' is {text} to {lo}..{hi}"))
    return out


def mutants(g: ir.Game, n: int, seed: int = 0) -> list[Mutant]:
    """Up to ``n`` distinct single-fault variants of ``g``, chosen with ``seed`` (spread over the operators)."""
    rng = random.Random(seed)
    cands = _candidates(g)
    by_op: dict = {}
    for c in cands:
        by_op.setdefault(c[0], []).append(c)
    for v in by_op.values():
        rng.shuffle(v)
    ops = sorted(by_op)
    out, k = [], 0
    while len(out) < n and any(by_op.values()):
        op = ops[k % len(ops)]
        k += 1
        if not by_op[op]:
            continue
        operator, path, node, new, what = by_op[op].pop()
        try:
            game = _replace(g, path, new)
        except (TypeError, ValueError):
            continue
        out.append(Mutant(dataclasses.replace(game, name=f"{g.name}_mutant_{len(out) + 1}"), operator,
                          _where(node), what))
    return out


# -- the oracle -----------------------------------------------------------------------------------------------
@dataclass
class Violation:
    prop: str
    steps: list
    note: str


@dataclass
class OracleReport:
    matches: int = 0
    broken: bool = False              # the engine itself failed (not a rule error): the mutant is invalid
    error: str = ""
    violations: dict = field(default_factory=dict)   # property name -> Violation


def concrete_violations(game, matches: int = 200, seed: int = 0, max_steps: int = 1500) -> OracleReport:
    """Play seeded matches and record, for every property and built-in check, a concrete violation if one
    shows: an invariant false in some state, a deal bound broken by a deal, a ``conserves`` condition false
    on reaching its target or a rule error in its phases, a table firing zero or two rows, a rule error, a
    dead end, a stuck state inside the phases of ``can_end``/``can_force`` (a dead end or a rule error there
    means the target cannot be reached)."""
    from atout.engine.bots import GreedyBot
    from .properties import arrival_fails, bound_holds, deal_record, holds_concretely
    g = game.ir
    rep = OracleReport()
    rng = random.Random(seed)
    props = list(g.properties)

    class _V:   # what holds_concretely needs
        pass
    V = _V()
    V.game = game

    def note(name, steps, text):
        if name not in rep.violations:
            rep.violations[name] = Violation(name, list(steps), text)

    for k in range(matches):
        rep.matches += 1
        sub = random.Random(rng.randrange(1 << 30))
        greedy = k % 3 == 2
        bots = {}
        fired: list = []
        try:
            st = game.new_initial_state()
        except RuleError as exc:
            note("builtin:no_rule_error", [], str(exc))
            continue
        except Exception as exc:  # noqa: BLE001 - an engine failure makes the mutant invalid
            rep.broken, rep.error = True, f"{type(exc).__name__}: {exc}"
            return rep
        st.on_score = lambda t, rows: fired.append((t, rows))
        steps: list = []
        deals_seen = 0
        prev_phase = st.phase
        while True:
            for p in props:
                if p.name in rep.violations:
                    continue      # one violation of a property is enough
                if p.kind == "invariant" and not holds_concretely(V, p.expr, st):
                    note(p.name, steps, "the invariant is false here")
                elif p.kind == "conserves" and arrival_fails(V, p, prev_phase, st):
                    note(p.name, steps, "the condition is false on reaching the target")
            while fired:
                t, rows = fired.pop(0)
                if len(rows) != 1:
                    note(f"builtin:table:{t}", steps, f"{len(rows)} rows fire")
                    for p in props:
                        if p.kind == "complete" and p.target == t:
                            note(p.name, steps, f"{len(rows)} rows fire")
            while deals_seen < len(st.deal_log):
                d = deal_record(st, deals_seen)
                deals_seen += 1
                for p in props:
                    if p.kind != "deal_bound":
                        continue
                    try:
                        broken = not bound_holds(p.expr, d, game)
                    except ValueError:
                        continue   # a bound that reads more than the deal's record (the dealer): not judged here
                    if broken:
                        note(p.name, steps, f"a deal's gains {d['gains']} break the bound")
            if st.is_terminal() or len(steps) >= max_steps:
                break
            chance = st.is_chance_node()
            try:
                options = [a for a, _ in st.chance_outcomes()] if chance else st.legal_actions()
            except RuleError as exc:
                _stuck(note, props, st, steps, f"a rule error: {exc}")
                break
            if not options:
                _stuck(note, props, st, steps, "a dead end")
                note("builtin:no_dead_end", steps, "no legal action")
                note("builtin:no_rule_error", steps, "no legal action")
                break
            if chance or not greedy:
                a = options[sub.randrange(len(options))]
            else:
                p = st.current_player()
                bots.setdefault(p, GreedyBot(sub.randrange(1 << 30)))
                a = bots[p].step(st)
            player = st.current_player()
            steps.append({"player": player if player >= 0 else -1, "action": a, "text": st.action_to_string(a)})
            prev_phase = st.phase
            try:
                st.apply_action(a)
            except RuleError as exc:
                _stuck(note, props, st, steps, f"a rule error: {exc}", phase=prev_phase)
                break
            except Exception as exc:  # noqa: BLE001
                rep.broken, rep.error = True, f"{type(exc).__name__}: {exc}"
                return rep
    return rep


def _stuck(note, props, st, steps, text, phase=None):
    phase = phase if phase is not None else st.phase
    if text.startswith("a rule error"):
        note("builtin:no_rule_error", steps, text)
    note("builtin:no_trap", steps, text)
    for p in props:
        if p.kind in ("can_end", "can_force") and phase in p.phases:
            note(p.name, steps, text)
        if p.kind == "conserves" and phase in p.phases and text.startswith("a rule error"):
            note(p.name, steps, text)


def refutation_holds(game, result) -> bool:
    """Whether a refuted verdict's counterexample replays in the engine to a violation of its property (for
    a lasso, that it replays and comes back to a phase of its cycle)."""
    ce = result.counterexample
    if ce is None:
        return True   # a refutation without a trace: by the over-approximation itself (never reachable)
    try:
        st = game.new_initial_state()
    except RuleError:       # every match stops at its start: a trace of no step refutes these two
        return not ce.steps and result.name in ("builtin:no_rule_error", "builtin:no_trap")
    fired = []
    st.on_score = lambda t, rows: fired.append((t, rows))
    error = None
    for k, s in enumerate(ce.steps):
        try:
            st.apply_action(s["action"])
        except RuleError as exc:
            error = str(exc)
            if k != len(ce.steps) - 1:
                return False
    from .properties import bound_holds, deal_record, holds_concretely
    name = result.name
    prop = next((p for p in game.ir.properties if p.name == name), None)

    class _V:
        pass
    V = _V()
    V.game = game
    if ce.kind == "lasso":
        return error is None and not st.is_terminal()
    if error is not None:
        return name in ("builtin:no_rule_error", "builtin:no_trap") or \
            (prop is not None and prop.kind in ("conserves", "can_end", "can_force"))
    if prop is not None and prop.kind == "invariant":
        return not holds_concretely(V, prop.expr, st)
    if prop is not None and prop.kind == "deal_bound":
        return bool(st.deal_log) and not bound_holds(prop.expr, deal_record(st), game)
    if prop is not None and prop.kind == "complete" or name.startswith("builtin:table:"):
        table = prop.target if prop is not None else name[len("builtin:table:"):]
        return any(t == table and len(rows) != 1 for t, rows in fired)
    if prop is not None and prop.kind == "conserves":
        return st.phase == prop.target and not holds_concretely(V, prop.expr, st)
    if name in ("builtin:no_dead_end", "builtin:no_rule_error"):
        try:
            return st.is_dead_end()
        except RuleError:    # computing the legal moves is itself a rule error (a condition of the rules)
            return name == "builtin:no_rule_error"
    return True   # traps and strategies: shown by the replayed prefix and the abstraction's proof


# -- the comparison -----------------------------------------------------------------------------------------
@dataclass
class MutantResult:
    mutant: Mutant
    verdicts: dict          # property -> verdict
    violated: dict          # property -> Violation (concrete)
    false_proofs: list      # properties proved and concretely violated
    false_refutations: list  # refuted with a counterexample that does not replay to a violation
    invalid: str = ""
    seconds: float = 0.0

    def killed(self) -> list:
        return [p for p in self.violated if self.verdicts.get(p) == "refuted"]


def run_mutant(m: Mutant, budget=None, oracle_matches: int = 200, seed: int = 0) -> MutantResult:
    """Verify a mutant, then search the engine for a violation of every property."""
    import time
    from atout.engine import Game
    from .checker import Budget
    from .cli import verify_game
    t0 = time.perf_counter()
    try:
        game = Game(m.game)
        oracle = concrete_violations(game, matches=oracle_matches, seed=seed)
    except Exception as exc:  # noqa: BLE001 - an IR the engine cannot even start: not a valid mutant
        return MutantResult(m, {}, {}, [], [], invalid=f"{type(exc).__name__}: {exc}")
    if oracle.broken:
        return MutantResult(m, {}, {}, [], [], invalid=oracle.error)
    from .crosscheck import CrossCheck
    cross = CrossCheck()
    results, _ = verify_game(game, budget=budget or Budget(cross_check=6, search_steps=20_000, timeout=None), cross=cross)
    verdicts = {r.name: r.verdict for r in results}
    false_proofs = [p for p in oracle.violations if verdicts.get(p) == "proved"]
    false_refutations = [r.name for r in results if r.verdict == "refuted" and not refutation_holds(game, r)]
    return MutantResult(m, verdicts, oracle.violations, false_proofs, false_refutations,
                        seconds=time.perf_counter() - t0)


def report(results: list[MutantResult]) -> str:
    valid = [r for r in results if not r.invalid]
    violated = sum(len(r.violated) for r in valid)
    killed = sum(len(r.killed()) for r in valid)
    unknown = sum(1 for r in valid for p in r.violated if r.verdicts.get(p) == "unknown")
    fp = [(r, p) for r in valid for p in r.false_proofs]
    fr = [(r, p) for r in valid for p in r.false_refutations]
    lines = [f"{len(results)} mutants ({len(results) - len(valid)} invalid), {violated} properties concretely "
             f"violated: {killed} refuted, {unknown} unknown, {len(fp)} proved (false proofs); "
             f"kill rate {killed}/{violated} = {killed / violated:.0%}" if violated else
             f"{len(results)} mutants, no property concretely violated",
             f"false refutations: {len(fr)}"]
    for r, p in fp:
        lines.append(f"FALSE PROOF: {p} in {r.mutant.describe()} ({r.violated[p].note})")
    for r, p in fr:
        lines.append(f"FALSE REFUTATION: {p} in {r.mutant.describe()}")
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse
    from atout.compiler import compile_file
    ap = argparse.ArgumentParser(prog="python -m atout.verify.mutation")
    ap.add_argument("files", nargs="+")
    ap.add_argument("-n", type=int, default=20, help="mutants per file")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    results = []
    for f in args.files:
        for m in mutants(compile_file(f), args.n, args.seed):
            r = run_mutant(m)
            results.append(r)
            state = "invalid: " + r.invalid if r.invalid else \
                f"violated {sorted(r.violated)} refuted {sorted(r.killed())}" + \
                (f" FALSE PROOFS {r.false_proofs}" if r.false_proofs else "")
            print(f"{m.describe()}: {state} ({r.seconds:.1f} s)", flush=True)
    print(report(results))
    return 1 if any(r.false_proofs or r.false_refutations for r in results) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

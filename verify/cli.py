"""``atout verify FILE [--property NAME] [--json] [--trace-out DIR] [--max-states N] [--cross-check N]
[--timeout SECONDS] [-j N]``.

Exit status: 0 when every property (and built-in check) is proved, 1 when any is refuted or unknown, 2 on
bad input, 3 when the cross-check found the verifier itself wrong (its verdicts then say so).
"""
from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time

from atout.compiler import compile_file

from .builtin import builtin_units
from .checker import TIMEOUT_NOTE, Budget, Result, Verifier, frozen_heap, without_cyclic_gc
from .crosscheck import CrossCheck, cross_check
from . import parallel
from .findings import extra_findings
from .properties import CHECKERS as SAFETY
from .reach import check_can_end, check_can_force
from .termination import CHECKERS as TERMINATION

CHECKERS = {**SAFETY, **TERMINATION, "can_end": check_can_end, "can_force": check_can_force}

EXIT_VERIFIER_BUG = 3
CROSS_STEPS_PER_MATCH = 500   # --cross-check N allows N * 500 engine steps in all (the default: 12,000)


def _guarded(V, name, kind, fn) -> Result:
    """Run one check; a verifier failure is an unknown verdict, never a crash; the wall-clock safety says so.
    Checks that z3 may decide without an exploration run even past it, under z3's own resource limit (a
    newcomer's game that ran out of time still gets them decided): ``builtin:conservation`` (one query per
    card-moving effect), and a table's completeness (``complete T``, ``builtin:table:T``) over every value of
    what its rows read, which stops there when that does not decide it (:func:`.properties.table_result`)."""
    z3_first = name == "builtin:conservation" or kind == "complete" or name.startswith("builtin:table:")
    if V.budget.expired() and not z3_first:
        return Result(name, kind, "unknown", TIMEOUT_NOTE)
    t0 = time.perf_counter()
    try:
        r = fn()
    except Exception as exc:  # a verifier failure is an unknown verdict, never a crash
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        r = Result(name, kind, "unknown", f"the verifier failed: {type(exc).__name__}: {exc}")
    r.seconds = time.perf_counter() - t0
    return r


def verify_game(game, names: list[str] | None = None, timeout: float | None = None, progress=None,
                builtins: bool | None = None, budget: Budget | None = None, cross: CrossCheck | None = None,
                jobs: int = 1):
    """Check the properties of ``game`` (an engine Game); returns (results, findings).

    ``names``: only these properties (default: all); ``builtins``: run the built-in checks too (default:
    when ``names`` is None).  ``budget`` bounds the work (defaults: :class:`Budget`); ``timeout`` overrides
    its wall-clock safety.  The cyclic garbage collector leaves what lives to the end alone
    (:func:`.checker.frozen_heap`).  With ``cross`` (a :class:`CrossCheck` to fill in), the cross-check runs
    after the verdicts, with ``budget.cross_check`` matches, and turns any verdict it undermines into unknown.
    ``jobs`` > 1: the checks run in that many forked processes, with the same results (:mod:`.parallel`)."""
    with frozen_heap():
        return _verify_game(game, names, timeout, progress, builtins, budget, cross, jobs)


def _start_error(game):
    """The rule error every match of ``game`` raises before its first step (a deal asking for more cards
    than there are), or None."""
    from atout.engine.evaluate import RuleError
    try:
        game.new_initial_state()
    except RuleError as exc:
        return exc
    return None


def _never_starts(game, names, run_builtins, exc) -> list:
    """The verdicts when no match can start: a rule error is reachable (refuted, a trace of no step), no deal
    can end (refuted), and nothing else is decided (unknown: no state exists to hold or break it)."""
    from .builtin import builtin_names
    from .checker import Counterexample
    why = f"every match raises a rule error before its first step: {exc}"
    out = [Result(p.name, p.kind, "unknown", f"the match never starts ({why}); see builtin:no_rule_error")
           for p in game.ir.properties if names is None or p.name in names]
    for name in builtin_names(game.ir) if run_builtins else []:
        if name in ("builtin:no_rule_error", "builtin:no_trap"):
            ce = Counterexample("trace", [], note=str(exc), play_by_play=[f"   0.  the match starts: rule error: {exc}"])
            what = "a rule error is reachable" if name == "builtin:no_rule_error" else "no deal can end"
            out.append(Result(name, "builtin", "refuted", f"{what}: {why}", counterexample=ce))
        else:
            out.append(Result(name, "builtin", "unknown", f"the match never starts ({why})"))
    return out


def _verify_game(game, names, timeout, progress, builtins, budget, cross, jobs=1):
    run_builtins = builtins or (builtins is None and names is None)
    budget = budget or Budget()
    if timeout is not None:
        budget.timeout = timeout
    V = Verifier(game, budget=budget, progress=progress)
    exc = _start_error(game)
    if exc is not None:
        if cross is not None:
            cross.__dict__.update(CrossCheck().__dict__)     # no concrete match to play
        V.findings = []
        verify_game.last = V
        return _never_starts(game, names, run_builtins, exc), []
    props = [p for p in game.ir.properties if names is None or p.name in names]
    V.precise_needed = any(p.kind in ("deal_bound", "complete") for p in props) or \
        bool(run_builtins and game.ir.tables)
    V.run_properties = frozenset(p.name for p in props)
    units = [parallel.Unit(p.name, p.kind, lambda p=p: _guarded(V, p.name, p.kind, lambda: CHECKERS[p.kind](V, p)))
             for p in props]

    def builtins_part():
        guard = lambda name, fn: _guarded(V, name, "builtin", fn)  # noqa: E731
        return [parallel.Unit(name, "builtin", run) for name, run in builtin_units(V, guard)]

    if jobs > 1 and parallel.can_fork():
        parallel.prefetch(V, props, run_builtins, progress)
        units += builtins_part() if run_builtins else []
        if progress:
            progress(f"checking in {min(jobs, len(units))} processes")
        results = parallel.run_checks(V, units, jobs) if len(units) > 1 else [u() for u in units]
    else:
        results = []
        for u in units:
            if progress:
                progress(f"checking {u.name}")
            results.append(u())
        if run_builtins:
            if progress:
                progress("built-in checks")
            results += [u() for u in builtins_part()]
    findings = []
    if names is None:
        try:
            findings = extra_findings(V)
        except Exception as exc:  # findings are extras: a failure there is reported, not raised
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
    if cross is not None and budget.cross_check > 0:
        if progress:
            progress("cross-checking the abstraction against the engine")
        try:
            got = cross_check(V, results, budget.cross_check, budget.cross_steps)
        except Exception as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            got = CrossCheck(failures=[{"what": f"the cross-check failed: {type(exc).__name__}: {exc}",
                                        "properties": [], "steps": []}])
        cross.__dict__.update(got.__dict__)
    V.findings = findings
    verify_game.last = V
    return results, findings


def run_verify(args) -> int:
    """``atout verify``: the exit status (see the module docstring)."""
    from atout.engine import Game
    from atout.errors import UsageError
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise UsageError(f"--timeout must be a positive number of seconds, not {args.timeout}")
    if args.trace_out:
        _check_trace_folder(args.trace_out)
    if args.max_states <= 0:
        raise UsageError("--max-states must be positive")
    if getattr(args, "max_transitions", 1) <= 0:
        raise UsageError("--max-transitions must be positive")
    if args.search_steps <= 0:
        raise UsageError("--search-steps must be positive")
    if args.cross_check < 0:
        raise UsageError("--cross-check must be 0 or more")
    jobs = getattr(args, "jobs", 1)
    if jobs < 1:
        raise UsageError(f"-j must be 1 or more (processes), not {jobs}")
    from atout.cli import options_of
    game = Game(compile_file(args.file, options_of(args)))
    known = {p.name for p in game.ir.properties}
    if args.property:
        unknown = [n for n in args.property if n not in known]
        if unknown:
            import difflib
            hint = difflib.get_close_matches(unknown[0], known, n=1)
            raise UsageError(f"no property named '{unknown[0]}' in {args.file}" +
                             (f" (did you mean '{hint[0]}'?)" if hint else
                              f"; its properties are: {', '.join(sorted(known)) or 'none'}"))
    from rich.console import Console
    err = Console(stderr=True)
    budget = Budget(max_states=args.max_states, cross_check=args.cross_check, search_steps=args.search_steps,
                    max_transitions=getattr(args, "max_transitions", Budget.max_transitions),
                    cross_steps=CROSS_STEPS_PER_MATCH * args.cross_check, timeout=args.timeout)
    cross = CrossCheck()
    t0 = time.perf_counter()
    # the spinner is a thread: with -j the workers are forked, and a thread holding the terminal's lock at that
    # moment would leave the lock held in them, so -j prints its few steps as lines instead
    forks = jobs > 1 and parallel.can_fork()
    status = err.status("verifying", spinner="dots") if err.is_terminal and not forks else None
    if status:
        status.start()
    show = (lambda m: status.update(m)) if status else \
        (lambda m: err.print(f"[dim]{_escape(m)}...[/dim]", highlight=False)) if err.is_terminal else None
    try:
        results, findings = verify_game(game, args.property, progress=show, budget=budget, cross=cross,
                                        jobs=jobs)
        work = verify_game.last.work
    finally:
        if status:
            status.stop()
    seconds = time.perf_counter() - t0
    with without_cyclic_gc():   # the report: a collection now would traverse everything the verification made
        return _report(args, game, budget, cross, results, findings, seconds, work)


def _report(args, game, budget, cross, results, findings, seconds, work) -> int:
    from atout.cli import options_of
    if args.trace_out:
        _write_traces(args.trace_out, game, args.file, results, findings, cross, options_of(args))
    if args.json:
        out = {"game": game.name, "rules": args.file, "seconds": round(seconds, 3),
               "budget": {"max_states": budget.max_states, "max_transitions": budget.max_transitions,
                          "z3_rlimit": budget.rlimit, "replays": budget.replays,
                          "search_steps": budget.search_steps, "cross_check": budget.cross_check,
                          "cross_steps": budget.cross_steps, "timeout": budget.timeout},
               "work": work,
               "properties": [r.as_json() for r in results], "findings": [f.as_json() for f in findings],
               "cross_check": cross.as_json()}
        print(json.dumps(out, ensure_ascii=False))
    else:
        _print_report(game, args.file, results, findings, seconds, cross, work)
    if cross.failures:
        return EXIT_VERIFIER_BUG
    return 0 if all(r.verdict == "proved" for r in results) else 1


def _escape(text: str) -> str:
    from rich.markup import escape
    return escape(text)


def _check_trace_folder(folder: str) -> None:
    """Before verifying: ``--trace-out`` must be a folder that exists or can be made, and be writable."""
    from atout.errors import UsageError
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise UsageError(f"--trace-out {folder}: not a folder (a file of that name exists)")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--trace-out {folder}: cannot make the folder: {exc.strerror or exc}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--trace-out {folder}: the folder is not writable")


def _write_traces(folder, game, rules, results, findings, cross, options=None):
    from atout.engine.simulate import RECORD_FORMAT
    os.makedirs(folder, exist_ok=True)
    items = [(r.name, r.counterexample) for r in results if r.counterexample is not None]
    items += [(f"finding-{i + 1}-{f.kind}", f.counterexample) for i, f in enumerate(findings)
              if f.counterexample is not None]
    for name, ce in items:
        rec = {"format": RECORD_FORMAT, "game": game.name, "rules": rules, "seed": None, "match": 0,
               "bots": ["verifier"] * game.players, "steps": [{k: s[k] for k in ("player", "action", "text")}
                                                               for s in ce.steps],
               "property": name, "kind": ce.kind, "note": ce.note}
        if ce.kind == "lasso":
            rec["cycle_start"] = ce.cycle_start
            rec["cycle_length"] = ce.cycle_len
        if options:
            rec["options"] = dict(options)
        _write_record(folder, name, rec)
    for r in results:       # an unknown's abstract counterexample: no play to replay, a text to read
        if r.verdict == "unknown" and r.detail.startswith("abstract counterexample"):
            _write_text(folder, f"{r.name}.abstract", f"{r.name} ({r.kind}): unknown\n{r.method}\n\n{r.detail}\n")
    for i, f in enumerate(cross.failures):
        rec = {"format": RECORD_FORMAT, "game": game.name, "rules": rules, "seed": None, "match": 0,
               "bots": ["cross-check"] * game.players, "steps": f["steps"], "property": "cross-check",
               "kind": "trace", "note": f["what"]}
        if options:
            rec["options"] = dict(options)
        _write_record(folder, f"cross-check-{i + 1}", rec)


def _write_record(folder, name, rec):
    _write_text(folder, name, json.dumps(rec, ensure_ascii=False) + "\n", ".jsonl")


def _write_text(folder, name, text, suffix=".txt"):
    """Write ``text`` to ``folder/NAME{suffix}`` (the name made safe) whole or not at all."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
    path = os.path.join(folder, f"{safe}{suffix}")
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".part")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, path)


def _print_report(game, rules, results, findings, seconds, cross, work=None):
    """The verdicts as a table fitted to the terminal (80 columns when output is not a terminal): each with
    a plain sentence of what it means and the method behind it; then, when an exploration stopped at a limit,
    how far the explorations got (``work``: :attr:`.Verifier.work`); then each counterexample, a trace shared
    by several properties printed once."""
    from rich.console import Console
    from rich.table import Table

    from .plain import description, meaning
    c = Console()
    wide = c.width >= 120
    props = {p.name: p for p in game.ir.properties}
    t = Table(title=f"{game.ir.title}: {rules} ({seconds:.2f} s)", expand=not wide)
    # the names whole where they fit (a name folded mid-word reads as two), up to 26 columns
    longest = max((len(r.name) for r in results), default=8)
    t.add_column("property", overflow="fold", width=min(longest, 26) if not wide else None)
    if wide:
        t.add_column("kind")
    t.add_column("verdict")
    t.add_column("what it means, and how it was decided", overflow="fold", ratio=5 if not wide else None)
    if wide:
        t.add_column("s", justify="right")
    colors = {"proved": "green", "refuted": "red", "unknown": "yellow"}
    for r in results:
        about = description(props.get(r.name))
        text = (f"[italic]{_escape(about)}[/]\n" if about else "") + \
            f"[bold]{_escape(meaning(r, props.get(r.name)))}[/]\n{_escape(r.method)}"
        row = [r.name] + ([r.kind] if wide else []) + [f"[{colors[r.verdict]}]{r.verdict}[/]", text] + \
            ([f"{r.seconds:.2f}"] if wide else [])
        t.add_row(*row)
    c.print(t)
    if cross.failures and not cross.matches:     # the cross-check itself failed: its verdicts are not checked
        for f in cross.failures:
            c.print(f"[red]{_escape(f['what'])}[/]: the proved verdicts were not checked against the engine")
    if cross.matches:
        verdict = "[red]verifier bug[/]" if cross.failures else "[green]agrees[/]"
        c.print(f"cross-check: {cross.matches} seeded engine matches, {cross.states} concrete states and "
                f"{cross.steps} steps mapped into the abstraction, proved properties evaluated on "
                f"{cross.observed} concrete states: {verdict}")
        for f in cross.failures:
            c.print(f"  [red]{_escape(f['what'])}[/] (affects: {', '.join(f['properties']) or '-'}; "
                    f"{len(f['steps'])} steps, written by --trace-out)")
    if work and work.get("stopped_explorations"):
        c.print(f"explorations: {work['explorations']} finished, {work['stopped_explorations']} stopped by a limit; "
                f"{work['abstract_states']:,} abstract states and {work['transitions']:,} transitions in all")
    shown: dict = {}      # the steps of a counterexample -> the property it was printed for
    for r in results:
        if r.counterexample is None:
            continue
        ce = r.counterexample
        key = (ce.kind, tuple(s["action"] for s in ce.steps))
        if key in shown:
            c.print(f"\n[bold]{r.name}[/]: the same {ce.kind} as for {shown[key]} (above)")
            continue
        shown[key] = r.name
        c.print(f"\n[bold]{r.name}[/]: {ce.kind} ({_escape(ce.note)})", markup=True)
        if ce.kind == "lasso" and ce.cycle_start is not None:
            c.print(f"  a prefix of {ce.cycle_start} steps, then a cycle of {ce.cycle_len} steps (the players' "
                    f"decisions and chance's outcomes) that repeats "
                    f"(shown: the end of the prefix and one cycle; --json or --trace-out give every step)")
        for line in ce.play_by_play:
            print("  " + line)
    for r in results:
        if r.verdict == "unknown" and r.detail.startswith("abstract counterexample"):
            c.print(f"\n[bold]{r.name}[/] (unknown): {_escape(r.detail)}")
    if findings:
        c.print("\n[bold]findings[/]")
        for f in findings:
            c.print(f"- {f.kind}: {f.message}" + (f" ({f.where})" if f.where else ""), markup=False)
            if f.counterexample is not None:
                for line in f.counterexample.play_by_play[-12:]:
                    print("    " + line)

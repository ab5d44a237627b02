"""``atout verify FILE [--property NAME] [--json] [--trace-out DIR] [--timeout SECONDS]``.

Exit status: 0 when every property (and built-in check) is proved, 1 when any is
refuted or unknown, 2 on bad input.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time

from atout.compiler import compile_file

from .checker import Result, Verifier
from .findings import extra_findings
from .properties import CHECKERS
from .builtin import builtin_checks


def verify_game(game, names: list[str] | None = None, timeout: float = 60.0, progress=None,
                builtins: bool = True) -> tuple[list[Result], list]:
    """Check the properties of ``game`` (an engine Game); returns (results, findings)."""
    V = Verifier(game, timeout=timeout, progress=progress)
    props = [p for p in game.ir.properties if names is None or p.name in names]
    results = []
    for p in props:
        if V.budget.expired():
            results.append(Result(p.name, p.kind, "unknown", "the time budget (--timeout) ran out before it"))
            continue
        if progress:
            progress(f"checking {p.name}")
        t0 = time.perf_counter()
        try:
            r = CHECKERS[p.kind](V, p)
        except Exception as exc:  # a verifier failure is an unknown verdict, never a crash
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            r = Result(p.name, p.kind, "unknown", f"the verifier failed: {type(exc).__name__}: {exc}")
        r.seconds = time.perf_counter() - t0
        results.append(r)
    if builtins and names is None:
        t0 = time.perf_counter()
        if progress:
            progress("built-in checks")
        for r in builtin_checks(V):
            r.seconds = time.perf_counter() - t0
            t0 = time.perf_counter()
            results.append(r)
    findings = extra_findings(V) if names is None else []
    return results, findings


def run_verify(args) -> int:
    from atout.engine import Game
    from atout.errors import UsageError
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    game = Game(compile_file(args.file))
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
    t0 = time.perf_counter()
    status = err.status("verifying", spinner="dots") if err.is_terminal else None
    if status:
        status.start()
    try:
        results, findings = verify_game(game, args.property, args.timeout,
                                        progress=(lambda m: status.update(m)) if status else None)
    finally:
        if status:
            status.stop()
    seconds = time.perf_counter() - t0
    if args.trace_out:
        _write_traces(args.trace_out, game, args.file, results, findings)
    if args.json:
        out = {"game": game.name, "rules": args.file, "seconds": round(seconds, 3),
               "properties": [r.as_json() for r in results], "findings": [f.as_json() for f in findings]}
        print(json.dumps(out, ensure_ascii=False))
    else:
        _print_report(game, args.file, results, findings, seconds)
    return 0 if all(r.verdict == "proved" for r in results) else 1


def _write_traces(folder, game, rules, results, findings):
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
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
        path = os.path.join(folder, f"{safe}.jsonl")
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)


def _print_report(game, rules, results, findings, seconds):
    from rich.console import Console
    from rich.table import Table
    c = Console(width=max(Console().width, 140))
    t = Table(title=f"{game.ir.title}: {rules} ({seconds:.2f} s)")
    t.add_column("property")
    t.add_column("kind")
    t.add_column("verdict")
    t.add_column("method / evidence", overflow="fold")
    t.add_column("s", justify="right")
    colors = {"proved": "green", "refuted": "red", "unknown": "yellow"}
    for r in results:
        t.add_row(r.name, r.kind, f"[{colors[r.verdict]}]{r.verdict}[/]", r.method, f"{r.seconds:.2f}")
    c.print(t)
    for r in results:
        if r.counterexample is None:
            continue
        ce = r.counterexample
        c.print(f"\n[bold]{r.name}[/]: {ce.kind} ({ce.note})")
        if ce.kind == "lasso" and ce.cycle_start is not None:
            c.print(f"  a prefix of {ce.cycle_start} steps, then a cycle of {ce.cycle_len} steps that repeats "
                    f"(shown: the end of the prefix and one cycle; --json or --trace-out give every step)")
        for line in ce.play_by_play:
            print("  " + line)
    if findings:
        c.print("\n[bold]findings[/]")
        for f in findings:
            c.print(f"- {f.kind}: {f.message}" + (f" ({f.where})" if f.where else ""), markup=False)
            if f.counterexample is not None:
                for line in f.counterexample.play_by_play[-12:]:
                    print("    " + line)

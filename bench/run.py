"""Benchmarks: random playouts with Atout's engine and with the exported Python module, against OpenSpiel.

    python bench/run.py [--seconds S] [--repeats R] [--json] [--verify-timeout T] [--verify-only STEMS]

For Écarté, Whist, Solo Whist and Euchre (the rule files in rules/; a game without one is reported as n/a) it
measures random playouts per second and actions per second of the engine (``atout.engine``) and of the module
exported with ``atout export --to python``; in the same run, OpenSpiel's C++ ``euchre`` through pyspiel and
OpenSpiel's Python ``python_kuhn_poker``, driven by the same random loop; the ratios of every row to those two;
and the CPU time, wall time and peak memory of ``atout verify FILE --json --timeout T`` for each shipped game
(default T = 120 s; a run the timeout cut says so), checked against issue 10's targets.

The random loop is the same for every implementation: at a chance node it samples ``chance_outcomes()`` by
probability, at a decision it picks uniformly from ``legal_actions()``; every applied action (chance outcomes
included) counts as an action.  Each measurement runs for S seconds (default 2) and is repeated R times (default
3); the best rate is kept (the machine is shared, so the best is the least disturbed).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
# issue 10's "13-trick four-player game written by hand-coded play": decided (nothing unknown) is its target
HAND_PLAYED = [ROOT / "docs" / "examples" / "whist_by_hand.atout"]
GAMES = [("Écarté", "ecarte"), ("Whist", "whist"), ("Solo Whist", "solo_whist"), ("Euchre", "euchre")]
# issue 10's targets: actions/s against OpenSpiel's C++ euchre; verify CPU time (s) and peak memory (MB)
TARGETS = {"module_vs_cpp_euchre": 0.6, "engine_vs_cpp_euchre": 0.4, "verify_ecarte_s": 1.0,
           "verify_two_player_s": 2.0, "verify_four_player_s": 10.0, "verify_four_player_mb": 500}


def random_loop(new_state, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(playouts per second, actions per second) of uniformly random playouts for ``seconds``."""
    rng = random.Random(seed)
    playouts = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        s = new_state()
        while not s.is_terminal():
            if s.is_chance_node():
                r = rng.random()
                for a, p in s.chance_outcomes():
                    r -= p
                    if r <= 0:
                        break
            else:
                a = rng.choice(s.legal_actions())
            s.apply_action(a)
            actions += 1
        playouts += 1
        now = time.perf_counter()
        if now >= deadline:
            return playouts / (now - start), actions / (now - start)


def best(new_state, seconds: float, repeats: int) -> tuple[float, float]:
    runs = [random_loop(new_state, seconds, seed) for seed in range(repeats)]
    return max(runs, key=lambda r: r[1])


def rule_file(stem: str) -> Path | None:
    path = RULES / f"{stem}.atout"
    if path.exists():
        return path
    found = sorted(p for p in RULES.glob("*.atout") if stem.replace("_", "") in p.stem.replace("_", ""))
    return found[0] if found else None


def exported_module(path: Path, folder: Path):
    from atout.export import render
    out = folder / f"bench_{path.stem}.py"
    out.write_text(render(str(path), "python"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(out.stem, out)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[out.stem] = mod
    spec.loader.exec_module(mod)
    return mod


def compile_bytecode() -> None:
    """Write the bytecode of every module of the imported packages of ``atout``, as an install does: the timed ``atout
    verify`` runs then read it, as every run after a user's first does, instead of compiling the sources of
    the modules whose bytecode is missing or stale (about 0.2 s a run; always so where
    PYTHONDONTWRITEBYTECODE is set, since then no import writes it).  ``py_compile`` writes it regardless."""
    import compileall
    seen = set()
    for name in sorted(sys.modules):
        mod = sys.modules[name]
        if name == "atout" or name.startswith("atout."):
            for folder in getattr(mod, "__path__", ()):
                if folder not in seen:
                    seen.add(folder)
                    compileall.compile_dir(folder, maxlevels=0, quiet=1)


def verify_time(path: Path, timeout: float) -> tuple[dict | None, str, int | None]:
    """Wall time, CPU time (user + sys, steadier under load) and peak memory of
    `atout verify FILE --json --timeout T` in its own process, its outcome, and the number of properties whose
    verdict is unknown (None when the report could not be read); (None, why, None) when it cannot run."""
    if importlib.util.find_spec("atout.verify.cli") is None:
        return None, "n/a: atout verify is not available yet", None
    exe = shutil.which("atout") or ""
    args = ["verify", str(path), "--json", "--timeout", str(timeout)]
    cmd = [exe, *args] if exe else [sys.executable, "-c", "import sys; from atout.cli import main; sys.exit(main())",
                                    *args]
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, text=True)
        _, status, usage = os.wait4(proc.pid, 0)      # the rusage of this child alone
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        stdout = out.read()
    cost = {"wall_s": time.perf_counter() - start, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024}     # ru_maxrss is in KiB on Linux
    status = {0: "all proved", 1: "some refuted or unknown"}.get(proc.returncode, f"exit {proc.returncode}")
    try:
        report = json.loads(stdout)
        verdicts = [p["verdict"] for p in report["properties"]]
    except (ValueError, KeyError, TypeError):
        return cost, status, None
    if any("--timeout" in str(p.get("method", "")) for p in report["properties"]):
        status += f", cut by the {timeout:g} s timeout"
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in ("proved", "refuted", "unknown") if v in verdicts)
    return cost, f"{status} ({counts})", verdicts.count("unknown")


def measure(seconds: float, repeats: int, verify_timeout: float = 120.0, only: set | None = None) -> dict:
    import pyspiel
    from open_spiel.python.games import kuhn_poker  # noqa: F401 - registers python_kuhn_poker

    from atout.engine import load
    rows = []
    cpp = pyspiel.load_game("euchre")
    kuhn = pyspiel.load_game("python_kuhn_poker")
    ref = {"cpp_euchre": best(cpp.new_initial_state, seconds, repeats),
           "python_kuhn": best(kuhn.new_initial_state, seconds, repeats)}
    with tempfile.TemporaryDirectory() as tmp:
        for title, stem in GAMES:
            path = rule_file(stem)
            if path is None:
                rows.append({"game": title, "implementation": "engine", "missing": True})
                rows.append({"game": title, "implementation": "exported module", "missing": True})
                continue
            game = load(str(path))
            mod = exported_module(path, Path(tmp))
            rows.append({"game": title, "implementation": "engine",
                         "rate": best(game.new_initial_state, seconds, repeats)})
            mgame = mod.Game()
            rows.append({"game": title, "implementation": "exported module",
                         "rate": best(mgame.new_initial_state, seconds, repeats)})
    rows.append({"game": "Euchre", "implementation": "OpenSpiel C++ (pyspiel)",
                 "rate": best(cpp.new_initial_state, seconds, repeats)})
    rows.append({"game": "Kuhn poker", "implementation": "OpenSpiel Python", "rate": ref["python_kuhn"]})
    # the C++ reference measured twice (start and end of the run): keep the better, as for every row
    ref["cpp_euchre"] = max(ref["cpp_euchre"], rows[-2]["rate"], key=lambda r: r[1])
    rows[-2]["rate"] = ref["cpp_euchre"]
    from atout.compiler import compile_file
    import atout.verify.cli  # noqa: F401 - so that every package of atout is listed in sys.modules
    compile_bytecode()
    verify = []
    for path in sorted(RULES.glob("*.atout")) + [p for p in HAND_PLAYED if p.exists()]:
        if only and path.stem not in only:
            continue
        cost, status, unknown = verify_time(path, verify_timeout)
        verify.append({"file": str(path.relative_to(ROOT)), "cost": cost, "status": status, "unknown": unknown,
                       "players": compile_file(str(path)).players})
    return {"seconds": seconds, "repeats": repeats, "rows": rows, "reference": ref, "verify": verify,
            "python": sys.version.split()[0], "cpus": os.cpu_count()}


def table(result: dict) -> str:
    cpp_aps = result["reference"]["cpp_euchre"][1]
    kuhn_aps = result["reference"]["python_kuhn"][1]
    out = ["| game | implementation | playouts/s | actions/s | × OpenSpiel C++ euchre | × OpenSpiel Python kuhn |",
           "|---|---|---:|---:|---:|---:|"]
    for r in result["rows"]:
        if r.get("missing"):
            out.append(f"| {r['game']} | {r['implementation']} | n/a (no rule file) | | | |")
            continue
        pps, aps = r["rate"]
        out.append(f"| {r['game']} | {r['implementation']} | {pps:,.0f} | {aps:,.0f} | {aps / cpp_aps:.3f} | "
                   f"{aps / kuhn_aps:.2f} |")
    out += ["", "| rule file | `atout verify --json` CPU time | wall time | peak memory | outcome |",
            "|---|---:|---:|---:|---|"]
    for v in result["verify"]:
        c = v["cost"]
        if c is None:
            out.append(f"| {v['file']} | n/a | n/a | n/a | {v['status']} |")
        else:
            out.append(f"| {v['file']} | {c['cpu_s']:.2f} s | {c['wall_s']:.2f} s | {c['peak_mb']:.0f} MB | "
                       f"{v['status']} |")
    out += ["", "Targets (actions/s against OpenSpiel's C++ euchre; verify CPU time):"]
    by = {(r["game"], r["implementation"]): r for r in result["rows"] if not r.get("missing")}
    for impl, key in (("exported module", "module_vs_cpp_euchre"), ("engine", "engine_vs_cpp_euchre")):
        r = by.get(("Euchre", impl))
        if r is not None:
            ratio = r["rate"][1] / cpp_aps
            ok = "met" if ratio >= TARGETS[key] else "MISSED"
            out.append(f"- Euchre, {impl}: {ratio:.3f}× (target {TARGETS[key]}×): {ok}")
    for v in result["verify"]:
        stem = Path(v["file"]).stem
        if stem in {p.stem for p in HAND_PLAYED}:
            ok = v["cost"] is not None and v.get("unknown") == 0
            out.append(f"- verify {stem} (tricks played by hand): {v['status']} (target: decided, nothing "
                       f"unknown): {'met' if ok else 'MISSED'}")
            continue
        if stem == "ecarte":
            secs_target, mb_target = TARGETS["verify_ecarte_s"], None
        elif v.get("players", 4) <= 2:
            secs_target, mb_target = TARGETS["verify_two_player_s"], None
        else:
            secs_target, mb_target = TARGETS["verify_four_player_s"], TARGETS["verify_four_player_mb"]
        want = f"< {secs_target:g} s" + (f", < {mb_target} MB" if mb_target else "") + ", nothing unknown"
        if v["cost"] is None:
            out.append(f"- verify {stem}: n/a (target {want})")
            continue
        secs, mb = v["cost"]["cpu_s"], v["cost"]["peak_mb"]
        # (the exit status 1 reads "some refuted or unknown": the verdicts' count decides, not that text)
        ok = secs < secs_target and (mb_target is None or mb < mb_target) and v.get("unknown") == 0
        out.append(f"- verify {stem}: {secs:.2f} s CPU, {mb:.0f} MB, {v['status']} (target {want}): "
                   f"{'met' if ok else 'MISSED'}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement (default 2)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats per measurement, best kept (default 3)")
    ap.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    ap.add_argument("--verify-timeout", type=float, default=120.0,
                    help="--timeout of each atout verify run, in seconds (default 120)")
    ap.add_argument("--verify-only", default="", help="comma-separated rule file stems to verify (default: all)")
    args = ap.parse_args(argv)
    only = {x.strip() for x in args.verify_only.split(",") if x.strip()} or None
    result = measure(args.seconds, args.repeats, args.verify_timeout, only)
    print(json.dumps(result, indent=1, ensure_ascii=False) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""bench/run.py's target lines: a verdict count decides "nothing unknown", not the exit status's wording."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _result(status, unknown, cpu_s=8.0):
    rate = (1.0, 100.0)
    return {"reference": {"cpp_euchre": rate, "python_kuhn": rate}, "rows": [],
            "verify": [{"file": "rules/whist.atout", "players": 4, "status": status, "unknown": unknown,
                        "cost": {"cpu_s": cpu_s, "wall_s": cpu_s, "peak_mb": 250.0}}]}


def test_refuted_verdicts_meet_the_target_and_unknown_ones_miss_it():
    bench = _bench()
    # Whist's two tables are refuted on purpose (exit status 1, "some refuted or unknown"): nothing is unknown
    met = bench.table(_result("some refuted or unknown (13 proved, 2 refuted)", 0))
    assert "- verify whist: 8.00 s CPU" in met and met.rstrip().endswith(": met")
    missed = bench.table(_result("some refuted or unknown (12 proved, 1 unknown)", 1))
    assert missed.rstrip().endswith(": MISSED")
    # a report that could not be read (unknown count None) is no evidence of "nothing unknown"
    assert bench.table(_result("exit 2", None)).rstrip().endswith(": MISSED")
    # over the time target
    assert bench.table(_result("all proved (15 proved)", 0, cpu_s=10.5)).rstrip().endswith(": MISSED")


def test_the_hand_played_game_is_judged_by_its_verdicts_alone():
    """Issue 10's hand-coded 13-trick game: its target is "decided", whatever its time."""
    bench = _bench()
    res = _result("all proved (9 proved)", 0, cpu_s=30.0)
    res["verify"][0]["file"] = "docs/examples/whist_by_hand.atout"
    line = bench.table(res).rstrip().splitlines()[-1]
    assert line.startswith("- verify whist_by_hand (tricks played by hand)") and line.endswith(": met")
    res["verify"][0].update(status="some refuted or unknown (8 proved, 1 unknown)", unknown=1)
    assert bench.table(res).rstrip().endswith(": MISSED")

"""Human-readable simulation statistics (rich tables)."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table


def _bar(n: int, total: int, width: int = 30) -> str:
    return "#" * max(1 if n else 0, round(width * n / total)) if total else ""


def print_stats(s: dict, console: Console | None = None) -> None:
    """Print the dict made by :meth:`Stats.as_json` (plus game, bots, seconds) as tables."""
    c = console or Console()
    n = s["matches"]
    c.print(f"[bold]{s['game']}[/]: {n} matches, bots {', '.join(s['bots'])}, seed {s['seed']}, "
            f"{s['seconds']} s ({s['matches_per_second']} matches/s, {s['actions']} actions)")
    t = Table(title="matches won by seat")
    t.add_column("seat")
    t.add_column("wins", justify="right")
    t.add_column("share", justify="right")
    for seat, w in s["wins_by_seat"].items():
        t.add_row(seat, str(w), f"{100 * w / n:.1f}%")
    c.print(t)
    d = s["deals_per_match"]
    c.print(f"deals per match: mean {d['mean']:.2f}, min {d['min']}, max {d['max']}")
    for title, hist in (("points per deal (the total of every per-player int match variable's gain, all "
                         "seats together)", s["points_per_deal"]["histogram"]), ("deals per match", d["histogram"])):
        total = sum(hist.values())
        t = Table(title=title)
        t.add_column("value", justify="right")
        t.add_column("deals" if title.startswith("points") else "matches", justify="right")
        t.add_column("")
        for k, v in hist.items():
            t.add_row(k, str(v), _bar(v, total))
        c.print(t)
    for name, info in s["deal_variables"].items():
        hist = info["histogram"]
        total = sum(hist.values())
        t = Table(title=f"{name} per deal (mean {info['mean']:.3f})")
        t.add_column("value", justify="right")
        t.add_column("deals", justify="right")
        t.add_column("")
        for k, v in hist.items():
            t.add_row(k, str(v), _bar(v, total))
        c.print(t)
    if s.get("match_variables"):
        t = Table(title="match variables: mean gain per deal, and mean value at the end of a match")
        t.add_column("variable")
        t.add_column("per")
        t.add_column("gain per deal")
        t.add_column("at the end")
        for name, info in s["match_variables"].items():
            who = "side" if info["per"] == "side" else "seat"
            t.add_row(name, info["per"], ", ".join(f"{who} {i}: {x:g}" for i, x in enumerate(info["mean_gain_per_deal"])),
                      ", ".join(f"{who} {i}: {x:g}" for i, x in enumerate(info["mean_at_end"])))
        c.print(t)
    if s.get("scoring_rows"):
        total = sum(s["scoring_rows"].values())
        t = Table(title="scoring rows: how often each fired")
        t.add_column("table.row")
        t.add_column("times", justify="right")
        t.add_column("")
        for k, v in s["scoring_rows"].items():
            t.add_row(k, str(v), _bar(v, total))
        c.print(t)

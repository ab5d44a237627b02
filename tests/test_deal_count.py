"""'terminates match' bounds the number of deals by what every deal adds to a variable 'ends when' reads
(:func:`atout.verify.termination.deal_count_bound`).  Where the abstraction's gains are intervals, z3 bounds
what each deal-end block adds: once per block, however many edges of the graph end a deal through it (a
helper's 16-card partnership game asked again for every edge and took 545 s, past its --timeout)."""
from __future__ import annotations

from pathlib import Path

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify import smt_refine
from atout.verify.cli import verify_game

GAME = Path(__file__).resolve().parent / "data" / "partners_bid_short.atout"


def test_each_block_is_bounded_once(monkeypatch):
    """By hand (the file's header): every deal scores at least 1 point and the match ends once a side has 6,
    so while it goes on the total is at most 10: at most 11 deals.  z3 is asked for each (block, variable)
    at most once, and for some (the proof needs it)."""
    asked = []
    real = smt_refine.total_gain_bounds

    def counting(A, w, stmts, var):
        asked.append((id(w), id(stmts), var))
        return real(A, w, stmts, var)
    monkeypatch.setattr(smt_refine, "total_gain_bounds", counting)
    results, _ = verify_game(Game(compile_file(str(GAME))), names=["match_terminates"], builtins=False)
    (r,) = results
    assert r.verdict == "proved", r.method
    assert "within 11 deals" in r.method and "after which the match goes on adds at least 1" in r.method
    assert asked and len(asked) == len(set(asked))


def test_the_timeout_fires_during_the_bounds(monkeypatch):
    """The wall-clock safety is honoured while z3 bounds the blocks: the verdict is unknown and says so (a
    safety, not a verdict the clock decides: the budget says it expired at the first bound asked)."""
    from atout.verify import checker
    real = smt_refine.total_gain_bounds

    def expire(A, w, stmts, var):
        monkeypatch.setattr(checker.Budget, "expired", lambda self: True)
        return real(A, w, stmts, var)
    monkeypatch.setattr(smt_refine, "total_gain_bounds", expire)
    results, _ = verify_game(Game(compile_file(str(GAME))), names=["match_terminates"], builtins=False)
    (r,) = results
    assert r.verdict == "unknown" and "--timeout" in r.method


RESIGN = Path(__file__).resolve().parent / "data" / "resign_ends_match.atout"


def _match_terminates(path):
    results, _ = verify_game(Game(compile_file(str(path))), names=["match_terminates"], builtins=False)
    (r,) = results
    return r


def test_the_deal_that_ends_the_match_may_add_nothing():
    """By hand (the file's header): at most 4 points while the match goes on, 1 point from every deal after
    which it goes on, and a last deal (a resignation) that scores nothing: at most 5 deals."""
    r = _match_terminates(RESIGN)
    assert r.verdict == "proved", r.method
    assert "within 5 deals" in r.method and "after which the match goes on adds at least 1" in r.method


def test_a_deal_that_adds_nothing_and_goes_on_is_no_proof(tmp_path):
    """The control: playing on may score nothing (the point only for five tricks of five), so deals can follow
    one another for ever without a point; no bound on the deals exists and none is claimed."""
    src = RESIGN.read_text().replace(
        "if tricks(eldest) >= 3 { points[eldest] += 1 } else { points[dealer] += 1 }",
        "if tricks(eldest) == 5 { points[eldest] += 1 }")
    path = tmp_path / "no_point.atout"
    path.write_text(src)
    assert _match_terminates(path).verdict != "proved"

"""verify/smt.py's ranking function: r(x) = sum of c_f * x_f + w(phase), r >= 0 on every state and r dropping
by at least 1 on every edge, found by z3 over the distinct constraints of an edge list.  The cases are by
hand: a countdown has one, a cycle has none, and every answer is checked here against its edges."""
from __future__ import annotations

from atout.verify.smt import ranking_function

RLIMIT = 20_000_000


def _holds(rank, edges, features) -> bool:
    coef = {f: c for c, f in rank.terms}

    def r(vals, phase):
        return sum(coef.get(f, 0) * vals[f] for f in features) + rank.phase_weights.get(phase, 0)
    return all(r(sv, sp) >= 0 and r(dv, dp) >= 0 and r(sv, sp) - r(dv, dp) >= 1 for sv, sp, dv, dp in edges)


def test_a_countdown_ranks_by_its_counter():
    # x from 9 down to 0 while y wanders: r = x (times a positive coefficient) works, and nothing from y does
    edges = [({"x": x, "y": x % 3}, "loop", {"x": x - 1, "y": (x * 7) % 5}, "loop") for x in range(9, 0, -1)]
    rank = ranking_function(edges, ["x", "y"], RLIMIT)
    assert rank is not None and _holds(rank, edges, ["x", "y"])


def test_phase_weights_rank_a_change_of_phase():
    # nothing changes but the phase, declare -> answer -> exchange: only the weights can drop
    edges = [({"x": 1}, "declare", {"x": 1}, "answer"), ({"x": 1}, "answer", {"x": 1}, "exchange")]
    rank = ranking_function(edges, ["x"], RLIMIT)
    assert rank is not None and _holds(rank, edges, ["x"])
    assert rank.phase_weights["declare"] > rank.phase_weights["answer"] > rank.phase_weights["exchange"]


def test_a_cycle_has_none():
    edges = [({"x": 1}, "loop", {"x": 2}, "loop"), ({"x": 2}, "loop", {"x": 1}, "loop")]
    assert ranking_function(edges, ["x"], RLIMIT) is None


def test_equal_steps_are_one_constraint():
    # 40,000 edges, each of 200 from (1, k) to (0, k) 200 times: 400 distinct states and one difference (x
    # drops by 1), 401 constraints
    edges = [({"x": x, "y": k}, "loop", {"x": x - 1, "y": k}, "loop") for k in range(200) for x in (1,) * 200]
    assert len(edges) == 40_000
    rank = ranking_function(edges, ["x", "y"], RLIMIT, max_rows=401)
    assert rank is not None and _holds(rank, edges, ["x", "y"])
    assert ranking_function(edges, ["x", "y"], RLIMIT, max_rows=400) is None


def test_past_the_cap_no_explanation_is_sought():
    # the same countdown with its constraints over the cap: None (the caller proves by acyclicity instead)
    edges = [({"x": x}, "loop", {"x": x - 1}, "loop") for x in range(50, 0, -1)]
    assert ranking_function(edges, ["x"], RLIMIT, max_rows=40) is None
    assert ranking_function(edges, ["x"], RLIMIT, max_rows=60) is not None


def test_a_ranking_function_is_written_as_a_reader_would():
    """A newcomer saw `size(stock) + -1*size(trick)`: signs are written once, coefficients of 1 left out."""
    from atout.verify.smt import Ranking
    assert str(Ranking([(1, "size(stock)"), (-1, "size(trick)")], {})) == "size(stock) - size(trick)"
    assert str(Ranking([(-2, "a"), (3, "b"), (0, "z")], {"p": 2, "q": 0})) == "-2*a + 3*b + w(phase) with w = {p: 2}"

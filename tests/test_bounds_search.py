"""z3 bounds of a term (:func:`atout.verify.symbolic.bounds`): the bounds found are what z3 shows, whatever
guess they are given; a right guess saves satisfiability checks (counted, not timed)."""
from __future__ import annotations

import pytest
import z3

from atout.verify import symbolic


def _solver():
    x, y = z3.Ints("x y")
    s = z3.Solver()
    # x + y ranges over -37 .. 205 (by hand: x in -40..200, y in 3..5), never 100
    s.add(x >= -40, x <= 200, y >= 3, y <= 5, x + y != 100)
    return s, x + y


class _Counting:
    def __init__(self, s):
        self.s, self.checks = s, 0

    def __getattr__(self, name):
        return getattr(self.s, name)

    def check(self, *a):
        self.checks += 1
        return self.s.check(*a)


@pytest.mark.parametrize("hint", [None, (-37, 205), (-100, 1000), (0, 50), (-37, None), (None, None),
                                  (205, -37), (-10 ** 13, 10 ** 13)])
def test_bounds_do_not_depend_on_the_guess(hint):
    s, t = _solver()
    assert symbolic.bounds(s, t, hint=hint) == (-37, 205)
    assert s.num_scopes() == 0 and s.check() == z3.sat      # the solver is left as it was


def test_bounds_under_a_condition_and_unbounded():
    s, t = _solver()
    x = z3.Int("x")
    assert symbolic.bounds(s, t, x > 150, hint=(0, 10)) == (154, 205)
    assert symbolic.bounds(s, t, x > 500, hint=(0, 10)) is None          # the condition cannot hold
    u = z3.Int("u")
    s2 = z3.Solver()
    s2.add(u >= 7)
    assert symbolic.bounds(s2, u, hint=(7, 100)) == (7, None)           # no greatest value


def test_a_right_guess_saves_checks():
    s, t = _solver()
    plain, guided = _Counting(s), _Counting(s)
    assert symbolic.bounds(plain, t) == symbolic.bounds(guided, t, hint=(-37, 205)) == (-37, 205)
    # the guess: one check per bound that it holds, one that nothing lies beyond (and the first model)
    assert guided.checks <= 5 < plain.checks


@pytest.mark.parametrize("hints", [[], [(0, 50), (-37, 205)], [(-37, 205), (-100, 1000)], [(None, 7), (3, None)],
                                   [(-2000, 2000), (205, -37), (-38, 206)]])
def test_bounds_do_not_depend_on_a_list_of_guesses(hints):
    s, t = _solver()
    assert symbolic.bounds(s, t, hint=hints) == (-37, 205)
    assert s.num_scopes() == 0


def test_the_right_guess_among_others_saves_checks():
    """Bridge's sides swap with the declarer: a block's bounds are often another cell's, not its own cell's
    last ones.  Each guess costs at most two checks per bound (one that it is reached, one that nothing lies
    beyond it), where a wrong guess alone led to a long search."""
    s, t = _solver()
    plain, guided, wrong = _Counting(s), _Counting(s), _Counting(s)
    assert symbolic.bounds(plain, t) == symbolic.bounds(guided, t, hint=[(-2000, 50), (-37, 205)]) == \
        symbolic.bounds(wrong, t, hint=(-2000, 50)) == (-37, 205)
    assert guided.checks <= 1 + 2 * 2 + 2 * 2 < plain.checks
    assert guided.checks < wrong.checks

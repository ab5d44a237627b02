"""The abstract ``/`` and ``%`` of an interval by a number (verify/abstract_eval.py) hold every value the engine
computes (Python's rounding down and sign of the divisor: ``-7 // 2`` is -4, ``7 % -3`` is -2), checked against
every value of small intervals and every divisor; and the result is the exact set's hull where no multiple of the
divisor lies inside (``[4..5] % 3`` is 1..2)."""
from __future__ import annotations

from atout.verify.abstract_eval import _interval_arith
from atout.verify.values import Interval, TOP_INT


def _covers(iv, v):
    return (iv.lo is None or iv.lo <= v) and (iv.hi is None or v <= iv.hi)


def test_every_concrete_quotient_and_remainder_is_inside():
    span = range(-9, 10)
    for lo in span:
        for hi in span:
            if hi < lo:
                continue
            for b in (d for d in span if d != 0):
                q, r = _interval_arith("/", Interval(lo, hi), b), _interval_arith("%", Interval(lo, hi), b)
                for x in range(lo, hi + 1):
                    assert _covers(q, x // b), ("/", lo, hi, b, q)
                    assert _covers(r, x % b), ("%", lo, hi, b, r)


def test_tight_where_it_can_be_and_unknown_where_it_cannot():
    assert _interval_arith("/", Interval(4, 9), 2) == Interval(2, 4)
    assert _interval_arith("/", Interval(4, 9), -2) == Interval(-5, -2)
    assert _interval_arith("%", Interval(4, 5), 3) == Interval(1, 2)
    assert _interval_arith("%", Interval(0, 3), 3) == Interval(0, 2)        # a multiple inside: the whole range
    assert _interval_arith("%", Interval(None, None), -4) == Interval(-3, 0)
    assert _interval_arith("/", Interval(0, None), 3) == Interval(0, None)
    assert _interval_arith("/", 7, Interval(1, 2)) == TOP_INT                  # a divisor not known exactly

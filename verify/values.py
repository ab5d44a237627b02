"""Abstract values of the verifier's domain: exact values, integer intervals, and the markers of what the
abstraction does not keep.

An abstract int is an exact int or an :class:`Interval` (every int in ``lo..hi``, ``None`` meaning
unbounded).  Other values (players, suits, ranks, enum values, bools, cards) are exact; a value that the
abstraction forgot is ``("top", kind, enum)``, standing for every value of its type.  Cards that the
abstraction does not track are the one class :data:`ANON`.
"""
from __future__ import annotations

from typing import NamedTuple

ANON = -2     # an anonymous (untracked) card
NONE = -1     # none (no player, suit, rank, card)
FORGOT = -3   # the zone of a tracked card that no longer matters (see liveness)
DEAD = -1     # the size of a zone that no longer matters
UNKNOWN = -2  # the size of a zone the abstraction does not keep (any number of cards)
IN_DEAD = -4  # the zone of a tracked card that lies in a zone no phase reads for the rest of the deal

MATCH_OVER = "<match over>"
ERROR = "<rule error>"
DEAL_START = "<deal start>"


class Interval(NamedTuple):
    """An abstract int: every value in lo..hi (None: unbounded).  A named tuple, for fast hashing of the
    abstract states that hold it."""
    lo: int | None
    hi: int | None

    def __repr__(self) -> str:
        return f"[{'' if self.lo is None else self.lo}..{'' if self.hi is None else self.hi}]"

    def __contains__(self, v) -> bool:
        return isinstance(v, int) and (self.lo is None or v >= self.lo) and (self.hi is None or v <= self.hi)


TOP_INT = Interval(None, None)


def is_top(v) -> bool:
    return v.__class__ is tuple and len(v) == 3 and v[0] == "top"


def is_interval(v) -> bool:
    return v.__class__ is Interval


def lo_of(v):
    return v.lo if isinstance(v, Interval) else v


def hi_of(v):
    return v.hi if isinstance(v, Interval) else v


def add(a, b, sign=1):
    """``a + b`` (``a - b`` with sign -1) of abstract ints."""
    if not isinstance(a, Interval) and not isinstance(b, Interval):
        return a + sign * b
    alo, ahi, blo, bhi = lo_of(a), hi_of(a), lo_of(b), hi_of(b)
    if sign < 0:
        blo, bhi = (None if bhi is None else -bhi), (None if blo is None else -blo)
    lo = None if alo is None or blo is None else alo + blo
    hi = None if ahi is None or bhi is None else ahi + bhi
    return Interval(lo, hi)


def join(vals):
    """The smallest abstract int holding every abstract int of ``vals`` (ints and intervals): the one value when
    there is one, else an interval (``None`` bounds stay unbounded)."""
    if len(vals) == 1:
        return vals[0]
    los = [v.lo if v.__class__ is Interval else v for v in vals]
    his = [v.hi if v.__class__ is Interval else v for v in vals]
    return Interval(None if None in los else min(los), None if None in his else max(his))


def compare(op: str, a, b) -> list[bool]:
    """Possible outcomes of ``a op b`` for abstract ints (or any exact values)."""
    if not isinstance(a, Interval) and not isinstance(b, Interval):
        return [_CMP[op](a, b)]
    alo, ahi, blo, bhi = lo_of(a), hi_of(a), lo_of(b), hi_of(b)

    def lt(x_hi, y_lo):  # surely x < y
        return x_hi is not None and y_lo is not None and x_hi < y_lo

    if op in ("==", "!="):
        if lt(ahi, blo) or lt(bhi, alo):
            return [op == "!="]
        if alo is not None and alo == ahi == blo == bhi:
            return [op == "=="]
        return [True, False]
    if op == "<":
        if lt(ahi, blo):
            return [True]
        if bhi is not None and alo is not None and alo >= bhi:
            return [False]
        return [True, False]
    if op == "<=":
        if ahi is not None and blo is not None and ahi <= blo:
            return [True]
        if lt(bhi, alo):
            return [False]
        return [True, False]
    if op == ">":
        return compare("<", b, a)
    if op == ">=":
        return compare("<=", b, a)
    raise ValueError(op)  # pragma: no cover


_CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def clamp(v, lo: int, hi: int):
    """``v`` restricted to ``lo..hi`` (an interval meets the range; an exact value is returned as is)."""
    if not isinstance(v, Interval):
        return v
    a = lo if v.lo is None or v.lo < lo else v.lo
    b = hi if v.hi is None or v.hi > hi else v.hi
    return a if a == b else Interval(a, b)


def uniq(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


def widen(v, t: int):
    """``v`` with every value beyond ``-t-1..t`` merged into ``[t+1, ∞)`` or ``(-∞, -t-2]``."""
    if isinstance(v, Interval):
        lo, hi = v.lo, v.hi
        if lo is not None and lo > t + 1:
            lo = t + 1
        if hi is not None and hi > t:           # reaches the class [t+1, oo): takes all of it
            hi = None
        if lo is not None and lo < -t - 1:      # reaches the class (-oo, -t-2]: takes all of it
            lo = None
        if hi is not None and hi < -t - 2:
            hi = -t - 2
        return Interval(lo, hi)
    if not isinstance(v, int) or isinstance(v, bool):
        return v
    if v > t:
        return Interval(t + 1, None)
    if v < -t - 1:
        return Interval(None, -t - 2)
    return v


def widen_gain(v, t: int):
    """``v`` (an int or Interval) with every bound beyond +-t widened to infinity (an over-approximation)."""
    if isinstance(v, Interval):
        lo = None if v.lo is not None and v.lo < -t else v.lo
        hi = None if v.hi is not None and v.hi > t else v.hi
        if lo is not None and lo > t:
            lo = t + 1
        if hi is not None and hi < -t:
            hi = -t - 1
        return Interval(lo, hi)
    if isinstance(v, bool) or not isinstance(v, int):
        return v
    if v > t:
        return Interval(t + 1, None)
    if v < -t:
        return Interval(None, -t - 1)
    return v


def covers(a, c) -> bool:
    """Whether abstract value ``a`` stands for the concrete (or more precise abstract) value ``c``."""
    if a == c:
        return True
    if is_top(a):
        return True
    if isinstance(a, Interval):
        if isinstance(c, Interval):
            return (a.lo is None or (c.lo is not None and c.lo >= a.lo)) and \
                (a.hi is None or (c.hi is not None and c.hi <= a.hi))
        return c in a
    if isinstance(c, Interval):
        return False
    if isinstance(a, (tuple, list)) and isinstance(c, (tuple, list)):
        return len(a) == len(c) and all(covers(x, y) for x, y in zip(a, c))
    return False

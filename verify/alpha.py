"""The abstraction function: the abstract state that stands for a concrete engine state.

:func:`alpha` maps a concrete :class:`atout.engine.state.State` at rest (a player to decide) to the key of
the abstract state the explorer would give it, with the same reductions (forgetting, suit relabelling,
seat rotation).  :func:`covered` says whether an explored node stands for it: the key is equal, or the
node's values are less precise (an interval around an exact int, a zone size or a card's place the node
no longer keeps).  The cross-check (:mod:`.crosscheck`) uses them to catch the abstraction missing a
concrete state or step; the refutations of liveness use them to know that a replay reached the node.
"""
from __future__ import annotations

import heapq

from .absint import AbstractState, Abstraction
from .values import ANON, FORGOT, IN_DEAD, Interval, covers, is_top

# positions in AbstractState.key()
_SIZES, _TRACKED, _VARS, _TRICKS_WON, _GAINS = 3, 4, 5, 11, 13


def abstract_state(A: Abstraction, st) -> AbstractState:
    """The raw abstract state of a concrete state at rest (before forgetting and relabelling)."""
    g = st.game
    blank = A.__dict__.get("_alpha_blank")
    if blank is None:      # a fresh state, made once: its copies start with the match variables at their top
        blank = A._alpha_blank = AbstractState(A)
    w = blank.clone()
    w.phase = st.phase
    w.selecting = st.selecting
    w.actor = st.actor
    w.sizes = [len(z) for z in st.zones]
    if A.track:
        where = {}
        for i, z in enumerate(st.zones):
            for c in z:
                where[c] = i
        w.tracked = [where[c] for c in A.track]
    for v in g.ir.vars:
        if v.scope == "match":
            continue     # any value of its type, as in a fresh state
        val = st.vars[v.name]
        if isinstance(val, list):
            w.vars[v.name] = tuple(A.widen_var(v.name, x) for x in val)
        else:
            w.vars[v.name] = A.widen_var(v.name, val)
    w.dealer = st.dealer
    if A.exact_deals:
        w.deal_number = st.deal_number
    w.trick_number = st.trick_number
    w.trick_cards = [(p, c if c in A.track_index else ANON) for p, c in st.trick_cards]
    w.to_play = st.to_play
    w.trick_leader = st.trick_leader
    w.last_winner = st.last_winner
    blank = A.no_tricks()
    if isinstance(blank, list):
        w.tricks_won = list(st.tricks_won)
    elif blank[0] == "T" and A.split_reads is None:
        w.tricks_won = ("T", sum(st.tricks_won))
    else:
        w.tricks_won = ("S", tuple(sum(st.tricks_won[p] for p in side) for side in g.ir.sides))
    gains = []
    for name in A.watch:
        before = st._deal_start_returns[name]
        gains.append(tuple(a - b for a, b in zip(st.vars[name], before)))
    w.gains = tuple(gains)
    w.revealed = frozenset(st.revealed)
    w.deal_open = st.deal_open
    return w


def alpha(A: Abstraction, st) -> tuple:
    """The key of the abstract node standing for concrete state ``st`` (a decision), and the rotation and
    relabelling applied: ``(key, perm, rot)``."""
    w = abstract_state(A, st)
    A.forget(w)
    perm = A.canonical_suits(w)
    rot = A.rotate(w)
    return w.key(), perm, rot


def key_covers(a: tuple, c: tuple, cards: frozenset = frozenset(), tracked=()) -> bool:
    """Whether the node with key ``a`` stands for the (concrete) state with key ``c``.  ``cards``: the positions
    (in the variables' tuple) of the card variables, where the node's anonymous card stands for any card not
    in ``tracked`` (the abstraction keeps an untracked card that way, :data:`.values.ANON`, and the concrete
    state the card itself)."""
    if a == c:
        return True
    if len(a) != len(c):
        return False
    for i, (x, y) in enumerate(zip(a, c)):
        if x == y:
            continue
        if i == _SIZES:
            if not all(p == q or p < 0 for p, q in zip(x, y)):
                return False
        elif i == _TRACKED:
            if not all(p == q or p in (FORGOT, IN_DEAD) for p, q in zip(x, y)):
                return False
        elif i == _VARS and cards:
            for j, (u, v) in enumerate(zip(x, y)):
                if u == v:
                    continue
                if j in cards:
                    if not (_card_covers(u, v, tracked) if not isinstance(u, tuple) else
                            isinstance(v, tuple) and len(u) == len(v) and
                            all(_card_covers(p, q, tracked) for p, q in zip(u, v))):
                        return False
                elif not covers(u, v):
                    return False
        elif i in (_VARS, _GAINS):
            if not covers(x, y):
                return False
        elif i == _TRICKS_WON:
            # only the total kept (until a statement reads the split: absint.split_reads) stands for each split
            if not (x.__class__ is tuple and y.__class__ is tuple and x and y and x[0] == "T" and y[0] == "S"
                    and x[1] == sum(y[1])):
                return False
        else:
            return False
    return True


def _exact(v) -> bool:
    """Whether abstract value ``v`` stands for itself alone (no interval, no unknown value, in every cell)."""
    if v.__class__ is Interval:     # (a named tuple)
        return False
    if isinstance(v, tuple):
        return not is_top(v) and all(_exact(x) for x in v)
    return True


def _card_covers(u, v, tracked) -> bool:
    """Whether the abstract value ``u`` of a card variable stands for ``v``: equal, or the anonymous card for a
    card the abstraction does not track."""
    return u == v or (u == ANON and isinstance(v, int) and v >= 0 and v not in tracked)


def coverage_of(ex, A: Abstraction) -> "Coverage":
    """The :class:`Coverage` of exploration ``ex`` with abstraction ``A``, made once and kept on ``ex`` (its
    index is built at the first look-up): the searches of one verification share it.  Made afresh when the
    graph gained states or nodes since."""
    cache = ex.__dict__.setdefault("_coverages", {})
    size = (len(ex.states), len(ex.graph))
    got = cache.get(id(A))
    if got is None or got[0] is not A or got[1] != size:
        got = cache[id(A)] = (A, size, Coverage(ex, A))
    return got[2]


#: a bucket of the coverage index larger than this is split by a variable's exact value (Coverage._split)
SPLIT_AT = 16


class Coverage:
    """Finds the explored node that stands for a concrete state (exact key first, then a covering node with
    the same control)."""

    def __init__(self, ex, A: Abstraction):
        self.ex = ex
        self._index = None
        self._cards = frozenset(i for i, v in enumerate(A.g.vars) if v.type.kind == "card")
        self._tracked = frozenset(A.track_index)

    def _skeleton(self, k):
        """What a covering node has equal to the state: every field but the sizes, the tracked cards, the
        variables and the gains, the total of tricks won (a node keeping only the total covers each of its
        splits between the sides), and the variables that are exact in every node (a node's exact value
        covers only itself)."""
        vals = k[_VARS]
        won = k[_TRICKS_WON]
        total = won[1] if won and won[0] == "T" else sum(won[1]) if won and won[0] == "S" else won
        return tuple(x for i, x in enumerate(k) if i not in (_SIZES, _TRACKED, _VARS, _GAINS, _TRICKS_WON)) + \
            (total,) + tuple(vals[j] if j < len(vals) else None for j in self._exact)

    def find(self, key):
        """A node standing for the concrete state of key ``key`` (its own key first), or None."""
        if key in self.ex.states:
            return key
        for k in self._candidates(key):
            if key_covers(k, key, self._cards, self._tracked):
                return k
        return None

    def find_all(self, key) -> list:
        """Every node standing for the concrete state of key ``key`` (several where intervals overlap: a
        narrowed value and a wider one), its own key first."""
        out = [key] if key in self.ex.states else []
        out += [k for k in self._candidates(key) if k != key and key_covers(k, key, self._cards, self._tracked)]
        return out

    def _candidates(self, key):
        """The nodes that may cover ``key``, in exploration order: its bucket of the index (equal skeleton);
        in a large bucket, only those with an exact value of the bucket's splitting variable equal to the
        state's, and those without an exact value there (:meth:`_split`)."""
        if self._index is None:
            width = self._width = max((len(k[_VARS]) for k in self.ex.states), default=0)
            self._exact = [j for j in range(width) if j not in self._cards and
                           all(j < len(k[_VARS]) and _exact(k[_VARS][j]) for k in self.ex.states)]
            self._index = {}
            self._splits = {}
            for k in self.ex.states:
                self._index.setdefault(self._skeleton(k), []).append(k)
        sk = self._skeleton(key)
        bucket = self._index.get(sk, ())
        if len(bucket) <= SPLIT_AT:
            return bucket
        part = self._splits.get(sk)
        if part is None:
            part = self._splits[sk] = self._split(bucket)
        j, by_value, loose = part
        vals = key[_VARS]
        c = vals[j] if j is not None and j < len(vals) else None
        if c.__class__ is not int and c.__class__ is not bool:
            return bucket
        hit = by_value.get(c, ())
        if not loose or not hit:
            return [k for _, k in (hit or loose)]
        return [k for _, k in heapq.merge(hit, loose)]

    def _split(self, bucket: list):
        """``(j, {value: [(position, node)]}, [(position, node)])``: the nodes of ``bucket`` by their exact
        int (or bool) value of variable ``j``, and those whose value there is not one (an interval, unknown).
        A node exact at ``j`` covers only a state with that value (:func:`key_covers`), so the others need no
        look.  ``j`` (a variable that is not a card) is the one leaving the fewest candidates on average; None
        when none splits the bucket."""
        best, best_cost = None, len(bucket)
        for j in range(self._width):
            if j in self._cards or j in self._exact:
                continue
            values: dict = {}
            for k in bucket:
                v = k[_VARS]
                x = v[j] if j < len(v) else None
                if x.__class__ is int or x.__class__ is bool:
                    values[x] = values.get(x, 0) + 1
            exact = sum(values.values())
            if len(values) < 2:
                continue
            cost = len(bucket) - exact + exact / len(values)
            if cost < best_cost:
                best, best_cost = j, cost
        if best is None:
            return None, {}, ()
        by_value: dict = {}
        loose = []
        for pos, k in enumerate(bucket):
            v = k[_VARS]
            x = v[best] if best < len(v) else None
            if x.__class__ is int or x.__class__ is bool:
                by_value.setdefault(x, []).append((pos, k))
            else:
                loose.append((pos, k))
        return best, by_value, loose

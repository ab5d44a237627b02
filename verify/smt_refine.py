"""Refinements of the abstraction by z3: deal-end blocks, frozen variables, invariant candidates.

The explorer's abstract domain keeps values one by one; where that loses a relation the rules keep (the
points of a Hearts hand add up to 26; Spades' bids, forgotten during the tricks, are at most 13 a side), the
checks ask z3 about the concrete states an abstract state stands for (:mod:`.symbolic`):

* a *deal-end block* (``then { score ...  end deal }``, run once per distinct state by the explorer) is
  executed symbolically from the state where it starts (:class:`BlockModel`, built once per what the block
  reads): which rule errors it can raise, what it can add to the match variables, which rows of a table can
  fire, whether a deal bound can fail;
* a phase's *frozen variables* (:func:`.liveness.frozen_at_deal_ends`), not kept during the phase, take one
  of the valuations recorded when play entered it (:func:`with_entries`), with the variables the phase
  keeps and never changes;
* an *invariant* the abstract evaluation says may fail is asked again (:func:`invariant_can_fail`).

Each answer holds in every concrete state, so each narrowing is sound; where a construct is not followed
(:class:`.symbolic.NotEncodable`) or z3 gives up, the answer is None and the abstraction's stands.
"""
from __future__ import annotations

import z3

from atout.compiler import ir

from .symbolic import (Evaluator, Execution, NotEncodable, SymbolicState, _abstract_value, _arith, _compare,
                       _const, all_of, any_of, as_bool, bounds, cases, classes_from, encodable, eq,
                       from_abstract, land, lnot, lor, possible, solver, total)
from .values import ANON, Interval, is_top


# -- rule errors' locations ---------------------------------------------------------------------------------
def location(message: str) -> str | None:
    """The ``path:line:col`` a rule error's message starts with (None when it has none)."""
    parts = message.split(": ", 1)
    head = parts[0]
    if len(parts) == 2 and head.count(":") >= 2 and head.rsplit(":", 2)[1].isdigit():
        return head
    return None


def block_locations(game, stmts) -> set:
    """The ``path:line:col`` of every statement and expression of ``stmts`` and of the tables they score."""
    from dataclasses import fields, is_dataclass

    from .liveness import scored_tables, walk
    todo = list(walk(stmts))
    for t in scored_tables(game.ir, todo):
        for r in t.rows:
            todo.append(r.guard)
            todo.extend(walk(r.body))
    out = set()
    while todo:
        x = todo.pop()
        if isinstance(x, (tuple, list)):
            todo.extend(x)
            continue
        if not is_dataclass(x) or isinstance(x, type):
            continue
        sp = getattr(x, "span", None)
        if sp is not None and getattr(sp, "line", 0):
            out.add(f"{sp.path}:{sp.line}:{sp.col}")
        for f in fields(x):
            if f.name != "span":
                todo.append(getattr(x, f.name))
    return out



# -- frozen variables ------------------------------------------------------------------------------------------
EXACT_ENTRIES = 64   # up to this many recorded valuations are a disjunction; more, their octagon hull


def _cell_bounds(v):
    """``(lo, hi)`` of one recorded abstract value as a number (None: unbounded), or None when not a number."""
    if isinstance(v, bool):
        return (int(v), int(v))
    if isinstance(v, int):
        return (v, v)
    if isinstance(v, Interval):
        return (v.lo, v.hi)
    return None


def _num(x):
    return z3.If(x, 1, 0) if z3.is_bool(x) else x


def entry_constraint(S: SymbolicState, names: tuple, entries, values: dict | None = None,
                     exact: int = EXACT_ENTRIES) -> object:
    """The frozen variables ``names`` of ``S`` take one of the recorded valuations ``entries`` (tuples of
    abstract values, a per-player value a tuple): their disjunction when there are at most ``exact``, else
    their octagon hull (the bounds of each cell and of the sum and the difference of every two cells), which
    holds them all.  Either holds in every concrete state that entered the phase with one of them.
    ``values``: the terms of the variables (default: ``S.vars``)."""
    cells = []
    widths = []           # per variable: its number of cells, None for a variable of one value
    for n in names:
        v = (values or S.vars)[n]
        widths.append(len(v) if isinstance(v, list) else None)
        cells.extend(v if isinstance(v, list) else [v])
    rows = []
    for t in entries:
        row = []
        for width, v in zip(widths, t):
            # a variable of one value keeps it whole, an Interval included (a named tuple, never its cells)
            if width is None:
                row.append(v)
            elif v.__class__ is tuple and len(v) == width:
                row.extend(v)
            else:
                row.extend([v] * width)     # one abstract value standing for every cell
        rows.append(row)
    if not rows:
        return False            # the phase was never entered
    if len(rows) <= exact:
        return any_of(all_of(_in_value(x, v) for x, v in zip(cells, row)) for row in rows)
    out = []
    bounds = [[_cell_bounds(v) for v in row] for row in rows]
    k = len(cells)

    def hull(f):
        vals = [f(b) for b in bounds]
        if any(v is None for v in vals):
            return None
        los, his = [v[0] for v in vals], [v[1] for v in vals]
        return (None if None in los else min(los), None if None in his else max(his))

    def add_bounds(term, lohi):
        if lohi is None:
            return
        if lohi[0] is not None:
            out.append(term >= lohi[0])
        if lohi[1] is not None:
            out.append(term <= lohi[1])

    for i in range(k):
        add_bounds(_num(as_term(cells[i])), hull(lambda b, i=i: b[i]))
        for j in range(i + 1, k):
            def plus(b, i=i, j=j):
                if b[i] is None or b[j] is None:
                    return None
                lo = None if b[i][0] is None or b[j][0] is None else b[i][0] + b[j][0]
                hi = None if b[i][1] is None or b[j][1] is None else b[i][1] + b[j][1]
                return (lo, hi)

            def minus(b, i=i, j=j):
                if b[i] is None or b[j] is None:
                    return None
                lo = None if b[i][0] is None or b[j][1] is None else b[i][0] - b[j][1]
                hi = None if b[i][1] is None or b[j][0] is None else b[i][1] - b[j][0]
                return (lo, hi)
            xi, xj = _num(as_term(cells[i])), _num(as_term(cells[j]))
            add_bounds(xi + xj, hull(plus))
            add_bounds(xi - xj, hull(minus))
    return all_of(out)


def as_term(x):
    if isinstance(x, bool):
        return z3.BoolVal(x)
    if isinstance(x, int):
        return z3.IntVal(x)
    return x


def _in_value(x, v):
    """``x`` (a value of the symbolic state) stands where the abstract value ``v`` says."""
    if isinstance(v, Interval):
        parts = []
        if v.lo is not None:
            parts.append(_compare(">=", x, v.lo))
        if v.hi is not None:
            parts.append(_compare("<=", x, v.hi))
        return all_of(parts)
    if is_top(v) or v == ANON:
        return True
    return eq(x, v)


def with_entries(S: SymbolicState, A, phase) -> SymbolicState:
    """Add to ``S`` (just built by :func:`from_abstract`, its frozen variables forgotten) that the frozen
    variables of ``phase`` took one of the valuations recorded when play entered it
    (:attr:`.absint.Abstraction.entries`).  Their constants are named after the phase, so that the
    constraint is built once per phase and exploration (it can be the octagon of thousands of valuations)."""
    frozen = getattr(A, "frozen", {}).get(phase)
    if not frozen:
        return S
    names = frozen + A.companions[phase]
    named = {}
    for n in names:
        decl = S.game.var_decl[n]
        cur = S.vars[n]
        if isinstance(cur, list):
            cells = [S.named(decl.type, f"{n}[{i}]@{phase}") for i in range(len(cur))]
        else:
            cells = S.named(decl.type, f"{n}@{phase}")
        named[n] = cells
        if n not in frozen:      # a companion keeps the value the state gives it
            S.constraints.append(as_bool(all_of(eq(a, b) for a, b in zip(cells, cur)) if isinstance(cur, list)
                                         else eq(cells, cur)))
            if all(_const(x) for x in cur) if isinstance(cur, list) else _const(cur):
                continue         # the block reads that value itself: equal under the constraint, and folded
        S.vars[n] = S.initial[n] = cells
    cache = A.__dict__.setdefault("_entry_constraints", {})
    if phase not in cache:
        # up to EXACT_ENTRIES valuations play entered with, each with its images under the symmetries
        # (Abstraction.entry_orbit), are a disjunction
        exact = EXACT_ENTRIES * getattr(A, "entry_images", {}).get(phase, 1)
        cache[phase] = as_bool(land(entry_constraint(S, names, list(A.entries[phase]), named, exact),
                                    entry_relation(A, phase, named)))
    S.constraints.append(cache[phase])
    return S


# -- phase-entry relations ------------------------------------------------------------------------------------
# The valuations recorded on entering a phase keep each frozen variable's abstract value alone: a relation the
# statements that set them keep (Whist: the four trump honours held by the two sides add up to at most 4) is
# lost.  Where every way into the phase is a ``goto`` ending a top-level block whose last statements z3 can
# follow (the *entry suffix*: after Whist's ``deal``, the count of each side's honours), the explorer keeps
# the abstract states where a suffix starts (:meth:`.absint.Abstraction.record_entry_start`), and z3 runs
# the suffix from each: the octagon of the frozen variables' values it allows (bounds of each cell, of the
# sum and the difference of every two cells), hulled over those states, holds at every concrete entry.

def entry_suffixes(g: ir.Game, frozen: dict) -> dict:
    """``{id(block): (block, start, suffix, phase)}``: for each phase of ``frozen`` (``phase -> names``)
    whose every entry is a ``goto phase`` ending a top-level block (an auto phase's body or an action's
    effects; not the phase a deal starts in), the blocks with such a ``goto`` and their entry suffix
    ``block[start:-1]``: the longest run of statements before the ``goto`` that z3 follows
    (:func:`.symbolic.encodable`), which must write one of the phase's frozen variables.  A phase with an
    entry elsewhere (a nested ``goto``, the deal's first phase) or a suffix that writes none of them has no
    entry relation."""
    from .liveness import phase_stmts, walk
    tops = [ph.body for ph in g.phases if ph.kind == "auto"] + [a.body for ph in g.phases for a in ph.actions]
    gotos: dict = {}
    for ph in g.phases:
        for s in phase_stmts(g, ph):
            if isinstance(s, ir.Goto):
                gotos[id(s)] = s
    out = {}
    for phase, names in frozen.items():
        if phase == g.match.start:
            continue
        sites = {i for i, s in gotos.items() if s.phase == phase}
        found = {}
        for b in tops:
            if b and isinstance(b[-1], ir.Goto) and b[-1].phase == phase:
                start = len(b) - 1
                while start > 0 and encodable(b[start - 1:start]):
                    start -= 1
                suffix = tuple(b[start:-1])
                if not any(isinstance(s, ir.Assign) and s.var in names for s in walk(suffix)):
                    found = None
                    break
                found[id(b)] = (b, start, suffix, phase)
                sites.discard(id(b[-1]))
        if found and not sites:
            out.update(found)
    return out


def _suffix_octagon(A, w, suffix, names) -> list | None | bool:
    """The bounds z3 finds, when entry suffix ``suffix`` run from abstract state ``w`` goes on to its
    ``goto``, of the int cells of variables ``names`` and of the sum and the difference of every two: a list
    of ``(lo, hi)`` (None: unbounded or not decided) in the order of :func:`_octagon_terms`; False when the
    suffix cannot go on from ``w``; None when it is not followed."""
    def run(classes):
        S = from_abstract(A, w)
        if classes is not None:
            S.use_classes(classes)
        ex = Execution(S, range_errors=A.range_errors)
        return S, ex.run(suffix)
    try:
        S, cont = run(None)
        if S._loc is not None:
            try:
                S, cont = run(classes_from(S))
            except NotEncodable:
                pass
    except NotEncodable:
        return None
    cells = [x for n in names for x in (S.vars[n] if isinstance(S.vars[n], list) else [S.vars[n]])]
    s = solver(S, A.rlimit)
    out = []
    for t in _octagon_terms(cells):
        b = bounds(s, t, cont)
        if b is None:
            return False
        out.append(b)
    return out


def _octagon_terms(cells) -> list:
    """Each cell, then the sum and the difference of every two cells."""
    xs = [_num(as_term(x)) for x in cells]
    out = list(xs)
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            out += [xs[i] + xs[j], xs[i] - xs[j]]
    return out


def _symmetric_hull(A, names, hull: list) -> list:
    """``hull`` (bounds in the order of :func:`_octagon_terms` over the cells of ``names``) joined with its images
    under every turn of the table the exploration uses: the states z3 pairs it with may be in the labels of
    another turn than the suffix's start (as the recorded values, :meth:`.absint.Abstraction.entry_orbit`)."""
    if not A.rotational:
        return hull
    widths = [len(A.dead_value(A.var_types[n])) if A.var_types[n].per is not None else None for n in names]
    if all(w is None for w in widths):
        return hull
    k = sum(1 if w is None else w for w in widths)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    index = {p: n for n, p in enumerate(pairs)}

    def bound(b, i, j, kind):
        """The bound of cell i (kind 'x'), of cell i + cell j ('+') or of cell i - cell j ('-') from ``b``."""
        if kind == "x":
            return b[i]
        lo_i, hi_i = min(i, j), max(i, j)
        at = k + 2 * index[lo_i, hi_i]
        if kind == "+":
            return b[at]
        lo, hi = b[at + 1]
        return (lo, hi) if i < j else (None if hi is None else -hi, None if lo is None else -lo)

    out = list(hull)
    for r in range(1, A.n):
        src = []          # src[c]: the cell of the start's labels that cell c holds once the table is turned by r
        base = 0
        for n, w in zip(names, widths):
            if w is None:
                src.append(base)
                base += 1
                continue
            per = A.var_types[n].per
            turn = A.side_turn[r] if per == "side" and A.side_turn else None
            if per == "player":
                src += [base + (c + r) % A.n for c in range(w)]
            elif turn is not None:
                src += [base + turn.index(c) for c in range(w)]
            else:
                src += [base + c for c in range(w)]
            base += w
        img = [bound(hull, src[c], None, "x") for c in range(k)]
        for i, j in pairs:
            img += [bound(hull, src[i], src[j], "+"), bound(hull, src[i], src[j], "-")]
        out = [(None if a[0] is None or b[0] is None else min(a[0], b[0]),
                None if a[1] is None or b[1] is None else max(a[1], b[1])) for a, b in zip(out, img)]
    return out


def entry_relation(A, phase, cells: dict):
    """What z3 shows of the frozen variables of ``phase`` on entering it, over every entry suffix started in
    the exploration (:func:`entry_suffixes`): the hull of the octagons :func:`_suffix_octagon` finds, as a
    constraint on ``cells`` (``name -> z3 term or list of them``, the entry's values).  It holds at every
    concrete entry: each runs one suffix from a concrete state one of the recorded abstract states stands for.
    True (nothing known) when the phase has no entry relation, a start could not be recorded or a suffix
    is not followed."""
    starts = getattr(A, "entry_starts", {}).get(phase)
    if not starts or phase in A.entry_broken:
        return True
    written = set()
    for _, _, suffix, ph in A.entry_blocks.values():
        if ph == phase:
            written |= {s.var for s in ir.walk_stmts(suffix) if isinstance(s, ir.Assign)}
    names = [n for n in A.frozen[phase] if n in written and A.var_types[n].type.kind == "int"]
    if not names:
        return True
    hull = None
    for w, suffix in starts.values():
        got = _suffix_octagon(A, w, suffix, names)
        if got is None:
            return True
        if got is False:
            continue
        hull = got if hull is None else [
            (None if a[0] is None or b[0] is None else min(a[0], b[0]),
             None if a[1] is None or b[1] is None else max(a[1], b[1])) for a, b in zip(hull, got)]
    if hull is None:
        return False           # no entry goes on to the phase
    hull = _symmetric_hull(A, names, hull)
    terms = _octagon_terms([x for n in names for x in (cells[n] if isinstance(cells[n], list) else [cells[n]])])
    out = []
    for t, (lo, hi) in zip(terms, hull):
        if lo is not None:
            out.append(t >= lo)
        if hi is not None:
            out.append(t <= hi)
    return all_of(out)



# -- deal-end blocks -------------------------------------------------------------------------------------------
def run_block(A, w, stmts) -> Execution:
    """The symbolic run of effect block ``stmts`` from abstract state ``w`` (raises NotEncodable): run once
    with each card's zone a z3 constant, then again with the cards grouped into the classes that run told
    apart (a smaller problem for z3), unless the grouping does not hold."""
    if not encodable(stmts):
        raise NotEncodable("a statement of the block")
    S = with_entries(from_abstract(A, w), A, w.phase)
    ex = Execution(S, range_errors=A.range_errors)
    ex.run(stmts)
    if S._loc is None:
        return ex          # no card's zone was read
    S2 = with_entries(from_abstract(A, w), A, w.phase)
    S2.use_classes(classes_from(S))
    ex2 = Execution(S2, range_errors=A.range_errors)
    try:
        ex2.run(stmts)
    except NotEncodable:
        return ex
    return ex2


def _block_reads(game, stmts) -> tuple:
    """What a block (and the tables it scores) can read of a state: ``(variables, builtins, functions,
    reads zones)``."""
    from .liveness import exprs_of, scored_tables, subexprs, walk
    body = list(walk(stmts))
    nodes = list(body)
    for t in scored_tables(game.ir, body):
        nodes.append(t)
    names, builtins, fns, zones = set(), set(), set(), False
    for e in exprs_of(tuple(nodes)):
        for x in subexprs(e):
            if isinstance(x, ir.VarRef):
                names.add(x.name)
            elif isinstance(x, ir.Builtin):
                builtins.add(x.name)
            elif isinstance(x, ir.Call):
                fns.add(x.fn)
            elif isinstance(x, ir.ZoneRef):
                zones = True
    return tuple(sorted(names)), frozenset(builtins), frozenset(fns), zones


def _memo_key(A, w, stmts) -> tuple:
    """The part of abstract state ``w`` a symbolic run of ``stmts`` depends on: runs from states that differ
    elsewhere (a variable the block does not read) are the same run."""
    cache = A.__dict__.setdefault("_block_reads", {})
    reads = cache.get(id(stmts))
    if reads is None:
        reads = cache[id(stmts)] = _block_reads(A.game, stmts)
    names, builtins, fns, zones = reads
    return (id(stmts), w.phase, A.range_errors, tuple(w.vars[n] for n in names),
            tuple(w.vars[n] for n in getattr(A, "companions", {}).get(w.phase, ())),
            w.dealer if builtins & {"dealer", "eldest"} else None,
            w.deal_number if "deal_number" in builtins else None,     # exact when the abstraction keeps it
            w.trick_number if "trick_number" in builtins else None,
            (w.actor, w.trick_leader, w.last_winner) if builtins & {"actor", "leader", "winner"} else None,
            tuple(w.trick_cards) if "led_suit" in builtins or "played" in fns else None,
            (tuple(w.tricks_won) if w.tricks_won.__class__ is list else w.tricks_won) if "tricks" in fns else None,
            (tuple(w.sizes), tuple(w.tracked)) if zones or fns & {"holder", "has", "size", "top"} else None)



class BlockModel:
    """A deal-end block run symbolically from one abstract state, with one z3 solver over its constraints
    that every question about it reuses: ``ex`` (the :class:`.symbolic.Execution`), ``deal_gains``
    (``{watched variable: [term per cell]}``: the gains of the deal so far, as the state keeps them, plus the
    block's)."""

    def __init__(self, A, w, stmts):
        self.A = A
        self.ex = run_block(A, w, stmts)
        S = self.ex.S
        self.deal_gains = {}
        for k, name in enumerate(A.watch):
            before = [_abstract_value(S, x, ir.INT, f"gain_{name}[{j}]") for j, x in enumerate(w.gains[k])]
            self.deal_gains[name] = [_arith("+", a, b) for a, b in zip(before, self.ex.gains(name))]
        self.solver = solver(S, A.rlimit)
        from .match_invariant import assumption
        start = assumption(A, S)
        if start is not None:
            self.solver.add(start)      # proved to hold wherever such a block starts

    def possible(self, cond) -> bool | None:
        return possible(self.solver, cond)

    def bounds(self, term, cond=True, hint=None):
        return bounds(self.solver, term, cond, hint)


def block_model(A, w, stmts, keep: bool = True) -> BlockModel | None:
    """The :class:`BlockModel` of ``stmts`` from ``w``, made once per part of ``w`` the block reads (and the
    deal's gains so far) when ``keep`` (a pass over every block asks for each once: not kept, it is freed);
    None when the block is not followed."""
    memo = A.__dict__.setdefault("_block_models", {})
    key = (_memo_key(A, w, stmts), w.gains)
    got = memo.get(key, False)
    if got is False:
        try:
            got = BlockModel(A, w, stmts)
        except NotEncodable:
            got = None
        if keep:
            memo[key] = got
    return got


def possible_error_locations(A, w, stmts) -> set | None:
    """The locations of the rule errors block ``stmts`` may raise from abstract state ``w``; None when that
    is not decided (a construct not followed, z3 gave up)."""
    m = block_model(A, w, stmts)
    if m is None:
        return None
    by_place: dict = {}
    for cond, msg in m.ex.errors:
        by_place.setdefault(location(msg), []).append(cond)
    out = set()
    for place, conds in by_place.items():
        got = m.possible(any_of(conds))
        if got is None:
            return None
        if got:
            out.add(place)
    return out


def writes_may_leave_range(m: BlockModel) -> bool | None:
    """Whether a ``+=``/``-=`` write of block model ``m`` can take a ranged match variable out of its range,
    from the values the block starts with (each in its declared range, and the proved deal-start bounds):
    False when z3 shows none can; None when that is not decided (z3 gave up, or the block was run with such
    writes as rule errors, so that they were not recorded)."""
    if m.A.range_errors:
        return None
    S = m.ex.S
    out = []
    for name, cell, gain, cond in m.ex.writes:
        t = S.game.var_decl[name].type
        start = S.initial[name] if cell is None else S.initial[name][cell]
        new = _arith("+", start, gain)
        out.append(land(cond, lor(_compare("<", new, t.low), _compare(">", new, t.high))))
    return m.possible(any_of(out)) if out else False


#: the distinct bounds of earlier blocks kept as guesses for each watched variable (the latest)
GAIN_HINTS = 6


def gain_bounds(A, w, stmts) -> tuple[dict, dict] | None:
    """What block ``stmts`` run from ``w`` adds to the match variables, as z3 bounds: ``(final, writes)``,
    each ``{(var, cell): (lo, hi)}`` (None: unbounded).  ``final``: the change of each watched variable over
    the block; ``writes``: the change since the start of the block at any write to a ranged match variable.
    None when the block is not followed."""
    m = block_model(A, w, stmts)
    if m is None:
        return None
    # the bounds found for earlier blocks guide the search for this one's (blocks that differ in the tricks
    # taken add much the same, to one cell or to another: Bridge's sides swap with the declarer): fewer
    # checks, the same bounds
    hints = A.__dict__.setdefault("_gain_bound_hints", {})     # (kind, variable) -> the bounds found so far

    def learn(name, b):
        seen = hints.setdefault(name, [])
        if b not in seen:
            seen.append(b)
            del seen[:-GAIN_HINTS]
    final = {}
    for name in A.watch:
        for j, term in enumerate(m.ex.gains(name)):
            if not _const(term):
                b = m.bounds(term, hint=hints.get(("final", name)))
                if b is not None:
                    final[(name, j)] = b
                    learn(("final", name), b)
    by_cell: dict = {}
    for name, cell, gain, cond in m.ex.writes:
        by_cell.setdefault((name, cell), []).append((gain, cond))
    writes: dict = {}
    for key, items in by_cell.items():      # each cell's writes at once: ``which`` tells the write
        which = z3.Int(f"write!{key[0]}!{key[1]}")
        at = items[-1][0]
        for i in range(len(items) - 2, -1, -1):
            at = z3.If(which == i, _as_int(items[i][0]), _as_int(at))
        happens = all_of([which >= 0, which < len(items),
                          any_of(land(which == i, c) for i, (_, c) in enumerate(items))])
        b = m.bounds(at, happens, hint=hints.get(("write", key[0])))
        if b is not None:
            writes[key] = b
            learn(("write", key[0]), b)
    return final, writes


def _as_int(x):
    return z3.IntVal(x) if isinstance(x, int) and not isinstance(x, bool) else x


def gains_possible(A, w, stmts, gains: tuple) -> bool | None:
    """Whether a deal whose end block ``stmts`` runs from ``w`` can end with the per-deal gains ``gains``
    (the abstraction's, per watched variable a tuple of abstract ints): False when z3 shows it cannot."""
    if not A.watch:
        return None
    m = block_model(A, w, stmts)
    if m is None:
        return None
    conds = [_in_value(m.deal_gains[name][j], want) for k, name in enumerate(A.watch)
             for j, want in enumerate(gains[k])]
    return m.possible(all_of(conds))


def total_gain_bounds(A, w, stmts, var: str):
    """``(lo, hi)`` of what the deal adds to ``total(var)`` (so far, and in block ``stmts`` from ``w``)."""
    m = block_model(A, w, stmts)
    return None if m is None else m.bounds(total(m.deal_gains[var]))


def block_changes_total(A, w, stmts, var: str) -> bool | None:
    """Whether block ``stmts`` run from ``w`` can change ``total(var)``: False when z3 shows it cannot."""
    m = block_model(A, w, stmts)
    if m is None:
        return None
    S = m.ex.S
    return m.possible(lnot(eq(total(S.vars[var]), total(S.initial[var]))))


class _BoundEvaluator(Evaluator):
    """A deal bound's expression over a deal's gains (``gain(points[p])``, ``gain(total(points))``)."""

    def __init__(self, S: SymbolicState, gains: dict):
        super().__init__(S)
        self.gains = gains

    def call(self, e: ir.Call, env, guard):
        if e.fn != "gain":
            return super().call(e, env, guard)
        inner = e.args[0]
        if isinstance(inner, ir.Index) and isinstance(inner.base, ir.VarRef) and inner.base.name in self.gains:
            row = self.gains[inner.base.name]
            i = self.expr(inner.index, env, guard)
            return cases(i, range(len(row)), lambda k: row[k])
        if isinstance(inner, ir.VarRef) and inner.name in self.gains and len(self.gains[inner.name]) == 1:
            return self.gains[inner.name][0]
        if isinstance(inner, ir.Call) and inner.fn == "total" and inner.args[0].name in self.gains:
            return total(self.gains[inner.args[0].name])
        raise NotEncodable("a gain the exploration does not watch")


def deal_bound_can_fail(A, w, stmts, expr: ir.Expr, local: str | None = "p") -> bool | None:
    """Whether the per-deal bound ``expr`` can fail for a deal that ends through block ``stmts`` run from
    ``w``, for any player ``p`` (0-based, every seat): False when z3 shows it cannot, in any concrete state
    ``w`` stands for; None when not decided, or when the bound reads more than the deal's gains
    (:func:`.properties.bound_reads_only_gains`)."""
    from .properties import bound_reads_only_gains
    if not bound_reads_only_gains(expr):
        return None
    m = block_model(A, w, stmts)
    if m is None:
        return None
    ev = _BoundEvaluator(m.ex.S, m.deal_gains)
    try:
        fails = any_of(lnot(ev.expr(expr, {local: p} if local else {})) for p in range(m.ex.S.n if local else 1))
    except NotEncodable:
        return None
    return m.possible(fails)


def table_in_blocks(A, end_blocks, table: str) -> tuple | None:
    """The checks of scoring table ``table`` over the deal-end blocks ``end_blocks`` (``[(start state,
    block)]``) that score it: ``(blocks checked, overlaps, gaps)``, each overlap ``(row, row)`` and each gap
    ``()`` where z3 finds one possible; None when a block is not followed or z3 gives up."""
    checked, overlaps, gaps = 0, [], []
    done = set()
    for start, block in end_blocks:
        key = (_memo_key(A, start, block), start.gains)
        if key in done:
            continue
        done.add(key)
        m = block_model(A, start, block, keep=False)
        if m is None:
            return None
        scored = [(cond, fired) for t, cond, fired in m.ex.scores if t == table]
        if not scored:
            continue
        checked += 1
        for cond, fired in scored:
            for i in range(len(fired)):
                for j in range(i + 1, len(fired)):
                    got = m.possible(land(fired[i][1], fired[j][1]))
                    if got is None:
                        return None
                    if got and (fired[i][0], fired[j][0]) not in overlaps:
                        overlaps.append((fired[i][0], fired[j][0]))
            got = m.possible(land(cond, lnot(any_of(f for _, f in fired))))
            if got is None:
                return None
            if got and () not in gaps:
                gaps.append(())
    return checked, overlaps, gaps


# -- invariants ------------------------------------------------------------------------------------------------
def invariant_can_fail(A, w, expr: ir.Expr, phase=None) -> bool | None:
    """Whether invariant ``expr`` (``p`` every player) can fail, or raise a rule error, in a concrete state
    abstract state ``w`` stands for, its frozen variables holding what play entered ``phase`` with (``w``'s
    phase, or the one the match ended in): False when z3 shows it cannot; None when not decided."""
    S = with_entries(from_abstract(A, w), A, phase)
    ev = Evaluator(S)
    try:
        from .liveness import players_bound
        fails = any_of(lnot(ev.expr(expr, {"p": p})) for p in players_bound(S.game, expr))
    except NotEncodable:
        return None
    fails = lor(fails, any_of(c for c, _ in ev.errors))
    return possible(solver(S, A.rlimit), fails)

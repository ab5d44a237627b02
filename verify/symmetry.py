"""Which symmetries of a game the abstraction may use, and why one is refused.

The explorer keeps one abstract state per orbit of two symmetries (:mod:`.absint`):

* **turning the table**: every state is seen from the dealer's seat 0 (seat ``s`` becomes ``s - r``); when
  the game has sides, side ``k`` becomes side ``sigma_r(k)``, the side of its seats turned (:func:`side_turns`);
* **relabelling suits**: the suit variables take the smallest suit labels first.

That is sound only if the rules and the properties treat every seat (every suit) alike: a run turned (or
relabelled) must be a run of the game.  So a symmetry is used only when no construct of the rules or of the
properties tells seats (suits) apart.  What tells them apart, and is refused here:

* a constant seat, suit or card, ``seat(n)``, an index written as a number (``points[0]``), a parameter
  ranging over players (checked in :mod:`.absint`);
* a ``for`` loop over ``players`` or ``sides`` (for the table) or over ``suits`` (for suits) whose turns
  depend on their order: the rules run the loop from seat 0 (suit 0), the turned state from another seat.
  A loop is accepted when each turn touches only what no other turn reads (:func:`loop_order_free`);
* ``ord`` of a suit (the position of a suit in the deck's order), for suits;
* a side number used as a number: ``side(p)`` and a ``for s in sides`` variable may index a per-side
  variable, be compared (``==``, ``!=``) with another side number, or (with two sides) name the other side
  as ``1 - s``; anything else (``side(p) == 0``, a side stored in a variable) keeps the table still
  (:func:`side_number_misuse`);
* ``dealer = P`` within a deal, for the table (:func:`dealer_set_in_deal`).

Every function returns a reason (text naming the construct and its line) or None when nothing is refused.
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from atout.compiler import ir

from .liveness import _children as _expr_children
from .liveness import subexprs


def _where(node) -> str:
    span = getattr(node, "span", None)
    line = getattr(span, "line", 0) if span is not None else 0
    return f" (line {line})" if line else ""


def side_turns(g: ir.Game) -> tuple[tuple[int, ...], ...] | None:
    """For each rotation ``r`` (0..players-1; seat ``s`` becomes ``s - r``), the map of side numbers
    ``sigma_r`` (``sigma_r[k]``: the side that side ``k``'s seats form once turned); ``()`` for a game without
    sides; None when the sides do not partition the seats or some rotation does not map sides to sides
    (partners sitting next to each other in a game of four)."""
    sides = g.sides
    if not sides:
        return ()
    n = g.players
    side_of = {}
    for k, side in enumerate(sides):
        for s in side:
            if s in side_of:
                return None
            side_of[s] = k
    if set(side_of) != set(range(n)):
        return None
    out = []
    for r in range(n):
        sigma = []
        for side in sides:
            images = {side_of[(s - r) % n] for s in side}
            if len(images) != 1:
                return None
            sigma.append(images.pop())
        if sorted(sigma) != list(range(len(sides))):
            return None
        out.append(tuple(sigma))
    return tuple(out)


# -- loops whose turns do not depend on their order -------------------------------------------------------

def _assigns(block, out: list) -> bool:
    """Collect the assignments of ``block`` (through ``if``s) into ``out``; False when it holds any other
    statement (a move, a deal, a ``goto``, ``end deal``, a nested loop, a score)."""
    for s in block:
        if isinstance(s, ir.Assign):
            out.append(s)
        elif isinstance(s, ir.If):
            if not all(_assigns(body, out) for _, body in s.branches) or not _assigns(s.orelse, out):
                return False
        else:
            return False
    return True


def _is_local(e, name: str) -> bool:
    return isinstance(e, ir.Local) and e.name == name


def _reads_local_only_within(e, name: str, allowed) -> bool:
    """Whether every read of the local ``name`` in ``e`` lies inside a subexpression equal to ``allowed``."""
    if allowed is not None and e == allowed:
        return True
    if isinstance(e, ir.Local):
        return e.name != name
    return all(_reads_local_only_within(x, name, allowed) for x in _expr_children(e))


def loop_order_free(loop: ir.For, var_decl: dict) -> str | None:
    """None when the turns of ``loop`` give the same result in any order, else why not.

    Accepted: a body of assignments (and ``if``s around them) where

    * a variable written with ``=`` (or written with a range, or read in the body) is written only in the
      turn's own cell (``points[p]`` in ``for p in players``), or, for ``=``, by one statement whose value
      reads the loop variable only through its index (``before[side(p)] = points[side(p)]``: partners write
      the same value);
    * ``+=`` and ``-=`` add up whatever the order when the variable has no range and the body does not read it;
    * a variable written in the body is read there only in the turn's own cell, and only if every write of
      it is to the turn's own cell.

    ``var_decl``: variable name -> its :class:`ir.Var`."""
    stmts: list = []
    if not _assigns(loop.body, stmts):
        return f"a 'for {loop.var} in {loop.over}' loop{_where(loop)} does more than assign variables"
    x = loop.var
    read_exprs = list(_conditions(loop.body))
    for s in stmts:
        read_exprs += [s.value] + ([s.index] if s.index is not None else [])
    subs = [sub for e in read_exprs for sub in subexprs(e)]
    if any(isinstance(sub, (ir.Quant, ir.NextPlayer)) and sub.var == x for sub in subs):
        return f"a 'for {x} in {loop.over}' loop{_where(loop)} whose variable is bound again inside it"
    written: dict = {}
    for s in stmts:
        written.setdefault(s.var, []).append(s)
    own = {name: all(s.index is not None and _is_local(s.index, x) for s in ws) for name, ws in written.items()}
    reads: dict = {}     # variable written in the body -> its reads there (an Index, or a VarRef)
    for sub in subs:
        if isinstance(sub, ir.Index) and isinstance(sub.base, ir.VarRef) and sub.base.name in written:
            reads.setdefault(sub.base.name, []).append(sub)
        elif isinstance(sub, ir.VarRef) and sub.name in written:
            reads.setdefault(sub.name, []).append(sub)
    why = f"a 'for {x} in {loop.over}' loop{_where(loop)} whose turns depend on their order"
    for name, rs in reads.items():
        if not own[name]:
            return f"{why} ('{name}' is written and read in it)"
        for r in rs:
            if isinstance(r, ir.VarRef):     # the whole variable (total, max...), or its Index base
                if not any(isinstance(o, ir.Index) and o.base is r for o in rs):
                    return f"{why} ('{name}' is written and read in it)"
            elif not _is_local(r.index, x):
                return f"{why} ('{name}' is written and read in it)"
    for name, ws in written.items():
        if own[name]:
            continue
        decl = var_decl.get(name)
        ranged = decl is not None and decl.type.kind == "int" and (decl.type.low is not None or
                                                                     decl.type.high is not None)
        if all(s.op in ("+=", "-=") for s in ws) and not ranged and name not in reads:
            continue
        if len(ws) == 1 and ws[0].op == "=" and name not in reads:
            s = ws[0]     # every turn that writes writes the same value to the same cell, or to its own
            if _reads_local_only_within(s.value, x, s.index):
                continue
        return f"{why} ('{name}' is written by more than one turn)"
    return None


def _conditions(block):
    for s in block:
        if isinstance(s, ir.If):
            for cond, body in s.branches:
                yield cond
                yield from _conditions(body)
            yield from _conditions(s.orelse)


def _loops(node, over: tuple[str, ...]):
    """Every ``for`` statement over one of ``over`` anywhere inside ``node``."""
    return (s for s in _statements(node, ir.For) if s.over in over)


def _rule_nodes(g: ir.Game) -> tuple:
    return (g.match, g.vars, g.phases, g.tables, g.properties)


def order_dependent_loop(g: ir.Game, over: tuple[str, ...]) -> str | None:
    """Why some ``for`` loop over one of ``over`` (``players``, ``sides``, ``suits``) depends on the order of
    its turns, or None."""
    decl = {v.name: v for v in g.vars}
    for loop in _loops(_rule_nodes(g), over):
        why = loop_order_free(loop, decl)
        if why is not None:
            return why
    return None


def dealer_set_in_deal(g: ir.Game) -> str | None:
    """Why the table cannot be turned deal by deal: a ``dealer = P`` statement moves the dealer within a deal,
    and what the abstraction keeps aside for the rest of the deal (the values play entered a phase with) is
    seen from the former dealer's seat; None when no such statement exists."""
    for s in _statements(_rule_nodes(g), ir.SetDealer):
        return f"'dealer = ...'{_where(s)} moves the dealer within a deal"
    return None


def _statements(node, cls):
    """Every statement of class ``cls`` anywhere inside ``node``."""
    if isinstance(node, cls):
        yield node
    if isinstance(node, (tuple, list)):
        for x in node:
            yield from _statements(x, cls)
        return
    if isinstance(node, ir.Expr) or not is_dataclass(node) or isinstance(node, type):
        return
    for f in fields(node):
        if f.name != "span":
            yield from _statements(getattr(node, f.name), cls)


# -- suits -------------------------------------------------------------------------------------------------

def suit_order_read(g: ir.Game) -> str | None:
    """Why the rules read the order of the suits (``ord`` of a suit), or None."""
    from .liveness import exprs_of
    for e in exprs_of(_rule_nodes(g)):
        for x in subexprs(e):
            if isinstance(x, ir.Call) and x.fn == "ord" and x.args and x.args[0].type.kind == "suit":
                return f"ord() of a suit{_where(x)} reads the order of the suits"
    return None


# -- side numbers --------------------------------------------------------------------------------------------

def side_number_misuse(g: ir.Game) -> str | None:
    """Why a side number is used as a number (so that turning the table, which renumbers the sides, would
    change what the rules do), or None.  See the module's docstring for what is accepted."""
    per = {v.name: v.per for v in g.vars}
    two = len(g.sides) == 2

    def is_side(e, sides: frozenset) -> bool:
        if isinstance(e, ir.Call) and e.fn == "side":
            return True
        if isinstance(e, ir.Local) and e.name in sides:
            return True
        return two and isinstance(e, ir.BinOp) and e.op == "-" and isinstance(e.left, ir.Const) and \
            e.left.value == 1 and is_side(e.right, sides)

    def expr(e, sides: frozenset, ok: bool) -> str | None:
        if is_side(e, sides):
            if not ok:
                return f"a side number used as a number{_where(e)}"
            if isinstance(e, ir.BinOp):
                return expr(e.right, sides, True)
            if isinstance(e, ir.Call):
                return expr(e.args[0], sides, False)
            return None
        if isinstance(e, ir.Index) and isinstance(e.base, ir.VarRef) and e.base.per == "side":
            if not is_side(e.index, sides):      # got[k], got[deal_number % 2]: a side chosen by a number
                return f"a side of '{e.base.name}' chosen by a number{_where(e)}"
            return expr(e.base, sides, False) or expr(e.index, sides, True)
        if isinstance(e, ir.BinOp) and e.op in ("==", "!=") and is_side(e.left, sides) and is_side(e.right, sides):
            return expr(e.left, sides, True) or expr(e.right, sides, True)
        if isinstance(e, (ir.Quant, ir.NextPlayer)):
            sides = sides - {e.var}       # a player bound by the name
        for c in _expr_children(e):
            got = expr(c, sides, False)
            if got:
                return got
        return None

    def node(n, sides: frozenset) -> str | None:
        if isinstance(n, ir.Expr):
            return expr(n, sides, False)
        if isinstance(n, (tuple, list)):
            for x in n:
                got = node(x, sides)
                if got:
                    return got
            return None
        if not is_dataclass(n) or isinstance(n, type):
            return None
        if isinstance(n, ir.For):
            inner = sides | {n.var} if n.over == "sides" else sides - {n.var}
            return node(n.source, sides) or node(n.high, sides) or node(n.body, inner)
        if isinstance(n, ir.ASSIGNS):
            if n.index is not None:
                if per.get(n.var) == "side" and not is_side(n.index, sides):   # got[k] = 1
                    return f"a side of '{n.var}' chosen by a number{_where(n)}"
                got = expr(n.index, sides, per.get(n.var) == "side")
                if got:
                    return got
            return expr(n.value, sides, False) if isinstance(n, ir.Assign) else node(n.values, sides)
        for f in fields(n):
            if f.name == "span":
                continue
            got = node(getattr(n, f.name), sides)
            if got:
                return got
        return None

    return node(_rule_nodes(g), frozenset())

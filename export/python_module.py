"""The code generator: a game as specialised Python, for the engine and for ``atout export --to python``.

:func:`generate` translates the IR of a game into the source of one Python module that plays it: every expression
of the rule file becomes a Python expression over plain ints, lists and a dict of variables, every effect block
becomes Python functions, every table (suits, strengths, card names, the card order under each trump, the deal
plans) is precomputed.  The module imports only the standard library and implements the engine's OpenSpiel-shaped
API (``Game``, ``State`` with ``current_player``, ``is_chance_node``, ``chance_outcomes``, ``legal_actions``,
``apply_action``, ``action_to_string``, ``is_terminal``, ``returns``, ``observation_string``,
``information_state_string``, ``clone``).

There is one generator and one generated implementation: ``atout export --to python`` writes this module (with
the terminal table, ``python OUT.py [--seat N] [--seed S]``), and the engine (:mod:`atout.engine.compiled`) runs
the same code for ``atout.load`` (``standalone=False``: without the terminal table).  The generated state has the
interpreter's attributes with their meaning (``zones``, ``vars``, ``phase`` (a name), ``trick_cards``,
``tricks_won``, ``pending``, ``deal_log``, ``voids``, ``on_score``, ``log``, ...), so that everything that reads an
engine state reads it.

Semantics are the interpreter's (:mod:`atout.engine.machine` over :mod:`atout.engine.state`), step for step, and
the reference implementation stays the interpreter: tests/test_compiled_engine.py plays both side by side.  The
generated code evaluates what the interpreter evaluates in the same order, so that a rule error is raised at the
same step with the same message:

* effects run until a chance draw, a decision or the end of the match; a draw from a hidden zone suspends the
  effects, which resume once every pending card has been drawn.  Effect blocks are therefore compiled into
  *blocks*: a block is a function that returns the number of the next block, or -1 to stop; a statement that
  can suspend ends its block.  Structures without a suspension inside are compiled inline;
* ``ends when`` is checked when play comes to rest (a chance node or a decision) if a variable changed, and at
  each end of a deal;
* locals that must survive a suspension (action parameters, loop variables around a draw) live in ``s.loc``;
* the interpreter stops effects that run more than ``MAX_AUTO_STEPS`` steps without a rest with a rule error.
  Each block has a weight, a bound on the interpreter's steps it stands for; effects whose weights add up to the
  limit call ``_step_limit`` (the module raises the rule error; the engine asks its interpreter whether the
  limit is really reached, and raises its error or runs on).

Safety: identifiers in the generated code are made from indices only; text from the rule file reaches the code
only as ``repr()`` literals (see :mod:`atout.export.names`) and in comments filtered to one printable line.
"""
from __future__ import annotations

import re
from collections import Counter

from atout.compiler import ir
from atout.engine.game import Game as EngineGame
from atout.engine.machine import MAX_AUTO_STEPS

from .names import py_str

DEALER_DRAW = -2
RANDOM_DRAW = -3
_VARS = "\x00V\x00"   # stands for the variables' dict in emitted code (never inside a repr() literal)


class ExportError(Exception):
    """The game cannot be exported (e.g. trick play without a 'hand' zone)."""


# The IR fields this exporter translates.  A field added to the IR later (a new construct of the language) is
# refused with an ExportError while it holds a value other than its default, instead of being silently ignored.
KNOWN_FIELDS = {
    "Game": {"name", "title", "players", "sides", "deck", "options", "enums", "zones", "vars", "phases", "tables",
             "match", "properties", "action_slots", "source"},
    "Trick": {"count", "leader", "trump", "follow", "skip", "then", "span", "more_skips", "bowers", "after",
              "card_rules", "dummy", "dummy_by", "trump_order"},
    "CardRule": {"kind", "var", "condition", "span"},
    "For": {"var", "body", "span", "over", "source", "high"},
    "RandomAssign": {"var", "index", "values", "weights", "span"},
    "MoveCard": {"card", "source", "dest", "span"},
    "SetDealer": {"value", "span"},
    "Phase": {"name", "kind", "actor", "actions", "body", "trick", "span"},
    "Action": {"name", "label", "param", "guard", "body", "span", "public"},
    "Param": {"kind", "name", "type", "zone", "low", "high", "dest", "span"},
    "Match": {"first_dealer", "next_dealer", "start", "ends_when", "returns_var", "returns", "span",
              "first_dealer_random"},
    "Zone": {"name", "per_player", "visibility", "home", "builtin", "span"},
    "Var": {"name", "scope", "type", "per", "init", "span", "visibility"},
    "Deck": {"suits", "ranks", "colors", "span"},
    "Table": {"name", "rows", "span"},
    "Row": {"name", "guard", "body", "span"},
    "FollowRule": {"kind", "condition", "span"},
}


def check_known(node, seen=None) -> None:
    """Raise ExportError if ``node`` (recursively) uses an IR field this exporter does not translate."""
    from dataclasses import MISSING, fields, is_dataclass
    if isinstance(node, (tuple, list)):
        for x in node:
            check_known(x)
        return
    if not is_dataclass(node):
        return
    known = KNOWN_FIELDS.get(type(node).__name__)
    for f in fields(node):
        value = getattr(node, f.name)
        if known is not None and f.name not in known:
            default = f.default if f.default is not MISSING else (
                f.default_factory() if f.default_factory is not MISSING else MISSING)
            if default is MISSING or value != default:
                raise ExportError(f"the exporter does not translate '{type(node).__name__}.{f.name}' yet "
                                  f"(a language construct newer than the exporter)")
        if f.name != "properties":
            check_known(value)


def generate(game_ir: ir.Game, source: str = "", extra: str = "", standalone: bool = True) -> str:
    """Python source of a module playing ``game_ir``; ``source`` names the rule file (kept as the constant SOURCE);
    ``extra`` is code placed before the terminal-play part (the OpenSpiel adapter).  ``standalone=False`` leaves
    out the terminal table (``play``, ``main``): what the engine runs.

    Raises ExportError for a construct the exporter does not translate."""
    check_known(game_ir)
    return _Gen(game_ir, source).module(extra, standalone)


# Python refuses more than 20 statically nested blocks ("too many statically nested blocks"); a 'for' with more
# than this many loops nested in it (itself included) is emitted as blocks (its counter in s.loc), as a loop that
# can suspend for chance is, and so is everything around it.
_MAX_STATIC_LOOPS = 12
# Steps the interpreter can take outside any block (starting the next trick: 2); the limit of the weights is
# MAX_AUTO_STEPS less this margin, so that weights up to it are surely no more steps than the interpreter allows.
_STEP_MARGIN = 16


_INT = re.compile(r"-?\d+|\(-\d+\)")   # an int literal in emitted code
_FOLD = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "==": lambda a, b: a == b,
         "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
         ">=": lambda a, b: a >= b}


def _subexprs(e):
    """Every subexpression of ``e`` (itself included), in evaluation order, through every branch."""
    yield e
    if isinstance(e, ir.Index):
        yield from _subexprs(e.index)
    elif isinstance(e, ir.Call):
        for a in e.args:
            yield from _subexprs(a)
    elif isinstance(e, ir.BinOp):
        yield from _subexprs(e.left)
        yield from _subexprs(e.right)
    elif isinstance(e, (ir.Not, ir.Neg)):
        yield from _subexprs(e.operand)
    elif isinstance(e, ir.Cond):
        for x in (e.test, e.then, e.orelse):
            yield from _subexprs(x)
    elif isinstance(e, ir.InSet):
        yield from _subexprs(e.value)
        for x in e.items:
            yield from _subexprs(x)
    elif isinstance(e, ir.Quant):
        yield from _subexprs(e.body)
    elif isinstance(e, ir.NextPlayer):
        yield from _subexprs(e.after)
        yield from _subexprs(e.cond)


def _uses(e, x, stops) -> bool:
    """Whether ``e`` reads ``x`` other than inside an expression of ``stops`` (read from its temporary)."""
    if e == x:
        return True
    if e in stops:
        return False
    return any(_uses(c, x, stops) for c in _children(e))


def _children(e):
    if isinstance(e, ir.Index):
        return (e.index,)
    if isinstance(e, ir.Call):
        return e.args
    if isinstance(e, ir.BinOp):
        return (e.left, e.right)
    if isinstance(e, (ir.Not, ir.Neg)):
        return (e.operand,)
    if isinstance(e, ir.Cond):
        return (e.test, e.then, e.orelse)
    if isinstance(e, ir.InSet):
        return (e.value, *e.items)
    if isinstance(e, ir.NextPlayer):
        return (e.after,)     # (not into what binds a name: the same text there may mean another value)
    return ()


def _subexprs_outside_binders(e):
    """The subexpressions of ``e`` (itself included) that no quantifier or 'next' binds a name around."""
    yield e
    for c in _children(e):
        yield from _subexprs_outside_binders(c)


def _inside(x, y) -> bool:
    """Whether ``x`` is a subexpression of ``y`` (outside binders)."""
    return any(c == x or _inside(x, c) for c in _children(y))


def _has_local(e) -> bool:
    return isinstance(e, ir.Local) or any(_has_local(c) for c in _children(e)) or \
        isinstance(e, (ir.Quant, ir.NextPlayer))


def _safe(e) -> bool:
    """Whether evaluating ``e`` can raise no rule error, whatever the state (and it reads no local)."""
    if isinstance(e, (ir.Const, ir.VarRef)):
        return True
    if isinstance(e, ir.Builtin):
        return e.name != "led_suit"
    if isinstance(e, ir.Call):
        if e.fn in ("size", "top", "has"):
            return isinstance(e.args[0], ir.ZoneRef) and all(_safe(a) for a in e.args[1:])
        if e.fn in ("suit", "rank", "card", "abs", "color", "seat", "ord", "holder", "total", "max", "min"):
            return all(_safe(a) for a in e.args)
        return False
    if isinstance(e, ir.BinOp):
        return e.op not in ("/", "%") and _safe(e.left) and _safe(e.right)
    if isinstance(e, (ir.Not, ir.Neg)):
        return _safe(e.operand)
    if isinstance(e, ir.Cond):
        return _safe(e.test) and _safe(e.then) and _safe(e.orelse)
    if isinstance(e, ir.InSet):
        return _safe(e.value) and all(_safe(x) for x in e.items)
    return False


def _surely_evaluated(e):
    """The subexpressions evaluated whenever ``e`` is (not behind a short-circuit, a branch, a quantifier, a
    'next' or 'played'), ``e`` included."""
    yield e
    if isinstance(e, ir.Index):
        yield from _surely_evaluated(e.index)
    elif isinstance(e, ir.Call) and e.fn != "played":
        for a in e.args:
            yield from _surely_evaluated(a)
    elif isinstance(e, ir.BinOp):
        yield from _surely_evaluated(e.left)
        if e.op not in ("and", "or"):
            yield from _surely_evaluated(e.right)
    elif isinstance(e, (ir.Not, ir.Neg)):
        yield from _surely_evaluated(e.operand)
    elif isinstance(e, ir.Cond):
        yield from _surely_evaluated(e.test)
    elif isinstance(e, ir.InSet):
        yield from _surely_evaluated(e.value)
        for x in e.items:
            yield from _surely_evaluated(x)


def _worth_keeping(e) -> bool:
    """A subexpression worth a temporary: a computation (not a constant, a variable, a local or a built-in name)."""
    return isinstance(e, (ir.Call, ir.BinOp, ir.Index, ir.Cond, ir.Quant, ir.NextPlayer))


def _without_comment(line: str) -> str:
    """A line of a rule file without its comment (a '#' outside a string)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i]
    return line


def _comment(text: str) -> str:
    """``text`` as the inside of a one-line comment: printable characters only (no line break can get in), short."""
    text = "".join(ch for ch in text if ch.isprintable())
    return text if len(text) <= 96 else text[:93] + "..."


def _follow_code(rs: str, rt: str, rh: str) -> list[str]:
    """Lines choosing ``cands`` among ``hand`` under the follow rules (the machine's ``_playable_cards``): follow the
    suit led (``rs``), else trump (``rt``), and head the trick (``rh``) unless free (void in the suit led and not
    obliged to trump: any card, AC); each rule is "True", "False" or a Python condition.  In scope: ``hand``,
    ``cands`` (= hand), ``tc``, ``so``, ``st`` (when ``rh``), ``led``, ``_t``."""
    out = []
    free = rh != "False"
    if free:
        out.append("free = False")
    trump_cond = "_t >= 0" if rt == "True" else (f"({rt}) and _t >= 0" if rt != "False" else None)

    def suit_block(ind):
        b = [f"{ind}same = []", f"{ind}for c in hand:", f"{ind}    if so[c] == led:",
             f"{ind}        same.append(c)", f"{ind}if same:", f"{ind}    cands = same"]
        if trump_cond is not None:
            b += [f"{ind}else:",
                  f"{ind}    tr = [c for c in cands if so[c] == _t] if {trump_cond} else []",
                  f"{ind}    if tr:", f"{ind}        cands = tr"]
            if free:
                b += [f"{ind}    else:", f"{ind}        free = True"]
        elif free:
            b += [f"{ind}else:", f"{ind}    free = True"]
        return b

    def trump_block(ind):
        return [f"{ind}if {trump_cond} and not any(so[c] == led for c in cands):",
                f"{ind}    tr = [c for c in cands if so[c] == _t]", f"{ind}    if tr:", f"{ind}        cands = tr"]
    if rs == "True":
        out += suit_block("")
    elif rs == "False":
        if trump_cond is not None:
            out += trump_block("")
    else:
        out.append(f"if {rs}:")
        out += suit_block("    ")
        if trump_cond is not None:
            out.append("else:")
            out += trump_block("    ")
    if free:
        out += [f"if {'' if rh == 'True' else '(' + rh + ') and '}not free:",
                "    bc = tc[0][1]",
                "    for _p, c in tc[1:]:",
                "        if (st[c] > st[bc]) if so[c] == so[bc] else (so[c] == _t):",
                "            bc = c",
                "    win = [c for c in cands if ((st[c] > st[bc]) if so[c] == so[bc] else (so[c] == _t))]",
                "    if win:",
                "        cands = win"]
    out += ["if cands is hand:", "    cands = hand[:]"]
    return out


class _Gen:  # noqa: PLR0904 - one method per IR construct
    def __init__(self, g: ir.Game, source: str):
        self.g = g
        self.E = EngineGame(g)
        self.source = source
        self.N = g.players
        self.ncards = g.deck.size
        self.blocks: list[list[str]] = []
        self.weights: list[int] = []
        self.funcs: list[str] = []
        self.tmp = 0
        self.nloc = 0
        self.mult = 1            # how often the statements being emitted run per run of their block
        self.decided = False     # the code being emitted runs at or after a decision (the actor is a seat)
        self.reuse: dict = {}    # within a table's conditions: subexpression -> the temporary holding it
        self.capture: dict = {}  # ... and those to keep the first time they are evaluated
        self.var_index = {v.name: i for i, v in enumerate(g.vars)}
        self.vars = {v.name: v for v in g.vars}
        self.phase_index = {p.name: i for i, p in enumerate(g.phases)}
        self.hidden = {z.name: z.visibility == "hidden" for z in g.zones}
        self.nslots = len(g.action_slots)
        self.deal_plans: list[str] = []

    # -- helpers ----------------------------------------------------------------------------
    def fresh(self, stem: str) -> str:
        self.tmp += 1
        return f"{stem}{self.tmp}"

    def new_block(self) -> int:
        self.blocks.append([])
        self.weights.append(0)
        return len(self.blocks) - 1

    def where(self, node, braces: bool = True) -> str:
        """``path:line:col: `` of a node for run-time error messages (the interpreter's RuleError prefix);
        braces doubled for ``str.format``."""
        sp = getattr(node, "span", None)
        if sp is None or not sp.line:
            return ""
        text = f"{sp.path}:{sp.line}:{sp.col}: "
        return text.replace("{", "{{").replace("}", "}}") if braces else text

    def note(self, node) -> str:
        """A comment line's text for a statement: the first line of its source text (without the rule file's own
        comment; '...' when it goes on), and its line."""
        from atout.compiler import source_lines
        sp = getattr(node, "span", None)
        text = ""
        if sp is not None and sp.line:
            lines = source_lines(sp.path)
            if 0 < sp.line <= len(lines):
                first = lines[sp.line - 1][sp.col - 1:] if sp.end_line > sp.line else \
                    lines[sp.line - 1][sp.col - 1:sp.end_col - 1]
                first = _without_comment(first).strip()
                text = first + (" ..." if sp.end_line > sp.line else "")
        if not text:
            text = type(node).__name__
        line = f"   (line {sp.line})" if sp is not None and sp.line else ""
        return _comment(" ".join(text.split()) + line)

    def var(self, name: str) -> str:
        return f"{_VARS}[{py_str(name)}]"

    def func(self, header: str, body: list[str]) -> str:
        """A function: ``header`` (``def f(s):``) and its indented lines; the variables' dict is read once into a
        local when the body reads it more than once."""
        text = "\n".join(body)
        if text.count(_VARS) > 1:
            return header + "\n    V = s.vars\n" + text.replace(_VARS, "V")
        return header + "\n" + text.replace(_VARS, "s.vars")

    # -- expressions -----------------------------------------------------------------------
    def is_seat(self, e: ir.Expr, env) -> bool:
        """Whether ``e`` surely evaluates to a seat 0..N-1 (no range check needed)."""
        if isinstance(e, ir.Builtin):
            # the actor is a seat in the code that runs at or after a decision (it is none before the first one)
            return e.name in ("dealer", "eldest") or e.name == "actor" and self.decided
        if isinstance(e, ir.Call):
            if e.fn in ("left", "right", "seat", "clockwise"):
                return True   # left, right and clockwise raise a rule error unless their argument is a seat
            return e.fn == "partner"    # (its argument is checked to be a seat)
        if isinstance(e, ir.Local):
            return env[e.name][1]
        if isinstance(e, ir.Const):
            return e.type.kind == "player" and 0 <= int(e.value) < self.N
        return False

    def simple(self, src: str) -> bool:
        """Whether the source ``src`` of an expression may be evaluated twice (a name, a number, an attribute or an
        item of a variable): no call, cheap and without effects."""
        import re
        return re.fullmatch(r"-?\w+|s\.\w+|s\.zones\[\d+\]|\x00V\x00\['[^'\\]*'\](\[\w+\])?", src) is not None

    def x(self, e: ir.Expr, env) -> str:
        """Python source of expression ``e`` (the interpreter's :class:`atout.engine.evaluate.ExprCompiler`, the
        same evaluation order and rule errors); ``env`` maps local names to (source, is a seat).  Within a scoring
        table's conditions, a subexpression computed by an earlier condition is read from its temporary."""
        if self.reuse or self.capture:
            name = self.reuse.get(e)
            if name is not None:
                return name
            name = self.capture.pop(e, None)
            if name is not None:
                return f"({name} := {self._x(e, env)})"
        return self._x(e, env)

    def unshared(self, e: ir.Expr, env) -> str:
        """``e`` under a binder (a quantifier, 'next'): no temporary is read or kept there (the same text may mean
        another value)."""
        reuse, capture = self.reuse, self.capture
        self.reuse, self.capture = {}, {}
        try:
            return self.x(e, env)
        finally:
            self.reuse, self.capture = reuse, capture

    def hoisted(self, e: ir.Expr, var: str, env, lines: list[str], ind: str) -> str:
        """The source of condition ``e`` evaluated for many values of local ``var`` (a domain parameter, a card):
        its parts that do not read ``var`` and can raise no rule error are computed once, before, into
        temporaries (lines added to ``lines`` at ``ind``)."""
        found = [x for x in dict.fromkeys(_subexprs_outside_binders(e))
                 if _worth_keeping(x) and _safe(x) and not _has_local(x)]
        chosen = [x for x in found if not any(x != y and _inside(x, y) for y in found)]
        names = {}
        for x in chosen:
            src = self.x(x, env)
            if src in ("True", "False") or _INT.fullmatch(src):
                continue
            name = self.fresh("_h")
            lines.append(f"{ind}{name} = {src}")
            names[x] = name
        if not names:
            return self.x(e, env)
        self.reuse = names
        try:
            return self.x(e, env)
        finally:
            self.reuse = {}

    def guards(self, rows, env) -> list[str]:
        """The sources of a scoring table's row conditions, evaluated in order: a subexpression that a condition
        surely evaluates (not behind 'and', 'or', 'if' or in a quantifier) and that a later one also reads is kept
        in a temporary the first time (the conditions are pure: the later reading gives the same value, and had
        the first raised a rule error, the later would not be reached)."""
        out = []
        known: dict = {}
        exprs = [r.guard for r in rows]
        for k, g in enumerate(exprs):
            here = Counter(_subexprs(g))
            cands = [x for x in dict.fromkeys(_surely_evaluated(g))
                     if _worth_keeping(x) and here[x] == 1 and x not in known]
            chosen: list = []     # the largest first: a later reading of a kept expression reads none of its parts
            for x in sorted(cands, key=lambda x: -sum(1 for _ in _subexprs(x))):
                if any(_uses(h, x, set(known) | set(chosen)) for h in exprs[k + 1:]):
                    chosen.append(x)
            wanted = {x: self.fresh("_c") for x in cands if x in chosen}
            self.capture, self.reuse = dict(wanted), dict(known)
            try:
                out.append(self.x(g, env))
            finally:
                known.update({x: n for x, n in wanted.items() if x not in self.capture})
                self.reuse, self.capture = {}, {}
        return out

    def _x(self, e: ir.Expr, env) -> str:  # noqa: C901 - one case per node type
        N = self.N
        if isinstance(e, ir.Const):
            v = e.value
            if isinstance(v, bool):
                return "True" if v else "False"
            return repr(int(v))
        if isinstance(e, ir.VarRef):
            return self.var(e.name)
        if isinstance(e, ir.Local):
            return env[e.name][0]
        if isinstance(e, ir.Builtin):
            return {
                "dealer": "s.dealer",
                "eldest": f"((s.dealer + 1) % {N})",
                "actor": "s.actor",
                "leader": "s.trick_leader",
                "winner": "s.last_winner",
                "trick_number": "s.trick_number",
                "led_suit": "_led_suit(s)",
                "deal_number": "s.deal_number",
            }[e.name]
        if isinstance(e, ir.Index):
            assert isinstance(e.base, ir.VarRef)
            v = self.vars[e.base.name]
            arr = self.var(v.name)
            i = self.x(e.index, env)
            if v.per == "player" and self.is_seat(e.index, env):
                return f"{arr}[{i}]"
            if v.per == "side" and isinstance(e.index, ir.Call) and e.index.fn == "side" and \
                    self.is_seat(e.index.args[0], env):
                return f"{arr}[{i}]"
            msg = py_str(f"{self.where(e)}index {{}} out of range for '{v.name}'")
            return f"_at({arr}, {i}, {msg})"
        if isinstance(e, ir.Call):
            return self.call(e, env)
        if isinstance(e, ir.BinOp):
            a, b = self.x(e.left, env), self.x(e.right, env)
            if e.op in ("/", "%"):
                fn = "_div" if e.op == "/" else "_mod"
                return f"{fn}({a}, {b}, {py_str(self.where(e, braces=False) + 'division by zero')})"
            if e.op in _FOLD and _INT.fullmatch(a) and _INT.fullmatch(b):   # options are constants: fold
                return repr(_FOLD[e.op](int(a.strip("()")), int(b.strip("()"))))
            if e.op in ("and", "or"):   # options are constants: fold what Python's short-circuit would give
                stop, go = ("False", "True") if e.op == "and" else ("True", "False")
                if a == stop:
                    return a        # the right side is never evaluated
                if a == go:
                    return b
                if b == go:
                    return a        # (bool operands: 'x and True' is x)
            return f"({a} {e.op} {b})"
        if isinstance(e, ir.Not):
            inner = self.x(e.operand, env)
            if inner in ("True", "False"):
                return "False" if inner == "True" else "True"
            return f"(not {inner})"
        if isinstance(e, ir.Neg):
            inner = self.x(e.operand, env)
            if _INT.fullmatch(inner):
                return f"({-int(inner.strip('()'))})"
            return f"(-{inner})"
        if isinstance(e, ir.Cond):
            return f"({self.x(e.then, env)} if {self.x(e.test, env)} else {self.x(e.orelse, env)})"
        if isinstance(e, ir.InSet):
            items = ", ".join(self.x(i, env) for i in e.items)
            return f"({self.x(e.value, env)} in ({items},))"
        if isinstance(e, ir.Quant):
            q = self.fresh("q")
            inner = dict(env)
            inner[e.var] = (q, e.domain is None)
            dom = f"range({N})" if e.domain is None else f"list(s.zones[{self.zone(e.domain, env)}])"
            body = self.unshared(e.body, inner)
            if e.kind == "any":
                return f"any({body} for {q} in {dom})"
            if e.kind == "all":
                return f"all({body} for {q} in {dom})"
            if e.kind == "sum":
                return f"sum({body} for {q} in {dom})"
            return f"sum(1 for {q} in {dom} if {body})"
        if isinstance(e, ir.NextPlayer):
            # next(q after p: COND): the first seat clockwise after p (p itself last) where COND holds, else none
            q = self.fresh("q")
            inner = dict(env)
            inner[e.var] = (q, True)
            msg = py_str(f"{self.where(e)}next({e.var} after ...): the start is {{}}, not a player")
            return f"_next_player({self.x(e.after, env)}, lambda {q}: {self.unshared(e.cond, inner)}, {msg})"
        raise ExportError(f"the exporter does not translate the expression {type(e).__name__} yet")

    def call(self, e: ir.Call, env) -> str:  # noqa: C901
        fn, N = e.fn, self.N
        if fn in ("size", "top", "has"):
            z = f"s.zones[{self.zone(e.args[0], env)}]"
            if fn == "size":
                return f"len({z})"
            if fn == "top":
                return f"({z}[-1] if {z} else -1)" if self.simple(z) else f"_top({z})"
            return f"({self.x(e.args[1], env)} in {z})"
        if fn in ("total", "max", "min"):
            arr = self.var(e.args[0].name)  # type: ignore[attr-defined]
            return f"{ {'total': 'sum', 'max': 'max', 'min': 'min'}[fn]}({arr})"
        if fn == "played":   # the argument is evaluated for each card of the trick (not at all on an empty trick)
            q = self.fresh("q")
            return f"any({q} == {self.x(e.args[0], env)} for {q}, _ in s.trick_cards)"
        args = [self.x(a, env) for a in e.args]
        a0 = args[0] if args else ""
        if fn == "suit":
            return f"(SUIT_OF[{a0}] if {a0} >= 0 else -1)" if self.simple(a0) else f"_suit({a0})"
        if fn == "rank":
            return f"(STRENGTH_OF[{a0}] if {a0} >= 0 else -1)" if self.simple(a0) else f"_rank({a0})"
        if fn == "card":
            if args[0].isdigit() and self.simple(args[1]):   # a constant rank (a strength)
                nr = self.E.nranks
                return f"(-1 if {args[1]} < 0 else {args[1]} * {nr} + {nr - 1 - int(args[0])})"
            return f"_card({a0}, {args[1]})"
        if fn in ("left", "right", "partner", "side", "tricks"):
            # a function of a player: none (or no seat) is a rule error, as in the engine
            if self.is_seat(e.args[0], env):
                p = a0
            else:
                msg = py_str(self.where(e, braces=False) + fn + '() of none, not a player')
                p = f"({a0} if 0 <= {a0} < {N} else _bad({msg}))" if self.simple(a0) else f"_pl({a0}, {msg})"
            return {"left": f"(({p} + 1) % {N})", "right": f"(({p} - 1) % {N})", "partner": f"PARTNER[{p}]",
                    "side": f"SIDE_OF[{p}]", "tricks": f"s.tricks_won[{p}]"}[fn]
        if fn == "abs":
            return f"abs({a0})"
        if fn == "color":
            return f"COLOR_OF.get({a0}, -1)"
        if fn == "seat":
            return f"({a0} % {N})"
        if fn == "ord":
            return a0
        if fn == "holder":
            return f"_holder(s, {a0})"
        if fn == "clockwise":
            p = a0 if self.is_seat(e.args[0], env) else \
                f"_pl({a0}, {py_str(self.where(e, braces=False) + 'clockwise() of none, not a player')})"
            return f"(({p} + {args[1]}) % {N})"
        raise ExportError(f"{self.where(e)}the function '{fn}' cannot be exported")

    def zone(self, e: ir.Expr, env) -> str:
        """Source of the zone slot of a zone expression read by an expression (``size``, ``top``, ``has``, a
        quantifier's domain): a player that is not one is a rule error naming the number."""
        if isinstance(e, ir.ZoneRef):
            return str(self.E.zone_base[e.name])
        if isinstance(e, ir.Index) and isinstance(e.base, ir.ZoneRef):
            base = self.E.zone_base[e.base.name]
            p = self.x(e.index, env)
            if self.is_seat(e.index, env):
                return f"{base} + {p}" if base else p
            msg = py_str(f"{self.where(e)}no player {{}} to index zone '{e.base.name}'")
            return f"_zi({base}, {p}, {msg})"
        raise ExportError(f"not a zone expression: {e!r}")  # pragma: no cover

    def slot(self, e: ir.Expr, env) -> str:
        """Source of the zone slot of a zone a statement names (the machine's ``slot``): a player that is not one
        is a rule error saying 'none' for none."""
        if isinstance(e, ir.ZoneRef):
            return str(self.E.zone_base[e.name])
        if isinstance(e, ir.Index) and isinstance(e.base, ir.ZoneRef):
            base = self.E.zone_base[e.base.name]
            p = self.x(e.index, env)
            if self.is_seat(e.index, env):
                return f"{base} + {p}" if base else p
            msg = py_str(f"{self.where(e)}no player {{}} to index zone '{e.base.name}'")
            return f"_slot({base}, {p}, {msg})"
        raise ExportError(f"not a zone expression: {e!r}")  # pragma: no cover

    def zone_hidden(self, e: ir.Expr) -> bool:
        name = e.name if isinstance(e, ir.ZoneRef) else e.base.name  # type: ignore[attr-defined]
        return self.hidden[name]

    def seat_check(self, src: str, msg: str) -> str:
        """``src`` checked to be a seat (the machine's ``_seat``): ``msg`` has one ``{}`` for 'none' or the number."""
        if self.simple(src):
            return f"({src} if 0 <= {src} < {self.N} else _not_seat({src}, {msg}))"
        return f"_seat({src}, {msg})"

    # -- statements ----------------------------------------------------------------------------
    def loop_depth(self, s: ir.Stmt) -> int:
        """How many ``for`` loops nest at most in statement ``s`` (``s`` itself included; a ``score`` counts the
        loops of its table's rows)."""
        if isinstance(s, ir.For):
            return 1 + max((self.loop_depth(x) for x in s.body), default=0)
        if isinstance(s, ir.If):
            inner = [x for _, b in s.branches for x in b] + list(s.orelse)
        elif isinstance(s, ir.Score):
            inner = [x for row in self.g.table(s.table).rows for x in row.body]
        else:
            return 0
        return max((self.loop_depth(x) for x in inner), default=0)

    def loop_bound(self, s: ir.For) -> int | None:
        """The most times a ``for`` runs its body, when the IR fixes it; None for a range with non-constant ends."""
        if s.over == "players":
            return self.N
        if s.over == "sides":
            return len(self.g.sides)
        if s.over == "suits":
            return len(self.g.deck.suits)
        if s.over == "range":
            if isinstance(s.source, ir.Const) and isinstance(s.high, ir.Const):
                return max(0, int(s.high.value) - int(s.source.value) + 1)
            return None
        return self.ncards

    def can_suspend(self, s: ir.Stmt) -> bool:
        """Whether ``s`` is emitted as blocks (functions returning the next block) rather than inline Python:
        it may stop for a chance outcome (a hidden draw, a random value), it holds a ``for`` nested deeper than a
        Python function may nest loops, or a loop over a range whose ends are not constants (its iterations are
        counted against the step limit one block each)."""
        if isinstance(s, ir.Move):
            return s.count is not None and self.zone_hidden(s.source)
        if isinstance(s, ir.Deal):
            return self.zone_hidden(s.source)
        if isinstance(s, ir.If):
            return any(self.can_suspend(x) for _, b in s.branches for x in b) or \
                any(self.can_suspend(x) for x in s.orelse)
        if isinstance(s, ir.For):
            return self.loop_depth(s) > _MAX_STATIC_LOOPS or self.loop_bound(s) is None or \
                any(self.can_suspend(x) for x in s.body)
        if isinstance(s, ir.RandomAssign):
            return True
        if isinstance(s, ir.Score):
            return any(self.can_suspend(x) for row in self.g.table(s.table).rows for x in row.body)
        return False

    def cost(self, at, n: int) -> None:
        """Count ``n`` interpreter steps (times the loops around) in the weight of the block of ``at``."""
        self.weights[at[2]] += n * self.mult

    def body(self, stmts: tuple[ir.Stmt, ...], env) -> int:
        """Compile a top-level effect body into blocks; falling off its end stops (-1).  Returns the entry."""
        entry = self.new_block()
        end = self.seq(stmts, env, (self.blocks[entry], "    ", entry))
        if end is not None:
            self.cost(end, 1)   # the end of the body
            end[0].append(f"{end[1]}return -1")
        return entry

    def seq(self, stmts, env, at):
        """Emit ``stmts`` at emission point ``at`` = (lines, indent, block); returns where execution continues
        after them, or None when every path has left (goto, end deal, a jump)."""
        for st in stmts:
            if at is None:
                break  # unreachable: the engine never runs statements after a goto or end deal
            at = self.stmt(st, env, at)
        return at

    def nested(self, stmts, env, at):
        """:meth:`seq` for the body of an ``if``, ``for`` or row emitted inline (``pass`` when it has no code)."""
        lines = at[0]
        first = len(lines)
        end = self.seq(stmts, env, at)
        if all(x.lstrip().startswith("#") for x in lines[first:]):
            lines.append(f"{at[1]}pass")
        return end

    def stmt(self, s: ir.Stmt, env, at):  # noqa: C901 - one case per statement type
        lines, ind, _ = at
        N = self.N
        if not isinstance(s, (ir.If, ir.For, ir.Score)):
            self.cost(at, 1)
        lines.append(f"{ind}# {self.note(s)}")
        if isinstance(s, ir.Assign):
            self.assign(s, env, lines, ind)
            lines.append(f"{ind}s.dirty = True")
            return at
        if isinstance(s, ir.Move):
            si, di = self.fresh("_si"), self.fresh("_di")
            lines.append(f"{ind}{si} = {self.slot(s.source, env)}")
            lines.append(f"{ind}{di} = {self.slot(s.dest, env)}")
            if s.count is None:
                lines.append(f"{ind}_move_all(s, {si}, {di})")
                return at
            n = self.x(s.count, env)
            if not (isinstance(s.count, ir.Const) and int(s.count.value) >= 0):
                n = self.fresh("_n")
                lines.append(f"{ind}{n} = {self.x(s.count, env)}")
                lines.append(f"{ind}if {n} < 0:")
                lines.append(f"{ind}    raise RuleError({py_str(self.where(s) + 'cannot move {} cards')}.format({n}))")
            lines.append(f"{ind}if {n} > len(s.zones[{si}]):")
            msg = py_str(self.where(s) + "a draw of {} cards finds only {} in {}")
            lines.append(f"{ind}    raise RuleError({msg}.format({n}, len(s.zones[{si}]), SLOT_LABEL[{si}]))")
            if not self.zone_hidden(s.source):
                lines.append(f"{ind}for _ in range({n}):")
                lines.append(f"{ind}    _draw_visible(s, {si}, {di})")
                return at
            nxt = self.new_block()
            lines.append(f"{ind}if {n}:")
            lines.append(f"{ind}    s.pending = [({si}, {di})] * {n}")
            lines.append(f"{ind}    s.resume = {nxt}")
            lines.append(f"{ind}    return -1")
            lines.append(f"{ind}return {nxt}")
            return (self.blocks[nxt], "    ", nxt)
        if isinstance(s, ir.MoveCard):
            si, di = self.fresh("_si"), self.fresh("_di")
            lines.append(f"{ind}{si} = {self.slot(s.source, env)}")
            lines.append(f"{ind}{di} = {self.slot(s.dest, env)}")
            msg = py_str(self.where(s) + "cannot move {}: it is not in {}")
            lines.append(f"{ind}_move_card(s, {self.x(s.card, env)}, {si}, {di}, {msg})")
            return at
        if isinstance(s, ir.SetDealer):
            msg = py_str(self.where(s.value) + "the dealer is {}, not a player")
            lines.append(f"{ind}s.dealer = {self.seat_check(self.x(s.value, env), msg)}")
            lines.append(f"{ind}s.dirty = True")
            return at
        if isinstance(s, ir.Deal):
            return self.deal(s, env, at)
        if isinstance(s, ir.Shuffle):
            # draws from a hidden zone are uniform chance events: a shuffle has no other effect (its zone is read)
            if not isinstance(s.zone, ir.ZoneRef):
                lines.append(f"{ind}{self.slot(s.zone, env)}")
            return at
        if isinstance(s, ir.Gather):
            lines.append(f"{ind}_gather(s, {self.slot(s.zone, env)})")
            return at
        if isinstance(s, ir.Reveal):
            lines.append(f"{ind}_reveal(s, {self.slot(s.zone, env)})")
            return at
        if isinstance(s, ir.Goto):
            lines.append(f"{ind}return _enter_{self.phase_index[s.phase]}(s)")
            return None
        if isinstance(s, ir.EndDeal):
            lines.append(f"{ind}return _end_deal(s)")
            return None
        if isinstance(s, ir.If):
            branches, orelse = self.fold_if(s, env)
            if not branches:     # every condition is a constant, false (an option): the 'else', if any
                lines[-1] += "   -- its condition is false (constants)" if not orelse else "   -- its 'else' (constants)"
                self.cost(at, 2)
                return self.seq(orelse, env, at)
            if any(self.can_suspend(x) for _, b in branches for x in b) or any(self.can_suspend(x) for x in orelse):
                self.cost(at, 1)
                return self.if_blocks(branches, orelse, env, at)
            self.cost(at, 2)   # the 'if' and the end of the branch taken
            exits = True
            for k, (cond, b) in enumerate(branches):
                lines.append(f"{ind}{'if' if k == 0 else 'elif'} {cond}:")
                if self.nested(b, env, (lines, ind + "    ", at[2])) is not None:
                    exits = False
            if orelse:
                lines.append(f"{ind}else:")
                if self.nested(orelse, env, (lines, ind + "    ", at[2])) is not None:
                    exits = False
            else:
                exits = False
            return None if exits else at
        if isinstance(s, ir.For):
            if self.can_suspend(s):
                self.cost(at, 1)
                return self.for_blocks(s, env, at)
            k = self.loop_bound(s)
            self.cost(at, 1 + k)   # the 'for' and the end of each pass
            p = self.fresh("p")
            inner = dict(env)
            inner[s.var] = (p, s.over == "players")
            lines.append(f"{ind}for {p} in {self.loop_domain(s, env)}:")
            mult = self.mult
            self.mult = mult * max(k, 1)
            try:
                left = self.nested(s.body, inner, (lines, ind + "    ", at[2])) is None
            finally:
                self.mult = mult
            if left:
                return None  # the first iteration always leaves
            return at
        if isinstance(s, ir.RandomAssign):
            self.cost(at, 1)
            return self.random_assign(s, env, at)
        if isinstance(s, ir.Score):
            rows = self.g.table(s.table).rows
            if self.can_suspend(s):
                self.cost(at, 1)
                return self.score_blocks(s, rows, env, at)
            self.cost(at, 1 + len(rows))
            flags = [self.fresh("_m") for _ in rows]
            for f, guard in zip(flags, self.guards(rows, env)):
                lines.append(f"{ind}{f} = {guard}")
            self.score_hook(s, rows, flags, lines, ind)
            for f, row in zip(flags, rows):
                lines.append(f"{ind}if {f}:   # row {_comment(row.name)}")
                self.nested(row.body, env, (lines, ind + "    ", at[2]))
            return at
        raise ExportError(f"cannot export statement {type(s).__name__}")  # pragma: no cover

    def score_hook(self, s: ir.Score, rows, flags, lines, ind) -> None:
        """The ``on_score`` hook: the table and the names of the rows that fire, before any fires."""
        names = tuple(r.name for r in rows)
        lines.append(f"{ind}if s.on_score is not None:")
        lines.append(f"{ind}    s.on_score({py_str(s.table)}, [_n for _n, _f in zip({names!r}, "
                     f"({''.join(f + ', ' for f in flags)})) if _f])")

    def deal(self, s: ir.Deal, env, at):
        """``deal K, K from Z to Y starting P``: the machine's order (the zone, the start, each packet size, the
        cards needed), then the draws, one chance node each when the zone is hidden."""
        lines, ind, _ = at
        N = self.N
        si, st, d = self.fresh("_si"), self.fresh("_st"), self.fresh("_d")
        base = self.E.zone_base[s.dest]
        lines.append(f"{ind}{si} = {self.slot(s.source, env)}")
        lines.append(f"{ind}{st} = {self.x(s.starting, env)}")
        if not self.is_seat(s.starting, env):
            lines.append(f"{ind}if not 0 <= {st} < {N}:")
            msg = py_str(self.where(s) + "the deal starts at {}, not a player")
            lines.append(f"{ind}    raise RuleError({msg}.format('none' if {st} < 0 else {st}))")
        msg = py_str(self.where(s) + "the deal needs {} cards and {} holds {}")
        sizes = [self.x(p, env) for p in s.packets]
        const = all(_INT.fullmatch(k) and int(k.strip("()")) >= 0 for k in sizes) and \
            sum(int(k) for k in sizes) * N <= self.ncards     # (else sizes are checked one by one)
        if const:
            sizes = [int(k) for k in sizes]
        if const:
            need = sum(sizes) * N
            lines.append(f"{ind}if {need} > len(s.zones[{si}]):")
            lines.append(f"{ind}    raise RuleError({msg}.format({need}, SLOT_LABEL[{si}], len(s.zones[{si}])))")
            if not need:
                return at
        else:   # each size checked in order before any list of that size is built (a packet may be huge)
            ks = []
            msg_p = py_str(self.where(s) + "a packet of {} cards")
            for src in sizes:
                k = self.fresh("_k")
                ks.append(k)
                lines.append(f"{ind}{k} = {src}")
                lines.append(f"{ind}if {k} < 0:")
                lines.append(f"{ind}    raise RuleError({msg_p}.format({k}))")
            need = self.fresh("_need")
            lines.append(f"{ind}{need} = ({' + '.join(ks)}) * {N}")
            lines.append(f"{ind}if {need} > len(s.zones[{si}]):")
            lines.append(f"{ind}    raise RuleError({msg}.format({need}, SLOT_LABEL[{si}], len(s.zones[{si}])))")
        hidden = self.zone_hidden(s.source)
        if const and hidden and isinstance(s.source, ir.ZoneRef):
            # the draws for each seat that starts, made once: (source, destination) pairs, the first drawn first
            offs = [j for k in sizes for j in range(N) for _ in range(k)]
            src = self.E.zone_base[s.source.name]
            plan = f"DEAL_PLAN_{len(self.deal_plans)}"
            self.deal_plans.append(f"{plan} = {tuple(tuple((src, base + (st0 + o) % N) for o in offs) for st0 in range(N))!r}")
            nxt = self.new_block()
            lines.append(f"{ind}s.pending = list({plan}[{st}])")
            lines.append(f"{ind}s.resume = {nxt}")
            lines.append(f"{ind}return -1")
            return (self.blocks[nxt], "    ", nxt)
        if const:
            offs = tuple(j for k in sizes for j in range(N) for _ in range(k))
            lines.append(f"{ind}{d} = [{base} + ({st} + _o) % {N} for _o in {offs!r}]")
        else:
            lines.append(f"{ind}{d} = [{base} + ({st} + _j) % {N} for _k in ({''.join(k + ', ' for k in ks)}) "
                         f"for _j in range({N}) for _ in range(_k)]")
        if not hidden:
            lines.append(f"{ind}for _t in {d}:")
            lines.append(f"{ind}    _draw_visible(s, {si}, _t)")
            return at
        nxt = self.new_block()
        lines.append(f"{ind}if {d}:")
        lines.append(f"{ind}    s.pending = [({si}, _t) for _t in {d}]")
        lines.append(f"{ind}    s.resume = {nxt}")
        lines.append(f"{ind}    return -1")
        lines.append(f"{ind}return {nxt}")
        return (self.blocks[nxt], "    ", nxt)

    def loop_domain(self, s: ir.For, env) -> str:
        """Python source of what a ``for`` visits (evaluated once, when the loop starts)."""
        if s.over == "players":
            return f"range({self.N})"
        if s.over == "sides":
            return f"range({len(self.g.sides)})"
        if s.over == "suits":
            return f"range({len(self.g.deck.suits)})"
        if s.over == "range":
            return f"range({self.x(s.source, env)}, {self.x(s.high, env)} + 1)"
        return f"tuple(s.zones[{self.slot(s.source, env)}])"

    def index_code(self, s, env, lines, ind) -> str:
        """Emit the range check of an assignment's index; returns the variable holding it (or the index's source
        when it is surely in range: a seat for a per-player variable, a seat's side for a per-side one)."""
        v = self.vars[s.var]
        src = self.x(s.index, env)
        if (v.per == "player" and self.is_seat(s.index, env) or v.per == "side" and isinstance(s.index, ir.Call)
                and s.index.fn == "side" and self.is_seat(s.index.args[0], env)) and self.simple(src):
            return src
        i = self.fresh("_i")
        n = self.N if v.per == "player" else max(1, len(self.g.sides))
        lines.append(f"{ind}{i} = {src}")
        lines.append(f"{ind}if not 0 <= {i} < {n}:")
        msg = py_str(self.where(s) + "index {} out of range for " + repr(s.var))
        lines.append(f"{ind}    raise RuleError({msg}.format({i}))")
        return i

    def random_assign(self, s: ir.RandomAssign, env, at):
        """``VAR = random {...}``: the index and then the values are evaluated now, the chance node's outcome picks
        one (``apply_action`` writes it), and the effects resume after it."""
        lines, ind, _ = at
        idx = self.index_code(s, env, lines, ind) if s.index is not None else "None"
        vals = ", ".join(self.x(v, env) for v in s.values)
        lines.append(f"{ind}s.pending = [(RANDOM_DRAW, ({py_str(s.var)}, {idx}, ({vals},), {tuple(s.weights)!r}, "
                     f"{py_str(self.where(s, braces=False))}))]")
        nxt = self.new_block()
        lines.append(f"{ind}s.resume = {nxt}")
        lines.append(f"{ind}return -1")
        return (self.blocks[nxt], "    ", nxt)

    def assign(self, s: ir.Assign, env, lines, ind) -> None:
        """The machine's ``_assign``: the value, then the index, then the combination and the range check."""
        v = self.vars[s.var]
        val = self.fresh("_v")
        value = self.x(s.value, env)
        simple = self.simple(value)       # (then it may be read after the index: nothing it does can differ)
        if not simple or s.op == "=":
            lines.append(f"{ind}{val} = {value}")
        t = v.type
        if s.index is not None:
            i = self.index_code(s, env, lines, ind)
            target = f"{self.var(s.var)}[{i}]"
        else:
            i = "-1"
            target = self.var(s.var)
        if s.op in ("+=", "-="):
            lines.append(f"{ind}{val} = {target} {s.op[0]} {value if simple else val}")
        if t.kind == "int" and t.low is not None:
            lines.append(f"{ind}if not {t.low} <= {val} <= {t.high}:")
            msg = py_str(f"{self.where(s)}'{s.var}' would become {{}}, outside its range {t.low}..{t.high}")
            lines.append(f"{ind}    raise RuleError({msg}.format({val}))")
        lines.append(f"{ind}if {target} != {val}:")
        lines.append(f"{ind}    {self.log_var(s.var, i, val)}")
        lines.append(f"{ind}{target} = {val}")

    def fold_if(self, s: ir.If, env):
        """The branches of an ``if`` as (condition source, body), without those whose condition is the constant
        false, and its ``else``: a branch whose condition is the constant true is the ``else`` of the others."""
        branches = []
        for cond, b in s.branches:
            src = self.x(cond, env)
            if src == "False":
                continue
            if src == "True":
                return branches, b
            branches.append((src, b))
        return branches, s.orelse

    def log_var(self, name: str, i: str, val: str) -> str:
        """The statement logging that variable ``name`` (entry ``i``, "-1" for one value) becomes ``val``: who sees it
        is known here unless the entry is computed."""
        pos = self.var_index[name]
        v = self.vars[name]
        seers = [self.E.var_seers[(name, k)] for k in
                 ([None] if v.per is None else range(self.N if v.per == "player" else max(1, len(self.g.sides))))]
        if i == "-1" or len(set(seers)) == 1:
            m = seers[0]
            return f"s.log.append((VAR, {val}, {m == self.E.all_seats}, {pos}, {m}, {i}))"
        return f"_logv(s, {pos}, {i}, {val})"

    def if_blocks(self, branches, orelse, env, at):
        lines, ind, _ = at
        join = None
        targets = []
        for k, (cond, b) in enumerate(branches):
            bid = self.new_block()
            targets.append((bid, b))
            lines.append(f"{ind}{'if' if k == 0 else 'elif'} {cond}:")
            lines.append(f"{ind}    return {bid}")
        if orelse:
            eid = self.new_block()
            targets.append((eid, orelse))
            lines.append(f"{ind}return {eid}")
        else:
            join = self.new_block()
            lines.append(f"{ind}return {join}")
        mult = self.mult
        self.mult = 1
        for bid, b in targets:
            end = self.seq(b, env, (self.blocks[bid], "    ", bid))
            if end is not None:
                self.cost(end, 1)   # the end of the branch
                if join is None:
                    join = self.new_block()
                end[0].append(f"{end[1]}return {join}")
        self.mult = mult
        return (self.blocks[join], "    ", join) if join is not None else None

    def for_blocks(self, s: ir.For, env, at):
        lines, ind, _ = at
        k = self.nloc
        self.nloc += 2
        head, body, after = self.new_block(), self.new_block(), self.new_block()
        lines.append(f"{ind}s.loc[{k + 1}] = {self.loop_domain(s, env)}")
        lines.append(f"{ind}s.loc[{k}] = 0")
        lines.append(f"{ind}return {head}")
        self.weights[head] += 1   # the end of a pass
        self.blocks[head] += [f"    if s.loc[{k}] < len(s.loc[{k + 1}]):", f"        return {body}",
                              f"    return {after}"]
        inner = dict(env)
        inner[s.var] = (f"s.loc[{k + 1}][s.loc[{k}]]", s.over == "players")
        mult = self.mult
        self.mult = 1
        end = self.seq(s.body, inner, (self.blocks[body], "    ", body))
        self.mult = mult
        if end is not None:
            end[0].append(f"{end[1]}s.loc[{k}] += 1")
            end[0].append(f"{end[1]}return {head}")
        return (self.blocks[after], "    ", after)

    def score_blocks(self, s: ir.Score, rows, env, at):
        lines, ind, _ = at
        first = self.nloc
        self.nloc += len(rows)
        flags = [f"s.loc[{first + j}]" for j in range(len(rows))]
        for f, guard in zip(flags, self.guards(rows, env)):
            lines.append(f"{ind}{f} = {guard}")
        self.score_hook(s, rows, flags, lines, ind)
        mult = self.mult
        self.mult = 1
        bid = at[2]
        for f, row in zip(flags, rows):
            run, skip = self.new_block(), self.new_block()
            lines.append(f"{ind}if {f}:")
            lines.append(f"{ind}    return {run}")
            lines.append(f"{ind}return {skip}")
            end = self.seq(row.body, env, (self.blocks[run], "    ", run))
            if end is not None:
                self.cost(end, 1)   # the end of the row
                end[0].append(f"{end[1]}return {skip}")
            lines, ind, bid = self.blocks[skip], "    ", skip
        self.mult = mult
        return (lines, ind, bid)

    # -- phases ------------------------------------------------------------------------------
    def phase_code(self) -> None:  # noqa: C901
        g = self.g
        for k, ph in enumerate(g.phases):
            name = py_str(ph.name)
            out = [f"    s.log.append((PHASE, {k}, True))", f"    s.phase = {name}", "    s.selection = None"]
            if ph.kind == "auto":
                entry = self.body(ph.body, {})
                out.append(f"    return {entry}")
            elif ph.kind == "choice":
                out.append(f"    s.actor = _actor_{k}(s)")
                out.append("    return -1")
            else:
                t = ph.trick
                msg = py_str(self.where(t.leader) + "the trick's leader is {}, not a player")
                out += ["    s.trick_number = 1", "    s.trick_cards = []",
                        f"    _l = {self.seat_check(self.x(t.leader, {}), msg)}",
                        f"    if _l in _skip_{k}(s):",
                        f"        _l = _next_active_{k}(s, _l, _skip_{k}(s))",
                        "    s.trick_leader = s.to_play = s.actor = _l", "    return -1"]
            self.funcs.append(self.func(f"def _enter_{k}(s):\n    \"\"\"Phase {_comment(repr(ph.name))} "
                                        f"begins.\"\"\"", out))
            if ph.kind == "choice":
                msg = py_str(self.where(ph.actor) + f"the actor of phase '{ph.name}' is {{}}, not a player")
                self.funcs.append(self.func(f"def _actor_{k}(s):",
                                            [f"    return {self.seat_check(self.x(ph.actor, {}), msg)}"]))
                self.funcs.append(f"def _rest_{k}(s):\n    \"\"\"At rest in this phase: its actor, read again.\"\"\"\n"
                                  f"    a = s.actor = _actor_{k}(s)\n    return a")
                self.choice_phase(k, ph)
            elif ph.kind == "trick":
                self.trick_phase(k, ph)
            else:
                self.funcs.append(f"def _legal_{k}(s):\n    return []")

    def named_actions(self, actions, legal: list[str], apply: list[str], logger: str) -> None:
        """Legal-action and apply code for named (no card) actions, in the phase's order."""
        slot_index = self.E.slot_index
        for a in actions:
            p = a.param
            if p is not None and p.kind in ("card", "choose"):
                continue
            if p is None:
                sid = slot_index[(a.name, None)]
                guard = self.x(a.guard, {})
                if guard == "True":
                    legal.append(f"    out.append({sid})")
                elif guard != "False":
                    legal.append(f"    if {guard}:")
                    legal.append(f"        out.append({sid})")
                entry = self.body(a.body, {})
                apply.append(f"    if a == {sid}:   # {_comment(a.name)}")
                apply.append(f"        s.log.append(({logger}, a, True))")
                apply.append(f"        return {entry}")
            else:  # domain
                values = tuple(ir.domain_values(self.g, p.type))
                ids = tuple(slot_index[(a.name, v)] for v in values)
                seat = p.type.kind == "player"
                guard = self.hoisted(a.guard, p.name, {p.name: ("_x", seat)}, legal, "    ") if values else "False"
                if guard == "True":
                    legal.append(f"    out.extend({ids!r})")
                else:
                    legal.append(f"    for _x, _a in zip({values!r}, {ids!r}):")
                    legal.append(f"        if {guard}:")
                    legal.append(f"            out.append(_a)")
                slot = self.nloc
                self.nloc += 1
                entry = self.body(a.body, {p.name: (f"s.loc[{slot}]", seat)})
                if not ids:
                    continue
                if ids == tuple(range(ids[0], ids[0] + len(ids))):   # (slots are numbered in order: the usual)
                    apply.append(f"    if {ids[0]} <= a <= {ids[-1]}:   # {_comment(a.name)}")
                    value = f"{values!r}[a - {ids[0]}]" if values != tuple(range(values[0], values[0] + len(values))) \
                        else (f"a - {ids[0] - values[0]}" if ids[0] != values[0] else "a")
                else:
                    apply.append(f"    if a in {dict(zip(ids, values))!r}:   # {_comment(a.name)}")
                    value = f"{dict(zip(ids, values))!r}[a]"
                apply.append(f"        s.log.append(({logger}, a, True))")
                apply.append(f"        s.loc[{slot}] = {value}")
                apply.append(f"        return {entry}")

    def choice_phase(self, k: int, ph: ir.Phase) -> None:
        """The legal actions (the machine's ``_legal``: a choice in progress, then each action in order) and their
        application (``_apply``)."""
        self.decided = True    # (all of it runs at a decision or after it)
        try:
            self._choice_phase(k, ph)
        finally:
            self.decided = False

    def _choice_phase(self, k: int, ph: ir.Phase) -> None:
        done = self.E.done_action
        legal = ["    out = []"]
        apply = []
        card_act = next((a for a in ph.actions if a.param is not None and a.param.kind in ("card", "choose")), None)
        if card_act is not None and card_act.param.kind == "choose":
            p = card_act.param
            slot = self.nloc
            self.nloc += 1
            entry = self.body(card_act.body, {p.name: (f"s.loc[{slot}]", False)})
            legal += ["    if s.selection is not None:",
                      "        _k, _lo, _hi = s.selection",
                      f"        _z = s.zones[{self.slot(p.zone, {})}]",
                      "        if _k < _hi:",
                      "            out.extend(_z)",
                      "        if _k >= _lo:",
                      f"            out.append({done})",
                      "        return out"]
            apply += ["    if a < NUM_CARDS:",
                      f"        s.log.append((s.actor, a, {card_act.public}))",
                      "        if s.selection is None:",
                      f"            _z = len(s.zones[{self.slot(p.zone, {})}])",
                      f"            _lo = {self.x(p.low, {})}",
                      f"            s.selection = (0, _lo, min({self.x(p.high, {})}, _z))",
                      "        _k, _lo, _hi = s.selection",
                      f"        _move_chosen(s, a, {self.slot(p.zone, {})}, {self.slot(p.dest, {})})",
                      "        _k += 1",
                      "        s.selection = (_k, _lo, _hi)",
                      "        if _k >= _hi:",
                      "            s.selection = None",
                      f"            s.loc[{slot}] = _k",
                      f"            return {entry}",
                      "        return -1",
                      f"    if a == {done}:",
                      "        s.log.append((s.actor, a, True))",
                      "        _k = s.selection[0] if s.selection is not None else 0",
                      "        s.selection = None",
                      f"        s.loc[{slot}] = _k",
                      f"        return {entry}"]
        for a in ph.actions:
            if a is card_act and a.param.kind == "choose":
                p = a.param
                legal += [f"    _z = len(s.zones[{self.slot(p.zone, {})}])",
                          f"    _lo = {self.x(p.low, {})}",
                          f"    _hi = min({self.x(p.high, {})}, _z)",
                          f"    if not (_hi < max(_lo, 1) and _lo > 0) and {self.x(a.guard, {p.name: ('0', False)})}:",
                          "        if _hi >= 1:",
                          f"            out.extend(s.zones[{self.slot(p.zone, {})}])",
                          "        if _lo <= 0:",
                          f"            out.append({done})"]
            elif a is card_act:
                p = a.param
                guard = self.hoisted(a.guard, p.name, {p.name: ('_c', False)}, legal, "    ")
                if guard == "True":
                    legal.append(f"    out.extend(s.zones[{self.slot(p.zone, {})}])")
                else:
                    legal += [f"    for _c in s.zones[{self.slot(p.zone, {})}]:",
                              f"        if {guard}:",
                              "            out.append(_c)"]
                slot = self.nloc
                self.nloc += 1
                entry = self.body(a.body, {p.name: (f"s.loc[{slot}]", False)})
                apply += ["    if a < NUM_CARDS:",
                          f"        s.log.append((s.actor, a, {a.public}))",
                          f"        s.loc[{slot}] = a",
                          f"        return {entry}"]
            else:
                self.named_actions((a,), legal, apply, "s.actor")
        legal.append("    return out")
        apply.append("    raise IllegalActionError('no action ' + repr(a))")
        self.funcs.append(self.func(f"def _legal_{k}(s):\n    \"\"\"The legal actions of phase "
                                    f"{_comment(repr(ph.name))}, unsorted.\"\"\"", legal))
        self.funcs.append(self.func(f"def _apply_{k}(s, a):\n    \"\"\"Apply legal action a in phase "
                                    f"{_comment(repr(ph.name))}: the first block of its effects, or -1.\"\"\"", apply))

    def trick_phase(self, k: int, ph: ir.Phase) -> None:  # noqa: C901
        t = ph.trick
        E, N = self.E, self.N
        if E.hand_base is None:
            raise ExportError("trick play needs a per-player zone named 'hand'")
        hand, trickz, taken = E.hand_base, E.trick_zone, E.taken_base
        trump = self.x(t.trump, {})
        skips = (t.skip, *t.more_skips)
        no_skip = all(isinstance(e, ir.Const) and e.value == ir.NONE for e in skips)
        everyone_out = py_str(self.where(t, False) + "every player sits out of the tricks ('skip')")
        if t.bowers is not None or t.trump_order:
            suits_by, strength_by = E.card_order(t)
            self.funcs.append(f"SUITS_BY_{k} = {tuple(tuple(x) for x in suits_by)!r}\n"
                              f"STRENGTH_BY_{k} = {tuple(tuple(x) for x in strength_by)!r}")
            so, st = f"SUITS_BY_{k}[_t + 1]", f"STRENGTH_BY_{k}[_t + 1]"
        else:
            so, st = "SUIT_OF", "STRENGTH_OF"
        if t.trump_order:   # no trump suit: the trump order is a trump suit of its own, number NSUITS
            trump = f"_eff({trump})"
        # the trumps (the expression is evaluated wherever the interpreter evaluates it) and the card order
        order = [f"_t = {trump}", f"so = {so}"]
        self.funcs.append(self.func(f"def _order_{k}(s):\n    \"\"\"(trumps, the suit of each card, the strength of "
                                    f"each card) in this trick phase.\"\"\"",
                                    [f"    _t = {trump}", f"    return _t, {so}, {st}"]))
        # who sits out: the machine's _skipped (each skip expression in order) and _next_active
        items = [self.x(e, {}) for e in skips]
        if no_skip:
            self.funcs.append(f"def _skip_{k}(s):\n    return ()")
        else:
            self.funcs.append(self.func(f"def _skip_{k}(s):\n    \"\"\"The players who sit out of the tricks "
                                        f"(none is -1).\"\"\"", [f"    return ({''.join(i + ', ' for i in items)})"]))
        self.funcs.append("\n".join([
            f"def _next_active_{k}(s, p, skip):",
            f"    q = (p + 1) % {N}",
            "    while q in skip:",
            "        if q == p:",
            f"            raise RuleError({everyone_out})",
            f"        q = (q + 1) % {N}",
            "    return q"]))
        self.decided = True    # (what follows runs at a decision or after it)
        try:
            self._trick_play(k, ph, t, trump, so, st, order, items, no_skip, everyone_out)
        finally:
            self.decided = False

    def _trick_play(self, k, ph, t, trump, so, st, order, items, no_skip, everyone_out) -> None:  # noqa: C901
        E, N = self.E, self.N
        hand, trickz, taken = E.hand_base, E.trick_zone, E.taken_base
        # playable cards: the follow rules (every condition evaluated, in order, then the trumps), then card rules
        flags = {"suit": [], "head": [], "trump": []}
        pl = [f"    hand = s.zones[{hand} + s.to_play]",
              "    tc = s.trick_cards",
              "    if not tc:",
              "        cands = hand[:]",
              "    else:"]
        for r in t.follow:
            cond = self.x(r.condition, {})
            if cond in ("True", "False"):
                flags[r.kind].append(cond)
            else:
                f = self.fresh("_f")
                pl.append(f"        {f} = {cond}")
                flags[r.kind].append(f"bool({f})")
        rule = {}
        for kind, fs in flags.items():
            fs = [f for f in fs if f != "False"]
            rule[kind] = "True" if "True" in fs else (" or ".join(fs) if fs else "False")
        pl += [f"        {x}" for x in order]
        if st != "STRENGTH_OF" and rule["head"] != "False":
            pl.append(f"        st = {st}")
        elif rule["head"] != "False":
            pl.append("        st = STRENGTH_OF")
        pl += ["        led = so[tc[0][1]]", "        cands = hand"]
        pl += ["        " + x for x in _follow_code(rule["suit"], rule["trump"], rule["head"])]
        if t.card_rules:
            pl.append("    leading = not tc")
            for r in t.card_rules:
                ind = "    "
                if r.kind == "lead":
                    pl.append("    if leading:")
                    ind = "        "
                cond = self.hoisted(r.condition, r.var, {r.var: ("_c", False)}, pl, ind)
                pl += [f"{ind}keep = [_c for _c in cands if {cond}]", f"{ind}if keep:", f"{ind}    cands = keep"]
        pl.append("    return cands")
        self.funcs.append(self.func(f"def _playable_{k}(s):\n    \"\"\"The cards the player to play may play: the "
                                    f"follow rules, then the card rules.\"\"\"", pl))
        # playing a card: the state's void bookkeeping, then the machine's _play_card
        then = self.body(t.then, {})
        rest = t.dummy is None    # who chooses next is the actor: play comes to rest here (REST), nothing to settle
        play = ["    p = s.to_play",
                "    if logged:",
                "        s.log.append(" + ("(s.player_to_move(), card, True))" if t.dummy is not None else "PLAYED[p][card])"),
                "    tc = s.trick_cards"]
        suit = rule["suit"]
        if suit != "False":
            # not following the suit led under `follow suit`: a void everyone sees (for bots)
            play += [f"    if tc{'' if suit == 'True' else ' and (' + ' or '.join(self.x(r.condition, {}) for r in t.follow if r.kind == 'suit') + ')'}:"]
            play += [f"        {x}" for x in order]
            play += ["        led = so[tc[0][1]]",
                     "        if so[card] != led:",
                     "            s.voids.add((p, led))"]
        play += [f"    s.zones[{hand} + p].remove(card)",
                 f"    s.zones[{trickz}].append(card)",
                 "    tc.append(PAIR[p][card])"]
        if t.dummy is not None:   # the opening lead shows the dummy's hand
            play += ["    if s.trick_number == 1 and len(tc) == 1:",
                     f"        _d = {self.x(t.dummy, {})}",
                     f"        if 0 <= _d < {N}:",
                     f"            _reveal(s, {hand} + _d)"]
        at_rest = ["        return REST"] if rest else ["        return -1"]
        cur = " = s.cur" if rest else ""
        if no_skip:
            play += [f"    if len(tc) < {N}:",
                     f"        s.to_play = s.actor{cur} = (p + 1) % {N}"] + at_rest
        elif len(items) <= 3:
            xs = [self.fresh("_x") for _ in items]
            play += [f"    {x} = {i}" for x, i in zip(xs, items)]
            count = " - ".join([str(N)] + [f"(0 <= {x} < {N}{''.join(f' and {x} != {y}' for y in xs[:j])})"
                                           for j, x in enumerate(xs)])
            play += [f"    if {' and '.join(f'{x} < 0' for x in xs)}:   # nobody sits out (none, -1, is no seat)",
                     f"        if len(tc) < {N}:",
                     f"            s.to_play = s.actor{cur} = (p + 1) % {N}"] + ["    " + x for x in at_rest]
            play += ["    else:",
                     f"        nact = {count}",
                     "        if not nact:",
                     f"            raise RuleError({everyone_out})",
                     "        if len(tc) < nact:   # the next player who does not sit out",
                     f"            q = (p + 1) % {N}",
                     f"            while {' or '.join(f'q == {x}' for x in xs)}:",
                     "                if q == p:",
                     f"                    raise RuleError({everyone_out})",
                     f"                q = (q + 1) % {N}",
                     f"            s.to_play = s.actor{cur} = q"] + ["    " + x for x in at_rest]
        else:
            play += [f"    skip = _skip_{k}(s)",
                     f"    nact = {N} - len({{q for q in skip if 0 <= q < {N}}})",
                     "    if not nact:",
                     f"        raise RuleError({everyone_out})",
                     "    if len(tc) < nact:",
                     f"        s.to_play = s.actor{cur} = _next_active_{k}(s, p, skip)"] + at_rest
        play += ["    # the trick is complete: its winner takes it"]
        play += [f"    {x}" for x in order] + [f"    st = {st}"]
        play += ["    bp, bc = tc[0]",
                 "    for q, c in tc:   # (the first card does not beat itself)",
                 "        if (st[c] > st[bc]) if so[c] == so[bc] else (so[c] == _t):",
                 "            bp, bc = q, c",
                 "    s.tricks_won[bp] += 1",
                 f"    z = s.zones[{trickz}]",
                 f"    s.zones[{taken} + bp].extend(z)",
                 "    z.clear()",
                 "    s.trick_cards = []",
                 "    s.last_winner = bp"]
        if t.after:
            # `after trick { ... }` runs after every trick (the last one too): the engine decides whether that was
            # the last trick before the block runs, and leads the next trick (or runs `then`) after it, which may
            # be after chance draws inside the block
            last = self.nloc
            self.nloc += 1
            cont = self.new_block()
            self.weights[cont] += 2
            self.blocks[cont] += [f"    if s.loc[{last}]:",
                                  f"        return {then}",
                                  "    s.trick_number += 1",
                                  "    s.trick_leader = s.to_play = s.actor = s.last_winner",
                                  "    return -1"]
            entry = self.new_block()
            end = self.seq(t.after, {}, (self.blocks[entry], "    ", entry))
            if end is not None:
                self.cost(end, 1)
                end[0].append(f"{end[1]}return {cont}")
            play += [f"    s.loc[{last}] = s.trick_number >= {self.x(t.count, {})}",
                     f"    return {entry}"]
        else:
            play += [f"    if s.trick_number >= {self.x(t.count, {})}:",
                     f"        return {then}",
                     "    s.trick_number += 1",
                     f"    s.trick_leader = s.to_play = s.actor{cur} = bp"] + [x[4:] for x in at_rest]
        self.funcs.append(self.func(f"def _play_{k}(s, card, logged=True):\n    \"\"\"The player to play plays card "
                                    f"(logged: as a decision): the first block of the effects that follow, -1 when "
                                    f"there are none, REST when play is at rest with the player to act known.\"\"\"",
                                    play))
        if t.dummy is not None:
            by = "PARTNER[_d]" if t.dummy_by is None else self.seat_check(
                self.x(t.dummy_by, {}), py_str(self.where(t.dummy_by) + "the player who plays the dummy's cards "
                                               "is {}, not a player"))
            self.funcs.append(self.func(f"def _chooser_{k}(s):\n    \"\"\"Who chooses the card to play: the dummy's "
                                        f"is chosen by another player.\"\"\"",
                                        ["    if s.selection is not None:",
                                         "        return s.actor",
                                         f"    _d = {self.x(t.dummy, {})}",
                                         "    if _d != s.actor:",
                                         "        return s.actor",
                                         f"    return {by}"]))
            self.funcs.append(f"def _rest_{k}(s):\n    \"\"\"At rest in this phase: who chooses (None: current_player() "
                              f"raises the rule error computing it).\"\"\"\n    try:\n        return _chooser_{k}(s)\n"
                              f"    except RuleError:\n        return UNSETTLED")
        # legal actions and apply: the cards, then the named actions
        if any(a.param is None or a.param.kind == "domain" for a in ph.actions):
            legal = [f"    out = _playable_{k}(s)"]
            apply = ["    if a < NUM_CARDS:",
                     f"        return _play_{k}(s, a)"]
            self.named_actions(ph.actions, legal, apply, "s.player_to_move()" if t.dummy is not None else "s.actor")
            legal.append("    return out")
            apply.append("    raise IllegalActionError('no action ' + repr(a))")
            self.funcs.append(self.func(f"def _legal_{k}(s):", legal))
            self.funcs.append(self.func(f"def _apply_{k}(s, a):", apply))
        else:
            self.funcs.append(f"_legal_{k} = _playable_{k}\n_apply_{k} = _play_{k}")

    def led_suit(self) -> str:
        lines = ["    tc = s.trick_cards", "    if not tc:", "        return -1"]
        for k, ph in enumerate(self.g.phases):
            if ph.kind == "trick":
                lines += [f"    if s.phase == {py_str(ph.name)}:", f"        _s = _order_{k}(s)[1][tc[0][1]]",
                          f"        return _s if _s < {len(self.g.deck.suits)} else -1"]
        lines.append("    return SUIT_OF[tc[0][1]]")
        return self.func("def _led_suit(s):\n    \"\"\"The suit led to the trick on the table (the trumps of its phase "
                         "read), or -1.\"\"\"", lines)

    # -- deals and the match -------------------------------------------------------------------------
    def var_init(self, scope: str) -> str:
        lines = []
        for v in self.g.vars:
            if v.scope != scope:
                continue
            val = self.x(v.init, {})
            if v.per == "player":
                lines.append(f"    {self.var(v.name)} = [{val}] * {self.N}")
            elif v.per == "side":
                lines.append(f"    {self.var(v.name)} = [{val}] * {max(1, len(self.g.sides))}")
            else:
                lines.append(f"    {self.var(v.name)} = {val}")
        lines.append("    return None")
        return self.func(f"def _init_{scope}_vars(s):\n    \"\"\"The {scope} variables take their initial values, "
                         f"in order.\"\"\"", lines)

    def match_code(self) -> str:
        g, N = self.g, self.N
        m = g.match
        start = self.phase_index[m.start]
        snap = ", ".join(f"{py_str(v.name)}: " + (f"{self.var(v.name)}[:]" if v.per is not None else
                                                   self.var(v.name))
                         for v in g.vars if v.scope == "match")
        all_played = ["    ph = s.phase"]
        for k, ph in enumerate(g.phases):
            if ph.kind == "trick":
                all_played += [f"    if ph == {py_str(ph.name)}:",
                               f"        return not s.trick_cards and sum(s.tricks_won) >= {self.x(ph.trick.count, {})}"]
        all_played.append("    return False")
        next_msg = py_str(self.where(m.next_dealer) + 'the next dealer is {}, not a player')
        first_msg = py_str(self.where(m.first_dealer) + 'the first dealer is {}, not a player')
        return "\n\n".join([
            self.var_init("match"),
            self.var_init("deal"),
            self.func("def _snapshot(s):\n    \"\"\"The match variables (copies) when a deal begins.\"\"\"",
                      [f"    return {{{snap}}}"]),
            self.func("def _start_deal(s):\n    \"\"\"A deal begins: the machine's _start_deal.\"\"\"", [
                "    s.log.append((DEAL, s.dealer, True))",
                "    s.logged_dealer = s.dealer",
                "    _init_deal_vars(s)",
                "    s.trick_cards = []",
                "    s.trick_number = 0",
                "    s.trick_leader = -1",
                "    s.to_play = -1",
                "    s.last_winner = -1",
                "    s.voids = set()",
                f"    s.tricks_won = [0] * {N}",
                "    s.revealed = set()",
                "    s.deal_start = _snapshot(s)",
                "    s.deal_open = True",
                f"    return _enter_{start}(s)"]),
            self.func("def _end_deal(s):\n    \"\"\"The deal ends: logged, then the end of the match or the next "
                      "deal.\"\"\"", [
                          "    s.deal_number += 1",
                          "    _log_deal(s, True)",
                          f"    if {self.x(m.ends_when, {})}:",
                          "        _end_match(s)",
                          "        return -1",
                          f"    s.dealer = {self.seat_check(self.x(m.next_dealer, {}), next_msg)}",
                          "    return _start_deal(s)"]),
            self.func("def _tricks_all_played(s):\n    \"\"\"Whether the deal is in a trick phase whose last trick "
                      "has been taken.\"\"\"", all_played),
            self.func("def _first_dealer(s):",
                      [f"    return {self.seat_check(self.x(m.first_dealer, {}), first_msg)}"]),
            self.func("def _ends(s):\n    \"\"\"The match's 'ends when'.\"\"\"", [f"    return {self.x(m.ends_when, {})}"]),
            self.func("def _returns(s):", [
                f"    return [_float_return(_p, {self.x(m.returns, {m.returns_var: ('_p', True)})}, "
                f"{py_str(self.where(m, braces=False))}) for _p in range({N})]"]),
        ])

    # -- tables ----------------------------------------------------------------------------------
    def tables(self) -> list[str]:
        g, E = self.g, self.E
        slots = E.zone_slots
        value_tables = []
        for v in g.vars:
            t = v.type
            if t.kind == "int":
                value_tables.append("None")
            elif t.kind == "bool":
                value_tables.append("'bool'")
            elif t.kind == "player":
                value_tables.append("'player'")
            elif t.kind == "suit":
                value_tables.append(repr(tuple(g.deck.suits)))
            elif t.kind == "rank":
                value_tables.append(repr(tuple(E.value_str(r, t) for r in range(E.nranks))))
            elif t.kind == "card":
                value_tables.append("CARD_STR")
            elif t.kind == "enum":
                e = next(e for e in g.enums if e.name == t.enum)
                value_tables.append(repr(tuple(e.label(i) for i in range(len(e.values)))))
            else:
                value_tables.append("None")
        verbs = {}
        for ph in g.phases:
            verb = "play"
            if ph.kind == "choice":
                for a in ph.actions:
                    if a.param is not None and a.param.kind in ("card", "choose"):
                        verb = a.label
            verbs[ph.name] = verb
        ranges = {v.name: (v.type.low, v.type.high) for v in g.vars if v.type.kind == "int" and v.type.low is not None}
        out = [
            f"GAME_NAME = {py_str(g.name)}",
            f"TITLE = {py_str(g.title)}",
            f"NUM_PLAYERS = {g.players}",
            f"NUM_CARDS = {self.ncards}",
            f"NUM_DISTINCT_ACTIONS = {g.num_distinct_actions}",
            f"MAX_CHANCE_OUTCOMES = {E.max_chance_outcomes()}",
            f"SUITS = {tuple(g.deck.suits)!r}",
            f"RANKS = {tuple(g.deck.ranks)!r}",
            f"CARD_STR = {tuple(E.card_str(c) for c in range(self.ncards))!r}",
            f"SUIT_OF = {tuple(E.suit_of)!r}",
            f"STRENGTH_OF = {tuple(E.strength_of)!r}",
            f"COLOR_OF = {dict(E.color_of)!r}",
            f"SIDE_OF = {tuple(E.side_of)!r}",
            f"PARTNER = {tuple(E.partner)!r}",
            f"NRANKS = {E.nranks}",
            f"SLOT_LABEL = {tuple(s.label for s in slots)!r}",
            f"SLOT_VIS = {tuple(s.visibility for s in slots)!r}",
            f"SLOT_OWNER = {tuple(-1 if s.owner is None else s.owner for s in slots)!r}",
            f"HAND_OWNER = {tuple(s.owner if s.owner is not None and s.name == 'hand' else -1 for s in slots)!r}",
            f"SHOWN_SLOTS = {tuple(i for i, s in enumerate(slots) if s.name != 'trick')!r}",
            f"HOME = {E.home_zone}",
            f"HAND = {E.hand_base if E.hand_base is not None else -1}",
            f"SLOT_TEXT = {tuple(s.text for s in g.action_slots)!r}",
            f"DONE = {E.done_action if E.done_action is not None else -999}",
            f"PHASE_NAMES = {tuple(p.name for p in g.phases)!r}",
            f"TRICK_PHASES = {frozenset(p.name for p in g.phases if p.kind == 'trick')!r}",
            f"PHASE_INDEX = {dict((p.name, i) for i, p in enumerate(g.phases))!r}",
            f"PHASE_VERB = {verbs!r}",
            f"VAR_NAMES = {tuple(v.name for v in g.vars)!r}",
            f"VAR_POS = {dict((v.name, i) for i, v in enumerate(g.vars))!r}",
            f"VAR_VIS = {tuple(v.visibility or 'public' for v in g.vars)!r}",
            f"VAR_PER = {tuple(v.per or '' for v in g.vars)!r}",
            f"VAR_RANGE = {ranges!r}",
            f"SIDE_MEMBERS = {tuple(tuple(sd) for sd in g.sides)!r}",
            f"VAR_VALUES = ({', '.join(value_tables)}{',' if value_tables else ''})",
            f"GAIN_VARS = {tuple(v.name for v in g.vars if v.scope == 'match' and v.per is not None and v.type.kind == 'int')!r}",
            f"POINT_VARS = {tuple(v.name for v in g.vars if v.scope == 'match' and v.per == 'player' and v.type.kind == 'int')!r}",
            f"DEAL_INT_VARS = {tuple(v.name for v in g.vars if v.scope == 'deal' and v.per is None and v.type.kind == 'int')!r}",
            f"DEALER_BY_CHANCE = {bool(g.match.first_dealer_random)!r}",
            f"TRICK = {E.trick_zone if E.trick_zone is not None else -1}",
            f"ALL_SEATS = {E.all_seats}",
            f"SLOT_SEERS = {tuple(E.slot_seers)!r}",
            f"SLOT_PUBLIC = {tuple(E.slot_public)!r}",
            "VAR_SEERS = (%s)" % "".join(
                "%r, " % (tuple(E.var_seers[(v.name, k)] for k in
                                ([None] if v.per is None else
                                 range(g.players if v.per == "player" else max(1, len(g.sides))))),)
                for v in g.vars),
        ]
        return out

    def table_constants(self) -> str:
        """What the terminal table (engine/table_ui.py) needs of the game, computed by the engine's own adapter
        (one source for both front ends)."""
        from atout.engine.terminal import EngineTable
        t = EngineTable(self.E)
        g = self.g
        tricks = [p.name for p in g.phases if p.kind == "trick"]
        orders = ", ".join(f"{py_str(p.name)}: _order_{k}" for k, p in enumerate(g.phases) if p.kind == "trick")
        return "\n".join([
            f"UI_VARIABLES = {tuple(tuple(v) for v in t.variables)!r}",
            f"UI_ZONE_SLOTS = {t.zone_slots!r}",
            f"UI_TRICK_READS = {dict((n, tuple(sorted(t.trick_reads(n)))) for n in tricks)!r}",
            f"UI_TRUMP_VAR = {dict((n, t.trump_var(n)) for n in tricks)!r}",
            f"UI_HAS_TRUMPS = {dict((n, t.has_trumps(n)) for n in tricks)!r}",
            f"UI_ACTION_NAMES = {tuple(t.action_names(a) for a in range(t.num_cards, t.num_actions))!r}",
            f"UI_FIRST_PHASE = {t.first_phase!r}",
            f"UI_ORDER = {{{orders}}}",
        ])

    # -- the module ---------------------------------------------------------------------------------
    def module(self, extra: str = "", standalone: bool = True) -> str:
        self.phase_code()
        match = self.match_code()
        led = self.led_suit()
        g = self.g

        def table(prefix: str, kinds) -> str:
            items = ", ".join(f"{py_str(p.name)}: {prefix}{k}" for k, p in enumerate(g.phases) if p.kind in kinds)
            return "{" + items + "}"
        chooser = ", ".join(f"{py_str(p.name)}: _chooser_{k}" for k, p in enumerate(g.phases)
                            if p.kind == "trick" and p.trick.dummy is not None)
        rest_of = ", ".join(f"{py_str(p.name)}: " + ("_rest_auto" if p.kind == "auto" else f"_rest_{k}")
                            for k, p in enumerate(g.phases)
                            if p.kind != "trick" or p.trick.dummy is not None)
        block_src = []
        for i, b in enumerate(self.blocks):
            assert b, i
            block_src.append(self.func(f"def _b{i}(s):", b))
        parts = [
            _HEADER,
            f"SOURCE = {py_str(self.source)}\n" + "\n".join(self.tables()),
            _RUNTIME.replace("@STEP_LIMIT@", str(MAX_AUTO_STEPS - _STEP_MARGIN)).replace(
                "@MAX_AUTO_STEPS@", str(MAX_AUTO_STEPS)),
            _recall_source(),
            "\n".join(self.deal_plans) or "# (no deal plans)",
            "\n\n".join(self.funcs),
            led,
            match,
            "\n\n".join(block_src),
            "\n".join([
                f"BLOCKS = ({''.join(f'_b{i}, ' for i in range(len(self.blocks)))})",
                f"WEIGHT = {tuple(w + 2 for w in self.weights)!r}   # a bound on the interpreter's steps in each block",
                "# per phase: its legal actions, applying one, playing a card, the card order, who chooses the dummy's "
                "card, and who acts at rest when it is not the actor already set",
                f"LEGAL = {table('_legal_', ('choice', 'trick', 'auto'))}",
                f"APPLY = {table('_apply_', ('choice', 'trick'))}",
                f"PLAY = {table('_play_', ('trick',))}",
                f"ORDER = {table('_order_', ('trick',))}",
                f"CHOOSER = {{{chooser}}}",
                f"REST_OF = {{{rest_of}}}",
                f"NLOC = {max(self.nloc, 1)}   # locals kept across chance nodes (s.loc)"]),
            _STATE,
            *([extra] if extra else []),
        ]
        if standalone:
            parts += [self.table_constants(), _MODULE_TABLE,
                      "_TABLE_UI = r\'\'\'" + _table_ui_source() + "\'\'\'", _PLAY]
        return "\n\n\n".join(parts) + "\n"


_HEADER = '''"""A card game exported by Atout (`atout export --to python`): a standalone module, standard library only.

Generated from a rule file (see SOURCE, GAME_NAME and TITLE below); do not edit it, export the rule file again.
Atout's engine runs this same code (`atout.load`).

API (OpenSpiel-shaped, as Atout's engine): ``Game().new_initial_state()`` gives a ``State`` with
``current_player()`` (a 0-based seat, CHANCE = -1 at a chance node, TERMINAL = -4 at the end),
``is_chance_node()``, ``chance_outcomes()`` ([(outcome, probability)]), ``legal_actions()`` (sorted ids: card ids
first, then the named actions), ``apply_action(a)``, ``action_to_string(a)``, ``is_terminal()``, ``returns()``,
``observation_string(p)``, ``information_state_string(p)``, ``clone()`` and ``history`` (the actions applied).
A state also shows the match as the rules see it: ``zones`` (card ids per zone slot, SLOT_LABEL), ``vars`` (the
variables by name), ``phase``, ``dealer``, ``trick_cards``, ``tricks_won``, ``deal_log`` (one entry per deal
played), ``log`` (what each seat observed: perfect recall).

Run ``python THIS_FILE.py [--seat N] [--seed S]`` to play at the terminal against random bots.
"""
import numbers
import random
import sys

CHANCE = -1
TERMINAL = -4'''

_RUNTIME = '''class RuleError(Exception):
    """The rules led to an impossible step (e.g. a draw from a stock with too few cards)."""


class IllegalActionError(ValueError):
    """An action that is not legal in the state it was applied to."""


MAX_AUTO_STEPS = @MAX_AUTO_STEPS@   # the interpreter's limit on effects that run without a rest
STEP_LIMIT = @STEP_LIMIT@       # the blocks' weights that surely stay within it
DEALER_DRAW = -2
RANDOM_DRAW = -3
REST = -2            # returned by an action's code when play is at rest and the player to act (cur) is set
UNSETTLED = -9       # cur: who is to act is computed when asked (it may raise a rule error)
NSUITS = len(SUITS)
PROB = tuple(1.0 / n if n else 0.0 for n in range(NUM_CARDS + 1))
# OUTCOMES[n][c]: the pair (c, 1/n), made once: the chance outcomes of a draw from a zone of n cards
OUTCOMES = tuple(tuple((c, PROB[n]) for c in range(NUM_CARDS)) for n in range(NUM_CARDS + 1))
# PLAYED[p][c]: the log's entry for seat p playing card c to a trick; PAIR[p][c]: (p, c) in trick_cards
PLAYED = tuple(tuple((p, c, True) for c in range(NUM_CARDS)) for p in range(NUM_PLAYERS))
PAIR = tuple(tuple((p, c) for c in range(NUM_CARDS)) for p in range(NUM_PLAYERS))
# DRAWN[d][c]: the log's entry for card c drawn by chance to zone slot d (not revealed), made once
DRAWN = tuple(tuple((CHANCE, c, SLOT_PUBLIC[d], d, SLOT_SEERS[d]) for c in range(NUM_CARDS))
              for d in range(len(SLOT_LABEL)))


def _bad(msg):
    raise RuleError(msg)


def _at(arr, i, msg):
    if not 0 <= i < len(arr):
        raise RuleError(msg.format(i))
    return arr[i]


def _zi(base, p, msg):
    if not 0 <= p < NUM_PLAYERS:
        raise RuleError(msg.format(p))
    return base + p


def _slot(base, p, msg):
    if not 0 <= p < NUM_PLAYERS:
        raise RuleError(msg.format('none' if p < 0 else p))
    return base + p


def _div(a, b, msg):
    if b == 0:
        raise RuleError(msg)
    return a // b


def _mod(a, b, msg):
    if b == 0:
        raise RuleError(msg)
    return a % b


def _top(z):
    return z[-1] if z else -1


def _suit(c):
    return SUIT_OF[c] if c >= 0 else -1


def _rank(c):
    return STRENGTH_OF[c] if c >= 0 else -1


def _card(r, s_):
    return -1 if r < 0 or s_ < 0 else s_ * NRANKS + (NRANKS - 1 - r)


def _seat(p, msg):
    """``p`` if it is a seat; otherwise the rules asked for a player and got none: a rule error."""
    if not 0 <= p < NUM_PLAYERS:
        raise RuleError(msg.format('none' if p < 0 else p))
    return p


def _not_seat(p, msg):
    raise RuleError(msg.format('none' if p < 0 else p))


def _pl(p, msg):
    if not 0 <= p < NUM_PLAYERS:
        raise RuleError(msg)
    return p


def _next_player(p, cond, msg):
    """The first seat clockwise after ``p`` (``p`` itself last) for which ``cond`` holds; -1 (none) if none."""
    if not 0 <= p < NUM_PLAYERS:
        raise RuleError(msg.format('none' if p < 0 else p))
    for k in range(1, NUM_PLAYERS + 1):
        q = (p + k) % NUM_PLAYERS
        if cond(q):
            return q
    return -1


def _holder(s, c):
    """The seat whose hand holds card ``c``, or -1 (none)."""
    if c >= 0:
        for p in range(NUM_PLAYERS):
            if c in s.zones[HAND + p]:
                return p
    return -1


def _receives(s, d):
    """Zone slot ``d`` received cards: if it is a hand, its owner's voids are no longer known."""
    o = HAND_OWNER[d]
    if o >= 0:
        s.voids = {v for v in s.voids if v[0] != o}


def _logm(s, cards, si, di):
    """Cards moved by the rules' effects, in the log: who sees them (those who see either zone now), how many."""
    rv = s.revealed
    m = (ALL_SEATS if si in rv else SLOT_SEERS[si]) | (ALL_SEATS if di in rv else SLOT_SEERS[di])
    s.log.append((MOVE, tuple(cards), m == ALL_SEATS, si, m, di, len(cards)))


def _move_all(s, si, di):
    """``move all from Z to Y``."""
    if si != di:
        z = s.zones[si]
        if z and si != TRICK:   # a trick's cards follow its plays
            _logm(s, z, si, di)
        s.zones[di].extend(z)
        z.clear()
        if s.voids:
            _receives(s, di)


def _draw_visible(s, si, di):
    """The top card of a zone that is not hidden moves (no chance event)."""
    z = s.zones[si]
    _logm(s, z[-1:], si, di)
    s.zones[di].append(z.pop())
    if s.voids:
        _receives(s, di)


def _move_card(s, c, si, di, msg):
    """``move CARD from Z to Y``: the card must be in the source zone."""
    z = s.zones[si]
    if c < 0 or c not in z:
        raise RuleError(msg.format(CARD_STR[c] if c >= 0 else 'none', SLOT_LABEL[si]))
    _logm(s, (c,), si, di)
    z.remove(c)
    s.zones[di].append(c)
    if s.voids:
        _receives(s, di)


def _move_chosen(s, c, si, di):
    """A card chosen by the player to act moves (its action is the log's entry)."""
    s.zones[si].remove(c)
    s.zones[di].append(c)
    if s.voids:
        _receives(s, di)


def _logv(s, i, k, v):
    """Variable ``i`` (entry ``k``, -1 for one value) changes to ``v``: in the log, seen by the seats that see it."""
    m = VAR_SEERS[i][k if k >= 0 else 0]
    s.log.append((VAR, v, m == ALL_SEATS, i, m, k))


def _reveal(s, slot):
    """Zone slot ``slot`` is shown to everyone (in the log, with its cards, the first time)."""
    if slot not in s.revealed:
        s.revealed.add(slot)
        s.log.append((REVEAL, tuple(sorted(s.zones[slot])), True, slot, ALL_SEATS))


def _eff(t):
    """The trump suit of a trick with a trump order: the trump order's own suit when there is no trump suit."""
    return t if t >= 0 else NSUITS


def _gather(s, d):
    dz = s.zones[d]
    for i, z in enumerate(s.zones):
        if z and i != d:
            _logm(s, z, i, d)
            dz.extend(z)
            z.clear()
    dz.sort()


def _log_deal(s, complete):
    """The deal in progress is over (``complete``: it ended as the rules end a deal): its entry in ``deal_log``."""
    if not s.deal_open:
        return
    s.deal_open = False
    before = s.deal_start
    V = s.vars
    points = [0] * NUM_PLAYERS
    for name in POINT_VARS:
        now, then = V[name], before[name]
        for p in range(NUM_PLAYERS):
            points[p] += now[p] - then[p]
    s.deal_values.append({"before": before, "after": _snapshot(s)})
    s.deal_log.append({"points": points, "complete": complete, "tricks": list(s.tricks_won),
                       "gains": {name: [a - b for a, b in zip(V[name], before[name])] for name in GAIN_VARS},
                       "vars": {name: V[name] for name in DEAL_INT_VARS}})


def _end_match(s):
    """The match is over: the terminal state (a deal it ended within is logged)."""
    if s.deal_open:
        _log_deal(s, _tricks_all_played(s))
    s.terminal = True
    s.pending = []
    s.phase = None
    s.actor = TERMINAL
    s.selection = None
    s.cur = TERMINAL
    return -1


def _write_random(s, draw, i):
    """A ``VAR = random {...}`` takes its outcome ``i``: the value is written (range checked, logged)."""
    name, k, values, _weights, where = draw
    v = values[i]
    bounds = VAR_RANGE.get(name)
    if bounds is not None and not bounds[0] <= v <= bounds[1]:
        raise RuleError("%s'%s' would become %s, outside its range %d..%d" % (where, name, v, bounds[0], bounds[1]))
    if k is None:
        old = s.vars[name]
        s.vars[name] = v
    else:
        old = s.vars[name][k]
        s.vars[name][k] = v
    if old != v:
        _logv(s, VAR_POS[name], -1 if k is None else k, v)
    s.dirty = True


def _step_limit(s, start):
    """Effects that began in phase ``start`` ran as long as the interpreter allows without a rest: its rule
    error.  (The engine puts its own function here, which asks the interpreter whether the limit is really
    reached.)"""
    raise RuleError("effects ran %d steps without a decision: a loop of automatic phases? (they began in phase "
                    "'%s')" % (MAX_AUTO_STEPS, start))


def _settle(s, b):
    """Run effect blocks from block ``b`` (-1: none) until a chance draw, a decision or the end of the match; then,
    at rest, ``ends when`` if a variable changed, and who is to act (the machine's ``_settle``)."""
    if b >= 0:
        steps = 0
        start = s.phase
        blocks, weight = BLOCKS, WEIGHT
        while b >= 0:
            steps += weight[b]
            if steps > STEP_LIMIT:
                _step_limit(s, start)
                steps = -(1 << 62)    # the engine's interpreter found no limit: run on
            b = blocks[b](s)
    if s.dirty:
        s.dirty = False
        if not s.terminal and _ends(s):
            _end_match(s)
        if s.dealer != s.logged_dealer:      # the rules made another seat the dealer: in the log
            s.logged_dealer = s.dealer
            s.log.append((DEALER, s.dealer, True))
    if s.terminal:
        s.cur = TERMINAL
    elif s.pending:
        s.cur = CHANCE
    else:   # a decision: a choice phase reads its actor again; cur None: current_player() computes it
        f = REST_OF.get(s.phase)
        s.cur = s.actor if f is None else f(s)


def _rest_auto(s):
    """At rest in an automatic phase (the rules leave no move: a dead end): the actor as it is."""
    return s.actor if s.actor >= 0 else UNSETTLED


class History(list):
    """The actions applied so far, oldest first: a list, and callable as OpenSpiel's state.history()."""

    def __call__(self):
        return list(self)


def _action_id(action):
    """``action`` as an int id; a bool, a float or a string is refused, as OpenSpiel does."""
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        raise IllegalActionError("an action is an integer id, not %r" % (action,))
    return int(action)


def _check_seat(player):
    if isinstance(player, bool) or not isinstance(player, numbers.Integral) or not 0 <= player < NUM_PLAYERS:
        raise ValueError("no seat %r: the seats are 0..%d" % (player, NUM_PLAYERS - 1))


def _float_return(p, v, where):
    try:
        return float(v)
    except OverflowError:
        raise RuleError("%sreturns(%d) = %s... is too large for a float" % (where, p, str(v)[:20])) from None


def var_seen(i, player, k):
    """Whether seat ``player`` sees entry ``k`` (a seat or side; None for a single value) of variable ``i``."""
    vis = VAR_VIS[i]
    if vis == 'public':
        return True
    if vis == 'hidden' or k is None:
        return False
    if VAR_PER[i] == 'side':
        return 0 <= k < len(SIDE_MEMBERS) and player in SIDE_MEMBERS[k]
    return k == player


def _value_str(i, v):
    t = VAR_VALUES[i]
    if t is None:
        return str(v)
    if t == 'player':
        return 'none' if v == -1 else 'seat %d' % v
    if t == 'bool':
        return 'true' if v else 'false'
    return 'none' if v == -1 else t[v]'''

_STATE = '''class State:
    """A node of a match.  Create with ``Game().new_initial_state()``.

    What the rules see (the engine's state has the same attributes, with the same meaning): ``zones`` (card ids
    per zone slot), ``vars`` (variable name -> value; a list per player or side), ``dealer``, ``deal_number``
    (deals finished), ``phase`` (a phase name; None at the end), ``actor``, ``to_play``, ``trick_cards``
    ([(seat, card)] on the table), ``trick_number``, ``trick_leader``, ``last_winner``, ``tricks_won``,
    ``revealed`` (zone slots shown), ``pending`` (chance events awaiting an outcome, the next first: (source slot,
    destination slot) for a draw), ``history``, ``log`` (perfect recall), ``deal_log`` (per deal: points,
    complete, tricks, gains, vars), ``deal_values`` (per deal: the match variables at its start and end),
    ``voids`` ((seat, suit) everyone saw), ``on_score`` (None, or a function called with a table's name and the
    names of the rows that fire)."""

    __slots__ = ('game', 'cur', 'terminal', 'zones', 'vars', 'dealer', 'deal_number', 'actor', 'phase', 'history',
                 'log', 'revealed', 'logged_dealer', 'tricks_won', 'trick_cards', 'trick_leader', 'trick_number',
                 'last_winner', 'to_play', 'selection', 'loc', 'pending', 'resume', 'dirty', 'deal_open',
                 'deal_log', 'deal_values', 'deal_start', 'voids', 'on_score', '_lc')

    def __init__(self, game=None):
        self.game = game
        self.zones = [[] for _ in SLOT_LABEL]
        self.zones[HOME] = list(range(NUM_CARDS))
        self.vars = {}
        self.dealer = 0
        self.deal_number = 0
        self.actor = -1
        self.phase = None
        self.terminal = False
        self.history = History()
        self.log = []
        self.revealed = set()
        self.logged_dealer = -1    # the dealer as the log last showed it
        self.tricks_won = [0] * NUM_PLAYERS
        self.trick_cards = []
        self.trick_leader = -1
        self.trick_number = 0
        self.last_winner = -1
        self.to_play = -1
        self.selection = None      # a card choice in progress: (chosen so far, least, most)
        self.loc = [0] * NLOC      # locals of effects that wait for chance
        self.pending = []
        self.resume = -1           # the block the effects resume at after the pending draws
        self.dirty = True          # a variable changed since 'ends when' was last checked
        self.deal_open = False
        self.deal_log = []
        self.deal_values = []      # per deal logged: the match variables at its start and at its end
        self.deal_start = {}       # the match variables when the deal began
        self.voids = set()
        self.on_score = None
        self._lc = None            # the legal actions of the decision, once computed
        self.cur = CHANCE
        _init_match_vars(self)
        if DEALER_BY_CHANCE:
            _init_deal_vars(self)  # (so that the opening chance node can be observed; set again by the deal)
            self.pending = [(DEALER_DRAW, DEALER_DRAW)]
            return
        self.dealer = _first_dealer(self)
        _settle(self, _start_deal(self))

    # -- OpenSpiel-shaped API -------------------------------------------------------------
    def current_player(self):
        """The seat to act (0-based), CHANCE (-1) at a chance node, TERMINAL (-4) at the end."""
        c = self.cur
        return c if c != UNSETTLED else self.player_to_move()

    def player_to_move(self):
        """The seat that chooses now: the actor, or the one who plays the dummy's cards on the dummy's turn."""
        if self.phase is None or self.actor < 0:
            return self.actor
        f = CHOOSER.get(self.phase)
        return self.actor if f is None else f(self)

    def is_chance_node(self):
        return self.cur == CHANCE

    def is_terminal(self):
        return self.terminal

    def chance_outcomes(self):
        """[(outcome, probability)]: the cards of the zone drawn from, uniformly (seats for a random dealer)."""
        if self.cur != CHANCE:
            raise IllegalActionError("chance_outcomes() called at a node that is not a chance node")
        src, draw = self.pending[0]
        if src >= 0:
            z = self.zones[src]
            o = OUTCOMES[len(z)]
            return [o[c] for c in sorted(z)]   # (faster than list(map(o.__getitem__, ...)) in CPython 3.11)
        if src == DEALER_DRAW:
            p = 1.0 / NUM_PLAYERS
            return [(q, p) for q in range(NUM_PLAYERS)]
        weights = draw[3]
        total = sum(weights)
        return [(i, w / total) for i, w in enumerate(weights)]

    def legal_actions(self, player=None):
        """Sorted legal action ids of the player to act (the chance outcomes at a chance node)."""
        cur = self.cur
        if cur == CHANCE:
            src, draw = self.pending[0]
            if src >= 0:
                return sorted(self.zones[src])
            if src == DEALER_DRAW:
                return list(range(NUM_PLAYERS))
            return list(range(len(draw[3])))
        if cur == TERMINAL:
            return []
        if player is not None and player != (cur if cur != UNSETTLED else self.player_to_move()):
            return []
        lc = self._lc
        if lc is None:
            lc = self._lc = LEGAL[self.phase](self)
        return sorted(lc)

    def decision_actions(self):
        """The legal actions at a decision, or a RuleError when the player to act has none (a dead end)."""
        legal = self.legal_actions()
        if not legal and not self.terminal and not self.pending:
            raise RuleError("seat %d has no legal action (%s): %s" % (self.actor, self._where(), self._dead_end_why()))
        return legal

    def _dead_end_why(self):
        """Why the player to act has no legal action: an empty hand in a trick phase, else false conditions."""
        if self.phase in TRICK_PHASES and self.selection is None and HAND >= 0 and not self.zones[HAND + self.to_play]:
            return ("it is seat %d's turn to play to trick %d and %s is empty; check that the deal gives each "
                    "player a card for every trick of the phase (its 'count')"
                    % (self.to_play, self.trick_number, SLOT_LABEL[HAND + self.to_play]))
        return "every action's condition is false; check the 'when' conditions of the phase's actions"

    def is_dead_end(self):
        """A decision where the player to act has no legal action."""
        return not self.terminal and not self.pending and not self.legal_actions()

    def apply_action(self, action):
        """Apply a legal action (a chance outcome at a chance node); raises IllegalActionError otherwise."""
        if action.__class__ is not int:
            action = _action_id(action)
        cur = self.cur
        if cur == CHANCE:
            pending = self.pending
            src, dst = pending[0]
            if src >= 0:
                zones = self.zones
                try:
                    zones[src].remove(action)
                except ValueError:
                    raise IllegalActionError("chance outcome %d (%s) is not in %s (%s)" % (
                        action, self._action_name(action), SLOT_LABEL[src], self._where())) from None
                self.history.append(action)
                rv = self.revealed
                self.log.append((CHANCE, action, True, dst, ALL_SEATS) if rv and dst in rv else DRAWN[dst][action])
                del pending[0]
                zones[dst].append(action)
                if self.voids:
                    _receives(self, dst)
                if not pending:
                    _settle(self, self.resume)
                return
            if src == DEALER_DRAW:
                if not 0 <= action < NUM_PLAYERS:
                    raise IllegalActionError("chance outcome %d is not a seat 0..%d (the first dealer is being "
                                             "chosen)" % (action, NUM_PLAYERS - 1))
                self.history.append(action)
                self.log.append((CHANCE, action, True, -1, ALL_SEATS))
                del self.pending[0]
                self.dealer = action
                _settle(self, _start_deal(self))
                return
            name, k, _values, weights, _where = dst
            if not 0 <= action < len(weights):
                raise IllegalActionError("chance outcome %d is not one of the %d outcomes 0..%d of '%s = random' "
                                         "(%s)" % (action, len(weights), len(weights) - 1, name, self._where()))
            self.history.append(action)
            m = VAR_SEERS[VAR_POS[name]][0 if k is None else k]
            self.log.append((CHANCE, action, m == ALL_SEATS, -1, m))
            del self.pending[0]
            _write_random(self, dst, action)
            _settle(self, self.resume)
            return
        if cur == TERMINAL:
            raise IllegalActionError("the match is over; no action can be applied (%s)" % self._where())
        legal = self._lc
        if legal is None:
            legal = LEGAL[self.phase](self)
        if action not in legal:
            names = ", ".join(self.action_to_string(a) for a in sorted(legal)[:12])
            raise IllegalActionError("illegal action %d (%s) for seat %d in %s; legal: %s" % (
                action, self._action_name(action), self.actor, self._where(), names))
        self._lc = None
        self.history.append(action)
        b = APPLY[self.phase](self, action)
        if b != REST:
            _settle(self, b)

    def action_to_string(self, player_or_action, action=None):
        """Text of an action in this state: 'play K♠', 'discard 7♥', 'I propose', 'deal Q♦'.  Called as
        OpenSpiel's: action_to_string(action) or action_to_string(player, action) (player 0-based, -1 for
        chance; the text does not depend on it).  Raises IllegalActionError for an id that is no action of
        the game, ValueError for a player who is no seat."""
        if action is None:
            action = player_or_action
        elif player_or_action != -1:
            _check_seat(player_or_action)
        if action.__class__ is not int:
            action = _action_id(action)
        if self.pending and self.pending[0][0] == RANDOM_DRAW:   # (its outcomes may outnumber the actions)
            name, _k, values, weights, _where = self.pending[0][1]
            if not 0 <= action < len(weights):
                raise IllegalActionError("%d is not an outcome of '%s = random' (0..%d)" % (
                    action, name, len(weights) - 1))
            return "%s = %s" % (name, _value_str(VAR_POS[name], values[action]))
        if not 0 <= action < NUM_DISTINCT_ACTIONS:
            raise IllegalActionError("%d is not an action id of this game (0..%d)" % (
                action, NUM_DISTINCT_ACTIONS - 1))
        if self.pending:
            if self.pending[0][0] == DEALER_DRAW:
                return "seat %d deals" % action
            if action < NUM_CARDS:
                return "deal " + CARD_STR[action]
        if action < NUM_CARDS:
            verb = PHASE_VERB[self.phase] if self.phase is not None else "play"
            return verb + " " + CARD_STR[action]
        if action == DONE and self.selection is not None:
            return "done (%d chosen)" % self.selection[0]
        return SLOT_TEXT[action - NUM_CARDS]

    def returns(self):
        """Each player's result: the match's returns(p) at the end, 0 before."""
        if not self.terminal:
            return [0.0] * NUM_PLAYERS
        return _returns(self)

    def rewards(self):
        return self.returns()

    def clone(self):
        """An independent copy that plays on exactly like this state."""
        n = object.__new__(self.__class__)
        n.game = self.game
        n.cur = self.cur
        n.terminal = self.terminal
        n.zones = [z[:] for z in self.zones]
        n.vars = {k: (v[:] if v.__class__ is list else v) for k, v in self.vars.items()}
        n.dealer = self.dealer
        n.deal_number = self.deal_number
        n.actor = self.actor
        n.phase = self.phase
        n.history = History(self.history)
        n.log = self.log[:]
        n.revealed = set(self.revealed)
        n.logged_dealer = self.logged_dealer
        n.tricks_won = self.tricks_won[:]
        n.trick_cards = self.trick_cards[:]
        n.trick_leader = self.trick_leader
        n.trick_number = self.trick_number
        n.last_winner = self.last_winner
        n.to_play = self.to_play
        n.selection = self.selection
        n.loc = self.loc[:]
        n.pending = self.pending[:]
        n.resume = self.resume
        n.dirty = self.dirty
        n.deal_open = self.deal_open
        n.deal_log = self.deal_log[:]
        n.deal_values = self.deal_values[:]
        n.deal_start = self.deal_start
        n.voids = set(self.voids)
        n.on_score = None       # a hook watches one match, not a look-ahead on its copy
        n._lc = self._lc
        return n

    def __deepcopy__(self, memo):
        return self.clone()

    def _where(self):
        return "phase '%s', deal %d, after %d actions" % (self.phase, self.deal_number + 1, len(self.history))

    def _action_name(self, action):
        if 0 <= action < NUM_CARDS:
            return CARD_STR[action]
        if 0 <= action - NUM_CARDS < len(SLOT_TEXT):
            return SLOT_TEXT[action - NUM_CARDS]
        return "no such action"

    def deal_shown(self):
        """The deal a header names (1-based): the one in progress, or at the end the last one played."""
        return len(self.deal_log) if self.terminal and self.deal_log else self.deal_number + 1

    def observation_string(self, player):
        """What ``player`` (a seat, 0-based) sees: public zones, his own private zones, sizes of the rest,
        variables, the trick.  Raises ValueError for a seat that is not one."""
        _check_seat(player)
        return self._view(player, False)

    def information_state_string(self, player):
        """What ``player`` has observed of the match, in order (perfect recall): the observation now, then
        ``history:`` and his view of the log (recall_tokens).  Raises ValueError for a bad seat."""
        _check_seat(player)
        return self._view(player, False) + "\\nhistory: " + " ".join(self.information_state_log(player))

    def information_state_log(self, player):
        """``player``'s view of the log (a seat; -1 the public observer; None everything), one token per entry."""
        return recall_tokens(self.log, player, VAR_NAMES, PHASE_NAMES)

    def visible(self, slot, player):
        """Whether zone slot ``slot`` is visible to ``player`` (public, revealed, or his own private zone)."""
        vis = SLOT_VIS[slot]
        if vis == 'public' or slot in self.revealed:
            return True
        return vis == 'private' and SLOT_OWNER[slot] == player

    def _view(self, player, full):
        if self.terminal:
            who = "match over"
        elif self.pending:
            who = "chance"
        else:
            who = "seat %d to act" % self.actor
        lines = ["%s | deal %d | dealer seat %d | phase %s | %s" % (TITLE, self.deal_shown(), self.dealer,
                                                                     self.phase or "-", who)]
        for i in SHOWN_SLOTS:
            z = self.zones[i]
            if full or self.visible(i, player):
                shown = sorted(z, key=lambda c: (SUIT_OF[c], -STRENGTH_OF[c]))
                lines.append(SLOT_LABEL[i] + ": " + (" ".join(CARD_STR[c] for c in shown) if z else "-"))
            else:
                lines.append("%s: %d card%s" % (SLOT_LABEL[i], len(z), "s" if len(z) != 1 else ""))
        if self.trick_cards:
            lines.append("trick %d: " % self.trick_number +
                         ", ".join("seat %d: %s" % (p, CARD_STR[c]) for p, c in self.trick_cards))
        parts = []
        for i, name in enumerate(VAR_NAMES):
            val = self.vars[name]
            if isinstance(val, list):
                parts.append("%s=[%s]" % (name, ", ".join(_value_str(i, x) if full or var_seen(i, player, k)
                                                          else "?" for k, x in enumerate(val))))
            else:
                parts.append("%s=%s" % (name, _value_str(i, val) if full or var_seen(i, player, None) else "?"))
        if any(self.tricks_won):
            parts.append("tricks=[%s]" % ", ".join(str(t) for t in self.tricks_won))
        if parts:
            lines.append("vars: " + " ".join(parts))
        if full and self.terminal:
            lines.append("returns: " + ", ".join("%g" % r for r in self.returns()))
        return "\\n".join(lines)

    def __str__(self):
        return self._view(-1, True)


class Game:
    """The game: ``new_initial_state()`` starts a match."""
    name = GAME_NAME
    title = TITLE
    players = NUM_PLAYERS
    num_cards = NUM_CARDS

    def new_initial_state(self):
        return State(self)

    def num_players(self):
        return NUM_PLAYERS

    def num_distinct_actions(self):
        return NUM_DISTINCT_ACTIONS

    def max_chance_outcomes(self):
        return MAX_CHANCE_OUTCOMES

    def card_str(self, card):
        return CARD_STR[card] if card >= 0 else "none"'''


def _recall_source() -> str:
    """The text of engine/recall.py (the log's entries and how a seat sees them), which the module embeds."""
    from atout.engine import recall
    with open(recall.__file__, encoding="utf-8") as fh:
        return fh.read()


def _table_ui_source() -> str:
    """The text of engine/table_ui.py, which the module embeds verbatim (the one terminal table)."""
    from atout.engine import table_ui
    with open(table_ui.__file__, encoding="utf-8") as fh:
        text = fh.read()
    assert "\'\'\'" not in text, "engine/table_ui.py must not contain triple single quotes (it is embedded raw)"
    return text


_MODULE_TABLE = '''class ModuleTable:
    """This module's adapter to the terminal table (the contract is in the embedded _TABLE_UI's docstring)."""

    def __init__(self, ui):
        self.ui = ui
        self.title = TITLE
        self.players = NUM_PLAYERS
        self.sides = SIDE_MEMBERS
        self.num_cards = NUM_CARDS
        self.num_actions = NUM_DISTINCT_ACTIONS
        self.suit_names = SUITS
        self.zone_slots = UI_ZONE_SLOTS
        self.variables = tuple(ui["Variable"](*v) for v in UI_VARIABLES)
        self.first_phase = UI_FIRST_PHASE
        self.has_trick_phase = bool(UI_TRICK_READS)
        self._index = {name: i for i, name in enumerate(VAR_NAMES)}

    def card_str(self, c):
        return CARD_STR[c]

    def card_parts(self, c):
        return RANKS[c % NRANKS], SUITS[c // NRANKS]

    def phase_kind(self, name):
        if name is None or name not in PHASE_INDEX:
            return None
        return "trick" if name in UI_TRICK_READS else "other"

    def trick_reads(self, name):
        return frozenset(UI_TRICK_READS.get(name, ()))

    def trump_var(self, name):
        return UI_TRUMP_VAR.get(name)

    def has_trumps(self, name):
        return UI_HAS_TRUMPS.get(name, False)

    def action_names(self, a):
        return UI_ACTION_NAMES[a - NUM_CARDS]

    def view(self, s):
        mover = s.player_to_move() if not s.terminal and not s.pending else s.actor
        values = {k: (list(x) if isinstance(x, list) else x) for k, x in s.vars.items()}
        return self.ui["View"](s.deal_number, s.dealer, s.phase, mover, s.actor, s.terminal,
                               bool(s.pending) and not s.terminal, [list(z) for z in s.zones], set(s.revealed),
                               list(s.trick_cards), s.trick_number, list(s.tricks_won), values, self._trump(s),
                               s.deal_shown())

    def _trump(self, s):
        order = [s.phase] if s.phase in UI_ORDER else []
        order += [k for k in UI_ORDER if k not in order]
        for k in order:
            try:
                t = UI_ORDER[k](s)[0]
            except Exception:   # e.g. a trump read from a zone that is still empty
                return -1
            return t if 0 <= t < len(SUITS) else -1
        return -1

    def value_str(self, v, value):
        return _value_str(self._index[v.name], value)

    def pending_destination(self, s):
        if s.pending and s.pending[0][0] >= 0 and isinstance(s.pending[0][1], int):
            return s.pending[0][1]
        return None

    def last_public(self, s):
        return next((bool(e[2]) for e in reversed(s.log) if e[0] >= CHANCE), True)

    def selecting(self, s):
        return s.selection is not None

    def decision_actions(self, s):
        return s.decision_actions()

    def finished_deal(self, s, within=False):
        d = s.deal_log[-1] if s.deal_log else {}
        return list(d.get("tricks") or s.tricks_won), dict(d.get("gains") or {})

    def why_not(self, s, a, legal):
        return None'''


_PLAY = '''def play(seat=0, seed=None, input_fn=input, out=None):
    """Play a match at the terminal as ``seat`` (0-based) against random bots; returns 0.  The table is Atout's
    own (``atout play``'s), embedded as _TABLE_UI: the same layout, the same way of reading a move."""
    ui = {"__name__": "atout_table_ui"}
    exec(compile(_TABLE_UI, "atout_table_ui", "exec"), ui)
    rng = random.Random(seed)
    bots = {p: ui["random_bot"](random.Random(rng.randrange(2 ** 32))) for p in range(NUM_PLAYERS) if p != seat}
    return ui["play_match"](ModuleTable(ui), Game().new_initial_state(), seat, bots, "random", rng, input_fn, out)


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="Play this game at the terminal against random bots.")
    ap.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    ap.add_argument("--seed", type=int, default=None, help="seed for the deal and the bots")
    args = ap.parse_args(argv)
    if not 0 <= args.seat < NUM_PLAYERS:
        ap.error("--seat must be 0..%d" % (NUM_PLAYERS - 1))
    try:
        return play(args.seat, args.seed)
    except BrokenPipeError:            # the output piped into 'head' and closed: stop quietly, as 'atout play'
        import os
        try:    # the interpreter flushes stdout on exit: point it at nothing (Python's documented recipe)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except (KeyboardInterrupt, EOFError):
        return 130


if __name__ == "__main__":
    sys.exit(main())'''

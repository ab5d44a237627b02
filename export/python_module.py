"""Export a game as one standalone Python module (``atout export FILE --to python -o OUT.py``).

The module is a translation of the IR specialised for the game, not an interpreter of it: every expression of
the rule file becomes a Python expression over plain ints and lists, every effect block becomes Python
functions, every table (suits, strengths, card names, the card order under each trump) is precomputed.  It
imports only the standard library and implements the engine's OpenSpiel-shaped API (``Game``, ``State`` with
``current_player``, ``is_chance_node``, ``chance_outcomes``, ``legal_actions``, ``apply_action``,
``action_to_string``, ``is_terminal``, ``returns``, ``observation_string``, ``information_state_string``,
``clone``).  ``python OUT.py [--seat N] [--seed S]`` plays a match at the terminal against random bots.

Semantics are the engine's (:mod:`atout.engine.state`), step for step, so that the module and the engine agree on
every state (tests/test_export_python.py plays both side by side):

* effects run until a chance draw, a decision or the end of the match; a draw from a hidden zone suspends the
  effects, which resume once every pending card has been drawn.  Effect blocks are therefore compiled into
  *blocks*: a block is a function that returns the number of the next block, or -1 to stop; a statement that
  can suspend ends its block.  Structures without a suspension inside are compiled inline;
* the ``ends when`` condition is checked after every assignment, at the start of the match and at each end of
  a deal;
* locals that must survive a suspension (action parameters, loop variables around a draw) live in ``s.loc``.

Safety: identifiers in the generated code are made from indices only; text from the rule file reaches the code
only as ``repr()`` literals (see :mod:`atout.export.names`).
"""
from __future__ import annotations

from atout.compiler import ir
from atout.engine.game import Game as EngineGame

from .names import py_str

MAX_BLOCK_STEPS = 100_000
DEALER_DRAW = -2
RANDOM_DRAW = -3


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


def generate(game_ir: ir.Game, source: str = "", extra: str = "") -> str:
    """Python source of a standalone module playing ``game_ir``; ``source`` names the rule file (kept as the
    constant SOURCE); ``extra`` is code placed before the terminal-play part (the OpenSpiel adapter).

    Raises ExportError for a construct the exporter does not translate."""
    check_known(game_ir)
    return _Gen(game_ir, source).module(extra)


# Python refuses more than 20 statically nested blocks ("too many statically nested blocks"); a 'for' with more
# than this many loops nested in it (itself included) is emitted as blocks (its counter in s.loc), as a loop that
# can suspend for chance is, and so is everything around it.
_MAX_STATIC_LOOPS = 12



class _Gen:  # noqa: PLR0904 - one method per IR construct
    def __init__(self, g: ir.Game, source: str):
        self.g = g
        self.E = EngineGame(g)
        self.source = source
        self.N = g.players
        self.ncards = g.deck.size
        self.blocks: list[list[str] | None] = []
        self.funcs: list[str] = []
        self.tmp = 0
        self.nloc = 0
        self.var_index = {v.name: i for i, v in enumerate(g.vars)}
        self.vars = {v.name: v for v in g.vars}
        self.phase_index = {p.name: i for i, p in enumerate(g.phases)}
        self.hidden = {z.name: z.visibility == "hidden" for z in g.zones}
        self.has_bowers = any(p.trick is not None and p.trick.bowers is not None for p in g.phases)
        self.nslots = len(g.action_slots)

    # -- helpers ----------------------------------------------------------------------------
    def fresh(self, stem: str) -> str:
        self.tmp += 1
        return f"{stem}{self.tmp}"

    def new_block(self) -> int:
        self.blocks.append([])
        return len(self.blocks) - 1

    def where(self, node, braces: bool = True) -> str:
        """``path:line:col: `` of a node for run-time error messages; braces doubled for ``str.format``."""
        sp = getattr(node, "span", None)
        if sp is None or not sp.line:
            return ""
        text = f"{sp.path}:{sp.line}:{sp.col}: "
        return text.replace("{", "{{").replace("}", "}}") if braces else text

    # -- expressions -----------------------------------------------------------------------
    def is_seat(self, e: ir.Expr, env) -> bool:
        """Whether ``e`` surely evaluates to a seat 0..N-1 (no range check needed)."""
        if isinstance(e, ir.Builtin):
            return e.name in ("dealer", "eldest")
        if isinstance(e, ir.Call):
            if e.fn in ("left", "right", "seat", "clockwise"):
                return True   # left, right and clockwise raise a rule error unless their argument is a seat
            if e.fn == "partner":
                return self.is_seat(e.args[0], env)
            return False
        if isinstance(e, ir.Local):
            return env[e.name][1]
        if isinstance(e, ir.Const):
            return e.type.kind == "player" and 0 <= int(e.value) < self.N
        return False

    def x(self, e: ir.Expr, env) -> str:  # noqa: C901 - one case per node type
        """Python source of expression ``e``; ``env`` maps local names to (source, is a seat)."""
        N = self.N
        if isinstance(e, ir.Const):
            v = e.value
            if isinstance(v, bool):
                return "True" if v else "False"
            return repr(int(v))
        if isinstance(e, ir.VarRef):
            return f"s.v{self.var_index[e.name]}"
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
            arr = f"s.v{self.var_index[v.name]}"
            i = self.x(e.index, env)
            n = N if v.per == "player" else max(1, len(self.g.sides))
            if v.per == "player" and self.is_seat(e.index, env):
                return f"{arr}[{i}]"
            if v.per == "side" and isinstance(e.index, ir.Call) and e.index.fn == "side" and \
                    self.is_seat(e.index.args[0], env):
                return f"{arr}[{i}]"
            msg = py_str(f"{self.where(e)}index {{}} out of range for '{v.name}'")
            return f"_at({arr}, {i}, {n}, {msg})"
        if isinstance(e, ir.Call):
            return self.call(e, env)
        if isinstance(e, ir.BinOp):
            a, b = self.x(e.left, env), self.x(e.right, env)
            if e.op in ("/", "%"):
                fn = "_div" if e.op == "/" else "_mod"
                return f"{fn}({a}, {b}, {py_str(self.where(e, braces=False) + 'division by zero')})"
            op = {"and": "and", "or": "or"}.get(e.op, e.op)
            return f"({a} {op} {b})"
        if isinstance(e, ir.Not):
            return f"(not {self.x(e.operand, env)})"
        if isinstance(e, ir.Neg):
            return f"(-{self.x(e.operand, env)})"
        if isinstance(e, ir.Cond):
            return f"({self.x(e.then, env)} if {self.x(e.test, env)} else {self.x(e.orelse, env)})"
        if isinstance(e, ir.InSet):
            items = ", ".join(self.x(i, env) for i in e.items)
            return f"({self.x(e.value, env)} in ({items},))"
        if isinstance(e, ir.Quant):
            q = self.fresh("q")
            inner = dict(env)
            inner[e.var] = (q, e.domain is None)
            dom = f"range({N})" if e.domain is None else f"s.z[{self.zone(e.domain, env)}]"
            body = self.x(e.body, inner)
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
            return f"_next_player({self.x(e.after, env)}, lambda {q}: {self.x(e.cond, inner)}, {msg})"
        raise ExportError(f"the exporter does not translate the expression {type(e).__name__} yet")

    def call(self, e: ir.Call, env) -> str:  # noqa: C901
        fn, N = e.fn, self.N
        if fn in ("size", "top", "has"):
            z = f"s.z[{self.zone(e.args[0], env)}]"
            if fn == "size":
                return f"len({z})"
            if fn == "top":
                return f"_top({z})"
            return f"({self.x(e.args[1], env)} in {z})"
        if fn in ("total", "max", "min"):
            arr = f"s.v{self.var_index[e.args[0].name]}"  # type: ignore[attr-defined]
            return f"{ {'total': 'sum', 'max': 'max', 'min': 'min'}[fn]}({arr})"
        args = [self.x(a, env) for a in e.args]
        a0 = args[0] if args else ""
        if fn == "suit":
            return f"_suit({a0})"
        if fn == "rank":
            return f"_rank({a0})"
        if fn == "card":
            return f"_card({a0}, {args[1]})"
        if fn in ("left", "right", "partner", "side", "tricks"):
            # a function of a player: none (or no seat) is a rule error, as in the engine
            p = a0 if self.is_seat(e.args[0], env) else \
                f"_pl({a0}, {py_str(self.where(e, braces=False) + fn + '() of none, not a player')})"
            return {"left": f"(({p} + 1) % {N})", "right": f"(({p} - 1) % {N})", "partner": f"PARTNER[{p}]",
                    "side": f"SIDE_OF[{p}]", "tricks": f"s.tw[{p}]"}[fn]
        if fn == "played":
            return f"_played(s, {a0})"
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
        """Source of the zone slot index of a zone expression."""
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

    def zone_hidden(self, e: ir.Expr) -> bool:
        name = e.name if isinstance(e, ir.ZoneRef) else e.base.name  # type: ignore[attr-defined]
        return self.hidden[name]

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

    def can_suspend(self, s: ir.Stmt) -> bool:
        """Whether ``s`` is emitted as blocks (functions returning the next block) rather than inline Python:
        it may stop for a chance outcome (a hidden draw, a random value), or it holds a ``for`` nested deeper
        than a Python function may nest loops."""
        if isinstance(s, ir.Move):
            return s.count is not None and self.zone_hidden(s.source)
        if isinstance(s, ir.Deal):
            return self.zone_hidden(s.source)
        if isinstance(s, ir.If):
            return any(self.can_suspend(x) for _, b in s.branches for x in b) or \
                any(self.can_suspend(x) for x in s.orelse)
        if isinstance(s, ir.For):
            return self.loop_depth(s) > _MAX_STATIC_LOOPS or any(self.can_suspend(x) for x in s.body)
        if isinstance(s, ir.RandomAssign):
            return True
        if isinstance(s, ir.Score):
            return any(self.can_suspend(x) for row in self.g.table(s.table).rows for x in row.body)
        return False

    def body(self, stmts: tuple[ir.Stmt, ...], env) -> int:
        """Compile a top-level effect body into blocks; falling off its end stops (-1).  Returns the entry."""
        entry = self.new_block()
        end = self.seq(stmts, env, (self.blocks[entry], "    "))
        if end is not None:
            end[0].append(f"{end[1]}return -1")
        return entry

    def seq(self, stmts, env, at):
        """Emit ``stmts`` at emission point ``at`` = (lines, indent); returns where execution continues after
        them, or None when every path has left (goto, end deal, a jump)."""
        for st in stmts:
            if at is None:
                break  # unreachable: the engine never runs statements after a goto or end deal
            at = self.stmt(st, env, at)
        return at

    def stmt(self, s: ir.Stmt, env, at):  # noqa: C901 - one case per statement type
        lines, ind = at
        N = self.N
        if isinstance(s, ir.Assign):
            self.assign(s, env, lines, ind)
            lines.append(f"{ind}s.dirty = True   # 'ends when' is evaluated at rest (_run)")
            return at
        if isinstance(s, ir.Move):
            src, dst = self.zone(s.source, env), self.zone(s.dest, env)
            if s.count is None:
                a, b = self.fresh("_zs"), self.fresh("_zd")
                si, di = self.fresh("_si"), self.fresh("_di")
                lines.append(f"{ind}{si} = {src}; {di} = {dst}; {a} = s.z[{si}]; {b} = s.z[{di}]")
                lines.append(f"{ind}if {a} is not {b}:")
                lines.append(f"{ind}    if {a} and {si} != TRICK:")
                lines.append(f"{ind}        _logm(s, {a}, {si}, {di})")
                lines.append(f"{ind}    {b}.extend({a}); {a}.clear()")
                return at
            n, si, di = self.fresh("_n"), self.fresh("_si"), self.fresh("_di")
            lines.append(f"{ind}{n} = {self.x(s.count, env)}; {si} = {src}; {di} = {dst}")
            lines.append(f"{ind}if {n} < 0:")
            lines.append(f"{ind}    raise RuleError({py_str(self.where(s) + 'cannot move {} cards')}.format({n}))")
            lines.append(f"{ind}if {n} > len(s.z[{si}]):")
            msg = py_str(self.where(s) + "a draw of {} cards finds only {} in {}")
            lines.append(f"{ind}    raise RuleError({msg}.format({n}, len(s.z[{si}]), SLOT_LABEL[{si}]))")
            if not self.zone_hidden(s.source):
                z1, z2 = self.fresh("_zs"), self.fresh("_zd")
                lines.append(f"{ind}{z1} = s.z[{si}]; {z2} = s.z[{di}]")
                lines.append(f"{ind}for _ in range({n}):")
                lines.append(f"{ind}    _logm(s, {z1}[-1:], {si}, {di})")
                lines.append(f"{ind}    {z2}.append({z1}.pop())")
                return at
            nxt = self.new_block()
            lines.append(f"{ind}if {n}:")
            lines.append(f"{ind}    s.pending = [({si}, {di})] * {n}")
            lines.append(f"{ind}    s.resume = {nxt}")
            lines.append(f"{ind}    return -1")
            lines.append(f"{ind}return {nxt}")
            return (self.blocks[nxt], "    ")
        if isinstance(s, ir.MoveCard):
            msg = py_str(self.where(s) + "cannot move {}: it is not in {}")
            lines.append(f"{ind}_move_card(s, {self.x(s.card, env)}, {self.zone(s.source, env)}, "
                         f"{self.zone(s.dest, env)}, {msg})")
            return at
        if isinstance(s, ir.SetDealer):
            msg = py_str(self.where(s) + "the dealer is {}, not a player")
            lines.append(f"{ind}s.dealer = _seat({self.x(s.value, env)}, {msg})")
            lines.append(f"{ind}s.dirty = True")
            return at
        if isinstance(s, ir.Deal):
            src = self.zone(s.source, env)
            base = self.E.zone_base[s.dest]
            st, si, d = self.fresh("_st"), self.fresh("_si"), self.fresh("_d")
            lines.append(f"{ind}{si} = {src}; {st} = {self.x(s.starting, env)}")
            lines.append(f"{ind}_seat({st}, {py_str(self.where(s) + 'the deal starts at {}, not a player')})")
            msg = py_str(self.where(s) + "the deal needs {} cards and {} holds {}")
            if all(isinstance(p, ir.Const) and 0 <= p.value for p in s.packets) and \
                    sum(p.value for p in s.packets) * N <= self.E.num_cards:
                offs = [j for p in s.packets for j in range(N) for _ in range(int(p.value))]
                lines.append(f"{ind}{d} = [{base} + ({st} + o) % {N} for o in {tuple(offs)!r}]")
                lines.append(f"{ind}if len({d}) > len(s.z[{si}]):")
                lines.append(f"{ind}    raise RuleError({msg}.format(len({d}), SLOT_LABEL[{si}], len(s.z[{si}])))")
            else:   # sizes checked before any list of that size is built (a packet may be huge)
                ks = ", ".join(self.x(p, env) for p in s.packets)
                kk, need = self.fresh("_k"), self.fresh("_need")
                lines.append(f"{ind}{kk} = ({ks},)")
                lines.append(f"{ind}if min({kk}) < 0:")
                msg_p = py_str(self.where(s) + "a packet of {} cards")
                lines.append(f"{ind}    raise RuleError({msg_p}.format(min({kk})))")
                lines.append(f"{ind}{need} = sum({kk}) * {N}")
                lines.append(f"{ind}if {need} > len(s.z[{si}]):")
                lines.append(f"{ind}    raise RuleError({msg}.format({need}, SLOT_LABEL[{si}], len(s.z[{si}])))")
                lines.append(f"{ind}{d} = [{base} + ({st} + j) % {N} for k in {kk} for j in range({N}) "
                             f"for _ in range(k)]")
            if not self.zone_hidden(s.source):
                z1 = self.fresh("_zs")
                lines.append(f"{ind}{z1} = s.z[{si}]")
                lines.append(f"{ind}for _t in {d}:")
                lines.append(f"{ind}    _logm(s, {z1}[-1:], {si}, _t)")
                lines.append(f"{ind}    s.z[_t].append({z1}.pop())")
                return at
            nxt = self.new_block()
            lines.append(f"{ind}if {d}:")
            lines.append(f"{ind}    s.pending = [({si}, _t) for _t in reversed({d})]")
            lines.append(f"{ind}    s.resume = {nxt}")
            lines.append(f"{ind}    return -1")
            lines.append(f"{ind}return {nxt}")
            return (self.blocks[nxt], "    ")
        if isinstance(s, ir.Shuffle):
            return at  # draws from a hidden zone are uniform chance events: a shuffle has no other effect
        if isinstance(s, ir.Gather):
            d = self.fresh("_d")
            lines.append(f"{ind}{d} = {self.zone(s.zone, env)}")
            lines.append(f"{ind}_gather(s, {d})")
            return at
        if isinstance(s, ir.Reveal):
            lines.append(f"{ind}_reveal(s, {self.zone(s.zone, env)})")
            return at
        if isinstance(s, ir.Goto):
            lines.append(f"{ind}return _enter_{self.phase_index[s.phase]}(s)")
            return None
        if isinstance(s, ir.EndDeal):
            lines.append(f"{ind}return _end_deal(s)")
            return None
        if isinstance(s, ir.If):
            if self.can_suspend(s):
                return self.if_blocks(s, env, at)
            exits = True
            for k, (cond, b) in enumerate(s.branches):
                lines.append(f"{ind}{'if' if k == 0 else 'elif'} {self.x(cond, env)}:")
                lines.append(f"{ind}    pass")
                if self.seq(b, env, (lines, ind + "    ")) is not None:
                    exits = False
            if s.orelse:
                lines.append(f"{ind}else:")
                lines.append(f"{ind}    pass")
                if self.seq(s.orelse, env, (lines, ind + "    ")) is not None:
                    exits = False
            else:
                exits = False
            return None if exits else at
        if isinstance(s, ir.For):
            if self.can_suspend(s):
                return self.for_blocks(s, env, at)
            p = self.fresh("p")
            inner = dict(env)
            inner[s.var] = (p, s.over == "players")
            lines.append(f"{ind}for {p} in {self.loop_domain(s, env)}:")
            lines.append(f"{ind}    pass")
            if self.seq(s.body, inner, (lines, ind + "    ")) is None:
                return None  # the first iteration always leaves
            return at
        if isinstance(s, ir.RandomAssign):
            return self.random_assign(s, env, at)
        if isinstance(s, ir.Score):
            rows = self.g.table(s.table).rows
            if self.can_suspend(s):
                return self.score_blocks(rows, env, at)
            flags = [self.fresh("_m") for _ in rows]
            for f, row in zip(flags, rows):
                lines.append(f"{ind}{f} = {self.x(row.guard, env)}")
            for f, row in zip(flags, rows):
                lines.append(f"{ind}if {f}:")
                lines.append(f"{ind}    pass")
                self.seq(row.body, env, (lines, ind + "    "))
            return at
        raise ExportError(f"cannot export statement {type(s).__name__}")  # pragma: no cover

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
        return f"tuple(s.z[{self.zone(s.source, env)}])"

    def index_code(self, s, env, lines, ind) -> str:
        """Emit the range check of an indexed assignment's index; returns the variable holding it."""
        v = self.vars[s.var]
        i = self.fresh("_i")
        n = self.N if v.per == "player" else max(1, len(self.g.sides))
        lines.append(f"{ind}{i} = {self.x(s.index, env)}")
        lines.append(f"{ind}if not 0 <= {i} < {n}:")
        msg = py_str(self.where(s) + "index {} out of range for " + repr(s.var))
        lines.append(f"{ind}    raise RuleError({msg}.format({i}))")
        return i

    def random_assign(self, s: ir.RandomAssign, env, at):
        """``VAR = random {...}``: the values (and the index) are evaluated now, the chance node's outcome
        picks one, and the effects resume with the assignment."""
        lines, ind = at
        k = self.nloc
        self.nloc += 3
        vals = ", ".join(self.x(v, env) for v in s.values)
        lines.append(f"{ind}s.loc[{k + 1}] = ({vals},)")
        vi = self.var_index[s.var]
        if s.index is not None:
            lines.append(f"{ind}s.loc[{k + 2}] = {self.index_code(s, env, lines, ind)}")
            seers = f"VAR_SEERS[{vi}][s.loc[{k + 2}]]"
        else:
            seers = f"VAR_SEERS[{vi}][0]"
        lines.append(f"{ind}s.pending = [(RANDOM_DRAW, ({k}, {vi}, {tuple(s.weights)!r}, {seers}))]")
        nxt = self.new_block()
        lines.append(f"{ind}s.resume = {nxt}")
        lines.append(f"{ind}return -1")
        body = self.blocks[nxt]
        v = self.vars[s.var]
        attr = f"s.v{self.var_index[s.var]}"
        target = f"{attr}[s.loc[{k + 2}]]" if s.index is not None else attr
        body.append(f"    _v = s.loc[{k + 1}][s.loc[{k}]]")
        t = v.type
        if t.kind == "int" and t.low is not None:
            body.append(f"    if not {t.low} <= _v <= {t.high}:")
            msg = py_str(f"{self.where(s)}'{s.var}' would become {{}}, outside its range {t.low}..{t.high}")
            body.append(f"        raise RuleError({msg}.format(_v))")
        entry = f"s.loc[{k + 2}]" if s.index is not None else "-1"
        body.append(f"    if {target} != _v:")
        body.append(f"        _logv(s, {self.var_index[s.var]}, {entry}, _v)")
        body.append(f"    {target} = _v")
        body.append("    s.dirty = True")
        return (body, "    ")

    def assign(self, s: ir.Assign, env, lines, ind) -> None:
        v = self.vars[s.var]
        attr = f"s.v{self.var_index[s.var]}"
        val = self.fresh("_v")
        lines.append(f"{ind}{val} = {self.x(s.value, env)}")
        t = v.type
        if s.index is not None:
            i = self.index_code(s, env, lines, ind)
            target = f"{attr}[{i}]"
        else:
            i = "-1"
            target = attr
        if s.op == "+=":
            lines.append(f"{ind}{val} = {target} + {val}")
        elif s.op == "-=":
            lines.append(f"{ind}{val} = {target} - {val}")
        if t.kind == "int" and t.low is not None:
            lines.append(f"{ind}if not {t.low} <= {val} <= {t.high}:")
            msg = py_str(f"{self.where(s)}'{s.var}' would become {{}}, outside its range {t.low}..{t.high}")
            lines.append(f"{ind}    raise RuleError({msg}.format({val}))")
        lines.append(f"{ind}if {target} != {val}:")
        lines.append(f"{ind}    _logv(s, {self.var_index[s.var]}, {i}, {val})")
        lines.append(f"{ind}{target} = {val}")

    def if_blocks(self, s: ir.If, env, at):
        lines, ind = at
        join = None
        targets = []
        for k, (cond, b) in enumerate(s.branches):
            bid = self.new_block()
            targets.append((bid, b))
            lines.append(f"{ind}{'if' if k == 0 else 'elif'} {self.x(cond, env)}:")
            lines.append(f"{ind}    return {bid}")
        if s.orelse:
            eid = self.new_block()
            targets.append((eid, s.orelse))
            lines.append(f"{ind}return {eid}")
        else:
            join = self.new_block()
            lines.append(f"{ind}return {join}")
        for bid, b in targets:
            end = self.seq(b, env, (self.blocks[bid], "    "))
            if end is not None:
                if join is None:
                    join = self.new_block()
                end[0].append(f"{end[1]}return {join}")
        return (self.blocks[join], "    ") if join is not None else None

    def for_blocks(self, s: ir.For, env, at):
        lines, ind = at
        k = self.nloc
        self.nloc += 1
        self.nloc += 1
        head, body, after = self.new_block(), self.new_block(), self.new_block()
        lines.append(f"{ind}s.loc[{k}] = 0")
        lines.append(f"{ind}s.loc[{k + 1}] = {self.loop_domain(s, env)}")
        lines.append(f"{ind}return {head}")
        self.blocks[head] += [f"    if s.loc[{k}] < len(s.loc[{k + 1}]):", f"        return {body}",
                              f"    return {after}"]
        inner = dict(env)
        inner[s.var] = (f"s.loc[{k + 1}][s.loc[{k}]]", s.over == "players")
        end = self.seq(s.body, inner, (self.blocks[body], "    "))
        if end is not None:
            end[0].append(f"{end[1]}s.loc[{k}] += 1")
            end[0].append(f"{end[1]}return {head}")
        return (self.blocks[after], "    ")

    def score_blocks(self, rows, env, at):
        lines, ind = at
        first = self.nloc
        self.nloc += len(rows)
        for j, row in enumerate(rows):
            lines.append(f"{ind}s.loc[{first + j}] = {self.x(row.guard, env)}")
        for j, row in enumerate(rows):
            run, skip = self.new_block(), self.new_block()
            lines.append(f"{ind}if s.loc[{first + j}]:")
            lines.append(f"{ind}    return {run}")
            lines.append(f"{ind}return {skip}")
            end = self.seq(row.body, env, (self.blocks[run], "    "))
            if end is not None:
                end[0].append(f"{end[1]}return {skip}")
            lines, ind = self.blocks[skip], "    "
        return (lines, ind)

    def ends(self) -> str:
        return self.x(self.g.match.ends_when, {})

    # -- phases ------------------------------------------------------------------------------
    def phase_code(self) -> None:  # noqa: C901
        g, N = self.g, self.N
        for k, ph in enumerate(g.phases):
            out = [f"def _enter_{k}(s):", f"    s.log.append((PHASE, {k}, True))", f"    s.phase = {k}",
                   "    s.sel = None"]
            if ph.kind == "auto":
                entry = self.body(ph.body, {})
                out.append(f"    return {entry}")
            elif ph.kind == "choice":
                out.append(f"    s.actor = _actor_{k}(s)")
                out.append("    return -1")
            else:
                t = ph.trick
                out += ["    s.trick_number = 1", "    s.tc = []",
                        f"    _l = _seat({self.x(t.leader, {})}, "
                        f"{py_str(self.where(t.leader) + 'the trick' + chr(39) + 's leader is {}, not a player')})",
                        f"    if _l in _skipped_{k}(s):",
                        f"        _l = _next_active_{k}(s, _l)",
                        "    s.trick_leader = _l", "    s.actor = _l", "    return -1"]
            self.funcs.append("\n".join(out))
            if ph.kind == "choice":
                msg = py_str(self.where(ph.actor) + f"the actor of phase '{ph.name}' is {{}}, not a player")
                self.funcs.append(f"def _actor_{k}(s):\n    return _seat({self.x(ph.actor, {})}, {msg})")
                self.choice_phase(k, ph)
            elif ph.kind == "trick":
                self.trick_phase(k, ph)

    def action_env(self, a: ir.Action, value_src: str):
        """(env for the guard with the parameter as ``value_src``, the loc slot of the parameter or None)."""
        p = a.param
        if p is None:
            return {}, None
        seat = p.kind == "domain" and p.type.kind == "player"
        card = p.kind == "card"
        return {p.name: (value_src, seat or False)}, (p, card)

    def named_actions(self, actions, legal: list[str], apply: list[str]) -> None:
        """Legal-action and apply code for named (no card) actions."""
        slot_index = self.E.slot_index
        for a in actions:
            p = a.param
            if p is not None and p.kind in ("card", "choose"):
                continue
            if p is None:
                sid = slot_index[(a.name, None)]
                legal.append(f"    if {self.x(a.guard, {})}:")
                legal.append(f"        out.append({sid})")
                entry = self.body(a.body, {})
                apply.append(f"    if a == {sid}:")
                apply.append(f"        s.log.append((s.actor, a, True))")
                apply.append(f"        return {entry}")
            else:  # domain
                values = tuple(ir.domain_values(self.g, p.type))
                ids = tuple(slot_index[(a.name, v)] for v in values)
                seat = p.type.kind == "player"
                legal.append(f"    for _x, _a in zip({values!r}, {ids!r}):")
                legal.append(f"        if {self.x(a.guard, {p.name: ('_x', seat)})}:")
                legal.append(f"            out.append(_a)")
                slot = self.nloc
                self.nloc += 1
                entry = self.body(a.body, {p.name: (f"s.loc[{slot}]", seat)})
                apply.append(f"    if a in {ids!r}:")
                apply.append(f"        s.log.append((s.actor, a, True))")
                apply.append(f"        s.loc[{slot}] = {values!r}[{ids!r}.index(a)]")
                apply.append(f"        return {entry}")

    def choice_phase(self, k: int, ph: ir.Phase) -> None:
        done = self.E.done_action
        legal = [f"def _legal_{k}(s):", "    out = []"]
        apply = [f"def _apply_{k}(s, a):"]
        card_act = next((a for a in ph.actions if a.param is not None and a.param.kind in ("card", "choose")), None)
        if card_act is not None and card_act.param.kind == "choose":
            p = card_act.param
            src, dst = self.zone(p.zone, {}), self.zone(p.dest, {})
            slot = self.nloc
            self.nloc += 1
            entry = self.body(card_act.body, {p.name: (f"s.loc[{slot}]", False)})
            legal += ["    if s.sel is not None:",
                      "        _k, _lo, _hi = s.sel",
                      "        if _k < _hi:",
                      f"            out.extend(s.z[{src}])",
                      "        if _k >= _lo:",
                      f"            out.append({done})",
                      "        return out"]
            apply += ["    if a < NUM_CARDS:",
                      f"        s.log.append((s.actor, a, {card_act.public}))",
                      "        if s.sel is None:",
                      f"            s.sel = (0, {self.x(p.low, {})}, min({self.x(p.high, {})}, len(s.z[{src}])))",
                      "        _k, _lo, _hi = s.sel",
                      f"        s.z[{src}].remove(a)",
                      f"        s.z[{dst}].append(a)",
                      "        _k += 1",
                      "        s.sel = (_k, _lo, _hi)",
                      "        if _k >= _hi:",
                      "            s.sel = None",
                      f"            s.loc[{slot}] = _k",
                      f"            return {entry}",
                      "        return -1",
                      f"    if a == {done}:",
                      "        s.log.append((s.actor, a, True))",
                      "        _k = s.sel[0] if s.sel is not None else 0",
                      "        s.sel = None",
                      f"        s.loc[{slot}] = _k",
                      f"        return {entry}"]
        for a in ph.actions:
            if a is card_act and a.param.kind == "choose":
                p = a.param
                src = self.zone(p.zone, {})
                legal += [f"    _lo = {self.x(p.low, {})}",
                          f"    _hi = min({self.x(p.high, {})}, len(s.z[{src}]))",
                          f"    if not (_hi < max(_lo, 1) and _lo > 0) and {self.x(a.guard, {p.name: ('0', False)})}:",
                          "        if _hi >= 1:",
                          f"            out.extend(s.z[{src}])",
                          "        if _lo <= 0:",
                          f"            out.append({done})"]
            elif a is card_act:
                p = a.param
                src = self.zone(p.zone, {})
                legal += [f"    for _c in s.z[{src}]:",
                          f"        if {self.x(a.guard, {p.name: ('_c', False)})}:",
                          "            out.append(_c)"]
                slot = self.nloc
                self.nloc += 1
                entry = self.body(a.body, {p.name: (f"s.loc[{slot}]", False)})
                apply += ["    if a < NUM_CARDS:",
                          f"        s.log.append((s.actor, a, {a.public}))",
                          f"        s.loc[{slot}] = a",
                          f"        return {entry}"]
            else:
                self.named_actions((a,), legal, apply)
        legal.append("    return out")
        apply.append("    raise IllegalActionError('no action ' + repr(a))")
        self.funcs.append("\n".join(legal))
        self.funcs.append("\n".join(apply))

    def trick_phase(self, k: int, ph: ir.Phase) -> None:  # noqa: C901
        t = ph.trick
        E, N = self.E, self.N
        if E.hand_base is None:
            raise ExportError("trick play needs a per-player zone named 'hand'")
        hand, trickz, taken = E.hand_base, E.trick_zone, E.taken_base
        trump = self.x(t.trump, {})
        skips = (t.skip, *t.more_skips)
        no_skip = all(isinstance(e, ir.Const) and e.value == ir.NONE for e in skips)
        if t.bowers is not None or t.trump_order:
            suits_by, strength_by = E.card_order(t)
            self.funcs.append(f"SUITS_BY_{k} = {tuple(tuple(x) for x in suits_by)!r}\n"
                              f"STRENGTH_BY_{k} = {tuple(tuple(x) for x in strength_by)!r}")
            so, st = f"SUITS_BY_{k}[_t + 1]", f"STRENGTH_BY_{k}[_t + 1]"
        else:
            so, st = "SUIT_OF", "STRENGTH_OF"
        if t.trump_order:   # no trump suit: the trump order is a trump suit of its own, number NSUITS
            trump = f"_eff({trump})"
        self.funcs.append(f"def _order_{k}(s):\n    _t = {trump}\n    return _t, {so}, {st}")
        # who sits out
        if no_skip:
            self.funcs.append(f"def _skipped_{k}(s):\n    return ()")
            self.funcs.append(f"def _next_active_{k}(s, p, skip=None):\n    return (p + 1) % {N}")
        else:
            items = ", ".join(self.x(e, {}) for e in skips)
            self.funcs.append(f"def _skipped_{k}(s):\n    return {{{items}}}")
            self.funcs.append("\n".join([
                f"def _next_active_{k}(s, p, skip=None):",
                f"    if skip is None:",
                f"        skip = _skipped_{k}(s)",
                f"    q = (p + 1) % {N}",
                "    while q in skip:",
                "        if q == p:",
                f"            raise RuleError({py_str(self.where(t, False) + 'every player sits out of the tricks')})",
                f"        q = (q + 1) % {N}",
                "    return q"]))
        # playable cards (the follow rules)
        rules = {r.kind: self.x(r.condition, {}) for r in t.follow}
        pl = [f"def _playable_{k}(s):",
              f"    hand = s.z[{hand} + s.actor]",
              "    tc = s.tc",
              "    if not tc:",
              "        return hand[:]"]
        if rules:
            pl += [f"    _t, so, st = _order_{k}(s)",
                   "    led = so[tc[0][1]]",
                   "    cands = hand",
                   "    free = False"]
            for kind in ("suit", "head", "trump"):
                pl.append(f"    r_{kind} = {rules.get(kind, 'False')}")
            # void in the suit led and not obliged to trump (no trump rule, or no trump in hand): any card, and
            # no duty to head the trick (the engine's rule, AC)
            pl += ["    if r_suit:",
                   "        same = [c for c in cands if so[c] == led]",
                   "        if same:",
                   "            cands = same",
                   "        else:",
                   "            tr = [c for c in cands if so[c] == _t] if r_trump and _t >= 0 else []",
                   "            if tr:",
                   "                cands = tr",
                   "            else:",
                   "                free = True",
                   "    elif r_trump and _t >= 0 and not any(so[c] == led for c in cands):",
                   "        tr = [c for c in cands if so[c] == _t]",
                   "        if tr:",
                   "            cands = tr",
                   "    if r_head and not free:",
                   "        bc = tc[0][1]",
                   "        for _p, c in tc[1:]:",
                   "            if (st[c] > st[bc]) if so[c] == so[bc] else (so[c] == _t):",
                   "                bc = c",
                   "        win = [c for c in cands if ((st[c] > st[bc]) if so[c] == so[bc] else (so[c] == _t))]",
                   "        if win:",
                   "            cands = win",
                   "    return cands[:] if cands is hand else cands"]
        else:
            pl.append("    return hand[:]")
        if t.card_rules:
            pl[0] = f"def _follow_{k}(s):"
            self.funcs.append("\n".join(pl))
            cr = [f"def _playable_{k}(s):", f"    cands = _follow_{k}(s)", "    leading = not s.tc"]
            for r in t.card_rules:
                cond = self.x(r.condition, {r.var: ("_c", False)})
                ind = "    "
                if r.kind == "lead":
                    cr.append("    if leading:")
                    ind = "        "
                cr += [f"{ind}keep = [_c for _c in cands if {cond}]", f"{ind}if keep:", f"{ind}    cands = keep"]
            cr.append("    return cands")
            pl = cr
        self.funcs.append("\n".join(pl))
        # playing a card
        then = self.body(t.then, {})
        play = [f"def _play_{k}(s, card):",
                "    p = s.actor",
                f"    s.z[{hand} + p].remove(card)",
                f"    s.z[{trickz}].append(card)",
                "    tc = s.tc",
                "    tc.append((p, card))"]
        if t.dummy is not None:   # the opening lead shows the dummy's hand
            play += ["    if s.trick_number == 1 and len(tc) == 1:",
                     f"        _d = {self.x(t.dummy, {})}",
                     f"        if 0 <= _d < {N}:",
                     f"            _reveal(s, {hand} + _d)"]
            by = "PARTNER[_d]" if t.dummy_by is None else \
                f"_seat({self.x(t.dummy_by, {})}, {py_str(self.where(t.dummy_by) + 'the player who plays the dummy' + chr(39) + 's cards is {}, not a player')})"
            self.funcs.append("\n".join([
                f"def _chooser_{k}(s):",
                "    if s.sel is not None:",
                "        return s.actor",
                f"    _d = {self.x(t.dummy, {})}",
                "    if _d != s.actor:",
                "        return s.actor",
                f"    return {by}"]))
        if no_skip:
            play += [f"    if len(tc) < {N}:",
                     f"        s.actor = (p + 1) % {N}",
                     "        return -1"]
        else:
            play += [f"    skip = _skipped_{k}(s)",
                     f"    nact = sum(1 for q in range({N}) if q not in skip)",
                     "    if not nact:",
                     f"        raise RuleError({py_str(self.where(t, False) + 'every player sits out of the tricks')})",
                     "    if len(tc) < nact:",
                     f"        s.actor = _next_active_{k}(s, p, skip)",
                     "        return -1"]
        play += [f"    _t, so, st = _order_{k}(s)",
                 "    bp, bc = tc[0]",
                 "    for i in range(1, len(tc)):",
                 "        q, c = tc[i]",
                 "        if (st[c] > st[bc]) if so[c] == so[bc] else (so[c] == _t):",
                 "            bp, bc = q, c",
                 "    s.tw[bp] += 1",
                 f"    z = s.z[{trickz}]",
                 f"    s.z[{taken} + bp].extend(z)",
                 "    z.clear()",
                 "    s.tc = []",
                 "    s.last_winner = bp"]
        if t.after:
            # `after trick { ... }` runs after every trick (the last one too): the engine decides whether that was
            # the last trick before the block runs, and leads the next trick (or runs `then`) after it, which may
            # be after chance draws inside the block
            last = self.nloc
            self.nloc += 1
            cont = self.new_block()
            self.blocks[cont] += [f"    if s.loc[{last}]:",
                                  f"        return {then}",
                                  "    s.trick_number += 1",
                                  "    s.trick_leader = s.last_winner",
                                  "    s.actor = s.last_winner",
                                  "    return -1"]
            entry = self.new_block()
            end = self.seq(t.after, {}, (self.blocks[entry], "    "))
            if end is not None:
                end[0].append(f"{end[1]}return {cont}")
            play += [f"    s.loc[{last}] = s.trick_number >= {self.x(t.count, {})}",
                     f"    return {entry}"]
        else:
            play += [f"    if s.trick_number >= {self.x(t.count, {})}:",
                     f"        return {then}",
                     "    s.trick_number += 1",
                     "    s.trick_leader = bp",
                     "    s.actor = bp",
                     "    return -1"]
        self.funcs.append("\n".join(play))
        # legal actions and apply
        legal = [f"def _legal_{k}(s):", f"    out = _playable_{k}(s)"]
        apply = [f"def _apply_{k}(s, a):",
                 "    if a < NUM_CARDS:",
                 "        s.log.append((s.cur, a, True))",
                 f"        return _play_{k}(s, a)"]
        self.named_actions(ph.actions, legal, apply)
        legal.append("    return out")
        apply.append("    raise IllegalActionError('no action ' + repr(a))")
        self.funcs.append("\n".join(legal))
        self.funcs.append("\n".join(apply))

    def led_suit(self) -> str:
        lines = ["def _led_suit(s):", "    if not s.tc:", "        return -1"]
        for k, ph in enumerate(self.g.phases):
            if ph.kind == "trick" and (ph.trick.bowers is not None or ph.trick.trump_order):
                lines += [f"    if s.phase == {k}:", f"        _s = _order_{k}(s)[1][s.tc[0][1]]",
                          f"        return _s if _s < {len(self.g.deck.suits)} else -1"]
        lines.append("    return SUIT_OF[s.tc[0][1]]")
        return "\n".join(lines)

    # -- deals and the match -------------------------------------------------------------------------
    def var_init(self, scope: str) -> str:
        lines = [f"def _init_{scope}_vars(s):"]
        for v in self.g.vars:
            if v.scope != scope:
                continue
            val = self.x(v.init, {})
            i = self.var_index[v.name]
            if v.per == "player":
                lines.append(f"    s.v{i} = [{val}] * {self.N}")
            elif v.per == "side":
                lines.append(f"    s.v{i} = [{val}] * {max(1, len(self.g.sides))}")
            else:
                lines.append(f"    s.v{i} = {val}")
        lines.append("    return None")
        return "\n".join(lines)

    def match_code(self) -> str:
        m = self.g.match
        start = self.phase_index[m.start]
        snap = [i for i, v in enumerate(self.g.vars) if v.scope == "match" and v.per is not None
                and v.type.kind == "int"]
        return "\n".join([
            "SNAP_NAMES = %r" % (tuple(self.g.vars[i].name for i in snap),),
            "def _snap(s):",
            "    return (%s)" % "".join(f"s.v{i}[:], " for i in snap),
            "",
            self.var_init("match"),
            self.var_init("deal"),
            "def _start_deal(s):",
            "    s.log.append((DEAL, s.dealer, True))",
            "    s.sd = s.dealer",
            "    _init_deal_vars(s)",
            "    s.ds = _snap(s)",
            "    s.deal_done = False",
            f"    s.tw = [0] * {self.N}",
            "    s.tc = []",
            "    s.trick_number = 0",
            "    s.trick_leader = -1",
            "    s.last_winner = -1",
            "    s.revealed = set()",
            f"    return _enter_{start}(s)",
            "",
            "def _end_deal(s):",
            "    s.last_deal = (s.deal_number, s.tw, s.ds, _snap(s))",
            "    s.deal_done = True",
            "    s.deal_number += 1",
            f"    if {self.ends()}:",
            "        return _finish(s)",
            f"    s.dealer = _seat({self.x(m.next_dealer, {})}, "
            f"{py_str(self.where(m.next_dealer) + 'the next dealer is {}, not a player')})",
            "    return _start_deal(s)",
            "",
            "def _first_dealer(s):",
            f"    return _seat({self.x(m.first_dealer, {})}, "
            f"{py_str(self.where(m.first_dealer) + 'the first dealer is {}, not a player')})",
            "",
            "def _ends(s):",
            f"    return {self.ends()}",
            "",
            "def _returns(s):",
            f"    return [_float_return(_p, {self.x(m.returns, {m.returns_var: ('_p', True)})}) "
            f"for _p in range({self.N})]",
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
        verbs = []
        for ph in g.phases:
            verb = "play"
            if ph.kind == "choice":
                for a in ph.actions:
                    if a.param is not None and a.param.kind in ("card", "choose"):
                        verb = a.label
            verbs.append(verb)
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
            f"SHOWN_SLOTS = {tuple(i for i, s in enumerate(slots) if s.name != 'trick')!r}",
            f"HOME = {E.home_zone}",
            f"HAND = {E.hand_base if E.hand_base is not None else -1}",
            f"SLOT_TEXT = {tuple(s.text for s in g.action_slots)!r}",
            f"DONE = {E.done_action if E.done_action is not None else -999}",
            f"PHASE_NAMES = {tuple(p.name for p in g.phases)!r}",
            f"PHASE_VERB = {tuple(verbs)!r}",
            f"VAR_NAMES = {tuple(v.name for v in g.vars)!r}",
            f"VAR_VIS = {tuple(v.visibility or 'public' for v in g.vars)!r}",
            f"VAR_PER = {tuple(v.per or '' for v in g.vars)!r}",
            f"SIDE_MEMBERS = {tuple(tuple(sd) for sd in g.sides)!r}",
            f"VAR_VALUES = ({', '.join(value_tables)}{',' if value_tables else ''})",
            f"DEALER_BY_CHANCE = {bool(g.match.first_dealer_random)!r}",
            f"TRICK = {E.trick_zone if E.trick_zone is not None else -1}",
            f"ALL_SEATS = {E.all_seats}",
            f"SLOT_SEERS = {tuple(E.slot_seers)!r}",
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
        return "\n".join([
            f"UI_VARIABLES = {tuple(tuple(v) for v in t.variables)!r}",
            f"UI_ZONE_SLOTS = {t.zone_slots!r}",
            f"UI_TRICK_READS = {dict((n, tuple(sorted(t.trick_reads(n)))) for n in tricks)!r}",
            f"UI_TRUMP_VAR = {dict((n, t.trump_var(n)) for n in tricks)!r}",
            f"UI_HAS_TRUMPS = {dict((n, t.has_trumps(n)) for n in tricks)!r}",
            f"UI_ACTION_NAMES = {tuple(t.action_names(a) for a in range(t.num_cards, t.num_actions))!r}",
            f"UI_FIRST_PHASE = {t.first_phase!r}",
            f"UI_ORDER = ({''.join(f'_order_{k}, ' if p.kind == 'trick' else 'None, ' for k, p in enumerate(g.phases))})",
        ])

    # -- the module ---------------------------------------------------------------------------------
    def module(self, extra: str = "") -> str:
        self.phase_code()
        match = self.match_code()
        led = self.led_suit()
        g = self.g
        nphases = len(g.phases)
        legal_tab = ", ".join(f"_legal_{k}" if p.kind != "auto" else "None" for k, p in enumerate(g.phases))
        apply_tab = ", ".join(f"_apply_{k}" if p.kind != "auto" else "None" for k, p in enumerate(g.phases))
        actor_tab = ", ".join(f"_actor_{k}" if p.kind == "choice" else "None" for k, p in enumerate(g.phases))
        chooser_tab = ", ".join(f"_chooser_{k}" if p.kind == "trick" and p.trick.dummy is not None else "None"
                                for k, p in enumerate(g.phases))
        block_src = []
        for i, b in enumerate(self.blocks):
            assert b, i
            block_src.append(f"def _b{i}(s):\n" + "\n".join(b))
        var_slots = [f"v{i}" for i in range(len(g.vars))]
        copy_vars = []
        for i, v in enumerate(g.vars):
            if v.per is not None:
                copy_vars.append(f"        n.v{i} = self.v{i}[:]")
            else:
                copy_vars.append(f"        n.v{i} = self.v{i}")
        parts = [
            _HEADER,
            f"SOURCE = {py_str(self.source)}\n" + "\n".join(self.tables()),
            _RUNTIME,
            _recall_source(),
            "\n\n".join(self.funcs),
            led,
            match,
            "\n\n".join(block_src),
            f"BLOCKS = ({', '.join(f'_b{i}' for i in range(len(self.blocks)))},)",
            f"LEGAL = ({legal_tab}{',' if nphases else ''})",
            f"APPLY = ({apply_tab}{',' if nphases else ''})",
            f"ACTOR = ({actor_tab}{',' if nphases else ''})",
            f"CHOOSER = ({chooser_tab}{',' if nphases else ''})",
            f"NLOC = {max(self.nloc, 1)}",
            _STATE.replace("@VARSLOTS@", repr(tuple(var_slots)))
                  .replace("@COPYVARS@", "\n".join(copy_vars) or "        pass"),
            *([extra] if extra else []),
            self.table_constants(),
            _MODULE_TABLE,
            "_TABLE_UI = r\'\'\'" + _table_ui_source() + "\'\'\'",
            _PLAY,
        ]
        return "\n\n\n".join(parts) + "\n"


_HEADER = '''"""A card game exported by Atout (`atout export --to python`): a standalone module, standard library only.

Generated from a rule file (see SOURCE, GAME_NAME and TITLE below); do not edit it, export the rule file again.

API (OpenSpiel-shaped, as Atout's engine): ``Game().new_initial_state()`` gives a ``State`` with
``current_player()`` (a 0-based seat, CHANCE = -1 at a chance node, TERMINAL = -4 at the end),
``is_chance_node()``, ``chance_outcomes()`` ([(outcome, probability)]), ``legal_actions()`` (sorted ids: card ids
first, then the named actions), ``apply_action(a)``, ``action_to_string(a)``, ``is_terminal()``, ``returns()``,
``observation_string(p)``, ``information_state_string(p)``, ``clone()`` and ``history`` (the actions applied).

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


MAX_BLOCK_STEPS = 100000
DEALER_DRAW = -2
RANDOM_DRAW = -3
PROB = tuple(1.0 / n if n else 0.0 for n in range(NUM_CARDS + NUM_PLAYERS + 1))


def _at(arr, i, n, msg):
    if not 0 <= i < n:
        raise RuleError(msg.format(i))
    return arr[i]


def _zi(base, p, msg):
    if not 0 <= p < NUM_PLAYERS:
        raise RuleError(msg.format(p))
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


def _played(s, p):
    return any(q == p for q, _ in s.tc)


def _move_card(s, c, si, di, msg):
    """``move CARD from Z to Z``: the card must be in the source zone."""
    z = s.z[si]
    if c < 0 or c not in z:
        raise RuleError(msg.format(CARD_STR[c] if c >= 0 else 'none', SLOT_LABEL[si]))
    _logm(s, (c,), si, di)
    z.remove(c)
    s.z[di].append(c)


def _logm(s, cards, si, di):
    """Cards moved by the rules' effects, in the log: who sees them (those who see either zone now), how many."""
    rv = s.revealed
    m = (ALL_SEATS if si in rv else SLOT_SEERS[si]) | (ALL_SEATS if di in rv else SLOT_SEERS[di])
    s.log.append((MOVE, tuple(cards), m == ALL_SEATS, si, m, di, len(cards)))


def _logv(s, i, k, v):
    """Variable ``i`` (entry ``k``, -1 for one value) changes to ``v``: in the log, seen by the seats that see it."""
    m = VAR_SEERS[i][k if k >= 0 else 0]
    s.log.append((VAR, v, m == ALL_SEATS, i, m, k))


def _reveal(s, slot):
    """Zone slot ``slot`` is shown to everyone (in the log, with its cards, the first time)."""
    if slot not in s.revealed:
        s.revealed.add(slot)
        s.log.append((REVEAL, tuple(sorted(s.z[slot])), True, slot, ALL_SEATS))


def _eff(t):
    """The trump suit of a trick with a trump order: the trump order's own suit when there is no trump suit."""
    return t if t >= 0 else len(SUITS)


def _holder(s, c):
    """The seat whose hand holds card ``c``, or -1 (none)."""
    if c >= 0:
        for p in range(NUM_PLAYERS):
            if c in s.z[HAND + p]:
                return p
    return -1


def _gather(s, d):
    dz = s.z[d]
    for i, z in enumerate(s.z):
        if i != d:
            if z:
                _logm(s, z, i, d)
            dz.extend(z)
            z.clear()
    dz.sort()


def _finish(s):
    """The match is over: the terminal state."""
    s.terminal = True
    s.pending = []
    s.phase = -1
    s.actor = TERMINAL
    return -1


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


def _float_return(p, v):
    try:
        return float(v)
    except OverflowError:
        raise RuleError("returns(%d) = %s... is too large for a float" % (p, str(v)[:20])) from None


def _run(s, b):
    """Run effect blocks from block ``b`` until a chance draw, a decision or the end of the match; then, at
    rest, ``ends when`` if a variable changed (a block of effects always runs to its end)."""
    steps = 0
    blocks = BLOCKS
    while b >= 0:
        steps += 1
        if steps > MAX_BLOCK_STEPS:
            raise RuleError("effects ran %d steps without a decision: a loop of automatic phases?" % steps)
        b = blocks[b](s)
    if s.dirty:
        s.dirty = False
        if not s.terminal and _ends(s):
            _finish(s)


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
    """A node of a match.  Create with ``Game().new_initial_state()``."""

    __slots__ = ('game', 'cur', 'terminal', 'z', 'dealer', 'deal_number', 'actor', 'phase', 'history', 'log',
                 'revealed', 'tw', 'tc', 'trick_leader', 'trick_number', 'last_winner', 'sel', 'loc',
                 'pending', 'resume', '_lc', 'dirty', 'ds', 'last_deal', 'deal_done', 'sd') + @VARSLOTS@

    def __init__(self, game=None):
        self.game = game
        self.z = [[] for _ in SLOT_LABEL]
        self.z[HOME] = list(range(NUM_CARDS))
        self.dealer = 0
        self.deal_number = 0
        self.actor = -1
        self.phase = -1
        self.terminal = False
        self.history = History()
        self.log = []
        self.revealed = set()
        self.sd = -1            # the dealer as the log last showed it
        self.tw = [0] * NUM_PLAYERS
        self.tc = []
        self.trick_leader = -1
        self.trick_number = 0
        self.last_winner = -1
        self.sel = None
        self.loc = [0] * NLOC
        self.pending = []
        self.resume = -1
        self._lc = None
        self.dirty = False
        self.ds = ()            # the match scores when the deal began (_snap), for the table's deal reports
        self.last_deal = None   # (deal index, tricks won, ds, scores at its end) of the last deal finished
        self.deal_done = False  # the deal in progress has ended (the match ended with it)
        _init_match_vars(self)
        if DEALER_BY_CHANCE:
            _init_deal_vars(self)  # (so that the opening chance node can be observed; set again by the deal)
            self.pending = [(DEALER_DRAW, DEALER_DRAW)]
            self.cur = CHANCE
            return
        self.dealer = _first_dealer(self)
        self._begin()

    def _begin(self):
        b = _start_deal(self)
        if _ends(self):
            _finish(self)
        else:
            _run(self, b)
        self._settle()

    def _settle(self):
        if self.terminal:
            self.cur = TERMINAL
        elif self.pending:
            self.cur = CHANCE
        else:
            f = ACTOR[self.phase]
            if f is not None:
                self.actor = f(self)
            c = CHOOSER[self.phase]
            self.cur = self.actor if c is None else c(self)
        if self.dealer != self.sd:      # the rules made another seat the dealer: in the log
            self.sd = self.dealer
            self.log.append((DEALER, self.dealer, True))

    # -- OpenSpiel-shaped API -------------------------------------------------------------
    def current_player(self):
        """The seat to act (0-based), CHANCE (-1) at a chance node, TERMINAL (-4) at the end."""
        return self.cur

    def is_chance_node(self):
        return self.cur == CHANCE

    def is_terminal(self):
        return self.terminal

    def chance_outcomes(self):
        """[(outcome, probability)]: the cards of the zone drawn from, uniformly (seats for a random dealer)."""
        if self.cur != CHANCE:
            raise IllegalActionError("chance_outcomes() called at a node that is not a chance node")
        src = self.pending[-1][0]
        if src == DEALER_DRAW:
            p = 1.0 / NUM_PLAYERS
            return [(q, p) for q in range(NUM_PLAYERS)]
        if src == RANDOM_DRAW:
            weights = self.pending[-1][1][2]
            total = sum(weights)
            return [(i, w / total) for i, w in enumerate(weights)]
        z = self.z[src]
        p = PROB[len(z)]
        return [(c, p) for c in sorted(z)]

    def legal_actions(self, player=None):
        """Sorted legal action ids of the player to act (the chance outcomes at a chance node)."""
        cur = self.cur
        if cur >= 0:
            if player is not None and player != cur:
                return []
            lc = self._lc
            if lc is None:
                lc = self._lc = LEGAL[self.phase](self)
            return sorted(lc)
        if cur == CHANCE:
            src = self.pending[-1][0]
            if src == DEALER_DRAW:
                return list(range(NUM_PLAYERS))
            if src == RANDOM_DRAW:
                return list(range(len(self.pending[-1][1][2])))
            return sorted(self.z[src])
        return []

    def apply_action(self, action):
        """Apply a legal action (a chance outcome at a chance node); raises IllegalActionError otherwise."""
        action = _action_id(action)
        cur = self.cur
        if cur >= 0:
            lc = self._lc
            self._lc = None
            if lc is None:
                lc = LEGAL[self.phase](self)
            if action not in lc:
                raise IllegalActionError("illegal action %r for seat %d in phase %s; legal: %s" % (
                    action, cur, PHASE_NAMES[self.phase], sorted(lc)))
            self.history.append(action)
            _run(self, APPLY[self.phase](self, action))   # (b < 0: the action's effects are done; still at rest)
            self._settle()
            return
        if cur == CHANCE:
            src, dst = self.pending[-1]
            if src == DEALER_DRAW:
                if action not in range(NUM_PLAYERS):
                    raise IllegalActionError("chance outcome %r is not a seat" % (action,))
                self.pending.pop()
                self.history.append(action)
                self.log.append((CHANCE, action, True, -1, ALL_SEATS))
                self.dealer = action
                self._begin()
                return
            if src == RANDOM_DRAW:
                k, _var, weights, seers = dst
                if action not in range(len(weights)):
                    raise IllegalActionError("chance outcome %r is not one of the %d outcomes of %s = random" % (
                        action, len(weights), VAR_NAMES[_var]))
                self.pending.pop()
                self.loc[k] = action
                self.history.append(action)
                self.log.append((CHANCE, action, seers == ALL_SEATS, -1, seers))
                _run(self, self.resume)
                self._settle()
                return
            try:
                self.z[src].remove(action)
            except ValueError:
                raise IllegalActionError("chance outcome %r is not in %s" % (action, SLOT_LABEL[src])) from None
            self.pending.pop()
            self.z[dst].append(action)
            self.history.append(action)
            m = ALL_SEATS if dst in self.revealed else SLOT_SEERS[dst]
            self.log.append((CHANCE, action, m == ALL_SEATS, dst, m))
            if self.pending:
                return
            _run(self, self.resume)
            self._settle()
            return
        raise IllegalActionError("the match is over; no action can be applied")

    def action_to_string(self, action, player=None):
        """Text of an action in this state: 'play K♠', 'discard 7♥', 'I propose', 'deal Q♦'.  Raises
        IllegalActionError for an id that is no action of the game."""
        action = _action_id(action)
        if not 0 <= action < NUM_CARDS + len(SLOT_TEXT):
            raise IllegalActionError("%d is not an action id of this game (0..%d)" % (
                action, NUM_CARDS + len(SLOT_TEXT) - 1))
        if self.cur == CHANCE:
            if self.pending[-1][0] == DEALER_DRAW:
                return "seat %s deals" % (action,)
            if self.pending[-1][0] == RANDOM_DRAW:
                k, i, weights, _ = self.pending[-1][1]
                if not 0 <= action < len(weights):
                    raise IllegalActionError("%d is not an outcome of %s = random (0..%d)" % (
                        action, VAR_NAMES[i], len(weights) - 1))
                return "%s = %s" % (VAR_NAMES[i], _value_str(i, self.loc[k + 1][action]))
            if action < NUM_CARDS:
                return "deal " + (CARD_STR[action] if action >= 0 else "none")
        if action < NUM_CARDS:
            verb = PHASE_VERB[self.phase] if self.phase >= 0 else "play"
            return verb + " " + (CARD_STR[action] if action >= 0 else "none")
        i = action - NUM_CARDS
        if 0 <= i < len(SLOT_TEXT):
            if action == DONE and self.sel is not None:
                return "done (%d chosen)" % self.sel[0]
            return SLOT_TEXT[i]
        return "<action %s>" % (action,)

    def returns(self):
        """Each player's result: the match's returns(p) at the end, 0 before."""
        if not self.terminal:
            return [0.0] * NUM_PLAYERS
        return _returns(self)

    def rewards(self):
        return self.returns()

    def clone(self):
        n = State.__new__(State)
        n.game = self.game
        n.cur = self.cur
        n.terminal = self.terminal
        n.z = [z[:] for z in self.z]
        n.dealer = self.dealer
        n.deal_number = self.deal_number
        n.actor = self.actor
        n.phase = self.phase
        n.history = History(self.history)
        n.log = self.log[:]
        n.revealed = set(self.revealed)
        n.sd = self.sd
        n.tw = self.tw[:]
        n.tc = self.tc[:]
        n.trick_leader = self.trick_leader
        n.trick_number = self.trick_number
        n.last_winner = self.last_winner
        n.sel = self.sel
        n.loc = self.loc[:]
        n.pending = self.pending[:]
        n.resume = self.resume
        n._lc = None
        n.dirty = self.dirty
        n.ds = self.ds
        n.last_deal = self.last_deal
        n.deal_done = self.deal_done
@COPYVARS@
        return n

    def __deepcopy__(self, memo):
        return self.clone()

    def deal_shown(self):
        """The deal a header names (1-based): the one in progress, or at the end the last one played."""
        return self.deal_number if self.terminal and self.deal_done else self.deal_number + 1

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
        elif self.cur == CHANCE:
            who = "chance"
        else:
            who = "seat %d to act" % self.actor
        phase = PHASE_NAMES[self.phase] if self.phase >= 0 else "-"
        lines = ["%s | deal %d | dealer seat %d | phase %s | %s" % (TITLE, self.deal_shown(), self.dealer,
                                                                     phase, who)]
        for i in SHOWN_SLOTS:
            z = self.z[i]
            if full or self.visible(i, player):
                lines.append(SLOT_LABEL[i] + ": " + (" ".join(CARD_STR[c] for c in sorted(z)) if z else "-"))
            else:
                lines.append("%s: %d card%s" % (SLOT_LABEL[i], len(z), "s" if len(z) != 1 else ""))
        if self.tc:
            lines.append("trick %d: " % self.trick_number +
                         ", ".join("seat %d: %s" % (p, CARD_STR[c]) for p, c in self.tc))
        parts = []
        for i, name in enumerate(VAR_NAMES):
            val = getattr(self, "v%d" % i)
            if isinstance(val, list):
                parts.append("%s=[%s]" % (name, ", ".join(_value_str(i, x) if full or var_seen(i, player, k)
                                                          else "?" for k, x in enumerate(val))))
            else:
                parts.append("%s=%s" % (name, _value_str(i, val) if full or var_seen(i, player, None) else "?"))
        if any(self.tw):
            parts.append("tricks=[%s]" % ", ".join(str(t) for t in self.tw))
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
        if name is None or name not in PHASE_NAMES:
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
        phase = PHASE_NAMES[s.phase] if s.phase >= 0 else None
        mover = s.cur if s.cur >= 0 else s.actor
        values = {}
        for i, name in enumerate(VAR_NAMES):
            x = getattr(s, "v%d" % i)
            values[name] = list(x) if isinstance(x, list) else x
        return self.ui["View"](s.deal_number, s.dealer, phase, mover, s.actor, s.terminal, s.cur == CHANCE,
                               [list(z) for z in s.z], set(s.revealed), list(s.tc), s.trick_number, list(s.tw),
                               values, self._trump(s), s.deal_shown())

    def _trump(self, s):
        order = [s.phase] if s.phase >= 0 and UI_ORDER[s.phase] is not None else []
        order += [k for k, f in enumerate(UI_ORDER) if f is not None and k not in order]
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
        if s.cur == CHANCE and s.pending and s.pending[-1][0] >= 0 and isinstance(s.pending[-1][1], int):
            return s.pending[-1][1]
        return None

    def last_public(self, s):
        return next((bool(e[2]) for e in reversed(s.log) if e[0] >= CHANCE), True)

    def selecting(self, s):
        return s.sel is not None

    def decision_actions(self, s):
        legal = s.legal_actions()
        if not legal:
            raise IllegalActionError("seat %d has no legal action: every action's condition is false" % s.actor)
        return legal

    def finished_deal(self, s, within=False):
        if within or s.last_deal is None or not s.deal_done and s.terminal:   # ended within the deal
            tricks, start, end = s.tw, s.ds, _snap(s)
        else:
            _, tricks, start, end = s.last_deal
        return list(tricks), {n: [a - b for a, b in zip(x, y)] for n, x, y in zip(SNAP_NAMES, end, start)}

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
    return play(args.seat, args.seed)


if __name__ == "__main__":
    sys.exit(main())'''

"""A symbol index of a rule file and the files it extends: every declaration and every use of a name, with spans.

The compiler's passes check names but keep no list of where each is used; editors need one (go to definition,
find references, hover, completion, an outline).  :func:`build_index` walks the ASTs the parser builds
(:mod:`atout.compiler.syntax`, one per file of the ``extends`` chain, as :func:`~atout.compiler.load_rule_file`
collects them) and records:

* a :class:`Symbol` for each declaration: options, enums and their values, zones, variables, definitions
  (``def``), phases and their actions, tables and their rows, properties, the deck's suits and ranks, and the
  locals a quantifier, ``for``, action parameter, ``def`` parameter, ``returns(p)`` or card rule binds;
* an :class:`Occurrence` for each name written in the source, declaration or use, with the key of what it
  names.  Names are looked up as the compiler does: a local first, then the declarations of the file and its
  bases (nearest file first), then the built-in names and functions.

Spans are the compiler's (1-based lines and columns, end column exclusive); a span's ``path`` says which file of
the chain it is in.
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field

from . import syntax as S
from .span import Span

#: Kinds of declarations a value (a name inside an expression or an assignment) may name.
VALUE_KINDS = frozenset({"option", "variable", "zone", "enum value", "suit", "rank", "definition", "local"})
#: ``remove WHAT NAME``: the kind of declaration each WHAT removes.
REMOVE_KINDS = {"phase": "phase", "action": "action", "table": "table", "row": "row", "property": "property",
                "option": "option", "var": "variable", "zone": "zone", "def": "definition"}


@dataclass(frozen=True)
class Symbol:
    """A declaration.  ``key`` identifies what it declares across files: ``("global", name)`` for the names of the
    file's one namespace (options, zones, variables, phases, tables, ...), ``("action", phase, name)``,
    ``("row", table, name)``, ``("local", n, name)`` for a local bound once.  ``span`` is the declared name,
    ``decl_span`` the whole declaration; ``container`` the phase of an action, the table of a row, the enum of an
    enum value; ``header`` the declaration's source text on one line (no comments, bodies cut at their ``{``)."""
    name: str
    kind: str
    key: tuple
    span: Span
    decl_span: Span
    container: str | None = None
    header: str = ""
    children: tuple["Symbol", ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Occurrence:
    """A name written in the source at ``span``: a declaration (``declaration=True``) or a use.  ``key`` is the key
    of the declaration it names (None when nothing declared it: a built-in, or an unknown name, which the compiler
    reports); ``builtin`` describes a built-in name or function."""
    name: str
    span: Span
    key: tuple | None
    declaration: bool = False
    builtin: str | None = None


def _contains(span: Span, path: str, line: int, col: int) -> bool:
    return (span.path == path and span.line <= line <= span.end_line
            and (line > span.line or col >= span.col) and (line < span.end_line or col <= span.end_col))


@dataclass
class SymbolIndex:
    """The declarations and name occurrences of a rule file and its bases (``paths``: the file first, then the
    file it extends, ...)."""
    paths: list[str] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)        # every declaration (locals included), file order
    occurrences: list[Occurrence] = field(default_factory=list)
    outline: dict[str, list[Symbol]] = field(default_factory=dict)   # path -> top-level symbols (phases hold
    #                                                                 their actions, tables their rows)

    def at(self, path: str, line: int, col: int) -> Occurrence | None:
        """The occurrence at 1-based ``line``/``col`` of ``path`` (the column may be just after the name)."""
        best = None
        for o in self.occurrences:
            if _contains(o.span, path, line, col) and (best is None or o.span.col > best.span.col):
                best = o
        return best

    def declarations(self, key: tuple) -> list[Symbol]:
        """The declarations of ``key``, the nearest file first (a variant's override before the base's)."""
        found = [s for s in self.symbols if s.key == key]
        order = {p: i for i, p in enumerate(self.paths)}
        return sorted(found, key=lambda s: order.get(s.span.path, len(order)))

    def uses(self, key: tuple, include_declarations: bool = True) -> list[Occurrence]:
        """Every occurrence of ``key`` in the chain, in file order then source order."""
        order = {p: i for i, p in enumerate(self.paths)}
        found = [o for o in self.occurrences if o.key == key and (include_declarations or not o.declaration)]
        return sorted(found, key=lambda o: (order.get(o.span.path, len(order)), o.span.line, o.span.col))

    def globals(self) -> dict[str, Symbol]:
        """Name -> its nearest declaration, for the names of the file's namespace (no actions, rows, locals)."""
        out: dict[str, Symbol] = {}
        for p in reversed(self.paths):
            for s in self.symbols:
                if s.span.path == p and s.key[0] == "global":
                    out[s.name] = s
        return out


# -- building ------------------------------------------------------------------------------------------------------
_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*')


def strip_comment(line: str) -> str:
    """``line`` without its ``# comment`` (a ``#`` inside a string is kept)."""
    return _COMMENT.sub(lambda m: m.group() if m.group().startswith('"') else "", line)


def comment_of(line: str) -> str | None:
    """The text of the ``# comment`` ending ``line``, or None."""
    for m in _COMMENT.finditer(line):
        if m.group().startswith("#"):
            return m.group()[1:].strip() or None
    return None


class _Builder:
    def __init__(self, files: dict[str, S.RuleFile], sources: dict[str, str], paths: list[str]):
        self.files = files
        self.lines = {p: (sources.get(p) or "").split("\n") for p in paths}
        self.index = SymbolIndex(list(paths))
        self.globals: dict[str, list[Symbol]] = {}     # name -> declarations, nearest file first
        self.actions: dict[str, list[Symbol]] = {}     # action name -> declarations (any phase)
        self.rows: dict[str, list[Symbol]] = {}
        self.locals = 0

    # -- text helpers ----------------------------------------------------------------------------------------------
    def header(self, span: Span, cut_at_brace: bool = True, max_len: int = 240) -> str:
        lines = self.lines.get(span.path) or []
        if span.line < 1 or span.line > len(lines):
            return ""
        end_line = min(span.end_line, len(lines))
        parts = []
        for n in range(span.line, end_line + 1):
            text = lines[n - 1]
            if n == end_line:
                text = text[:span.end_col - 1]
            if n == span.line:
                text = text[span.col - 1:]
            parts.append(strip_comment(text))
        text = " ".join(" ".join(parts).split())
        if cut_at_brace:
            depth = 0
            for i, ch in enumerate(text):     # the first '{' outside parentheses opens the body
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    depth -= 1
                elif ch == "{" and depth == 0 and not text[:i].count('"') % 2:
                    text = text[:i].rstrip()
                    break
        return text if len(text) <= max_len else text[:max_len - 3] + "..."

    def word_span(self, within: Span, word: str, after: int = 0) -> Span:
        """The span of the first ``word`` (a whole name, not in a string or a comment) in the text of ``within``,
        skipping ``after`` matches; the start of ``within`` when it is not found."""
        lines = self.lines.get(within.path) or []
        pat = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])")
        skip = after
        for n in range(within.line, min(within.end_line, len(lines)) + 1):
            text = lines[n - 1]
            start = within.col - 1 if n == within.line else 0
            stop = within.end_col - 1 if n == within.end_line else len(text)
            code = _COMMENT.sub(lambda m: "" if m.group().startswith("#") else " " * len(m.group()), text)
            for m in pat.finditer(code, start, max(start, min(stop, len(code)))):
                if skip:
                    skip -= 1
                    continue
                return Span(within.path, n, m.start() + 1, n, m.end() + 1)
        return Span(within.path, within.line, within.col, within.line, within.col + len(word))

    # -- declarations -----------------------------------------------------------------------------------------------
    def declare(self, name, kind, key, span, decl_span, container=None, header=None, children=()) -> Symbol:
        sym = Symbol(name, kind, key, span, decl_span, container,
                     header if header is not None else self.header(decl_span), tuple(children))
        self.index.symbols.append(sym)
        self.index.occurrences.append(Occurrence(name, span, key, declaration=True))
        return sym

    def declarations(self, path: str, rf: S.RuleFile) -> list[Symbol]:
        top: list[Symbol] = []

        def g(name, kind, span, decl_span, **kw):
            s = self.declare(name, kind, ("global", name), span, decl_span, **kw)
            top.append(s)
            return s

        if rf.game is not None:
            g(rf.game, "game", rf.game_span, rf.game_span, header=self.header(
                Span(path, rf.game_span.line, 1, rf.game_span.end_line, 10_000)))
        if rf.deck is not None:
            d = rf.deck
            for name, sp in zip(d.suits, d.suit_spans):
                self.declare(name, "suit", ("global", name), sp, sp, header=f"suit {name}")
            for name, sp in zip(d.ranks, d.rank_spans):
                if name.isidentifier():
                    self.declare(name, "rank", ("global", name), sp, sp, header=f"rank {name}")
        for o in rf.options:
            g(o.name, "option", o.name_span, o.span)
        for e in rf.enums:
            vals = []
            after = e.name_span
            for i, v in enumerate(e.values):      # each value after the one before (a label may hold a name)
                sp = self.word_span(Span(path, after.end_line, after.end_col, e.span.end_line, e.span.end_col), v)
                after = sp
                label = e.labels[i] if i < len(e.labels) and e.labels[i] else None
                vals.append(self.declare(v, "enum value", ("global", v), sp, sp, container=e.name,
                                         header=f"{v}{f' {chr(34)}{label}{chr(34)}' if label else ''} "
                                                f"(a value of enum {e.name})"))
            g(e.name, "enum", e.name_span, e.span, header=self.header(e.span, cut_at_brace=False),
              children=vals)
        for z in rf.zones:
            g(z.name, "zone", z.name_span, z.span)
        for v in rf.vars:
            g(v.name, "variable", v.name_span, v.span)
        for d in rf.defs:
            g(d.name, "definition", d.name_span, d.span)
        for p in rf.phases:
            acts = [self.declare(a.name, "action", ("action", p.name, a.name), a.name_span, a.span, container=p.name)
                     for a in p.actions]
            g(p.name, "phase", p.name_span, p.span, children=acts)
        for t in rf.tables:
            rows = [self.declare(r.name, "row", ("row", t.name, r.name), r.name_span, r.span, container=t.name,
                                 header=self.header(r.span, cut_at_brace=False).split(" => ")[0])
                    for r in t.rows if r.name]
            g(t.name, "table", t.name_span, t.span, children=rows)
        for r in rf.row_overrides:
            if r.table is not None:
                sym = self.declare(r.name, "row", ("row", r.table, r.name), r.name_span, r.span, container=r.table,
                                   header=self.header(r.span, cut_at_brace=False).split(" => ")[0])
                top.append(sym)
        if rf.match is not None:
            m = rf.match
            top.append(Symbol("match", "match", ("match",), m.span, m.span, header="match"))
        for p in rf.properties:
            g(p.name, "property", p.name_span, p.span, header=self.header(p.span, cut_at_brace=False))
        return sorted(top, key=lambda s: (s.decl_span.line, s.decl_span.col))

    # -- uses --------------------------------------------------------------------------------------------------------
    def use(self, name: str, span: Span, kinds: frozenset | set, env: dict) -> None:
        from .resolve import BUILTINS, FUNCTIONS, signature
        if "local" in kinds and name in env:
            self.index.occurrences.append(Occurrence(name, span, env[name].key))
            return
        for s in self.globals.get(name, ()):
            if s.kind in kinds:
                self.index.occurrences.append(Occurrence(name, span, s.key))
                return
        builtin = None
        if "definition" in kinds and name in FUNCTIONS:
            builtin = f"built-in function {signature(name)}"
        elif "definition" in kinds and name == "gain":
            builtin = "built-in gain(variable): what a variable gained in one deal (in a deal_bound property)"
        elif name in BUILTINS and kinds & {"variable"}:
            t, doc = BUILTINS[name]
            builtin = f"built-in {name}: {t.kind}, {doc}"
        elif name == "players" and kinds & {"variable"}:
            builtin = "built-in players: the players, a quantifier domain (any(p in players: ...))"
        elif name in ("trick", "taken") and kinds & {"zone"}:
            builtin = ("built-in zone trick: the cards of the current trick" if name == "trick" else
                       "built-in zone taken: per player, the cards of the tricks a player has won")
        self.index.occurrences.append(Occurrence(name, span, None, builtin=builtin))

    def bind(self, name: str, binder: Span, env: dict, what: str, after: int = 0) -> dict:
        self.locals += 1
        sp = self.word_span(binder, name, after)
        sym = self.declare(name, "local", ("local", self.locals, name), sp, binder,
                           header=f"{name}: bound by {what} (line {binder.line})")
        return {**env, name: sym}

    def walk(self, node, env: dict) -> None:
        if node is None or isinstance(node, (str, int, bool, Span)):
            return
        if isinstance(node, (tuple, list)):
            for x in node:
                self.walk(x, env)
            return
        if isinstance(node, S.Name):
            self.use(node.id, node.span, VALUE_KINDS, env)
        elif isinstance(node, S.Call):
            self.use(node.fn, node.fn_span, {"definition"}, env)
            self.walk(node.args, env)
        elif isinstance(node, S.Quant):
            self.walk(node.domain, env)
            self.walk(node.body, self.bind(node.var, node.span, env, f"{node.kind}(...)"))
        elif isinstance(node, S.NextPlayer):
            self.walk(node.after, env)
            self.walk(node.cond, self.bind(node.var, node.span, env, "next(...)"))
        elif isinstance(node, S.For):
            self.walk((node.low, node.high), env)
            self.walk(node.body, self.bind(node.var, node.span, env, "for"))
        elif isinstance(node, (S.Assign, S.RandomAssign)):
            ts = node.target_span
            self.use(node.target, Span(ts.path, ts.line, ts.col, ts.line, ts.col + len(node.target)),
                     VALUE_KINDS - {"definition"}, env)
            rest = (node.index, node.value) if isinstance(node, S.Assign) else (node.index, node.items, node.low,
                                                                                  node.high)
            self.walk(rest, env)
        elif isinstance(node, S.Deal):
            self.walk((node.packets, node.source, node.starting), env)
            self.use(node.dest, node.dest_span, {"zone"}, env)
        elif isinstance(node, S.Goto):
            self.use(node.phase, node.phase_span, {"phase"}, env)
        elif isinstance(node, S.Score):
            self.use(node.table, node.table_span, {"table"}, env)
        elif isinstance(node, S.TypeRef):
            if node.kind not in ("int", "bool", "player", "suit", "card", "rank"):
                self.use(node.kind, Span(node.span.path, node.span.line, node.span.col, node.span.line,
                                         node.span.col + len(node.kind)), {"enum"}, env)
            self.walk((node.low, node.high), env)
        elif dataclasses.is_dataclass(node):
            for f in dataclasses.fields(node):
                self.walk(getattr(node, f.name), env)

    def uses(self, path: str, rf: S.RuleFile) -> None:
        env: dict = {}
        for o in rf.options:
            self.walk((o.type, o.value), env)
        for v in rf.vars:
            self.walk((v.type, v.init), env)
        for d in rf.defs:
            local = env
            for i, (pname, t) in enumerate(d.params):
                self.walk(t, env)
                local = self.bind(pname, d.span, local, f"the parameters of {d.name}", after=0)
            self.walk(d.result, env)
            self.walk(d.body, local)
        for p in rf.phases:
            self.walk((p.actor, p.do), env)
            if p.trick is not None:
                t = p.trick
                self.walk(tuple(getattr(t, f.name) for f in dataclasses.fields(t) if f.name != "card_rules"), env)
            for a in p.actions:
                local = env
                if a.param is not None:
                    q = a.param
                    self.walk((q.zone, q.low, q.high, q.dest), env)
                    if q.type_name and q.type_name not in ("int", "bool", "player", "suit", "card", "rank"):
                        self.use(q.type_name, self.word_span(q.span, q.type_name), {"enum"}, env)
                    local = self.bind(q.name, q.span, env, f"the parameter of action {a.name}")
                self.walk((a.guard, a.body), local)
            if p.trick is not None:
                for r in p.trick.card_rules:
                    self.walk(r.condition, self.bind(r.var, r.span, env, f"'{r.kind} {r.var} when'"))
        for t in rf.tables:
            for r in t.rows:
                self.walk((r.guard, r.body), env)
        for r in rf.row_overrides:
            if r.table is not None:
                self.use(r.table, r.table_span, {"table"}, env)
            self.walk((r.guard, r.body), env)
        if rf.match is not None:
            m = rf.match
            self.walk((m.first_dealer, m.next_dealer, m.ends_when), env)
            if m.start is not None:
                self.use(m.start, m.start_span, {"phase"}, env)
            if m.returns_var is not None:
                self.walk(m.returns, self.bind(m.returns_var, self._returns_binder(m), env, "returns(...)"))
        for p in rf.properties:
            self.walk(p.player, env)
            if p.kind in ("invariant", "deal_bound", "conserves"):    # 'p' is every player there (as lower binds it)
                self.locals += 1
                every = Symbol("p", "local", ("local", self.locals, "p"), p.span, p.span,
                               header=f"p: player, every player in property {p.name}")
                self.index.symbols.append(every)
                self.walk(p.expr, {**env, "p": every})
            else:
                self.walk(p.expr, env)
            for name, sp in zip(p.phases, p.phase_spans):
                self.use(name, sp, {"phase"}, env)
            if p.target is not None:
                self.use(p.target, p.target_span, {"table"} if p.kind == "complete" else {"phase"}, env)
        for r in rf.removes:
            kind = REMOVE_KINDS.get(r.what)
            if r.what == "row" and r.table is not None:
                self.use(r.table, r.table_span, {"table"}, env)
                self._member(r.name, r.name_span, self.rows, r.table)
            elif r.what == "action":
                self._member(r.name, r.name_span, self.actions, None)
            elif kind is not None:
                self.use(r.name, r.name_span, {kind}, env)

    def _returns_binder(self, m: S.MatchDecl) -> Span:
        """The part of the match block from its ``returns`` on (where the returns variable is bound)."""
        lines = self.lines.get(m.span.path) or []
        for n in range(m.span.line, min(m.span.end_line, len(lines)) + 1):
            mt = re.search(r"\breturns\s*\(", strip_comment(lines[n - 1]))
            if mt:
                return Span(m.span.path, n, mt.start() + 1, m.span.end_line, m.span.end_col)
        return m.span

    def _member(self, name: str, span: Span, table: dict, container: str | None) -> None:
        for s in table.get(name, ()):
            if container is None or s.container == container:
                self.index.occurrences.append(Occurrence(name, span, s.key))
                return
        self.index.occurrences.append(Occurrence(name, span, None))

    def run(self) -> SymbolIndex:
        for path in self.index.paths:
            self.index.outline[path] = self.declarations(path, self.files[path])
        for s in self.index.symbols:
            if s.key[0] == "global":
                self.globals.setdefault(s.name, []).append(s)
            elif s.kind == "action":
                self.actions.setdefault(s.name, []).append(s)
            elif s.kind == "row":
                self.rows.setdefault(s.name, []).append(s)
        for path in self.index.paths:
            self.uses(path, self.files[path])
        return self.index


def build_index(files: dict[str, S.RuleFile], sources: dict[str, str], path: str) -> SymbolIndex:
    """The symbol index of the rule file at ``path`` and the files it extends.

    ``files`` maps each path of the chain to its own AST (as :func:`~atout.compiler.load_rule_file` fills its
    ``files`` argument), ``sources`` each path to its text.  The chain is followed from ``path`` through the
    ``extends`` of each file present in ``files``; a file missing from it (unreadable, or not parsed) ends it.
    """
    paths = []
    p = path
    while p in files and p not in paths:
        paths.append(p)
        ext = files[p].extends
        if ext is None:
            break
        p = os.path.normpath(os.path.join(os.path.dirname(p), ext))
    return _Builder(files, sources, paths).run()

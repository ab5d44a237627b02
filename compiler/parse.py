"""Pass 1: rule-file text -> AST (:mod:`atout.compiler.syntax`), with spans.

``parse_text(text, path)`` returns a :class:`~atout.compiler.syntax.RuleFile`
or raises :class:`~atout.compiler.diagnostics.CompileError` with a syntax
diagnostic (E001 unexpected token or a reserved word used as a name, E002
unexpected character or unknown string escape, E003 unexpected end of file,
E004 nesting too deep) pointing at the offending token.
"""
from __future__ import annotations

import copy
import re

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from atout.grammar import parser

from . import syntax as S
from .diagnostics import CompileError, Diagnostic, did_you_mean
from .span import Span

# Friendly names for terminals in "expected ..." messages.
_TOKEN_NAMES = {
    "NAME": "a name", "INT": "a number", "STRING": "a string", "$END": "end of file",
    "ZONE_ATTR": "'private', 'public', 'hidden' or 'home'", "PER_WHAT": "'player' or 'side'",
    "REMOVABLE": "what to remove ('phase', 'action', 'row', ...)", "ASSIGN_OP": "'=', '+=' or '-='",
}
# Terminals that only continue an expression: listed as "an operator" rather than one by one.
_OPERATORS = {"ADD_OP", "MUL_OP", "COMP_OP", "MINUS", "AND", "OR", "OF", "IN", "LSQB"}
# Top-level declaration keywords: met where a '}' was expected, they mean a block is not closed.
_TOP_LEVEL = {"GAME", "EXTENDS", "PLAYERS", "DECK", "OPTION", "ENUM", "ZONE", "MATCH", "PHASE", "TABLE",
              "PROPERTY", "REMOVE", "OVERRIDE"}
# Characters other languages use, with what this one writes instead.
_CHAR_HINTS = {"&&": "write 'and' instead of '&&'", "&": "write 'and' instead of '&'",
               "||": "write 'or' instead of '||'", "|": "write 'or' instead of '|'",
               "!": "write 'not' for negation ('!=' is 'not equal')",
               "'": "strings use double quotes", ";": "a ';' may only end a statement inside a block; remove it"}


def _terminal_pattern(name: str) -> str | None:
    """The literal text of a keyword or punctuation terminal (None for a regex terminal)."""
    try:
        t = parser().get_terminal(name)
    except KeyError:
        return None
    return t.pattern.value if t.pattern.type == "str" else None


def keywords() -> list[str]:
    """The reserved words of the language (the grammar's keywords), sorted."""
    out = set()
    for t in parser().terminals:
        if t.pattern.type == "str" and t.pattern.value.isidentifier():
            out.add(t.pattern.value)
        elif t.name in ("ZONE_ATTR", "PER_WHAT", "REMOVABLE"):
            out.update(re.findall(r"[a-z_]+", t.pattern.value))
    return sorted(out)


def _describe_expected(expected) -> str:
    """``expected ...`` text: keywords and punctuation by name, operators as one item, joined with 'or'."""
    names = set()
    ops = False
    for t in expected:
        if t in _OPERATORS:
            ops = True
            continue
        lit = _terminal_pattern(t)
        names.add(_TOKEN_NAMES.get(t) or (f"'{lit}'" if lit is not None else t.lower()))
    items = sorted(names)
    if ops:
        items.append("an operator")
    if len(items) > 8:
        return ", ".join(items[:7]) + ", ..."
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


def _keywords_of(terminals) -> list[str]:
    """The keywords among the grammar's ``terminals`` (names): what a misspelt word may have meant."""
    return [w for w in (_terminal_pattern(t) for t in terminals) if w is not None and w.isidentifier()]


def _span_of(path: str, meta_or_token) -> Span:
    m = meta_or_token
    if isinstance(m, Token):
        return Span(path, m.line or 1, m.column or 1, m.end_line or m.line or 1, m.end_column or (m.column or 1) + 1)
    if getattr(m, "empty", True) and not hasattr(m, "line"):
        return Span(path, 1, 1, 1, 2)
    return Span(path, m.line, m.column, m.end_line, m.end_column)


def parse_text(text: str, path: str) -> S.RuleFile:
    """Parse rule-file ``text`` (read from ``path``, used in spans) into an AST.

    Raises CompileError with one syntax diagnostic (E001-E004) at the first error.
    """
    try:
        tree = parser().parse(text)
    except UnexpectedInput as exc:
        raise CompileError([_syntax_diagnostic(exc, text, path)], {path: text}) from None
    deep = _too_deep(tree)
    if deep is not None:
        at = _span_of(path, deep.meta)
        at = Span(path, at.line, at.col, at.line, at.col + 1)
        raise CompileError([Diagnostic("E004", f"nested too deeply: more than {MAX_DEPTH} levels of blocks and "
                                               "expressions", at,
                                       "each block inside another is a level, and so is each operator, call, "
                                       "index or quantifier inside another ('a + b + c' takes one per '+'); split "
                                       "the blocks or the expression: a variable, a 'def' or a table row can hold "
                                       "a part")],
                           {path: text})
    try:
        b = _Builder(path)
        b.text = text
        return b.rule_file(tree)
    except _BadString as exc:
        raise CompileError([exc.diagnostic], {path: text}) from None


#: How deeply blocks and expressions may nest, in the levels a reader counts: each block inside another (the body
#: of an 'if', 'elif', 'else', 'for', action, 'do', row ...) is one level, and so is each node of an expression
#: inside another (an operator, a call, an index, a quantifier, an 'if ... then ... else', a 'case').  The later
#: passes, the engine and the exporters recurse once per level (a few grammar nodes each), far below Python's
#: recursion limit; the exported Python module indents once per block, below Python's 100 levels of
#: indentation.  48 'if's one inside another are well within the limit.
MAX_DEPTH = 80

# The grammar's rules that make a level (the others -- if_stmt, elif_clause, arglist, case_arm ... -- only hold
# a block or an expression that does; a name or a number adds none).
_LEVEL_RULES = frozenset({
    "block", "cond", "or_", "and_", "not_", "compare_op", "in_range", "in_set", "card_lit", "binop", "neg",
    "index", "call", "q_any", "q_all", "q_sum", "q_count", "q_next", "case_expr"})


def _too_deep(tree: Tree) -> Tree | None:
    """The first subtree, in source order, nested more than MAX_DEPTH levels (as _LEVEL_RULES count them) down
    the tree, or None.  Walked without recursion, so that any depth is measured."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        depth += node.data in _LEVEL_RULES
        if depth > MAX_DEPTH:
            return node
        stack.extend((c, depth) for c in reversed(node.children) if isinstance(c, Tree))
    return None


#: the clauses a trick block (a match block) may give once, with the words that name them in a message; a second
#: one is E102 (the parser keeps the first: a later one no longer overrides it silently)
_ONCE_IN_TRICK = {"trick_count": "count", "trick_leader": "leader", "trick_trump": "trump",
                  "trick_trump_order": "trump order", "trick_skip": "skip", "trick_bowers": "bowers",
                  "trick_dummy": "dummy", "trick_then": "then", "trick_after": "after trick"}
_ONCE_IN_MATCH = {"first_dealer": "first dealer", "first_dealer_random": "first dealer random",
                  "next_dealer": "next dealer", "start_phase": "start",
                  "ends_when": "ends when", "returns": "returns"}


class _BadString(Exception):
    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic


def _line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of offset ``pos`` in ``text``."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


# -- missing '}': a brace-balance scan of the text, and a repair tried on the parser's state ----------------------
_BRACE_LEXEMES = re.compile(r'#[^\n]*|"(?:[^"\\\n]|\\.)*"|[{}]')
#: A '}' counts as the repair of a syntax error when, fed to the parser where it stopped, the parser then accepts
#: the token it rejected and this many more (or the rest of the file).
_REPAIR_MARGIN = 3
#: At most this many '}' are tried at one place.
_MAX_CLOSED = 8
#: Copies of the parser are kept for the tokens that start within this many characters of the rejected one.
_REPLAY_WINDOW = 512


def _brace_scan(text: str, upto: int) -> tuple[list[int], list[tuple[int, int]], dict[int, int | None]]:
    """The braces of ``text[:upto]``, comments and strings skipped: (the offsets of the '{' still open there,
    innermost last; the (open, close) offsets of the pairs matched, in the order they close; for each '{', the
    offset of the brace just before it, None for the first).  A '}' with nothing open is not matched."""
    stack: list[int] = []
    pairs: list[tuple[int, int]] = []
    before: dict[int, int | None] = {}
    last = None
    for m in _BRACE_LEXEMES.finditer(text, 0, upto):
        g = m.group()
        if g == "{":
            before[m.start()] = last
            stack.append(m.start())
        elif g == "}":
            if stack:
                pairs.append((stack.pop(), m.start()))
        else:
            continue
        last = m.start()
    return stack, pairs, before


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _indent(text: str, line_start: int) -> int:
    """The indentation (leading blanks) of the line starting at offset ``line_start``."""
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return end - line_start


def _header_indent(text: str, opener: int, previous: int | None) -> int:
    """The indentation of the construct a '{' at ``opener`` opens: the least indentation of the code lines from
    the line of the brace ``previous`` (excluded) to the opener's line (so that ``action a "x"`` continued by
    ``    when C {`` counts as indented like ``action``)."""
    first = _line_start(text, opener)
    best = _indent(text, first)
    stop = _line_start(text, previous) if previous is not None else 0
    ls = first
    while ls > stop:
        ls = _line_start(text, ls - 1)
        if previous is not None and ls == stop:
            break
        end = text.find("\n", ls)
        code = text[ls:end if end >= 0 else len(text)].strip()
        if code and not code.startswith("#"):
            best = min(best, _indent(text, ls))
    return best


def _misaligned(text: str, pairs, before, inside: int) -> tuple[int, int] | None:
    """The first matched pair (open, close) within the block opened at ``inside`` whose '}' starts its line less
    indented than the construct it closes: by the indentation, that '}' belongs to an enclosing block, and the
    block it closes is the one that lacks its own.  None when every '}' lines up."""
    for o, c in pairs:
        if o <= inside:
            continue
        ls = _line_start(text, c)
        if text[ls:c].strip() or _line_start(text, o) == ls:
            continue
        if c - ls < _header_indent(text, o, before[o]):
            return o, c
    return None


def _brace_place(text: str, off: int) -> str:
    """``line N`` for the brace at ``off`` (``line N, column C`` when its line has several)."""
    line, col = _line_col(text, off)
    end = text.find("\n", off)
    row = text[_line_start(text, off):end if end >= 0 else len(text)]
    return f"line {line}" if row.count("{") == 1 else f"line {line}, column {col}"


def _missing_brace_hint(text: str, at: int, count: int | None = 1, before: str | None = None) -> str | None:
    """The hint for ``count`` '}' (None: as many as are open) missing at offset ``at`` of ``text``: which '{' are
    still open there and, when the indentation shows it, which block lacks its '}'.  ``before`` names the token
    the '}' goes before when it is not the one the diagnostic points at.  None when no '{' is open at ``at``."""
    stack, pairs, prior = _brace_scan(text, at)
    if not stack:
        return None
    count = len(stack) if count is None else max(1, min(count, len(stack)))
    opened = stack[-count:]
    places = [_brace_place(text, o) for o in opened]
    ask = "is a '}' missing" if count == 1 else f"are {count} '}}' missing"
    if before is not None:
        ask += f" before {before}"
    if count == 1:
        hint = f"{ask}? the '{{' on {places[0]} is not closed"
    elif count > 3:
        hint = f"{ask}? the innermost '{{' still open is on {places[-1]}"
    elif all("," not in p for p in places):          # the '{' on lines 11 and 12
        lines = [p.split()[1] for p in places]
        hint = f"{ask}? the '{{' on lines {', '.join(lines[:-1])} and {lines[-1]} are not closed"
    else:
        hint = f"{ask}? the '{{' on {', '.join(places[:-1])} and {places[-1]} are not closed"
    bad = _misaligned(text, pairs, prior, opened[0])
    if bad is not None:
        hint += (f"; by the indentation, the block opened on line {_line_col(text, bad[0])[0]} lacks its '}}' "
                 f"(the '}}' on line {_line_col(text, bad[1])[0]} closes it instead)")
    return hint


def _copy_parser(ip):
    """A copy of a Lark interactive parser that can be fed without changing ``ip`` (tree values shared)."""
    try:
        return ip.copy(deepcopy_values=False)
    except TypeError:     # lark < 1.2: no such argument
        return ip.copy()


def _without_tree(ip) -> None:
    """Make the interactive parser ``ip`` (and its copies) check the syntax without building a tree, as Lark's
    own ``InteractiveParser.accepts`` does: the replays only ask whether tokens are accepted."""
    conf = getattr(ip.parser_state, "parse_conf", None)
    if conf is not None and hasattr(conf, "callbacks"):
        conf = copy.copy(conf)
        conf.callbacks = {}
        ip.parser_state.parse_conf = conf


def _replay(text: str, stop: int):
    """Run the parser over ``text`` again up to the token at offset ``stop`` (the one it rejected).

    Returns (near, before_stop): the tokens accepted before ``stop`` that start within _REPLAY_WINDOW characters
    of it (at least the last one), each with a copy of the interactive parser taken just before it was lexed,
    in text order; and a copy taken just before the token at ``stop`` was lexed (or None).  A copy's lexer
    resumes at its token, so that a word is lexed again for the parser's new state."""
    near: list[tuple[Token, object]] = []
    before_stop = None
    last = None
    try:
        ip = parser().parse_interactive(text)
        _without_tree(ip)
        tokens = ip.lexer_thread.lex(ip.parser_state)
        while True:
            close = last is None or last.end_pos is None or last.end_pos >= stop - _REPLAY_WINDOW
            snap = _copy_parser(ip) if close else None
            try:
                tok = next(tokens, None)
            except UnexpectedInput:     # the contextual lexer rejects the token itself: it starts here
                before_stop = snap
                break
            if tok is None or tok.start_pos is None or tok.start_pos >= stop:
                before_stop = snap
                break
            last = tok
            near.append((tok, snap))
            ip.feed_token(tok)
    except UnexpectedInput:
        pass
    near = [(t, s) for t, s in near if s is not None] or near[-1:]
    if near and near[-1][1] is None and near[-1][0].start_pos is not None and near[-1][0].start_pos < stop:
        near[-1] = (near[-1][0], _replay(text, near[-1][0].start_pos)[1])
    return near, before_stop


def _closes(snap, count: int, at: Token, need: int) -> bool | None:
    """Feed ``count`` '}' to a copy of the parser ``snap``, then the text from where ``snap`` stopped: True when
    the next ``need`` tokens (or all the rest of the file) are accepted, False when one is not, None when the
    parser does not accept ``count`` '}' there (nor, then, more)."""
    s = _copy_parser(snap)
    try:
        for _ in range(count):
            s.feed_token(Token.new_borrow_pos("RBRACE", "}", at))
    except UnexpectedInput:
        return None
    n = 0
    try:
        for _ in s.iter_parse():
            n += 1
            if n > need:
                return True
        s.feed_eof()
    except UnexpectedToken as exc:
        return exc.token.type == "$END"       # everything up to the end was accepted
    except UnexpectedInput:
        return False
    return True


def _brace_repair(text: str, tok: Token, near, before_tok) -> str | None:
    """The missing-'}' hint when closing blocks explains the rejected token ``tok``: when one or more '}' put
    just before ``tok``, just before the token accepted before it (a keyword the parser took for a name, as
    ``row`` in a statement block), or at the start of ``tok``'s line (``option x: ...`` read as two more ranks
    of an unclosed deck) let the parser go on through ``tok`` and the next tokens.  ``near``: the tokens before
    ``tok`` with the parser's state before each (see _replay).  None when no such '}' helps: the mistake is
    something else.  Only as many '}' as the whole file lacks are tried: in a file whose braces balance, no '}'
    is missing (a brace is misplaced, or the token is)."""
    candidates = [(before_tok, tok.start_pos, None, 0)]
    line_start = _line_start(text, tok.start_pos)
    for i in range(len(near) - 1, -1, -1):
        t, snap = near[i]
        if t.start_pos is None or (i < len(near) - 1 and t.start_pos < line_start):
            break
        first_on_line = t.start_pos >= line_start and not text[line_start:t.start_pos].strip()
        if i == len(near) - 1 or first_on_line:      # the token just before tok; the first token of tok's line
            shown = str(t)
            named = (f"'{shown}'" if t.type != "STRING" else shown) if len(shown) <= 30 else None
            candidates.append((snap, t.start_pos, named, len(near) - i))
    lacking = len(_brace_scan(text, len(text))[0])    # the '{' the whole file leaves open
    for snap, at, before, skipped in candidates:
        if snap is None or at is None:
            continue
        depth = min(len(_brace_scan(text, at)[0]), lacking)
        for k in range(1, min(depth, _MAX_CLOSED) + 1):
            ok = _closes(snap, k, tok, skipped + 1 + _REPAIR_MARGIN)
            if ok is None:
                break
            if ok:
                return _missing_brace_hint(text, at, k, before)
    return None


def _reserved_name_before(text: str, tok: Token | None) -> tuple[Token, int] | None:
    """``tok`` (the token accepted just before a syntax error) when it is a keyword whose word the file declares
    as a name: (token, line of the declaration); None otherwise."""
    if tok is None or tok.type == "NAME" or not str(tok).isidentifier():
        return None
    word = str(tok)
    # Only names that appear in expressions and statements: variables, options, zones, parameters, loop and
    # quantifier variables (a phase or table may be called 'deal': it is never written where 'deal' starts).
    decl = re.search(r"\b(?:var|option|zone)\s+" + word + r"\b|\bfor\s+" + word + r"\b|\(\s*" + word
                     + r"\s*(?::|in\b)", text)
    if decl is None:
        return None
    return tok, _line_col(text, decl.start())[0]


def _token_words(tok: Token) -> str:
    if tok.type == "NAME":
        return f"name '{tok}'"
    if tok.type == "INT":
        return f"number '{tok}'"
    if tok.type == "STRING":
        return f"string {tok}"
    if str(tok).isidentifier():
        return f"keyword '{tok}'"
    return f"'{tok}'"


def _syntax_diagnostic(exc: UnexpectedInput, text: str, path: str) -> Diagnostic:
    """The E001-E003 diagnostic of the parse error ``exc`` in ``text``: located at the token (or character) the
    parser rejected, with a hint.  When closing one or more blocks there would let the parse go on (checked on
    the parser's own state, not guessed from the token), the hint says that a '}' is missing and which '{' is
    still open (and, by the indentation, which block lacks its '}'); otherwise it names what was expected, a
    reserved word used as a name, or the character another language would use."""
    if isinstance(exc, UnexpectedToken) and exc.token.type == "$END" or isinstance(exc, UnexpectedEOF):
        lines = text.splitlines() or [""]
        line = len(lines)
        col = len(lines[-1]) + 1
        expected = getattr(exc, "expected", None) or getattr(exc, "accepts", None) or []
        hint = _missing_brace_hint(text, len(text), None)
        if hint is None:
            hint = f"expected {_describe_expected(expected)}" if expected else None
        return Diagnostic("E003", "unexpected end of file", Span(path, line, col, line, col + 1), hint)
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        expected = exc.accepts or exc.expected
        start = tok.start_pos if tok.start_pos is not None else len(text)
        near, before_tok = _replay(text, start)
        prev = near[-1][0] if near else None
        try:
            brace = _brace_repair(text, tok, near, before_tok) if tok.start_pos is not None else None
        except Exception:  # noqa: BLE001 - the repair only refines the hint; if it fails, the plain one stands
            brace = None
        if brace is not None:
            return Diagnostic("E001", f"unexpected {_token_words(tok)}", _span_of(path, tok), brace)
        reserved = _reserved_name_before(text, prev)
        if reserved is not None:
            kw, decl_line = reserved
            word = str(kw)
            return Diagnostic("E001", f"'{word}' is a reserved word and cannot name a variable", _span_of(path, kw),
                              f"rename the variable '{word}' declared on line {decl_line} "
                              "(docs/language.md lists the reserved words)")
        hint = f"expected {_describe_expected(expected)}"
        if tok.type in _TOP_LEVEL and "RBRACE" in expected:
            if _brace_scan(text, len(text))[0]:
                hint = _missing_brace_hint(text, start) or hint
            else:
                opened = _brace_scan(text, start)[0]
                if opened:
                    hint = (f"'{tok}' begins a declaration, which cannot be inside the block opened on "
                            f"{_brace_place(text, opened[-1])}: move it out of the block (the braces of the "
                            f"file balance, so none is lacking)")
        elif str(tok) == ";":
            hint = _CHAR_HINTS[";"]
        elif str(tok) == "=" and "COMP_OP" in expected:
            hint = "did you mean '=='? ('=' assigns a variable; '==' compares two values)"
        elif tok.type != "NAME" and str(tok).isidentifier() and "NAME" in expected:
            hint = f"'{tok}' is a reserved word of the language and cannot be used as a name; choose another name"
        elif tok.type == "NAME":      # a misspelt keyword: 'phse', 'folow', 'acton'
            close = did_you_mean(str(tok), _keywords_of(expected))
            if close is not None:
                hint = f"{close} ({hint})"
        if not hint.startswith("did you mean"):
            # a misspelt keyword just before, read as a name ('colours red {': 'colours' a rank of the deck)
            for prev_tok, snap in reversed(near[-3:]):
                if prev_tok.type != "NAME" or snap is None:
                    continue
                try:
                    close = did_you_mean(str(prev_tok), _keywords_of(snap.accepts()))
                except Exception:  # noqa: BLE001 - only a refinement of the hint
                    close = None
                if close is not None:
                    hint = (f"'{prev_tok}' (line {prev_tok.line}) was read as a name: {close} ({hint})")
                    break
        return Diagnostic("E001", f"unexpected {_token_words(tok)}", _span_of(path, tok), hint)
    assert isinstance(exc, UnexpectedCharacters)
    pos = exc.pos_in_stream
    ch = text[pos] if pos < len(text) else "?"
    bad = text[pos:pos + 2] if text[pos:pos + 2] in ("&&", "||") else ch
    hint = _CHAR_HINTS.get(bad)
    if hint is None and exc.allowed:
        hint = f"expected {_describe_expected(exc.allowed)}"
    shown = f"'{bad}'" if bad != "'" else '"\'"'
    if not bad.isprintable():
        shown = repr(bad)
    return Diagnostic("E002", f"unexpected character {shown}",
                      Span(path, exc.line, exc.column, exc.line, exc.column + len(bad)), hint)


class _Builder:
    """Walks the Lark tree and builds AST nodes (an explicit visitor keeps spans exact)."""

    def __init__(self, path: str):
        self.path = path
        self.text = ""

    def sp(self, node) -> Span:
        if isinstance(node, Token):
            return _span_of(self.path, node)
        return _span_of(self.path, node.meta)

    # -- top level -----------------------------------------------------------
    def rule_file(self, tree: Tree) -> S.RuleFile:
        game = title = extends = None
        players = None
        sides: tuple = ()
        deck = None
        options, enums, zones, vars_, phases, tables, props, removes, misplaced, defs, row_overrides = (
            [] for _ in range(11))
        match = None
        extends_span = players_span = game_span = self.sp(tree) if tree.children else Span(self.path, 1, 1, 1, 2)
        for item in tree.children:
            k = item.data
            if k == "game_decl":
                game = str(item.children[0])
                game_span = self.sp(item.children[0])
                title = _unquote(item.children[1], self.path) if item.children[1] is not None else None
            elif k == "extends_decl":
                if extends is not None:
                    raise CompileError([Diagnostic(
                        "E118", "a second 'extends': a variant extends exactly one base game",
                        self.sp(item.children[0]), f"it already extends \"{extends}\" (line {extends_span.line}); "
                        "to combine two games, extend one and copy what you need of the other")],
                        {self.path: self.text})
                extends = _unquote(item.children[0], self.path)
                extends_span = self.sp(item.children[0])
            elif k == "players_decl":
                players = int(item.children[0])
                players_span = self.sp(item)
                if item.children[1] is not None:
                    sides = tuple(tuple(int(t) for t in g.children) for g in item.children[1].children)
            elif k == "deck_decl":
                deck = self.deck(item)
            elif k == "option_decl":
                options.append(self.option(item))
            elif k == "enum_decl":
                name = item.children[0]
                vals = [v.children for v in item.children[1:]]
                labels = tuple(_unquote(lab, self.path) if lab is not None else None for _, lab in vals)
                enums.append(S.EnumDecl(str(name), tuple(str(v) for v, _ in vals), self.sp(item), self.sp(name),
                                        labels if any(x is not None for x in labels) else ()))
            elif k == "zone_decl":
                zones.append(self.zone(item))
            elif k in ("match_var", "deal_var"):
                vars_.append(self.var(item, "match" if k == "match_var" else "deal"))
            elif k == "phase_decl":
                phases.append(self.phase(item))
            elif k == "table_decl":
                tables.append(self.table(item))
            elif k == "match_decl":
                match = self.match(item)
            elif k == "property_decl":
                props.append(self.prop(item))
            elif k == "def_decl":
                defs.append(self.def_decl(item))
            elif k == "remove_decl":
                what, first, second = item.children
                if second is None:
                    removes.append(S.RemoveDecl(str(what), str(first), self.sp(item), name_span=self.sp(first)))
                else:
                    removes.append(S.RemoveDecl(str(what), str(second), self.sp(item), table=str(first),
                                                table_span=self.sp(first), name_span=self.sp(second)))
            elif k == "row_override_decl":
                _, tname, rname, guard, body = item.children
                row_overrides.append(S.RowDecl(str(rname), self.expr(guard), self.block(body), self.sp(item),
                                               True, self.sp(rname), str(tname), self.sp(tname)))
            elif k in ("action_decl", "actor_decl", "trick_decl"):
                misplaced.append(S.Misplaced(k.split("_")[0], self.misplaced_span(item)))
            else:  # pragma: no cover - grammar and builder out of sync
                raise AssertionError(k)
        return S.RuleFile(self.path, game, title, extends, players, sides, deck, tuple(options), tuple(enums),
                          tuple(zones), tuple(vars_), tuple(phases), tuple(tables), match, tuple(props),
                          tuple(removes), tuple(misplaced), self.sp(tree) if tree.children else extends_span,
                          extends_span, players_span, game_span, tuple(defs), tuple(row_overrides))

    def def_decl(self, item: Tree) -> S.DefDecl:
        ov, name, *rest = item.children
        *params, result, body = rest
        ps = tuple((str(p.children[0]), self.type_ref(p.children[1])) for p in params if p is not None)
        return S.DefDecl(str(name), ps, self.type_ref(result), self.expr(body), ov is not None, self.sp(item),
                         self.sp(name))

    def misplaced_span(self, item: Tree) -> Span:
        """The head of a misplaced declaration: ``action NAME``, ``actor EXPR`` or ``trick`` (one line)."""
        sp = self.sp(item)
        if item.data == "action_decl":
            end = self.sp(item.children[1])
            return Span(self.path, sp.line, sp.col, end.end_line, end.end_col)
        if item.data == "trick_decl" or sp.end_line != sp.line:
            return Span(self.path, sp.line, sp.col, sp.line, sp.col + len(item.data.split("_")[0]))
        return sp

    def deck(self, item: Tree) -> S.DeckDecl:
        suits: tuple = ()
        ranks: tuple = ()
        colors = []
        color_spans = []
        rank_spans: tuple = ()
        suit_spans: tuple = ()
        for part in item.children:
            if part.data == "suits_decl":
                suits = tuple(str(t) for t in part.children)
                suit_spans = tuple(self.sp(t) for t in part.children)
            elif part.data == "ranks_decl":
                ranks = tuple(str(r.children[0]) for r in part.children)
                rank_spans = tuple(self.sp(r.children[0]) for r in part.children)
            elif part.data == "colors_decl":
                for g in part.children:
                    colors.append((str(g.children[0]), tuple(str(t) for t in g.children[1:])))
                    color_spans.append(tuple(self.sp(t) for t in g.children[1:]))
        return S.DeckDecl(suits, ranks, tuple(colors), self.sp(item), rank_spans, suit_spans, tuple(color_spans))

    def type_ref(self, node: Tree) -> S.TypeRef:
        if node.data == "int_type":
            lo = hi = None
            rsp = self.sp(node)
            if node.children and node.children[0] is not None:
                lo, hi = (self.bound(c) for c in node.children)
                a, b = self.sp(node.children[0]), self.sp(node.children[1])
                rsp = Span(self.path, a.line, a.col, b.end_line, b.end_col)
            return S.TypeRef("int", lo, hi, self.sp(node), rsp)
        if node.data == "bool_type":
            return S.TypeRef("bool", span=self.sp(node))
        return S.TypeRef(str(node.children[0]), span=self.sp(node))

    def bound(self, node: Tree):
        """A bound of ``int in LO..HI``: an int, or an expression of options (resolved and folded later)."""
        if node.data == "bound_name":
            return S.Name(str(node.children[0]), self.sp(node))
        if node.data == "bound_expr":
            return self.expr(node.children[0])
        return self.signed(node)

    @staticmethod
    def signed(node: Tree) -> int:
        v = int(node.children[0])
        return -v if node.data == "neg_int" else v

    def option(self, item: Tree) -> S.OptionDecl:
        ov, name, typ, value = item.children
        return S.OptionDecl(str(name), self.type_ref(typ), self.expr(value), ov is not None, self.sp(item),
                            self.sp(name))

    def zone(self, item: Tree) -> S.ZoneDecl:
        name = item.children[0]
        per = None
        vis = None
        home = False
        attrs = []
        for a in item.children[1:]:
            tok = a.children[0]
            attrs.append((str(tok), self.sp(tok)))
            if a.data == "zone_per":
                per = str(tok)
            elif str(tok) == "home":
                home = True
            else:
                vis = str(tok) if vis is None else vis + "," + str(tok)
        return S.ZoneDecl(str(name), per, vis or "", home, self.sp(item), self.sp(name), tuple(attrs))

    def var(self, item: Tree, scope: str) -> S.VarDecl:
        name, typ, per, init, vis = item.children
        return S.VarDecl(str(name), scope, self.type_ref(typ), str(per) if per is not None else None,
                         self.expr(init) if init is not None else None, self.sp(item), self.sp(name),
                         str(vis) if vis is not None else None, self.sp(vis) if vis is not None else self.sp(name))

    def phase(self, item: Tree) -> S.PhaseDecl:
        ov, name, *parts = item.children
        actor = None
        actions = []
        do = None
        trick = None
        extra_actors, extra_tricks, extra_dos = [], [], []
        for p in parts:
            if p.data == "actor_decl":
                if actor is not None:
                    extra_actors.append(self.sp(p))
                else:
                    actor = self.expr(p.children[0])
            elif p.data == "action_decl":
                actions.append(self.action(p))
            elif p.data == "do_decl":
                if do is not None:
                    extra_dos.append(self.sp(p))
                else:
                    do = self.block(p.children[0])
            elif p.data == "trick_decl":
                if trick is not None:
                    extra_tricks.append(self.sp(p))
                else:
                    trick = self.trick(p)
        return S.PhaseDecl(str(name), actor, tuple(actions), do, trick, ov is not None, self.sp(item),
                           self.sp(name), tuple(extra_actors), tuple(extra_tricks), tuple(extra_dos))

    def action(self, item: Tree) -> S.ActionDecl:
        ov, name, param, label, vis, guard, body = item.children
        return S.ActionDecl(
            str(name), _unquote(label, self.path) if label is not None else None,
            self.param(param) if param is not None else None,
            self.expr(guard.children[0]) if guard is not None else None,
            self.block(body), ov is not None, self.sp(item), self.sp(name),
            public=vis is not None and str(vis) == "public", visibility=str(vis) if vis is not None else None,
            visibility_span=self.sp(vis) if vis is not None else self.sp(name))

    def param(self, node: Tree) -> S.Param:
        name, spec = node.children
        sp = self.sp(node)
        if spec.data == "card_param":
            return S.Param("card", str(name), zone=self.expr(spec.children[0]), span=sp)
        if spec.data == "choose_param":
            lo, hi, src, dst = (self.expr(c) for c in spec.children)
            return S.Param("choose", str(name), zone=src, low=lo, high=hi, dest=dst, span=sp)
        if spec.data == "range_param":
            lo, hi = (self.expr(c) for c in spec.children)
            return S.Param("range", str(name), low=lo, high=hi, span=sp)
        return S.Param("domain", str(name), type_name=str(spec.children[0]), span=sp)

    def _first_of_each(self, clauses, once: dict) -> tuple[list, tuple]:
        """``clauses`` (tree nodes) without the second and later of each kind in ``once`` (``{kind: its words}``),
        and those left out as ``((words, span), ...)``, in order."""
        seen, kept, repeated = set(), [], []
        for it in clauses:
            if it.data in once:
                if it.data in seen:
                    repeated.append((once[it.data], self.sp(it)))
                    continue
                seen.add(it.data)
            kept.append(it)
        return kept, tuple(repeated)

    def trick(self, item: Tree) -> S.TrickDecl:
        count = leader = trump = skip = then = after = bowers = None
        more_skips: tuple = ()
        follow = []
        card_rules = []
        dummy = dummy_by = None
        trump_order: tuple = ()
        clauses, repeated = self._first_of_each(item.children, _ONCE_IN_TRICK)
        for it in clauses:
            k = it.data
            if k == "trick_count":
                count = self.expr(it.children[0])
            elif k == "trick_leader":
                leader = self.expr(it.children[0])
            elif k == "trick_trump":
                trump = self.expr(it.children[0])
            elif k == "trick_skip":
                skip = self.expr(it.children[0])
                more_skips = tuple(self.expr(c) for c in it.children[1:])
            elif k == "trick_bowers":
                bowers = self.expr(it.children[0])
            elif k == "trick_then":
                then = self.block(it.children[0])
            elif k == "trick_after":
                after = self.block(it.children[0])
            elif k == "trick_trump_order":
                trump_order = tuple(self.expr(c) for c in it.children)
            elif k == "trick_dummy":
                dummy = self.expr(it.children[0])
                dummy_by = self.expr(it.children[1]) if it.children[1] is not None else None
            elif k in ("trick_lead_rule", "trick_card_rule"):
                card_rules.append(S.CardRule(k.split("_")[1], str(it.children[0]), self.expr(it.children[1]),
                                             self.sp(it)))
            elif k == "trick_follow":
                for r in it.children:
                    cond = r.children[0] if r.children else None
                    follow.append(S.FollowRule(r.data.split("_")[1], self.expr(cond) if cond is not None else None,
                                               self.sp(r)))
        return S.TrickDecl(count, leader, trump, tuple(follow), skip, then, self.sp(item), after=after,
                           more_skips=more_skips, bowers=bowers, card_rules=tuple(card_rules), dummy=dummy,
                           dummy_by=dummy_by, trump_order=trump_order, repeated=repeated)

    def table(self, item: Tree) -> S.TableDecl:
        ov, name, *rows = item.children
        out = []
        for r in rows:
            rov, rname, guard, body = r.children
            out.append(S.RowDecl(str(rname) if rname is not None else None, self.expr(guard), self.block(body),
                                 self.sp(r), rov is not None,
                                 self.sp(rname) if rname is not None else self.row_head(r)))
        return S.TableDecl(str(name), tuple(out), ov is not None, self.sp(item), self.sp(name))

    def row_head(self, r: Tree) -> Span:
        """The span of the word ``row`` that starts the unnamed row ``r`` (after its ``override``, if any)."""
        sp = self.sp(r)
        ov = r.children[0]
        if ov is None or ov.end_pos is None:
            return Span(self.path, sp.line, sp.col, sp.line, sp.col + 3)
        m = next((m for m in re.finditer(r"#[^\n]*|row\b", self.text[ov.end_pos:]) if m.group() == "row"), None)
        if m is None:  # pragma: no cover - the grammar puts 'row' there
            return sp
        line, col = _line_col(self.text, ov.end_pos + m.start())
        return Span(self.path, line, col, line, col + 3)

    def match(self, item: Tree) -> S.MatchDecl:
        fd = nd = start = ends = rv = rexpr = None
        fd_random = False
        start_span = self.sp(item)
        clauses, repeated = self._first_of_each(item.children, _ONCE_IN_MATCH)
        for it in clauses:
            k = it.data
            if k == "first_dealer":
                fd = self.expr(it.children[0])
            elif k == "first_dealer_random":
                fd_random = True
            elif k == "next_dealer":
                nd = self.expr(it.children[0])
            elif k == "start_phase":
                start = str(it.children[0])
                start_span = self.sp(it.children[0])
            elif k == "ends_when":
                ends = self.expr(it.children[0])
            elif k == "returns":
                rv = str(it.children[0])
                rexpr = self.expr(it.children[1])
        return S.MatchDecl(fd, nd, start, ends, rv, rexpr, self.sp(item), start_span, fd_random,
                           repeated=repeated)

    def prop(self, item: Tree) -> S.PropertyDecl:
        ov, name, body = item.children
        k = body.data[len("prop_"):]
        sp = self.sp(item)
        kw = dict(override=ov is not None, span=sp, name_span=self.sp(name))

        def phases(node):
            return tuple(str(t) for t in node.children), tuple(self.sp(t) for t in node.children)

        if k in ("invariant", "deal_bound"):
            return S.PropertyDecl(str(name), k, expr=self.expr(body.children[0]), **kw)
        if k == "terminates":
            ph, sps = phases(body.children[0])
            return S.PropertyDecl(str(name), k, phases=ph, phase_spans=sps, **kw)
        if k == "match_terminates":
            return S.PropertyDecl(str(name), k, **kw)
        if k == "can_end":
            ph, sps = phases(body.children[0])
            tgt = body.children[1]
            return S.PropertyDecl(str(name), k, phases=ph, phase_spans=sps, target=str(tgt),
                                  target_span=self.sp(tgt), **kw)
        if k == "can_force":
            ph, sps = phases(body.children[1])
            tgt = body.children[2]
            return S.PropertyDecl(str(name), k, player=self.expr(body.children[0]), phases=ph, phase_spans=sps,
                                  target=str(tgt), target_span=self.sp(tgt), **kw)
        if k == "complete":
            tgt = body.children[0]
            return S.PropertyDecl(str(name), k, target=str(tgt), target_span=self.sp(tgt), **kw)
        if k == "reachable":
            return S.PropertyDecl(str(name), k, **kw)
        if k == "conserves":
            ph, sps = phases(body.children[0])
            tgt, cond = body.children[1], body.children[2]
            return S.PropertyDecl(str(name), k, phases=ph, phase_spans=sps,
                                  target=str(tgt) if tgt is not None else None,
                                  target_span=self.sp(tgt) if tgt is not None else sp,
                                  expr=self.expr(cond) if cond is not None else None, **kw)
        raise AssertionError(k)  # pragma: no cover

    # -- statements ----------------------------------------------------------
    def block(self, node: Tree) -> tuple[S.Stmt, ...]:
        return tuple(self.stmt(c) for c in node.children)

    def stmt(self, node: Tree) -> S.Stmt:
        k = node.data
        sp = self.sp(node)
        c = node.children
        if k == "assign_stmt":
            lv, op, value = c
            idx = lv.children[1]
            return S.Assign(str(lv.children[0]), self.expr(idx) if idx is not None else None, str(op),
                            self.expr(value), sp, self.sp(lv))
        if k == "random_stmt":
            lv, op, dom = c
            idx = lv.children[1]
            items: tuple = ()
            lo = hi = None
            if dom.data == "random_set":
                items = tuple((self.expr(it.children[0]), int(it.children[1]) if it.children[1] is not None
                               else None) for it in dom.children)
            else:
                lo, hi = self.expr(dom.children[0]), self.expr(dom.children[1])
            return S.RandomAssign(str(lv.children[0]), self.expr(idx) if idx is not None else None, str(op),
                                  items, lo, hi, sp, self.sp(lv))
        if k == "move_stmt":
            amount, src, dst = c
            cnt = None if amount.data == "amount_all" else self.expr(amount.children[0])
            return S.Move(cnt, self.expr(src), self.expr(dst), sp)
        if k == "deal_stmt":
            *packets, src, dest, start = c
            return S.Deal(tuple(self.expr(p) for p in packets), self.expr(src), str(dest), self.expr(start), sp,
                          self.sp(dest))
        if k == "shuffle_stmt":
            return S.Shuffle(self.expr(c[0]), sp)
        if k == "gather_stmt":
            return S.Gather(self.expr(c[0]), sp)
        if k == "reveal_stmt":
            return S.Reveal(self.expr(c[0]), sp)
        if k == "if_stmt":
            test, body, *rest = c
            branches = [(self.expr(test), self.block(body))]
            orelse: tuple = ()
            for r in rest:
                if r is None:
                    continue
                if r.data == "elif_clause":
                    branches.append((self.expr(r.children[0]), self.block(r.children[1])))
                else:
                    orelse = self.block(r.children[0])
            return S.If(tuple(branches), orelse, sp)
        if k == "for_stmt":
            dom = c[1]
            over = dom.data[4:]
            lo = hi = None
            if over == "range":
                lo, hi = self.expr(dom.children[0]), self.expr(dom.children[1])
            elif over == "cards":
                lo = self.expr(dom.children[0])
            return S.For(str(c[0]), self.block(c[2]), sp, over, lo, hi)
        if k == "goto_stmt":
            return S.Goto(str(c[0]), sp, self.sp(c[0]))
        if k == "end_deal_stmt":
            return S.EndDeal(sp)
        if k == "score_stmt":
            return S.Score(str(c[0]), sp, self.sp(c[0]))
        if k in ("action_decl", "actor_decl"):
            return S.Misplaced(k.split("_")[0], self.misplaced_span(node))
        raise AssertionError(k)  # pragma: no cover

    # -- expressions ---------------------------------------------------------
    def expr(self, node) -> S.Expr:
        if isinstance(node, Token):  # pragma: no cover - all tokens are wrapped by rules
            raise AssertionError(node)
        k = node.data
        c = node.children
        sp = self.sp(node)
        if k == "int_lit":
            return S.IntLit(int(c[0]), sp)
        if k == "true_lit":
            return S.BoolLit(True, sp)
        if k == "false_lit":
            return S.BoolLit(False, sp)
        if k == "none_lit":
            return S.NoneLit(sp)
        if k == "name":
            return S.Name(str(c[0]), sp)
        if k == "call":
            args = tuple(self.expr(a) for a in c[1].children) if c[1] is not None else ()
            return S.Call(str(c[0]), args, sp, self.sp(c[0]))
        if k == "index":
            return S.Index(self.expr(c[0]), self.expr(c[1]), sp)
        if k in ("or_", "and_"):
            return S.BinOp(k[:-1], self.expr(c[0]), self.expr(c[1]), sp)
        if k == "not_":
            return S.Not(self.expr(c[0]), sp)
        if k == "neg":
            return S.Neg(self.expr(c[0]), sp)
        if k == "cond":
            return S.Cond(self.expr(c[0]), self.expr(c[1]), self.expr(c[2]), sp)
        if k in ("compare_op", "binop"):
            return S.BinOp(str(c[1]), self.expr(c[0]), self.expr(c[2]), sp)
        if k == "in_range":
            return S.InRange(self.expr(c[0]), self.expr(c[1]), self.expr(c[2]), sp)
        if k == "in_set":
            return S.InSet(self.expr(c[0]), tuple(self.expr(x) for x in c[1:]), sp)
        if k == "card_lit":
            return S.CardLit(self.expr(c[0]), self.expr(c[1]), sp)
        if k in ("q_any", "q_all", "q_sum", "q_count"):
            return S.Quant(k[2:], str(c[0]), self.expr(c[1]), self.expr(c[2]), sp)
        if k == "case_expr":
            *arms, orelse = c
            return S.Case(self.expr(arms[0]), tuple(
                (tuple(self.expr(x) for x in a.children[0].children), self.expr(a.children[-1])) for a in arms[1:]),
                self.expr(orelse) if orelse is not None else None, sp)
        if k == "q_next":
            return S.NextPlayer(str(c[0]), self.expr(c[1]), self.expr(c[2]), sp)
        raise AssertionError(k)  # pragma: no cover


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


def _unquote(tok: Token, path: str) -> str:
    """The text of a STRING token; escapes are \\" \\\\ \\n \\t (others raise _BadString, E002)."""
    s = str(tok)[1:-1]
    if "\\" not in s:
        return s
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            nxt = s[i + 1]  # the STRING terminal never ends on a lone backslash
            if nxt not in _ESCAPES:
                col = (tok.column or 1) + 1 + i
                raise _BadString(Diagnostic("E002", f"unknown escape '\\{nxt}' in a string",
                                            Span(path, tok.line or 1, col, tok.line or 1, col + 2),
                                            'strings know the escapes \\" \\\\ \\n and \\t'))
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)

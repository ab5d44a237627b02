"""The Atout compiler: rule file -> IR, one module per pass.

1. :mod:`.parse`     text -> AST (Lark LALR, spans on every node)
2. :mod:`.variants`  ``extends``: lay a variant over its base
3. :mod:`.resolve`   names and types (used by the next pass, expression by expression)
4. :mod:`.lower`     AST -> IR (:mod:`.ir`), declaration checks, action numbering

``compile_file(path)`` runs the pipeline and returns an :class:`~.ir.Game`, or
raises :class:`~.diagnostics.CompileError` carrying every diagnostic found.
"""
from __future__ import annotations

import os

from . import ir
from .diagnostics import CompileError, Diagnostic, Reporter
from .parse import parse_text
from .span import Span
from .variants import merge
from .lower import lower

__all__ = ["compile_file", "compile_text", "load_rule_file", "CompileError", "ir"]

MAX_EXTENDS_DEPTH = 8


def load_rule_file(path: str, sources: dict[str, str], depth: int = 0, rep: Reporter | None = None,
                   from_span: Span | None = None):
    """Read and parse ``path``, resolving ``extends`` relative to its folder; returns the merged AST."""
    rep = rep if rep is not None else Reporter()
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        span = from_span or Span(path, 1, 1, 1, 2)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CompileError([Diagnostic("E120", f"cannot read rule file '{path}': {reason}", span,
                                       "check the path; rule files end in .atout")], sources) from None
    sources[path] = text
    rf = parse_text(text, path)
    if rf.extends is None:
        return rf
    if depth >= MAX_EXTENDS_DEPTH:
        raise CompileError([Diagnostic("E118", "'extends' chain too deep (a cycle?)", rf.extends_span)], sources)
    base_path = os.path.normpath(os.path.join(os.path.dirname(path), rf.extends))
    base = load_rule_file(base_path, sources, depth + 1, rep, rf.extends_span)
    merged = merge(base, rf, rep)
    if rep:
        raise CompileError(rep.diagnostics, sources)
    return merged


def compile_file(path: str) -> ir.Game:
    """Compile the rule file at ``path`` (and the files it extends) to IR.

    Raises CompileError with every diagnostic when the file has mistakes.
    """
    sources: dict[str, str] = {}
    rf = load_rule_file(path, sources)
    rep = Reporter()
    game = lower(rf, rep)
    if rep or game is None:
        raise CompileError(rep.diagnostics, sources)
    return game


def compile_text(text: str, path: str = "<string>") -> ir.Game:
    """Compile rule-file text (no ``extends``) to IR; raises CompileError."""
    sources = {path: text}
    rf = parse_text(text, path)
    if rf.extends is not None:
        raise CompileError([Diagnostic("E118", "'extends' needs a file on disk; use compile_file",
                                       rf.extends_span)], sources)
    rep = Reporter()
    game = lower(rf, rep)
    if rep or game is None:
        raise CompileError(rep.diagnostics, sources)
    return game

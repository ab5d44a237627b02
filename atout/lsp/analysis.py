"""One compilation of an editor's buffer: the compiler's diagnostics and the symbol index, without pygls.

:func:`analyze` runs the compiler's own passes (:func:`atout.compiler.load_rule_file`, which parses and lays a
variant over its bases, then :func:`atout.compiler.lower.lower`, then the W001 lint of
:mod:`atout.compiler.visibility`) on the text the editor holds, exactly as ``atout check`` does on the file
saved on disk: the same diagnostics (codes, messages, hints, spans).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

from atout import compiler as C
from atout.compiler.diagnostics import CompileError, Diagnostic, Reporter
from atout.compiler.symbols import SymbolIndex, build_index


@dataclass
class Analysis:
    """What one compilation of the rule file at ``path`` found.

    ``diagnostics``: the compiler's errors, or its warnings (W001) when there is no error, in any file of the
    ``extends`` chain (a diagnostic's ``span.path`` says which); ``index``: the symbol index, None when the file
    itself does not parse; ``sources``: path -> text of each file read; ``game``: the IR when the file compiles."""
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    index: SymbolIndex | None = None
    sources: dict[str, str] = field(default_factory=dict)
    game: object | None = None
    own_extends_span: object | None = None   # the span of this file's `extends "..."` path, if it has one

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def analyze(path: str, read: Callable[[str], str] | None = None) -> Analysis:
    """Compile the rule file at ``path`` (an absolute, normalized path), reading every file of its ``extends``
    chain with ``read`` (path -> text; default: from disk, :func:`atout.compiler.read_source`), so that unsaved
    buffers are what is compiled.  Never raises for a mistake in the rule files: they are the diagnostics."""
    path = os.path.normpath(path)
    sources: dict[str, str] = {}
    files: dict = {}
    rep = Reporter()
    out = Analysis(path, sources=sources)
    rf = None
    try:
        rf = C.load_rule_file(path, sources, rep=rep, read=read, files=files)
    except CompileError as exc:
        out.diagnostics = list(exc.diagnostics)
    _share_sources(sources)
    if rf is not None:
        from atout.compiler.lower import lower
        game = lower(rf, rep)
        if rep or game is None:
            out.diagnostics = sorted(rep.diagnostics, key=lambda d: (d.span.path, d.span.line, d.span.col, d.code))
        else:
            from atout.compiler import warnings
            out.game = game
            out.diagnostics = list(warnings(game))
    if path in files:
        own = files[path]
        if own.extends is not None:
            out.own_extends_span = own.extends_span
        out.index = build_index(files, sources, path)
    return out


def _share_sources(sources: dict[str, str]) -> None:
    """Give the compiler's source-line cache (used to quote declarations in messages, W001) the texts just
    compiled, so that its messages quote the buffer rather than the file last saved."""
    cache = getattr(C, "_SOURCE_LINES", None)
    if isinstance(cache, dict):
        for p, text in sources.items():
            cache[p] = text.split("\n")

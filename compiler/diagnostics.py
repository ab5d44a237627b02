"""Diagnostics: user mistakes in rule files, reported as ``path:line:col: error[CODE]: message``.

A :class:`Diagnostic` is rendered like a compiler error: the location, the
message, the source line, carets under the span, and an optional hint::

    rules/bad.atout:12:9: error[E103]: unknown name 'discard'
       12 |   move all from discard to stock
          |                 ^^^^^^^
    hint: did you mean 'discards'?

All diagnostics of a file are collected and raised together as one
:class:`CompileError`; the CLI prints them and exits with status 2.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Iterable

from .span import Span

#: Every error code the compiler can report, with a one-line description.
#: docs/language.md lists them too; tests/diagnostics has a fixture for each.
CODES: dict[str, str] = {
    "E001": "syntax error: unexpected token",
    "E002": "syntax error: unexpected character",
    "E003": "syntax error: unexpected end of file",
    "E004": "syntax error: nesting too deep",
    "E101": "missing declaration (game, players, deck, match)",
    "E102": "duplicate name",
    "E103": "unknown name",
    "E104": "type mismatch",
    "E105": "unknown rank",
    "E106": "unknown suit",
    "E107": "wrong number of arguments",
    "E108": "unknown function",
    "E109": "unknown phase",
    "E110": "declaration not allowed here",
    "E111": "assignment to a constant",
    "E112": "indexing error (missing, extra or wrong index)",
    "E113": "control can fall off the end of a block (no goto or end deal)",
    "E114": "bad range (low above high)",
    "E115": "bad phase (no actor, no action, or conflicting parts)",
    "E116": "bad zone declaration",
    "E117": "unknown scoring table",
    "E118": "bad variant (extends, override, remove)",
    "E119": "bad property",
    "E120": "cannot read rule file",
    "E121": "bad definition (a 'def' that calls itself)",
    "E122": "bad variable declaration (visibility)",
    "W001": "a public variable computed from cards not every player sees (a leak into observations)",
    "W002": "a scoring table that no `score` statement applies (often a misspelt table name in a variant)",
    "W003": "a variable, option, zone, enum value or parameter named by a reserved word (its uses may fail)",
}


#: Source lines longer than this are shown as a window around the span.
MAX_SHOWN = 120


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    span: Span
    hint: str | None = None
    severity: str = "error"

    def render(self, source: str | list[str] | None = None) -> str:
        """Return the diagnostic as text: header, source line with carets, hint.  ``source`` is the file's
        text, or its lines already split (when many diagnostics of one file are rendered)."""
        s = self.span
        head = f"{s.path}:{s.line}:{s.col}: {self.severity}[{self.code}]: {self.message}"
        lines = [head]
        if source is not None and s.line >= 1:
            src_lines = source.splitlines() if isinstance(source, str) else source
            if s.line <= len(src_lines):
                text = src_lines[s.line - 1].rstrip("\n").replace("\t", " ")
                gutter = f"{s.line:>4} | "
                end = s.end_col if s.end_line == s.line and s.end_col > s.col else len(text) + 1
                width = max(1, min(end, len(text) + 1) - s.col)
                col = s.col
                if len(text) > MAX_SHOWN:  # a very long line: show a window around the span
                    start = max(0, min(col - 1 - MAX_SHOWN // 3, len(text) - MAX_SHOWN))
                    shown = text[start:start + MAX_SHOWN]
                    text = ("..." if start > 0 else "") + shown + ("..." if start + MAX_SHOWN < len(text) else "")
                    col = col - start + (3 if start > 0 else 0)
                    width = max(1, min(width, MAX_SHOWN - (col - 1)))
                lines.append(gutter + text)
                lines.append(" " * (len(gutter) - 2) + "| " + " " * (col - 1) + "^" * width)
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


MAX_RENDERED = 200    # diagnostics printed in full; the count line gives the rest


class CompileError(Exception):
    """Raised with every diagnostic of a rule file (and the files it extends)."""

    def __init__(self, diagnostics: Iterable[Diagnostic], sources: dict[str, str] | None = None):
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.span.path, d.span.line, d.span.col, d.code))
        self.sources = dict(sources or {})
        super().__init__(f"{len(self.diagnostics)} error(s)")
        self._text = None

    def __str__(self) -> str:
        return self.render()

    def render(self) -> str:
        """All diagnostics rendered and separated by blank lines (the first MAX_RENDERED of them, each file's
        text split once), then a count line."""
        if self._text is None:
            split = {path: text.splitlines() for path, text in self.sources.items() if text is not None}
            shown = self.diagnostics[:MAX_RENDERED]
            parts = [d.render(split.get(d.span.path)) for d in shown]
            n = len(self.diagnostics)
            count = f"{n} error{'s' if n != 1 else ''}"
            if n > len(shown):
                count += f" ({n - len(shown)} not shown: fix the first ones and check again)"
            parts.append(count)
            self._text = "\n\n".join(parts[:-1]) + "\n" + parts[-1] if shown else parts[-1]
        return self._text


@dataclass
class Reporter:
    """Collects diagnostics during a compiler pass."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        assert code in CODES, code
        self.diagnostics.append(Diagnostic(code, message, span, hint))

    def __bool__(self) -> bool:
        return bool(self.diagnostics)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A "did you mean 'x'?" hint for a misspelt name, or None."""
    best = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{best[0]}'?" if best else None

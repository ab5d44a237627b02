"""Names that are reserved words (W003).

The parser takes a reserved word for a name where only a name can stand, as in a declaration
(``deal var cards: int = 0``), but wherever the keyword itself can stand too, a use of the name is a
syntax error: ``cards`` after an expression (``1..2 cards from``), ``first`` or ``score`` at the start of a
statement, ``count(`` anywhere.  docs/language.md ("Reserved words") asks not to use keywords for variables,
options, zones, definitions, enum values or parameters; this warns at the declaration, before a use fails
far from it.  A warning, not an error: a file that never uses the name where the keyword can stand runs.
Phases, tables, rows and properties are only named where a name is expected (``phase deal`` is fine).
"""
from __future__ import annotations

from functools import lru_cache

from . import ir
from .diagnostics import Diagnostic


@lru_cache(maxsize=1)
def _reserved() -> frozenset:
    from .parse import keywords
    return frozenset(keywords())


def reserved_names(game: ir.Game) -> list[Diagnostic]:
    """W003 for each variable, option, zone, enum value or action parameter of ``game`` named by a reserved
    word, at its declaration (1-based lines).  Returns [] when there is none."""
    words = _reserved()
    named = [(v.name, "variable", v.span) for v in game.vars]
    named += [(o.name, "option", o.span) for o in game.options]
    named += [(z.name, "zone", z.span) for z in game.zones]
    named += [(x, "enum value", e.span) for e in game.enums for x in e.values]
    named += [(a.param.name, "parameter", a.param.span) for ph in game.phases for a in ph.actions
              if a.param is not None]
    out = []
    seen = set()
    for name, what, span in named:
        if name in words and (name, what) not in seen and span.line:     # (built-in zones have no line)
            seen.add((name, what))
            out.append(Diagnostic("W003", f"the {what} '{name}' is named by a reserved word: a use of it fails "
                                          f"wherever the keyword '{name}' can stand",
                                  span, f"rename it, e.g. '{name}_' (docs/language.md, 'Reserved words')",
                                  severity="warning"))
    return out

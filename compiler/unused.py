"""Declarations that do nothing: a scoring table that no ``score`` statement applies (W002).

A table is only ever applied by ``score TABLE``; one that no phase, trick or row scores is dead, which is
most often a misspelt table name in a variant's ``table NAME { row ... }`` block (it then declares a new
table instead of adding rows to the base's).  A warning, not an error: a table may be kept for a property
(``complete TABLE``) while it is being written.
"""
from __future__ import annotations

from . import ir
from .diagnostics import Diagnostic, did_you_mean


def unscored_tables(game: ir.Game) -> list[Diagnostic]:
    """W002 for each table of ``game`` that no ``score`` statement names, at the table's declaration, with a
    did-you-mean among the tables that are scored.  Returns [] when every table is scored."""
    scored = {s.table for s in ir.all_stmts(game) if isinstance(s, ir.Score)}
    out = []
    for t in game.tables:
        if t.name in scored:
            continue
        near = did_you_mean(t.name, sorted(scored))
        hint = (f"{near} (a 'table NAME {{ ... }}' block naming an existing table adds rows to it)" if near else
                f"add 'score {t.name}' to a phase's effects or a trick's 'then', or remove the table")
        out.append(Diagnostic("W002", f"table '{t.name}' is never scored: no 'score {t.name}' applies its rows",
                              t.span, hint, severity="warning"))
    return out

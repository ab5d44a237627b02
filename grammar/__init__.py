"""The Atout grammar, shipped as package data (``atout.lark``).

``parser()`` returns the one LALR(1) Lark parser of the language, built once
per process with ``propagate_positions=True`` so that every tree node carries
1-based line and column numbers.
"""
from __future__ import annotations

from functools import lru_cache

from lark import Lark

GRAMMAR_FILE = "atout.lark"


@lru_cache(maxsize=1)
def parser() -> Lark:
    """Return the shared LALR parser for ``*.atout`` rule files."""
    return Lark.open_from_package(
        "atout.grammar",
        GRAMMAR_FILE,
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=True,
        cache=True,  # the LALR tables are cached in the temp folder, keyed by the grammar's hash
    )

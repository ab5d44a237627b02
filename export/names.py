"""Safe text for generated code and diagrams.

A rule file is untrusted input.  Generated Python never uses a name from the rule file as an identifier: every
identifier is made from an index (``v3``, ``_b12``, ``_enter_2``), and every piece of text from the file (a title,
a suit, a label) reaches the generated source only through :func:`py_str`, i.e. ``repr()`` of a ``str``, which
is a valid Python literal whatever it holds.  Diagram formats get their own escaping (:func:`dot_str`,
:func:`mermaid_text`).
"""
from __future__ import annotations

import re

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def py_str(text: str) -> str:
    """A Python string literal for ``text`` (``repr`` of a ``str`` is always a valid, inert literal)."""
    return repr(str(text))


def safe_identifier(text: str, prefix: str = "x") -> str:
    """``prefix`` + ``_`` + ``text`` when ``text`` is a plain identifier, else ``prefix`` + ``_`` + its hex code.

    Used only where a name must be readable in the output (a pyspiel short name); never for code identifiers.
    """
    if IDENTIFIER.match(text) and text.isascii():
        return f"{prefix}_{text.lower()}"
    return f"{prefix}_{text.encode('utf-8').hex()}"


def dot_str(text: str) -> str:
    """A DOT double-quoted string: quotes and backslashes escaped, line breaks as ``\\n``."""
    out = []
    for ch in str(text):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\r\n":
            out.append("\\n")
        elif ord(ch) < 32 or ch in "\u2028\u2029":
            out.append(" ")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_MERMAID_SAFE = re.compile(r"[A-Za-z0-9 _.,()\-+*/=!?'…♠♥♦♣]")


def mermaid_text(text: str) -> str:
    """Text for a Mermaid label: every character outside a small safe set becomes an entity code ``#NNN;``."""
    return "".join(ch if _MERMAID_SAFE.match(ch) else f"#{ord(ch)};" for ch in str(text))

"""Export the IR as JSON (``atout export FILE --to json``).

The output is one object ``{"format": "atout-ir/1", "game": NODE}`` where every IR node is an object with its
class name under ``"node"`` and one key per field (spans as ``{"path", "line", "col"}``), tuples are lists and
types are their text (``"int in 0..8"``, ``"player"``).  It is a faithful, lossless view of :mod:`atout.compiler.ir`
for other tools; ``json.loads`` reads it back.
"""
from __future__ import annotations

import json
from dataclasses import fields, is_dataclass

from atout.compiler import ir
from atout.compiler.span import Span

FORMAT = "atout-ir/1"


def to_data(node):
    """A JSON-ready value for an IR node (recursively)."""
    if isinstance(node, ir.Type):
        return str(node)
    if isinstance(node, Span):
        return {"path": node.path, "line": node.line, "col": node.col} if node.line else None
    if is_dataclass(node):
        out = {"node": type(node).__name__}
        for f in fields(node):
            if f.name == "source":
                continue
            out[f.name] = to_data(getattr(node, f.name))
        return out
    if isinstance(node, (tuple, list)):
        return [to_data(x) for x in node]
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    raise TypeError(f"cannot convert {type(node).__name__} to JSON")  # pragma: no cover


def to_json(game: ir.Game) -> str:
    """The IR of ``game`` as indented JSON text (keys in field order, non-ASCII kept)."""
    return json.dumps({"format": FORMAT, "game": to_data(game)}, ensure_ascii=False, indent=1) + "\n"

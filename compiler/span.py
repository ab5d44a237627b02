"""Source locations.  Lines and columns are 1-based; ``end_col`` is exclusive."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)

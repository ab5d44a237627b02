"""Exporters of compiled games."""
from __future__ import annotations


def export(path: str, target: str, output: str) -> int:
    from atout.cli import UsageError
    raise UsageError(f"export to '{target}' is not available yet")

"""The Atout language server (``atout lsp``, the ``[lsp]`` extra: pygls and lsprotocol).

:mod:`.analysis` compiles an editor's buffer with the compiler's own passes (no pygls needed);
:mod:`.server` answers the Language Server Protocol over stdio.  The symbol index it navigates with is
:mod:`atout.compiler.symbols`.
"""
from __future__ import annotations

EXTRA_HINT = 'the language server needs pygls and lsprotocol: pip install -e ".[lsp]" (or pip install "atout[lsp]")'


def missing_dependency() -> str | None:
    """The name of the first missing package the server needs, or None when pygls and lsprotocol import."""
    import importlib.util
    for name in ("lsprotocol", "pygls"):
        if importlib.util.find_spec(name) is None:
            return name
    return None

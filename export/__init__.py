"""Exporters of compiled games: one module per target.

* ``python``    :mod:`.python_module` — a standalone module (standard library only) that plays the game;
* ``openspiel`` :mod:`.openspiel_game` — that module plus its registration with ``pyspiel`` as a Python game;
* ``dot``, ``mermaid`` :mod:`.diagram` — the state machine as a diagram;
* ``json``      :mod:`.ir_json` — the IR.

:func:`export` is what ``atout export FILE --to TARGET -o OUT`` runs.
"""
from __future__ import annotations

import os
import tempfile

TARGETS = ("python", "openspiel", "dot", "mermaid", "json")


def render(path: str, target: str, game=None) -> str:
    """The text of the export of the rule file at ``path`` (or of ``game``, its compiled IR) to ``target``.

    Raises :class:`atout.compiler.CompileError` for a bad rule file and ``ValueError`` for an unknown target or a
    game the target cannot represent (the message says why).
    """
    from atout.compiler import compile_file

    if target not in TARGETS:
        raise ValueError(f"unknown export target '{target}'; targets are {', '.join(TARGETS)}")
    game = game if game is not None else compile_file(path)
    if target == "python":
        from .python_module import ExportError, generate
        try:
            return generate(game, path)
        except ExportError as exc:
            raise ValueError(str(exc)) from None
    if target == "openspiel":
        from .openspiel_game import generate_openspiel
        return generate_openspiel(game, path)
    if target in ("dot", "mermaid"):
        from .diagram import to_dot, to_mermaid
        return to_dot(game) if target == "dot" else to_mermaid(game)
    from .ir_json import to_json
    return to_json(game)


def write_atomically(output: str, text: str) -> None:
    """Write ``text`` to ``output`` through a temporary file in the same folder and a rename (never half a file).

    Raises OSError when the folder does not exist or cannot be written.
    """
    folder = os.path.dirname(os.path.abspath(output))
    fd, tmp = tempfile.mkstemp(prefix=".atout-export-", suffix=".part", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; an exported file is an ordinary file
        os.replace(tmp, output)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def export(path: str, target: str, output: str, options: dict[str, str] | None = None) -> int:
    """``atout export``: compile ``path``, export it to ``target``, write ``output`` atomically; returns 0.

    Bad input (a malformed rule file, an unknown target, a game the target cannot represent, an output path that
    cannot be written) raises CompileError or :class:`atout.cli.UsageError`, which the CLI reports with exit 2.
    """
    import sys

    from atout.compiler import compile_file, warnings_text
    from atout.errors import UsageError

    game = compile_file(path, options)
    if target in ("python", "openspiel"):   # observations are what a leak would reach
        warned = warnings_text(game)
        if warned:
            print(warned, file=sys.stderr)
    try:
        text = render(path, target, game)
    except ValueError as exc:
        raise UsageError(f"cannot export {path} to {target}: {exc}") from None
    try:
        write_atomically(output, text)
    except OSError as exc:
        raise UsageError(f"cannot write '{output}': {exc.strerror or exc}") from None
    print(f"{path}: exported to {target}: {output}")
    return 0

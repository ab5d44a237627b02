"""The Atout compiler: rule file -> IR, one module per pass.

1. :mod:`.parse`     text -> AST (Lark LALR, spans on every node)
2. :mod:`.variants`  ``extends``: lay a variant over its base
3. :mod:`.resolve`   names and types (used by the next pass, expression by expression)
4. :mod:`.lower`     AST -> IR (:mod:`.ir`), declaration checks, action numbering
5. :mod:`.visibility` lint over the IR: public variables computed from unseen cards (W001)

``compile_file(path)`` runs the pipeline and returns an :class:`~.ir.Game`, or
raises :class:`~.diagnostics.CompileError` carrying every diagnostic found.
"""
from __future__ import annotations

import os

from . import ir
from .diagnostics import CompileError, Diagnostic, Reporter
from .parse import parse_text
from .span import Span
from .variants import merge, not_a_variant
from .lower import lower

__all__ = ["compile_file", "compile_text", "load_rule_file", "read_source", "span_text", "CompileError", "ir",
           "warnings", "warnings_text"]

MAX_EXTENDS_DEPTH = 8
MAX_RULE_FILE_BYTES = 4 * 1024 * 1024   # the shipped games are under 20 KB


class NotARuleFile(OSError):
    """A path that is not a regular file of reasonable size (a device, a pipe, a socket, a huge file)."""

    def __init__(self, reason: str, hint: str):
        super().__init__(reason)
        self.strerror = reason
        self.hint = hint


def read_source(path: str) -> str:
    """The text of the rule file at ``path``: a regular file of at most MAX_RULE_FILE_BYTES bytes of UTF-8
    (a byte-order mark is dropped; CRLF and CR line ends become LF).  Never blocks on a pipe nor reads a
    device without end.  Raises OSError (NotARuleFile for what is not a regular file or is too large) or
    UnicodeDecodeError."""
    import stat
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(21, "Is a directory", path)
    if not stat.S_ISREG(st.st_mode):
        kind = "a pipe" if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device"
        raise NotARuleFile(f"not a regular file ({kind})", "give the path of a rule file saved on disk")
    if st.st_size > MAX_RULE_FILE_BYTES:
        raise NotARuleFile(f"too large ({st.st_size:,} bytes; a rule file is at most "
                           f"{MAX_RULE_FILE_BYTES // (1024 * 1024)} MB)", "is this the right file?")
    with open(path, "rb") as fh:
        data = fh.read(MAX_RULE_FILE_BYTES + 1)
    if len(data) > MAX_RULE_FILE_BYTES:
        raise NotARuleFile(f"too large (more than {MAX_RULE_FILE_BYTES:,} bytes)", "is this the right file?")
    if b"\x00" in data:
        raise UnicodeDecodeError("utf-8", data, data.index(b"\x00"), data.index(b"\x00") + 1, "NUL byte")
    text = data.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


_SOURCE_LINES: dict = {}


def span_text(span: Span) -> str | None:
    """The text of the rule file that ``span`` covers (lines 1-based, columns 1-based, end exclusive), on
    one line with its whitespace collapsed; None when the file cannot be read or the span is not in it."""
    if span is None or span.line < 1 or span.end_line < span.line:
        return None
    lines = source_lines(span.path)
    if not lines or span.end_line > len(lines):
        return None
    if span.line == span.end_line:
        text = lines[span.line - 1][span.col - 1:span.end_col - 1]
    else:
        text = " ".join([lines[span.line - 1][span.col - 1:]] + lines[span.line:span.end_line - 1]
                        + [lines[span.end_line - 1][:span.end_col - 1]])
    text = " ".join(text.split())
    return text or None


def warnings(game: ir.Game) -> list:
    """The compiler's warnings on ``game`` (a list of Diagnostic, severity 'warning'): W001 (a variable of
    unsaid visibility computed from cards not every seat sees, :mod:`.visibility`), W002 (a scoring table
    no ``score`` applies, :mod:`.unused`) and W003 (a name that is a reserved word, :mod:`.reserved`)."""
    from .reserved import reserved_names
    from .unused import unscored_tables
    from .visibility import leak_warnings
    return [*leak_warnings(game), *unscored_tables(game), *reserved_names(game)]


def warnings_text(game: ir.Game) -> str:
    """The compiler's warnings on ``game`` (:func:`warnings`), rendered like errors (location, source line, carets, hint) and followed by a count line; '' when there are
    none.  Warnings never stop a command."""
    found = warnings(game)
    if not found:
        return ""
    parts = [d.render(source_lines(d.span.path)) for d in found]
    return "\n\n".join(parts) + f"\n{len(found)} warning{'s' if len(found) != 1 else ''}"


def source_lines(path: str) -> list[str]:
    """The lines of a rule file (as :func:`read_source` reads it), [] if it cannot be read; cached."""
    if path not in _SOURCE_LINES:
        try:
            _SOURCE_LINES[path] = read_source(path).split("\n")
        except (OSError, UnicodeDecodeError):
            _SOURCE_LINES[path] = []
    return _SOURCE_LINES[path]


def _read_error(path: str, exc: Exception) -> tuple[str, str]:
    """(reason, hint) for a rule file that cannot be read."""
    if isinstance(exc, UnicodeDecodeError) and exc.reason == "NUL byte":
        return (f"not a text file (a NUL byte at offset {exc.start})", "rule files are UTF-8 text; is this the "
                                                                       "right file?")
    if isinstance(exc, UnicodeDecodeError):
        return (f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})",
                "rule files are UTF-8 text; is this the right file?")
    if isinstance(exc, IsADirectoryError):
        try:
            found = sorted(f for f in os.listdir(path) if f.endswith(".atout"))
        except OSError:
            found = []
        listed = f" ({', '.join(found[:5])}{', ...' if len(found) > 5 else ''})" if found else ""
        return "it is a directory", f"give the path of one rule file{listed}"
    if isinstance(exc, NotARuleFile):
        return exc.strerror, exc.hint
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    if isinstance(exc, PermissionError):
        return reason, "check the file's permissions"
    return reason, "check the path; rule files end in .atout"


def load_rule_file(path: str, sources: dict[str, str], depth: int = 0, rep: Reporter | None = None,
                   from_span: Span | None = None, read=None, files: dict | None = None):
    """Read and parse ``path``, resolving ``extends`` relative to its folder; returns the merged AST.

    ``read`` (default :func:`read_source`) gives the text of a path, for this file and the files it extends:
    an editor passes one that returns its unsaved buffers.  ``files``, when given, is filled with each file's
    own AST (path -> RuleFile, before merging), for tools that index declarations file by file.  Raises
    CompileError (E120 unreadable file, E001-E003 syntax, E118 bad variant); other diagnostics of a file that
    extends nothing (a misplaced ``remove`` or ``override``) go to ``rep``.
    """
    rep = rep if rep is not None else Reporter()
    try:
        text = (read or read_source)(path)
    except (OSError, UnicodeDecodeError) as exc:
        span = from_span or Span(path, 1, 1, 1, 2)
        reason, hint = _read_error(path, exc)
        if from_span is not None and isinstance(exc, FileNotFoundError):
            hint = "the path after 'extends' is relative to the folder of this file"
        raise CompileError([Diagnostic("E120", f"cannot read rule file '{path}': {reason}", span, hint)],
                           sources) from None
    sources[path] = text
    rf = parse_text(text, path)
    if files is not None:
        files[path] = rf
    if rf.extends is None:
        not_a_variant(rf, rep)
        return rf
    base_path = os.path.normpath(os.path.join(os.path.dirname(path), rf.extends))
    if base_path in sources or os.path.normpath(path) == base_path:
        raise CompileError([Diagnostic("E118", f"'extends' cycle: '{base_path}' extends itself, directly or "
                                               "through its bases", rf.extends_span,
                                       "a variant extends a base game that does not extend it back")], sources)
    if depth >= MAX_EXTENDS_DEPTH:
        raise CompileError([Diagnostic("E118", f"'extends' chain deeper than {MAX_EXTENDS_DEPTH} files",
                                       rf.extends_span)], sources)
    base = load_rule_file(base_path, sources, depth + 1, rep, rf.extends_span, read, files)
    merged = merge(base, rf, rep)
    if rep:
        raise CompileError(rep.diagnostics, sources)
    return merged


def compile_file(path: str, options: dict[str, str] | None = None) -> ir.Game:
    """Compile the rule file at ``path`` (and the files it extends) to IR.

    ``options`` sets options of the game (name -> its value as written in a rule file: ``"false"``, ``"7"``,
    ``"spades"``), as a variant's ``override option`` would, without a variant file.  Raises CompileError
    with every diagnostic when the file has mistakes, or when an option is unknown (E103) or its value is not
    one of its type (E104, E114, located in ``--option NAME=VALUE``).
    """
    sources: dict[str, str] = {}
    rep = Reporter()
    rf = load_rule_file(path, sources, rep=rep)
    if options:
        rf = _set_options(rf, options, sources)
    game = lower(rf, rep)
    if rep or game is None:
        raise CompileError(rep.diagnostics, sources)
    return game


def _set_options(rf, options: dict[str, str], sources: dict[str, str]):
    """``rf`` with the values of ``options`` in place of its options' values."""
    import dataclasses

    from .diagnostics import did_you_mean
    declared = {o.name: o for o in rf.options}
    out = list(rf.options)
    for name, text in options.items():
        where = f"--option {name}={text}"
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise CompileError([Diagnostic("E103", f"the game has no option '{name}'", Span(where, 1, 1, 1, 2),
                                           did_you_mean(name, declared) or f"its options: {known}")], sources)
        decl = span_text(declared[name].span) or ""
        head = decl.rsplit(" = ", 1)[0] if " = " in decl else f"option {name}: bool"
        snippet = f"{head} = {text}\n"
        sources[where] = snippet
        try:
            value = parse_text(snippet, where).options[0].value
        except (CompileError, IndexError):
            raise CompileError([Diagnostic("E104", f"'{text}' is not a value for option '{name}'",
                                           Span(where, 1, 1, 1, 2), "a number, true or false, a suit, a rank or "
                                           "an enum value")], sources) from None
        i = next(k for k, o in enumerate(out) if o.name == name)
        out[i] = dataclasses.replace(out[i], value=value)
    return dataclasses.replace(rf, options=tuple(out))


def compile_text(text: str, path: str = "<string>") -> ir.Game:
    """Compile rule-file text (no ``extends``) to IR; raises CompileError."""
    sources = {path: text}
    rf = parse_text(text, path)
    if rf.extends is not None:
        raise CompileError([Diagnostic("E118", "'extends' needs a file on disk; use compile_file",
                                       rf.extends_span)], sources)
    rep = Reporter()
    not_a_variant(rf, rep)
    game = lower(rf, rep)
    if rep or game is None:
        raise CompileError(rep.diagnostics, sources)
    return game

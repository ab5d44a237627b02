"""The Atout language server (``atout lsp``): pygls over stdio.

Features: the compiler's diagnostics as the author types (codes, messages, hints; W001 as warnings), hover (a
name's declaration, its kind and where it is declared, and the comments by it, which cite the rules' sources),
go to definition and find references across ``extends`` (options, variables, zones, phases, actions, tables,
rows, properties, definitions, enum values, suits, ranks, locals), completion of declared names, built-in
names and functions and keywords, document symbols (the outline: phases and their actions, tables and their
rows, properties, options, zones, variables), and, when asked (``--verify-on-save`` or the initialization option
``{"verifyOnSave": true}``), the verdicts of ``atout verify`` on save, shown on the property lines.

Compilation runs in a worker thread a short while after the last change (``debounce`` seconds), so typing never
waits for it.  The verifier runs in a child process, on the file as saved; a newer save, or closing the file,
cancels it.  Its verdicts stay on their properties' lines (found again by name) while the author edits.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from atout.compiler import MAX_EXTENDS_DEPTH, read_source
from atout.compiler.diagnostics import Diagnostic
from atout.compiler.span import Span
from atout.compiler.symbols import Occurrence, Symbol, SymbolIndex, comment_of

from .analysis import Analysis, analyze

log = logging.getLogger("atout.lsp")

SOURCE = "atout"
VERIFY_SOURCE = "atout verify"

_SYMBOL_KINDS = {
    "game": T.SymbolKind.Module, "phase": T.SymbolKind.Class, "action": T.SymbolKind.Method,
    "table": T.SymbolKind.Struct, "row": T.SymbolKind.Field, "property": T.SymbolKind.Property,
    "option": T.SymbolKind.Constant, "zone": T.SymbolKind.Array, "variable": T.SymbolKind.Variable,
    "enum": T.SymbolKind.Enum, "enum value": T.SymbolKind.EnumMember, "definition": T.SymbolKind.Function,
    "match": T.SymbolKind.Namespace, "suit": T.SymbolKind.Constant, "rank": T.SymbolKind.Constant,
    "local": T.SymbolKind.Variable,
}
_COMPLETION_KINDS = {
    "phase": T.CompletionItemKind.Class, "table": T.CompletionItemKind.Struct,
    "property": T.CompletionItemKind.Property, "option": T.CompletionItemKind.Constant,
    "zone": T.CompletionItemKind.Field, "variable": T.CompletionItemKind.Variable,
    "enum": T.CompletionItemKind.Enum, "enum value": T.CompletionItemKind.EnumMember,
    "definition": T.CompletionItemKind.Function, "suit": T.CompletionItemKind.Constant,
    "rank": T.CompletionItemKind.Constant, "game": T.CompletionItemKind.Module,
}
_KIND_WORDS = {"variable": "variable", "definition": "definition (def)", "enum value": "enum value"}
# After these words only a phase (or a table) may follow.
_PHASE_CONTEXT = re.compile(r"\b(goto|start|reach)\s+\w*$|\b(terminates|can_end|can_force\s+\S+|conserves)\s*"
                            r"\{[^}]*$")
_TABLE_CONTEXT = re.compile(r"\b(score|complete)\s+\w*$")


class AtoutLanguageServer(LanguageServer):
    """The server's state: per open document, the last analysis and the last symbol index that parsed (kept
    while the buffer does not parse, so that navigation still works mid-edit), the pending compilation, the
    verdicts of the last verification and the verification running."""

    def __init__(self, verify_on_save: bool = False, verify_timeout: float = 300.0, debounce: float = 0.15):
        from atout import __version__
        super().__init__("atout-lsp", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.verify_on_save = verify_on_save
        self.verify_timeout = verify_timeout
        self.debounce = debounce
        self.analyses: dict[str, Analysis] = {}
        self.indexes: dict[str, SymbolIndex] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.verdicts: dict[str, list[dict]] = {}
        self.verifying: dict[str, asyncio.Task] = {}
        self.compiler = ThreadPoolExecutor(max_workers=1, thread_name_prefix="atout-compile")

    # -- paths and positions ---------------------------------------------------------------------------------------
    @staticmethod
    def path_of(uri: str) -> str:
        return os.path.normpath(to_fs_path(uri) or uri)

    def lines_of(self, path: str, analysis: Analysis | None = None) -> list[str]:
        """The lines of ``path``: the open buffer's, else the text last compiled, else the file on disk."""
        for doc in list(self.workspace.text_documents.values()):
            if self.path_of(doc.uri) == path:
                return doc.source.replace("\r\n", "\n").split("\n")
        if analysis is not None and path in analysis.sources:
            return analysis.sources[path].split("\n")
        try:
            return read_source(path).split("\n")
        except (OSError, UnicodeDecodeError):
            return []

    def range_of(self, span: Span, lines: list[str]) -> T.Range:
        """The LSP range (0-based lines, the client's code units) of a compiler span (1-based, code points)."""
        codec = self.workspace.position_codec
        n = max(len(lines), 1)

        def pos(line: int, col: int) -> T.Position:
            line = min(max(line, 1), n) - 1
            text = lines[line] if line < len(lines) else ""
            col = min(max(col, 1) - 1, len(text))
            return codec.position_to_client_units(lines, T.Position(line=line, character=col))
        start = pos(span.line, span.col)
        end = pos(span.end_line, span.end_col)
        if (end.line, end.character) < (start.line, start.character):
            end = start
        return T.Range(start=start, end=end)

    def location(self, span: Span, analysis: Analysis | None) -> T.Location:
        return T.Location(uri=from_fs_path(span.path), range=self.range_of(span, self.lines_of(span.path, analysis)))

    def occurrence_at(self, uri: str, position: T.Position) -> tuple[SymbolIndex | None, Occurrence | None]:
        index = self.indexes.get(uri)
        if index is None:
            return None, None
        path = self.path_of(uri)
        doc = self.workspace.get_text_document(uri)
        p = self.workspace.position_codec.position_from_client_units(doc.lines, position)
        return index, index.at(path, p.line + 1, p.character + 1)

    # -- compilation -------------------------------------------------------------------------------------------------
    def open_texts(self) -> dict[str, str]:
        """path -> text of every open rule-file buffer (a snapshot: the compilation thread reads only this)."""
        out = {}
        for doc in list(self.workspace.text_documents.values()):
            out[self.path_of(doc.uri)] = doc.source.replace("\r\n", "\n").replace("\r", "\n")
        return out

    def schedule(self, uri: str, delay: float = 0.0, depth: int = 0) -> None:
        """Compile the document at ``uri`` after ``delay`` seconds (a newer call replaces a pending one).
        ``depth``: how many files away the change that asks for it was (a variant is compiled again when its
        base changes, and so on, at most MAX_EXTENDS_DEPTH files away, which also ends an ``extends`` cycle)."""
        old = self.pending.pop(uri, None)
        if old is not None and not old.done():
            old.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._compile(uri, delay, depth))

    async def _compile(self, uri: str, delay: float, depth: int = 0) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        try:
            doc = self.workspace.get_text_document(uri)
        except Exception:  # closed meanwhile
            return
        version = doc.version
        texts = self.open_texts()
        path = self.path_of(uri)

        def read(p: str) -> str:
            return texts[p] if p in texts else read_source(p)
        loop = asyncio.get_running_loop()
        t0 = time.perf_counter()
        try:
            result = await loop.run_in_executor(self.compiler, analyze, path, read)
        except Exception as exc:  # a compiler crash must not take the server down: say so in the editor
            log.exception("compiling %s", path)
            result = Analysis(path, [Diagnostic("internal", f"the compiler failed: {type(exc).__name__}: {exc}",
                                                Span(path, 1, 1, 1, 2), "please report this with the file")])
        if uri not in self.workspace.text_documents or self.workspace.get_text_document(uri).version != version:
            return                                        # a newer text is being compiled
        log.debug("compiled %s in %.3f s", path, time.perf_counter() - t0)
        self.analyses[uri] = result
        if result.index is not None:
            self.indexes[uri] = result.index
        self.publish(uri)
        if depth < MAX_EXTENDS_DEPTH:
            for other, a in list(self.analyses.items()):     # variants of this file, open: compile them again
                if other != uri and path in a.sources and self.path_of(other) != path:
                    self.schedule(other, self.debounce, depth + 1)

    def lsp_diagnostic(self, d: Diagnostic, analysis: Analysis, path: str, lines: list[str]) -> T.Diagnostic:
        """The compiler's diagnostic ``d`` as an LSP diagnostic of the document at ``path``: the message and its
        hint (on a second line, ``hint: ...``, as ``atout check`` prints it), the code, the range.  A diagnostic
        in another file of the chain is shown on this file's ``extends`` line, located and linked."""
        severity = T.DiagnosticSeverity.Warning if d.severity == "warning" else T.DiagnosticSeverity.Error
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        if os.path.normpath(d.span.path) == path:
            rng = self.range_of(d.span, lines)
            related = None
        else:
            where = analysis.own_extends_span or Span(path, 1, 1, 1, 2)
            rng = self.range_of(where, lines)
            message = f"in {d.span}: {message}"
            related = [T.DiagnosticRelatedInformation(location=self.location(d.span, analysis), message=d.message)]
        return T.Diagnostic(range=rng, message=message, severity=severity, code=d.code, source=SOURCE,
                            related_information=related, data={"hint": d.hint} if d.hint else None)

    def publish(self, uri: str) -> None:
        analysis = self.analyses.get(uri)
        if analysis is None:
            return
        path = self.path_of(uri)
        lines = self.lines_of(path, analysis)
        out = [self.lsp_diagnostic(d, analysis, path, lines) for d in analysis.diagnostics]
        out += self.verdict_diagnostics(uri, path, lines, analysis)
        version = None
        if uri in self.workspace.text_documents:
            version = self.workspace.get_text_document(uri).version
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=out, version=version))

    # -- verification on save ---------------------------------------------------------------------------------------
    def start_verify(self, uri: str) -> None:
        """Verify the file saved at ``uri`` in a child process (the server goes on answering meanwhile)."""
        self.cancel_verify(uri)
        self.verifying[uri] = asyncio.get_running_loop().create_task(self._verify(uri))

    def cancel_verify(self, uri: str) -> None:
        task = self.verifying.pop(uri, None)
        if task is not None and not task.done():
            task.cancel()

    async def _verify(self, uri: str) -> None:
        pending = self.pending.get(uri)
        if pending is not None and not pending.done():
            try:
                await pending                              # the diagnostics of the saved text first
            except asyncio.CancelledError:
                pass
        analysis = self.analyses.get(uri)
        path = self.path_of(uri)
        if analysis is None or analysis.errors:            # nothing to verify until the file compiles
            self.window_log_message(T.LogMessageParams(type=T.MessageType.Info,
                                                       message=f"atout verify {path}: not run, the file has errors"))
            return
        cmd = [sys.executable, "-m", "atout.cli", "verify", path, "--json", "--timeout", str(self.verify_timeout)]
        self.window_log_message(T.LogMessageParams(type=T.MessageType.Info, message=f"atout verify {path} ..."))
        t0 = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL,
                                                    cwd=os.path.dirname(path) or None)
        try:
            out, err = await proc.communicate()
        except asyncio.CancelledError:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            raise
        seconds = time.perf_counter() - t0
        try:
            report = json.loads(out.decode("utf-8"))
            results = report["properties"]
        except (ValueError, KeyError, TypeError):
            text = err.decode("utf-8", "replace").strip().splitlines()
            self.window_log_message(T.LogMessageParams(
                type=T.MessageType.Warning,
                message=f"atout verify {path}: exit {proc.returncode}: {text[-1] if text else 'no report'}"))
            return
        self.verdicts[uri] = results
        counts = {}
        for r in results:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        self.window_log_message(T.LogMessageParams(type=T.MessageType.Info,
                                                   message=f"atout verify {path}: {summary} ({seconds:.1f} s)"))
        self.publish(uri)

    def verdict_diagnostics(self, uri: str, path: str, lines: list[str], analysis: Analysis) -> list[T.Diagnostic]:
        """The verdicts of the last verification of ``uri``, each on its property's name (a property inherited
        from a base file, and a built-in check that is not proved, on the ``extends`` or ``game`` line)."""
        results = self.verdicts.get(uri)
        index = self.indexes.get(uri)
        if not results or index is None:
            return []
        out = []
        game_sym = next((s for s in index.outline.get(path, ()) if s.kind == "game"), None)
        fallback = analysis.own_extends_span or (game_sym.span if game_sym else Span(path, 1, 1, 1, 2))
        for r in results:
            name, verdict = r.get("name", "?"), r.get("verdict", "unknown")
            builtin = name.startswith("builtin:")
            if builtin and verdict == "proved":
                continue
            decls = [] if builtin else [s for s in index.declarations(("global", name)) if s.kind == "property"]
            message = f"{name}: {verdict}" + (f" ({r['method']})" if r.get("method") else "")
            ce = r.get("counterexample")
            if isinstance(ce, dict) and ce.get("note"):
                message += f"\ncounterexample ({ce.get('kind', 'trace')}): {ce['note']}"
            if decls and decls[0].span.path == path:
                span = decls[0].span
            else:
                span = fallback
                if decls:
                    message = f"inherited from {decls[0].span}: {message}"
            severity = T.DiagnosticSeverity.Information if verdict == "proved" else T.DiagnosticSeverity.Warning
            out.append(T.Diagnostic(range=self.range_of(span, lines), message=message, severity=severity,
                                    code=verdict, source=VERIFY_SOURCE))
        return out

    # -- answers -----------------------------------------------------------------------------------------------------
    def hover_text(self, index: SymbolIndex, occ: Occurrence, analysis: Analysis | None) -> str | None:
        if occ.key is None:
            return occ.builtin
        decls = index.declarations(occ.key)
        if not decls:
            return None
        d = decls[0]
        kind = _KIND_WORDS.get(d.kind, d.kind)
        if d.container is not None:
            owner = {"action": "phase", "row": "table", "enum value": "enum"}.get(d.kind, "")
            kind += f" of {owner} {d.container}".replace("  ", " ")
        parts = [f"```atout\n{d.header or d.name}\n```", f"*{kind}*, declared at `{_short(d.span)}`"]
        comments = self.comments(d, analysis)
        if comments:
            parts.append("\n".join(f"> {c}" for c in comments))
        if len(decls) > 1:
            parts.append("also declared at " + ", ".join(f"`{_short(s.span)}`" for s in decls[1:]))
        return "\n\n".join(parts)

    def comments(self, sym: Symbol, analysis: Analysis | None) -> list[str]:
        """The comments that document a declaration: the comment lines right above it and the comment at the end
        of its first line (where the rule files cite their sources: ``# source §10: ...``)."""
        if sym.kind == "local":
            return []
        lines = self.lines_of(sym.decl_span.path, analysis)
        n = sym.decl_span.line - 1                       # 0-based line of the declaration
        if not 0 <= n < len(lines):
            return []
        above = []
        k = n - 1
        while k >= 0 and lines[k].strip().startswith("#") and len(above) < 8:
            text = lines[k].strip()[1:].strip()
            if set(text) <= set("-=# "):                # a ruler, not a comment on this declaration
                break
            above.append(text)
            k -= 1
        above.reverse()
        trailing = comment_of(lines[n])
        return above + ([trailing] if trailing else [])

    def completions(self, uri: str, position: T.Position) -> list[T.CompletionItem]:
        from atout.compiler.parse import keywords
        from atout.compiler.resolve import BUILTINS, FUNCTIONS, signature
        index = self.indexes.get(uri)
        doc = self.workspace.get_text_document(uri)
        p = self.workspace.position_codec.position_from_client_units(doc.lines, position)
        line = doc.lines[p.line] if p.line < len(doc.lines) else ""
        before = line[:p.character]
        symbols = list(index.globals().values()) if index is not None else []
        if _TABLE_CONTEXT.search(before):
            symbols = [s for s in symbols if s.kind == "table"]
            return [self._item(s) for s in symbols]
        if _PHASE_CONTEXT.search(before):
            return [self._item(s) for s in symbols if s.kind == "phase"]
        items = [self._item(s) for s in symbols if s.kind != "game"]
        declared = {s.name for s in symbols}
        for name, (t, doc_) in BUILTINS.items():
            if name not in declared:
                items.append(T.CompletionItem(label=name, kind=T.CompletionItemKind.Variable,
                                              detail=f"built-in {t.kind}", documentation=doc_))
        for name in sorted(FUNCTIONS):
            items.append(T.CompletionItem(label=name, kind=T.CompletionItemKind.Function, detail=signature(name)))
        for kw in keywords():
            if kw not in declared and kw not in BUILTINS:
                items.append(T.CompletionItem(label=kw, kind=T.CompletionItemKind.Keyword))
        return items

    @staticmethod
    def _item(s: Symbol) -> T.CompletionItem:
        return T.CompletionItem(label=s.name, kind=_COMPLETION_KINDS.get(s.kind, T.CompletionItemKind.Text),
                                detail=s.header or s.kind, documentation=f"{s.kind}, {_short(s.span)}")

    def document_symbols(self, uri: str) -> list[T.DocumentSymbol]:
        index = self.indexes.get(uri)
        if index is None:
            return []
        path = self.path_of(uri)
        lines = self.lines_of(path, self.analyses.get(uri))

        def conv(s: Symbol) -> T.DocumentSymbol:
            rng = self.range_of(s.decl_span, lines)
            sel = self.range_of(s.span, lines)
            if not (rng.start.line, rng.start.character) <= (sel.start.line, sel.start.character):
                rng = T.Range(start=sel.start, end=rng.end)
            return T.DocumentSymbol(name=s.name, kind=_SYMBOL_KINDS.get(s.kind, T.SymbolKind.Object), range=rng,
                                    selection_range=sel, detail=s.kind,
                                    children=[conv(c) for c in s.children if c.span.path == path] or None)
        return [conv(s) for s in index.outline.get(path, ()) if s.span.path == path]


def _short(span: Span) -> str:
    """``ecarte.atout:34:11`` -- a span's file name (no folder) and place."""
    return f"{os.path.basename(span.path)}:{span.line}:{span.col}"


def build_server(verify_on_save: bool = False, verify_timeout: float = 300.0,
                 debounce: float = 0.15) -> AtoutLanguageServer:
    """A server with every feature registered (not started: call ``start_io()``)."""
    server = AtoutLanguageServer(verify_on_save, verify_timeout, debounce)

    @server.feature(T.INITIALIZE)
    def initialize(ls: AtoutLanguageServer, params: T.InitializeParams):
        opts = params.initialization_options
        if isinstance(opts, dict):
            if "verifyOnSave" in opts:
                ls.verify_on_save = bool(opts["verifyOnSave"])
            if isinstance(opts.get("verifyTimeout"), (int, float)) and opts["verifyTimeout"] > 0:
                ls.verify_timeout = float(opts["verifyTimeout"])
            if isinstance(opts.get("debounce"), (int, float)) and opts["debounce"] >= 0:
                ls.debounce = float(opts["debounce"])

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: AtoutLanguageServer, params: T.DidOpenTextDocumentParams):
        ls.schedule(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: AtoutLanguageServer, params: T.DidChangeTextDocumentParams):
        ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE, T.SaveOptions(include_text=False))
    def did_save(ls: AtoutLanguageServer, params: T.DidSaveTextDocumentParams):
        uri = params.text_document.uri
        if uri not in ls.pending or ls.pending[uri].done():
            ls.schedule(uri)
        if ls.verify_on_save:
            ls.start_verify(uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: AtoutLanguageServer, params: T.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        ls.cancel_verify(uri)
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        for store in (ls.analyses, ls.indexes, ls.verdicts):
            store.pop(uri, None)
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: AtoutLanguageServer, params: T.DefinitionParams):
        index, occ = ls.occurrence_at(params.text_document.uri, params.position)
        if occ is None or occ.key is None:
            return None
        decls = index.declarations(occ.key)
        if occ.declaration and len(decls) > 1:
            decls = [d for d in decls if d.span != occ.span]
        analysis = ls.analyses.get(params.text_document.uri)
        return [ls.location(d.span, analysis) for d in decls] or None

    @server.feature(T.TEXT_DOCUMENT_REFERENCES)
    def references(ls: AtoutLanguageServer, params: T.ReferenceParams):
        index, occ = ls.occurrence_at(params.text_document.uri, params.position)
        if occ is None or occ.key is None:
            return None
        analysis = ls.analyses.get(params.text_document.uri)
        found = {(o.span.path, o.span.line, o.span.col): o for o in
                 index.uses(occ.key, params.context.include_declaration)}
        if occ.key[0] != "local":         # the open variants of this file use its names too
            path = ls.path_of(params.text_document.uri)
            for other, other_index in list(ls.indexes.items()):
                if other != params.text_document.uri and path in other_index.paths[1:]:
                    for o in other_index.uses(occ.key, params.context.include_declaration):
                        found.setdefault((o.span.path, o.span.line, o.span.col), o)
        return [ls.location(o.span, analysis) for o in found.values()]

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls: AtoutLanguageServer, params: T.HoverParams):
        uri = params.text_document.uri
        index, occ = ls.occurrence_at(uri, params.position)
        if occ is None:
            return None
        analysis = ls.analyses.get(uri)
        text = ls.hover_text(index, occ, analysis)
        if not text:
            return None
        lines = ls.lines_of(ls.path_of(uri), analysis)
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text),
                       range=ls.range_of(occ.span, lines))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["{", "(", "["]))
    def completion(ls: AtoutLanguageServer, params: T.CompletionParams):
        return T.CompletionList(is_incomplete=False, items=ls.completions(params.text_document.uri,
                                                                          params.position))

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls: AtoutLanguageServer, params: T.DocumentSymbolParams):
        return ls.document_symbols(params.text_document.uri)

    return server


def serve(verify_on_save: bool = False, verify_timeout: float = 300.0, debounce: float = 0.15) -> int:
    """Run the server over stdio until the client says exit; logs go to stderr (stdout is the protocol)."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="atout lsp: %(levelname)s: %(message)s")
    server = build_server(verify_on_save, verify_timeout, debounce)
    server.start_io()
    return 0

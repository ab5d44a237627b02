"""The language server, driven as an editor drives it: ``python -m atout.cli lsp`` in a child process, spoken to
over stdio by pygls's LanguageClient (LSP messages of lsprotocol), never by calling the handlers.

Expected places are read off the rule files by hand (``rules/ecarte.atout``: ``table deal_score`` is line 125,
its name at column 7; ``score deal_score`` is line 112; ``complete deal_score`` line 162; ``zone stock`` line 28)
and the expected diagnostics are the fixtures of ``tests/diagnostics`` (what ``atout check`` prints).  LSP lines
and characters are 0-based; the compiler's are 1-based.
"""
from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the [lsp] extra (pygls) is not installed")
pytest.importorskip("lsprotocol")

from lsprotocol import types as T  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ECARTE = ROOT / "rules" / "ecarte.atout"
CLASSIC = ROOT / "rules" / "ecarte_classic.atout"
FIXTURES = ROOT / "tests" / "diagnostics"
TIMEOUT = 20.0


class Session:
    """A server in a child process and a client in a background event loop; ``run(coro)`` runs a coroutine on
    that loop and returns its result.  Diagnostics the server publishes are kept per URI (the last ones) and
    each arrival is signalled."""

    def __init__(self, *server_args: str, init_options=None):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.diagnostics: dict[str, T.PublishDiagnosticsParams] = {}
        self.arrivals: dict[str, list[float]] = {}
        self.logs: list[str] = []
        self.versions: dict[str, int] = {}
        self.run(self._start(server_args, init_options))

    def run(self, coro, timeout: float = TIMEOUT):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _start(self, server_args, init_options):
        self.changed = asyncio.Condition()
        self.client = LanguageClient("atout-tests", "1")

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def on_diagnostics(params: T.PublishDiagnosticsParams):
            self.diagnostics[params.uri] = params
            self.arrivals.setdefault(params.uri, []).append(time.perf_counter())
            async with self.changed:
                self.changed.notify_all()

        @self.client.feature(T.WINDOW_LOG_MESSAGE)
        def on_log(params: T.LogMessageParams):
            self.logs.append(params.message)

        await self.client.start_io(sys.executable, "-m", "atout.cli", "lsp", *server_args, cwd=str(ROOT))
        self.init = await self.client.initialize_async(T.InitializeParams(
            capabilities=T.ClientCapabilities(), root_uri=from_fs_path(str(ROOT)),
            initialization_options=init_options))
        self.client.initialized(T.InitializedParams())

    async def wait_for(self, uri: str, predicate, timeout: float = TIMEOUT) -> T.PublishDiagnosticsParams:
        """The diagnostics of ``uri`` once ``predicate(params)`` holds for the last ones published."""
        async def ready():
            async with self.changed:
                await self.changed.wait_for(lambda: uri in self.diagnostics and predicate(self.diagnostics[uri]))
            return self.diagnostics[uri]
        return await asyncio.wait_for(ready(), timeout)

    def open(self, path: Path, text: str | None = None) -> str:
        uri = from_fs_path(str(path))
        text = path.read_text(encoding="utf-8") if text is None else text
        self.versions[uri] = 1
        self.diagnostics.pop(uri, None)
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=uri, language_id="atout", version=1, text=text)))
        return uri

    def edit(self, uri: str, line: int, start: int, end: int, text: str) -> int:
        """Replace characters ``start``..``end`` of 0-based ``line`` by ``text``; returns the new version."""
        self.versions[uri] += 1
        self.client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(version=self.versions[uri], uri=uri),
            [T.TextDocumentContentChangePartial(range=T.Range(T.Position(line, start), T.Position(line, end)),
                                                text=text)]))
        return self.versions[uri]

    def request(self, method: str, params):
        return self.run(getattr(self.client, method)(params))

    def close(self):
        async def stop():
            await self.client.shutdown_async(None)
            self.client.exit(None)
            await self.client.stop()
        try:
            self.run(stop(), timeout=10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)


@pytest.fixture(scope="module")
def lsp():
    s = Session()
    yield s
    s.close()


def doc(uri):
    return T.TextDocumentIdentifier(uri=uri)


def has_version(v):
    return lambda p: p.version == v


def test_a_typo_is_an_error_with_its_hint_at_once(lsp):
    uri = lsp.open(ECARTE)
    assert lsp.run(lsp.wait_for(uri, has_version(1))).diagnostics == ()     # the shipped file compiles
    # line 83: '    move n from stock to hand[actor]'; 'stock' is at characters 16..21 (0-based)
    line = ECARTE.read_text(encoding="utf-8").split("\n")[82]
    assert line[16:21] == "stock"
    t0 = time.perf_counter()
    v = lsp.edit(uri, 82, 16, 21, "stok")
    got = lsp.run(lsp.wait_for(uri, has_version(v)))
    latency = time.perf_counter() - t0
    assert [(d.code, d.message, d.severity, d.source) for d in got.diagnostics] == [
        ("E103", "unknown zone 'stok'\nhint: did you mean 'stock'?", T.DiagnosticSeverity.Error, "atout")]
    r = got.diagnostics[0].range
    assert (r.start.line, r.start.character, r.end.line, r.end.character) == (82, 16, 82, 20)
    assert latency < 5.0, latency       # debounce 0.15 s + one compilation (~0.15 s here)
    # the fix clears it
    v = lsp.edit(uri, 82, 16, 20, "stock")
    assert lsp.run(lsp.wait_for(uri, has_version(v))).diagnostics == ()


def test_a_syntax_error_while_typing_keeps_navigation(lsp):
    uri = lsp.open(ECARTE)
    lsp.run(lsp.wait_for(uri, has_version(1)))
    # line 43 '    shuffle stock' -> '    shuffle stock +': the compiler's E001 at the next line's first token
    v = lsp.edit(uri, 42, 17, 17, " +")
    got = lsp.run(lsp.wait_for(uri, has_version(v)))
    assert [d.code for d in got.diagnostics] == ["E001"]
    assert got.diagnostics[0].range.start.line == 43          # 'deal first_packet, ...' on line 44 (1-based)
    # the buffer does not parse, but the index of its last good text still answers
    locs = lsp.request("text_document_definition_async", T.DefinitionParams(doc(uri), T.Position(111, 14)))
    assert [(loc.range.start.line, loc.range.start.character) for loc in locs] == [(124, 6)]
    v = lsp.edit(uri, 42, 17, 19, "")
    assert lsp.run(lsp.wait_for(uri, has_version(v))).diagnostics == ()


def test_columns_are_utf16_code_units(lsp):
    """LSP columns count UTF-16 code units (the default encoding); the compiler counts characters.  A playing-card
    character (U+1F0A1, outside the BMP: two UTF-16 units) before a typo moves the range by two, not one."""
    lines = ECARTE.read_text(encoding="utf-8").split("\n")
    assert lines[57] == '  action play "I play" { goto play }'
    lines[57] = '  action play "I play \U0001F0A1" { goto pla }'
    path = ECARTE.with_name("ecarte_unsaved_copy.atout")          # never written: the buffer is what compiles
    uri = lsp.open(path, "\n".join(lines))
    got = lsp.run(lsp.wait_for(uri, has_version(1)))
    assert [(d.code, d.message) for d in got.diagnostics] == [
        ("E109", "unknown phase 'pla'\nhint: did you mean 'play'?")]
    r = got.diagnostics[0].range
    # '  action play "I play ' is 22 characters, the card 2 units, '" { goto ' 9: 'pla' starts at unit 33
    assert (r.start.line, r.start.character, r.end.character) == (57, 33, 36)
    assert not path.exists()


def test_locals_resolve_to_their_binder(lsp):
    uri = lsp.open(ECARTE)
    lsp.run(lsp.wait_for(uri, has_version(1)))
    line = ECARTE.read_text(encoding="utf-8").split("\n")[144]
    assert line.startswith("  ends when any(p in players: points[p] >= target)")
    use = line.index("points[p]") + len("points[")
    locs = lsp.request("text_document_definition_async", T.DefinitionParams(doc(uri), T.Position(144, use)))
    assert [(loc.range.start.line, loc.range.start.character) for loc in locs] == [(144, 16)]
    h = lsp.request("text_document_hover_async", T.HoverParams(doc(uri), T.Position(144, use)))
    assert "bound by any(...)" in h.contents.value
    # the 'p' of returns(p) on the next line is another local
    refs = lsp.request("text_document_references_async", T.ReferenceParams(
        text_document=doc(uri), position=T.Position(144, use),
        context=T.ReferenceContext(include_declaration=True)))
    assert sorted((r.range.start.line, r.range.start.character) for r in refs) == [(144, 16), (144, use)]


def test_definition_of_deal_score_is_its_table(lsp):
    uri = lsp.open(ECARTE)
    lsp.run(lsp.wait_for(uri, has_version(1)))
    # 'score deal_score' (line 112) and 'complete deal_score' (line 162): at its start, inside, at its end
    for line, char in ((111, 12), (111, 17), (111, 22), (161, 36), (161, 46)):
        locs = lsp.request("text_document_definition_async", T.DefinitionParams(doc(uri), T.Position(line, char)))
        assert [(loc.uri, loc.range.start.line, loc.range.start.character, loc.range.end.character)
                for loc in locs] == [(uri, 124, 6, 16)], (line, char)
    # a keyword is no name: nothing to jump to
    assert lsp.request("text_document_definition_async", T.DefinitionParams(doc(uri), T.Position(111, 8))) is None


def test_references_of_deal_score(lsp):
    uri = lsp.open(ECARTE)
    lsp.run(lsp.wait_for(uri, has_version(1)))
    refs = lsp.request("text_document_references_async", T.ReferenceParams(
        text_document=doc(uri), position=T.Position(124, 8),
        context=T.ReferenceContext(include_declaration=True)))
    assert sorted(r.range.start.line + 1 for r in refs) == [112, 125, 162]
    refs = lsp.request("text_document_references_async", T.ReferenceParams(
        text_document=doc(uri), position=T.Position(124, 8),
        context=T.ReferenceContext(include_declaration=False)))
    assert sorted(r.range.start.line + 1 for r in refs) == [112, 162]
    # the option 'target': declared line 21, used in 'ends when' (145) and 'returns' (146)
    refs = lsp.request("text_document_references_async", T.ReferenceParams(
        text_document=doc(uri), position=T.Position(20, 8),
        context=T.ReferenceContext(include_declaration=True)))
    assert sorted(r.range.start.line + 1 for r in refs) == [21, 145, 146]


def test_hover_shows_the_declaration_and_its_source(lsp):
    uri = lsp.open(ECARTE)
    lsp.run(lsp.wait_for(uri, has_version(1)))
    # 'target' in line 145 '  ends when any(p in players: points[p] >= target)'
    h = lsp.request("text_document_hover_async", T.HoverParams(doc(uri), T.Position(144, 46)))
    text = h.contents.value
    assert "option target: int in 1..99 = 5" in text
    assert "source §10: the game is five points" in text          # the comment that cites the source
    assert "ecarte.atout:21" in text
    # a variable: its type is in its declaration
    h = lsp.request("text_document_hover_async", T.HoverParams(doc(uri), T.Position(99, 6)))   # 'exchanges += 1'
    assert "deal var exchanges: int = 0" in h.contents.value
    assert "exchanges completed in this deal" in h.contents.value
    # a built-in function
    h = lsp.request("text_document_hover_async", T.HoverParams(doc(uri), T.Position(75, 8)))   # 'size(stock)'
    assert "size(zone)" in h.contents.value


def test_completion_has_declared_names_and_keywords(lsp):
    uri = lsp.open(ECARTE)
    lsp.run(lsp.wait_for(uri, has_version(1)))
    got = lsp.request("text_document_completion_async", T.CompletionParams(doc(uri), T.Position(99, 4)))
    labels = {i.label for i in got.items}
    assert {"deal_score", "stock", "points", "exchanges", "target", "declare"} <= labels      # declared
    assert {"phase", "goto", "shuffle", "move", "when"} <= labels                              # keywords
    assert {"size", "tricks", "dealer", "eldest"} <= labels                                   # built-ins
    # after 'goto ' only phases
    got = lsp.request("text_document_completion_async", T.CompletionParams(doc(uri), T.Position(100, 9)))
    assert {i.label for i in got.items} == {"deal", "declare", "answer", "elder_exchange", "dealer_exchange",
                                            "play"}


def test_document_symbols_list_phases_actions_tables_properties(lsp):
    uri = lsp.open(ECARTE)
    lsp.run(lsp.wait_for(uri, has_version(1)))
    syms = lsp.request("text_document_document_symbol_async", T.DocumentSymbolParams(doc(uri)))
    by_name = {s.name: s for s in syms}
    phases = [s.name for s in syms if s.kind == T.SymbolKind.Class]
    assert phases == ["deal", "declare", "answer", "elder_exchange", "dealer_exchange", "play"]
    assert [c.name for c in by_name["declare"].children] == ["play", "propose"]
    assert by_name["declare"].range.start.line == 55 and by_name["declare"].range.end.line == 59
    table = by_name["deal_score"]
    assert table.kind == T.SymbolKind.Struct and table.selection_range.start.line == 124
    assert len(table.children) == 10 and table.children[0].name == "played_3_4"
    props = [s.name for s in syms if s.kind == T.SymbolKind.Property]
    assert props == ["three_point_cap", "exchange_can_end", "exchange_terminates", "elder_can_stop_exchanges",
                     "dealer_can_stop_exchanges", "reshuffle_conserves_cards", "match_terminates",
                     "scoring_complete", "everything_reachable"]


def test_definition_across_extends(lsp):
    uri = lsp.open(CLASSIC)
    assert lsp.run(lsp.wait_for(uri, has_version(1))).diagnostics == ()
    base = from_fs_path(str(ECARTE))
    # line 24 '  override action propose "I propose" when size(stock) >= 2 { goto answer }'
    line = CLASSIC.read_text(encoding="utf-8").split("\n")[23]
    assert line[48:53] == "stock" and line[67:73] == "answer"
    locs = lsp.request("text_document_definition_async", T.DefinitionParams(doc(uri), T.Position(23, 50)))
    assert [(loc.uri, loc.range.start.line + 1, loc.range.start.character + 1) for loc in locs] == [(base, 28, 6)]
    locs = lsp.request("text_document_definition_async", T.DefinitionParams(doc(uri), T.Position(23, 69)))
    assert [(loc.uri, loc.range.start.line + 1) for loc in locs] == [(base, 63)]             # phase answer
    # 'override action propose' -> the base's action (ecarte.atout line 59, column 10)
    locs = lsp.request("text_document_definition_async", T.DefinitionParams(doc(uri), T.Position(23, 20)))
    assert [(loc.uri, loc.range.start.line + 1, loc.range.start.character + 1) for loc in locs] == [(base, 59, 10)]
    # the references of 'exchanges' from the variant: both files
    refs = lsp.request("text_document_references_async", T.ReferenceParams(
        text_document=doc(uri), position=T.Position(41, 6),
        context=T.ReferenceContext(include_declaration=True)))
    places = sorted((r.uri == uri, r.range.start.line + 1) for r in refs)
    in_base = [36, 100, 127, 128, 129, 131, 132, 133, 135, 136, 137, 138]    # by grep, comments left out
    assert places == [(False, n) for n in in_base] + [(True, 42)]
    # and from the base, with the variant open: the variant's use too
    base_uri = lsp.open(ECARTE)
    lsp.run(lsp.wait_for(base_uri, has_version(1)))
    refs = lsp.request("text_document_references_async", T.ReferenceParams(
        text_document=doc(base_uri), position=T.Position(35, 12),
        context=T.ReferenceContext(include_declaration=True)))
    assert sorted((r.uri == uri, r.range.start.line + 1) for r in refs) == places
    # the outline is the variant's own declarations
    syms = lsp.request("text_document_document_symbol_async", T.DocumentSymbolParams(doc(uri)))
    assert [s.name for s in syms] == ["ecarte_classic", "declare", "elder_exchange", "dealer_exchange",
                                      "thirty_two_cards"]


def test_an_unsaved_base_error_shows_in_the_variant(lsp):
    base = lsp.open(ECARTE)
    lsp.run(lsp.wait_for(base, has_version(1)))
    # line 46 '    trumps = suit(top(turnup))' (a phase the variant inherits as it is): 'turnup' -> 'turnp'
    assert ECARTE.read_text(encoding="utf-8").split("\n")[45][22:28] == "turnup"
    v = lsp.edit(base, 45, 22, 28, "turnp")
    lsp.run(lsp.wait_for(base, has_version(v)))
    uri = lsp.open(CLASSIC)
    got = lsp.run(lsp.wait_for(uri, lambda p: any(d.code == "E103" for d in p.diagnostics)))
    d = next(d for d in got.diagnostics if d.code == "E103")
    assert d.range.start.line == 14                                 # the variant's 'extends "ecarte.atout"'
    assert f"{ECARTE}:46:23" in d.message and "unknown zone 'turnp'" in d.message
    assert d.related_information[0].location.uri == base
    assert d.related_information[0].location.range.start.line == 45
    v = lsp.edit(base, 45, 22, 27, "turnup")                        # fixed in the base: the variant is clean
    lsp.run(lsp.wait_for(base, has_version(v)))
    lsp.run(lsp.wait_for(uri, lambda p: p.diagnostics == ()))


_HEADER = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning)\[(?P<code>\w+)\]: "
                     r"(?P<msg>.*)$")


def _expected(name: str):
    """(path, line, col, severity, code, message, hint) of each diagnostic in ``tests/diagnostics/NAME.expected``."""
    out = []
    for line in (FIXTURES / f"{name}.expected").read_text(encoding="utf-8").split("\n"):
        m = _HEADER.match(line)
        if m:
            out.append([m["path"], int(m["line"]), int(m["col"]), m["sev"], m["code"], m["msg"], None])
        elif line.startswith("hint: ") and out:
            out[-1][6] = line[len("hint: "):]
    return out


FIXTURE_NAMES = sorted(p.stem for p in FIXTURES.glob("*.atout") if (FIXTURES / f"{p.stem}.expected").exists())


def test_every_diagnostic_fixture_shows_as_the_compiler_prints_it(lsp):
    """For each fixture, the server's diagnostics are the ones ``atout check`` prints (the .expected file): code,
    message, hint, severity, line and column."""
    uris = {name: lsp.open(FIXTURES / f"{name}.atout") for name in FIXTURE_NAMES}
    assert len(uris) >= 30
    for name, uri in uris.items():
        got = lsp.run(lsp.wait_for(uri, has_version(1)))
        want = []
        for path, line, col, sev, code, msg, hint in _expected(name):
            text = msg + (f"\nhint: {hint}" if hint else "")
            if Path(path).name != f"{name}.atout":          # in another file: shown on this file's extends line
                assert any(d.code == code and msg in d.message for d in got.diagnostics), (name, code)
                continue
            want.append((line - 1, col - 1, sev, code, text))
        have = [(d.range.start.line, d.range.start.character,
                 "warning" if d.severity == T.DiagnosticSeverity.Warning else "error", d.code,
                 d.message.replace(str(ROOT) + os.sep, ""))      # the server names files by absolute paths
                for d in got.diagnostics if not d.message.startswith("in ")]
        assert have == want, name


def test_lsp_without_pygls_is_a_clear_usage_error(monkeypatch, capsys):
    from atout.cli import main
    monkeypatch.setitem(sys.modules, "pygls", None)
    assert main(["lsp"]) == 2
    err = capsys.readouterr().err
    assert "pygls" in err and ".[lsp]" in err and "Traceback" not in err


@pytest.mark.skipif(shutil.which("true") is None, reason="needs a POSIX system")
def test_verdicts_on_save_on_the_property_lines(tmp_path):
    """With verifyOnSave, saving runs `atout verify` in the background: the server answers meanwhile, and the
    verdict lands on the property's line (tiny_duel: its two rows cover 0..2 tricks exactly, so
    scoring_complete is proved)."""
    path = tmp_path / "duel.atout"
    shutil.copy(ROOT / "tests" / "data" / "tiny_duel.atout", path)
    lines = path.read_text(encoding="utf-8").split("\n")
    prop_line = next(i for i, text in enumerate(lines) if text.startswith("property scoring_complete"))
    s = Session(init_options={"verifyOnSave": True})
    try:
        uri = s.open(path)
        assert s.run(s.wait_for(uri, has_version(1))).diagnostics == ()
        s.client.text_document_did_save(T.DidSaveTextDocumentParams(doc(uri)))
        t0 = time.perf_counter()
        at = T.Position(prop_line, lines[prop_line].index("deal_score"))
        h = s.request("text_document_hover_async", T.HoverParams(doc(uri), at))
        assert "table deal_score" in h.contents.value
        assert time.perf_counter() - t0 < 2.0          # answered while the verifier runs
        got = s.run(s.wait_for(uri, lambda p: any(d.source == "atout verify" for d in p.diagnostics)), timeout=120)
        verdicts = [d for d in got.diagnostics if d.source == "atout verify"]
        assert [(d.code, d.range.start.line, d.range.start.character, d.severity) for d in verdicts] == [
            ("proved", prop_line, 9, T.DiagnosticSeverity.Information)]
        assert verdicts[0].message.startswith("scoring_complete: proved")
        # a line typed above it: the verdict follows its property (found again by name), the file unsaved
        v = s.edit(uri, 0, 0, 0, "# a note\n")
        got = s.run(s.wait_for(uri, has_version(v)))
        assert [(d.code, d.range.start.line) for d in got.diagnostics if d.source == "atout verify"] == [
            ("proved", prop_line + 1)]
    finally:
        s.close()


def test_no_verification_unless_asked(lsp, tmp_path):
    path = tmp_path / "duel.atout"
    shutil.copy(ROOT / "tests" / "data" / "tiny_duel.atout", path)
    uri = lsp.open(path)
    lsp.run(lsp.wait_for(uri, has_version(1)))
    lsp.client.text_document_did_save(T.DidSaveTextDocumentParams(doc(uri)))
    # a request after the save is answered after the save is handled; no verifier was started
    lsp.request("text_document_hover_async", T.HoverParams(doc(uri), T.Position(0, 0)))
    time.sleep(0.5)
    assert not any("atout verify" in m for m in lsp.logs)
    assert not any(d.source == "atout verify" for d in lsp.diagnostics[uri].diagnostics)

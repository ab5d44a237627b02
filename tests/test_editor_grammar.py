"""The VS Code extension's files (editors/vscode/): valid JSON, and a TextMate grammar whose keyword patterns
cover every keyword of the language's grammar (read from grammar/atout.lark, not from the compiler)."""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "editors" / "vscode"
TM = VSCODE / "syntaxes" / "atout.tmLanguage.json"


def lark_keywords() -> set[str]:
    """The words the .lark grammar writes as literals ("game", "extends", ... and the alternatives of
    REMOVABLE, ZONE_ATTR and PER_WHAT), its // comments left out."""
    text = (ROOT / "grammar" / "atout.lark").read_text(encoding="utf-8")
    text = "\n".join(line.split("//")[0] for line in text.split("\n"))
    return {w for w in re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', text)}


def tm_words(node) -> set[str]:
    """The words of the ``\\b(?:a|b|c)\\b`` alternations in every match/begin of a TextMate grammar."""
    out: set[str] = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("match", "begin") and isinstance(v, str):
                for group in re.findall(r"\\b\((?:\?:)?([A-Za-z_|]+)\)", v):
                    out.update(group.split("|"))
            else:
                out |= tm_words(v)
    elif isinstance(node, list):
        for v in node:
            out |= tm_words(v)
    return out


def test_the_extension_files_are_valid_json():
    pkg = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    json.loads((VSCODE / "language-configuration.json").read_text(encoding="utf-8"))
    grammar = json.loads(TM.read_text(encoding="utf-8"))
    assert grammar["scopeName"] == "source.atout"
    langs = pkg["contributes"]["languages"]
    assert langs[0]["id"] == "atout" and ".atout" in langs[0]["extensions"]
    (g,) = pkg["contributes"]["grammars"]
    assert (VSCODE / g["path"]).resolve() == TM.resolve() and g["scopeName"] == "source.atout"
    assert (VSCODE / pkg["main"]).exists()
    assert "vscode-languageclient" in pkg["dependencies"]
    assert "'lsp'" in (VSCODE / "extension.js").read_text(encoding="utf-8").replace('"lsp"', "'lsp'")


def test_the_textmate_grammar_covers_every_keyword():
    kws = lark_keywords()
    assert {"game", "extends", "phase", "trick", "table", "property", "override", "goto", "home", "side"} <= kws
    assert len(kws) > 80
    missing = kws - tm_words(json.loads(TM.read_text(encoding="utf-8")))
    assert not missing, sorted(missing)


def test_the_textmate_regexes_compile():
    """Every pattern is a regular expression (Python's re reads these simple ones as Oniguruma does)."""
    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("match", "begin", "end") and isinstance(v, str):
                    re.compile(v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(json.loads(TM.read_text(encoding="utf-8")))
    # one that could not fail is no check: a broken pattern is refused
    try:
        re.compile(r"\b(?:a|b")
    except re.error:
        pass
    else:  # pragma: no cover
        raise AssertionError("re accepted a broken pattern")

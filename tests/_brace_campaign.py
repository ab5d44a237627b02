"""The deleted-brace campaign (issue 11): delete each single '}' of a rule file, one at a time, and judge the hint.

    python tests/_brace_campaign.py [FILE ...] [--show CLASS] [--unnamed] [--limit N] [--baseline REV]

For every rule file (default: every ``rules/*.atout``) and every '}' in it, the file with that one character
deleted is compiled (``compile_file`` on a copy of ``rules/`` in a temporary folder, so that variants find their
base); the first diagnostic is classified by :func:`classify`:

* ``brace``    -- its hint says that a '}' is missing (the truth);
* ``expects``  -- no such hint, but the hint lists '}' among what was expected (not wrong, not much help);
* ``reserved`` -- the message or the hint blames a reserved word (misleading: nothing was renamed);
* ``other``    -- any other hint, or none (misleading: it points away from the missing brace);
* ``compiles`` -- the file still compiles (the '}' was in a comment or a string).

``misleading`` is ``reserved + other``; ``names the block`` counts the ``brace`` hints that name the line of the
'{' whose '}' was deleted (the hint names the '{' still open and, by the indentation, the block that lacks its '}').  The script prints one line per file and the totals; ``--show CLASS``
also prints the diagnostics of that class.  tests/test_brace_hints.py runs a bounded form of it.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from atout.compiler import CompileError, compile_file
from atout.compiler.parse import _brace_scan

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
CLASSES = ("brace", "expects", "reserved", "other", "compiles")
MISLEADING = ("reserved", "other")
_MISSING_BRACE = re.compile(r"'\}' (?:is )?(?:probably )?missing|is a '\}' missing|missing '\}'")


def brace_offsets(text: str) -> list[int]:
    """Offsets of every '}' in ``text`` (comments and strings included: deleting one there changes nothing)."""
    return [i for i, c in enumerate(text) if c == "}"]


def classify(diagnostic) -> str:
    """The class of the first diagnostic of a file whose only mistake is a deleted '}' (see the module doc)."""
    if diagnostic is None:
        return "compiles"
    hint = diagnostic.hint or ""
    if _MISSING_BRACE.search(hint):
        return "brace"
    if "reserved word" in diagnostic.message or "reserved word" in hint:
        return "reserved"
    if hint.startswith("expected") and "'}'" in hint:
        return "expects"
    return "other"


def opener_lines(text: str) -> dict[int, int]:
    """For the offset of each '}' of ``text`` that closes a block, the line of the '{' it closes."""
    _, pairs, _ = _brace_scan(text, len(text))
    return {c: text.count("\n", 0, o) + 1 for o, c in pairs}


def names_block(diagnostic, line: int | None) -> bool:
    """Whether the hint of a ``brace`` diagnostic names the line of the '{' whose '}' was deleted."""
    return line is not None and re.search(rf"\bline {line}\b", diagnostic.hint or "") is not None


def run_file(path: Path, workdir: Path):
    """Yield (offset, line, first diagnostic or None, line of the '{' the deleted '}' closed or None) for every
    single-'}' deletion of the rule file ``path``; the mutant is written to ``workdir`` (a copy of the file's
    folder, so that ``extends`` resolves)."""
    text = path.read_text(encoding="utf-8")
    target = workdir / path.name
    openers = opener_lines(text)
    try:
        for off in brace_offsets(text):
            target.write_text(text[:off] + text[off + 1:], encoding="utf-8")
            try:
                compile_file(str(target))
                first = None
            except CompileError as exc:
                first = exc.diagnostics[0] if exc.diagnostics else None
            yield off, text.count("\n", 0, off) + 1, first, openers.get(off)
    finally:
        target.write_text(text, encoding="utf-8")


def campaign(paths) -> dict[str, Counter]:
    """Counter of classes for each rule file of ``paths`` (every single-'}' deletion of each)."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for f in RULES.glob("*.atout"):
            shutil.copy(f, work / f.name)
        for p in paths:
            p = Path(p)
            if not (work / p.name).exists():
                shutil.copy(p, work / p.name)
            counts = Counter()
            for _, _, d, opened in run_file(p, work):
                c = classify(d)
                counts[c] += 1
                counts["names"] += c == "brace" and names_block(d, opened)
            out[p.name] = counts
    return out


def _use_baseline(rev: str) -> None:
    """Replace the compiler's syntax diagnostics by those of compiler/parse.py at git revision ``rev``."""
    import subprocess
    import types
    import atout.compiler.parse as current
    source = subprocess.run(["git", "show", f"{rev}:compiler/parse.py"], cwd=ROOT, check=True, capture_output=True,
                            text=True).stdout
    old = types.ModuleType("atout.compiler._baseline_parse")
    old.__package__ = "atout.compiler"
    exec(compile(source, f"{rev}:compiler/parse.py", "exec"), old.__dict__)
    current._syntax_diagnostic = old._syntax_diagnostic


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--show", choices=CLASSES, action="append", default=[])
    ap.add_argument("--unnamed", action="store_true", help="show the brace hints that miss the block's line")
    ap.add_argument("--limit", type=int, default=10**9, help="at most N shown diagnostics per file")
    ap.add_argument("--baseline", metavar="REV", help="judge the syntax hints of compiler/parse.py as of git "
                                                      "revision REV (read with 'git show'), for before/after figures")
    args = ap.parse_args(argv)
    if args.baseline:
        _use_baseline(args.baseline)
    paths = [Path(f) for f in args.files] or sorted(RULES.glob("*.atout"))
    total = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for f in RULES.glob("*.atout"):
            shutil.copy(f, work / f.name)
        for p in paths:
            if not (work / p.name).exists():
                shutil.copy(p, work / p.name)
            counts = Counter()
            shown = 0
            for off, line, d, opened in run_file(p, work):
                c = classify(d)
                counts[c] += 1
                counts["names"] += c == "brace" and names_block(d, opened)
                if (c in args.show or args.unnamed and c == "brace" and not names_block(d, opened)) \
                        and shown < args.limit:
                    shown += 1
                    print(f"--- {p.name}: '}}' deleted at line {line} (offset {off}) -> {c}")
                    print(f"{d.span.line}:{d.span.col}: {d.code} {d.message}\n    hint: {d.hint}" if d else "compiles")
            total += counts
            print(f"{p.name:22} {sum(counts[c] for c in CLASSES):4} deletions  "
                  + "  ".join(f"{c} {counts[c]}" for c in CLASSES)
                  + f"  misleading {sum(counts[c] for c in MISLEADING)}  names the block {counts['names']}")
    print(f"{'total':22} {sum(total[c] for c in CLASSES):4} deletions  " + "  ".join(f"{c} {total[c]}" for c in CLASSES)
          + f"  misleading {sum(total[c] for c in MISLEADING)}  names the block {total['names']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

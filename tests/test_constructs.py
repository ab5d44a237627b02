"""Every construct of the language has a line in the verifier's table (verify/constructs.py), which
docs/verify.md shows: a construct added to the IR, the compiler's functions or its built-in names without
saying how the verifier models it fails here (issue 8: sound for every construct, or silent)."""
from __future__ import annotations

import inspect
import os
from dataclasses import fields

from atout.compiler import ir
from atout.compiler.resolve import BUILTINS, FUNCTIONS
from atout.verify import constructs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _subclasses(base):
    return {name for name, obj in inspect.getmembers(ir, inspect.isclass)
            if issubclass(obj, base) and obj is not base and obj.__module__ == ir.__name__}


def test_every_statement_and_expression_class_is_in_the_table():
    covered = constructs.covered_nodes()
    missing = sorted((_subclasses(ir.Stmt) | _subclasses(ir.Expr)) - covered)
    assert not missing, f"no line in verify/constructs.py for: {missing}"


def test_every_field_of_the_control_constructs_is_in_the_table():
    covered = constructs.covered_nodes()
    missing = []
    for cls, skip in ((ir.Trick, {"span"}), (ir.Match, {"span", "start", "returns_var"})):
        for f in fields(cls):
            if f.name not in skip and f"{cls.__name__}.{f.name}" not in covered:
                missing.append(f"{cls.__name__}.{f.name}")
    for node in ("Phase.kind", "Param", "Action.guard", "Var", "Zone"):
        assert node in covered
    assert not missing, f"no line in verify/constructs.py for: {missing}"


def test_every_function_and_builtin_name_is_in_the_table():
    assert not set(FUNCTIONS) - set(constructs.FUNCTIONS), set(FUNCTIONS) - set(constructs.FUNCTIONS)
    assert not set(BUILTINS) - set(constructs.BUILTINS), set(BUILTINS) - set(constructs.BUILTINS)
    kinds = {p for p, _ in constructs.PROPERTIES}
    for kind in ("invariant", "deal_bound", "terminates {PHASES}", "terminates match", "can_end", "can_force",
                 "complete", "reachable", "conserves"):
        assert any(kind in k for k in kinds), kind


def test_docs_show_the_table():
    with open(os.path.join(ROOT, "docs", "verify.md"), encoding="utf-8") as fh:
        doc = fh.read()
    assert constructs.render() in doc, "docs/verify.md does not show verify/constructs.py's table " \
                                       "(paste constructs.render())"

"""The abstract evaluator's work grows linearly with the nesting of ``not`` and of ``and``/``or`` chains whose
left operand it cannot decide: an operand's values are computed once, not once more for the general case
(before, each ``not`` whose operand had two values evaluated it twice: 2**k work for k nested ``not``s; a
fuzzed rule file with 20 of them took 86 s).  Counted in evaluator calls, not seconds."""
from __future__ import annotations

from pathlib import Path

import pytest

from atout.compiler import compile_text
from atout.engine import Game
from atout.verify.abstract_eval import AbstractEvaluator
from atout.verify.cli import verify_game

TINY = (Path(__file__).parent / "data" / "tiny_duel.atout").read_text(encoding="utf-8")
PLAY = '  action play "I play" { goto play }'


def _game(guard: str) -> Game:
    assert PLAY in TINY
    text = TINY.replace(PLAY, f'  action play "I play" when {guard} {{ goto play }}')
    return Game(compile_text(text, "nested.atout"))


def _evaluations(monkeypatch, guard: str) -> tuple[int, dict]:
    calls = {"n": 0}
    real = AbstractEvaluator._eval_node

    def counted(self, e, w, env):
        calls["n"] += 1
        return real(self, e, w, env)

    monkeypatch.setattr(AbstractEvaluator, "_eval_node", counted)
    results, _ = verify_game(_game(guard), names=["scoring_complete"], builtins=False)
    return calls["n"], {r.name: r.verdict for r in results}


@pytest.mark.parametrize("make", [
    lambda k: "not " * k + "(points[0] < 5)",
    lambda k: "(" * k + "points[0] < 5" + "".join(f" {'and' if i % 2 else 'or'} points[0] < 5)" for i in range(k)),
], ids=["not", "and-or"])
def test_work_is_linear_in_the_nesting(monkeypatch, make):
    small, v_small = _evaluations(monkeypatch, make(6))
    large, v_large = _evaluations(monkeypatch, make(14))
    # The guard's value is undecided in some abstract states (points[0] is an interval there), so every level
    # reaches the general case; linear work: a nesting of 14 instead of 6 costs at most 5x the calls
    # (2**8 x before).
    assert large <= 5 * max(small, 1), (small, large)
    # The guard only enables 'play'; the table is complete whatever it says (two rows: 2 tricks, <= 1 trick).
    assert v_small == v_large == {"scoring_complete": "proved"}

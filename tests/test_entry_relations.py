"""Phase-entry relations (verify/smt_refine.py ``entry_suffixes`` / ``entry_relation``).

Whist counts each side's trump honours (A K Q J) after the deal, just before ``goto play``; ``held`` is frozen
during the tricks, so z3 reads it over what was recorded when play entered the phase.  Recorded one value
at a time (``held[0]`` in 0..4, ``held[1]`` in 0..4) the split of the four honours is lost; z3 running the
statements after the deal from the abstract state where they start keeps it.  Held against:

* the engine: at every entry into ``play`` in seeded matches, the concrete values satisfy the recorded
  constraint (what soundness asks);
* the rules, by hand: the four honours are split between the two sides, so ``held[0] + held[1] <= 4``
  follows from the constraint, which still allows every split of them;
* the verdicts: Whist's ``honours_split`` and ``deal_score_bound`` proved, and its two tables whose rows
  seemed to overlap refuted by their true gap (a concrete replay);
* the fallback: a ``goto`` into the phase that is not the end of a top-level block gives no relation.
"""
from __future__ import annotations

import os
import random
from types import SimpleNamespace

import z3

from atout.compiler import compile_file, compile_text
from atout.engine import Game
from atout.verify import smt_refine
from atout.verify.checker import Spec, Verifier
from atout.verify.symbolic import as_bool, land

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHIST = os.path.join(ROOT, "rules", "whist.atout")


def _whist():
    game = Game(compile_file(WHIST))
    ex, A, err = Verifier(game).exploration(Spec())
    assert ex is not None, err
    return game, A


def _cells(A, phase):
    """A z3 constant per cell of the phase's frozen variables and companions (as with_entries names them)."""
    out = {}
    for n in A.frozen[phase] + A.companions[phase]:
        v = A.var_types[n]
        width = None if v.per is None else (A.n if v.per == "player" else max(1, len(A.g.sides)))
        out[n] = z3.Int(n) if width is None else [z3.Int(f"{n}[{i}]") for i in range(width)]
    return out


def _constraint(A, phase, cells):
    names = A.frozen[phase] + A.companions[phase]
    recorded = smt_refine.entry_constraint(SimpleNamespace(vars=cells), names, list(A.entries[phase]))
    return as_bool(land(recorded, smt_refine.entry_relation(A, phase, cells)))


def test_whist_entry_relation_covers_concrete_entries():
    """At every entry into 'play' of seeded engine matches, held (and the other recorded values) satisfy the
    constraint z3 is given: the abstract valuations and the octagon of the entry suffix's runs."""
    game, A = _whist()
    assert "held" in A.frozen["play"] and not A.entry_broken
    assert [b[3] for b in A.entry_blocks.values()] == ["play"] and A.entry_starts["play"]
    cells = _cells(A, "play")
    c = _constraint(A, "play", cells)
    rng = random.Random(11)
    entries = 0
    for _ in range(25):
        st = game.new_initial_state()
        before = st.phase
        while not st.is_terminal():
            if st.phase == "play" and before != "play":
                subst = []
                for n, x in cells.items():
                    vals = st.vars[n] if isinstance(x, list) else [st.vars[n]]
                    xs = x if isinstance(x, list) else [x]
                    subst += [(a, z3.IntVal(int(v))) for a, v in zip(xs, vals)]
                assert z3.is_true(z3.simplify(z3.substitute(c, *subst))), {n: st.vars[n] for n in cells}
                entries += 1
            before = st.phase
            acts = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
            st.apply_action(rng.choice(acts))
    assert entries >= 25


def test_whist_entry_relation_keeps_the_split_of_the_honours():
    """By the rules (four trump honours, dealt between two sides): held[0] + held[1] <= 4 follows from the
    constraint, which the values recorded one by one do not imply, and every split of the four is allowed."""
    _, A = _whist()
    cells = _cells(A, "play")
    h = cells["held"]
    s = z3.Solver()
    s.add(_constraint(A, "play", cells), h[0] + h[1] > 4)
    assert s.check() == z3.unsat
    s = z3.Solver()
    s.add(as_bool(smt_refine.entry_constraint(SimpleNamespace(vars=cells), A.frozen["play"] + A.companions["play"],
                                              list(A.entries["play"]))), h[0] + h[1] > 4)
    assert s.check() == z3.sat          # the abstract valuations alone lose it
    for a in range(5):
        s = z3.Solver()
        s.add(_constraint(A, "play", cells), h[0] == a, h[1] == 4 - a)
        assert s.check() == z3.sat, a


def test_whist_honours_verdicts_are_proved():
    """The invariant held[0] + held[1] <= 4 and the deal bound that needs it are proved (were unknown)."""
    from atout.verify.cli import verify_game
    game = Game(compile_file(WHIST))
    results, _ = verify_game(game, names=["honours_split", "deal_score_bound"])
    assert {r.name: r.verdict for r in results} == {"honours_split": "proved", "deal_score_bound": "proved"}


def test_a_goto_inside_an_if_gives_no_relation():
    """Play enters the phase through a goto that is not the last statement of a top-level block: no suffix
    covers that entry, so the phase has no entry relation (the recorded valuations alone are used)."""
    with open(WHIST) as f:
        text = f.read()
    old = "    goto play\n  }\n}"
    assert old in text
    nested = compile_text(text.replace(old, "    if true { goto play }\n    goto play\n  }\n}"), "nested.atout")
    assert not smt_refine.entry_suffixes(nested, {"play": ("before", "held")})
    plain = compile_file(WHIST)
    got = smt_refine.entry_suffixes(plain, {"play": ("before", "held")})
    (block, start, suffix, phase), = got.values()
    assert phase == "play" and len(suffix) == 3 and start == len(block) - 4
    assert not smt_refine.entry_suffixes(plain, {"play": ("scored",)})    # the suffix does not set it


def test_whist_tables_show_their_true_gap():
    """With the split of the honours known, z3 over the deal-end blocks rules out the overlaps the outcomes
    showed (both sides with four honours; both with a game): what is left is the tables' true gap (no row
    applies with honours split 2-2, or with no game won), which the engine replays."""
    from atout.verify.properties import table_result
    game = Game(compile_file(WHIST))
    V = Verifier(game)
    for t in ("honour_points", "game_won"):
        r = table_result(V, f"builtin:table:{t}", "complete", V.g.table(t))
        assert r.verdict == "refuted" and "no row applies" in r.method, (t, r.verdict, r.method)
        assert r.counterexample is not None


def test_the_octagon_is_joined_over_the_turns_of_the_table():
    """By hand: two players, x per player, the suffixes gave x[0] in 0..1, x[1] in 2..3, x[0] + x[1] in 2..4 and
    x[0] - x[1] in -3..-1.  Turned by one seat, x[0] is in 2..3, x[1] in 0..1 and x[0] - x[1] in 1..3; the
    relation holds in either labels, so it is the join: 0..3, 0..3, 2..4 and -3..3."""
    from atout.verify.smt_refine import _symmetric_hull
    var = SimpleNamespace(per="player")
    A = SimpleNamespace(rotational=True, n=2, side_turn=(), var_types={"x": var},
                        dead_value=lambda v: (None, None))
    hull = [(0, 1), (2, 3), (2, 4), (-3, -1)]
    assert _symmetric_hull(A, ["x"], hull) == [(0, 3), (0, 3), (2, 4), (-3, 3)]
    A.rotational = False
    assert _symmetric_hull(A, ["x"], hull) == hull

"""The symbolic execution of the rules (verify/symbolic.py, verify/smt_refine.py) against the engine (issue 10).

The verifier uses z3 over the rules' expressions and deal-end blocks to rule out rule errors and to narrow
the gains of a deal; a proof is only as good as that encoding.  So it is held against the engine, the
reference implementation, on the same concrete states:

* every expression of the rules (of every shipped game and the construct fixtures) in the states of seeded
  matches: the symbolic value of the one concrete state (every card's zone and every value known) is the
  engine's value, and where the engine raises a rule error the symbolic run records one that holds;
* every deal-end block (the scoring after the last trick): run from the concrete state at its start, it
  leaves the match variables as the engine does, and raises a rule error where the engine does;
* by hand: Hearts' points of a hand add up to 26, or 78 when the moon is shot, whatever the split of the
  cards taken, and a block that can break a range is shown to.
"""
from __future__ import annotations

import os
import random

import pytest
import z3

from atout.compiler import compile_file, compile_text, ir
from atout.engine import Game, RuleError
from atout.verify import smt_refine, symbolic
from atout.verify.liveness import rule_expressions, subexprs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = sorted(os.path.join(ROOT, "rules", f) for f in os.listdir(os.path.join(ROOT, "rules"))) + \
    [os.path.join(ROOT, "tests", "data", name) for name in
     ("every_construct.atout", "family_constructs.atout", "trump_order.atout", "pinned_rows.atout",
      "card_blind.atout")]


def _value(x):
    """A symbolic value of a fully known state as a Python value."""
    if symbolic._const(x):
        return x
    y = z3.simplify(x)
    if z3.is_true(y):
        return True
    if z3.is_false(y):
        return False
    assert z3.is_int_value(y), f"not a constant: {y}"
    return y.as_long()


def _holds(cond) -> bool:
    return _value(symbolic.as_bool(cond)) is True


def _free_locals(e):
    bound = {x.var for x in subexprs(e) if isinstance(x, (ir.Quant, ir.NextPlayer))}
    return {x.name: x.type for x in subexprs(e) if isinstance(x, ir.Local) and x.name not in bound}


def _env(game, free: dict, rng) -> dict:
    env = {}
    for name, t in free.items():
        if t.kind == "player":
            env[name] = rng.randrange(game.players)
        elif t.kind == "card":
            env[name] = rng.randrange(game.num_cards)
        elif t.kind == "suit":
            env[name] = rng.randrange(len(game.deck.suits))
        elif t.kind == "bool":
            env[name] = rng.random() < 0.5
        else:
            env[name] = rng.randrange(0, 6)
    return env


def _expressions(game):
    seen, out = set(), []
    for e in rule_expressions(game.ir):
        for x in subexprs(e):
            if x in seen or isinstance(x, ir.ZoneRef) or isinstance(x, ir.Index) and isinstance(x.base, ir.ZoneRef):
                continue
            if any(isinstance(y, ir.Call) and y.fn in ("gain", "top") for y in subexprs(x)):
                continue    # gain() is a property's; top() reads the order of a zone, which z3 does not model
            seen.add(x)
            out.append(x)
    return out


@pytest.mark.parametrize("path", GAMES, ids=lambda p: os.path.basename(p))
def test_symbolic_values_are_the_engines(path):
    game = Game(compile_file(path), compiled=False)   # the interpreter's closures evaluate each expression
    exprs = _expressions(game)
    rng = random.Random(11)
    checked = errors = 0
    for _ in range(3):
        st = game.new_initial_state()
        steps = 0
        while not st.is_terminal() and steps < 300:
            steps += 1
            if st.is_chance_node():
                st.apply_action(rng.choice(st.chance_outcomes())[0])
                continue
            if steps % 3 == 0:
                for e in exprs:
                    env = _env(game, _free_locals(e), rng)
                    try:
                        value = game.compile(e)(st, env)
                        error = False
                    except RuleError:
                        error = True
                    except (TypeError, KeyError, IndexError, AssertionError):
                        continue   # a subexpression that only makes sense under its parent
                    if isinstance(value, list):
                        continue
                    ev = symbolic.Evaluator(symbolic.from_concrete(st))
                    try:
                        got = ev.expr(e, env)
                    except symbolic.NotEncodable:
                        continue
                    if error:
                        errors += 1
                        assert any(_holds(c) for c, _ in ev.errors), (ir._expr_text(e), ev.errors)
                    else:
                        assert _value(got) == value, (ir._expr_text(e), value, got)
                        assert type(_value(got)) is bool or not isinstance(value, bool), ir._expr_text(e)
                    checked += 1
            legal = st.legal_actions()
            if not legal:
                break
            try:
                st.apply_action(rng.choice(legal))
            except RuleError:
                break
    assert checked > 200


def _deal_end_blocks(game):
    """``{(id(block), start): statements}``: the trick phases' ``then`` blocks (from 0) and the deal-end tails
    of choice phases' actions (:func:`atout.verify.liveness.action_deal_ends`)."""
    from atout.verify.liveness import action_deal_ends
    out = {(id(ph.trick.then), 0): ph.trick.then for ph in game.ir.phases if ph.trick is not None and ph.trick.then}
    out.update({(id(block), start): block[start:] for _, block, start in action_deal_ends(game.ir)})
    return out


@pytest.mark.parametrize("path", [p for p in GAMES if "rules" in p] +
                         [os.path.join(ROOT, "tests", "data", name) for name in
                          ("bids_by_hand.atout", "tricks_by_hand.atout")], ids=lambda p: os.path.basename(p))
def test_deal_end_blocks_do_what_the_engine_does(path):
    """From the concrete state at the start of each deal-end block of seeded matches (a trick phase's ``then``
    block, or a deal-end tail of an action when tricks are played by hand), the symbolic run ends with the
    match variables the engine ends the deal with (the interpreted engine, whose effect frames the test
    watches; the compiled one agrees with it step by step: tests/test_compiled_engine.py)."""
    game = Game(compile_file(path), compiled=False)
    blocks = _deal_end_blocks(game)
    if not blocks or not all(symbolic.encodable(b) for b in blocks.values()):
        pytest.skip("no deal-end block the symbolic execution follows")
    rng = random.Random(5)
    compared = 0
    for _ in range(8):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(rng.choice(st.chance_outcomes())[0])
                continue
            seen = []
            real = type(st)._run_frame

            def hook(self=st, real=real, seen=seen):
                top = self.frames[-1] if self.frames else None
                if top is not None and (id(top[0]), top[1]) in blocks and not seen:
                    ex = symbolic.Execution(symbolic.from_concrete(self), range_errors=True)
                    ex.run(blocks[id(top[0]), top[1]])
                    seen.append(ex)
                real(self)
            st._run_frame = hook
            deals = len(st.deal_log)
            try:
                st.apply_action(rng.choice(st.legal_actions()))
                error = None
            except RuleError as exc:
                error = exc
            del st._run_frame
            if not seen:
                if error is not None:
                    break
                continue
            ex = seen[0]
            if error is not None:
                assert any(_holds(c) for c, _ in ex.errors), (str(error), ex.errors)
                break
            assert not any(_holds(c) for c, _ in ex.errors), ex.errors
            assert len(st.deal_log) == deals + 1
            after = st.deal_values[-1]["after"]
            for v in game.ir.vars:
                if v.scope == "match":
                    want = after[v.name]
                    got = ex.S.vars[v.name]
                    got = [_value(x) for x in got] if isinstance(got, list) else _value(got)
                    assert got == want, (v.name, got, want)
            compared += 1
    assert compared >= 4


HEARTS = os.path.join(ROOT, "rules", "hearts.atout")


def _hearts_end_state():
    """Hearts' abstract state where the scoring starts (every card taken), and its deal-end block."""
    from atout.verify.checker import Spec, Verifier
    game = Game(compile_file(HEARTS))
    V = Verifier(game)
    ex, A, err = V.exploration(Spec(precise=True, blind=True))
    assert ex is not None, err
    start, block = ex.end_blocks[0]
    return game, A, start, block


def test_hearts_points_add_up_to_26_or_78():
    """By hand: the 13 hearts (1 each) and the Q of spades (13) are all taken by someone, so the points of
    a hand add up to 26; a player who takes all 14 gets 0 and the three others 26 each, 78 in all."""
    game, A, start, block = _hearts_end_state()
    ex = smt_refine.run_block(A, start, block)
    assert ex.S.classes is not None and sorted(len(c) for c in ex.S.classes) == [1, 13, 38]
    s = symbolic.solver(ex.S, A.rlimit)
    tot = symbolic.total(ex.gains("points"))
    assert symbolic.possible(s, z3.And(tot != 26, tot != 78)) is False
    assert symbolic.possible(s, tot == 26) and symbolic.possible(s, tot == 78)
    # each player's points: 0..26 (no moon), or -26+26 = 0 and 26 (moon)
    for p in range(4):
        g = ex.gains("points")[p]
        assert symbolic.possible(s, z3.Or(g < 0, g > 26)) is False
        assert symbolic.possible(s, g == 26) and symbolic.possible(s, g == 0) and symbolic.possible(s, g == 13)
    prop = next(p for p in game.ir.properties if p.name == "points_per_hand")
    assert smt_refine.deal_bound_can_fail(A, start, block, prop.expr) is False


def test_a_bound_that_fails_is_shown_to_fail():
    """The same block against a bound it breaks: 'each player takes at most 13 points' fails (the Q of
    spades and a heart, 14), 'the points add up to 26' fails when the moon is shot."""
    game, A, start, block = _hearts_end_state()
    text = open(HEARTS, encoding="utf-8").read() + \
        "\nproperty at_most_13: deal_bound gain(points[p]) <= 13\nproperty always_26: deal_bound gain(total(points)) == 26\n"
    g2 = Game(compile_text(text, HEARTS))
    for name in ("at_most_13", "always_26"):
        prop = next(p for p in g2.ir.properties if p.name == name)
        assert smt_refine.deal_bound_can_fail(A, start, block, prop.expr) is True, name


def test_block_errors_are_found_and_ruled_out():
    """Hearts' scoring raises no rule error in any state where it starts (its writes to the match variable
    are left to the range lemma); with the writes checked in the block itself (``range_errors``, the match
    variable any value of its range before), a write that leaves the range is found."""
    game, A, start, block = _hearts_end_state()
    assert smt_refine.possible_error_locations(A, start, block) == set()
    narrow = open(HEARTS, encoding="utf-8").read().replace("match var points: int in -10..26", "match var points: int in -10..20")
    g2 = Game(compile_text(narrow, HEARTS))
    from atout.verify.checker import Spec, Verifier
    V = Verifier(g2)
    ex, A2, err = V.exploration(Spec(precise=True, blind=True, range_errors=True))
    start2, block2 = ex.end_blocks[0]
    places = smt_refine.possible_error_locations(A2, start2, block2)
    assert places, "a player taking 26 points leaves 0..20"


def test_table_checked_without_exploration():
    """Rows 'X != none' and 'X == none' cover every value of X exactly once, whatever X reads; rows that
    overlap or leave a gap are not proved that way."""
    game = Game(compile_file(HEARTS))
    table = game.ir.table("hand_score")
    assert symbolic.table_holds_everywhere(game, table, 20_000_000) is True
    src = open(HEARTS, encoding="utf-8").read()
    gap = src.replace("row no_moon: shooter() == none", "row no_moon: shooter() == seat(0)")
    assert symbolic.table_holds_everywhere(Game(compile_text(gap, HEARTS)), table_of(gap), 20_000_000) is False
    overlap = src.replace("row no_moon: shooter() == none", "row no_moon: true")
    assert symbolic.table_holds_everywhere(Game(compile_text(overlap, HEARTS)), table_of(overlap), 20_000_000) is False


def table_of(text):
    return compile_text(text, HEARTS).table("hand_score")


def test_hearts_is_decided():
    """Issue 10's four-player, thirteen-trick game written by hand: every property of rules/hearts.atout and
    every built-in check is proved (none unknown), and the cross-check finds nothing wrong."""
    from atout.verify.cli import CrossCheck, verify_game
    game = Game(compile_file(HEARTS))
    cross = CrossCheck()
    results, _ = verify_game(game, cross=cross)
    assert {r.name: r.verdict for r in results if r.verdict != "proved"} == {}
    assert cross.matches > 0 and not cross.failures
    by = {r.name: r for r in results}
    assert "followed symbolically" in by["points_per_hand"].method
    assert "no exploration" in by["scoring_complete"].method


SPADES = os.path.join(ROOT, "rules", "spades.atout")


def test_spades_is_decided():
    """Spades: the bids are frozen during the thirteen tricks (not kept there; recorded as play enters it
    and given to z3 at the scoring and for the invariant), and every property and built-in check is
    proved, the cross-check finding nothing wrong."""
    from atout.verify.cli import CrossCheck, verify_game
    game = Game(compile_file(SPADES))
    cross = CrossCheck()
    results, _ = verify_game(game, cross=cross)
    assert {r.name: r.verdict for r in results if r.verdict != "proved"} == {}
    assert cross.matches > 0 and not cross.failures
    by = {r.name: r for r in results}
    assert "z3 showed it holds" in by["bids_at_most_thirteen_a_side"].method


BIDS_BY_HAND = os.path.join(ROOT, "tests", "data", "bids_by_hand.atout")


# entries: how many valuations play enters the phase with, by hand: Spades' contracts (a, b) with a + b <= 13,
# 105 per side, squared; bids_by_hand's four bids, partners' within 3: 10 pairs per side, squared
@pytest.mark.parametrize("path, phase, frozen, entries", [(SPADES, "play", {"contract"}, 11025),
                                                          (BIDS_BY_HAND, "play", {"bid"}, 100),
                                                          (os.path.join(ROOT, "rules", "bridge.atout"), "play",
                                                           {"level", "doubling"}, None)])
def test_frozen_variables_and_their_entries_cover_concrete_play(path, phase, frozen, entries):
    """The variables the phase never writes nor reads before its scoring (a trick phase's ``then`` block, the
    deal-end tail of an action playing a trick by hand) are frozen there; on seeded engine matches, every
    concrete state of that phase has their values among those the exploration recorded when play entered
    the phase."""
    from atout.verify.checker import Spec, Verifier
    from atout.verify.values import Interval, is_top
    game = Game(compile_file(path))
    V = Verifier(game)
    A = None
    if entries is not None:
        ex, A, err = V.exploration(Spec())
        assert ex is not None and set(A.frozen[phase]) == frozen
        assert len(A.entries[phase]) == entries
    else:
        from atout.verify.liveness import Liveness
        assert Liveness(game.ir).frozen[phase] == frozenset(frozen)
        return
    names = A.frozen[phase] + A.companions[phase]

    def covers(v, c):
        if isinstance(v, tuple) and not is_top(v):
            return all(covers(x, y) for x, y in zip(v, c))
        return is_top(v) or v == c or isinstance(v, Interval) and c in v

    rng = random.Random(3)
    seen = 0
    for _ in range(20):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.phase == phase and not st.is_chance_node():
                conc = tuple(tuple(st.vars[n]) if isinstance(st.vars[n], list) else st.vars[n] for n in names)
                assert any(all(covers(v, c) for v, c in zip(t, conc)) for t in A.entries[phase]), conc
                seen += 1
            acts = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
            st.apply_action(rng.choice(acts))
    assert seen > 100


def test_a_match_of_one_deal_is_known_to_be_one():
    """z3 shows 'ends when deal_number >= 1' ends the match with its first deal, so the abstraction keeps
    deal_number (0) and explores no second deal; Écarté's match to five points has many."""
    from atout.verify.absint import Abstraction
    assert Abstraction(Game(compile_file(HEARTS))).one_deal
    assert not Abstraction(Game(compile_file(os.path.join(ROOT, "rules", "ecarte.atout")))).one_deal


@pytest.mark.parametrize("path", [g for g in GAMES if g.endswith(("bridge.atout", "whist.atout", "euchre.atout",
                                                                       "hearts.atout", "spades.atout"))],
                         ids=os.path.basename)
def test_encoding_each_expression_once_changes_nothing(path, monkeypatch):
    """The encoding of a compound expression is reused for equal locals until what it reads is written, its
    rule errors conjoined with each guard it is used under (Bridge's score inlines ``result()`` a dozen
    times).  Held against encoding every occurrence afresh, on any state of the game (every variable any
    value): z3 proves the match variables end equal and the rule errors hold in the same states."""
    game = Game(compile_file(path))
    blocks = [ph.trick.then for ph in game.ir.phases if ph.trick is not None and ph.trick.then and
              symbolic.encodable(ph.trick.then)]
    assert blocks
    for block in blocks:
        runs = []
        for memo in (True, False):
            if not memo:
                monkeypatch.setattr(symbolic, "_MEMOIZED", frozenset())
            S = symbolic.unconstrained(game)
            ex = symbolic.Execution(S)
            ex.run(block)
            runs.append((S, ex))
        (S1, ex1), (S2, ex2) = runs
        s = z3.Solver()
        s.add(*[symbolic.as_bool(c) for c in S1.constraints + S2.constraints])
        for v in game.ir.vars:
            a, b = S1.vars[v.name], S2.vars[v.name]
            for x, y in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
                assert symbolic.possible(s, symbolic.lnot(symbolic.eq(x, y))) is False, v.name
        err1 = symbolic.any_of(c for c, _ in ex1.errors)
        err2 = symbolic.any_of(c for c, _ in ex2.errors)
        assert symbolic.possible(s, symbolic.lnot(symbolic.eq(err1, err2))) is False
        assert {m for _, m in ex1.errors} == {m for _, m in ex2.errors}
        monkeypatch.undo()

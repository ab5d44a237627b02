"""The abstract evaluator over-approximates the engine's (issue 8): for every expression of the rules and
properties of every shipped game (and of tests/data/every_construct.atout), in every decision state of seeded
engine matches, the concrete value is among the abstract values of the abstract state that stands for it
(an int inside an interval, a card in its class, a rule error among the possible errors).  And the explored
graph stands for every concrete state and step (the cross-check's own test, on every shipped game)."""
from __future__ import annotations

import os
import random

import pytest

from atout.compiler import compile_file, ir
from atout.engine import Game, RuleError
from atout.verify.abstract_eval import ExprError
from atout.verify.absint import Abstraction
from atout.verify.alpha import abstract_state
from atout.verify.checker import tracked_cards
from atout.verify.liveness import rule_expressions, subexprs
from atout.verify.values import ANON, Interval, is_top

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = sorted(os.path.join(ROOT, "rules", f) for f in os.listdir(os.path.join(ROOT, "rules"))) + \
    [os.path.join(ROOT, "tests", "data", "every_construct.atout"),
     os.path.join(ROOT, "tests", "data", "family_constructs.atout"),
     os.path.join(ROOT, "tests", "data", "trump_order.atout"),
     os.path.join(ROOT, "tests", "data", "pinned_rows.atout"),
     os.path.join(ROOT, "tests", "data", "card_blind.atout"),
     os.path.join(ROOT, "tests", "data", "partnership_auction.atout"),
     os.path.join(ROOT, "tests", "data", "tricks_by_hand.atout"),
     os.path.join(ROOT, "tests", "data", "tricks_by_hand_ranks.atout"),
     os.path.join(ROOT, "tests", "data", "bids_by_hand.atout")]


def _covered(abstract_values, concrete, A) -> bool:
    for v in abstract_values:
        if v == concrete and not (isinstance(v, bool) != isinstance(concrete, bool)):
            return True
        if isinstance(v, Interval) and not isinstance(concrete, bool) and isinstance(concrete, int) and concrete in v:
            return True
        if v == ANON and isinstance(concrete, int) and concrete >= 0 and concrete not in A.track_index:
            return True
        if is_top(v):
            return True
    return False


def _locals(e):
    return [x for x in subexprs(e) if isinstance(x, ir.Local)]


def _free_locals(e):
    bound = set()
    for x in subexprs(e):
        if isinstance(x, (ir.Quant, ir.NextPlayer)):
            bound.add(x.var)
    return {x.name: x.type for x in _locals(e) if x.name not in bound}


def _envs(st, A, free: dict, rng):
    """Concrete and abstract environments for the free locals: every player for a player, a few cards of
    the deck for a card, a few ints."""
    if not free:
        return [({}, {})]
    out = []
    for _ in range(4):
        conc, abst = {}, {}
        for name, t in free.items():
            if t.kind == "player":
                v = rng.randrange(st.game.players)
            elif t.kind == "card":
                v = rng.randrange(st.game.num_cards)
            elif t.kind == "suit":
                v = rng.randrange(len(st.game.deck.suits))
            elif t.kind == "bool":
                v = rng.random() < 0.5
            else:
                v = rng.randrange(0, 6)
            conc[name] = v
            abst[name] = v if t.kind != "card" or v in A.track_index else ANON
        out.append((conc, abst))
    return out


@pytest.mark.parametrize("path", GAMES, ids=lambda p: os.path.basename(p))
def test_abstract_values_cover_concrete_values(path):
    game = Game(compile_file(path))
    track = tracked_cards(game)
    A = Abstraction(game, track=track if len(track) <= 8 else ())
    exprs = []
    seen = set()
    for e in rule_expressions(game.ir):
        for x in subexprs(e):
            # equal expressions (spans aside: a definition expanded in several places) are checked once
            if x not in seen and not (isinstance(x, ir.Call) and x.fn == "gain") and \
                    not any(isinstance(y, ir.Call) and y.fn == "gain" for y in subexprs(x)):
                seen.add(x)
                exprs.append(x)
    rng = random.Random(7)
    checked = 0
    for _ in range(6):
        st = game.new_initial_state()
        steps = 0
        while not st.is_terminal() and steps < 400:
            steps += 1
            if st.is_chance_node():
                st.apply_action(rng.choice(st.chance_outcomes())[0])
                continue
            w = abstract_state(A, st)
            for e in exprs:
                if isinstance(e, ir.ZoneRef) or isinstance(e, ir.Index) and isinstance(e.base, ir.ZoneRef):
                    continue   # zones are not values
                for conc_env, abs_env in _envs(st, A, _free_locals(e), rng):
                    try:
                        value = game.compile(e)(st, conc_env)
                        error = False
                    except RuleError:
                        error = True
                    except (TypeError, KeyError, IndexError, AssertionError):
                        continue   # a subexpression that only makes sense under its parent (e.g. a zone)
                    if isinstance(value, list):
                        continue   # a per-player variable, only meaningful under total() or an index
                    vals = A.eval(e, w, abs_env)
                    if error:
                        assert any(isinstance(v, ExprError) for v in vals), (ir._expr_text(e), vals)
                    else:
                        assert _covered(vals, value, A), (ir._expr_text(e), value, vals)
                    checked += 1
            legal = st.legal_actions()
            if not legal:
                break
            try:
                st.apply_action(rng.choice(legal))
            except RuleError:
                break
    assert checked > 200

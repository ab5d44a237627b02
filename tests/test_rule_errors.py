"""Rule errors are one semantics in the engine, the exported module and the verifier (issue 8).

Each game below has one fault that makes a reachable step a rule error: a function of ``none``, a deal
starting at none, a trick led by none, a choice phase whose actor is none, a next dealer that is none, a
variable leaving its range, an index that is not a seat.  For each: the engine raises a RuleError with a
located message; the exported Python module raises it at the same step; and ``atout verify`` refutes
``builtin:no_rule_error`` with a counterexample that replays to that error.  And ``move all`` from a zone
to itself changes nothing (it used to empty the zone in the engine while the verifier assumed a no-op).
"""
from __future__ import annotations

import random

import pytest

from _agreement import load_module
from atout.compiler import compile_file
from atout.engine import Game, RuleError
from atout.export import render
from atout.verify.cli import verify_game

BASE = """
game g "a fault"
players 2
deck {{
  suits spades hearts diamonds clubs
  ranks A K Q J 10 9 8 7
}}
zone stock: hidden, home
zone hand: per player, private
zone turnup: public
match var points: int in 0..99 per player = 0
deal var who: player = none
deal var n: int in 0..2 = 0
phase deal {{
  do {{
    gather stock
    shuffle stock
    {deal}
    move 1 from stock to turnup
    {extra}
    goto {first}
  }}
}}
phase ask {{
  actor {actor}
  action go "go" {{ goto play }}
}}
phase play {{
  trick {{
    count 5
    leader {leader}
    trump suit(top(turnup))
    follow suit
    then {{
      points[eldest] += 1
      end deal
    }}
  }}
}}
match {{
  first dealer 0
  next dealer {next_dealer}
  start deal
  ends when any(p in players: points[p] >= 3)
  returns(p) = points[p]
}}
"""

OK = dict(deal="deal 3, 2 from stock to hand starting eldest", extra="", first="ask", actor="eldest",
          leader="eldest", next_dealer="left(dealer)")

CASES = {
    "left of none": dict(extra="who = left(who)"),
    "partner of none": dict(extra="who = partner(who)"),
    "tricks of none": dict(extra="n = tricks(who)"),
    "a deal starting at none": dict(deal="deal 3, 2 from stock to hand starting who"),
    "a trick led by none": dict(leader="who"),
    "a choice phase whose actor is none": dict(actor="who"),
    "a next dealer that is none": dict(next_dealer="who"),
    "a variable leaving its range": dict(extra="n += 3"),
    "an index that is not a seat": dict(extra="points[who] += 1"),
}

MESSAGES = {
    "left of none": "left() of none, not a player",
    "partner of none": "partner() of none, not a player",
    "tricks of none": "tricks() of none, not a player",
    "a deal starting at none": "the deal starts at none, not a player",
    "a trick led by none": "the trick's leader is none, not a player",
    "a choice phase whose actor is none": "the actor of phase 'ask' is none, not a player",
    "a next dealer that is none": "the next dealer is none, not a player",
    "a variable leaving its range": "'n' would become 3, outside its range 0..2",
    "an index that is not a seat": "index -1 out of range for 'points'",
}


def _write(tmp_path, name, **kw):
    path = tmp_path / (name.replace(" ", "_") + ".atout")
    path.write_text(BASE.format(**{**OK, **kw}), encoding="utf-8")
    return path


def _first_error(game_or_module, seed):
    """Play seeded random moves until a rule error; returns (steps played, message)."""
    rng = random.Random(seed)
    st = game_or_module.new_initial_state() if hasattr(game_or_module, "new_initial_state") else None
    steps = []
    while not st.is_terminal() and len(steps) < 5000:
        legal = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
        a = legal[rng.randrange(len(legal))]
        steps.append(a)
        try:
            st.apply_action(a)
        except Exception as exc:  # noqa: BLE001 - the module's RuleError is its own class
            assert type(exc).__name__ == "RuleError", repr(exc)
            return steps, str(exc)
    return steps, None


def _module_error(mod, steps):
    st = mod.Game().new_initial_state()
    for k, a in enumerate(steps):
        try:
            st.apply_action(a)
        except Exception as exc:  # noqa: BLE001
            assert type(exc).__name__ == "RuleError" and k == len(steps) - 1, (k, repr(exc))
            return str(exc)
    return None


def _engine_error_at_start(path):
    try:
        Game(compile_file(str(path))).new_initial_state()
    except RuleError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_engine_and_the_module_raise_the_same_rule_error(tmp_path, case):
    path = _write(tmp_path, case, **CASES[case])
    game = Game(compile_file(str(path)))
    mod = load_module(_export(tmp_path, path), f"rule_error_{abs(hash(case))}")
    at_start = _engine_error_at_start(path)
    if at_start is not None:
        assert MESSAGES[case] in at_start and f"{path.name}:" in at_start
        with pytest.raises(Exception) as info:
            mod.Game().new_initial_state()
        assert type(info.value).__name__ == "RuleError" and MESSAGES[case] in str(info.value)
        return
    steps, msg = _first_error(game, seed=1)
    assert msg is not None and MESSAGES[case] in msg and f"{path.name}:" in msg, msg
    got = _module_error(mod, steps)
    assert got is not None and MESSAGES[case] in got, got


def _export(tmp_path, path):
    out = tmp_path / (path.stem + "_mod.py")
    out.write_text(render(str(path), "python"), encoding="utf-8")
    return out


@pytest.mark.parametrize("case", ["left of none", "a trick led by none", "a variable leaving its range",
                                  "a next dealer that is none"])
def test_the_verifier_refutes_no_rule_error_with_a_replayable_trace(tmp_path, case):
    path = _write(tmp_path, case, **CASES[case])
    game = Game(compile_file(str(path)))
    results, _ = verify_game(game)
    r = {x.name: x for x in results}["builtin:no_rule_error"]
    assert r.verdict == "refuted", r.method
    if r.counterexample is not None and r.counterexample.steps:
        st = game.new_initial_state()
        with pytest.raises(RuleError) as info:
            for s in r.counterexample.steps:
                st.apply_action(s["action"])
        assert MESSAGES[case] in str(info.value)


def test_the_fault_free_game_has_no_rule_error_and_move_all_to_itself_is_a_no_op(tmp_path):
    path = _write(tmp_path, "fine", extra="move all from turnup to turnup")
    game = Game(compile_file(str(path)))
    st = game.new_initial_state()
    rng = random.Random(0)
    while st.is_chance_node():
        st.apply_action(rng.choice(st.chance_outcomes())[0])
    assert len(st.zones[game.zone_base["turnup"]]) == 1       # the turn-up is still there
    mod = load_module(_export(tmp_path, path), "rule_error_fine")
    steps, msg = _first_error(game, seed=3)
    assert msg is None
    results, _ = verify_game(game)
    r = {x.name: x for x in results}
    assert r["builtin:no_rule_error"].verdict == "proved", r["builtin:no_rule_error"].method
    mst = mod.Game().new_initial_state()
    for a in steps:
        mst.apply_action(a)
    assert mst.is_terminal()

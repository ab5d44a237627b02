"""The verifier on Écarté (issue 3): the source text's questions, the abstraction's soundness against the
engine, honest verdicts, and replayable counterexamples.

Expected verdicts come from the rules, argued by hand:
* three_point_cap: at most 2 points for tricks (digest §1 table) plus 1 for the king, which is either
  turned up (dealer) or held and announced (its holder), never both: proved.
* exchange_terminates: with the discards reshuffled into the stock nothing bounds the number of
  exchanges (digest §4.1): refuted by a lasso.
* exchange_can_end, elder_can_stop_exchanges, dealer_can_stop_exchanges: "I play" and "We play" are
  always available (source §7-9): proved.
* reshuffle_conserves_cards: the earlier discards (and the stock) always hold at least 11 cards while
  an exchange needs at most 5 (21 - 10 in the exchange): proved.
* match_terminates: a deal can go on for ever (the exchange lasso), so refuted; the note bounds the
  number of deals by 9 (each deal awards at least 1 point, 2 * (5 - 1) = 8 points leave the match open).
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
import z3

from atout.compiler import compile_file, ir
from atout.engine import Game
from atout.verify.alpha import Coverage, alpha
from atout.verify.checker import Budget, Spec, Verifier
from atout.verify.cli import verify_game
from atout.verify import smt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ECARTE = os.path.join(ROOT, "rules", "ecarte.atout")
CLASSIC = os.path.join(ROOT, "rules", "ecarte_classic.atout")


@pytest.fixture(scope="module")
def ecarte_game():
    return Game(compile_file(ECARTE))


@pytest.fixture(scope="module")
def ecarte_results(ecarte_game):
    results, findings = verify_game(ecarte_game)
    return {r.name: r for r in results}, findings


def test_source_questions_verdicts(ecarte_results):
    res, _ = ecarte_results
    expected = {
        "three_point_cap": "proved",
        "exchange_can_end": "proved",
        "exchange_terminates": "refuted",
        "elder_can_stop_exchanges": "proved",
        "dealer_can_stop_exchanges": "proved",
        "reshuffle_conserves_cards": "proved",
        "match_terminates": "refuted",
        "scoring_complete": "proved",
    }
    for name, verdict in expected.items():
        assert res[name].verdict == verdict, (name, res[name].method)
    assert "lasso" in res["exchange_terminates"].method
    assert "9 deals" in res["match_terminates"].method
    # every built-in check holds on the source game
    for name, r in res.items():
        if name.startswith("builtin:"):
            assert r.verdict == "proved", (name, r.method)


def _replay(game, steps):
    st = game.new_initial_state()
    for s in steps:
        assert st.current_player() == s["player"] or (s["player"] == -1 and st.is_chance_node())
        st.apply_action(s["action"])
    return st


def test_lasso_replays_and_cycles(ecarte_game, ecarte_results):
    res, _ = ecarte_results
    ce = res["exchange_terminates"].counterexample
    assert ce is not None and ce.kind == "lasso"
    assert ce.cycle_start is not None and ce.cycle_len and ce.cycle_len > 0
    loop = {"declare", "answer", "elder_exchange", "dealer_exchange"}
    st = ecarte_game.new_initial_state()
    phases_at_cycle_starts = []
    for i, s in enumerate(ce.steps):
        if i >= ce.cycle_start and (i - ce.cycle_start) % ce.cycle_len == 0:
            phases_at_cycle_starts.append(st.phase)
        st.apply_action(s["action"])
    # three repetitions of the cycle, each starting in the same phase of the exchange loop
    assert len(phases_at_cycle_starts) == 3 and len(set(phases_at_cycle_starts)) == 1
    assert phases_at_cycle_starts[0] in loop
    assert st.phase in loop and not st.is_terminal()
    # each repetition is an exchange: the exchange count grew by one per cycle
    assert st.vars["exchanges"] >= 3


def test_every_counterexample_replays(ecarte_game, ecarte_results):
    res, findings = ecarte_results
    for r in list(res.values()):
        if r.counterexample is not None:
            _replay(ecarte_game, r.counterexample.steps)
    for f in findings:
        if f.counterexample is not None:
            _replay(ecarte_game, f.counterexample.steps)


def test_finding_draw_back_own_discard(ecarte_game, ecarte_results):
    _, findings = ecarte_results
    kinds = [f.kind for f in findings]
    assert "draw_back_own_discard" in kinds
    f = next(f for f in findings if f.kind == "draw_back_own_discard")
    st = _replay(ecarte_game, f.counterexample.steps)
    # the last step drew a card into the hand of the player who had discarded it
    assert st.history[-1] in st.zones[ecarte_game.zone_base["hand"] + 0] + st.zones[ecarte_game.zone_base["hand"] + 1]


def test_classic_exchange_terminates_by_ranking_function():
    game = Game(compile_file(CLASSIC))
    results, _ = verify_game(game, names=["exchange_terminates", "reshuffle_conserves_cards"])
    r = {x.name: x for x in results}
    assert r["exchange_terminates"].verdict == "proved"
    assert "ranking function" in r["exchange_terminates"].method and "size(stock)" in r["exchange_terminates"].method


def test_no_proof_from_bounded_evidence(ecarte_game):
    """With a budget too small to finish the exploration, nothing may be proved but by a proof that needs none:
    the engine's witnesses of reachability, z3's inductive conservation (run even past the timeout)."""
    results, _ = verify_game(ecarte_game, timeout=0.01)
    assert results and all(r.verdict != "proved" or r.name == "everything_reachable" and "witness" in r.method
                           or r.name == "builtin:conservation" and "inductive invariant by SMT" in r.method
                           for r in results)
    assert {r.name: r.verdict for r in results}["builtin:conservation"] == "proved"
    assert any(r.verdict == "unknown" for r in results)


def test_a_table_decided_by_z3_alone_past_the_timeout():
    """bids_by_hand's one row (``true``) applies whatever the values: z3 decides the table with no exploration,
    so it is decided even when --timeout fired before any exploration; what needs one stays unknown."""
    game = Game(compile_file(os.path.join(ROOT, "tests", "data", "bids_by_hand.atout")))
    results, _ = verify_game(game, timeout=0.01)
    r = {x.name: x for x in results}
    assert r["builtin:table:settle"].verdict == "proved" and "no exploration needed" in r["builtin:table:settle"].method
    assert r["side_cap"].verdict == "unknown" and "--timeout" in r["side_cap"].method


# -- the abstraction is sound: every concrete decision state maps into the explored abstract graph ----------
@pytest.mark.parametrize("precise", [False, True])
def test_abstraction_contains_every_concrete_state(ecarte_game, precise):
    """Every decision state of 60 random matches is stood for by an explored node (the same forgetting and
    relabelling applied to it), and every step between two decisions of a deal is one of its edges."""
    V = Verifier(ecarte_game)
    ex, A, err = V.exploration(Spec(precise=precise))
    assert err is None
    cov = Coverage(ex, A)
    rng = random.Random(3)
    seen = steps = 0
    for _ in range(60):
        st = ecarte_game.new_initial_state()
        prev = None
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(rng.choice(st.chance_outcomes())[0])
                continue
            node = cov.find(alpha(A, st)[0])
            assert node is not None, f"concrete state not covered by the abstraction: {alpha(A, st)[0]}"
            if prev is not None:
                assert ex.graph.has_edge(prev, node) or any(
                    w[0] == "<deal start>" and ex.graph.has_edge(w, node) for w in ex.graph.successors(prev)), \
                    "a concrete step missing from the graph"
                steps += 1
            seen += 1
            st.apply_action(rng.choice(st.legal_actions()))
            prev = node
    assert seen > 1000 and steps > 900


def test_a_starved_state_budget_proves_nothing_from_the_exploration(ecarte_game):
    """With too few abstract states allowed, no verdict may rest on the unfinished exploration."""
    results, _ = verify_game(ecarte_game, budget=Budget(max_states=50))
    by = {r.name: r for r in results}
    for name in ("three_point_cap", "exchange_can_end", "elder_can_stop_exchanges", "reshuffle_conserves_cards",
                 "builtin:no_rule_error", "builtin:no_dead_end", "builtin:no_trap"):
        assert by.get(name) is None or by[name].verdict == "unknown", (name, by[name].method)
    assert any("max-states" in r.method for r in results)


# -- the SMT encoding of scoring rows agrees with the engine --------------------------------------------
def test_table_encoding_agrees_with_engine(ecarte_game):
    table = ecarte_game.ir.table("deal_score")
    enc = smt._Encoder(ecarte_game)
    guards = [enc.expr(r.guard) for r in table.rows]
    rng = random.Random(5)
    checked = 0
    for _ in range(40):
        st = ecarte_game.new_initial_state()
        fired = []
        st.on_score = lambda t, rows: fired.append(rows)
        while not st.is_terminal():
            before = st.clone() if (not st.is_chance_node() and st.phase == "play"
                                    and st.trick_number == 5 and len(st.trick_cards) == 1) else None
            if st.is_chance_node():
                st.apply_action(rng.choice(st.chance_outcomes())[0])
            else:
                st.apply_action(rng.choice(st.legal_actions()))
            if before is not None and fired:
                # the valuation the rows read, from the engine state at scoring time
                subst = [(enc.dealer, z3.IntVal(before.dealer))]
                subst += [(enc.tricks[p], z3.IntVal(st.deal_log[-1]["tricks"][p])) for p in range(2)]
                subst += [(enc.vars["exchanges"], z3.IntVal(st.deal_log[-1]["vars"]["exchanges"])),
                          (enc.vars["refused"], z3.BoolVal(before.vars["refused"]))]
                z3_rows = [r.name for r, gexpr in zip(table.rows, guards)
                           if z3.is_true(z3.simplify(z3.substitute(gexpr, *subst)))]
                assert z3_rows == fired[-1]
                checked += 1
                fired.clear()
    assert checked > 30


def test_conservation_is_inductive(ecarte_game):
    ok, n, where = smt.conservation(ecarte_game, 5000)
    assert ok and n >= 10 and where is None


# -- the command line --------------------------------------------------------------------------------------
def test_cli_json_and_trace_out(tmp_path):
    out = subprocess.run([sys.executable, "-m", "atout.cli", "verify", ECARTE, "--json", "--trace-out",
                          str(tmp_path), "--property", "exchange_terminates", "--property", "three_point_cap"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1, out.stderr  # a property is refuted
    data = json.loads(out.stdout)
    assert data["game"] == "ecarte"
    names = {p["name"]: p for p in data["properties"]}
    assert set(names) == {"exchange_terminates", "three_point_cap"}
    for p in data["properties"]:
        assert set(p) >= {"name", "kind", "verdict", "method", "seconds"}
    assert names["exchange_terminates"]["counterexample"]["kind"] == "lasso"
    rec = tmp_path / "exchange_terminates.jsonl"
    assert rec.exists()
    replay = subprocess.run([sys.executable, "-m", "atout.cli", "replay", ECARTE, str(rec), "--quiet"],
                            capture_output=True, text=True, cwd=ROOT)
    assert replay.returncode == 0, replay.stderr


def test_cli_bad_input(tmp_path):
    out = subprocess.run([sys.executable, "-m", "atout.cli", "verify", ECARTE, "--property", "three_point_capp"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2
    assert "did you mean 'three_point_cap'" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run([sys.executable, "-m", "atout.cli", "verify", str(tmp_path / "missing.atout")],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2 and "E120" in out.stderr and "Traceback" not in out.stderr


def test_an_unknown_shows_its_abstract_counterexample(tmp_path, capsys):
    """A newcomer's unknown said only 'abstract counterexample only': the detail now gives the abstract path and
    the values the property reads as the abstraction holds them (here the match variable is any value, as
    docs/verify.md says), in --json, the report and a text file under --trace-out."""
    from atout.cli import main
    path = os.path.join(ROOT, "tests", "data", "unknown_match_invariant.atout")
    assert main(["verify", path, "--property", "small", "--json"]) == 1      # not every verdict is proved
    (r,) = [x for x in json.loads(capsys.readouterr().out)["properties"] if x["name"] == "small"]
    assert r["verdict"] == "unknown" and r["detail"].startswith("abstract counterexample (1 move from")
    assert "a deal starts" in r["detail"] and "points = (any, any)" in r["detail"]
    assert main(["verify", path, "--property", "small", "--trace-out", str(tmp_path)]) == 1
    assert "small (unknown): abstract counterexample" in " ".join(capsys.readouterr().out.split())
    assert "points = (any, any)" in (tmp_path / "small.abstract.txt").read_text(encoding="utf-8")

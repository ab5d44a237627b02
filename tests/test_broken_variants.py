"""Broken variants of Écarté (issue 3, item 6): each file under tests/fixtures/broken/ adds one deliberate
fault to rules/ecarte.atout (or rules/ecarte_classic.atout), and the verifier must catch it.

For each variant this test asserts the exact property or built-in check that catches the fault (verdict
``refuted``), that the base game has that same check ``proved`` (so the catch is about the fault), and that
every counterexample replays in the engine from the start of the match, step by step, ending in the
concrete symptom of the fault, worked out by hand from the rules (a deal worth 4 points, a state with no
legal action, a draw from a stock too small, two scoring rows firing at once, ...).  A lasso's cycle must
come back to the phase it started from.  A fault the verifier misses is a bug in the verifier, not here.

Each game is verified once (cached for the module).
"""
from __future__ import annotations

import functools
import os
import random
import time
from dataclasses import dataclass, field

import pytest

from atout.compiler import compile_file
from atout.engine import Game
from atout.engine.evaluate import RuleError
from atout.verify.cli import verify_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BROKEN = os.path.join(ROOT, "tests", "fixtures", "broken")
ECARTE = os.path.join(ROOT, "rules", "ecarte.atout")
CLASSIC = os.path.join(ROOT, "rules", "ecarte_classic.atout")
EXCHANGE_LOOP = {"declare", "answer", "elder_exchange", "dealer_exchange"}


@functools.lru_cache(maxsize=None)
def verified(path: str):
    """(game, {check name: Result}, findings, seconds) for the rule file at ``path``, verified once."""
    game = Game(compile_file(path))
    t0 = time.perf_counter()
    results, findings = verify_game(game)
    return game, {r.name: r for r in results}, findings, time.perf_counter() - t0


# -- replaying a counterexample -------------------------------------------------------------------------
@dataclass
class Replay:
    state: object                    # the engine state after the last step
    phases: list                     # the phase before each step (and, last, after the last one)
    deals: list                      # deals finished before each step
    sizes: list                      # zone sizes before each step (and after the last one)
    scored: list = field(default_factory=list)   # (rows fired, refused, exchanges, tricks, dealer) per 'score'
    error: RuleError | None = None   # the rule error the last step raised, if any


def replay(game, steps) -> Replay:
    """Apply ``steps`` ({player, action, text}) to a new match; each must be legal where it is applied."""
    st = game.new_initial_state()
    rep = Replay(st, [], [], [])

    def on_score(table, rows):
        rep.scored.append((list(rows), st.vars["refused"], st.vars["exchanges"], list(st.tricks_won), st.dealer))

    st.on_score = on_score
    for i, step in enumerate(steps):
        assert not st.is_terminal(), f"step {i}: the match is already over"
        rep.phases.append(st.phase)
        rep.deals.append(len(st.deal_log))
        rep.sizes.append([len(z) for z in st.zones])
        if st.is_chance_node():
            assert step["player"] == -1, f"step {i}: a chance node"
            assert step["action"] in [a for a, _ in st.chance_outcomes()], f"step {i}: not a chance outcome"
        else:
            assert step["player"] == st.current_player(), f"step {i}: another player is to act"
            assert step["action"] in st.legal_actions(), f"step {i}: {step['text']} is not legal"
        assert step["text"] == st.action_to_string(step["action"])
        try:
            st.apply_action(step["action"])
        except RuleError as exc:
            assert i == len(steps) - 1, f"step {i}: rule error before the end: {exc}"
            rep.error = exc
    rep.phases.append(st.phase)
    rep.sizes.append([len(z) for z in st.zones])
    return rep


def size(game, st, zone, owner=None) -> int:
    return len(st.zones[game.zone_base[zone] + (owner or 0)])


def deal_gains(st) -> list[list[int]]:
    """The points won in the last finished deal and in the deal in progress."""
    out = [st.deal_log[-1]["points"]] if st.deal_log else []
    if st.deal_open:
        out.append([st.vars["points"][p] - st._deal_start_returns["points"][p] for p in range(2)])
    return out


def dead_end(st) -> bool:
    return not st.is_terminal() and not st.is_chance_node() and not st.legal_actions()


def check_lasso(rep: Replay, ce) -> list[str]:
    """The cycle of a lasso (repeated to the end of the steps) comes back to the phase it starts from, with
    the same zone sizes; returns the phases it passes through."""
    start, n = ce.cycle_start, ce.cycle_len
    assert ce.kind == "lasso" and start is not None and n
    assert (len(ce.steps) - start) % n == 0 and len(ce.steps) - start >= 2 * n
    for k in range(start, len(ce.steps) + 1, n):
        assert rep.phases[k] == rep.phases[start]
        assert rep.sizes[k] == rep.sizes[start]
    return rep.phases[start:start + n]


# -- the symptoms, worked out from the rules ---------------------------------------------------------------
def vole_symptom(game, name, rep, ce):
    # the non-dealer played without proposing and took all five tricks (3 points), and the king of trumps
    # scored 1: a deal worth 4 points
    assert rep.scored and rep.scored[-1][0] == ["played_vole"]
    assert rep.scored[-1][3] in ([0, 5], [5, 0])
    assert any(sum(g) >= 4 for g in deal_gains(rep.state))


def king_twice_symptom(game, name, rep, ce):
    last_deal = rep.deals[-1]
    announced = [s["player"] for s, d in zip(ce.steps, rep.deals)
                 if d == last_deal and s["text"] == "announce the king of trumps"]
    assert len(announced) >= 2 and len(set(announced)) == 1          # the same king, announced again
    assert any(max(g) > 3 or sum(g) > 3 for g in deal_gains(rep.state))


def drops_discards_symptom(game, name, rep, ce):
    # the dealer's draw finds the stock too short: the reshuffle shuffled it without the earlier discards
    assert rep.error is not None and "in stock" in str(rep.error)
    assert "reshuffle_drops_discards.atout:18" in str(rep.error)      # move n from stock to hand[actor]
    assert rep.phases[-2] == "dealer_exchange"


def turnup_symptom(game, name, rep, ce):
    st = rep.state
    assert st.phase == "play" and size(game, st, "turnup") == 0


def classic_propose_symptom(game, name, rep, ce):
    # a proposal accepted with 0 or 1 card in the stock: the non-dealer must take one and leave one
    st = rep.state
    assert dead_end(st) and st.phase == "elder_exchange" and size(game, st, "stock") <= 1
    assert [s["text"] for s in ce.steps if s["player"] >= 0][-2:] == ["I propose", "Please"]


def classic_dealer_symptom(game, name, rep, ce):
    st = rep.state
    assert dead_end(st) and st.phase == "dealer_exchange" and size(game, st, "stock") == 0


def six_tricks_symptom(game, name, rep, ce):
    st = rep.state
    assert dead_end(st) and st.phase == "play"
    assert size(game, st, "hand", 0) == size(game, st, "hand", 1) == 0 and sum(st.tricks_won) == 5


def loop_no_exit_symptom(game, name, rep, ce):
    st = rep.state
    if name == "exchange_terminates":
        # the lasso: the cycle is made of exchanges only, never back to the declaration
        assert set(check_lasso(rep, ce)) <= {"elder_exchange", "dealer_exchange"}
        return
    assert st.phase in ("elder_exchange", "dealer_exchange")
    # no exit: whatever the players and chance do from here, play never leaves the two exchanges
    rng = random.Random(0)
    deals = len(st.deal_log)
    for _ in range(400):
        acts = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
        st.apply_action(rng.choice(acts))
        assert st.phase in ("elder_exchange", "dealer_exchange") and len(st.deal_log) == deals


def refusal_loop_symptom(game, name, rep, ce):
    phases = check_lasso(rep, ce)
    assert set(phases) <= {"declare", "answer"}
    texts = {s["text"] for s in ce.steps[ce.cycle_start:]}
    assert texts == {"I propose", "We play"}


def overlap_symptom(game, name, rep, ce):
    rows, refused, exchanges, tricks, dealer = rep.scored[-1]
    assert rows == ["exchanged_eldest_3_4", "exchanged_eldest_vole"]
    assert exchanges >= 1 and tricks[1 - dealer] == 5


def gap_symptom(game, name, rep, ce):
    rows, refused, exchanges, tricks, dealer = rep.scored[-1]
    assert rows == [] and refused and exchanges == 0 and tricks[dealer] == 2


def six_cards_symptom(game, name, rep, ce):
    st = rep.state
    assert st.phase == "play"
    assert {size(game, st, "hand", 0), size(game, st, "hand", 1)} == {6}


@dataclass
class Case:
    name: str
    base: str
    catch: tuple           # the property or built-in check(s) that must catch the fault
    symptom: object = None  # check of a replayed counterexample
    message: tuple = ()     # for a refutation without a counterexample: what its message must name
    lasso: str | None = None  # a property whose lasso is also checked (refuted in the base game too)


CASES = [
    Case("vole_worth_three", ECARTE, ("three_point_cap",), vole_symptom),
    Case("king_counted_twice", ECARTE, ("three_point_cap",), king_twice_symptom),
    Case("reshuffle_drops_discards", ECARTE, ("builtin:no_rule_error", "reshuffle_conserves_cards"),
         drops_discards_symptom),
    Case("reshuffle_takes_turnup", ECARTE, ("reshuffle_conserves_cards",), turnup_symptom),
    Case("classic_propose_on_empty_stock", CLASSIC, ("builtin:no_dead_end",), classic_propose_symptom),
    Case("classic_dealer_empty_stock", CLASSIC, ("builtin:no_dead_end",), classic_dealer_symptom),
    Case("unreachable_action", ECARTE, ("builtin:reachable", "everything_reachable"),
         message=("phase 'misdeal'", "action 'claim_misdeal' of phase 'misdeal'")),
    Case("play_has_no_way_out", ECARTE, ("builtin:no_dead_end",), six_tricks_symptom),
    Case("exchange_loop_no_exit", ECARTE, ("builtin:no_trap", "exchange_can_end"), loop_no_exit_symptom,
         lasso="exchange_terminates"),
    Case("classic_refusal_loops", CLASSIC, ("exchange_terminates",), refusal_loop_symptom),
    Case("overlapping_rows", ECARTE, ("scoring_complete", "builtin:table:deal_score"), overlap_symptom),
    Case("scoring_gap", ECARTE, ("scoring_complete", "builtin:table:deal_score"), gap_symptom),
    Case("six_card_hands", ECARTE, ("reshuffle_conserves_cards",), six_cards_symptom),
    Case("turnup_king_never_scores", ECARTE, ("builtin:guards",),
         message=("condition at", "turnup_king_never_scores.atout:14")),
]


def _path(case):
    return os.path.join(BROKEN, case.name + ".atout")


def test_every_fixture_is_a_case():
    assert sorted(c.name + ".atout" for c in CASES) == sorted(f for f in os.listdir(BROKEN) if f.endswith(".atout"))
    assert len(CASES) >= 12


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_fault_is_caught(case):
    game, results, findings, seconds = verified(_path(case))
    _, base, _, _ = verified(case.base)
    for name in case.catch:
        assert base[name].verdict == "proved", f"{name} is not proved in the base game"
        r = results[name]
        assert r.verdict == "refuted", f"{name}: {r.verdict}: {r.method}"
        if case.message:
            assert r.counterexample is None
            for text in case.message:
                assert text in r.method
        else:
            assert r.counterexample is not None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_counterexample_replays(case):
    game, results, findings, seconds = verified(_path(case))
    names = list(case.catch) + ([case.lasso] if case.lasso else [])
    checked = 0
    for name in names:
        ce = results[name].counterexample
        if ce is None:
            continue
        assert results[name].verdict == "refuted"
        rep = replay(game, ce.steps)
        case.symptom(game, name, rep, ce)
        checked += 1
    assert checked == (0 if case.message else len(names))


def test_the_turned_up_king_scores_in_the_base_game_only():
    """The symptom of turnup_king_never_scores, in the engine: with the king of spades turned up the
    dealer scores 1 at once in the base game (PPC, EB), and nothing in the variant."""
    for path, points in ((ECARTE, 1), (os.path.join(BROKEN, "turnup_king_never_scores.atout"), 0)):
        game = Game(compile_file(path))
        st = game.new_initial_state()
        king = 0                                  # K of spades: card 0
        for _ in range(10):                       # the ten cards dealt, none of them the king
            st.apply_action(next(a for a, _ in st.chance_outcomes() if a != king))
        st.apply_action(king)                     # the eleventh card, turned up
        assert not st.is_chance_node() and st.phase == "declare"
        assert st.vars["points"][st.dealer] == points


def test_a_reshuffled_turn_up_also_breaks_the_three_point_cap():
    """A second consequence of reshuffle_takes_turnup, played out by hand in the engine: the dealer turns up
    the king of spades (1 point), the reshuffle puts it back into the stock, the dealer draws it with the
    four next trumps, announces it (1 more) and takes all five tricks after an exchange (2): 4 points in one
    deal.  The verifier does not refute three_point_cap here (its shortest abstract violation reshuffles
    while the stock is still full, which the engine cannot follow, and seeded playouts do not find this
    deal), but it must never prove it."""
    path = os.path.join(BROKEN, "reshuffle_takes_turnup.atout")
    game = Game(compile_file(path))
    st = game.new_initial_state()
    spades = set(range(8))                     # K♠ Q♠ J♠ A♠ 10♠ 9♠ 8♠ 7♠ are cards 0-7

    def draw(prefer=(), cards=99):
        while st.is_chance_node() and cards:
            outs = [a for a, _ in st.chance_outcomes()]
            wanted = [c for c in prefer if c in outs]
            st.apply_action(wanted[0] if wanted else
                            min(outs, key=lambda c: (c in spades, -c)))    # else a plain card, else a low spade
            cards -= 1

    def say(name):
        st.apply_action(next(a for a in st.legal_actions() if a >= game.num_cards and game.slot(a).name == name))

    def exchange(n, prefer=()):
        hand = sorted(st.zones[game.hand_base + st.current_player()], key=lambda c: c in spades)
        for c in hand[:n]:                     # plain cards first
            st.apply_action(c)
        if st.selecting is not None:
            st.apply_action(game.done_action)
        draw(prefer)

    draw(cards=10)                             # the hands: plain cards
    draw([0])                                  # K♠ turned up: trumps are spades, the dealer (seat 0) scores 1
    assert st.dealer == 0 and st.vars["points"] == [1, 0]
    say("propose"), say("accept"), exchange(5, [1, 2, 3, 4, 5]), exchange(5)   # the non-dealer draws spades
    say("propose"), say("accept"), exchange(5), exchange(5)                   # ... and discards them
    assert size(game, st, "stock") == 1 and size(game, st, "discards") == 20
    say("propose"), say("accept"), exchange(1)                                # the stock is empty
    exchange(5, [0, 1, 2, 3, 4])               # the dealer's reshuffle takes the turn-up: he draws K♠ Q♠ J♠ A♠ 10♠
    assert sorted(st.zones[game.hand_base + 0]) == [0, 1, 2, 3, 4] and size(game, st, "turnup") == 0
    say("play")
    st.apply_action(next(a for a in st.legal_actions() if a < game.num_cards))   # the non-dealer leads
    say("announce_king")
    while st.phase == "play" and not st.is_chance_node():
        st.apply_action(next(a for a in st.legal_actions() if a < game.num_cards))
    assert st.deal_log[-1]["tricks"] == [5, 0] and st.deal_log[-1]["points"] == [4, 0]
    _, results, _, _ = verified(path)
    assert results["three_point_cap"].verdict != "proved"

"""The OpenSpiel-shaped engine API on Écarté: the contract of each call, visibility of observations,
card conservation after every action of many random matches, bots."""
from __future__ import annotations

import os
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import atout
from atout import CHANCE, TERMINAL, IllegalActionError
from atout.engine.bots import make_bot
from atout.engine.observe import table_string
from atout.engine.simulate import play_match

from conftest import ECARTE, act, arrange_deal, card, hand, named, play_cards, zone

CARD_NAME = re.compile(r"(?:10|[KQJA987])[♠♥♦♣]")


def test_load_returns_a_game(ecarte):
    assert isinstance(ecarte, atout.Game)
    assert ecarte.num_players() == 2
    assert ecarte.max_chance_outcomes() == 32
    # 32 cards, then the named actions: play, propose, accept, refuse, announce_king, done
    assert ecarte.num_distinct_actions() == 32 + 6


def test_initial_state_is_a_chance_node(ecarte):
    s = ecarte.new_initial_state()
    assert s.is_chance_node() and s.current_player() == CHANCE == -1
    outcomes = s.chance_outcomes()
    assert [c for c, _ in outcomes] == list(range(32))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert s.legal_actions() == list(range(32))
    assert not s.is_terminal() and s.returns() == [0.0, 0.0]


def test_chance_outcomes_outside_a_chance_node_raise(ecarte):
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    with pytest.raises(IllegalActionError):
        s.chance_outcomes()


def test_decisions_are_named(ecarte):
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    assert s.current_player() == 1
    legal = s.legal_actions()
    assert [s.action_to_string(a) for a in legal] == ["I play", "I propose"]
    assert s.legal_actions(0) == []  # not seat 0's turn
    act(s, "propose")
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["Please", "We play"]
    act(s, "accept")
    assert s.action_to_string(card(ecarte, "7♠")) == "discard 7♠"
    act(s, "7♠", "done")
    assert s.action_to_string(card(ecarte, "9♠")) == "deal 9♠"


def test_action_to_string_takes_openspiels_arguments(ecarte, tmp_path):
    """OpenSpiel's State.action_to_string is (action) or (player, action): the engine and the exported module
    read two arguments in that order (they once took (action, player) and named the wrong action silently)."""
    from _agreement import export_python
    mod = export_python(ECARTE, tmp_path, "ecarte_args_module")
    dealt = ecarte.new_initial_state()
    arrange_deal(dealt, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    play = named(ecarte, "play")
    for s in (dealt, mod.Game().new_initial_state()):
        for a in dealt.history():
            if s is not dealt:
                s.apply_action(a)
        assert s.current_player() == 1
        assert s.action_to_string(1, play) == s.action_to_string(play) == "I play"
        assert s.action_to_string(-1, play) == "I play"
        with pytest.raises(ValueError, match="no seat 2"):
            s.action_to_string(2, play)


@pytest.mark.parametrize("what, where", [("accept", "declare"), ("done", "declare"), ("announce_king", "declare")])
def test_illegal_named_action_names_the_action_and_the_phase(ecarte, what, where):
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    a = named(ecarte, what)
    with pytest.raises(IllegalActionError) as exc:
        s.apply_action(a)
    msg = str(exc.value)
    assert str(a) in msg and ecarte.slot(a).text in msg and f"phase '{where}'" in msg and "seat 1" in msg
    assert "I play" in msg  # it lists what is legal


def test_illegal_card_names_the_card_and_the_phase(ecarte):
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    act(s, "play")
    with pytest.raises(IllegalActionError, match=r"K♠.*phase 'play'"):
        s.apply_action(card(ecarte, "K♠"))  # in the other player's hand
    with pytest.raises(IllegalActionError, match="no such action"):
        s.apply_action(999)
    play_cards(s, "7♠")
    with pytest.raises(IllegalActionError, match=r"K♦.*phase 'play'"):
        s.apply_action(card(ecarte, "K♦"))  # the dealer must follow with a spade


def test_illegal_chance_outcome_names_the_card(ecarte):
    s = ecarte.new_initial_state()
    s.apply_action(3)
    with pytest.raises(IllegalActionError, match="A♠.*not in stock"):
        s.apply_action(3)  # already dealt


def test_nothing_applies_at_the_end(ecarte):
    s = ecarte.new_initial_state()
    rng = random.Random(0)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    assert s.current_player() == TERMINAL == -4 and s.legal_actions() == []
    assert not s.is_chance_node()
    r = s.returns()
    assert sorted(r) == [-1.0, 1.0]
    winner = r.index(1.0)
    assert s.vars["points"][winner] >= 5 and s.vars["points"][1 - winner] < 5
    with pytest.raises(IllegalActionError, match="over"):
        s.apply_action(s.game.slot_index[("play", None)])


def test_clone_is_independent(ecarte):
    rng = random.Random(3)
    for _ in range(30):
        s = ecarte.new_initial_state()
        for _ in range(rng.randrange(1, 120)):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
        if s.is_terminal():
            continue
        before = (str(s), list(s.history), [list(z) for z in s.zones], dict(s.vars), s.vars["points"][:])
        t = s.clone()
        while not t.is_terminal():
            t.apply_action(rng.choice(t.legal_actions()))
        assert (str(s), list(s.history), [list(z) for z in s.zones], dict(s.vars), s.vars["points"][:]) == before
        # and the original can still be played to the end
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))


def test_clone_inside_a_for_loop_of_draws(variant):
    """A clone taken while a ``for p in players`` loop waits for a chance outcome must resume the loop
    on its own: each copy deals five cards to both players."""
    g = variant("override phase deal {",
                "  do {",
                "    gather stock",
                "    shuffle stock",
                "    for p in players { move 5 from stock to hand[p] }",
                "    move 1 from stock to turnup",
                "    trumps = suit(top(turnup))",
                "    goto declare",
                "  }",
                "}")
    s = g.new_initial_state()
    for c in range(3):
        s.apply_action(c)
    t = s.clone()
    rng = random.Random(1)
    for x in (s, t):
        while x.is_chance_node():
            x.apply_action(rng.choice(x.legal_actions()))
        assert x.phase == "declare"
        assert len(hand(x, 0)) == len(hand(x, 1)) == 5 and len(zone(x, "stock")) == 21


def _seeded_match(ecarte, seed: int):
    rng = random.Random(seed)
    return play_match(ecarte, [make_bot("greedy", 1), make_bot("random", 2)], rng)


def test_same_seed_same_game(ecarte):
    a, b = _seeded_match(ecarte, 42), _seeded_match(ecarte, 42)
    assert a.steps == b.steps and a.deals == b.deals and a.returns == b.returns
    c = _seeded_match(ecarte, 43)
    assert c.steps != a.steps


# -- visibility ------------------------------------------------------------------------------------------

def _check_observations(s) -> int:
    """Every card named in the observation of p is in p's hand, the turn-up or the trick on the table;
    the hand of p and the turn-up are shown."""
    g = s.game
    names = {g.card_str(c): c for c in range(g.num_cards)}
    shown_public = set(zone(s, "turnup")) | set(zone(s, "trick"))
    for p in range(g.players):
        obs = s.observation_string(p)
        seen = {names[n] for n in CARD_NAME.findall(obs)}
        allowed = hand(s, p) | shown_public
        assert seen <= allowed, (p, [g.card_str(c) for c in seen - allowed], obs)
        assert hand(s, p) | set(zone(s, "turnup")) <= seen
        info = s.information_state_string(p)
        seen_info = {names[n] for n in CARD_NAME.findall(info)}
        assert seen_info <= allowed
        table = table_string(s, p)  # what `atout play` shows
        seen_table = {names[n] for n in CARD_NAME.findall(table)}
        assert seen_table <= allowed and hand(s, p) | set(zone(s, "turnup")) <= seen_table
    return 1


def test_observations_respect_visibility(ecarte):
    """The other player's hand, the stock, the discards and the tricks taken never appear in a
    player's observation, over every state of 40 random matches; his hand and the turn-up do."""
    rng = random.Random(17)
    n = 0
    for _ in range(40):
        s = ecarte.new_initial_state()
        while not s.is_terminal():
            n += _check_observations(s)
            s.apply_action(rng.choice(s.legal_actions()))
        n += _check_observations(s)
    assert n > 3000


def test_information_state_hides_the_other_players_discards(ecarte):
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    act(s, "propose", "accept", "7♠", "done")
    a = card(ecarte, "7♠")
    assert f"1:{a}" in s.information_state_string(1)  # he knows his own discard
    assert f"1:{a}" not in s.information_state_string(0) and "1:?" in s.information_state_string(0)


# -- conservation over random matches --------------------------------------------------------------------

def _check_invariants(s) -> None:
    g = s.game
    every = [c for z in s.zones for c in z]
    assert sorted(every) == list(range(32)), "each of the 32 cards in exactly one zone"
    for p in range(g.players):
        assert len(hand(s, p)) <= 5
    assert len(zone(s, "turnup")) <= 1
    assert len(zone(s, "trick")) <= 1
    if s.is_chance_node():
        out = s.chance_outcomes()
        assert sum(p for _, p in out) == pytest.approx(1.0)
        assert [c for c, _ in out] == s.legal_actions()
    legal = s.legal_actions()
    assert legal == sorted(set(legal))
    assert bool(legal) != s.is_terminal()
    for d in s.deal_log:
        if d["complete"]:
            assert 1 <= sum(d["points"]) <= 3, d  # fact 15
        assert max(d["points"]) <= 3


def _random_match(ecarte, seed: int) -> atout.State:
    rng = random.Random(seed)
    s = ecarte.new_initial_state()
    _check_invariants(s)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
        _check_invariants(s)
    return s


def test_card_conservation_seeded(ecarte):
    for seed in range(150):
        s = _random_match(ecarte, seed)
        assert max(s.vars["points"]) >= 5


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_card_conservation_hypothesis(seed):
    from conftest import load_game
    _random_match(load_game(ECARTE), seed)


def test_long_exchange_loops_reshuffle_and_conserve(ecarte):
    """Propose/accept with five cards each, four times: the stock runs short and the earlier discards
    become the new stock (the source §9); every card stays in exactly one zone and the turn-up is never
    drawn."""
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    turnup = card(ecarte, "7♥")
    rng = random.Random(2)
    for _ in range(4):
        act(s, "propose", "accept")
        for seat in (1, 0):
            assert s.current_player() == seat
            for c in sorted(hand(s, seat)):
                s.apply_action(c)
            for _ in range(5):
                assert s.is_chance_node() and turnup not in [c for c, _ in s.chance_outcomes()]
                s.apply_action(rng.choice(s.legal_actions()))
                _check_invariants(s)
    assert s.vars["exchanges"] == 4 and zone(s, "turnup") == [turnup]


# -- bots ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("names", [("random", "random"), ("greedy", "random"), ("greedy", "greedy")])
def test_bots_return_legal_actions(ecarte, names):
    rng = random.Random(8)
    bots = [make_bot(n, 10 + i) for i, n in enumerate(names)]
    for _ in range(20):
        s = ecarte.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice(s.legal_actions()))
                continue
            p = s.current_player()
            before = str(s)
            a = bots[p].step(s)
            assert str(s) == before  # the bot does not change the state it looks at
            assert a in s.legal_actions()
            s.apply_action(a)


def test_greedy_announces_the_king_and_heads_cheaply(ecarte):
    """The greedy bot (engine/bots.py) takes a named action that raises its score at once, and wins a
    trick with the cheapest winning card."""
    s = ecarte.new_initial_state()
    arrange_deal(s, "K♥ 7♠ 8♠ 7♦ 8♦", "A♠ J♠ Q♦ K♦ K♣", "7♥")
    act(s, "play")
    bot = make_bot("greedy", 0)
    assert bot.step(s) == named(ecarte, "announce_king")
    act(s, "announce_king")
    play_cards(s, "7♠")
    assert bot.step(s) == card(ecarte, "A♠")  # A♠ and J♠ both beat 7♠; A♠ is the lower


def test_unknown_bot_name():
    with pytest.raises(KeyError):
        make_bot("minimax")


def test_load_a_missing_file_raises_a_compile_error(tmp_path):
    with pytest.raises(atout.CompileError, match="cannot read rule file"):
        atout.load(os.path.join(tmp_path, "nope.atout"))


@pytest.mark.parametrize("compiled", [True, False])
def test_a_random_draw_may_have_more_outcomes_than_the_game_has_actions(compiled):
    """OpenSpiel counts chance outcomes apart from actions (max_chance_outcomes): 'v = random 0..63' in a
    four-card game has outcomes past num_distinct_actions(), and each has its text."""
    path = os.path.join(os.path.dirname(__file__), "fixtures", "audit", "random_outcomes_past_actions.atout")
    game = atout.load(path, compiled=compiled)
    state = game.new_initial_state()
    while not (state.is_chance_node() and len(state.chance_outcomes()) == 64):
        state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0])
    assert game.num_distinct_actions() < 64
    assert state.action_to_string(37) == "v = 37"
    with pytest.raises(IllegalActionError):
        state.action_to_string(64)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "interpreter"])
def test_a_clone_does_not_report_to_the_scoring_hook(compiled):
    """The ``on_score`` hook watches one match (``atout simulate`` counts the rows that fire through it): a bot's
    look-ahead on a clone played to the end must not report to it (it did: the greedy bot's searches doubled
    the rows counted for a newcomer's Sixty-six), while the match itself still does."""
    game = atout.load(ECARTE, compiled=compiled)
    rng = random.Random(3)
    st = game.new_initial_state()
    fired = []
    st.on_score = lambda table, rows: fired.append((table, rows))

    def play_out(s):
        while not s.is_terminal():
            s.apply_action(rng.choice(s.chance_outcomes())[0] if s.is_chance_node() else rng.choice(s.legal_actions()))

    look_ahead = st.clone()
    assert look_ahead.on_score is None
    play_out(look_ahead)
    assert fired == []
    play_out(st)
    assert fired and all(table == "deal_score" and len(rows) == 1 for table, rows in fired)

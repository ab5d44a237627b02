"""The OpenSpiel export of every shipped game registers with pyspiel, passes OpenSpiel's own random simulation test,
is played by OpenSpiel's MCTS bot, and shows each player only what he may see; exported Euchre plays exactly like
OpenSpiel's C++ ``euchre``."""
from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts

from _agreement import SHIPPED, load_module
from atout.engine import load
from atout.export import render


def _export(rule_file, tmp_path, name):
    out = tmp_path / f"{name}.py"
    out.write_text(render(str(rule_file), "openspiel"), encoding="utf-8")
    return load_module(out, name)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("openspiel")
    return {p.stem: _export(p, folder, f"os_{p.stem}") for p in SHIPPED}


@pytest.mark.parametrize("rule_file", SHIPPED, ids=lambda p: p.stem)
def test_random_sim_test(exported, rule_file):
    mod = exported[rule_file.stem]
    game = pyspiel.load_game(mod.SHORT_NAME)
    # a Solo Whist match is 16 deals (about 1,750 steps, each checked at length by OpenSpiel): one is enough
    pyspiel.random_sim_test(game, num_sims=1 if game.max_game_length() > 1000 else 5, serialize=True,
                            verbose=False)


@pytest.mark.parametrize("rule_file", SHIPPED, ids=lambda p: p.stem)
def test_mcts_bot_plays_a_match(exported, rule_file):
    mod = exported[rule_file.stem]
    # a game without a proved length bound takes a cap: 120 decisions keep the bot's rollouts short (two deals of
    # whist); a capped match ends with every player getting 0, within the bounds as well
    params = {} if mod.LENGTH_BOUND is not None else {"max_game_length": 120}
    game = pyspiel.load_game(mod.SHORT_NAME, params)
    rng = np.random.RandomState(7)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=8,
                       evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng), random_state=rng)
    state = game.new_initial_state()
    chance = random.Random(3)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[chance.randrange(len(outcomes))][0])
        else:
            state.apply_action(bot.step(state))
    r = state.returns()
    assert len(r) == game.num_players() and game.min_utility() <= min(r) <= max(r) <= game.max_utility()


def test_game_info_of_euchre(exported):
    game = pyspiel.load_game(exported["euchre"].SHORT_NAME)
    t = game.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_players() == 4
    # 24 cards, then pass, call x4 suits, alone, partner, done (of the one-card discard)
    assert game.num_distinct_actions() == 24 + 8
    assert game.max_chance_outcomes() == 24
    assert (game.min_utility(), game.max_utility()) == (-4.0, 4.0)  # euchred by a lone defender / a lone march
    # OpenSpiel's own euchre has at most 31 decisions (with a lone defender); ours is a sound bound
    assert 31 <= game.max_game_length() <= 40


@pytest.mark.parametrize("stem", ["solo_whist", "whist"])
def test_whist_games_play_to_the_end_through_pyspiel(exported, stem):
    """Whist and Solo Whist through pyspiel: random matches reach the end of the match (not the cap) with zero-sum
    returns inside the utility bounds, and the bounds hold the true extremes, worked out by hand:
    - Solo Whist: 16 deals; the most a deal moves is a solo made with all 13 tricks (stake 1 + 8 overtricks = 9,
      paid by each of three opponents: 27), so a match can end at +-432, and the bounds must hold that;
    - Whist: returns(p) = rubber[p] - rubber[left(p)], rubber in 0..8 (3 + 3 + 2): the bounds are -8..8."""
    mod = exported[stem]
    game = pyspiel.load_game(mod.SHORT_NAME)
    lo, hi = game.min_utility(), game.max_utility()
    if stem == "solo_whist":
        assert lo <= -432 and hi >= 432
        assert mod.LENGTH_BOUND is None and game.max_game_length() == 2 * 16 * (1 + 1 + 52)  # see default_cap
    else:
        assert (lo, hi) == (-8.0, 8.0)
    for seed in range(20):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        assert not state.truncated
        r = state.returns()
        assert sum(r) == 0 and lo <= min(r) <= max(r) <= hi, (seed, r)


def test_unbounded_game_is_capped(exported):
    """Écarté's exchanges can go on (the discards are reshuffled), so the export takes a length cap."""
    mod = exported["ecarte"]
    game = pyspiel.load_game(mod.SHORT_NAME, {"max_game_length": 3})
    assert game.max_game_length() == 3
    assert game.min_utility() <= 0.0 <= game.max_utility()
    state = game.new_initial_state()
    decisions = 0
    rng = random.Random(1)
    while not state.is_terminal():
        if not state.is_chance_node():
            decisions += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert decisions <= 3 and state.returns() in ([0.0, 0.0], [1.0, -1.0], [-1.0, 1.0])


def test_observations_respect_visibility(exported):
    mod = exported["euchre"]
    game = pyspiel.load_game(mod.SHORT_NAME)
    engine = load(str(next(p for p in SHIPPED if p.stem == "euchre")))
    state, twin = game.new_initial_state(), engine.new_initial_state()
    rng = random.Random(11)
    while state.is_chance_node() or state.current_player() != 1:
        a = rng.choice(state.legal_actions())
        state.apply_action(a)
        twin.apply_action(a)
    inner = state.inner
    hands = {p: set(inner.zones[mod.SLOT_LABEL.index(f"hand[{p}]")]) for p in range(4)}
    for p in range(4):
        # the strings are the engine's, which show a player his own hand only
        assert state.observation_string(p) == twin.observation_string(p)
        assert state.information_state_string(p) == twin.information_state_string(p)
        text = state.observation_string(p)
        own = " ".join(engine.card_str(c) for c in sorted(hands[p]))
        assert f"hand[{p}]: {own}" in text.splitlines()
        for q in range(4):
            if q != p:
                assert f"hand[{q}]: {len(hands[q])} cards" in text.splitlines()
        obs = np.array(state.observation_tensor(p))
        info = np.array(state.information_state_tensor(p))
        observer = game.make_py_observer()
        observer.set_from(state, p)
        private = observer.dict["private_cards"]
        seen = {c for c in range(24) if private[:, c].any()}
        assert seen == hands[p], p
        assert obs.shape == (game.observation_tensor_size(),) and info.shape == (game.information_state_tensor_size(),)
        assert obs.sum() == observer.tensor.sum()


def test_exported_euchre_plays_like_openspiel_euchre(exported, tmp_path):
    """The pyspiel game exported from rules/euchre.atout against pyspiel's C++ euchre, node by node."""
    import test_euchre_openspiel as diff  # the mapping between the two games' actions

    engine = load(str(next(p for p in SHIPPED if p.stem == "euchre")))
    cards, named = diff._maps(engine)
    ours = pyspiel.load_game(exported["euchre"].SHORT_NAME)
    theirs = pyspiel.load_game("euchre")

    class Adapter:  # play_both drives the engine API; the pyspiel state offers the same calls
        def __init__(self, game):
            self.game = game

        def new_initial_state(self):
            return self.game.new_initial_state()

    for seed in range(200):
        diff.play_both(Adapter(ours), theirs, cards, named, seed)


# -- the game's options as pyspiel parameters (issue 12) ------------------------------------------------------
def test_options_are_game_parameters_with_the_rule_files_defaults(exported):
    game = pyspiel.load_game(exported["ecarte"].SHORT_NAME)
    spec = game.get_type().parameter_specification
    # rules/ecarte.atout: option target = 5, first_packet = 3, must_head = true, must_trump = true, ...
    assert {k: spec[k] for k in ("target", "first_packet", "must_head", "must_trump")} == \
        {"target": 5, "first_packet": 3, "must_head": True, "must_trump": True}
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'targt'"):
        pyspiel.load_game(f"{exported['ecarte'].SHORT_NAME}(targt=1)")


def _deals_played(game, seed):
    state, rng = game.new_initial_state(), random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state.inner.deal_number


def test_a_parameter_changes_the_game(exported):
    """Écarté to 1 point (source §10 plays to 5): a deal scores 1 or 2 points (and the king 1), so the first
    score ends the match, in the first deal; to 5 points a match needs at least two deals (at most 3 a deal)."""
    short = exported["ecarte"].SHORT_NAME
    one = pyspiel.load_game(f"{short}(target=1)")
    five = pyspiel.load_game(short)
    assert one.get_parameters()["target"] == 1
    assert all(_deals_played(one, s) <= 1 for s in range(20))
    assert all(_deals_played(five, s) >= 2 for s in range(20))
    with pytest.raises(ValueError, match="atout_ecarte: option .target. = 200 is outside 1..99"):
        pyspiel.load_game(f"{short}(target=200)")


def test_cfr_runs_on_a_tiny_game_through_its_parameters(tmp_path):
    """OpenSpiel's CFR on tests/data/tiny_duel.atout (four cards, two tricks), one deal (target=1): the average
    policy's NashConv falls from its value for the uniform policy towards 0 (an equilibrium)."""
    from open_spiel.python.algorithms import cfr, exploitability
    from _agreement import ROOT
    rule_file = ROOT / "tests" / "data" / "tiny_duel.atout"
    mod = _export(rule_file, tmp_path, "os_tiny_duel")
    game = pyspiel.load_game(f"{mod.SHORT_NAME}(target=1)")
    solver = cfr.CFRSolver(game)
    start = exploitability.nash_conv(game, solver.average_policy())
    for _ in range(30):
        solver.evaluate_and_update_policy()
    end = exploitability.nash_conv(game, solver.average_policy())
    assert start > 0.2 and end < start / 10

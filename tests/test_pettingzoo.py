"""PettingZoo: every shipped game passes PettingZoo's own API test; episodes end with the engine's returns;
observations show a seat what it may see and nothing else."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402

from _agreement import ROOT, SHIPPED  # noqa: E402
from atout.pettingzoo import AtoutEnv, env  # noqa: E402
from atout.engine import load  # noqa: E402


@pytest.mark.parametrize("rule_file", SHIPPED, ids=lambda p: p.stem)
def test_api_test(rule_file):
    api_test(env(str(rule_file)), num_cycles=300, verbose_progress=False)


def _episode(e, seed, pick=lambda mask, rng: int(rng.choice(np.flatnonzero(mask)))):
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    totals = {a: 0.0 for a in e.possible_agents}
    seen = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        seen.append((agent, obs["observation"].tobytes()))
        e.step(None if term or trunc else pick(obs["action_mask"], rng))
    return totals, seen


@pytest.mark.parametrize("stem", ["ecarte", "euchre"])
def test_an_episode_ends_with_the_returns_of_the_match(stem):
    raw = AtoutEnv(load(str(ROOT / "rules" / f"{stem}.atout")))
    e = env(str(ROOT / "rules" / f"{stem}.atout"))
    totals, _ = _episode(e, 4)
    # the unwrapped env's state is the match as played: the rewards summed per agent are its returns
    assert list(totals.values()) == e.unwrapped.state.returns()
    assert e.unwrapped.state.is_terminal() and raw.possible_agents == list(totals)
    # the same seed and the same choices give the same episode, observation for observation
    assert _episode(env(str(ROOT / "rules" / f"{stem}.atout")), 4)[1] == _episode(env(str(ROOT / "rules" / f"{stem}.atout")), 4)[1]


def test_an_observation_shows_nothing_of_the_others_hands():
    e = AtoutEnv(load(str(ROOT / "rules" / "whist.atout")))
    e.reset(seed=2)
    st = e.state
    hand = {p: st.game.hand_base + p for p in range(4)}
    before = {p: e.observe(f"player_{p}")["observation"].copy() for p in range(4)}
    # swap a card between the hands of seats 1 and 2: seat 0 and seat 3 cannot tell, seats 1 and 2 can
    a, b = st.zones[hand[1]][0], st.zones[hand[2]][0]
    st.zones[hand[1]][0], st.zones[hand[2]][0] = b, a
    after = {p: e.observe(f"player_{p}")["observation"] for p in range(4)}
    assert np.array_equal(before[0], after[0]) and np.array_equal(before[3], after[3])
    assert not np.array_equal(before[1], after[1]) and not np.array_equal(before[2], after[2])
    # Whist's honours (`held`, declared hidden): no seat sees them change; the points, public, every seat does
    st.vars["held"] = [3, 1]
    assert all(np.array_equal(after[p], e.observe(f"player_{p}")["observation"]) for p in range(4))
    st.vars["points"] = [1, 0]
    assert not any(np.array_equal(after[p], e.observe(f"player_{p}")["observation"]) for p in range(4))
    # the mask: only the agent to act has legal actions
    masks = [e.observe(f"player_{p}")["action_mask"] for p in range(4)]
    assert [int(m.sum() > 0) for m in masks] == [int(p == st.current_player()) for p in range(4)]


def test_an_illegal_action_is_refused_with_the_legal_ones():
    e = AtoutEnv(load(str(ROOT / "rules" / "ecarte.atout")))
    e.reset(seed=1)
    legal = e.state.legal_actions()
    bad = next(a for a in range(e.action_space("player_0").n) if a not in legal)
    with pytest.raises(ValueError, match="is not legal here; legal:"):
        e.step(bad)

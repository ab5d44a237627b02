"""PettingZoo: any rule file as an AEC environment (``pip install -e ".[pettingzoo]"``).

    from atout.pettingzoo import env
    e = env("rules/ecarte.atout")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0`` .. ``player_{N-1}`` (the 0-based seats).  The environment resolves chance nodes
itself (the deal, draws from the stock) with its own generator, seeded by ``reset(seed=...)``; an agent acts
only at its decisions.  ``observe(agent)`` is ``{"observation": float32 vector, "action_mask": int8
vector}``: the vector is the engine's ``observation_tensor`` (what that seat may see and nothing else: his
own hand, public zones, sizes of the others, the trick, variables as their visibility allows;
``atout.engine.observe.observation_tensor`` documents the layout), the mask marks the legal action ids
(card ids first, then the named actions; all 0 for an agent not to act).  Rewards are the match's returns,
given when it ends; there is no truncation unless ``max_steps`` is given.  ``render()`` with
``render_mode="ansi"`` returns the table as the acting seat sees it (``atout play``'s layout).

An illegal action raises ValueError naming it and the legal ones (wrap the environment in PettingZoo's
``TerminateIllegalWrapper`` to end the game instead).
"""
from __future__ import annotations

import functools

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from atout.engine import Game, load
from atout.engine.observe import observation_tensor, observation_tensor_size, table_string


def env(path: str, render_mode: str | None = None, max_steps: int | None = None, wrap: bool = True):
    """The AEC environment of the rule file at ``path``, with PettingZoo's order-enforcing wrapper unless
    ``wrap`` is false.  Raises CompileError for a bad rule file."""
    e = AtoutEnv(load(path), render_mode=render_mode, max_steps=max_steps)
    return wrappers.OrderEnforcingWrapper(e) if wrap else e


class AtoutEnv(AECEnv):
    """A compiled game as a PettingZoo AEC environment (see the module docstring)."""

    def __init__(self, game: Game, render_mode: str | None = None, max_steps: int | None = None):
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.metadata = {"render_modes": ["ansi", "human"], "name": f"atout_{game.name}_v0",
                         "is_parallelizable": False}
        self.possible_agents = [f"player_{p}" for p in range(game.players)]
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        self._obs_size = observation_tensor_size(game)
        self._num_actions = game.num_distinct_actions()
        self._rng = np.random.default_rng()
        self.state = None

    @functools.lru_cache(maxsize=None)
    def observation_space(self, agent):
        return spaces.Dict({
            "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(self._obs_size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self._num_actions,), dtype=np.int8),
        })

    @functools.lru_cache(maxsize=None)
    def action_space(self, agent):
        return spaces.Discrete(self._num_actions)

    # -- the AEC cycle -------------------------------------------------------------------------------
    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = self.game.new_initial_state()
        self._steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._advance()

    def _advance(self) -> None:
        """Play chance nodes; then select the agent to act, or end the episode."""
        st = self.state
        while st.is_chance_node():
            outcomes = st.chance_outcomes()
            st.apply_action(outcomes[int(self._rng.integers(len(outcomes)))][0])
        if st.is_terminal():
            for a, r in zip(self.agents, st.returns()):
                self.rewards[a] = float(r)
                self.terminations[a] = True
        elif self.max_steps is not None and self._steps >= self.max_steps:
            for a in self.agents:
                self.truncations[a] = True
        if not st.is_terminal():
            self.agent_selection = self.possible_agents[st.current_player()]
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.state
        legal = st.legal_actions()
        if action is None or int(action) not in legal:
            raise ValueError(f"{agent}: action {action!r} is not legal here; legal: {legal}")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        st.apply_action(int(action))
        self._steps += 1
        self._advance()
        self._accumulate_rewards()
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            # the episode is over: every agent is shown its last observation and removed in turn
            self.agent_selection = self.agents[0]

    def observe(self, agent):
        p = self._seat[agent]
        mask = np.zeros(self._num_actions, dtype=np.int8)
        st = self.state
        if not st.is_terminal() and st.current_player() == p:
            mask[st.legal_actions()] = 1
        return {"observation": np.asarray(observation_tensor(st, p), dtype=np.float32), "action_mask": mask}

    def render(self):
        if self.render_mode is None or self.state is None:
            return None
        st = self.state
        seat = st.current_player() if st.current_player() >= 0 else 0
        text = table_string(st, seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass

"""Adapters between PettingZoo and the environment interface, both ways.

* :class:`PettingZooEnv` wraps a PettingZoo ``AECEnv`` (a SEQUENTIAL game) or ``ParallelEnv``
  (SIMULTANEOUS) as an rlcore multi-agent environment whose players are the PettingZoo agents.
* :func:`to_pettingzoo` turns one of our multi-agent environments into a PettingZoo
  ``AECEnv`` (sequential games) or ``ParallelEnv`` (simultaneous games) that passes PettingZoo's
  ``api_test`` / ``parallel_api_test``.

Example::

    >>> import pettingzoo
    >>> from rlenvs import PettingZooEnv, TicTacToeEnv, to_pettingzoo
    >>> env = PettingZooEnv(pettingzoo.make("aec", "classic/tictactoe-v3"), seed=0)
    >>> env.reset(); env.current_player()
    'player_1'
    >>> aec = to_pettingzoo(TicTacToeEnv())
"""

import numpy as np
import pettingzoo
from gymnasium import spaces

from rlcore.envs import (
    FULL_ACTION_SET,
    GENERAL_SUM,
    IMPERFECT_INFORMATION,
    MINIMAL_ACTION_SET,
    OBSERVATION,
    SEQUENTIAL,
    SIMULTANEOUS,
    SIMULTANEOUS_PLAYER,
    STEP_REWARD,
    STOCHASTIC,
    AbstractEnv,
    ExplicitStochastic,
    FullActionSet,
    MultiAgent,
    check_action_in_space,
)
from rlcore.utils.random import make_rng
from rlenvs.games.common import check_joint_action
from rlenvs.gymnasium_env import reseed
from rlenvs.wrappers import SequentialEnv, StochasticEnv

__all__ = ["PettingZooEnv", "to_pettingzoo", "AECAdapter", "ParallelAdapter"]

_SEED_BOUND = 2**31 - 1


# ============================================================================ PettingZoo -> ours
class PettingZooEnv(AbstractEnv):
    """A PettingZoo environment seen through the environment interface.

    ``players()`` are the PettingZoo ``possible_agents``. An ``AECEnv`` is a SEQUENTIAL game:
    ``current_player()`` is ``agent_selection`` and ``env(action)`` steps it; the "dead steps"
    (``step(None)``) of agents that finished while others play on are taken automatically. A
    ``ParallelEnv`` is SIMULTANEOUS: the action is a tuple with one action per player (in the
    order of ``players()``; the actions of finished agents are ignored).

    ``state(player)`` is the agent's observation and ``state_space(player)`` its observation
    space; ``reward(player)`` is what the agent earned in the last transition (dead steps
    included). When observations are dicts with an ``"action_mask"`` (PettingZoo's classic games)
    or infos carry one, ``ActionStyle`` is FULL_ACTION_SET and the mask gives the legal actions;
    illegal actions raise ``ValueError`` before anything reaches PettingZoo. The episode is over
    when no agent is left playing: ``is_terminated()`` if some agent terminated, otherwise
    ``is_truncated()``.

    Seeding as in :class:`rlenvs.GymEnv`: the first ``reset()`` passes PettingZoo a seed drawn
    from ``rng`` and seeds the action spaces with it.

    Keyword arguments: ``rng``/``seed``.
    """

    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = STEP_REWARD
    UtilityStyle = GENERAL_SUM
    StateStyle = (OBSERVATION,)

    def __init__(self, env, *, rng=None, seed=None):
        if isinstance(env, pettingzoo.AECEnv):
            self.DynamicStyle = SEQUENTIAL
        elif isinstance(env, pettingzoo.ParallelEnv):
            self.DynamicStyle = SIMULTANEOUS
        else:
            raise TypeError(f"PettingZooEnv needs a pettingzoo AECEnv or ParallelEnv, got {env!r}")
        self.pettingzoo_env = env
        self.rng = make_rng(rng, seed)
        self._players = tuple(env.possible_agents)
        if len(self._players) < 2:
            raise ValueError(f"PettingZooEnv needs at least 2 agents, got {self._players}")
        self.NumAgentStyle = MultiAgent(len(self._players))
        first = env.observation_space(self._players[0])
        self._masked_observation = isinstance(first, spaces.Dict) and "action_mask" in first.spaces
        self.ActionStyle = FULL_ACTION_SET if self._masked_observation else MINIMAL_ACTION_SET
        self._info_mask = False
        self._seeded = False
        self._observations = {}
        self._infos = {}
        self._rewards = dict.fromkeys(self._players, 0.0)
        self._terminated = dict.fromkeys(self._players, False)
        self._truncated = dict.fromkeys(self._players, False)
        self._live = ()
        if self.DynamicStyle is SIMULTANEOUS:
            self._joint_space = spaces.Tuple(tuple(env.action_space(p) for p in self._players))

    # --- episode
    def reset(self):
        env = self.pettingzoo_env
        seed = None
        if not self._seeded:
            seed = int(self.rng.integers(_SEED_BOUND))
            for i, player in enumerate(self._players):
                env.action_space(player).seed(seed + i)
            self._seeded = True
        self._rewards = dict.fromkeys(self._players, 0.0)
        self._terminated = dict.fromkeys(self._players, False)
        self._truncated = dict.fromkeys(self._players, False)
        if self.DynamicStyle is SIMULTANEOUS:
            self._observations, self._infos = env.reset(seed=seed)
            self._live = tuple(env.agents)
        else:
            env.reset(seed=seed)
            self._sync_aec()
        self._info_mask = any(isinstance(i, dict) and "action_mask" in i
                              for i in self._infos.values())
        if self._info_mask and not self._masked_observation:
            self.ActionStyle = FULL_ACTION_SET

    def _sync_aec(self):
        env = self.pettingzoo_env
        self._live = tuple(a for a in env.agents
                           if not (env.terminations[a] or env.truncations[a]))
        self._infos = dict(env.infos)
        for agent in env.agents:
            self._terminated[agent] = bool(env.terminations[agent])
            self._truncated[agent] = bool(env.truncations[agent])

    def __call__(self, action):
        if self.is_terminated() or self.is_truncated():
            raise RuntimeError(f"the episode of {self!r} is over; call reset() before acting")
        if self.DynamicStyle is SIMULTANEOUS:
            self._step_parallel(action)
        else:
            self._step_aec(action)

    def _step_aec(self, action):
        env = self.pettingzoo_env
        self.check_action(action)
        rewards = dict.fromkeys(self._players, 0.0)
        env.step(action)
        for agent, reward in env.rewards.items():
            rewards[agent] += float(reward)
        self._sync_aec()
        # Dead steps of agents that finished while others play on.
        while self._live and env.agent_selection not in self._live:
            env.step(None)
            for agent, reward in env.rewards.items():
                rewards[agent] += float(reward)
            self._sync_aec()
        self._rewards = rewards

    def _step_parallel(self, action):
        check_joint_action(self, action)
        for player, a in zip(self._players, action):
            if player in self._live and isinstance(self.ActionStyle, FullActionSet) \
                    and not self.legal_action_space_mask(player)[int(a)]:
                raise ValueError(f"action {a!r} of {player} is not in the legal actions "
                                 f"{self.legal_action_space(player)}")
        actions = {p: a for p, a in zip(self._players, action) if p in self._live}
        observations, rewards, terminations, truncations, infos = \
            self.pettingzoo_env.step(actions)
        self._observations.update(observations)
        self._infos.update(infos)
        self._rewards = {p: float(rewards.get(p, 0.0)) for p in self._players}
        for agent in actions:
            self._terminated[agent] = bool(terminations.get(agent, False))
            self._truncated[agent] = bool(truncations.get(agent, False))
        self._live = tuple(a for a in self.pettingzoo_env.agents
                           if not (self._terminated.get(a) or self._truncated.get(a)))

    # --- players and spaces
    def players(self):
        return self._players

    def current_player(self):
        if self.DynamicStyle is SIMULTANEOUS:
            return SIMULTANEOUS_PLAYER
        return self.pettingzoo_env.agent_selection

    def _player(self, player):
        if player is None or player is SIMULTANEOUS_PLAYER:
            return None
        if player not in self._players:
            raise ValueError(f"player {player!r} is not one of {self._players}")
        return player

    def action_space(self, player=None):
        player = self._player(player)
        if player is None:
            if self.DynamicStyle is SIMULTANEOUS:
                return self._joint_space
            player = self.current_player()
        return self.pettingzoo_env.action_space(player)

    def state_space(self, player=None):
        player = self._player(player) or self._default_observer()
        return self.pettingzoo_env.observation_space(player)

    def _default_observer(self):
        return self._players[0] if self.DynamicStyle is SIMULTANEOUS else self.current_player()

    def state(self, player=None):
        player = self._player(player) or self._default_observer()
        if self.DynamicStyle is SIMULTANEOUS:
            return self._observations[player]
        return self.pettingzoo_env.observe(player)

    def reward(self, player=None):
        player = self._player(player) or self._default_observer()
        return self._rewards[player]

    def is_terminated(self):
        return not self._live and any(self._terminated.values())

    def is_truncated(self):
        return not self._live and not any(self._terminated.values()) \
            and any(self._truncated.values())

    def legal_action_space_mask(self, player=None):
        player = self._player(player)
        if player is None:
            if self.DynamicStyle is SIMULTANEOUS:
                raise ValueError("a simultaneous game has one mask per player; name the player")
            player = self.current_player()
        space = self.pettingzoo_env.action_space(player)
        if not isinstance(space, spaces.Discrete):
            raise TypeError(f"legal_action_space_mask needs a Discrete action space, got {space}")
        mask = None
        if self._masked_observation:
            mask = self.state(player)["action_mask"]
        elif self._info_mask:
            mask = self._infos.get(player, {}).get("action_mask")
        if mask is None:
            return np.ones(space.n, dtype=bool)
        return np.asarray(mask).astype(bool)

    def legal_action_space(self, player=None):
        if not isinstance(self.ActionStyle, FullActionSet):
            return self.action_space(player)
        space = self.action_space(player)
        return [int(space.start) + int(i)
                for i in np.flatnonzero(self.legal_action_space_mask(player))]

    def check_action(self, action, player=None):
        space = self.action_space(player)
        check_action_in_space(action, space)
        if isinstance(self.ActionStyle, FullActionSet) \
                and not self.legal_action_space_mask(player)[int(action) - int(space.start)]:
            raise ValueError(f"action {action!r} is not in the legal actions "
                             f"{self.legal_action_space(player)}")

    def render(self, mode="text"):
        env = self.pettingzoo_env
        if mode == "text" and env.render_mode != "ansi":
            return f"{self!r}: to act {self.current_player()!r}, rewards {self._rewards}"
        if mode == env.render_mode or (mode == "text" and env.render_mode == "ansi"):
            return env.render()
        raise ValueError(f"{self!r} was made with render_mode={env.render_mode!r}; it renders "
                         f"mode='text' or {env.render_mode!r}, not {mode!r}")

    def close(self):
        """Close the PettingZoo environment."""
        self.pettingzoo_env.close()

    def __repr__(self):
        return f"PettingZooEnv({self.pettingzoo_env})"


# ============================================================================ ours -> PettingZoo
def _prepare(env, seed):
    if isinstance(env.ChanceStyle, ExplicitStochastic):
        env = StochasticEnv(env, seed=seed)
    return env


class _Spaces:
    """Observation spaces of the adapters, built once per agent (PettingZoo wants the same
    object at every call)."""

    def __init__(self, env):
        self.env = env
        self.masked = isinstance(env.ActionStyle, FullActionSet)
        self._observation_spaces = {}

    def observation_space(self, agent):
        space = self._observation_spaces.get(agent)
        if space is None:
            space = self.env.state_space(agent)
            if self.masked:
                n = self.env.action_space(agent).n
                space = spaces.Dict({"observation": space,
                                     "action_mask": spaces.Box(0, 1, shape=(n,), dtype=np.int8)})
            self._observation_spaces[agent] = space
        return space

    def observe(self, agent, legal):
        state = self.env.state(agent)
        space = self.env.state_space(agent)
        if isinstance(space, (spaces.Discrete, spaces.Box, spaces.MultiDiscrete,
                              spaces.MultiBinary)) and space.dtype is not None:
            # PettingZoo compares dtypes: a Python int becomes a numpy scalar of the space's dtype
            state = np.asarray(state, dtype=space.dtype)
            if state.ndim == 0:
                state = state[()]
        if not self.masked:
            return state
        n = self.env.action_space(agent).n
        mask = np.asarray(self.env.legal_action_space_mask(agent), dtype=np.int8) if legal \
            else np.zeros(n, dtype=np.int8)
        return {"observation": state, "action_mask": mask}


def _adapter_render(self):
    """The wrapped environment's text rendering (``None`` without a ``render_mode``)."""
    if self.render_mode is None:
        return None
    return self.rl_env.render("text")


def _adapter_close(self):
    close = getattr(self.rl_env, "close", None)
    if close is not None:
        close()


def _adapter_str(self):
    return f"to_pettingzoo({self.rl_env!r})"


class AECAdapter(pettingzoo.AECEnv):
    """One of our sequential multi-agent environments as a PettingZoo ``AECEnv`` (see
    :func:`to_pettingzoo`). ``rl_env`` is the environment driven."""

    metadata = {"render_modes": ["ansi"], "name": "rlenvs", "is_parallelizable": False}

    def __init__(self, env, render_mode=None):
        super().__init__()
        self.rl_env = env
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=type(env.innermost if hasattr(env, "innermost")
                                                      else env).__name__)
        self.possible_agents = list(env.players())
        self._spaces = _Spaces(env)
        self.agents = []
        self.agent_selection = self.possible_agents[0]
        self.rewards, self._cumulative_rewards = {}, {}
        self.terminations, self.truncations, self.infos = {}, {}, {}

    def observation_space(self, agent):
        return self._spaces.observation_space(agent)

    def action_space(self, agent):
        return self.rl_env.action_space(agent)

    def observe(self, agent):
        env = self.rl_env
        over = env.is_terminated() or env.is_truncated()
        return self._spaces.observe(agent, legal=not over and env.current_player() == agent)

    def reset(self, seed=None, options=None):
        if seed is not None:
            reseed(self.rl_env, seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)
        self.rl_env.reset()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.rl_env.current_player()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        env = self.rl_env
        env(action)
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = float(env.reward(a))
        terminated, truncated = env.is_terminated(), env.is_truncated()
        for a in self.agents:
            self.terminations[a] = bool(terminated)
            self.truncations[a] = bool(truncated and not terminated)
        self._accumulate_rewards()
        if terminated or truncated:
            order = self.agents
            self.agent_selection = order[(order.index(agent) + 1) % len(order)]
        else:
            self.agent_selection = env.current_player()

    # Shared with the other adapter class (module functions: the two subclass different
    # PettingZoo bases).
    render = _adapter_render
    close = _adapter_close
    __str__ = _adapter_str


class ParallelAdapter(pettingzoo.ParallelEnv):
    """One of our simultaneous multi-agent environments as a PettingZoo ``ParallelEnv`` (see
    :func:`to_pettingzoo`). ``rl_env`` is the environment driven."""

    metadata = {"render_modes": ["ansi"], "name": "rlenvs"}

    def __init__(self, env, render_mode=None):
        self.rl_env = env
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=type(env).__name__)
        self.possible_agents = list(env.players())
        self._spaces = _Spaces(env)
        self.agents = []

    def observation_space(self, agent):
        return self._spaces.observation_space(agent)

    def action_space(self, agent):
        return self.rl_env.action_space(agent)

    def _observations(self, legal):
        return {a: self._spaces.observe(a, legal) for a in self.possible_agents}

    def reset(self, seed=None, options=None):
        if seed is not None:
            reseed(self.rl_env, seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)
        self.rl_env.reset()
        self.agents = list(self.possible_agents)
        return self._observations(legal=True), {a: {} for a in self.agents}

    def step(self, actions):
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"actions {actions!r} lack an action for agents {missing}")
        env = self.rl_env
        env(tuple(actions[a] for a in self.possible_agents))
        terminated, truncated = env.is_terminated(), env.is_truncated()
        observations = self._observations(legal=not (terminated or truncated))
        rewards = {a: float(env.reward(a)) for a in self.agents}
        terminations = dict.fromkeys(self.agents, bool(terminated))
        truncations = dict.fromkeys(self.agents, bool(truncated and not terminated))
        infos = {a: {} for a in self.agents}
        if terminated or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    # Shared with the other adapter class (module functions: the two subclass different
    # PettingZoo bases).
    render = _adapter_render
    close = _adapter_close
    __str__ = _adapter_str


def to_pettingzoo(env, *, parallel=None, render_mode=None, seed=None):
    """One of our multi-agent environments as a PettingZoo environment.

    A SIMULTANEOUS game becomes a ``ParallelEnv`` (:class:`ParallelAdapter`) unless
    ``parallel=False``, which takes its turns through :class:`rlenvs.SequentialEnv`; a SEQUENTIAL
    game becomes an ``AECEnv`` (:class:`AECAdapter`). EXPLICIT_STOCHASTIC games have their chance
    nodes sampled by :class:`rlenvs.StochasticEnv` (seeded with ``seed``). Observations of
    FULL_ACTION_SET games are dicts ``{"observation": state, "action_mask": int8 mask}`` as in
    PettingZoo's classic games. ``reset(seed=s)`` reseeds the whole stack.

    Keyword arguments: ``parallel=None`` (follow the env's DynamicStyle), ``render_mode=None``
    (or ``"ansi"``), ``seed=None``.
    """
    if not isinstance(env, AbstractEnv) or not isinstance(env.NumAgentStyle, MultiAgent):
        raise ValueError(f"to_pettingzoo needs a multi-agent rlcore environment, got {env!r}; "
                         "use rlenvs.to_gymnasium for single-agent ones")
    if render_mode not in (None, "ansi"):
        raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
    simultaneous = env.DynamicStyle is SIMULTANEOUS
    if parallel is None:
        parallel = simultaneous
    if parallel and not simultaneous:
        raise ValueError(f"{env!r} is a SEQUENTIAL game; it becomes an AECEnv (parallel=False)")
    env = _prepare(env, seed)
    if parallel:
        return ParallelAdapter(env, render_mode=render_mode)
    if simultaneous:
        env = SequentialEnv(env)
    return AECAdapter(env, render_mode=render_mode)

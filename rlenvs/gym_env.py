"""A Gymnasium environment seen through the environment interface, after RL.jl's ``GymEnv``."""

import gymnasium
import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    GENERAL_SUM, IMPERFECT_INFORMATION, MINIMAL_ACTION_SET, OBSERVATION, SEQUENTIAL, SINGLE_AGENT,
    STEP_REWARD, STOCHASTIC, AbstractEnv, check_action_in_space,
)
from rlcore.utils.random import make_rng

__all__ = ["GymEnv"]

_SEED_BOUND = 2**31 - 1
# Integer types accepted by the Discrete fast path without a call (bool is left to the slow path).
_INT_TYPES = frozenset({int, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32,
                        np.uint16, np.uint8})


class GymEnv(AbstractEnv):
    """A Gymnasium environment (an id, made with ``gymnasium.make``, or an instance).

    After ReinforcementLearning.jl's ``GymEnv``. Termination and truncation stay apart:
    ``is_terminated()`` is Gymnasium's ``terminated``, ``is_truncated()`` its ``truncated`` (a
    time limit). ``state()`` is the last observation, ``reward()`` the last reward (0.0 after
    ``reset()``), ``info`` the last info dict; ``action_space()`` and ``state_space()`` are the
    Gymnasium spaces; ``gym_env`` is the wrapped environment. An action outside the action space
    raises ``ValueError`` before anything reaches Gymnasium; acting after the episode ended
    without a ``reset()`` raises ``RuntimeError``.

    Seeding: the first ``reset()`` passes Gymnasium a seed drawn from ``rng`` and seeds the action
    space with it; later resets pass none, so Gymnasium's own generator carries on. The same seed
    gives the same sequence of episodes.

    Keyword arguments: ``seed=None`` or ``rng=None`` (a ``numpy.random.Generator``), and, when
    ``env`` is an id, keyword arguments for ``gymnasium.make`` (``max_episode_steps``,
    ``render_mode``, ...).

    Example::

        >>> env = GymEnv("CartPole-v1", seed=0)
        >>> env.reset()
        >>> env(0)
        >>> env.state().shape, env.reward(), env.is_terminated(), env.is_truncated()
        ((4,), 1.0, False, False)
        >>> env.action_space()
        Discrete(2)
    """

    NumAgentStyle = SINGLE_AGENT
    DynamicStyle = SEQUENTIAL
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = STEP_REWARD
    UtilityStyle = GENERAL_SUM
    ActionStyle = MINIMAL_ACTION_SET
    StateStyle = (OBSERVATION,)

    def __init__(self, env, seed=None, rng=None, **make_kwargs):
        if isinstance(env, str):
            self.gym_env = gymnasium.make(env, **make_kwargs)
        elif isinstance(env, gymnasium.Env):
            if make_kwargs:
                raise TypeError(f"keyword arguments {sorted(make_kwargs)} are for "
                                "gymnasium.make; pass an id, not an instance, to use them")
            self.gym_env = env
        else:
            raise TypeError(f"GymEnv needs a Gymnasium id or a gymnasium.Env, got {env!r}")
        self.rng = make_rng(rng, seed)
        self.info = {}
        self._action_space = self.gym_env.action_space
        self._state_space = self.gym_env.observation_space
        self._step = self.gym_env.step
        if type(self._action_space) is spaces.Discrete:
            self._low = int(self._action_space.start)
            self._high = self._low + int(self._action_space.n)
        else:  # An empty range: every action takes the general check.
            self._low, self._high = 0, 0
        self._seeded = False
        self._observation = None
        self._reward = 0.0
        self._terminated = False
        self._truncated = False
        self._done = True  # No episode until the first reset().

    @property
    def name(self):
        """The Gymnasium id, or the class name of an environment made without one."""
        spec = self.gym_env.spec
        return spec.id if spec is not None else type(self.gym_env.unwrapped).__name__

    def seed(self, seed=None, rng=None):
        """Replace ``rng`` (``seed`` or ``rng``, as in the constructor); the next ``reset()``
        passes Gymnasium a seed drawn from it, as the first one did."""
        self.rng = make_rng(rng, seed)
        self._seeded = False

    def reset(self):
        if self._seeded:
            self._observation, self.info = self.gym_env.reset()
        else:
            seed = int(self.rng.integers(_SEED_BOUND))
            self._observation, self.info = self.gym_env.reset(seed=seed)
            self._action_space.seed(seed)
            self._seeded = True
        self._reward = 0.0
        self._terminated = self._truncated = self._done = False

    def __call__(self, action):
        # The hot path: one attribute test and a range test for Discrete actions.
        if self._done or not (action.__class__ in _INT_TYPES and self._low <= action < self._high):
            self._check(action)
        self._observation, self._reward, terminated, truncated, self.info = self._step(action)
        # Some Gymnasium environments return numpy bools; the interface promises Python bools.
        self._terminated = terminated = terminated is True or bool(terminated)
        self._truncated = truncated = truncated is True or bool(truncated)
        self._done = terminated or truncated

    def check_action(self, action, player=None):
        """Raise ``ValueError`` naming the action and the space unless ``action`` is in the
        action space (on a ``GymEnv`` itself, not a subclass, which may restrict the legal
        actions, an in-range int of a ``Discrete`` space passes without a call)."""
        if not (type(self) is GymEnv and action.__class__ in _INT_TYPES
                and self._low <= action < self._high):
            super().check_action(action, player)

    def _check(self, action):
        if self._done:
            if self._observation is None:
                raise RuntimeError(f"{self!r} has not been reset; call reset() before acting")
            ended = "terminated" if self._terminated else "was truncated"
            raise RuntimeError(f"the episode of {self!r} {ended}; call reset() before acting")
        check_action_in_space(action, self._action_space)

    def state(self, player=None):
        return self._observation

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        return self._terminated

    def is_truncated(self):
        return self._truncated

    def action_space(self, player=None):
        return self._action_space

    def state_space(self, player=None):
        return self._state_space

    def render(self, mode="text"):
        """``"text"``: a short description (Gymnasium's own text when made with
        ``render_mode="ansi"``); otherwise the Gymnasium render when ``mode`` is the
        ``render_mode`` the environment was made with (``"rgb_array"``, ``"human"``)."""
        render_mode = self.gym_env.render_mode
        if mode == "text" and render_mode != "ansi":
            return (f"{self!r}: state {self._observation!r}, reward {self._reward!r}, "
                    f"terminated {self._terminated}, truncated {self._truncated}")
        if mode == render_mode or (mode == "text" and render_mode == "ansi"):
            return self.gym_env.render()
        raise ValueError(f"{self!r} was made with render_mode={render_mode!r}, so it renders "
                         f"mode='text' or {render_mode!r}, not mode={mode!r}; pass "
                         f"render_mode={mode!r} to GymEnv to render it")

    def set_render_mode(self, mode):
        """Render ``mode`` (``"rgb_array"``, ``"human"``, ``"ansi"``) from now on, for an
        environment made without it: the Gymnasium environment's ``render_mode`` is set. Works
        for the environments that read ``render_mode`` when they render (classic control,
        Box2D, MuJoCo, Atari); Gymnasium environments that build their renderer at construction
        must be made with ``render_mode`` instead.

        >>> env = GymEnv("CartPole-v1", seed=0)
        >>> env.set_render_mode("rgb_array"); env.reset()
        >>> env.render("rgb_array").shape
        (400, 600, 3)
        """
        modes = self.gym_env.metadata.get("render_modes", [])
        if mode not in modes:
            raise ValueError(f"{self!r} renders {modes}, not render_mode={mode!r}")
        self.gym_env.unwrapped.render_mode = mode

    def close(self):
        """Close the wrapped Gymnasium environment."""
        self.gym_env.close()

    def __repr__(self):
        return f"GymEnv({self.name!r})"

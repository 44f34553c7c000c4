"""The bit-flipping task of Hindsight Experience Replay, after RL.jl's ``BitFlippingEnv``."""

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    GENERAL_SUM,
    GOAL_STATE,
    MINIMAL_ACTION_SET,
    OBSERVATION,
    PERFECT_INFORMATION,
    SEQUENTIAL,
    SINGLE_AGENT,
    STEP_REWARD,
    STOCHASTIC,
    AbstractEnv,
)
from rlcore.utils.random import make_rng

__all__ = ["BitFlippingEnv"]


class BitFlippingEnv(AbstractEnv):
    """Flip bits of an ``N``-bit vector until it equals a goal vector.

    Andrychowicz et al., *Hindsight Experience Replay*, NeurIPS 2017, §4.1. Each episode draws a
    random start and a different random goal (both with ``rng``). Action ``i`` flips bit ``i``.
    Reward ``0`` once the bits equal the goal, ``-1`` otherwise; reaching the goal terminates the
    episode, ``max_steps`` steps truncate it.

    State styles: OBSERVATION (default), the bits as an int8 array in ``MultiBinary(N)``;
    GOAL_STATE, the goal in the same space (``state(style=GOAL_STATE)``).

    Keyword arguments: ``N=8`` (at least 1), ``max_steps=N``, ``rng``/``seed``.

    Example::

        >>> env = BitFlippingEnv(N=4, seed=0)
        >>> env.reset()
        >>> for i in np.flatnonzero(env.state() != env.state(style=GOAL_STATE)):
        ...     env(int(i))
        >>> env.is_terminated(), env.reward()
        (True, 0.0)
    """

    NumAgentStyle = SINGLE_AGENT
    DynamicStyle = SEQUENTIAL
    InformationStyle = PERFECT_INFORMATION
    ChanceStyle = STOCHASTIC  # the start and the goal; flips are deterministic
    RewardStyle = STEP_REWARD
    UtilityStyle = GENERAL_SUM
    ActionStyle = MINIMAL_ACTION_SET
    StateStyle = (OBSERVATION, GOAL_STATE)

    def __init__(self, N=8, *, max_steps=None, rng=None, seed=None):
        if not isinstance(N, (int, np.integer)) or N < 1:
            raise ValueError(f"BitFlippingEnv needs N >= 1 bits, got N={N!r}")
        max_steps = N if max_steps is None else max_steps
        if not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, got max_steps={max_steps!r}")
        self.N = int(N)
        self.max_steps = int(max_steps)
        self.rng = make_rng(rng, seed)
        self._action_space = spaces.Discrete(self.N)
        self._state_space = spaces.MultiBinary(self.N)
        self.bits = np.zeros(self.N, dtype=np.int8)
        self.goal = np.ones(self.N, dtype=np.int8)
        self.t = 0

    def reset(self):
        self.bits = self.rng.integers(2, size=self.N).astype(np.int8)
        self.goal = self.rng.integers(2, size=self.N).astype(np.int8)
        if np.array_equal(self.bits, self.goal):  # never start at the goal
            self.goal[int(self.rng.integers(self.N))] ^= 1
        self.t = 0

    def __call__(self, action):
        self.check_action(action)
        if self.is_terminated() or self.is_truncated():
            raise RuntimeError(f"{self!r}: the episode is over; call reset() before acting")
        self.bits[int(action)] ^= 1
        self.t += 1

    def state(self, player=None, style=None):
        if style is None or style is OBSERVATION:
            return self.bits.copy()
        if style is GOAL_STATE:
            return self.goal.copy()
        raise ValueError(f"BitFlippingEnv has state styles {self.StateStyle}, got {style!r}")

    def state_space(self, player=None, style=None):
        if style is not None and style not in self.StateStyle:
            raise ValueError(f"BitFlippingEnv has state styles {self.StateStyle}, got {style!r}")
        return self._state_space

    def reward(self, player=None):
        return 0.0 if self.is_terminated() else -1.0

    def is_terminated(self):
        return bool(np.array_equal(self.bits, self.goal))

    def is_truncated(self):
        return self.t >= self.max_steps and not self.is_terminated()

    def action_space(self, player=None):
        return self._action_space

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"BitFlippingEnv renders only mode='text', got mode={mode!r}")
        return f"bits {''.join(map(str, self.bits))} goal {''.join(map(str, self.goal))}"

    def __repr__(self):
        return f"BitFlippingEnv(N={self.N}, max_steps={self.max_steps})"

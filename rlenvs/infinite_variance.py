"""The one-state MDP of Example 5.5 (infinite variance of ordinary importance sampling).

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), Example 5.5
and Figure 5.4. One non-terminal state ``s`` (0) with two actions: ``right`` (1) ends the episode
with reward 0; ``left`` (0) ends it with reward +1 with probability 0.1 and otherwise returns to
``s`` with reward 0. The target policy always goes left, so ``v_π(s) = 1``; under a uniform
behaviour policy the ordinary importance-sampling estimate has infinite variance.

States: 0 (``s``) and 1 (terminal).
"""

from gymnasium import spaces

from rlcore.envs import (
    MINIMAL_ACTION_SET, PERFECT_INFORMATION, SINGLE_AGENT, STOCHASTIC, TERMINAL_REWARD, AbstractEnv,
)
from rlcore.utils.random import make_rng

__all__ = ["InfiniteVarianceEnv", "LEFT", "RIGHT"]

LEFT, RIGHT = 0, 1


class InfiniteVarianceEnv(AbstractEnv):
    """Example 5.5's one-state MDP.

    Keyword arguments: ``p_end=0.1`` (probability that ``left`` ends the episode with +1),
    ``rng``/``seed``.

    Example::

        >>> env = InfiniteVarianceEnv(seed=0)
        >>> env.reset(); env(RIGHT); env.is_terminated(), env.reward()
        (True, 0.0)
    """

    NumAgentStyle = SINGLE_AGENT
    InformationStyle = PERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = TERMINAL_REWARD
    ActionStyle = MINIMAL_ACTION_SET

    def __init__(self, p_end=0.1, rng=None, seed=None):
        if not 0.0 < p_end <= 1.0:
            raise ValueError(f"p_end must be in (0, 1], got {p_end!r}")
        self.p_end = float(p_end)
        self.rng = make_rng(rng, seed)
        self._action_space, self._state_space = spaces.Discrete(2), spaces.Discrete(2)
        self.reset()

    def reset(self):
        self._state, self._reward = 0, 0.0

    def __call__(self, action):
        if not (type(action) is int and 0 <= action < 2):
            self.check_action(action)
        if self._state == 1:
            raise RuntimeError("the episode is over; call reset() first")
        if action == RIGHT:
            self._state, self._reward = 1, 0.0
        elif self.rng.random() < self.p_end:
            self._state, self._reward = 1, 1.0
        else:
            self._reward = 0.0

    def state(self, player=None):
        return self._state

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        return self._state == 1

    def action_space(self, player=None):
        return self._action_space

    def state_space(self, player=None):
        return self._state_space

    def __repr__(self):
        return f"InfiniteVarianceEnv(p_end={self.p_end})"

"""The maximization-bias MDP of Example 6.7 (Figure 6.5).

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), Example 6.7.
Episodes start in ``A`` (state 0), which has two actions: ``right`` (1) ends the episode with
reward 0, ``left`` (0) moves to ``B`` (state 1) with reward 0. In ``B`` each of ``n_b_actions``
actions ends the episode with a reward drawn from ``N(mean, std²)`` (−0.1 and 1 in the book), so
going left is worse on average, yet Q-learning's ``max`` over noisy estimates first favours it.

State 2 is terminal. The action space is ``Discrete(max(2, n_b_actions))`` with
``FULL_ACTION_SET``: in ``A`` only actions 0 and 1 are legal.
"""

from gymnasium import spaces

from rlcore.envs import (
    FULL_ACTION_SET, PERFECT_INFORMATION, SINGLE_AGENT, STEP_REWARD, STOCHASTIC, AbstractEnv,
)
from rlcore.utils.random import make_rng

__all__ = ["MaximizationBiasEnv", "LEFT", "RIGHT", "STATE_A", "STATE_B", "TERMINAL"]

LEFT, RIGHT = 0, 1
STATE_A, STATE_B, TERMINAL = 0, 1, 2


class MaximizationBiasEnv(AbstractEnv):
    """Example 6.7's MDP.

    Keyword arguments: ``n_b_actions=10``, ``mean=-0.1``, ``std=1.0``, ``rng``/``seed``.

    Example::

        >>> env = MaximizationBiasEnv(seed=0)
        >>> env.reset(); env(LEFT); env.state(), env.legal_action_space()
        (1, range(0, 10))
    """

    NumAgentStyle = SINGLE_AGENT
    InformationStyle = PERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = STEP_REWARD
    ActionStyle = FULL_ACTION_SET

    def __init__(self, n_b_actions=10, mean=-0.1, std=1.0, rng=None, seed=None):
        if not isinstance(n_b_actions, int) or n_b_actions < 1:
            raise ValueError(f"n_b_actions must be a positive int, got {n_b_actions!r}")
        if not std >= 0:
            raise ValueError(f"std must be >= 0, got {std!r}")
        self.n_b_actions, self.mean, self.std = n_b_actions, float(mean), float(std)
        self.rng = make_rng(rng, seed)
        self._action_space = spaces.Discrete(max(2, n_b_actions))
        self._state_space = spaces.Discrete(3)
        self.reset()

    def reset(self):
        self._state, self._reward = STATE_A, 0.0

    def __call__(self, action):
        self.check_action(action)
        if self._state == STATE_A:
            self._state = STATE_B if action == LEFT else TERMINAL
            self._reward = 0.0
        elif self._state == STATE_B:
            self._state = TERMINAL
            self._reward = float(self.mean + self.std * self.rng.standard_normal())
        else:
            raise RuntimeError("the episode is over; call reset() first")

    def state(self, player=None):
        return self._state

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        return self._state == TERMINAL

    def action_space(self, player=None):
        return self._action_space

    def legal_action_space(self, player=None):
        if self._state == STATE_A:
            return range(2)
        if self._state == STATE_B:
            return range(self.n_b_actions)
        return range(0)

    def state_space(self, player=None):
        return self._state_space

    def __repr__(self):
        return (f"MaximizationBiasEnv(n_b_actions={self.n_b_actions}, mean={self.mean}, "
                f"std={self.std})")

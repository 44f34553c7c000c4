"""The k-armed testbed of Sutton & Barto chapter 2, one bandit or a batch of independent ones.

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), §2.3 (the
10-armed testbed: true values ``q*(a) ~ N(true_reward, 1)``, rewards ``R ~ N(q*(A), 1)``) and
Exercise 2.5 (non-stationary: all ``q*(a)`` start equal and take independent ``N(0, walk_std²)``
random-walk steps after every pull).

The bandit has one state (0) and never terminates: run it with ``StopAfterStep(n)``.
:class:`BatchMultiArmBanditsEnv` holds ``n_envs`` independent bandits stepped together (the state,
action and reward are arrays of length ``n_envs``) so one ``run`` advances thousands of runs of the
testbed at numpy speed; :mod:`rlzoo.tabular.bandits` has the matching learners and explorers.
"""

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    IMPERFECT_INFORMATION, MINIMAL_ACTION_SET, SINGLE_AGENT, STEP_REWARD, STOCHASTIC, AbstractEnv,
)
from rlcore.utils.random import make_rng

__all__ = ["MultiArmBanditsEnv", "BatchMultiArmBanditsEnv"]


def _check(k, walk_std):
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive int (number of arms), got {k!r}")
    if not walk_std >= 0:
        raise ValueError(f"walk_std must be >= 0, got {walk_std!r}")


class _Bandits:
    """The shared dynamics of ``n`` bandits: true values ``_q`` of shape ``(n, k)``."""

    def _init_values(self, n, k, true_reward, true_values, stationary):
        if true_values is not None:
            q = np.asarray(true_values, dtype=np.float64)
            if q.shape != (k,):
                raise ValueError(f"true_values must have k={k} entries, got shape {q.shape}")
            return np.tile(q, (n, 1))
        if stationary:
            return true_reward + self.rng.standard_normal((n, k))
        return np.full((n, k), float(true_reward))  # Exercise 2.5: all values start equal

    def _pull(self, actions):
        """Rewards of arm ``actions[i]`` of bandit ``i``; then the random walk (non-stationary)."""
        rows = np.arange(len(actions))
        rewards = self._q[rows, actions] + self.rng.standard_normal(len(actions))
        if not self.stationary:
            self._q += self.walk_std * self.rng.standard_normal(self._q.shape)
        return rewards


class MultiArmBanditsEnv(_Bandits, AbstractEnv):
    """One k-armed bandit: action ``a`` pays ``N(q*(a), 1)``.

    Keyword arguments:

    * ``k=10``: number of arms.
    * ``true_reward=0.0``: mean of the true values ``q*(a) ~ N(true_reward, 1)`` (Figure 2.5 uses
      4); in the non-stationary case the common initial value.
    * ``true_values=None``: give the ``k`` true values instead of drawing them.
    * ``stationary=True``: ``False`` for Exercise 2.5's random walk of the true values.
    * ``walk_std=0.01``: standard deviation of each random-walk step.
    * ``rng``/``seed``.

    ``q_true`` holds the current true values and ``optimal_action()`` the best arm.
    ``reset()`` does not draw new values: a new run of the testbed is a new environment.

    Example::

        >>> env = MultiArmBanditsEnv(k=3, true_values=[0.0, 1.0, 2.0], seed=0)
        >>> env.reset(); env(2); isinstance(env.reward(), float), env.optimal_action()
        (True, 2)
    """

    NumAgentStyle = SINGLE_AGENT
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = STEP_REWARD
    ActionStyle = MINIMAL_ACTION_SET

    def __init__(self, k=10, true_reward=0.0, true_values=None, stationary=True, walk_std=0.01,
                 rng=None, seed=None):
        _check(k, walk_std)
        self.k, self.true_reward, self.stationary = int(k), float(true_reward), bool(stationary)
        self.walk_std = float(walk_std)
        self.rng = make_rng(rng, seed)
        self._q = self._init_values(1, self.k, self.true_reward, true_values, self.stationary)
        self._action_space = spaces.Discrete(self.k)
        self._state_space = spaces.Discrete(1)
        self._reward = 0.0

    @property
    def q_true(self):
        """The current true values (shape ``(k,)``)."""
        return self._q[0]

    @q_true.setter
    def q_true(self, value):
        self._q[0] = value

    def optimal_action(self):
        """The arm with the largest true value now."""
        return int(np.argmax(self._q[0]))

    def reset(self):
        self._reward = 0.0

    def __call__(self, action):
        if not (type(action) is int and 0 <= action < self.k):
            self.check_action(action)
        self._reward = float(self._pull(np.array([int(action)]))[0])

    def state(self, player=None):
        return 0

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        return False

    def action_space(self, player=None):
        return self._action_space

    def state_space(self, player=None):
        return self._state_space

    def __repr__(self):
        return (f"MultiArmBanditsEnv(k={self.k}, true_reward={self.true_reward}, "
                f"stationary={self.stationary}, walk_std={self.walk_std})")


class BatchMultiArmBanditsEnv(_Bandits, AbstractEnv):
    """``n_envs`` independent k-armed bandits stepped together (a vectorised environment).

    ``state()`` is ``zeros(n_envs)``, ``env(actions)`` takes one arm per bandit (an int array of
    length ``n_envs``), ``rewards()`` is the array of the ``n_envs`` rewards of the last step and
    ``reward()`` their mean: the average reward over the runs, the quantity Figure 2.2 plots, so
    the ordinary hooks (``RewardsPerEpisode``) record the averaged curve. The keyword arguments
    are those of :class:`MultiArmBanditsEnv` plus ``n_envs``; each bandit draws its own true
    values from one ``rng``.

    Example::

        >>> env = BatchMultiArmBanditsEnv(n_envs=4, k=10, seed=0)
        >>> env.reset(); env(np.zeros(4, dtype=int)); env.rewards().shape
        (4,)
    """

    NumAgentStyle = SINGLE_AGENT
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = STEP_REWARD
    ActionStyle = MINIMAL_ACTION_SET

    def __init__(self, n_envs=2000, k=10, true_reward=0.0, true_values=None, stationary=True,
                 walk_std=0.01, rng=None, seed=None):
        _check(k, walk_std)
        if not isinstance(n_envs, (int, np.integer)) or n_envs < 1:
            raise ValueError(f"n_envs must be a positive int, got {n_envs!r}")
        self.n_envs, self.k = int(n_envs), int(k)
        self.true_reward, self.stationary = float(true_reward), bool(stationary)
        self.walk_std = float(walk_std)
        self.rng = make_rng(rng, seed)
        self._q = self._init_values(self.n_envs, self.k, self.true_reward, true_values,
                                    self.stationary)
        self._action_space = spaces.MultiDiscrete(np.full(self.n_envs, self.k))
        self._state_space = spaces.MultiDiscrete(np.ones(self.n_envs, dtype=np.int64))
        self._state = np.zeros(self.n_envs, dtype=np.int64)
        self._reward = np.zeros(self.n_envs)

    @property
    def q_true(self):
        """The current true values (shape ``(n_envs, k)``)."""
        return self._q

    @q_true.setter
    def q_true(self, value):
        self._q[:] = value

    def optimal_action(self):
        """The best arm of each bandit now (shape ``(n_envs,)``)."""
        return np.argmax(self.q_true, axis=1)

    def reset(self):
        self._reward = np.zeros(self.n_envs)

    def __call__(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.n_envs,) or actions.dtype.kind not in "iu" \
                or actions.min() < 0 or actions.max() >= self.k:
            raise ValueError(f"actions must be {self.n_envs} ints in 0..{self.k - 1}, "
                             f"got {actions!r}")
        self._reward = self._pull(actions)

    def state(self, player=None):
        return self._state

    def reward(self, player=None):
        """The mean reward of the ``n_envs`` bandits at the last step."""
        return float(self._reward.mean())

    def rewards(self):
        """The reward of each bandit at the last step (shape ``(n_envs,)``)."""
        return self._reward

    def is_terminated(self):
        return False

    def action_space(self, player=None):
        return self._action_space

    def state_space(self, player=None):
        return self._state_space

    def __repr__(self):
        return (f"BatchMultiArmBanditsEnv(n_envs={self.n_envs}, k={self.k}, "
                f"true_reward={self.true_reward}, stationary={self.stationary}, "
                f"walk_std={self.walk_std})")

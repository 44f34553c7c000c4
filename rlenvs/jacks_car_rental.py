"""Jack's car rental (Sutton & Barto, Example 4.2 and Figure 4.2).

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), Example 4.2.
Jack manages two locations of a car rental. Each day customers ask for Poisson(3) and Poisson(4)
cars at the two locations and return Poisson(3) and Poisson(2) cars; each car rented earns $10.
Overnight Jack moves up to 5 cars between the locations at $2 per car. At most 20 cars stay at a
location (extra cars go back to the nationwide company). Continuing task, γ = 0.9 in the book.

State: ``n1 * 21 + n2`` for ``n1``, ``n2`` cars at the end of a day. Action ``a`` moves
``m = a - max_move`` cars from the first location to the second (negative: the other way); it is
legal when both locations keep a non-negative number of cars (``FULL_ACTION_SET``). A day runs:
move, rent ``min(requests, cars)``, then add the returns (available the next day), capped.

The exact dynamics (:meth:`JacksCarRentalEnv.model_arrays`) use the Poisson tails for "all the
cars are rented" and "the lot is full", so nothing is truncated.
"""

import math

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    FULL_ACTION_SET, PERFECT_INFORMATION, SINGLE_AGENT, STEP_REWARD, STOCHASTIC, AbstractEnv,
)
from rlcore.envs.tabular_model import AbstractTabularModel, ModelArrays
from rlcore.utils.random import make_rng

__all__ = ["JacksCarRentalEnv"]


def _poisson_pmf(mean, n):
    """P(X = k) for k < n and P(X >= n) at index n: a distribution over 0..n."""
    pmf = np.array([math.exp(-mean) * mean ** k / math.factorial(k) for k in range(n)])
    return np.append(pmf, max(0.0, 1.0 - pmf.sum()))


def _location(max_cars, request_mean, return_mean):
    """``T[n, n']`` (cars after the move → cars at the end of the day) and expected rentals."""
    T = np.zeros((max_cars + 1, max_cars + 1))
    rented = np.zeros(max_cars + 1)
    for n in range(max_cars + 1):
        p_rent = _poisson_pmf(request_mean, n)  # renting k < n cars, or all n of them
        rented[n] = p_rent @ np.arange(n + 1)
        for k, pk in enumerate(p_rent):
            left = n - k
            p_ret = _poisson_pmf(return_mean, max_cars - left)  # the lot fills at max_cars
            T[n, left:] += pk * p_ret
    return T, rented


class JacksCarRentalEnv(AbstractEnv, AbstractTabularModel):
    """Jack's car rental as an environment and as a tabular model.

    Keyword arguments: ``max_cars=20``, ``max_move=5``, ``rental_reward=10.0``,
    ``move_cost=2.0``, ``request_means=(3, 4)``, ``return_means=(3, 2)``, ``start=(10, 10)``,
    ``max_steps=None`` (truncate after that many days), ``rng``/``seed``.

    Example::

        >>> env = JacksCarRentalEnv(seed=0)
        >>> env.reset(); env.state() == 10 * 21 + 10
        True
        >>> env(env.action_of_move(2)); env.reward() <= 10 * 20 - 4
        True
    """

    NumAgentStyle = SINGLE_AGENT
    InformationStyle = PERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = STEP_REWARD
    ActionStyle = FULL_ACTION_SET

    def __init__(self, max_cars=20, max_move=5, rental_reward=10.0, move_cost=2.0,
                 request_means=(3, 4), return_means=(3, 2), start=(10, 10), max_steps=None,
                 rng=None, seed=None):
        if not isinstance(max_cars, int) or max_cars < 1:
            raise ValueError(f"max_cars must be a positive int, got {max_cars!r}")
        if not isinstance(max_move, int) or not 0 <= max_move <= max_cars:
            raise ValueError(f"max_move must be an int in 0..max_cars, got {max_move!r}")
        if len(request_means) != 2 or len(return_means) != 2 or \
                min(*request_means, *return_means) < 0:
            raise ValueError(f"request_means and return_means must be two non-negative means "
                             f"each, got {request_means!r}, {return_means!r}")
        if not (isinstance(start, (tuple, list)) and len(start) == 2 and all(
                isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_))
                and 0 <= n <= max_cars for n in start)):
            raise ValueError(f"start must be two integer car counts in 0..{max_cars}, "
                             f"got {start!r}")
        if max_steps is not None and (isinstance(max_steps, (bool, np.bool_)) or not isinstance(
                max_steps, (int, np.integer)) or max_steps < 1):
            raise ValueError(f"max_steps must be None or an integer >= 1, got {max_steps!r}")
        self.max_cars, self.max_move = max_cars, max_move
        self.rental_reward, self.move_cost = float(rental_reward), float(move_cost)
        self.request_means, self.return_means = tuple(request_means), tuple(return_means)
        self.start = (int(start[0]), int(start[1]))
        self.max_steps = max_steps
        self.rng = make_rng(rng, seed)
        self.n_states = (max_cars + 1) ** 2
        self.n_actions = 2 * max_move + 1
        self._action_space = spaces.Discrete(self.n_actions)
        self._state_space = spaces.Discrete(self.n_states)
        self.reset()

    # --- encoding
    def to_state(self, n1, n2):
        """The state index of ``n1``, ``n2`` cars."""
        return n1 * (self.max_cars + 1) + n2

    def to_cars(self, s):
        """``(n1, n2)`` of state index ``s``."""
        return divmod(int(s), self.max_cars + 1)

    def action_of_move(self, m):
        """The action that moves ``m`` cars from the first location to the second."""
        return m + self.max_move

    def move_of_action(self, a):
        """The number of cars action ``a`` moves from the first location to the second."""
        return int(a) - self.max_move

    # --- AbstractTabularModel
    def legal_actions(self, s):
        n1, n2 = self.to_cars(s)
        return [a for a in range(self.n_actions)
                if self.move_of_action(a) <= n1 and -self.move_of_action(a) <= n2]

    def transitions(self, s, a):
        """Outcomes ``(p(s'|s, a), s', r(s, a))`` with the *expected* reward of ``(s, a)``.

        The rentals are not in the state, so the true reward of a transition is random given
        ``s'``; an expected-reward model is allowed by :class:`AbstractTabularModel` and gives
        exact dynamic programming (which uses only ``p(s'|s, a)`` and ``r(s, a)``)."""
        m = self.model_arrays()
        return [(float(p), int(t), float(m.R[s, a])) for t, p in enumerate(m.P[s, a]) if p > 0]

    def model_arrays(self):
        """The dense :class:`~rlcore.envs.tabular_model.ModelArrays` (cached)."""
        if getattr(self, "_arrays", None) is not None:
            return self._arrays
        T1, e1 = _location(self.max_cars, self.request_means[0], self.return_means[0])
        T2, e2 = _location(self.max_cars, self.request_means[1], self.return_means[1])
        n_s, n_a = self.n_states, self.n_actions
        P, R = np.zeros((n_s, n_a, n_s)), np.zeros((n_s, n_a))
        legal = np.zeros((n_s, n_a), dtype=bool)
        for s in range(n_s):
            n1, n2 = self.to_cars(s)
            for a in self.legal_actions(s):
                m = self.move_of_action(a)
                k1, k2 = min(n1 - m, self.max_cars), min(n2 + m, self.max_cars)
                legal[s, a] = True
                P[s, a] = np.outer(T1[k1], T2[k2]).ravel()
                R[s, a] = self.rental_reward * (e1[k1] + e2[k2]) - self.move_cost * abs(m)
        self._arrays = ModelArrays(P=P, R=R, legal=legal, terminal=np.zeros(n_s, dtype=bool))
        return self._arrays

    # --- AbstractEnv
    def reset(self):
        self.cars = self.start
        self._reward = 0.0
        self.steps = 0

    def __call__(self, action):
        self.check_action(action)
        if self.is_truncated():
            raise RuntimeError("the episode was truncated; call reset() first")
        m = self.move_of_action(action)
        cars = [min(self.cars[0] - m, self.max_cars), min(self.cars[1] + m, self.max_cars)]
        reward = -self.move_cost * abs(m)
        for i in range(2):
            rented = min(int(self.rng.poisson(self.request_means[i])), cars[i])
            returned = int(self.rng.poisson(self.return_means[i]))
            reward += self.rental_reward * rented
            cars[i] = min(cars[i] - rented + returned, self.max_cars)
        self.cars = (cars[0], cars[1])
        self._reward = reward
        self.steps += 1

    def state(self, player=None):
        return self.to_state(*self.cars)

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        return False

    def is_truncated(self):
        return self.max_steps is not None and self.steps >= self.max_steps

    def action_space(self, player=None):
        return self._action_space

    def legal_action_space(self, player=None):
        return self.legal_actions(self.state())

    def state_space(self, player=None):
        return self._state_space

    def __repr__(self):
        return (f"JacksCarRentalEnv(max_cars={self.max_cars}, max_move={self.max_move}, "
                f"request_means={self.request_means}, return_means={self.return_means})")

"""The Monty Hall problem as an environment, after RL.jl's ``MontyHallEnv``."""

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    FULL_ACTION_SET, GENERAL_SUM, IMPERFECT_INFORMATION, OBSERVATION, SEQUENTIAL, SINGLE_AGENT,
    STOCHASTIC, TERMINAL_REWARD, AbstractEnv,
)
from rlcore.utils.random import make_rng

__all__ = ["MontyHallEnv"]

N_DOORS = 3


class MontyHallEnv(AbstractEnv):
    """Three doors, a car behind one of them and goats behind the others.

    The agent picks a door (action 0, 1 or 2); the host then opens another door that hides a goat;
    the agent picks again among the two closed doors (the opened door is illegal: FULL_ACTION_SET)
    and gets ``reward_car`` if the car is behind it, ``reward_goat`` otherwise. Switching wins with
    probability 2/3, staying with 1/3.

    State (``Discrete(10)``): 0 before the first pick; afterwards ``1 + 3 * guess + opened``
    (the first pick and the door the host opened), so a policy can learn to switch.

    Keyword arguments: ``reward_car=1.0``, ``reward_goat=0.0`` (RL.jl uses 1000 and 10),
    ``rng``/``seed``.

    Example::

        >>> env = MontyHallEnv(seed=0)
        >>> env.reset(); env(0); len(env.legal_action_space())
        2
    """

    NumAgentStyle = SINGLE_AGENT
    DynamicStyle = SEQUENTIAL
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = TERMINAL_REWARD
    UtilityStyle = GENERAL_SUM
    ActionStyle = FULL_ACTION_SET
    StateStyle = (OBSERVATION,)

    def __init__(self, *, reward_car=1.0, reward_goat=0.0, rng=None, seed=None):
        self.reward_car = float(reward_car)
        self.reward_goat = float(reward_goat)
        self.rng = make_rng(rng, seed)
        self._action_space = spaces.Discrete(N_DOORS)
        self._state_space = spaces.Discrete(1 + N_DOORS * N_DOORS)
        self.car = 0
        self.guess = None
        self.opened = None
        self.final = None

    def reset(self):
        self.car = int(self.rng.integers(N_DOORS))
        self.guess = self.opened = self.final = None

    def legal_action_space(self, player=None):
        if self.final is not None:
            return []
        return [d for d in range(N_DOORS) if d != self.opened]

    def legal_action_space_mask(self, player=None):
        mask = np.zeros(N_DOORS, dtype=bool)
        mask[self.legal_action_space()] = True
        return mask

    def __call__(self, action):
        if self.final is not None:
            raise RuntimeError(f"{self!r}: the game is over; call reset() before acting")
        self.check_action(action)
        action = int(action)
        if self.guess is None:
            self.guess = action
            goats = [d for d in range(N_DOORS) if d != action and d != self.car]
            self.opened = goats[int(self.rng.integers(len(goats)))]
        else:
            self.final = action

    def state(self, player=None):
        if self.guess is None:
            return 0
        return 1 + N_DOORS * self.guess + self.opened

    def state_space(self, player=None):
        return self._state_space

    def reward(self, player=None):
        if self.final is None:
            return 0.0
        return self.reward_car if self.final == self.car else self.reward_goat

    def is_terminated(self):
        return self.final is not None

    def action_space(self, player=None):
        return self._action_space

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"MontyHallEnv renders only mode='text', got mode={mode!r}")
        doors = []
        for d in range(N_DOORS):
            if d == self.opened or self.final is not None:
                doors.append("[car]" if d == self.car else "[goat]")
            else:
                doors.append("[ ? ]")
            if d == (self.final if self.final is not None else self.guess):
                doors[-1] += "*"
        return " ".join(doors)

    def __repr__(self):
        return f"MontyHallEnv(reward_car={self.reward_car}, reward_goat={self.reward_goat})"

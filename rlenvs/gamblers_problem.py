"""The gambler's problem (Sutton & Barto, Example 4.3 and Figure 4.3).

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), Example 4.3.
A gambler with capital ``s`` in 1..99 stakes ``a`` in 1..min(s, 100 − s) on a coin that comes up
heads with probability ``p_h``: heads wins the stake, tails loses it. The episode ends at 0 or at
the goal of 100; reaching the goal gives reward +1, every other transition 0. Undiscounted, so the
value of a state is the probability of reaching the goal.

State: the capital ``s`` (0..goal). Action: the stake (``Discrete(goal // 2 + 1)``; stake 0 is
never legal, and in state ``s`` the legal stakes are 1..min(s, goal − s): ``FULL_ACTION_SET``).

Why stake 0 is excluded: the book's action set is ``a ∈ {0, 1, ..., min(s, 100 − s)}``, but a
stake of 0 leaves the state unchanged with reward 0, so with γ = 1 its value equals the state's
own value: it is a greedy tie in every state (making the policy of Figure 4.3 ambiguous) and a
policy that stakes 0 never terminates, so policy evaluation would not converge. Excluding it, as
the book's Figure 4.3 does (its stakes start at 1), changes no optimal value.
"""

from gymnasium import spaces

from rlcore.envs import (
    FULL_ACTION_SET, PERFECT_INFORMATION, SINGLE_AGENT, STOCHASTIC, TERMINAL_REWARD, AbstractEnv,
)
from rlcore.envs.tabular_model import AbstractTabularModel
from rlcore.utils.random import make_rng

__all__ = ["GamblersProblemEnv"]


class GamblersProblemEnv(AbstractEnv, AbstractTabularModel):
    """The gambler's problem as an environment and as a tabular model.

    Keyword arguments: ``p_h=0.4`` (probability of heads, in [0, 1]), ``goal=100``,
    ``start=None`` (initial capital; uniformly random in 1..goal−1 when ``None``),
    ``rng``/``seed``.

    Example::

        >>> env = GamblersProblemEnv(p_h=1.0, start=50)
        >>> env.reset(); env(50)
        >>> env.state(), env.reward(), env.is_terminated()
        (100, 1.0, True)
    """

    NumAgentStyle = SINGLE_AGENT
    InformationStyle = PERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = TERMINAL_REWARD
    ActionStyle = FULL_ACTION_SET

    def __init__(self, p_h=0.4, goal=100, start=None, rng=None, seed=None):
        if not 0.0 <= p_h <= 1.0:
            raise ValueError(f"p_h must be a probability in [0, 1], got {p_h!r}")
        if not isinstance(goal, int) or goal < 2:
            raise ValueError(f"goal must be an int >= 2, got {goal!r}")
        if start is not None and not (isinstance(start, int) and 0 < start < goal):
            raise ValueError(f"start must be a capital in 1..{goal - 1} or None, got {start!r}")
        self.p_h, self.goal, self.start = float(p_h), goal, start
        self.rng = make_rng(rng, seed)
        self.n_states, self.n_actions = goal + 1, goal // 2 + 1
        self._action_space = spaces.Discrete(self.n_actions)
        self._state_space = spaces.Discrete(self.n_states)
        self.reset()

    # --- AbstractTabularModel
    def legal_actions(self, s):
        return range(1, min(s, self.goal - s) + 1)

    def is_terminal_state(self, s):
        return s == 0 or s == self.goal

    def transitions(self, s, a):
        win, lose = s + a, s - a
        out = []
        if self.p_h > 0:
            out.append((self.p_h, win, 1.0 if win == self.goal else 0.0))
        if self.p_h < 1:
            out.append((1.0 - self.p_h, lose, 0.0))
        return out

    # --- AbstractEnv
    def reset(self):
        self.capital = self.start if self.start is not None \
            else int(self.rng.integers(1, self.goal))
        self._reward = 0.0

    def __call__(self, action):
        if self.is_terminated():
            raise RuntimeError(f"the episode ended with capital {self.capital}; call reset()")
        self.check_action(action)
        stake = int(action)
        self.capital += stake if self.rng.random() < self.p_h else -stake
        self._reward = 1.0 if self.capital == self.goal else 0.0

    def state(self, player=None):
        return self.capital

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        return self.is_terminal_state(self.capital)

    def action_space(self, player=None):
        return self._action_space

    def legal_action_space(self, player=None):
        return self.legal_actions(self.capital) if not self.is_terminated() else range(0)

    def state_space(self, player=None):
        return self._state_space

    def __repr__(self):
        return f"GamblersProblemEnv(p_h={self.p_h}, goal={self.goal}, start={self.start})"

"""The one-dimensional random walk of Sutton & Barto (Example 6.2), after RL.jl's RandomWalk1D."""

from gymnasium import spaces

from rlcore.envs import (
    DETERMINISTIC, GENERAL_SUM, MINIMAL_ACTION_SET, OBSERVATION, PERFECT_INFORMATION, SEQUENTIAL,
    SINGLE_AGENT, TERMINAL_REWARD, AbstractEnv,
)
from rlcore.utils.random import make_rng

__all__ = ["RandomWalk1D"]


class RandomWalk1D(AbstractEnv):
    """A walk on a chain of ``N`` positions ``0..N-1`` whose two ends are terminal.

    Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed.), Example 6.2; the
    environment of ReinforcementLearning.jl's ``RandomWalk1D``, with 0-based positions. Action
    ``i`` moves the walker by ``actions[i]`` (clipped to the chain). Reaching position 0 gives
    ``rewards[0]``, reaching ``N - 1`` gives ``rewards[1]``; every other step gives 0. The state
    is the position. With ``rewards=(0.0, 1.0)`` and ``N=7`` the values of the uniform random
    policy in states 1..5 are 1/6, 2/6, ..., 5/6.

    Keyword arguments:

    * ``N=7``: number of positions, at least 3.
    * ``start_pos=None``: where episodes start, a non-terminal position; ``N // 2`` by default.
    * ``rewards=(-1.0, 1.0)``: rewards for reaching the left and the right end.
    * ``actions=(-1, 1)``: the move of each action (action 0 goes left, 1 right by default).
    * ``rng``/``seed``: accepted for a uniform interface and kept as ``self.rng``; the walk itself
      is deterministic.

    Example::

        >>> env = RandomWalk1D()
        >>> env.reset(); env.state()
        3
        >>> env(1); env(1); env(1)
        >>> env.state(), env.reward(), env.is_terminated()
        (6, 1.0, True)
        >>> print(RandomWalk1D(N=5).render())
        .  .  x  .  .
    """

    NumAgentStyle = SINGLE_AGENT
    DynamicStyle = SEQUENTIAL
    InformationStyle = PERFECT_INFORMATION
    ChanceStyle = DETERMINISTIC
    RewardStyle = TERMINAL_REWARD
    UtilityStyle = GENERAL_SUM
    ActionStyle = MINIMAL_ACTION_SET
    StateStyle = (OBSERVATION,)

    def __init__(self, N=7, start_pos=None, rewards=(-1.0, 1.0), actions=(-1, 1), rng=None,
                 seed=None):
        if not isinstance(N, int) or N < 3:
            raise ValueError(f"RandomWalk1D needs N >= 3 positions, got N={N!r}")
        if start_pos is None:
            start_pos = N // 2
        if not isinstance(start_pos, int) or not 0 < start_pos < N - 1:
            raise ValueError(f"start_pos must be a non-terminal position in 1..{N - 2}, "
                             f"got start_pos={start_pos!r}")
        rewards = tuple(float(r) for r in rewards)
        if len(rewards) != 2:
            raise ValueError(f"rewards must be (left, right), got rewards={rewards!r}")
        actions = tuple(actions)
        if not actions or not all(isinstance(a, int) for a in actions):
            raise ValueError(f"actions must be a non-empty sequence of int moves, "
                             f"got actions={actions!r}")
        self.N = N
        self.start_pos = start_pos
        self.rewards = rewards
        self.actions = actions
        self.rng = make_rng(rng, seed)
        self.position = start_pos
        self._action_space = spaces.Discrete(len(actions))
        self._state_space = spaces.Discrete(N)

    def reset(self):
        self.position = self.start_pos

    def __call__(self, action):
        if not (type(action) is int and 0 <= action < len(self.actions)):
            self.check_action(action)
        if self.is_terminated():
            raise RuntimeError(f"{self!r} reached terminal position {self.position}; "
                               "call reset() before the next action")
        self.position = min(max(self.position + self.actions[action], 0), self.N - 1)

    def state(self, player=None):
        return self.position

    def reward(self, player=None):
        if self.position == 0:
            return self.rewards[0]
        if self.position == self.N - 1:
            return self.rewards[1]
        return 0.0

    def is_terminated(self):
        return self.position == 0 or self.position == self.N - 1

    def action_space(self, player=None):
        return self._action_space

    def state_space(self, player=None):
        return self._state_space

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"RandomWalk1D renders only mode='text', got mode={mode!r}")
        return "  ".join("x" if i == self.position else "." for i in range(self.N))

    def __repr__(self):
        return (f"RandomWalk1D(N={self.N}, start_pos={self.start_pos}, rewards={self.rewards}, "
                f"actions={self.actions})")

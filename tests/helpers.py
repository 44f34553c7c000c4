"""Small deterministic environments and replays shared by the tests."""

import gymnasium.spaces as spaces
import numpy as np

from rlcore.envs.base import AbstractEnv


class LineEnv(AbstractEnv):
    """A deterministic corridor: ``length`` steps to the end, reward 1 per step.

    With ``truncate_at`` the episode is cut (truncated) after that many steps.
    """

    def __init__(self, length=3, truncate_at=None):
        self.length = length
        self.truncate_at = truncate_at
        self.position = 0
        self.t = 0

    def reset(self):
        self.position = 0
        self.t = 0

    def __call__(self, action):
        self.check_action(action)
        self.position += 1
        self.t += 1

    def state(self, player=None):
        return self.position

    def reward(self, player=None):
        return 1.0 if self.t > 0 else 0.0

    def is_terminated(self):
        return self.position >= self.length

    def is_truncated(self):
        return self.truncate_at is not None and self.t >= self.truncate_at \
            and not self.is_terminated()

    def action_space(self, player=None):
        return spaces.Discrete(2)

    def state_space(self, player=None):
        return spaces.Discrete(self.length + 1)


def counting_replay(n):
    """A ``CircularArraySARTTrajectory`` holding ``n`` transitions: states 0..n (int64), action
    0, reward 1, never terminal."""
    from rlcore.trajectories import CircularArraySARTTrajectory

    t = CircularArraySARTTrajectory(100, state=((), np.int64))
    for s in range(n):
        t.push(state=s, action=0)
        t.push(reward=1.0, terminal=False, truncated=False)
    t.push(state=n, action=0)
    return t

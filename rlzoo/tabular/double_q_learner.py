"""Tabular Double Q-learning.

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), §6.7 and
Figure 6.5; van Hasselt, "Double Q-learning", NeurIPS 2010. Two tables; after each step a fair
coin picks the one to update, using the other to evaluate its own greedy action:

    Q1(S,A) ← Q1(S,A) + α [R + γ Q2(S', argmax_a Q1(S',a)) − Q1(S,A)]   (and vice versa)

The agent acts on ``Q1 + Q2`` (``learner(env)``). Under ``FULL_ACTION_SET`` the argmax runs over
the legal actions of S'. Ties in the argmax go to a uniformly random maximal action.
"""

import attrs
import numpy as np

from rlcore.approximators import TabularQApproximator
from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.policies.base import AbstractLearner
from rlcore.stages import PostActStage
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.utils.random import make_rng
from rlcore.utils.validators import real_in
from rlzoo.tabular.td_learner import next_mask

__all__ = ["DoubleQLearner"]


@attrs.define
class DoubleQLearner(AbstractLearner):
    """Double Q-learning with two ``TabularQApproximator``\\ s (step sizes live in them).

    Keyword arguments: ``approximator1``, ``approximator2`` (same shape), ``gamma=1.0``,
    ``rng``/``seed`` (the coin and the tie-breaking).

    >>> learner = DoubleQLearner(TabularQApproximator(n_state=3, n_action=2),
    ...                          TabularQApproximator(n_state=3, n_action=2), seed=0)
    >>> learner.q_sum(0).tolist()
    [0.0, 0.0]
    """

    approximator1: TabularQApproximator = attrs.field(
        validator=attrs.validators.instance_of(TabularQApproximator))
    approximator2: TabularQApproximator = attrs.field(
        validator=attrs.validators.instance_of(TabularQApproximator))
    gamma: float = attrs.field(default=1.0, validator=real_in(0, 1))
    rng: object = attrs.field(default=None, repr=False)
    seed: object = None

    def __attrs_post_init__(self):
        if self.approximator1.table.shape != self.approximator2.table.shape:
            raise ValueError(f"the two tables must have the same shape, got "
                             f"{self.approximator1.table.shape} and "
                             f"{self.approximator2.table.shape}")
        self.rng = make_rng(self.rng, self.seed)

    def q_sum(self, s):
        """``Q1(s, ·) + Q2(s, ·)``."""
        return self.approximator1(s) + self.approximator2(s)

    def __call__(self, env):
        return self.q_sum(env.state())


@dispatch(DoubleQLearner, AbstractTrajectory, AbstractEnv, PostActStage)
def update(learner, trajectory, env, stage):
    s, a, r = trajectory["state"][-1], trajectory["action"][-1], trajectory["reward"][-1]
    first, second = learner.approximator1, learner.approximator2
    if learner.rng.random() < 0.5:
        first, second = second, first
    target = r
    if not env.is_terminated():
        next_state = env.state()
        values = first(next_state)
        mask = next_mask(env)
        if mask is not None:
            values = np.where(mask, values, -np.inf)
        ties = np.flatnonzero(values == values.max())
        best = int(ties[learner.rng.integers(len(ties))]) if len(ties) > 1 else int(ties[0])
        target = r + learner.gamma * second(next_state, best)
    update(first, (s, a, target - first(s, a)))

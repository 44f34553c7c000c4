"""``ReplaySchedule``: when a learner samples its replay, and how many batches.

Reference: the trajectory controllers of ReinforcementLearning.jl (``InsertSampleRatioController``
of ReinforcementLearningTrajectories.jl: "sample now, this many times"); the training cadence of
Mnih et al. (2015) and Dopamine (``min_replay_history``, ``update_period``).

The schedule counts env steps: ``n`` per batched step (``n_envs(env)``: 1 for one environment,
the number of sub-environments of a vectorised one). Once the trajectory holds at least
``min_replay_history`` transitions, each multiple of ``update_freq`` that the count passes draws
``gradient_steps`` batches. With one environment, step ``t`` (from 1) learns iff
``len(trajectory) >= min_replay_history`` and ``t % update_freq == 0``; with 8 sub-environments
and ``update_freq=2`` a batched step passes 4 multiples and draws ``4 * gradient_steps`` batches,
so the ratio of gradient steps to env steps is the same with 1 env or 64, up to the batched
step in which the trajectory first holds ``min_replay_history`` transitions (that step draws
the batches of the multiples it passes; the steps before it draw none).
"""

import attrs

from rlcore.trajectories.samplers import BatchSampler
from rlcore.utils.validators import positive_int

__all__ = ["ReplaySchedule"]


@attrs.define(eq=False)
class ReplaySchedule:
    """When to sample a replay and how often: the one home of a replay learner's cadence.

    Keyword arguments: ``sampler=BatchSampler(32, seed=0)`` (draws each batch; an
    ``NStepBatchSampler`` gives n-step returns), ``min_replay_history=1000`` (transitions held
    before the first batch, at least the sampler's ``batch_size``), ``update_freq=1`` (env steps
    between learning), ``gradient_steps=1`` (batches each time). ``env_steps`` counts the env
    steps seen.

    >>> import numpy as np
    >>> from rlcore.trajectories import CircularArraySARTTrajectory
    >>> t = CircularArraySARTTrajectory(100, state=((), np.int64))
    >>> schedule = ReplaySchedule(sampler=BatchSampler(2, seed=0), min_replay_history=2,
    ...                           update_freq=2)
    >>> for s in range(4):
    ...     t.push(state=s, action=0); t.push(reward=1.0, terminal=False, truncated=False)
    >>> t.push(state=4, action=0)
    >>> [schedule.n_batches(t) for _ in range(4)]   # env steps 1, 2, 3, 4
    [0, 1, 0, 1]
    >>> schedule.n_batches(t, n_steps=8)            # 8 sub-envs: steps 5-12 pass 4 multiples
    4
    """

    sampler: object = attrs.field(kw_only=True, factory=lambda: BatchSampler(32, seed=0))
    min_replay_history: int = attrs.field(kw_only=True, default=1000, validator=positive_int)
    update_freq: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    gradient_steps: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    env_steps: int = attrs.field(kw_only=True, default=0)

    def __attrs_post_init__(self):
        if not callable(self.sampler) or not hasattr(self.sampler, "batch_size"):
            raise TypeError(f"ReplaySchedule: sampler must be a BatchSampler or "
                            f"NStepBatchSampler, got {self.sampler!r}")
        if self.min_replay_history < self.sampler.batch_size:
            raise ValueError(f"ReplaySchedule: min_replay_history ({self.min_replay_history}) "
                             f"must be at least the sampler's batch_size "
                             f"({self.sampler.batch_size})")

    def n_batches(self, trajectory, n_steps=1):
        """Count ``n_steps`` env steps; the number of batches to draw from ``trajectory`` now."""
        before = self.env_steps
        self.env_steps = before + n_steps
        if len(trajectory) < self.min_replay_history:
            return 0
        passed = self.env_steps // self.update_freq - before // self.update_freq
        return passed * self.gradient_steps

    def batches(self, trajectory, n_steps=1):
        """Count ``n_steps`` env steps now; an iterator over the batches to learn from, each drawn
        from ``trajectory`` when the previous one has been used (so new priorities are seen)."""
        n = self.n_batches(trajectory, n_steps)
        return (self.sampler(trajectory) for _ in range(n))

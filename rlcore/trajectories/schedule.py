"""``ReplaySchedule``: when a learner samples its replay, and how many batches;
``RolloutSchedule``: when an on-policy learner learns from its rollout.

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

from rlcore.trajectories.samplers import Batch, BatchSampler
from rlcore.utils.validators import positive_int

__all__ = ["ReplaySchedule", "RolloutSchedule"]


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


@attrs.define(eq=False)
class RolloutSchedule:
    """When an on-policy learner learns: each time its trajectory holds a full rollout of
    ``n_steps`` steps of every environment, from that whole rollout, which is then cleared.

    Reference: the rollout of Schulman et al. (2017), "Proximal Policy Optimization
    Algorithms" (https://arxiv.org/abs/1707.06347), Algorithm 1: ``N`` actors each run ``T``
    steps, then the update; RL.jl's ``PPOPolicy`` learns when its trajectory is full.

    The trajectory is a :class:`~rlcore.trajectories.CircularArraySARTSTrajectory` recording
    ``n_envs`` environments (one row per environment and step, each with its own next state), so
    a rollout is ``n_steps · n_envs`` rows. :meth:`rollout` returns ``None`` until the
    trajectory holds them, then a :class:`~rlcore.trajectories.samplers.Batch` of numpy arrays
    shaped time-major, ``(n_steps, n_envs, ...)`` (row ``t``, column ``i``: step ``t`` of
    environment ``i``), and empties the trajectory for the next rollout. ``rollouts`` counts
    the rollouts given.

    >>> import numpy as np
    >>> from rlcore.trajectories import CircularArraySARTSTrajectory
    >>> t = CircularArraySARTSTrajectory(4, n_envs=2, state=((), np.int64))
    >>> schedule = RolloutSchedule(n_steps=2)
    >>> for step in range(2):
    ...     t.extend(state=[step, 10 + step], action=[0, 0])
    ...     print(schedule.rollout(t))            # not yet: the step is half recorded
    ...     t.extend(reward=[1.0, 1.0], terminal=[False, False], truncated=[False, False],
    ...              next_state=[step + 1, 11 + step])
    None
    None
    >>> batch = schedule.rollout(t)
    >>> batch["state"].tolist(), batch["next_state"].shape, len(t), schedule.rollouts
    ([[0, 10], [1, 11]], (2, 2), 0, 1)
    """

    n_steps: int = attrs.field(default=128, validator=positive_int)
    rollouts: int = attrs.field(kw_only=True, default=0)

    def size(self, trajectory):
        """The rows of one rollout in ``trajectory``: ``n_steps · trajectory.n_envs``."""
        return self.n_steps * trajectory.n_envs

    def check(self, trajectory):
        """Raise unless ``trajectory`` can hold one rollout (one row per environment and step,
        a capacity of at least :meth:`size`)."""
        n_envs = getattr(trajectory, "n_envs", None)
        if n_envs is None or "next_state" not in trajectory:
            raise TypeError(f"an on-policy rollout is recorded in a CircularArraySARTSTrajectory "
                            f"(one row per environment and step, with its next state), got "
                            f"{type(trajectory).__name__}")
        if trajectory.capacity < self.size(trajectory):
            raise ValueError(f"the trajectory's capacity ({trajectory.capacity}) must hold one "
                             f"rollout of n_steps · n_envs = {self.n_steps} · {n_envs} = "
                             f"{self.size(trajectory)} rows")

    def rollout(self, trajectory):
        """The full rollout held by ``trajectory`` (see the class doc), which is then emptied;
        ``None`` while it holds fewer rows or a step is half recorded."""
        size = self.size(trajectory)
        traces = trajectory.traces
        if (len(traces["next_state"]) < size
                or traces["state"].end_index != traces["next_state"].end_index):
            return None
        n_envs = trajectory.n_envs
        batch = Batch({name: trace.to_array().reshape(-1, n_envs, *trace.shape)
                       for name, trace in traces.items()})
        trajectory.clear()
        self.rollouts += 1
        return batch

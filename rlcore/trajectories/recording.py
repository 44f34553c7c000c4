"""The default recording rules: what a SART trajectory records at each stage (DESIGN.md §4).

Reference: ReinforcementLearningCore.jl v0.10, ``src/policies/agents/agent.jl`` (the
``update!(trajectory, policy, env, stage)`` methods), extended with a ``truncated`` trace.

Layout (shape convention of :mod:`rlcore.trajectories.trajectory`): ``state``/``action`` are one
longer than ``reward``/``terminal``/``truncated`` between episodes and after ``PreAct``, equal after
``PostAct``.

* ``PreEpisodeStage``: if the previous episode left its (final state, dummy action) pair, then
  when it *terminated* the pair is dropped (as in RL.jl); when it was *truncated* (time limit or
  stopped run) the pair is kept and closed as a **padding** step: ``reward=0, terminal=True,
  truncated=True`` (priority 0 when prioritized). Real steps never carry both flags, so samplers
  skip padding, and the truncated step keeps its true final state ``s_T`` as ``next_state``:
  learners can bootstrap past a time limit.
* ``PreActStage``: push ``state=env.state()`` and ``action`` (and
  ``legal_actions_mask=env.legal_action_space_mask()`` when the trajectory has that trace).
* ``PostActStage``: push ``reward=env.reward()``, ``terminal=env.is_terminated()`` and
  ``truncated=env.is_truncated() and not env.is_terminated()`` (and the current max priority).
* ``PostEpisodeStage``: push the final state and a dummy action (zeros; an all-True mask after a
  termination, the env's mask after a truncation since a learner bootstraps from it).
* ``PostExperimentStage``: if the run stopped mid-episode, mark the last step truncated and push
  the current state and a dummy action, so the last transition is complete.
* Other stages: nothing.

Every rule validates all of its values before pushing any, so a bad value leaves the trajectory
as it was.
"""

import numpy as np

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.policies.base import AbstractPolicy
from rlcore.stages import (
    AbstractStage, PostActStage, PostEpisodeStage, PostExperimentStage, PreActStage,
    PreEpisodeStage,
)
from rlcore.trajectories.base import AbstractTrajectory

__all__ = ["update"]


@dispatch(AbstractTrajectory, AbstractPolicy, AbstractEnv, AbstractStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Other stages record nothing."""


@dispatch(AbstractTrajectory, AbstractPolicy, AbstractEnv, PreEpisodeStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Drop the previous episode's (final state, dummy action) pair, or close it as padding."""
    traces = trajectory.traces
    state, reward = traces["state"], traces["reward"]
    if state.end_index != reward.end_index + 1:
        return
    truncated = traces.get("truncated")
    if len(reward) and truncated is not None and truncated[-1] and not traces["terminal"][-1]:
        reward.push(0)
        traces["terminal"].push(True)
        truncated.push(True)
        priority = traces.get("priority")
        if priority is not None:
            priority.push(0.0)
    else:
        state.pop()
        traces["action"].pop()
        mask = traces.get("legal_actions_mask")
        if mask is not None:
            mask.pop()


@dispatch(AbstractTrajectory, AbstractPolicy, AbstractEnv, PreActStage, object)
def update(trajectory, policy, env, stage, action):  # noqa: F811
    """Push the current state and the chosen action (checked against the env first, so an
    illegal action raises ``ValueError`` naming the space and records nothing)."""
    env.check_action(action)
    traces = trajectory.traces
    state_trace, action_trace = traces["state"], traces["action"]
    s = state_trace.check(env.state())
    a = action_trace.check(action)
    mask_trace = traces.get("legal_actions_mask")
    if mask_trace is not None:
        m = mask_trace.check(env.legal_action_space_mask())
        mask_trace.push(m)
    state_trace.push(s)
    action_trace.push(a)


@dispatch(AbstractTrajectory, AbstractPolicy, AbstractEnv, PostActStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Push the reward and the terminal and truncated flags of the step just taken."""
    traces = trajectory.traces
    terminal = bool(env.is_terminated())
    truncated = not terminal and bool(env.is_truncated())
    reward_trace = traces["reward"]
    reward_trace.push(env.reward())  # validated here, before the flags are pushed
    traces["terminal"].push(terminal)
    truncated_trace = traces.get("truncated")
    if truncated_trace is not None:
        truncated_trace.push(truncated)
    priority = traces.get("priority")
    if priority is not None:
        priority.push(priority.max_priority)


@dispatch(AbstractTrajectory, AbstractPolicy, AbstractEnv, PostEpisodeStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Push the final state and a dummy action."""
    _push_final(trajectory.traces, env)


@dispatch(AbstractTrajectory, AbstractPolicy, AbstractEnv, PostExperimentStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Complete a transition cut by the end of the run: mark it truncated, push its next state."""
    traces = trajectory.traces
    state, reward = traces["state"], traces["reward"]
    truncated = traces.get("truncated")
    if len(reward) == 0 or state.end_index != reward.end_index or truncated is None:
        return
    if traces["terminal"][-1] or truncated[-1]:
        return
    _push_final(traces, env)
    truncated[-1] = True


def _push_final(traces, env):
    """Push ``env.state()`` and a dummy action (and a mask), validated before any push."""
    state_trace, action_trace = traces["state"], traces["action"]
    s = state_trace.check(env.state())
    a = action_trace.dummy()
    mask_trace = traces.get("legal_actions_mask")
    if mask_trace is not None:
        m = np.ones(mask_trace.shape, mask_trace.dtype)
        if not env.is_terminated():
            # a learner bootstraps from this state: keep the legal actions, unless there are none
            legal = mask_trace.check(env.legal_action_space_mask())
            if np.any(legal):
                m = legal
        mask_trace.push(m)
    state_trace.push(s)
    action_trace.push(a)

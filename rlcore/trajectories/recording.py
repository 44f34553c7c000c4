"""The default recording rules: what a trajectory records at each stage (docs/architecture.md §4).

Reference: ReinforcementLearningCore.jl v0.10, ``src/policies/agents/agent.jl`` (the
``update!(trajectory, policy, env, stage)`` methods), extended with a ``truncated`` trace; the
SARTS rules after RL.jl v0.11's ``CircularArraySARTSTraces`` (ReinforcementLearningTrajectories.jl).

SART layout (every trajectory but the SARTS one; shape convention of
:mod:`rlcore.trajectories.trajectory`), for one environment: ``state``/``action`` are one
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
  A NaN or infinite reward raises :class:`~rlcore.checks.EnvMismatchError` naming the env and
  the step (the count of rewards the trajectory has recorded, this one included).
* ``PostEpisodeStage``: push the final state and a dummy action (zeros; an all-True mask after a
  termination, the env's mask after a truncation since a learner bootstraps from it).
* ``PostExperimentStage``: if the run stopped mid-episode, mark the last step truncated and push
  the current state and a dummy action, so the last transition is complete.
* Other stages: nothing.

A SART trajectory cannot record a vectorised environment (``rlenvs.MultiThreadEnv``, whose
sub-environments reset themselves): its ``PreActStage`` raises ``TypeError`` there (rule in
:mod:`rlenvs.vector_env`).

SARTS layout (:class:`~rlcore.trajectories.trajectory.CircularArraySARTSTrajectory`, one row per
transition with its next state), for one environment; :mod:`rlenvs.vector_env` adds the
``PreAct``/``PostAct`` rules of a vectorised one (``n`` rows per step), the others serve both:

* ``PreActStage``: push ``state=env.state()`` and ``action`` (checked with ``env.check_action``).
* ``PostActStage``: push ``reward`` (finite), ``terminal``, ``truncated`` (as above),
  ``next_state=env.state()`` (one environment is not reset automatically, so this is the true
  next state, the final one at an episode's end) and the current max priority when prioritized.
* ``PostExperimentStage``: the last ``n_envs`` rows, if complete, are marked truncated where not
  terminal: the run cut them, and an n-step window must not run past them.
* Episode stages and the others: nothing.

A SARTS trajectory whose ``n_envs`` differs from ``n_envs(env)`` raises
:class:`~rlcore.checks.EnvMismatchError` (a ``ValueError``) at ``PreActStage``. Every rule
validates all of its values before pushing any, so a bad value leaves the trajectory as it was.
"""

import numpy as np

from rlcore.checks import check_finite_reward, check_n_envs
from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.policies.base import AbstractPolicy
from rlcore.stages import (
    AbstractStage, PostActStage, PostEpisodeStage, PostExperimentStage, PreActStage,
    PreEpisodeStage,
)
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.trajectories.trajectory import CircularArraySARTSTrajectory

__all__ = ["update", "check_n_envs"]


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
    reward = env.reward()
    check_finite_reward(reward, env, reward_trace.end_index + 1)
    reward_trace.push(reward)  # validated here, before the flags are pushed
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


# --- the SARTS layout, one environment: one rule per stage (a catch-all on the SARTS type would
# be ambiguous against the per-stage rules above)

@dispatch(CircularArraySARTSTrajectory, AbstractPolicy, AbstractEnv, PreEpisodeStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Nothing: every row holds its own next state, there is no pair to close."""


@dispatch(CircularArraySARTSTrajectory, AbstractPolicy, AbstractEnv, PreActStage, object)
def update(trajectory, policy, env, stage, action):  # noqa: F811
    """Push the current state and the chosen action (checked against the env first), and the
    legal-action mask when the trajectory keeps one."""
    check_n_envs(trajectory, env)
    env.check_action(action)
    if "legal_actions_mask" in trajectory:
        trajectory.push(state=env.state(), action=action,
                        legal_actions_mask=env.legal_action_space_mask())
    else:
        trajectory.push(state=env.state(), action=action)


@dispatch(CircularArraySARTSTrajectory, AbstractPolicy, AbstractEnv, PostActStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Push the reward, the flags and the next state (the env's state now) of the step."""
    terminal = bool(env.is_terminated())
    reward = env.reward()
    check_finite_reward(reward, env, trajectory.traces["reward"].end_index + 1)
    values = {"reward": reward, "terminal": terminal,
              "truncated": not terminal and bool(env.is_truncated()), "next_state": env.state()}
    priority = trajectory.traces.get("priority")
    if priority is not None:
        values["priority"] = priority.max_priority
    trajectory.push(**values)


@dispatch(CircularArraySARTSTrajectory, AbstractPolicy, AbstractEnv, PostEpisodeStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Nothing: the final state was recorded as the last row's ``next_state``."""


@dispatch(CircularArraySARTSTrajectory, AbstractPolicy, AbstractEnv, PostExperimentStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Mark the last step's rows (``n_envs`` of them) truncated where not terminal: the run
    cut those episodes."""
    # One rule for one env and for n sub-envs: the newest n_envs rows are the last step's.
    traces = trajectory.traces
    n, terminal, truncated = trajectory.n_envs, traces["terminal"], traces["truncated"]
    if len(terminal) < n or traces["next_state"].end_index != traces["state"].end_index:
        return  # no complete step yet
    truncated[-n:] = np.logical_or(truncated[-n:], np.logical_not(terminal[-n:]))

"""``AbstractRolloutLearner``: on-policy learners that learn from each full rollout.

The rule of *when* they learn is written once, here: after every step (``PostActStage``, once
the trajectory has recorded it) the learner's ``schedule`` (a :class:`~rlcore.RolloutSchedule`)
looks at the trajectory, and when it holds ``n_steps`` steps of every environment it hands over
the whole rollout, time-major ``(n_steps, n_envs, ...)``, and empties the trajectory;
``update(learner, rollout)`` learns *what* the rollout teaches (A2C, PPO, TRPO). The same rule
serves one environment (``n_envs = 1``) and a vectorised one, whose sub-environments are the
rollout's columns. Nothing in ``run`` counts steps for it.

Before the first step (``PreExperimentStage``) a rollout learner checks its environment and
trajectory as a replay learner does (:mod:`rlcore.policies.replay_learner`): storable states, a
trajectory recording ``n_envs(env)`` environments per step and holding one rollout, then
``check_env(learner, trajectory, env)``, the learner family's own checks.
"""

from rlcore.checks import check_n_envs, check_storable_states
from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.policies.base import AbstractLearner
from rlcore.policies.replay_learner import check_env
from rlcore.stages import PostActStage, PreExperimentStage
from rlcore.trajectories.base import AbstractTrajectory

__all__ = ["AbstractRolloutLearner"]


class AbstractRolloutLearner(AbstractLearner):
    """Base class of on-policy learners: ``learner.schedule`` (a ``RolloutSchedule``) says when
    a rollout is full, ``update(learner, rollout)`` learns from it."""


@dispatch(AbstractRolloutLearner, AbstractTrajectory, AbstractEnv, PreExperimentStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Before the first step: check the env's states, the trajectory's layout and size, then
    ``check_env`` (see the module doc)."""
    learner.schedule.check(trajectory)
    check_storable_states(env.state_space(), env)
    check_n_envs(trajectory, env)
    check_env(learner, trajectory, env)


@dispatch(AbstractRolloutLearner, AbstractTrajectory, AbstractEnv, PostActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Learn from the rollout once the trajectory holds a full one."""
    rollout = learner.schedule.rollout(trajectory)
    if rollout is not None:
        update(learner, rollout)

"""``AbstractReplayLearner``: learners that learn from batches sampled from a replay.

The rule of *when* they learn is written once, here: at every ``PreActStage`` (as RL.jl's DQN
learners) the learner's ``schedule`` (a :class:`~rlcore.ReplaySchedule`) counts the env steps
and draws the batches, and ``update(learner, batch)`` learns *what* each batch teaches. A new
off-policy algorithm is a subclass with a ``schedule`` field and its ``update(learner, batch)``
rule; one that needs more per batch (prioritized replay writes new priorities back) adds a
``PreActStage`` rule of its own, which takes precedence by dispatch.

Before the first step (``PreExperimentStage``) a replay learner checks its environment and
trajectory: states a replay can store (not ``Dict`` or ``Tuple`` observations), a trajectory that
records ``n_envs(env)`` environments per step, then what the learner itself needs,
``check_env(learner, trajectory, env)`` (a generic function: nothing by default; the DQN family
adds its action space, state shape and network checks in :mod:`rlzoo.dqns.checks`). Each
mismatch raises :class:`~rlcore.checks.EnvMismatchError`.
"""

from rlcore.checks import check_n_envs, check_storable_states
from rlcore.dispatch import dispatch, generic, update
from rlcore.envs.base import AbstractEnv, n_envs
from rlcore.policies.base import AbstractLearner
from rlcore.stages import PreActStage, PreExperimentStage
from rlcore.trajectories.base import AbstractTrajectory

__all__ = ["AbstractReplayLearner", "check_env"]


class AbstractReplayLearner(AbstractLearner):
    """Base class of learners that sample a replay trajectory: ``learner.schedule`` says when
    and how many batches (``ReplaySchedule``), ``update(learner, batch)`` learns from one."""


check_env = generic("check_env", doc="""``check_env(learner, trajectory, env)``: raise
    :class:`~rlcore.checks.EnvMismatchError` unless ``env`` suits what ``learner`` itself needs
    (its action space, its network's input); run by a replay or rollout learner before the
    first step.
    Nothing by default; a learner family adds its rule.""")


@dispatch(AbstractLearner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """Nothing to check beyond what every replay (or rollout) learner checks."""


@dispatch(AbstractReplayLearner, AbstractTrajectory, AbstractEnv, PreExperimentStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Before the first step: check the env's states, the trajectory's layout, then
    ``check_env`` (see the module doc)."""
    check_storable_states(env.state_space(), env)
    check_n_envs(trajectory, env)
    check_env(learner, trajectory, env)


@dispatch(AbstractReplayLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Learn from each batch the schedule draws for this step's ``n_envs(env)`` env steps."""
    for batch in learner.schedule.batches(trajectory, n_envs(env)):
        update(learner, batch)

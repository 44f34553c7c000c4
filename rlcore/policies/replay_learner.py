"""``AbstractReplayLearner``: learners that learn from batches sampled from a replay.

The rule of *when* they learn is written once, here: at every ``PreActStage`` (as RL.jl's DQN
learners) the learner's ``schedule`` (a :class:`~rlcore.ReplaySchedule`) counts the env steps
and draws the batches, and ``update(learner, batch)`` learns *what* each batch teaches. A new
off-policy algorithm is a subclass with a ``schedule`` field and its ``update(learner, batch)``
rule; one that needs more per batch (prioritized replay writes new priorities back) adds a
``PreActStage`` rule of its own, which takes precedence by dispatch.
"""

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv, n_envs
from rlcore.policies.base import AbstractLearner
from rlcore.stages import PreActStage
from rlcore.trajectories.base import AbstractTrajectory

__all__ = ["AbstractReplayLearner"]


class AbstractReplayLearner(AbstractLearner):
    """Base class of learners that sample a replay trajectory: ``learner.schedule`` says when
    and how many batches (``ReplaySchedule``), ``update(learner, batch)`` learns from one."""


@dispatch(AbstractReplayLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Learn from each batch the schedule draws for this step's ``n_envs(env)`` env steps."""
    for batch in learner.schedule.batches(trajectory, n_envs(env)):
        update(learner, batch)

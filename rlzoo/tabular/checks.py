"""What the tabular learners check before the first step: they learn from one environment's
steps, so a vectorised one (``n_envs(env) > 1``, e.g. ``rlenvs.MultiThreadEnv``) is refused
with :class:`~rlcore.EnvMismatchError`. (A state a table cannot index, a continuous one say, is
refused by the tabular approximator at the first action, naming the state.)
"""

from rlcore import AbstractEnv, AbstractTrajectory, EnvMismatchError, PreExperimentStage, n_envs
from rlcore.dispatch import dispatch, update
from rlzoo.tabular.batch_updating import BatchUpdatingLearner
from rlzoo.tabular.double_q_learner import DoubleQLearner
from rlzoo.tabular.monte_carlo import MonteCarloLearner
from rlzoo.tabular.n_step_td_learner import NStepTDLearner
from rlzoo.tabular.td_learner import TDLearner

__all__ = ["update"]


@dispatch((TDLearner, DoubleQLearner, NStepTDLearner, MonteCarloLearner, BatchUpdatingLearner),
          AbstractTrajectory, AbstractEnv, PreExperimentStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Refuse a vectorised env before the first step."""
    n = n_envs(env)
    if n > 1:
        raise EnvMismatchError(f"{type(learner).__name__} learns from one environment's steps, "
                               f"but {env!r} steps n_envs={n} sub-environments at once: give it "
                               f"one environment")

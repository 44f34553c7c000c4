"""The tabular learners refuse a vectorised env before the first step (rlzoo.tabular.checks)."""

import pytest

from rlcore import (
    Agent, EnvMismatchError, EpsilonGreedyExplorer, QBasedPolicy, StopAfterStep,
    TabularQApproximator, VectorSARTTrajectory, check_ambiguities, run,
)
from rlenvs import MultiThreadEnv, RandomWalk1D
from rlzoo.tabular import TDLearner


def test_a_tabular_learner_refuses_a_vector_env_before_the_first_step():
    learner = TDLearner(TabularQApproximator(n_state=7, n_action=2), method="Q")
    agent = Agent(QBasedPolicy(learner, EpsilonGreedyExplorer(epsilon_stable=0.1, seed=0)),
                  VectorSARTTrajectory())
    with MultiThreadEnv([RandomWalk1D] * 2, seed=0) as env:
        with pytest.raises(EnvMismatchError, match=r"TDLearner learns from one environment's "
                                                   r"steps, but MultiThreadEnv\(n=2, mode='sync'"
                                                   r"\) steps n_envs=2 sub-environments at once"):
            run(agent, env, StopAfterStep(10))
    assert len(agent.trajectory["state"]) == 0
    run(agent, RandomWalk1D(), StopAfterStep(10))  # one env: learns
    assert len(agent.trajectory) == 10
    check_ambiguities()

"""TabularPolicy samples its table; ExploringStartsPolicy explores only the first action."""

import numpy as np
import pytest

from rlcore import (
    Agent, GreedyExplorer, QBasedPolicy, StopAfterEpisode, TabularQApproximator,
    VectorSARTTrajectory, run,
)
from rlenvs import RandomWalk1D
from rlenvs.gamblers_problem import GamblersProblemEnv
from rlzoo.tabular.td_learner import TDLearner
from rlzoo.tabular.tabular_policy import ExploringStartsPolicy, TabularPolicy


def test_tabular_policy_samples_its_table():
    table = np.full((7, 2), 0.5)
    table[3] = [0.2, 0.8]
    policy = TabularPolicy(table, seed=0)
    env = RandomWalk1D()
    env.reset()
    draws = [policy(env) for _ in range(5000)]
    # P(right) = 0.8 in state 3; the mean of 5,000 draws has std 0.006.
    assert np.mean(draws) == pytest.approx(0.8, abs=0.03)
    assert policy.prob(env).tolist() == [0.2, 0.8]


def test_exploring_starts_randomises_only_the_first_action():
    learner = TDLearner(TabularQApproximator(n_state=7, n_action=2), method="Q")
    learner.approximator.table[:, 1] = 1.0  # greedy: always right
    policy = ExploringStartsPolicy(QBasedPolicy(learner, GreedyExplorer(seed=0)), seed=0)
    agent = Agent(policy, VectorSARTTrajectory())
    firsts, others = [], []
    for _ in range(200):
        run(agent, RandomWalk1D(seed=0), StopAfterEpisode(1))
        actions = [a for a in agent.trajectory["action"]][:len(agent.trajectory["reward"])]
        firsts.append(actions[0])
        others.extend(actions[1:])
        agent.trajectory.clear()
    assert 0.35 < np.mean(firsts) < 0.65  # 200 fair coins: std 0.035
    assert set(others) == {1}
    # With FULL_ACTION_SET the random first action is a legal one.
    gambler = GamblersProblemEnv(start=3, seed=0)
    gambler.reset()
    es = ExploringStartsPolicy(QBasedPolicy(learner, GreedyExplorer(seed=0)), seed=1)
    assert es(gambler) in (1, 2, 3)

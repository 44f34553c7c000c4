"""Double Q-learning: one update by hand, and Figure 6.5 (it removes the maximization bias)."""

import numpy as np
import pytest

from rlcore import (
    Agent, EpsilonGreedyExplorer, QBasedPolicy, RewardsPerEpisode, StopAfterEpisode,
    StopAfterStep, TabularQApproximator, VectorSARTTrajectory, run,
)
from rlenvs import RandomWalk1D
from rlenvs.maximization_bias import MaximizationBiasEnv
from rlzoo.tabular.double_q_learner import DoubleQLearner
from rlzoo.tabular.td_learner import TDLearner


def test_one_update_by_hand():
    q1 = TabularQApproximator(n_state=7, n_action=2, alpha=0.5)
    q2 = TabularQApproximator(n_state=7, n_action=2, alpha=0.5)
    q1.table[4] = [1.0, 2.0]  # argmax_a Q1(4, a) = 1
    q2.table[4] = [10.0, 4.0]
    q1.table[3] = q2.table[3] = [0.0, 0.5]  # act right from 3
    learner = DoubleQLearner(q1, q2, gamma=1.0, seed=0)
    coin = np.random.default_rng(0).random() < 0.5  # the learner's first draw: which table
    agent = Agent(QBasedPolicy(learner, EpsilonGreedyExplorer(epsilon_stable=0.0, seed=0)),
                  VectorSARTTrajectory())
    run(agent, RandomWalk1D(rewards=(0.0, 1.0)), StopAfterStep(1))
    if coin:  # Q2 updated, evaluated by Q1 at Q2's argmax (action 0): Q1(4, 0) = 1
        assert q2.table[3, 1] == pytest.approx(0.5 + 0.5 * (1.0 - 0.5))
    else:  # Q1 updated with Q2(4, argmax Q1(4, ·)) = Q2(4, 1) = 4
        assert q1.table[3, 1] == pytest.approx(0.5 + 0.5 * (4.0 - 0.5))


def _left_fraction(kind, runs=200, episodes=100):
    lefts = []
    for seed in range(runs):
        rng = np.random.default_rng(seed)

        def table():
            return TabularQApproximator(n_state=3, n_action=10, alpha=0.1)
        learner = TDLearner(table(), method="Q") if kind == "Q" \
            else DoubleQLearner(table(), table(), rng=rng)
        hook = run(Agent(QBasedPolicy(learner, EpsilonGreedyExplorer(epsilon_stable=0.1,
                                                                     rng=rng)),
                         VectorSARTTrajectory()),
                   MaximizationBiasEnv(rng=rng), StopAfterEpisode(episodes), RewardsPerEpisode())
        lefts.append([len(r) == 2 for r in hook.rewards])  # left episodes take two steps
    return np.mean(lefts, axis=0)


def test_figure_6_5_double_q_removes_the_maximization_bias():
    q = _left_fraction("Q")
    double = _left_fraction("DOUBLE")
    # Book: Q-learning goes left far more often than the 5% floor early on; Double Q-learning
    # stays near it. Measured with these seeds: Q 0.85 and Double Q 0.28 over episodes 1–50,
    # Double Q 0.12 (Q ≈ 0.7) over episodes 51–100. Over 200 runs one episode's fraction has
    # std ≤ 0.035 and a 50-episode mean ≤ 0.02 (episodes of a run are correlated, so no √50
    # gain is claimed): every margin below is ≥ 4σ.
    assert q[:50].mean() > double[:50].mean() + 0.2
    assert q[:20].mean() > 0.6
    assert double[-50:].mean() < 0.2
    assert q[-50:].mean() > double[-50:].mean() + 0.3


def test_validation():
    with pytest.raises(ValueError, match="same shape"):
        DoubleQLearner(TabularQApproximator(n_state=2, n_action=2),
                       TabularQApproximator(n_state=3, n_action=2))
    with pytest.raises(ValueError, match="gamma"):
        DoubleQLearner(TabularQApproximator(n_state=2, n_action=2),
                       TabularQApproximator(n_state=2, n_action=2), gamma=2.0)

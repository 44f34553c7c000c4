"""End-to-end: tabular TD learning through ``run``, ``Agent`` and dispatch on RandomWalk1D."""

import numpy as np
import pytest

from rlcore import (
    Agent, EpsilonGreedyExplorer, QBasedPolicy, StopAfterEpisode, TabularQApproximator,
    TabularVApproximator, TotalRewardPerEpisode, VBasedPolicy, VectorSARTTrajectory, run,
    testmode,
)
from rlenvs import RandomWalk1D
from rlzoo.tabular import TDLearner


def test_td0_prediction_converges_to_the_true_values():
    rng = np.random.default_rng(0)
    learner = TDLearner(TabularVApproximator(n_state=7, init=0.5, alpha=0.002), method="TD0",
                        gamma=1.0)
    policy = VBasedPolicy(learner, mapping=lambda env, learner: int(rng.integers(2)))
    env = RandomWalk1D(rewards=(0.0, 1.0), seed=0)
    run(Agent(policy, VectorSARTTrajectory()), env, StopAfterEpisode(20_000))
    values = learner.approximator.table[1:6]
    # Constant step 0.002: the stationary noise of TD(0) has std ≈ sqrt(α·Var/2) ≈ 0.016, so
    # every state within 0.05 of its true value is a 3σ statement for the worst of five.
    np.testing.assert_allclose(values, np.arange(1, 6) / 6, atol=0.05)


def test_q_learning_learns_the_optimal_policy():
    learner = TDLearner(TabularQApproximator(n_state=7, n_action=2, alpha=0.1), method="Q",
                        gamma=0.9)
    # Q-learning is off-policy: a very exploratory behaviour (ε = 0.5) visits every state often,
    # and the greedy policy it learns is still the optimal one.
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.5, seed=0)
    agent = Agent(QBasedPolicy(learner, explorer), VectorSARTTrajectory())
    env = RandomWalk1D(rewards=(-1.0, 1.0), seed=0)
    run(agent, env, StopAfterEpisode(1000))
    q = learner.approximator.table
    # Moving right (action 1) is optimal in every non-terminal state; Q*(s, right) = 0.9^(5-s),
    # Q*(s, left) = 0.9 Q*(s-1, right) and Q*(1, left) = -1. The walk is deterministic, so Q
    # converges to these values geometrically, by a factor (1 - α) per visit; the least visited
    # pair, Q(1, left), gets some 40 visits in 1,000 episodes, so 0.05 bounds its residual.
    assert (q[1:6].argmax(axis=1) == 1).all()
    q_right = 0.9 ** np.arange(4, -1, -1)
    np.testing.assert_allclose(q[1:6, 1], q_right, atol=0.01)
    np.testing.assert_allclose(q[1:6, 0], np.r_[-1.0, 0.9 * q_right[:-1]], atol=0.05)
    # Evaluate the policy alone (not the agent), so nothing is learned during the evaluation;
    # testmode makes its explorer greedy.
    table = q.copy()
    with testmode(agent.policy) as greedy:
        hook = run(greedy, env, StopAfterEpisode(10), TotalRewardPerEpisode())
    assert hook.rewards == [1.0] * 10
    np.testing.assert_array_equal(learner.approximator.table, table)


def test_sarsa_learns_through_pre_act():
    learner = TDLearner(TabularQApproximator(n_state=7, n_action=2, alpha=0.1), method="SARSA",
                        gamma=0.9)
    agent = Agent(QBasedPolicy(learner, EpsilonGreedyExplorer(epsilon_stable=0.05, seed=1)),
                  VectorSARTTrajectory())
    run(agent, RandomWalk1D(seed=1), StopAfterEpisode(500))
    assert (learner.approximator.table[1:6].argmax(axis=1) == 1).all()


def test_td_learner_validates():
    with pytest.raises(ValueError, match="gamma"):
        TDLearner(TabularVApproximator(n_state=3), method="TD0", gamma=1.5)
    with pytest.raises(ValueError, match="method"):
        TDLearner(TabularVApproximator(n_state=3), method="MC")
    with pytest.raises(TypeError, match="TabularQApproximator"):
        TDLearner(TabularVApproximator(n_state=3), method="Q")

"""Batch TD(0) and batch MC (Figure 6.2): the certainty-equivalence and sample-average limits."""

import numpy as np
import pytest

from rlcore import Agent, StopAfterEpisode, StopAfterStep, TabularVApproximator, \
    VBasedPolicy, VectorSARTTrajectory, run
from rlenvs import RandomWalk1D
from rlzoo.tabular.batch_updating import BatchUpdatingLearner


def _scripted(moves):
    moves = iter(moves)
    return lambda env, learner: next(moves)


def test_batch_td_and_mc_limits_on_two_episodes():
    # Episode 1: 3 → 4 → 5 → 6 (+1). Episode 2: 3 → 2 → 1 → 0 (0).
    moves = [1, 1, 1, 0, 0, 0]
    results = {}
    for method in ("TD0", "MC"):
        learner = BatchUpdatingLearner(TabularVApproximator(n_state=7, init=0.5), method=method,
                                       alpha=0.05, theta=1e-8)
        run(Agent(VBasedPolicy(learner, _scripted(moves)), VectorSARTTrajectory()),
            RandomWalk1D(rewards=(0.0, 1.0)), StopAfterEpisode(2))
        results[method] = learner.approximator.table
    # MC: sample averages of the returns; state 3 saw 1 and 0.
    np.testing.assert_allclose(results["MC"][[1, 2, 3, 4, 5]], [0, 0, 0.5, 1, 1], atol=1e-6)
    # TD: the certainty-equivalence model: from 3 half the time to 4 (then surely +1), half to 2
    # (then surely 0), so V(3) = 0.5, and the chains give 0 and 1.
    np.testing.assert_allclose(results["TD0"][[1, 2, 3, 4, 5]], [0, 0, 0.5, 1, 1], atol=1e-6)


def test_batch_td_differs_from_mc_like_example_6_4():
    # Example 6.4's point: batch TD uses the model the data imply, MC only the returns. Episodes
    # 3 → 4 → 3 → 2 → 1 → 0 (0) and 3 → 4 → 5 → 6 (+1): MC averages V(4)'s returns {0, 1}.
    moves = [1, 0, 0, 0, 0, 1, 1, 1]
    values = {}
    for method in ("TD0", "MC"):
        learner = BatchUpdatingLearner(TabularVApproximator(n_state=7, init=0.5), method=method,
                                       alpha=0.05, theta=1e-9)
        run(Agent(VBasedPolicy(learner, _scripted(moves)), VectorSARTTrajectory()),
            RandomWalk1D(rewards=(0.0, 1.0)), StopAfterEpisode(2))
        values[method] = learner.approximator.table
    assert values["MC"][4] == pytest.approx(0.5, abs=1e-6)
    # TD: V4 = (V5 + V3)/2, V5 = 1, V3 = (V4 + V4 + V2)/3 (3 left the walk to 4 twice, to 2 once),
    # V2 = V1 = 0. Solving: V3 = 2 V4 / 3, V4 = (1 + 2 V4 / 3) / 2 → V4 = 3/4, V3 = 1/2.
    assert values["TD0"][4] == pytest.approx(0.75, abs=1e-6)
    assert values["TD0"][3] == pytest.approx(0.5, abs=1e-6)


def test_padding_steps_are_skipped():
    # Run 1 stops after one step, 3 → 4: the episode is truncated, and the next run's first
    # PreEpisodeStage closes it with a padding step at 4 (reward 0, terminal and truncated).
    # Run 2: 3 → 4 → 5 → 6 (+1). Real experience says 4 always leads on to 5 and +1: batch TD
    # gives V(3) = V(4) = V(5) = 1; batch MC averages the returns of 3 ({0 (cut), 1}) = 0.5 and
    # of 4 ({1}) = 1. Learning from the padding step as a transition to the end would give
    # V(4) = 0.5 for both methods.
    for method, expected in (("TD0", [1.0, 1.0, 1.0]), ("MC", [0.5, 1.0, 1.0])):
        learner = BatchUpdatingLearner(TabularVApproximator(n_state=7, init=0.0), method=method,
                                       alpha=0.1, theta=1e-10)
        agent = Agent(VBasedPolicy(learner, _scripted([1, 1, 1, 1])), VectorSARTTrajectory())
        env = RandomWalk1D(rewards=(0.0, 1.0))
        run(agent, env, StopAfterStep(1))
        run(agent, env, StopAfterEpisode(1))
        assert any(agent.trajectory["terminal"][i] and agent.trajectory["truncated"][i]
                   for i in range(len(agent.trajectory["reward"])))  # a padding step exists
        np.testing.assert_allclose(learner.approximator.table[[3, 4, 5]], expected, atol=1e-6)


def test_validation():
    with pytest.raises(ValueError, match="method"):
        BatchUpdatingLearner(TabularVApproximator(n_state=3), method="Q")
    for name, bad in (("theta", 0.0), ("theta", -1.0), ("max_passes", 0), ("max_passes", 2.5),
                      ("alpha", 0.0), ("gamma", 1.1)):
        with pytest.raises(ValueError, match=name):
            BatchUpdatingLearner(TabularVApproximator(n_state=3), **{name: bad})

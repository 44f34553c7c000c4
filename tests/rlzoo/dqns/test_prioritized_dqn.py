"""PrioritizedDQNLearner: importance-weighted update and priority write-back, by hand."""

import numpy as np
import pytest
import torch

from rlcore import (
    PRE_ACT_STAGE, BatchSampler, CircularArrayPSARTTrajectory, CircularArraySARTTrajectory,
    update,
)
from rlzoo.dqns import PrioritizedDQNLearner, QNetwork
from rlzoo.experiments.common import approximator
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    LINEAR_BUILDERS, filled_trajectory, make_batch, params, random_batch, same, weight_of,
)


@pytest.mark.parametrize("path", ["torch", "numpy"])
def test_weighted_update_and_new_priorities_by_hand(path):
    learner = PrioritizedDQNLearner(approximator=LINEAR_BUILDERS[path]([[1.0, 2.0], [3.0, 4.0]]),
                                    gamma=0.9, loss="mse", alpha=0.5, beta_init=1.0,
                                    beta_steps=0, priority_epsilon=1e-6)
    # two copies of s = e0, a = 0, r = 1, s' = e1: δ = 1 + 0.9 * 4 - 1 = 3.6 each, sampled
    # with priorities 0.1 and 0.4 -> weights (β = 1) 1 and 0.25
    batch = make_batch([[1, 0], [1, 0]], [0, 0], [1.0, 1.0], [[0, 1], [0, 1]],
                       priorities=[0.1, 0.4])
    priorities = update(learner, batch)
    torch.testing.assert_close(priorities, torch.full((2,), (3.6 + 1e-6) ** 0.5))
    # loss = mean(w_i δ_i²): dL/dW00 = (1 * 2 * -3.6 + 0.25 * 2 * -3.6) / 2 = -4.5; lr 0.1
    assert weight_of(learner.approximator.model)[0, 0].item() == pytest.approx(1.45)


def test_stage_rule_writes_priorities_back_and_needs_a_prioritized_trajectory():
    net = QNetwork(4, 2, hidden=(16,), seed=0)
    learner = PrioritizedDQNLearner(approximator=approximator(net, 1e-3),
                                    sampler=BatchSampler(16, seed=0), min_replay_history=16)
    t = filled_trajectory(100, cls=CircularArrayPSARTTrajectory)
    assert np.all(np.asarray(t["priority"].gather(np.arange(100))) == 1.0)
    update(learner, t, LineEnv(), PRE_ACT_STAGE)
    changed = np.asarray(t["priority"].gather(np.arange(100))) != 1.0
    assert 1 <= changed.sum() <= 16
    with pytest.raises(TypeError, match="prioritized trajectory"):
        update(learner, filled_trajectory(100, cls=CircularArraySARTTrajectory), LineEnv(),
               PRE_ACT_STAGE)


def test_loss_decreases_and_target_waits_for_sync():
    net = QNetwork(4, 2, hidden=(32,), seed=0)
    learner = PrioritizedDQNLearner(approximator=approximator(net, 1e-2), gamma=0.5,
                                    min_replay_history=16, target_update_freq=3,
                                    sampler=BatchSampler(16, seed=0))
    batch = random_batch()
    first = update(learner, batch)
    first_loss = learner.loss_value.item()
    for _ in range(50):
        update(learner, batch)
    assert learner.loss_value.item() < 0.5 * first_loss
    assert first.shape == (32,)
    target_before = params(learner.target_network.target_model)
    t = filled_trajectory(100, cls=CircularArrayPSARTTrajectory)
    for _ in range(2):
        update(learner, t, LineEnv(), PRE_ACT_STAGE)
    assert same(target_before, params(learner.target_network.target_model))
    update(learner, t, LineEnv(), PRE_ACT_STAGE)
    assert same(params(net), params(learner.target_network.target_model))

"""PrioritizedDQNLearner: importance-weighted update and priority write-back, by hand."""

import numpy as np
import pytest
import torch

from rlcore import (
    PRE_ACT_STAGE, CircularArrayPSARTTrajectory, CircularArraySARTTrajectory, update,
)
from rlzoo.dqns import PrioritizedDQNLearner, QNetwork, target_network
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    adam_target, filled_trajectory, linear_approximator, make_batch, params, random_batch, same,
    schedule,
)


def _linear_learner(**kwargs):
    return PrioritizedDQNLearner(target_network(linear_approximator([[1.0, 2.0], [3.0, 4.0]])),
                                 gamma=0.9, loss="mse", alpha=0.5, priority_epsilon=1e-6,
                                 **kwargs)


# two copies of s = e0, a = 0, r = 1, s' = e1 (Q(e0) = [1, 3], Q(e1) = [2, 4]): δ = 1 + 0.9 · 4
# - 1 = 3.6 each, sampled with priorities 0.1 and 0.4
def _two_copies():
    return make_batch([[1, 0], [1, 0]], [0, 0], [1.0, 1.0], [[0, 1], [0, 1]],
                      priorities=[0.1, 0.4])


def test_weighted_update_and_new_priorities_by_hand():
    learner = _linear_learner(beta_init=1.0, beta_steps=0)
    priorities = update(learner, _two_copies())
    torch.testing.assert_close(priorities, torch.full((2,), (3.6 + 1e-6) ** 0.5))
    # weights (β = 1): p^-1 / max = [10, 2.5] / 10 = [1, 0.25]
    # loss = mean(w_i δ_i²): dL/dW00 = (1 · 2 · -3.6 + 0.25 · 2 · -3.6) / 2 = -4.5; lr 0.1
    assert learner.approximator.model.weight[0, 0].item() == pytest.approx(1.45)


def test_beta_anneals_with_the_schedules_env_steps():
    learner = _linear_learner(beta_init=0.5, beta_steps=4)
    learner.schedule.env_steps = 2      # β = 0.5 + 0.5 · 2/4 = 0.75
    update(learner, _two_copies())
    # weights: [1, (0.1/0.4)^0.75] = [1, 0.353553]; dL/dW00 = -3.6 (1 + 0.353553) = -4.872792
    assert learner.approximator.model.weight[0, 0].item() == pytest.approx(1.4872792, rel=1e-6)


def test_stage_rule_writes_priorities_back_and_needs_a_prioritized_trajectory():
    net = QNetwork(4, 2, hidden=(16,), seed=0)
    learner = PrioritizedDQNLearner(adam_target(net), schedule=schedule(16))
    t = filled_trajectory(100, cls=CircularArrayPSARTTrajectory)
    assert np.all(np.asarray(t["priority"].gather(np.arange(100))) == 1.0)
    update(learner, t, LineEnv(), PRE_ACT_STAGE)
    changed = np.asarray(t["priority"].gather(np.arange(100))) != 1.0
    assert 1 <= changed.sum() <= 16
    with pytest.raises(TypeError, match="prioritized trajectory"):
        update(learner, filled_trajectory(100, cls=CircularArraySARTTrajectory), LineEnv(),
               PRE_ACT_STAGE)


def test_loss_decreases_on_a_fixed_batch():
    net = QNetwork(4, 2, hidden=(32,), seed=0)
    learner = PrioritizedDQNLearner(adam_target(net, 1e-2), gamma=0.5)
    batch = random_batch()
    first = update(learner, batch)
    first_loss = learner.loss_value.item()
    for _ in range(50):
        update(learner, batch)
    assert learner.loss_value.item() < 0.5 * first_loss
    assert first.shape == (32,)


def test_target_waits_for_its_sync():
    net = QNetwork(4, 2, hidden=(32,), seed=0)
    learner = PrioritizedDQNLearner(adam_target(net, 1e-2, sync_every=3), schedule=schedule(16))
    target_before = params(learner.approximator.target_model)
    t = filled_trajectory(100, cls=CircularArrayPSARTTrajectory)
    for _ in range(2):   # optimiser steps 1 and 2
        update(learner, t, LineEnv(), PRE_ACT_STAGE)
    assert same(target_before, params(learner.approximator.target_model))
    update(learner, t, LineEnv(), PRE_ACT_STAGE)   # step 3: synced
    assert same(params(net), params(learner.approximator.target_model))

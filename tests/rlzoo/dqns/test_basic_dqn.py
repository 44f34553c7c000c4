"""BasicDQNLearner: one update against a hand-computed target, invariants, the stage rule."""

import pytest
import torch

from rlcore import PRE_ACT_STAGE, BatchSampler, ReplaySchedule, update
from rlzoo.dqns import BasicDQNLearner, QNetwork
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    adam, filled_trajectory, linear_approximator, make_batch, random_batch, schedule,
)


def _learner(weight, gamma=0.9, lr=0.1):
    return BasicDQNLearner(linear_approximator(weight, lr), gamma=gamma, loss="mse")


def test_one_update_matches_the_hand_computed_target():
    # Q(s) = W s; s = e0 -> Q = [1, 3]; s' = e1 -> Q = [2, 4]
    learner = _learner([[1.0, 2.0], [3.0, 4.0]])
    batch = make_batch([[1, 0]], [0], [1.0], [[0, 1]])
    update(learner, batch)
    # y = 1 + 0.9 max(2, 4) = 4.6; MSE gradient on W[0, 0]: 2 (1 - 4.6) = -7.2; SGD lr 0.1
    w = learner.approximator.model.weight.detach()
    torch.testing.assert_close(w, torch.tensor([[1.72, 2.0], [3.0, 4.0]]))
    assert learner.loss_value.item() == pytest.approx(3.6 ** 2)


def test_termination_does_not_bootstrap_but_truncation_does():
    weight = [[1.0, 2.0], [3.0, 4.0]]
    for terminal, truncated, target in ((True, False, 1.0), (False, True, 4.6)):
        learner = _learner(weight)
        update(learner, make_batch([[1, 0]], [0], [1.0], [[0, 1]], terminal=[terminal],
                                   truncated=[truncated]))
        # W[0, 0] = 1 - lr · 2 (Q(e0, 0) - y) = 1 - 0.1 · 2 (1 - y)
        expected = 1.0 - 0.1 * 2 * (1.0 - target)
        assert learner.approximator.model.weight[0, 0].item() == pytest.approx(expected)


def test_loss_decreases_on_a_fixed_batch():
    net = QNetwork(4, 2, hidden=(32,), seed=0)
    learner = BasicDQNLearner(adam(net, 1e-2), gamma=0.5)
    batch = random_batch()
    first = update(learner, batch).item()
    for _ in range(50):
        last = update(learner, batch).item()
    assert last < 0.5 * first


def test_stage_rule_learns_when_the_schedule_says():
    net = QNetwork(4, 2, hidden=(8,), seed=0)
    learner = BasicDQNLearner(adam(net), schedule=schedule(8, min_replay_history=50,
                                                           update_freq=2))
    env = LineEnv()
    short, full = filled_trajectory(20), filled_trajectory(60)
    update(learner, short, env, PRE_ACT_STAGE)           # step 1: 20 < 50 transitions held
    assert learner.loss_value is None and learner.schedule.env_steps == 1
    update(learner, full, env, PRE_ACT_STAGE)            # step 2: 2 % 2 == 0, learns
    assert learner.loss_value is not None
    learner.loss_value = None
    update(learner, full, env, PRE_ACT_STAGE)            # step 3: not a multiple of 2
    assert learner.loss_value is None and learner.schedule.env_steps == 3


def test_default_schedule_starts_after_32_transitions():
    learner = BasicDQNLearner(adam(QNetwork(4, 2, hidden=(8,), seed=0)))
    assert learner.schedule.min_replay_history == 32
    assert learner.schedule.sampler.batch_size == 32
    assert (learner.schedule.update_freq, learner.schedule.gradient_steps) == (1, 1)


def test_bad_arguments_are_named():
    net = QNetwork(4, 2, hidden=(8,), seed=0)
    with pytest.raises(ValueError, match="gamma"):
        BasicDQNLearner(adam(net), gamma=1.5)
    with pytest.raises(ValueError, match="loss"):
        BasicDQNLearner(adam(net), loss="l1")
    with pytest.raises(TypeError, match="NeuralNetworkApproximator"):
        BasicDQNLearner(net)
    with pytest.raises(ValueError, match=r"min_replay_history \(10\) must be at least"):
        BasicDQNLearner(adam(net), schedule=ReplaySchedule(
            sampler=BatchSampler(32, seed=0), min_replay_history=10))

"""BasicDQNLearner: one update against a hand-computed target, invariants, the stage rule."""

import numpy as np
import pytest
import torch

from rlcore import PRE_ACT_STAGE, BatchSampler, update
from rlzoo.dqns import BasicDQNLearner, QNetwork
from rlzoo.experiments.common import approximator
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import LINEAR_BUILDERS, filled_trajectory, make_batch, \
    random_batch, weight_of


def _learner(weight, gamma=0.9, lr=0.1, path="torch"):
    return BasicDQNLearner(approximator=LINEAR_BUILDERS[path](weight, lr), gamma=gamma,
                           loss="mse", min_replay_history=32)


@pytest.mark.parametrize("path", ["torch", "numpy"])
def test_one_update_matches_the_hand_computed_target(path):
    # Q(s) = W s; s = e0 -> Q = [1, 3]; s' = e1 -> Q = [2, 4]
    learner = _learner([[1.0, 2.0], [3.0, 4.0]], path=path)
    batch = make_batch([[1, 0]], [0], [1.0], [[0, 1]])
    update(learner, batch)
    # y = 1 + 0.9 max(2, 4) = 4.6; MSE gradient on W[0, 0]: 2 (1 - 4.6) = -7.2; SGD lr 0.1
    w = weight_of(learner.approximator.model).detach()
    torch.testing.assert_close(w, torch.tensor([[1.72, 2.0], [3.0, 4.0]]))


@pytest.mark.parametrize("path", ["torch", "numpy"])
def test_termination_does_not_bootstrap_but_truncation_does(path):
    weight = [[1.0, 2.0], [3.0, 4.0]]
    for terminal, truncated, target in ((True, False, 1.0), (False, True, 4.6)):
        learner = _learner(weight, path=path)
        update(learner, make_batch([[1, 0]], [0], [1.0], [[0, 1]], terminal=[terminal],
                                   truncated=[truncated]))
        expected = 1.0 - 0.1 * 2 * (1.0 - target)
        assert weight_of(learner.approximator.model)[0, 0].item() == pytest.approx(expected)


def test_loss_decreases_on_a_fixed_batch():
    net = QNetwork(4, 2, hidden=(32,), seed=0)
    learner = BasicDQNLearner(approximator=approximator(net, 1e-2), gamma=0.5)
    batch = random_batch()
    first = update(learner, batch).item()
    for _ in range(50):
        last = update(learner, batch).item()
    assert last < 0.5 * first


def test_stage_rule_waits_for_min_replay_history_and_update_freq():
    net = QNetwork(4, 2, hidden=(8,), seed=0)
    learner = BasicDQNLearner(approximator=approximator(net, 1e-3),
                              sampler=BatchSampler(8, seed=0), min_replay_history=50,
                              update_freq=2)
    env = LineEnv()
    short, full = filled_trajectory(20), filled_trajectory(60)
    update(learner, short, env, PRE_ACT_STAGE)
    assert learner.loss_value is None and learner.update_step == 1
    update(learner, full, env, PRE_ACT_STAGE)            # step 2: learns
    assert learner.loss_value is not None
    learner.loss_value = None
    update(learner, full, env, PRE_ACT_STAGE)            # step 3: not a multiple of 2
    assert learner.loss_value is None


def test_acting_gives_q_values_and_bad_input_is_named():
    net = QNetwork(4, 2, hidden=(8,), seed=0)
    learner = BasicDQNLearner(approximator=approximator(net, 1e-3))

    class Env:
        def state(self):
            return np.zeros(4, np.float32)
    assert learner(Env()).shape == (2,)
    with pytest.raises(ValueError, match="gamma"):
        BasicDQNLearner(approximator=approximator(net, 1e-3), gamma=1.5)
    with pytest.raises(ValueError, match="loss"):
        BasicDQNLearner(approximator=approximator(net, 1e-3), loss="l1")
    with pytest.raises(TypeError, match="NeuralNetworkApproximator"):
        BasicDQNLearner(approximator=net)
    with pytest.raises(ValueError, match=r"min_replay_history \(10\) must be at least"):
        BasicDQNLearner(approximator=approximator(net, 1e-3), min_replay_history=10,
                        sampler=BatchSampler(32, seed=0))

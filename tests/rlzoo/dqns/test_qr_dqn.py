"""QRDQNLearner: the quantile target and loss of one update by hand; invariants."""

import pytest
import torch

from rlcore import PRE_ACT_STAGE, update
from rlzoo.dqns import DistributionalNetwork, QRDQNLearner
from rlzoo.dqns.losses import quantile_huber_loss
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    FixedStateEnv, adam_target, filled_trajectory, make_batch, params, random_batch, same,
    schedule, sgd,
)


class FixedQuantiles(torch.nn.Module):
    def __init__(self, quantiles):
        super().__init__()
        self.quantiles = torch.nn.Parameter(torch.tensor(quantiles))

    def forward(self, x):
        return self.quantiles.unsqueeze(0).expand(x.shape[0], -1, -1)


def test_one_update_by_hand():
    # action 0 quantiles [0, 2] (Q = 1), action 1 [1, 5] (Q = 3): a* = 1
    model = FixedQuantiles([[0.0, 2.0], [1.0, 5.0]])
    learner = QRDQNLearner(sgd(model), gamma=0.5, n_quantiles=2)
    torch.testing.assert_close(learner.taus, torch.tensor([0.25, 0.75]))
    batch = make_batch([[0.0]], [0], [1.0], [[0.0]])
    # targets 1 + 0.5 [1, 5] = [1.5, 3.5]; predictions [0, 2] at τ = [0.25, 0.75]
    expected = quantile_huber_loss(torch.tensor([[0.0, 2.0]]), torch.tensor([[1.5, 3.5]]),
                                   torch.tensor([0.25, 0.75]))
    # by hand: θ1 = 0: u = 1.5 (Huber 1.0), 3.5 (3.0), weight 0.25 -> mean 0.5;
    # θ2 = 2: u = -0.5 (0.125, weight 0.25), 1.5 (1.0, weight 0.75) -> mean 0.390625
    assert expected.item() == pytest.approx(0.890625)
    assert update(learner, batch).item() == pytest.approx(0.890625)
    terminal = make_batch([[0.0]], [0], [1.0], [[0.0]], terminal=[True])
    # a terminal step: both targets are r = 1
    model.quantiles.data = torch.tensor([[0.0, 2.0], [1.0, 5.0]])
    expected = quantile_huber_loss(torch.tensor([[0.0, 2.0]]), torch.tensor([[1.0, 1.0]]),
                                   torch.tensor([0.25, 0.75]))
    assert update(learner, terminal).item() == pytest.approx(expected.item())


def test_loss_decreases_on_a_fixed_batch():
    net = DistributionalNetwork(4, 2, hidden=(32,), n_atoms=8, seed=0)
    learner = QRDQNLearner(adam_target(net, 1e-2), n_quantiles=8, gamma=0.5)
    batch = random_batch()
    first = update(learner, batch).item()
    for _ in range(50):
        last = update(learner, batch).item()
    assert last < 0.7 * first


def test_target_waits_for_its_sync():
    net = DistributionalNetwork(4, 2, hidden=(32,), n_atoms=8, seed=0)
    learner = QRDQNLearner(adam_target(net, 1e-2, sync_every=3), n_quantiles=8, gamma=0.5,
                           schedule=schedule(16))
    before = params(learner.approximator.target_model)
    t = filled_trajectory(100)
    for _ in range(2):   # optimiser steps 1 and 2
        update(learner, t, LineEnv(), PRE_ACT_STAGE)
    assert same(before, params(learner.approximator.target_model))
    update(learner, t, LineEnv(), PRE_ACT_STAGE)   # step 3: synced
    assert same(params(net), params(learner.approximator.target_model))


def test_acting_averages_the_quantiles():
    # Q(s, a) = mean_i θ_i(s, a): [(0 + 2)/2, (1 + 5)/2] = [1, 3]
    learner = QRDQNLearner(sgd(FixedQuantiles([[0.0, 2.0], [1.0, 5.0]])), n_quantiles=2)
    torch.testing.assert_close(learner(FixedStateEnv(torch.zeros(1))), torch.tensor([1.0, 3.0]))


def test_the_target_comes_from_the_target_network():
    # the target network keeps the constructor's quantiles; the online one gets others
    model = FixedQuantiles([[0.0, 2.0], [1.0, 5.0]])
    learner = QRDQNLearner(sgd(model), gamma=0.5, n_quantiles=2)
    model.quantiles.data = torch.tensor([[0.5, 1.0], [3.0, 4.0]])
    batch = make_batch([[0.0]], [0], [1.0], [[0.0]])
    # target: a* = 1 under the target's means (1, 3) -> 1 + 0.5 [1, 5]; prediction: online
    # action 0 (from the online net, a* would be 1 but its quantiles [3, 4] give [2.5, 3])
    expected = quantile_huber_loss(torch.tensor([[0.5, 1.0]]), torch.tensor([[1.5, 3.5]]),
                                   torch.tensor([0.25, 0.75]))
    assert update(learner, batch).item() == pytest.approx(expected.item())


def test_a_network_of_another_width_is_named():
    # 51 atoms against 200 quantiles failed with a shape error; 1 atom broadcast silently
    for n_atoms in (51, 1):
        net = DistributionalNetwork(4, 2, hidden=(8,), n_atoms=n_atoms, seed=0)
        learner = QRDQNLearner(adam_target(net), n_quantiles=8)
        with pytest.raises(ValueError, match=rf"outputs of shape \(1, 2, {n_atoms}\), expected "
                                             r"\(batch, n_actions, n_quantiles=8\); build it "
                                             r"with n_atoms=8"):
            update(learner, make_batch([[0.0] * 4], [0], [1.0], [[0.0] * 4]))

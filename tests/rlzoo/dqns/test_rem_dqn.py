"""REMDQNLearner: the random-mixture target of one update by hand; invariants."""

import pytest
import torch

from rlcore import PRE_ACT_STAGE, update
from rlcore.utils.random import torch_generator
from rlzoo.dqns import EnsembleQNetwork, REMDQNLearner
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    FixedStateEnv, adam_target, filled_trajectory, make_batch, params, random_batch, same,
    schedule, sgd,
)


class FixedHeads(torch.nn.Module):
    def __init__(self, q):
        super().__init__()
        self.q = torch.nn.Parameter(torch.tensor(q))       # (K, A)

    def forward(self, x):
        return self.q.unsqueeze(0).expand(x.shape[0], -1, -1)


def test_one_update_by_hand():
    # two heads: Q_1 = [1, 0], Q_2 = [0, 3]
    model = FixedHeads([[1.0, 0.0], [0.0, 3.0]])
    learner = REMDQNLearner(sgd(model), gamma=0.5, loss="mse", seed=5)
    alpha = torch.rand(2, generator=torch_generator(5, "cpu"))
    alpha = alpha / alpha.sum()
    q = alpha[0] * torch.tensor([1.0, 0.0]) + alpha[1] * torch.tensor([0.0, 3.0])
    target = 2.0 + 0.5 * q.max()
    batch = make_batch([[0.0]], [0], [2.0], [[0.0]])
    assert update(learner, batch).item() == pytest.approx(((q[0] - target) ** 2).item())
    # the gradient reaches each head in proportion to its weight: dL/dQ_k(a=0) = α_k 2 (q - y)
    grad = 2 * (q[0] - target)
    torch.testing.assert_close(model.q.detach()[:, 0],
                               torch.tensor([1.0, 0.0]) - 0.1 * alpha * grad)


def test_acting_uses_the_mean_of_the_heads():
    model = FixedHeads([[1.0, 0.0], [0.0, 3.0]])
    learner = REMDQNLearner(sgd(model))
    q = learner(FixedStateEnv(torch.zeros(1)))
    torch.testing.assert_close(q, torch.tensor([0.5, 1.5]))


def test_loss_decreases_on_a_fixed_batch():
    net = EnsembleQNetwork(4, 2, hidden=(32,), n_heads=3, seed=0)
    learner = REMDQNLearner(adam_target(net, 1e-2), gamma=0.5)
    batch = random_batch()
    first = sum(update(learner, batch).item() for _ in range(5))
    for _ in range(50):
        update(learner, batch)
    last = sum(update(learner, batch).item() for _ in range(5))
    assert last < 0.5 * first


def test_target_waits_for_its_sync():
    net = EnsembleQNetwork(4, 2, hidden=(32,), n_heads=3, seed=0)
    learner = REMDQNLearner(adam_target(net, 1e-2, sync_every=3), gamma=0.5,
                            schedule=schedule(16))
    before = params(learner.approximator.target_model)
    t = filled_trajectory(100)
    for _ in range(2):   # optimiser steps 1 and 2
        update(learner, t, LineEnv(), PRE_ACT_STAGE)
    assert same(before, params(learner.approximator.target_model))
    update(learner, t, LineEnv(), PRE_ACT_STAGE)   # step 3: synced
    assert same(params(net), params(learner.approximator.target_model))


def test_the_target_comes_from_the_target_network():
    model = FixedHeads([[1.0, 0.0], [0.0, 3.0]])
    learner = REMDQNLearner(sgd(model), gamma=0.5, loss="mse", seed=5)
    model.q.data = torch.tensor([[2.0, 2.0], [1.0, 1.0]])  # online only
    alpha = torch.rand(2, generator=torch_generator(5, "cpu"))
    alpha = alpha / alpha.sum()
    q_online = alpha[0] * 2.0 + alpha[1] * 1.0             # action 0, online heads
    q_target = alpha[0] * torch.tensor([1.0, 0.0]) + alpha[1] * torch.tensor([0.0, 3.0])
    target = 2.0 + 0.5 * q_target.max()
    batch = make_batch([[0.0]], [0], [2.0], [[0.0]])
    assert update(learner, batch).item() == pytest.approx(((q_online - target) ** 2).item())


def test_a_bad_seed_is_named():
    net = EnsembleQNetwork(4, 2, hidden=(8,), n_heads=2, seed=0)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match=f"seed must be an integer >= 0, got {bad!r}"):
            REMDQNLearner(adam_target(net), seed=bad)

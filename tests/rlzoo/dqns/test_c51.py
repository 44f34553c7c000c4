"""C51Learner: the projected target of one update by hand; invariants."""

import pytest
import torch

from rlcore import PRE_ACT_STAGE, update
from rlzoo.dqns import C51Learner, DistributionalNetwork, RainbowLearner
from rlzoo.dqns.c51 import c51_target
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    FixedStateEnv, adam_target, filled_trajectory, make_batch, params, random_batch, same,
    schedule, sgd,
)


class FixedLogits(torch.nn.Module):
    """Logits ``(batch, 2 actions, 3 atoms)`` read from a parameter, ignoring the state."""

    def __init__(self, logits):
        super().__init__()
        self.logits = torch.nn.Parameter(torch.log(torch.tensor(logits)))

    def forward(self, x):
        return self.logits.unsqueeze(0).expand(x.shape[0], -1, -1)


def _learner(probs, gamma=0.5):
    return C51Learner(sgd(FixedLogits(probs)), gamma=gamma, n_atoms=3, v_min=0.0, v_max=2.0)


def test_target_is_the_projection_of_the_greedy_next_distribution():
    # support [0, 1, 2]; action 0: p = [0.2, 0.5, 0.3] (Q = 1.1), action 1: [0.6, 0.3, 0.1]
    # (Q = 0.5) -> a* = 0; Tz = 0.5 + 0.5 z = [0.5, 1, 1.5] -> m = [0.1, 0.75, 0.15]
    learner = _learner([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])
    batch = make_batch([[0.0]] * 2, [1, 1], [0.5, 0.5], [[0.0]] * 2, terminal=[False, True])
    target = c51_target(learner, batch)
    # a terminal step keeps only r = 0.5: half on atom 0, half on atom 1
    torch.testing.assert_close(target, torch.tensor([[0.1, 0.75, 0.15], [0.5, 0.5, 0.0]]))
    q = learner(FixedStateEnv(torch.zeros(1)))
    torch.testing.assert_close(q, torch.tensor([1.1, 0.5]))
    # the loss is the cross-entropy of action 1's distribution to the target
    loss = update(learner, batch)
    expected = -(target * torch.log(torch.tensor([[0.6, 0.3, 0.1]]))).sum(dim=1).mean()
    assert loss.item() == pytest.approx(expected.item(), rel=1e-5)


def test_loss_decreases_on_a_fixed_batch():
    net = DistributionalNetwork(4, 2, hidden=(32,), n_atoms=11, seed=0)
    learner = C51Learner(adam_target(net, 1e-2), n_atoms=11, v_min=-5, v_max=5)
    batch = random_batch()
    first = update(learner, batch).item()
    for _ in range(50):
        last = update(learner, batch).item()
    assert last < first - 0.2


def test_target_waits_for_its_sync():
    net = DistributionalNetwork(4, 2, hidden=(32,), n_atoms=11, seed=0)
    learner = C51Learner(adam_target(net, 1e-2, sync_every=3), n_atoms=11, v_min=-5, v_max=5,
                         schedule=schedule(16))
    before = params(learner.approximator.target_model)
    t = filled_trajectory(100)
    for _ in range(2):   # optimiser steps 1 and 2
        update(learner, t, LineEnv(), PRE_ACT_STAGE)
    assert same(before, params(learner.approximator.target_model))
    update(learner, t, LineEnv(), PRE_ACT_STAGE)   # step 3: synced
    assert same(params(net), params(learner.approximator.target_model))


def test_bad_support_is_named():
    net = DistributionalNetwork(4, 2, hidden=(8,), n_atoms=3, seed=0)
    with pytest.raises(ValueError, match="v_min"):
        C51Learner(adam_target(net), n_atoms=3, v_min=1.0, v_max=0.0)
    one = DistributionalNetwork(4, 2, hidden=(8,), n_atoms=1, seed=0)
    for cls in (C51Learner, RainbowLearner):  # one atom: a support of width 0 (Δz = 0/0)
        with pytest.raises(ValueError, match="n_atoms must be an integer >= 2, got 1"):
            cls(adam_target(one), n_atoms=1)


def test_the_target_comes_from_the_target_network():
    learner = _learner([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])
    # the online network now puts a* = 0 on p = [0.1, 0.1, 0.8]: a target from it would
    # differ; the target network keeps the constructor's distributions
    learner.approximator.model.logits.data = torch.log(torch.tensor([[0.1, 0.1, 0.8],
                                                                     [0.8, 0.1, 0.1]]))
    batch = make_batch([[0.0]], [1], [0.5], [[0.0]])
    target = c51_target(learner, batch)
    torch.testing.assert_close(target, torch.tensor([[0.1, 0.75, 0.15]]))
    loss = update(learner, batch)  # the prediction is the online action 1: [0.8, 0.1, 0.1]
    expected = -(target * torch.log(torch.tensor([[0.8, 0.1, 0.1]]))).sum()
    assert loss.item() == pytest.approx(expected.item(), rel=1e-5)

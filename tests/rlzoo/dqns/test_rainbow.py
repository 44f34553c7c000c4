"""RainbowLearner: n-step projected target, importance weights and priorities by hand."""

import numpy as np
import pytest
import torch

from rlcore import (
    PRE_ACT_STAGE, CircularArrayPSARTTrajectory, NStepBatchSampler, ReplaySchedule, testmode,
    update,
)
from rlzoo.dqns import DistributionalNetwork, RainbowLearner
from rlzoo.dqns.c51 import c51_target
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    FixedStateEnv, adam_target, filled_trajectory, make_batch, params, random_batch, same, sgd,
)


def _three_step(gamma, batch_size=32, min_replay_history=1000):
    return ReplaySchedule(sampler=NStepBatchSampler(3, gamma, batch_size, seed=0),
                          min_replay_history=min_replay_history)


class FixedLogits(torch.nn.Module):
    def __init__(self, probs):
        super().__init__()
        self.logits = torch.nn.Parameter(torch.log(torch.tensor(probs)))

    def forward(self, x):
        return self.logits.unsqueeze(0).expand(x.shape[0], -1, -1)


def test_one_update_by_hand():
    model = FixedLogits([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])
    learner = RainbowLearner(sgd(model), schedule=_three_step(0.5), gamma=0.5, n_atoms=3,
                             v_min=0.0, v_max=2.0, alpha=0.5, beta_init=1.0, beta_steps=0)
    # an n-step batch: r = 0.25 with discount γ^k = 0.25 -> Tz = 0.25 + 0.25 [0, 1, 2]
    # = [0.25, 0.5, 0.75] from a* = 0's p = [0.2, 0.5, 0.3]: atom 0 gives 0.75·0.2 to 0 and
    # 0.25·0.2 to 1, atom 1 halves 0.5, atom 2 gives 0.25·0.3 to 0 and 0.75·0.3 to 1
    # -> m = [0.15 + 0.25 + 0.075, 0.05 + 0.25 + 0.225, 0] = [0.475, 0.525, 0]
    batch = make_batch([[0.0]] * 2, [1, 1], [0.25, 0.25], [[0.0]] * 2, discount=[0.25, 0.25],
                       priorities=[0.1, 0.4])
    target = c51_target(learner, batch)
    torch.testing.assert_close(target, torch.tensor([[0.475, 0.525, 0.0]] * 2))
    ce = -(target[0] * torch.log(torch.tensor([0.6, 0.3, 0.1]))).sum()
    priorities = update(learner, batch)
    torch.testing.assert_close(priorities, torch.full((2,), (ce.item() + 1e-6) ** 0.5))
    # weights (β = 1): 1 and 0.25 -> loss = ce · (1 + 0.25) / 2
    assert learner.loss_value.item() == pytest.approx(ce.item() * 0.625, rel=1e-5)


def test_noisy_network_is_deterministic_in_test_mode_only():
    net = DistributionalNetwork(4, 2, hidden=(16,), n_atoms=5, dueling=True, noisy=True,
                                seed=0)
    learner = RainbowLearner(adam_target(net), n_atoms=5)
    env = FixedStateEnv(torch.ones(4))
    assert not torch.equal(learner(env), learner(env))
    with testmode(learner):
        torch.testing.assert_close(learner(env), learner(env))


def test_loss_decreases_on_a_fixed_batch():
    net = DistributionalNetwork(4, 2, hidden=(32,), n_atoms=11, dueling=True, noisy=True,
                                seed=0)
    learner = RainbowLearner(adam_target(net, 1e-2), n_atoms=11, gamma=0.9,
                             schedule=_three_step(0.9, 16, 16))
    batch = random_batch()
    update(learner, batch)
    first = learner.loss_value.item()
    for _ in range(50):
        update(learner, batch)
    assert learner.loss_value.item() < first - 0.2


def test_stage_rule_updates_priorities_and_target_waits_for_sync():
    net = DistributionalNetwork(4, 2, hidden=(32,), n_atoms=11, dueling=True, noisy=True,
                                seed=0)
    learner = RainbowLearner(adam_target(net, 1e-2, sync_every=3), n_atoms=11, gamma=0.9,
                             schedule=_three_step(0.9, 16, 16))
    t = filled_trajectory(100, cls=CircularArrayPSARTTrajectory)
    before = params(learner.approximator.target_model)
    for _ in range(2):   # optimiser steps 1 and 2
        update(learner, t, LineEnv(), PRE_ACT_STAGE)
    assert same(before, params(learner.approximator.target_model))
    assert np.any(np.asarray(t["priority"].gather(np.arange(100))) != 1.0)
    update(learner, t, LineEnv(), PRE_ACT_STAGE)   # step 3: synced
    assert same(params(net), params(learner.approximator.target_model))


def test_the_target_comes_from_the_target_network():
    model = FixedLogits([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])
    learner = RainbowLearner(sgd(model), schedule=_three_step(0.5), gamma=0.5, n_atoms=3,
                             v_min=0.0, v_max=2.0, alpha=0.5, beta_init=1.0, beta_steps=0)
    # online only: a* would be 0 with p = [0.1, 0.1, 0.8]; action 1 predicts [0.3, 0.3, 0.4]
    model.logits.data = torch.log(torch.tensor([[0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]))
    batch = make_batch([[0.0]] * 2, [1, 1], [0.25, 0.25], [[0.0]] * 2, discount=[0.25, 0.25],
                       priorities=[0.1, 0.4])
    target = c51_target(learner, batch)  # as in test_one_update_by_hand, from the target net
    torch.testing.assert_close(target, torch.tensor([[0.475, 0.525, 0.0]] * 2))
    ce = -(target[0] * torch.log(torch.tensor([0.3, 0.3, 0.4]))).sum()
    update(learner, batch)
    assert learner.loss_value.item() == pytest.approx(ce.item() * 0.625, rel=1e-5)


def test_the_target_networks_noisy_layers_draw_noise_of_their_own():
    from rlzoo.dqns.networks import NoisyLinear, target_noise_seed

    def learner():
        net = DistributionalNetwork(4, 2, hidden=(8,), n_atoms=5, dueling=True, noisy=True,
                                    seed=0)
        return RainbowLearner(adam_target(net), n_atoms=5)

    def noisy(model):
        return [m for m in model.modules() if isinstance(m, NoisyLinear)]

    a, b = learner(), learner()
    online, target = noisy(a.approximator.model), noisy(a.approximator.target_model)
    assert len(online) == len(target) == 2
    for o, t in zip(online, target):
        assert t.seed == target_noise_seed(o.seed) != o.seed
        assert not torch.equal(o._noise(5), t._noise(5))  # independent ε and ε'
    # reproducible: the same seeds give the same target noise
    for t1, t2 in zip(target, noisy(b.approximator.target_model)):
        assert t1.seed == t2.seed
    x = torch.ones(3, 4)
    torch.testing.assert_close(b.approximator.target(x), learner().approximator.target(x))
    # a sync copies the parameters and leaves the target's own noise stream
    seeds = [t.seed for t in target]
    a.approximator.sync()
    assert [t.seed for t in target] == seeds


def test_the_default_schedule_takes_three_step_returns_with_gamma_099():
    from rlcore import BatchSampler

    net = DistributionalNetwork(4, 2, n_atoms=5, dueling=True, noisy=True, seed=0)
    sampler = RainbowLearner(adam_target(net), n_atoms=5).schedule.sampler
    assert type(sampler) is NStepBatchSampler
    assert (sampler.n, sampler.gamma, sampler.batch_size) == (3, 0.99, 32)
    one_step = ReplaySchedule(sampler=BatchSampler(32, seed=0))
    assert RainbowLearner(adam_target(net), n_atoms=5, gamma=0.9,
                          schedule=one_step).schedule is one_step
    # another γ needs a schedule whose n-step sampler discounts with it
    with pytest.raises(ValueError, match=r"RainbowLearner: the sampler's gamma \(0.99\) must "
                                         r"equal the learner's gamma \(0.9\)"):
        RainbowLearner(adam_target(net), n_atoms=5, gamma=0.9)
    assert RainbowLearner(adam_target(net), n_atoms=5, gamma=0.9,
                          schedule=_three_step(0.9)).schedule.sampler.gamma == 0.9


def test_evolving_with_a_new_gamma_needs_a_schedule_that_discounts_with_it():
    import attrs

    net = DistributionalNetwork(4, 2, n_atoms=5, seed=0)
    learner = RainbowLearner(adam_target(net), n_atoms=5)
    with pytest.raises(ValueError, match=r"sampler's gamma \(0.99\) must equal the learner's "
                                         r"gamma \(0.9\)"):
        attrs.evolve(learner, gamma=0.9)
    assert attrs.evolve(learner, gamma=0.9,
                        schedule=_three_step(0.9)).schedule.sampler.gamma == 0.9

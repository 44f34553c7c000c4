"""IQNLearner: the sampled-quantile target of one update by hand; invariants."""

import pytest
import torch

from rlcore import PRE_ACT_STAGE, update
from rlcore.utils.random import torch_generator
from rlzoo.dqns import ImplicitQuantileNetwork, IQNLearner
from rlzoo.dqns.losses import quantile_huber_loss
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    FixedStateEnv, adam_target, filled_trajectory, make_batch, params, random_batch, same,
    schedule, sgd,
)


class TauQuantiles(torch.nn.Module):
    """Z_τ(s, a) = scale_a · τ: a quantile function we can evaluate by hand."""

    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 4.0]))

    def forward(self, x, taus):
        return taus.unsqueeze(-1) * self.scale                          # (B, N, A)


def test_one_update_by_hand():
    model = TauQuantiles()
    learner = IQNLearner(sgd(model), gamma=0.5, n_tau=3,
        n_tau_prime=4, seed=7)
    batch = make_batch([[0.0]], [0], [1.0], [[0.0]])
    # replay the learner's draws: τ (1, 3) for the online net, then τ' (1, 4) for the target
    g = torch_generator(7, "cpu")
    taus, taus_prime = torch.rand(1, 3, generator=g), torch.rand(1, 4, generator=g)
    # a* = 1 (scale 4 > 1); target r + γ Z'_τ'(s', 1) = 1 + 0.5 · 4 τ'
    expected = quantile_huber_loss(taus * 1.0, 1.0 + 0.5 * 4.0 * taus_prime, taus)
    assert update(learner, batch).item() == pytest.approx(expected.item(), rel=1e-6)


def test_acting_averages_sampled_quantiles_and_is_reproducible():
    net = ImplicitQuantileNetwork(4, 2, hidden=(16,), n_cos=8, seed=0)
    q1 = IQNLearner(adam_target(net), n_tau_act=8, seed=3)(FixedStateEnv(torch.ones(4)))
    q2 = IQNLearner(adam_target(net), n_tau_act=8, seed=3)(FixedStateEnv(torch.ones(4)))
    assert q1.shape == (2,)
    torch.testing.assert_close(q1, q2)


def test_loss_decreases_on_a_fixed_batch():
    net = ImplicitQuantileNetwork(4, 2, hidden=(32,), n_cos=16, head_hidden=32, seed=0)
    learner = IQNLearner(adam_target(net, 1e-2), n_tau=8, n_tau_prime=8, gamma=0.5)
    batch = random_batch()
    first = sum(update(learner, batch).item() for _ in range(5))
    for _ in range(60):
        update(learner, batch)
    last = sum(update(learner, batch).item() for _ in range(5))
    assert last < 0.7 * first


def test_target_waits_for_its_sync():
    net = ImplicitQuantileNetwork(4, 2, hidden=(32,), n_cos=16, head_hidden=32, seed=0)
    learner = IQNLearner(adam_target(net, 1e-2, sync_every=3), n_tau=8, n_tau_prime=8,
                         gamma=0.5, schedule=schedule(16))
    before = params(learner.approximator.target_model)
    t = filled_trajectory(100)
    for _ in range(2):   # optimiser steps 1 and 2
        update(learner, t, LineEnv(), PRE_ACT_STAGE)
    assert same(before, params(learner.approximator.target_model))
    update(learner, t, LineEnv(), PRE_ACT_STAGE)   # step 3: synced
    assert same(params(net), params(learner.approximator.target_model))


def test_training_is_bit_identical_with_and_without_an_epsilon_evaluation():
    # acting and evaluating draw τ from generators of their own, never the update generator
    from rlcore import EvaluateEveryNStep, StopAfterStep, TotalRewardPerEpisode, run
    from rlzoo.experiments import registry
    from rlzoo.experiments.common import find_hook

    def train(with_evaluation):
        experiment = registry.make(
            "IQN_CartPole", 0, steps=300, batch_size=16, hidden=16, n_tau=8, n_tau_prime=8,
            n_tau_act=8, n_cos=8, min_replay_history=64, target_update_freq=50,
            epsilon_decay_steps=300, eval_every=10**6)
        hook = TotalRewardPerEpisode()
        evaluation = None
        if with_evaluation:
            eval_env = find_hook(experiment.hook, EvaluateEveryNStep).env
            evaluation = EvaluateEveryNStep(eval_env, n=150, n_steps=40, epsilon=0.5, seed=1)
            hook = hook + evaluation
        run(experiment.policy, experiment.env, StopAfterStep(300), hook)
        return experiment.policy, evaluation

    (a, evaluation), (b, _) = train(True), train(False)
    assert evaluation.steps == [150, 300] and min(evaluation.episodes) >= 1
    learner_a, learner_b = a.policy.learner, b.policy.learner
    assert learner_a.schedule.env_steps == learner_b.schedule.env_steps == 300
    for p, q in zip(learner_a.approximator.model.parameters(),
                    learner_b.approximator.model.parameters(), strict=True):
        assert torch.equal(p, q)
    assert a.trajectory["action"][:].tolist() == b.trajectory["action"][:].tolist()
    for name in ("generator", "acting_generator"):
        assert torch.equal(getattr(learner_a, name).get_state(),
                           getattr(learner_b, name).get_state())
    # the evaluation drew from the evaluation generator only
    assert not torch.equal(learner_a.evaluation_generator.get_state(),
                           learner_b.evaluation_generator.get_state())


def test_seed_is_validated():
    net = ImplicitQuantileNetwork(4, 2, hidden=(8,), n_cos=4, seed=0)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match=f"seed must be an integer >= 0, got {bad!r}"):
            IQNLearner(adam_target(net), seed=bad)


def test_the_target_comes_from_the_target_network():
    model = TauQuantiles()
    learner = IQNLearner(sgd(model), gamma=0.5, n_tau=3,
        n_tau_prime=4, seed=7)
    model.scale.data = torch.tensor([2.0, 0.5])  # online only: from it a* would be 0
    batch = make_batch([[0.0]], [0], [1.0], [[0.0]])
    g = torch_generator(7, "cpu")
    taus, taus_prime = torch.rand(1, 3, generator=g), torch.rand(1, 4, generator=g)
    # a* = 1 under the target's scales [1, 4]; the prediction is the online action 0: 2 τ
    expected = quantile_huber_loss(taus * 2.0, 1.0 + 0.5 * 4.0 * taus_prime, taus)
    assert update(learner, batch).item() == pytest.approx(expected.item(), rel=1e-6)


class CentredQuantiles(torch.nn.Module):
    """Z_τ(s, 0) = 0 and Z_τ(s, 1) = τ − 1/2: the greedy action depends on which τ average."""

    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([0.0, 1.0]))

    def forward(self, x, taus):
        return (taus.unsqueeze(-1) - 0.5) * self.scale                  # (B, N, A)


def test_the_next_action_is_chosen_with_fractions_of_its_own():
    # Dabney et al. (2018), Algorithm 1: a* = argmax_a mean_k Z'_τ̃k(s', a) over K = n_tau_act
    # fractions drawn after τ and τ', not over the τ' that then evaluate a*
    for seed in range(100):
        g = torch_generator(seed, "cpu")
        taus, taus_prime = torch.rand(1, 2, generator=g), torch.rand(1, 3, generator=g)
        taus_select = torch.rand(1, 5, generator=g)
        chosen = int(taus_select.mean() > 0.5)
        if chosen != int(taus_prime.mean() > 0.5):  # the two rules disagree at this seed
            break
    assert chosen != int(taus_prime.mean() > 0.5), "no seed below 100 tells the rules apart"
    model = CentredQuantiles()
    learner = IQNLearner(sgd(model), gamma=0.5, n_tau=2,
        n_tau_prime=3, n_tau_act=5, seed=seed)
    batch = make_batch([[0.0]], [1], [1.0], [[0.0]])
    next_value = (taus_prime - 0.5) if chosen == 1 else torch.zeros(1, 3)
    expected = quantile_huber_loss(taus - 0.5, 1.0 + 0.5 * next_value, taus)
    assert update(learner, batch).item() == pytest.approx(expected.item(), rel=1e-6)


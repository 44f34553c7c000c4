"""TRPOLearner: conjugate gradient, the Fisher-vector product and the trust-region step against
hand-computed values, the line search, the critic's separate optimiser, and the seeded
TRPO_CartPole learning test."""

import math

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

from rlcore import EvaluateEveryNStep, NeuralNetworkApproximator, RolloutSchedule, run, update
from rlcore.logger import scalars
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.policy_gradient import (
    ActorCritic, CategoricalActor, GaussianActor, TanhGaussianActor, ValueCritic,
)
from rlzoo.policy_gradient.distributions import Categorical, DiagGaussian
from rlzoo.policy_gradient.trpo import (
    TRPOLearner, conjugate_gradient, fisher_vector_product, line_search, mean_kl,
    policy_objective, policy_step,
)


class OneWeightActor(nn.Module):
    """Logits ``[θ x, 0]`` for a scalar state ``x``: ``π(0 | x) = σ(θ x)``."""

    def __init__(self, theta=0.0):
        super().__init__()
        self.theta = nn.Parameter(torch.tensor(float(theta)))

    def forward(self, x, mask=None):
        return Categorical(torch.cat((self.theta * x, torch.zeros_like(x)), dim=-1))


class OneWeightGaussian(nn.Module):
    """Mean ``θ x`` and a learned ``log σ`` for a scalar state ``x`` and a scalar action."""

    def __init__(self):
        super().__init__()
        self.theta = nn.Parameter(torch.tensor(0.5))
        self.log_std = nn.Parameter(torch.zeros(1))

    def forward(self, x, mask=None):
        return DiagGaussian(self.theta * x, self.log_std)


def _learner(actor, n_in=1, **kwargs):
    critic = ValueCritic(n_in, hidden=(8,), seed=1)
    model = ActorCritic(actor, critic)
    app = NeuralNetworkApproximator(model, torch.optim.Adam(critic.parameters(), lr=1e-2))
    return TRPOLearner(app, **kwargs)


X = torch.tensor([[1.0], [2.0]])  # two scalar states


def _one_weight_samples():
    # θ_old = 0: π(0 | x) = 1/2 in both states; both took action 0 with advantage 1
    return {"state": X, "action": torch.tensor([0, 0]),
            "log_prob": torch.full((2,), math.log(0.5)), "advantage": torch.ones(2)}


def test_conjugate_gradient_solves_a_2x2_spd_system():
    a = torch.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=torch.float64)
    b = torch.tensor([1.0, 2.0], dtype=torch.float64)
    x = conjugate_gradient(lambda v: a @ v, b, iters=10)
    # A⁻¹ = [[3, −1], [−1, 4]] / 11 -> x = [3 − 2, −1 + 8] / 11
    np.testing.assert_allclose(x.numpy(), [1 / 11, 7 / 11], atol=1e-12)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.numpy(), b.numpy()), atol=1e-12)
    # one iteration is the steepest-descent step: Ab = [6, 7], x = (bᵀb / bᵀAb) b = 5/20 · b
    one = conjugate_gradient(lambda v: a @ v, b, iters=1)
    np.testing.assert_allclose(one.numpy(), [0.25, 0.5], atol=1e-12)


def test_fisher_vector_product_of_a_one_weight_categorical_policy():
    actor = OneWeightActor(math.log(3))
    with torch.no_grad():
        old = actor(X)
    kl = mean_kl(old, actor(X))
    assert kl.item() == pytest.approx(0.0, abs=1e-7)
    # F = mean_x E_a[(∂ log π(a | x) / ∂θ)²] = mean_x x² p (1 − p), p = σ(θ x):
    # x = 1: p = 3/4 -> 3/16; x = 2: p = 9/10 -> 4 · 9/100 = 0.36; F = (0.1875 + 0.36) / 2
    fvp = fisher_vector_product(kl, [actor.theta], damping=0.0)
    assert fvp(torch.tensor([1.0])).item() == pytest.approx(0.27375, rel=1e-5)
    # damping 0.1, v = 2: (0.27375 + 0.1) · 2
    fvp = fisher_vector_product(kl, [actor.theta], damping=0.1)
    assert fvp(torch.tensor([2.0])).item() == pytest.approx(0.7475, rel=1e-5)


def test_fisher_vector_product_of_a_gaussian_policy():
    actor = OneWeightGaussian()
    with torch.no_grad():
        old = actor(X)
    kl = mean_kl(old, actor(X))
    # mean θ x, σ = 1: F_θθ = mean x² / σ² = (1 + 4) / 2 = 2.5; F_(log σ)(log σ) = 2; no cross
    # term -> F [1, 1] = [2.5, 2]
    fvp = fisher_vector_product(kl, [actor.theta, actor.log_std], damping=0.0)
    np.testing.assert_allclose(fvp(torch.ones(2)).numpy(), [2.5, 2.0], rtol=1e-5)


def test_policy_step_of_a_one_weight_policy_by_hand():
    learner = _learner(OneWeightActor(0.0), max_kl=0.01, cg_damping=0.0,
                       normalize_advantages=False)
    policy_step(learner, _one_weight_samples())
    # g = mean_x A x (1 − p) = mean(0.5, 1) = 0.75; F = mean x² / 4 = 0.625; s = g / F = 1.2;
    # β s = √(2 δ / sᵀFs) s = √(0.02 / 0.9) · 1.2 = √0.032 = 0.178885
    theta = learner.approximator.model.actor.theta.item()
    assert theta == pytest.approx(math.sqrt(0.032), rel=1e-5)
    # the real KL of the full step, mean_x KL(Bernoulli(1/2) ‖ Bernoulli(σ(θ x))), is
    # 0.0099550 ≤ δ: accepted at the first try; L = mean 2 σ(θ x) = (1.089206 + 1.177006) / 2
    assert learner.line_search_steps_taken == 1
    assert learner.kl == pytest.approx(0.0099550, rel=1e-4)
    assert learner.surrogate_improvement == pytest.approx(0.133106, rel=1e-4)


def test_line_search_backtracks_until_the_kl_constraint_holds():
    actor = OneWeightActor(0.0)
    samples = _one_weight_samples()
    with torch.no_grad():
        old = actor(samples["state"])

    def objective():
        return policy_objective(actor, samples, old, samples["advantage"])

    # three times the natural step: θ = 3 · 0.8ⁱ · 0.178885 has KL 0.0866, 0.0562, 0.0363,
    # 0.0233, 0.0150 (> 0.01) for i = 0..4 and 0.0096217 at i = 5 (θ = 0.175852): 6 tries
    full_step = torch.tensor([3 * math.sqrt(0.032)])
    taken, surrogate, kl = line_search(objective, [actor.theta], full_step, 1.0, 0.01, 10, 0.8)
    assert taken == 6
    assert actor.theta.item() == pytest.approx(3 * 0.8 ** 5 * math.sqrt(0.032), rel=1e-6)
    assert kl == pytest.approx(0.0096217, rel=1e-4)
    assert surrogate == pytest.approx(1.130880, rel=1e-5)


def test_line_search_rejects_a_step_that_worsens_the_surrogate():
    actor = OneWeightActor(0.3)
    samples = _one_weight_samples()
    samples["log_prob"] = actor(X).log_prob(samples["action"]).detach()
    with torch.no_grad():
        old = actor(samples["state"])
    before = actor.theta.detach().clone()

    def objective():
        return policy_objective(actor, samples, old, samples["advantage"])

    # A > 0 for action 0, whose probability σ(θ x) falls as θ falls: every backtracked step
    # of a negative full step lowers L below L(θ_old) = mean A = 1, tiny KL or not
    taken, surrogate, kl = line_search(objective, [actor.theta], torch.tensor([-0.1]), 1.0,
                                       0.01, 10, 0.8)
    assert (taken, surrogate, kl) == (0, 1.0, 0.0)
    assert torch.equal(actor.theta.detach(), before)


@pytest.mark.parametrize("kind", ["categorical", "gaussian"])
def test_the_step_satisfies_the_kl_constraint(kind):
    generator = torch.Generator().manual_seed(0)
    states = torch.randn(256, 4, generator=generator)
    if kind == "categorical":
        actor = CategoricalActor(4, 3, hidden=(16,), seed=0)
        actions = torch.randint(0, 3, (256,), generator=generator)
    else:
        actor = GaussianActor(4, 2, hidden=(16,), seed=0)
        actions = torch.randn(256, 2, generator=generator)
    learner = _learner(actor, n_in=4, max_kl=0.01)
    with torch.no_grad():
        old = actor(states)
    before = parameters_to_vector(actor.parameters()).detach().clone()
    samples = {"state": states, "action": actions, "log_prob": old.log_prob(actions),
               "advantage": torch.randn(256, generator=generator)}
    policy_step(learner, samples)
    with torch.no_grad():
        kl = mean_kl(old, actor(states)).item()
    assert learner.line_search_steps_taken >= 1
    assert 0 < kl <= 0.01 * (1 + 1e-5)
    assert learner.kl == pytest.approx(kl, rel=1e-5)
    assert learner.surrogate_improvement > 0
    # the full step Δ = βs has ½ Δᵀ(F + cI)Δ = ½ β² sᵀ(F + cI)s = δ exactly (c the damping),
    # and for a small δ its real KL is its undamped quadratic model ½ ΔᵀFΔ (Taylor at θ_old)
    vector_to_parameters(before, actor.parameters())
    small = _learner(actor, n_in=4, max_kl=1e-4, cg_damping=0.1, line_search_steps=1)
    policy_step(small, samples)
    assert small.line_search_steps_taken == 1
    step = parameters_to_vector(actor.parameters()).detach() - before
    vector_to_parameters(before, actor.parameters())
    fisher = fisher_vector_product(mean_kl(old, actor(states)), list(actor.parameters()), 0.0)
    quadratic = 0.5 * (step @ fisher(step)).item()
    assert quadratic + 0.5 * 0.1 * (step @ step).item() == pytest.approx(1e-4, rel=1e-3)
    assert small.kl == pytest.approx(quadratic, rel=0.05)


def _rollout(steps=16, n=2, seed=0):
    rng = np.random.default_rng(seed)
    terminal = np.zeros((steps, n), bool)
    terminal[7, 0] = True
    return {"state": rng.standard_normal((steps, n, 4)).astype(np.float32),
            "action": rng.integers(0, 2, (steps, n)),
            "reward": rng.standard_normal((steps, n)).astype(np.float32),
            "terminal": terminal, "truncated": np.zeros((steps, n), bool),
            "next_state": rng.standard_normal((steps, n, 4)).astype(np.float32)}


def test_update_steps_the_actor_within_the_trust_region_and_fits_the_critic():
    model = ActorCritic(CategoricalActor(4, 2, hidden=(16,), seed=0),
                        ValueCritic(4, hidden=(16,), seed=1))
    app = NeuralNetworkApproximator(model, torch.optim.Adam(model.critic.parameters(), lr=1e-2))
    learner = TRPOLearner(app, schedule=RolloutSchedule(16), value_epochs=3,
                          value_minibatches=2)
    rollout = _rollout()
    states = torch.as_tensor(rollout["state"]).flatten(0, 1)
    with torch.no_grad():
        old = model(states)
    actor_before = parameters_to_vector(model.actor.parameters()).detach().clone()
    critic_before = parameters_to_vector(model.critic.parameters()).detach().clone()
    update(learner, rollout)
    with torch.no_grad():
        assert 0 < mean_kl(old, model(states)).item() <= learner.max_kl * (1 + 1e-5)
    assert not torch.equal(parameters_to_vector(model.actor.parameters()), actor_before)
    assert not torch.equal(parameters_to_vector(model.critic.parameters()), critic_before)
    # 3 epochs of 2 minibatches: 6 Adam steps, on the critic's parameters only
    critic_weight = next(model.critic.parameters())
    assert int(app.optimizer.state[critic_weight]["step"]) == 6
    assert all(p not in app.optimizer.state for p in model.actor.parameters())
    logged = scalars(learner)
    assert set(logged) >= {"train/kl", "train/surrogate_improvement",
                           "train/line_search_steps_taken", "train/value_loss"}
    assert logged["train/kl"] == pytest.approx(learner.kl)


def test_validation_names_the_value():
    model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    everything = NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters()))
    with pytest.raises(ValueError, match=r"holds 4610 numbers of the policy's parameters"):
        TRPOLearner(everything)  # the actor's 4·64 + 64 + 64·64 + 64 + 64·2 + 2 = 4610
    critic_only = NeuralNetworkApproximator(model, torch.optim.Adam(model.critic.parameters()))
    with pytest.raises(ValueError, match="max_kl"):
        TRPOLearner(critic_only, max_kl=0.0)
    with pytest.raises(ValueError, match="backtrack_coef"):
        TRPOLearner(critic_only, backtrack_coef=1.0)
    net = nn.Linear(4, 2)
    with pytest.raises(TypeError, match="needs an ActorCritic model"):
        TRPOLearner(NeuralNetworkApproximator(net, torch.optim.Adam(net.parameters())))
    tanh = TanhGaussianActor(1, [-1.0], [1.0], hidden=(4,), seed=0)
    with torch.no_grad():
        dist = tanh(X)
    with pytest.raises(TypeError, match="a Categorical or a DiagGaussian policy, got "
                                        "TanhGaussian"):
        mean_kl(dist, dist)


def test_trpo_cartpole_same_seed_same_run(one_thread):
    def returns(seed):
        hook = run(registry.make("TRPO_CartPole", seed=seed, steps=1024, n_steps=128,
                                 eval_every=512, eval_episodes=2))
        return find_hook(hook, EvaluateEveryNStep).returns

    assert returns(3) == returns(3)
    assert returns(3) != returns(4)
    assert registry.parameters("TRPO_CartPole")["device"] == "cpu"


@pytest.mark.slow
def test_trpo_cartpole_reaches_475(one_thread):
    experiment = registry.make("TRPO_CartPole", seed=0, stop_at=475)
    assert registry.parameters("TRPO_CartPole")["steps"] <= 100_000
    hook = run(experiment)
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.n_episodes == 10
    assert evaluation.t <= 100_000
    assert max(evaluation.returns) >= 475, (evaluation.steps, evaluation.returns)

"""A2CGAELearner: GAE(λ) advantages, the loss and one SGD step by hand; λ = 1 is A2C's update,
λ = 0 the one-step TD error; one optimiser step per rollout with one env and a vector env;
learning on CartPole."""

import math

import numpy as np
import pytest
import torch

from rlcore import EvaluateEveryNStep, NeuralNetworkApproximator, run, update
from rlcore.trajectories import Batch
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.policy_gradient import ActorCritic, CategoricalActor, ValueCritic
from rlzoo.policy_gradient.a2c import A2CLearner
from rlzoo.policy_gradient.a2c_gae import A2CGAELearner
from rlzoo.policy_gradient.rollout import rollout_advantages
from tests.rlzoo.policy_gradient.test_a2c import two_steps
from tests.rlzoo.policy_gradient.test_vpg import StateValue, UniformActor

LOG2 = math.log(2)


def tiny_learner(**kwargs):
    model = ActorCritic(UniformActor(), StateValue())
    kwargs.setdefault("gamma", 0.5)
    return A2CGAELearner(NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(),
                                                                          lr=0.1)), **kwargs)


def test_one_update_by_hand():
    learner = tiny_learner(lam=0.5, value_coef=0.5)
    update(learner, two_steps())
    # V = [1, 2], V(s') = [2, 10]: δ₀ = 1 + 0.5 · 2 − 1 = 1, δ₁ = 1 + 0.5 · 10 − 2 = 4;
    # A₁ = 4, A₀ = 1 + 0.5 · 0.5 · 4 = 2; R = A + V = [3, 6]
    # policy loss −mean(log ½ · A) = 3 log 2; value loss ½ mean(2², 4²) = 5
    assert learner.policy_loss.item() == pytest.approx(3 * LOG2)
    assert learner.value_loss.item() == pytest.approx(5.0)
    model = learner.approximator.model
    # d/dw: 0.5 · mean((V − R) · s) = 0.5 · ((1 − 3) · 1 + (2 − 6) · 2) / 2 = −2.5; lr 0.1
    assert model.critic.w.item() == pytest.approx(1.25)
    # −A (onehot(a) − π): step 0 −2 (½, −½), step 1 −4 (−½, ½); mean (0.5, −0.5); lr 0.1
    torch.testing.assert_close(model.actor.bias.detach(), torch.tensor([-0.05, 0.05]))


def test_lambda_zero_gives_the_td_errors():
    samples = rollout_advantages(tiny_learner(lam=0.0), two_steps(truncated=(True, False),
                                                                 next_states=(5.0, 10.0)))
    # δ₀ = 1 + 0.5 · V(5) − 1 = 2.5, δ₁ = 1 + 0.5 · 10 − 2 = 4
    torch.testing.assert_close(samples["advantage"], torch.tensor([2.5, 4.0]))


def _random_rollout(seed, steps=5, n=2):
    rng = np.random.default_rng(seed)
    terminal = rng.random((steps, n)) < 0.2
    return Batch(state=rng.normal(size=(steps, n, 4)).astype(np.float32),
                 action=rng.integers(2, size=(steps, n)),
                 reward=rng.normal(size=(steps, n)).astype(np.float32), terminal=terminal,
                 truncated=(rng.random((steps, n)) < 0.2) & ~terminal,
                 next_state=rng.normal(size=(steps, n, 4)).astype(np.float32))


def test_lambda_one_is_a2c():
    def learner(cls, **kwargs):
        model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
        return cls(NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters(),
                                                                     lr=1e-2)),
                   gamma=0.9, entropy_coef=0.01, **kwargs)

    gae_learner, a2c_learner = learner(A2CGAELearner, lam=1.0), learner(A2CLearner)
    for seed in range(3):
        update(gae_learner, _random_rollout(seed))
        update(a2c_learner, _random_rollout(seed))
    assert gae_learner.loss_value.item() == a2c_learner.loss_value.item()
    for a, b in zip(gae_learner.approximator.model.parameters(),
                    a2c_learner.approximator.model.parameters()):
        assert torch.equal(a, b)


@pytest.mark.parametrize("n_envs", [1, 4])
def test_one_optimiser_step_per_rollout(n_envs, one_thread):
    experiment = registry.make("A2CGAE_CartPole", 0, n_envs=n_envs, n_steps=5, steps=400,
                               eval_every=400, eval_episodes=1)
    run(experiment)
    learner = experiment.policy.policy.learner
    first = next(learner.approximator.model.parameters())
    assert int(learner.approximator.optimizer.state[first]["step"]) == 400 // (5 * n_envs)


def test_lam_is_validated():
    model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    app = NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters()))
    with pytest.raises(ValueError, match=r"lam must be a real number in \[0, 1\], got -0.1"):
        A2CGAELearner(app, lam=-0.1)


@pytest.mark.slow
@pytest.mark.parametrize("n_envs", [8, 1])
def test_a2c_gae_cartpole_reaches_475(n_envs, one_thread):
    assert registry.parameters("A2CGAE_CartPole")["steps"] <= 100_000
    hook = run(registry.make("A2CGAE_CartPole", seed=0, n_envs=n_envs, stop_at=475))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.n_episodes == 10 and evaluation.t <= 100_000
    assert max(evaluation.returns) >= 475, (n_envs, evaluation.steps, evaluation.returns)

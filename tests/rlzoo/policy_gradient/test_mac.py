"""MACLearner: the critic's λ-return targets, the actor's loss over all actions and one SGD step
of each by hand; the truncation bootstrap; one actor and one critic step per rollout with one
env and a vector env; the checks before the first step; learning on CartPole."""

import math

import pytest
import torch

from rlcore import (
    EnvMismatchError, EvaluateEveryNStep, NeuralNetworkApproximator, RolloutSchedule, run,
    update,
)
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.inputs import batch_on
from rlzoo.policy_gradient import QValues
from rlzoo.policy_gradient.mac import MACLearner, mac_targets
from tests.rlzoo.policy_gradient.test_a2c import two_steps
from tests.rlzoo.policy_gradient.test_vpg import UniformActor

LOG2 = math.log(2)


class LinearQ(torch.nn.Module):
    """Q(s, ·) = s[0] · [w₀, w₁] with w = [1, 2]."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

    def forward(self, x):
        return x[:, :1] * self.w


def sgd(model):
    return NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(), lr=0.1))


def tiny_learner(**kwargs):
    kwargs.setdefault("gamma", 0.5)
    return MACLearner(sgd(UniformActor()), sgd(LinearQ()), **kwargs)


def targets(learner, rollout):
    batch = batch_on(rollout, learner.critic.device)
    states = batch["state"].flatten(0, 1)
    return mac_targets(learner, batch, learner.actor(states), learner.critic(states))


def test_one_update_by_hand():
    learner = tiny_learner(entropy_coef=0.1)
    update(learner, two_steps())
    # π = ½, Q(s) = [s, 2 s], V(s) = Σ π Q = 1.5 s. R₁ = 1 + 0.5 · V(10) = 8.5,
    # R₀ = 1 + 0.5 · 8.5 = 5.25; the actions taken: Q(1, 0) = 1, Q(2, 1) = 4
    # critic loss ½ mean((5.25 − 1)², (8.5 − 4)²) = ½ (18.0625 + 20.25) / 2 = 9.578125
    assert learner.value_loss.item() == pytest.approx(9.578125)
    # policy loss −mean Σ_a π Q = −mean(V(1), V(2)) = −mean(1.5, 3) = −2.25
    assert learner.policy_loss.item() == pytest.approx(-2.25)
    assert learner.entropy.item() == pytest.approx(LOG2)
    assert learner.loss_value.item() == pytest.approx(-2.25 - 0.1 * LOG2 + 9.578125)
    # critic: d/dw₀ = mean((Q − R) s [a = 0]) = (1 − 5.25) · 1 / 2 = −2.125,
    # d/dw₁ = (4 − 8.5) · 2 / 2 = −4.5; SGD lr 0.1 -> w = [1.2125, 2.45]
    torch.testing.assert_close(learner.critic.model.w.detach(), torch.tensor([1.2125, 2.45]))
    # actor: d(−Σ_a π_a Q_a)/d bias = −π ⊙ (Q − V): state 1 −½ (−0.5, 0.5), state 2
    # −½ (−1, 1); mean (0.375, −0.375); the entropy's gradient is 0 at π = ½; SGD lr 0.1
    torch.testing.assert_close(learner.actor.model.bias.detach(),
                               torch.tensor([-0.0375, 0.0375]))


def test_lambda_zero_gives_one_step_expected_sarsa_targets():
    # R = r + γ Σ_a π(a | s') Q(s', a) = 1 + 0.5 · 1.5 s'
    torch.testing.assert_close(targets(tiny_learner(lam=0.0), two_steps()),
                               torch.tensor([2.5, 8.5]))


def test_episode_boundaries_and_the_truncation_bootstrap():
    learner = tiny_learner()
    # step 0 truncated, true final state 5: R₀ = 1 + 0.5 · V(5) = 1 + 0.5 · 7.5 = 4.75
    torch.testing.assert_close(
        targets(learner, two_steps(truncated=(True, False), next_states=(5.0, 10.0))),
        torch.tensor([4.75, 8.5]))
    # step 0 terminal: R₀ = 1
    torch.testing.assert_close(
        targets(learner, two_steps(terminal=(True, False), next_states=(5.0, 10.0))),
        torch.tensor([1.0, 8.5]))


def _steps(approximator):
    first = next(approximator.model.parameters())
    return int(approximator.optimizer.state[first]["step"])


@pytest.mark.parametrize("n_envs", [1, 4])
def test_one_actor_and_one_critic_step_per_rollout(n_envs, one_thread):
    experiment = registry.make("MAC_CartPole", 0, n_envs=n_envs, n_steps=5, steps=400,
                               eval_every=400, eval_episodes=1)
    run(experiment)
    learner = experiment.policy.policy.learner
    rollouts = 400 // (5 * n_envs)
    assert _steps(learner.actor) == _steps(learner.critic) == rollouts
    assert learner.schedule.rollouts == rollouts


def test_the_env_is_checked_before_the_first_step():
    experiment = registry.make("MAC_CartPole", 0, n_envs=1)
    learner = experiment.policy.policy.learner
    critic = QValues(4, 3, seed=0)
    learner.critic = NeuralNetworkApproximator(critic, torch.optim.Adam(critic.parameters()))
    with pytest.raises(EnvMismatchError, match="n_actions=3"):
        run(experiment)
    with pytest.raises(TypeError, match="critic must be a NeuralNetworkApproximator"):
        MACLearner(learner.actor, critic, schedule=RolloutSchedule(5))


@pytest.mark.slow
@pytest.mark.parametrize("n_envs", [8, 1])
def test_mac_cartpole_reaches_475(n_envs, one_thread):
    assert registry.parameters("MAC_CartPole")["steps"] <= 100_000
    hook = run(registry.make("MAC_CartPole", seed=0, n_envs=n_envs, stop_at=475))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.n_episodes == 10 and evaluation.t <= 100_000
    assert max(evaluation.returns) >= 475, (n_envs, evaluation.steps, evaluation.returns)

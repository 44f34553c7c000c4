"""DiscreteSACLearner: the exact-expectation soft target, critic, actor and temperature steps by
hand for two actions; checks; GPU."""

import math

import numpy as np
import pytest
import torch

from rlcore import (
    PRE_EXPERIMENT_STAGE, CircularArraySARTTrajectory, DistributionExplorer, EnvMismatchError,
    EvaluateEveryNStep, NeuralNetworkApproximator, run, testmode, update,
)
from rlcore.logger import scalars
from rlcore.trajectories.samplers import Batch
from rlenvs import CartPoleEnv, PendulumEnv
from rlzoo.dqns.networks import target_network
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.policy_gradient import ActorPolicy, Categorical, CategoricalActor, QValues
from rlzoo.policy_gradient.discrete_sac import DiscreteSACLearner, discrete_sac_target

# π = softmax([0, ln 3]) = [0.25, 0.75]; H(π) = -(0.25 ln 0.25 + 0.75 ln 0.75) = 0.562335
H = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))


class _Logits(torch.nn.Module):
    """An actor with the same logits (a parameter) for every state."""

    def __init__(self, logits):
        super().__init__()
        self.logits = torch.nn.Parameter(torch.tensor(logits))

    def forward(self, x):
        return Categorical(self.logits.expand(x.shape[0], -1))


def _linear_values(weights, lr=0.1):
    """``Q(s) = s · weights`` for scalar states ``(batch, 1)``: ``(batch, n_actions)``."""
    model = torch.nn.Linear(1, len(weights), bias=False)
    with torch.no_grad():
        model.weight.copy_(torch.tensor(weights).unsqueeze(1))
    return target_network(NeuralNetworkApproximator(
        model, torch.optim.SGD(model.parameters(), lr=lr)))


def _learner(*, critic_lr=0.1, **kwargs):
    """Q1(s) = s [1, 2], Q2(s) = s [2, 1]; π = [0.25, 0.75]; γ = 0.9."""
    actor = _Logits([0.0, math.log(3.0)])
    kwargs.setdefault("gamma", 0.9)
    return DiscreteSACLearner(
        NeuralNetworkApproximator(actor, torch.optim.SGD(actor.parameters(), lr=0.1)),
        _linear_values([1.0, 2.0], critic_lr), _linear_values([2.0, 1.0], critic_lr), **kwargs)


def _batch(state, action, reward, next_state, terminal=None, truncated=None):
    n = len(reward)
    return Batch(state=torch.tensor(state).unsqueeze(1),
                 action=torch.tensor(action),
                 reward=torch.tensor(reward),
                 next_state=torch.tensor(next_state).unsqueeze(1),
                 terminal=torch.tensor(terminal or [False] * n),
                 truncated=torch.tensor(truncated or [False] * n))


def test_exact_expectation_target_by_hand_for_two_actions():
    learner = _learner(alpha=0.5)
    with torch.no_grad():  # the online critics change; the targets keep s [1, 2] and s [2, 1]
        learner.critic1.model.weight.fill_(9.0)
    batch = _batch([0.0] * 3, [0] * 3, [1.0] * 3, [2.0, 5.0, 1.0],
                   terminal=[False, True, False], truncated=[False, False, True])
    # row 0: s' = 2: min(Q1', Q2') = min([2, 4], [4, 2]) = [2, 2];
    #   Σ_a π(a) (2 - α log π(a)) = 2 + α H = 2.281168; y = 1 + 0.9 · 2.281168 = 3.053051
    # row 1: terminal: y = r = 1
    # row 2 (truncated: bootstraps): s' = 1: min([1, 2], [2, 1]) = [1, 1]; 1 + α H = 1.281168;
    #   y = 1 + 0.9 · 1.281168 = 2.153051
    expected = torch.tensor([1 + 0.9 * (2 + 0.5 * H), 1.0, 1 + 0.9 * (1 + 0.5 * H)])
    torch.testing.assert_close(discrete_sac_target(learner, batch), expected)
    assert expected.tolist() == pytest.approx([3.053051, 1.0, 2.153051], abs=1e-6)


def test_the_expectation_weighs_the_smaller_critic_by_the_probabilities():
    learner = _learner(alpha=0.0)
    batch = _batch([0.0], [0], [0.0], [-1.0])
    # s' = -1: Q1' = [-1, -2], Q2' = [-2, -1]: min = [-2, -2]; α = 0: y = 0.9 · (-2) = -1.8
    torch.testing.assert_close(discrete_sac_target(learner, batch), torch.tensor([-1.8]))
    batch = _batch([0.0], [0], [0.0], [3.0])
    # s' = 3: min([3, 6], [6, 3]) = [3, 3]: y = 0.9 · 3 = 2.7
    torch.testing.assert_close(discrete_sac_target(learner, batch), torch.tensor([2.7]))


def test_one_update_by_hand_critics_of_the_taken_action_then_actor():
    learner = _learner(alpha=0.5)
    update(learner, _batch([1.0], [1], [1.0], [2.0]))
    # y = 3.053051 (row 0 above). Only the taken action's output learns:
    # Q1(1, 1) = 2: gradient 2 (2 - 3.053051) = -2.106102; SGD 0.1 -> 2 + 0.210610
    # Q2(1, 1) = 1: gradient 2 (1 - 3.053051) = -4.106102 -> 1 + 0.410610
    torch.testing.assert_close(learner.critic1.model.weight, torch.tensor([[1.0], [2.210610]]))
    torch.testing.assert_close(learner.critic2.model.weight, torch.tensor([[2.0], [1.410610]]))
    # actor on s = 1 with the updated critics: min Q = [min(1, 2), min(2.210610, 1.410610)]
    #   = [1, 1.410610]; g = α log π - min Q = [-0.693147 - 1, -0.143841 - 1.410610]
    #   = [-1.693147, -1.554451]; loss f = Σ π g = 0.25 g0 + 0.75 g1 = -1.589125
    g = np.array([0.5 * math.log(0.25) - 1.0, 0.5 * math.log(0.75) - 1.410610])
    loss = 0.25 * g[0] + 0.75 * g[1]
    assert learner.actor_loss.item() == pytest.approx(loss, abs=1e-5)
    # ∂f/∂z_j = π_j (g_j - f): [0.25 (-0.104022), 0.75 (0.034674)] = [-0.026006, 0.026006];
    # SGD 0.1 -> z = [0.002601, ln 3 - 0.002601]
    gradient = np.array([0.25, 0.75]) * (g - loss)
    torch.testing.assert_close(learner.actor.model.logits,
                               torch.tensor([0.0, math.log(3.0)]) - 0.1 * torch.tensor(
                                   gradient, dtype=torch.float32))
    assert learner.entropy.item() == pytest.approx(H)


def test_a_flat_q_pulls_the_policy_towards_uniform():
    learner = _learner(alpha=0.5, critic_lr=0.0)
    update(learner, _batch([1.0], [0], [0.0], [1.0], terminal=[True]))
    # critics frozen: min Q(1) = [1, 1]; g = [α ln 0.25 - 1, α ln 0.75 - 1]; f = -1 - α H;
    # ∂f/∂z_0 = 0.25 (g0 - f) = 0.25 (-1.693147 + 1.281168) = -0.102995 < 0: z_0 rises
    assert learner.actor_loss.item() == pytest.approx(-1 - 0.5 * H)
    logits = learner.actor.model.logits.detach()
    assert logits[0].item() == pytest.approx(0.0102995, abs=1e-6)
    assert logits[1].item() == pytest.approx(math.log(3.0) - 0.0102995, abs=1e-6)


@pytest.mark.parametrize("scale, gradient", [(0.98, H - 0.98 * math.log(2)),
                                             (0.5, H - 0.5 * math.log(2))])
def test_alpha_rises_when_the_entropy_is_below_its_target(scale, gradient):
    # H̄ = scale · ln 2: 0.679291 (> H: dJ/d log α = α (H - H̄) = -0.116956, α rises) or
    # 0.346574 (< H: +0.215762, α falls); Adam's first step moves log α by lr = 0.01
    learner = _learner(target_entropy_scale=scale, alpha_lr=0.01)
    update(learner, _batch([0.0, 0.0], [0, 1], [0.0, 0.0], [0.0, 0.0]))
    assert learner.log_alpha.grad.item() == pytest.approx(gradient, abs=1e-6)
    assert learner.current_alpha == pytest.approx(math.exp(-0.01 * math.copysign(1, gradient)),
                                                  rel=1e-6)


def _networks(device="cpu", n_actions=2):
    def adam(model):
        return NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters(), lr=1e-3),
                                         device=device)
    return dict(actor=adam(CategoricalActor(4, n_actions, hidden=(16, 16), seed=0)),
                critic1=target_network(adam(QValues(4, 2, hidden=(16, 16), seed=1)), rho=0.99),
                critic2=target_network(adam(QValues(4, 2, hidden=(16, 16), seed=2)), rho=0.99))


def _random_batch(n=32, seed=0):
    rng = np.random.default_rng(seed)
    return Batch(state=torch.as_tensor(rng.normal(size=(n, 4)), dtype=torch.float32),
                 action=torch.as_tensor(rng.integers(2, size=n)),
                 reward=torch.as_tensor(rng.normal(size=n), dtype=torch.float32),
                 next_state=torch.as_tensor(rng.normal(size=(n, 4)), dtype=torch.float32),
                 terminal=torch.as_tensor(rng.random(n) < 0.1),
                 truncated=torch.as_tensor(rng.random(n) < 0.1))


def test_acting_samples_in_training_and_takes_the_mode_in_test_mode():
    learner = DiscreteSACLearner(**_networks())
    policy = ActorPolicy(learner, DistributionExplorer(seed=0))
    env = CartPoleEnv(seed=0)
    env.reset()
    assert {int(policy(env)) for _ in range(30)} == {0, 1}   # near-uniform initial policy
    with testmode(policy):
        assert int(policy(env)) == int(learner(env).mode()[0])


def test_scalars_name_the_losses_alpha_and_entropy():
    learner = DiscreteSACLearner(**_networks(), alpha=0.2)
    update(learner, _random_batch())
    values = scalars(learner)
    assert values["train/alpha"] == 0.2 and "train/alpha_loss" not in values
    assert {"train/critic_loss", "train/actor_loss", "train/entropy"} <= set(values)


def _check(learner, env):
    space = env.action_space()
    trajectory = CircularArraySARTTrajectory(
        10, state=(env.state_space().shape, np.float32),
        action=((), np.int64) if not space.shape else (space.shape, np.float32))
    update(learner, trajectory, env, PRE_EXPERIMENT_STAGE)


def test_the_env_is_checked_before_the_first_step():
    _check(DiscreteSACLearner(**_networks()), CartPoleEnv(seed=0))  # suits
    with pytest.raises(EnvMismatchError, match="chooses among a Discrete set of actions"):
        _check(DiscreteSACLearner(**_networks()), PendulumEnv(seed=0))
    with pytest.raises(EnvMismatchError, match="n_actions=3"):
        _check(DiscreteSACLearner(**_networks(n_actions=3)), CartPoleEnv(seed=0))


def test_hyper_parameters_are_validated():
    with pytest.raises(ValueError, match="target_entropy_scale"):
        DiscreteSACLearner(**_networks(), target_entropy_scale=1.5)
    with pytest.raises(ValueError, match="alpha must be"):
        DiscreteSACLearner(**_networks(), alpha=-1.0)


def _after_one_update(device):
    learner = DiscreteSACLearner(**_networks(device=device))
    update(learner, _random_batch().to(device))
    return [learner.critic_loss.cpu(), learner.actor_loss.cpu(), learner.alpha_loss.cpu()] + [
        p.detach().cpu() for model in (learner.actor.model, learner.critic1.model,
                                       learner.critic2.model, learner.critic1.target_model)
        for p in model.parameters()]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_one_update_on_gpu_matches_cpu():
    # nothing is drawn in a discrete SAC update: the same weights and batch give the same step
    for a, b in zip(_after_one_update("cuda"), _after_one_update("cpu"), strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


@pytest.mark.slow
def test_discrete_sac_cartpole_reaches_475(one_thread):
    assert registry.parameters("DiscreteSAC_CartPole")["steps"] <= 100_000
    hook = run(registry.make("DiscreteSAC_CartPole", seed=0, stop_at=475))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.n_episodes == 10 and evaluation.t <= 100_000
    assert max(evaluation.returns) >= 475, (evaluation.steps, evaluation.returns)

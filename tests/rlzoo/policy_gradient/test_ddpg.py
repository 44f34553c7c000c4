"""DDPGLearner: hand-computed critic target, critic and actor steps and Polyak averaging on tiny
linear networks; the environment checks; acting; the Pendulum experiment (learning test)."""

import math

import numpy as np
import pytest
import torch

from rlcore import (
    PRE_EXPERIMENT_STAGE, CircularArraySARTTrajectory, EnvMismatchError, EvaluateEveryNStep,
    GaussianNoiseExplorer, NeuralNetworkApproximator, TotalRewardPerEpisode, run, update,
)
from rlcore.logger import scalars
from rlcore.trajectories.samplers import Batch
from rlenvs import ClipActionEnv, PendulumEnv
from rlzoo.dqns.networks import target_network
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.experiments.pendulum import discrete_pendulum
from rlzoo.policy_gradient import ActorPolicy, DeterministicActor, QCritic
from rlzoo.policy_gradient.ddpg import DDPGLearner, ddpg_target

# The tiny networks: states s ∈ R², one action in [−2, 2]. The actor is one linear layer
# squashed into the bounds, μ(s) = −2 + (tanh(w·s + b) + 1) / 2 · 4 = 2 tanh(w·s + b); the
# critic one linear layer of [s, a], Q(s, a) = w·[s, a] + b. Plain SGD, lr 0.1.
LOW, HIGH = [-2.0], [2.0]
# a target actor of weight 0 and bias atanh(0.25): μ'(s') = 2 · 0.25 = 0.5 for every s'
HALF_ACTION_BIAS = math.atanh(0.25)
# a target critic Q'(s, a) = s₀ + 2 s₁ + 4 a
TARGET_CRITIC = [1.0, 2.0, 4.0]


def set_linear(module, weight, bias=0.0):
    """Set the one ``nn.Linear`` of ``module`` (a DeterministicActor, QCritic, or its copy)."""
    layer = next(m for m in module.modules() if isinstance(m, torch.nn.Linear))
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([weight], dtype=torch.float32))
        layer.bias.fill_(bias)
    return module


def linear_part(module):
    """``(weight, bias)`` of the one ``nn.Linear`` of ``module``, as lists."""
    layer = next(m for m in module.modules() if isinstance(m, torch.nn.Linear))
    return layer.weight.detach()[0].tolist(), layer.bias.detach().item()


def sgd_target(model, rho=0.0, sync_every=1, lr=0.1, device="cpu"):
    """``model`` with plain SGD on ``device`` in a target network (``rho=0``: copied after
    every step)."""
    return target_network(NeuralNetworkApproximator(
        model, torch.optim.SGD(model.parameters(), lr=lr), device=device),
        sync_every=sync_every, rho=rho)


def linear_actor():
    """A zero-weight linear actor: μ(s) = 0 for every s."""
    return set_linear(DeterministicActor(2, LOW, HIGH, hidden=(), seed=0), [0.0, 0.0])


def linear_critic():
    """A zero-weight linear critic: Q(s, a) = 0."""
    return set_linear(QCritic(2, 1, hidden=(), seed=0), [0.0, 0.0, 0.0])


def set_targets(learner):
    """The targets of the module doc: μ'(s') = 0.5, Q'(s, a) = s₀ + 2 s₁ + 4 a."""
    set_linear(learner.actor.target_model, [0.0, 0.0], HALF_ACTION_BIAS)
    set_linear(learner.critic.target_model, TARGET_CRITIC)
    return learner


def make_batch(state, action, reward, next_state, terminal=None, truncated=None):
    """A :class:`Batch` of float32 / bool tensors, batch axis first, actions ``(batch, 1)``."""
    n = len(reward)
    return Batch(
        state=torch.tensor(state, dtype=torch.float32),
        action=torch.tensor(action, dtype=torch.float32).view(n, 1),
        reward=torch.tensor(reward, dtype=torch.float32),
        next_state=torch.tensor(next_state, dtype=torch.float32),
        terminal=torch.tensor([False] * n if terminal is None else terminal),
        truncated=torch.tensor([False] * n if truncated is None else truncated))


# three transitions: the second terminal, the third truncated (it bootstraps)
BATCH = dict(state=[[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], action=[1.0, -1.0, 0.0],
             reward=[1.0, 2.0, 3.0], next_state=[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
             terminal=[False, True, False], truncated=[False, False, True])


def ddpg_learner(rho=0.0, gamma=0.9):
    return DDPGLearner(sgd_target(linear_actor(), rho), sgd_target(linear_critic(), rho),
                       gamma=gamma)


def test_critic_target_bootstraps_through_the_target_networks():
    learner = set_targets(ddpg_learner())
    # μ'(s') = 0.5, so Q'(s', μ'(s')) = s'₀ + 2 s'₁ + 2:
    #   row 1: 1 + 0 + 2 = 3 -> y = 1 + 0.9 · 3 = 3.7
    #   row 2: terminal -> y = r = 2
    #   row 3: truncated, bootstraps: 1 + 2 + 2 = 5 -> y = 3 + 0.9 · 5 = 7.5
    torch.testing.assert_close(ddpg_target(learner, make_batch(**BATCH)),
                               torch.tensor([3.7, 2.0, 7.5]))


def test_one_update_steps_the_critic_then_the_actor_by_hand():
    learner = set_targets(ddpg_learner())
    update(learner, make_batch(**BATCH))
    # Q = 0 everywhere, so the errors are Q − y = −y = −[3.7, 2, 7.5] on the inputs x = [s, a]
    # = [1, 0, 1], [0, 1, −1], [0, 0, 0]. MSE gradient (2/3) Σ (Q − y) x:
    #   weight: −(2/3) [3.7, 2, 3.7 − 2] = −(2/3) [3.7, 2, 1.7]; bias: −(2/3) 13.2 = −8.8
    # SGD lr 0.1 -> w = [0.24667, 0.13333, 0.11333], b = 0.88
    weight, bias = linear_part(learner.critic.model)
    assert weight == pytest.approx([0.2 / 3 * 3.7, 0.2 / 3 * 2, 0.2 / 3 * 1.7], rel=1e-5)
    assert bias == pytest.approx(0.88, rel=1e-5)
    assert learner.critic_loss.item() == pytest.approx((3.7 ** 2 + 2 ** 2 + 7.5 ** 2) / 3)
    # the actor climbs the updated critic: loss −mean Q(s, μ(s)), ∂Q/∂a = 0.11333, and
    # μ = 2 tanh(z) with z = 0 has ∂μ/∂z = 2; gradient −0.11333 · 2 · mean(s) on the weight
    # (mean s = [1/3, 1/3]) and −0.11333 · 2 on the bias; SGD lr 0.1:
    #   w = 0.1 · 0.22667 / 3 = [0.0075556, 0.0075556], b = 0.022667
    w_a = 0.2 / 3 * 1.7
    weight, bias = linear_part(learner.actor.model)
    assert weight == pytest.approx([0.1 * 2 * w_a / 3] * 2, rel=1e-5)
    assert bias == pytest.approx(0.1 * 2 * w_a, rel=1e-5)
    # the actor loss was taken after the critic step: Q(s, μ(s) = 0) = w·[s, 0] + b
    # = mean([0.24667, 0.13333, 0]) + 0.88
    assert learner.actor_loss.item() == pytest.approx(-(0.2 / 3 * 5.7 / 3 + 0.88), rel=1e-5)


def test_polyak_averaging_moves_each_target_by_one_minus_rho():
    # TargetNetwork's convention: target ← ρ · target + (1 − ρ) · online after each step
    learner = set_targets(ddpg_learner(rho=0.9))
    update(learner, make_batch(**BATCH))
    # critic: online [0.24667, 0.13333, 0.11333] (the test above), target [1, 2, 4]:
    #   0.9 · [1, 2, 4] + 0.1 · online = [0.92467, 1.81333, 3.61133]; bias 0.9 · 0 + 0.1 · 0.88
    weight, bias = linear_part(learner.critic.target_model)
    online = [0.2 / 3 * 3.7, 0.2 / 3 * 2, 0.2 / 3 * 1.7]
    expected = [0.9 * t + 0.1 * o for t, o in zip(TARGET_CRITIC, online, strict=True)]
    assert weight == pytest.approx(expected, rel=1e-5)
    assert bias == pytest.approx(0.088, rel=1e-5)
    # actor: online w = [0.0075556] * 2, b = 0.022667; target w = 0, b = atanh(0.25)
    weight, bias = linear_part(learner.actor.target_model)
    w_a = 0.2 / 3 * 1.7
    assert weight == pytest.approx([0.1 * 0.1 * 2 * w_a / 3] * 2, rel=1e-5)
    assert bias == pytest.approx(0.9 * HALF_ACTION_BIAS + 0.1 * 0.1 * 2 * w_a, rel=1e-5)


def test_learner_validates_its_parts():
    with pytest.raises(TypeError, match="TargetNetwork"):
        DDPGLearner(linear_actor(), sgd_target(linear_critic()))
    with pytest.raises(ValueError, match="gamma"):
        ddpg_learner(gamma=1.5)
    plain = torch.nn.Linear(2, 1)
    with pytest.raises(TypeError, match="low and high"):
        DDPGLearner(sgd_target(plain), sgd_target(linear_critic()))


def _pendulum_learner(low=LOW, high=HIGH):
    return DDPGLearner(sgd_target(DeterministicActor(3, low, high, hidden=(8,), seed=0)),
                       sgd_target(QCritic(3, 1, hidden=(8,), seed=1)))


def _check(learner, env, trajectory=None):
    if trajectory is None:
        trajectory = CircularArraySARTTrajectory(10, state=((3,), np.float32),
                                                 action=((1,), np.float32))
    update(learner, trajectory, env, PRE_EXPERIMENT_STAGE)


def test_env_check_passes_for_pendulum():
    _check(_pendulum_learner(), PendulumEnv(seed=0))


def test_env_check_names_a_discrete_action_space():
    with pytest.raises(EnvMismatchError, match=r"DDPGLearner acts in a Box .* Discrete\(5\)"):
        _check(_pendulum_learner(), discrete_pendulum(0, 5),
               CircularArraySARTTrajectory(10, state=((3,), np.float32)))


def test_env_check_names_infinite_bounds():
    with pytest.raises(EnvMismatchError, match=r"finite bounds.*low=\[-inf\], high=\[inf\]"):
        _check(_pendulum_learner(), ClipActionEnv(PendulumEnv(seed=0)))


def test_env_check_names_bounds_other_than_the_actors():
    with pytest.raises(EnvMismatchError, match=r"\[low, high\] = \[\[-1.0\], \[1.0\]\].*"
                                               r"low=\[-2.0\], high=\[2.0\]"):
        _check(_pendulum_learner([-1.0], [1.0]), PendulumEnv(seed=0))


def test_env_check_names_a_state_shape_the_trajectory_does_not_store():
    with pytest.raises(EnvMismatchError, match=r"states of shape \(4,\)"):
        _check(_pendulum_learner(), PendulumEnv(seed=0),
               CircularArraySARTTrajectory(10, state=((4,), np.float32),
                                           action=((1,), np.float32)))


def test_env_check_names_a_network_that_cannot_take_the_states():
    learner = DDPGLearner(sgd_target(DeterministicActor(5, LOW, HIGH, hidden=(8,), seed=0)),
                          sgd_target(QCritic(5, 1, hidden=(8,), seed=1)))
    with pytest.raises(EnvMismatchError, match=r"cannot take the states .* shape \(3,\)"):
        _check(learner, PendulumEnv(seed=0))


def test_acts_with_deterministic_actions_in_the_bounds_through_actor_policy():
    learner = _pendulum_learner()
    env = PendulumEnv(seed=0)
    env.reset()
    actions = learner(env)
    assert actions.shape == (1, 1) and bool((actions.abs() <= 2).all())
    policy = ActorPolicy(learner, GaussianNoiseExplorer(low=LOW, high=HIGH, std=0.1, seed=0))
    action = policy(env)
    assert action.shape == (1,) and action.dtype == np.float32 and abs(action[0]) <= 2


def test_scalars_report_both_losses():
    learner = set_targets(ddpg_learner())
    assert "train/critic_loss" not in scalars(learner)
    update(learner, make_batch(**BATCH))
    values = scalars(learner)
    assert values["train/critic_loss"] == pytest.approx(learner.critic_loss.item())
    assert values["train/actor_loss"] == pytest.approx(learner.actor_loss.item())


def test_pendulum_experiment_runs_and_a_seed_repeats(one_thread):
    def returns(seed):
        hook = run(registry.make("DDPG_Pendulum", seed, steps=400, min_replay_history=300,
                                 batch_size=32, eval_every=400, eval_episodes=1))
        return find_hook(hook, TotalRewardPerEpisode).rewards, \
            find_hook(hook, EvaluateEveryNStep).returns
    first = returns(3)
    assert len(first[0]) == 2 and np.isfinite(first[1][0]) and first[1][0] < 0
    assert returns(3) == first


def _one_step(device):
    actor = DeterministicActor(3, LOW, HIGH, hidden=(16,), seed=0)
    critic = QCritic(3, 1, hidden=(16,), seed=1)
    learner = DDPGLearner(sgd_target(actor, device=device), sgd_target(critic, device=device))
    rng = np.random.default_rng(0)
    batch = make_batch(rng.normal(size=(8, 3)).tolist(), rng.uniform(-2, 2, 8).tolist(),
                       rng.normal(size=8).tolist(), rng.normal(size=(8, 3)).tolist())
    update(learner, batch)
    return [p.detach().cpu() for p in (*actor.parameters(), *critic.parameters())]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_one_update_on_gpu_matches_cpu():
    for a, b in zip(_one_step("cpu"), _one_step("cuda"), strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=0)


@pytest.mark.slow
def test_ddpg_pendulum_reaches_minus_250(one_thread):
    experiment = registry.make("DDPG_Pendulum", seed=0, stop_at=-250)
    assert registry.parameters("DDPG_Pendulum")["steps"] <= 60_000
    evaluation = find_hook(run(experiment), EvaluateEveryNStep)
    assert evaluation.n_episodes == 10
    assert evaluation.t <= 60_000
    assert max(evaluation.returns) >= -250, (evaluation.steps, evaluation.returns)

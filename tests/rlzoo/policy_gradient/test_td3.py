"""TD3Learner: the min-of-two target, the clipped target smoothing noise, the twin critics'
step and the policy delay by hand on tiny linear networks; the environment check; the Pendulum
experiment (learning test)."""

import math

import numpy as np
import pytest
import torch

from rlcore import (
    PRE_EXPERIMENT_STAGE, CircularArraySARTTrajectory, EnvMismatchError, EvaluateEveryNStep,
    TotalRewardPerEpisode, run, update,
)
from rlcore.logger import scalars
from rlcore.utils.random import torch_generator
from rlenvs import PendulumEnv
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.policy_gradient import DeterministicActor, QCritic
from rlzoo.policy_gradient.td3 import TD3Learner, smoothed_target_action, td3_target
from tests.rlzoo.policy_gradient.test_ddpg import (
    BATCH, HALF_ACTION_BIAS, HIGH, LOW, TARGET_CRITIC, linear_actor, linear_critic, linear_part,
    make_batch, set_linear, sgd_target,
)

# As in test_ddpg: μ(s) = 2 tanh(w·s + b) in [−2, 2], each critic Q_i(s, a) = w_i·[s, a] + b_i,
# SGD lr 0.1. The second target critic: Q'_2(s, a) = 4 s₀.
SECOND_TARGET_CRITIC = [4.0, 0.0, 0.0]


def td3_learner(policy_delay=2, rho=0.0, **kwargs):
    kwargs.setdefault("gamma", 0.9)
    return TD3Learner(sgd_target(linear_actor(), rho),
                      sgd_target(linear_critic(), rho, sync_every=policy_delay),
                      sgd_target(linear_critic(), rho, sync_every=policy_delay),
                      policy_delay=policy_delay, **kwargs)


def set_targets(learner, actor_bias=HALF_ACTION_BIAS):
    """μ'(s') = 2 tanh(actor_bias) (0.5 by default), Q'_1 = s₀ + 2 s₁ + 4 a, Q'_2 = 4 s₀."""
    set_linear(learner.actor.target_model, [0.0, 0.0], actor_bias)
    set_linear(learner.critic1.target_model, TARGET_CRITIC)
    set_linear(learner.critic2.target_model, SECOND_TARGET_CRITIC)
    return learner


def test_target_takes_the_smaller_of_the_two_target_critics():
    learner = set_targets(td3_learner(target_noise=0.0))
    # without smoothing noise ã = μ'(s') = 0.5: Q'_1 = s'₀ + 2 s'₁ + 2, Q'_2 = 4 s'₀
    #   row 1, s' = [1, 0]: min(3, 4) = 3 -> y = 1 + 0.9 · 3 = 3.7
    #   row 2: terminal -> y = r = 2
    #   row 3, s' = [1, 1], truncated (bootstraps): min(5, 4) = 4 -> y = 3 + 0.9 · 4 = 6.6
    torch.testing.assert_close(td3_target(learner, make_batch(**BATCH)),
                               torch.tensor([3.7, 2.0, 6.6]))


def test_smoothing_noise_is_clipped_and_the_action_kept_in_the_bounds():
    # μ'(s') = 2 tanh(atanh(0.75)) = 1.5; σ̃ = 1 and c = 0.5 of the half-range 2: the noise
    # clip(ε, −0.5, 0.5) · 2 lies in [−1, 1], so ã = clip(1.5 + noise, −2, 2) in [0.5, 2]
    learner = set_targets(td3_learner(target_noise=1.0, noise_clip=0.5, seed=7),
                          actor_bias=math.atanh(0.75))
    actions = smoothed_target_action(learner, torch.zeros(1000, 2))
    epsilon = torch.randn((1000, 1), generator=torch_generator(7))   # the learner's draws
    # e.g. ε = 0.1 -> 1.5 + 0.2 = 1.7; ε = −0.8 -> clipped to −0.5 -> 1.5 − 1 = 0.5;
    # ε = 0.3 -> 1.5 + 0.6 = 2.1 -> the bound 2
    expected = (1.5 + 2 * epsilon.clamp(-0.5, 0.5)).clamp(-2.0, 2.0)
    torch.testing.assert_close(actions, expected)
    assert actions.shape == (1000, 1)
    assert actions.min().item() == pytest.approx(0.5)       # the noise clip binds
    assert actions.max().item() == 2.0                       # the action bound binds
    assert bool((actions[epsilon < -0.5] == actions.min()).all())


def test_smoothing_noise_follows_the_seed():
    def actions(seed):
        learner = set_targets(td3_learner(seed=seed))
        return smoothed_target_action(learner, torch.zeros(5, 2))
    assert torch.equal(actions(1), actions(1))
    assert not torch.equal(actions(1), actions(2))


def test_one_update_steps_both_critics_by_hand_and_not_the_actor():
    learner = set_targets(td3_learner(target_noise=0.0))
    update(learner, make_batch(**BATCH))
    # both critics are 0, errors −y = −[3.7, 2, 6.6] on x = [1, 0, 1], [0, 1, −1], [0, 0, 0];
    # each critic steps on its own MSE, gradient (2/3) Σ (Q − y) x:
    #   weight −(2/3) [3.7, 2, 3.7 − 2] = −(2/3) [3.7, 2, 1.7], bias −(2/3) 12.3 = −8.2
    # SGD lr 0.1 -> w = [0.24667, 0.13333, 0.11333], b = 0.82 (each critic)
    for critic in (learner.critic1, learner.critic2):
        weight, bias = linear_part(critic.model)
        assert weight == pytest.approx([0.2 / 3 * 3.7, 0.2 / 3 * 2, 0.2 / 3 * 1.7], rel=1e-5)
        assert bias == pytest.approx(0.82, rel=1e-5)
    # both MSEs are mean(y²); critic_loss is their mean
    assert learner.critic_loss.item() == pytest.approx((3.7 ** 2 + 2 ** 2 + 6.6 ** 2) / 3)
    # critic step 1 of policy_delay 2: no actor step yet
    assert linear_part(learner.actor.model) == ([0.0, 0.0], 0.0)
    assert learner.actor_loss is None
    assert "train/actor_loss" not in scalars(learner)
    assert scalars(learner)["train/critic_loss"] == pytest.approx(learner.critic_loss.item())


def _snapshot(learner):
    return {name: [p.detach().clone() for p in module.parameters()] for name, module in (
        ("actor", learner.actor.model), ("actor_target", learner.actor.target_model),
        ("critic1", learner.critic1.model), ("critic1_target", learner.critic1.target_model),
        ("critic2", learner.critic2.model), ("critic2_target", learner.critic2.target_model))}


def _changed(before, after):
    return {name for name in before if not all(
        torch.equal(a, b) for a, b in zip(before[name], after[name], strict=True))}


def test_actor_and_targets_move_only_every_policy_delay_critic_steps():
    rng = np.random.default_rng(0)
    learner = TD3Learner(
        sgd_target(DeterministicActor(2, LOW, HIGH, hidden=(8,), seed=0), rho=0.5),
        sgd_target(QCritic(2, 1, hidden=(8,), seed=1), rho=0.5, sync_every=3),
        sgd_target(QCritic(2, 1, hidden=(8,), seed=2), rho=0.5, sync_every=3), policy_delay=3)
    changed = []
    for _ in range(6):
        batch = make_batch(rng.normal(size=(4, 2)).tolist(), rng.uniform(-2, 2, 4).tolist(),
                           rng.normal(size=4).tolist(), rng.normal(size=(4, 2)).tolist())
        before = _snapshot(learner)
        update(learner, batch)
        changed.append(_changed(before, _snapshot(learner)))
    # policy_delay 3: critic steps 3 and 6 also step the actor and move all three targets
    critics = {"critic1", "critic2"}
    moved = critics | {"actor", "actor_target", "critic1_target", "critic2_target"}
    assert changed == [critics, critics, moved, critics, critics, moved]
    assert learner.critic1.n_updates == 6 and learner.actor.n_updates == 2


def test_learner_validates_its_parts():
    def critic(sync_every=2):
        return sgd_target(linear_critic(), sync_every=sync_every)
    with pytest.raises(ValueError, match=r"policy_delay \(2\).*critic2 with sync_every=1"):
        TD3Learner(sgd_target(linear_actor()), critic(), critic(1), policy_delay=2)
    with pytest.raises(ValueError, match=r"actor TargetNetwork with sync_every=2"):
        TD3Learner(sgd_target(linear_actor(), sync_every=2), critic(), critic())
    with pytest.raises(TypeError, match="critic2"):
        TD3Learner(sgd_target(linear_actor()), critic(), linear_critic())
    with pytest.raises(ValueError, match="noise_clip"):
        td3_learner(noise_clip=-0.1)
    with pytest.raises(ValueError, match="policy_delay"):
        TD3Learner(sgd_target(linear_actor()), critic(), critic(), policy_delay=0)


def test_env_check_names_bounds_other_than_the_actors():
    learner = TD3Learner(sgd_target(DeterministicActor(3, [-1.0], [1.0], hidden=(8,), seed=0)),
                         sgd_target(QCritic(3, 1, hidden=(8,), seed=1), sync_every=2),
                         sgd_target(QCritic(3, 1, hidden=(8,), seed=2), sync_every=2))
    trajectory = CircularArraySARTTrajectory(10, state=((3,), np.float32),
                                             action=((1,), np.float32))
    with pytest.raises(EnvMismatchError, match=r"TD3Learner's actor acts in \[low, high\] = "
                                               r"\[\[-1.0\], \[1.0\]\]"):
        update(learner, trajectory, PendulumEnv(seed=0), PRE_EXPERIMENT_STAGE)


def test_pendulum_experiment_runs_and_a_seed_repeats(one_thread):
    def returns(seed):
        hook = run(registry.make("TD3_Pendulum", seed, steps=400, min_replay_history=300,
                                 batch_size=32, eval_every=400, eval_episodes=1))
        return find_hook(hook, TotalRewardPerEpisode).rewards, \
            find_hook(hook, EvaluateEveryNStep).returns
    first = returns(3)
    assert len(first[0]) == 2 and np.isfinite(first[1][0]) and first[1][0] < 0
    assert returns(3) == first


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_updates_on_gpu_draw_their_noise_there():
    learner = TD3Learner(
        sgd_target(DeterministicActor(2, LOW, HIGH, hidden=(8,), seed=0), device="cuda"),
        sgd_target(QCritic(2, 1, hidden=(8,), seed=1), sync_every=2, device="cuda"),
        sgd_target(QCritic(2, 1, hidden=(8,), seed=2), sync_every=2, device="cuda"),
        target_noise=1.0)
    assert learner.generator.device.type == "cuda"
    actions = smoothed_target_action(learner, torch.zeros(100, 2, device="cuda"))
    assert actions.device.type == "cuda" and bool((actions.abs() <= 2).all())
    rng = np.random.default_rng(0)
    for _ in range(2):
        update(learner, make_batch(rng.normal(size=(8, 2)).tolist(),
                                   rng.uniform(-2, 2, 8).tolist(), rng.normal(size=8).tolist(),
                                   rng.normal(size=(8, 2)).tolist()))
    assert math.isfinite(learner.critic_loss.item()) and math.isfinite(learner.actor_loss.item())


@pytest.mark.slow
def test_td3_pendulum_reaches_minus_250(one_thread):
    experiment = registry.make("TD3_Pendulum", seed=0, stop_at=-250)
    assert registry.parameters("TD3_Pendulum")["steps"] <= 60_000
    evaluation = find_hook(run(experiment), EvaluateEveryNStep)
    assert evaluation.n_episodes == 10
    assert evaluation.t <= 60_000
    assert max(evaluation.returns) >= -250, (evaluation.steps, evaluation.returns)

"""SACLearner: hand-computed soft targets, critic, actor and temperature steps; checks; GPU."""

import math

import numpy as np
import pytest
import torch

from rlcore import (
    PRE_EXPERIMENT_STAGE, BatchSampler, CircularArraySARTTrajectory, DistributionExplorer,
    EnvMismatchError, EvaluateEveryNStep, NeuralNetworkApproximator, NStepBatchSampler,
    ReplaySchedule, run, testmode, update,
)
from rlcore.logger import scalars
from rlcore.trajectories.samplers import Batch
from rlenvs import CartPoleEnv, PendulumEnv
from rlzoo.dqns.networks import target_network
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.policy_gradient import ActorPolicy, QCritic, TanhGaussianActor
from rlzoo.policy_gradient.distributions import DiagGaussian
from rlzoo.policy_gradient.sac import SACLearner, sac_target


class _LinearQ(torch.nn.Module):
    """``Q(s, a) = w · [s, a]`` (no bias), ``(batch,)``."""

    def __init__(self, weight):
        super().__init__()
        self.linear = torch.nn.Linear(len(weight), 1, bias=False)
        with torch.no_grad():
            self.linear.weight.copy_(torch.tensor([weight]))

    def forward(self, x, actions):
        return self.linear(torch.cat((x, actions), dim=-1)).squeeze(-1)


class _Fixed:
    """A stand-in distribution: its "samples" are given actions and log-probabilities."""

    def __init__(self, actions, log_prob):
        self.actions, self.log_prob = actions, log_prob

    def rsample_with_log_prob(self, generator):
        return self.actions, self.log_prob

    def sample(self, generator):
        return self.actions.detach()

    def mode(self):
        return self.actions.detach()


class _FixedActor(torch.nn.Module):
    """An actor whose "samples" for a batch are ``actions + shift`` with log-probabilities
    ``scale · log_prob``; ``shift`` (0) and ``scale`` (1) are its parameters, so the actor loss
    has a gradient to check by hand."""

    def __init__(self, actions, log_prob):
        super().__init__()
        self.register_buffer("actions", torch.tensor(actions, dtype=torch.float32))
        self.register_buffer("log_prob", torch.tensor(log_prob, dtype=torch.float32))
        self.shift = torch.nn.Parameter(torch.zeros(1))
        self.scale = torch.nn.Parameter(torch.ones(1))

    def forward(self, x):
        return _Fixed(self.actions + self.shift, self.log_prob * self.scale)


def _sgd(model, lr=0.1):
    return NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(), lr=lr))


def _learner(actions, log_prob, *, w1=(1.0, 2.0), w2=(2.0, 1.0), rho=0.0, **kwargs):
    """Scalar states, 1-d actions: Q1(s, a) = s + 2a, Q2(s, a) = 2s + a by default."""
    kwargs.setdefault("gamma", 0.9)
    return SACLearner(_sgd(_FixedActor(actions, log_prob)),
                      target_network(_sgd(_LinearQ(w1)), rho=rho),
                      target_network(_sgd(_LinearQ(w2)), rho=rho), **kwargs)


def _batch(state, action, reward, next_state, terminal=None, truncated=None):
    n = len(reward)
    return Batch(state=torch.tensor(state, dtype=torch.float32),
                 action=torch.tensor(action, dtype=torch.float32),
                 reward=torch.tensor(reward, dtype=torch.float32),
                 next_state=torch.tensor(next_state, dtype=torch.float32),
                 terminal=torch.tensor(terminal or [False] * n),
                 truncated=torch.tensor(truncated or [False] * n))


def test_soft_target_by_hand_with_terminal_and_truncated_rows():
    # a' = [0.5, -1, 1], log π(a'|s') = [-1, 0, 2], α = 0.5, γ = 0.9, r = 1
    learner = _learner([[0.5], [-1.0], [1.0]], [-1.0, 0.0, 2.0], alpha=0.5)
    with torch.no_grad():  # the online critics change; the targets keep Q1 = s + 2a, Q2 = 2s + a
        learner.critic1.model.linear.weight.fill_(9.0)
        learner.critic2.model.linear.weight.fill_(9.0)
    batch = _batch([[0.0]] * 3, [[0.0]] * 3, [1.0] * 3, [[1.0], [2.0], [3.0]],
                   terminal=[False, True, False], truncated=[False, False, True])
    # row 0: Q1' = 1 + 1 = 2, Q2' = 2 + 0.5 = 2.5; min 2; 2 - 0.5 (-1) = 2.5; 1 + 0.9 2.5 = 3.25
    # row 1: terminal: y = r = 1
    # row 2 (truncated: bootstraps): Q1' = 3 + 2 = 5, Q2' = 6 + 1 = 7; 5 - 0.5 2 = 4; 1 + 3.6
    torch.testing.assert_close(sac_target(learner, batch), torch.tensor([3.25, 1.0, 4.6]))


def test_one_update_by_hand_critics_then_targets_then_actor():
    # s = 1, a = 0.5, r = 1, s' = 1; the actor's a' = a = 0.5 with log π = -1; α = 0.5
    learner = _learner([[0.5]], [-1.0], alpha=0.5, rho=0.5)
    update(learner, _batch([[1.0]], [[0.5]], [1.0], [[1.0]]))
    # y = 1 + 0.9 (min(1 + 1, 2 + 0.5) + 0.5) = 3.25
    # Q1(s, a) = 2: MSE gradient 2 (2 - 3.25) [s, a] = [-2.5, -1.25]; SGD 0.1 -> [1.25, 2.125]
    # Q2(s, a) = 2.5: gradient 2 (2.5 - 3.25) [1, 0.5] = [-1.5, -0.75] -> [2.15, 1.075]
    torch.testing.assert_close(learner.critic1.model.linear.weight, torch.tensor([[1.25, 2.125]]))
    torch.testing.assert_close(learner.critic2.model.linear.weight, torch.tensor([[2.15, 1.075]]))
    assert learner.critic_loss.item() == pytest.approx((1.25 ** 2 + 0.75 ** 2) / 2)
    # Polyak, ρ = 0.5: target1 = 0.5 [1, 2] + 0.5 [1.25, 2.125]
    torch.testing.assert_close(learner.critic1.target_model.linear.weight,
                               torch.tensor([[1.125, 2.0625]]))
    # actor, with the updated critics: Q1(1, 0.5) = 1.25 + 1.0625 = 2.3125 < Q2 = 2.6875;
    # loss = α log π - Q1 = -0.5 - 2.3125; d/d shift = -dQ1/da = -2.125 -> shift 0.2125;
    # d/d scale = α (-1) = -0.5 -> scale 1.05
    assert learner.actor_loss.item() == pytest.approx(-2.8125)
    assert learner.actor.model.shift.item() == pytest.approx(0.2125)
    assert learner.actor.model.scale.item() == pytest.approx(1.05)
    assert learner.entropy.item() == pytest.approx(1.0)  # -log π
    assert learner.alpha_loss is None and learner.current_alpha == 0.5


@pytest.mark.parametrize("log_prob, gradient", [([2.0, 1.0], -0.5), ([-1.0, -2.0], 2.5)])
def test_alpha_rises_when_the_entropy_is_below_its_target(log_prob, gradient):
    # H̄ = -dim(A) = -1; entropy estimate mean(-log π) = -1.5 (below) or 1.5 (above);
    # dJ/d log α = α (H - H̄) = 1 (-1.5 + 1) = -0.5 or 1 (1.5 + 1) = 2.5; Adam's first step
    # moves log α by lr = 0.01 against the gradient's sign
    learner = _learner([[0.0], [0.0]], log_prob, alpha_lr=0.01)
    assert learner.current_alpha == 1.0
    update(learner, _batch([[0.0]] * 2, [[0.0]] * 2, [0.0, 0.0], [[0.0]] * 2))
    assert learner.log_alpha.grad.item() == pytest.approx(gradient)
    assert learner.alpha_loss.item() == pytest.approx(gradient)  # α = 1: J = α (H - H̄)
    expected = math.exp(0.01) if gradient < 0 else math.exp(-0.01)
    assert learner.current_alpha == pytest.approx(expected, rel=1e-6)


def test_target_entropy_overrides_minus_the_action_dimension():
    # H = -mean(log π) = -0.5; with H̄ = -0.25: dJ/d log α = 1 (-0.5 + 0.25) = -0.25
    learner = _learner([[0.0]], [0.5], target_entropy=-0.25)
    update(learner, _batch([[0.0]], [[0.0]], [0.0], [[0.0]]))
    assert learner.log_alpha.grad.item() == pytest.approx(-0.25)


def test_the_learned_alpha_enters_the_target_and_the_actor_loss():
    learner = _learner([[0.5]], [-1.0], alpha_init=0.5)
    # as the fixed α = 0.5 of the first test's row 0: y = 3.25
    batch = _batch([[1.0]], [[0.5]], [1.0], [[1.0]])
    torch.testing.assert_close(sac_target(learner, batch), torch.tensor([3.25]))


def _networks(seed=0, device="cpu", **kwargs):
    def adam(model):
        return NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters(), lr=1e-3),
                                         device=device)
    return dict(actor=adam(TanhGaussianActor(3, [-2.0], [2.0], hidden=(32, 32), seed=seed)),
                critic1=target_network(adam(QCritic(3, 1, hidden=(32, 32), seed=seed + 1)),
                                       rho=0.995),
                critic2=target_network(adam(QCritic(3, 1, hidden=(32, 32), seed=seed + 2)),
                                       rho=0.995), **kwargs)


def _random_batch(n=64, seed=0):
    rng = np.random.default_rng(seed)
    return Batch(state=torch.as_tensor(rng.normal(size=(n, 3)), dtype=torch.float32),
                 action=torch.as_tensor(rng.uniform(-2, 2, size=(n, 1)), dtype=torch.float32),
                 reward=torch.as_tensor(rng.normal(size=n), dtype=torch.float32),
                 next_state=torch.as_tensor(rng.normal(size=(n, 3)), dtype=torch.float32),
                 terminal=torch.as_tensor(rng.random(n) < 0.1),
                 truncated=torch.as_tensor(rng.random(n) < 0.1))


def _parameters(learner):
    return [p.detach().clone() for model in (learner.actor.model, learner.critic1.model,
                                             learner.critic2.model) for p in model.parameters()]


def test_the_seed_fixes_the_drawn_actions(one_thread):
    def after(seed):
        learner = SACLearner(**_networks(), seed=seed)
        for _ in range(3):
            update(learner, _random_batch())
        return _parameters(learner)

    assert all(torch.equal(a, b) for a, b in zip(after(0), after(0), strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(after(0), after(1), strict=True))


def test_critic_loss_falls_on_a_fixed_batch(one_thread):
    learner = SACLearner(**_networks(), alpha=0.1)
    batch = _random_batch()
    update(learner, batch)
    first = learner.critic_loss.item()
    for _ in range(200):
        update(learner, batch)
    assert learner.critic_loss.item() < 0.5 * first


def test_acting_samples_in_training_and_takes_the_mode_in_test_mode():
    learner = SACLearner(**_networks())
    policy = ActorPolicy(learner, DistributionExplorer(seed=0))
    env = PendulumEnv(seed=0)
    env.reset()
    actions = [policy(env) for _ in range(20)]
    assert all(a.shape == (1,) and -2.0 <= a[0] <= 2.0 for a in actions)
    assert len({float(a[0]) for a in actions}) > 1
    mode = learner(env).mode()[0]
    with testmode(policy):
        np.testing.assert_array_equal(policy(env), mode.numpy())


def test_scalars_name_the_losses_alpha_and_entropy():
    learner = SACLearner(**_networks())
    assert scalars(learner) == {"train/alpha": 1.0}
    update(learner, _random_batch())
    assert {"train/critic_loss", "train/actor_loss", "train/alpha_loss", "train/entropy",
            "train/alpha"} <= set(scalars(learner))


def _check(learner, env):
    trajectory = CircularArraySARTTrajectory(
        10, state=(env.state_space().shape, np.float32),
        action=(getattr(env.action_space(), "shape", ()), np.float32))
    update(learner, trajectory, env, PRE_EXPERIMENT_STAGE)


def test_the_env_is_checked_before_the_first_step():
    _check(SACLearner(**_networks()), PendulumEnv(seed=0))  # suits
    with pytest.raises(EnvMismatchError, match="Box action space with finite bounds"):
        _check(SACLearner(**_networks()), CartPoleEnv(seed=0))
    networks = _networks()
    actor = TanhGaussianActor(3, [-1.0], [1.0], hidden=(8,), seed=0)
    networks["actor"] = NeuralNetworkApproximator(actor, torch.optim.Adam(actor.parameters()))
    with pytest.raises(EnvMismatchError, match=r"\[low, high\] = \[\[-1.0\], \[1.0\]\]"):
        _check(SACLearner(**networks), PendulumEnv(seed=0))
    actor = TanhGaussianActor(4, [-2.0], [2.0], hidden=(8,), seed=0)
    networks["actor"] = NeuralNetworkApproximator(actor, torch.optim.Adam(actor.parameters()))
    with pytest.raises(EnvMismatchError, match="cannot take the states"):
        _check(SACLearner(**networks), PendulumEnv(seed=0))


def test_hyper_parameters_are_validated():
    with pytest.raises(ValueError, match="gamma"):
        SACLearner(**_networks(), gamma=1.5)
    with pytest.raises(ValueError, match="alpha must be"):
        SACLearner(**_networks(), alpha=-0.1)
    with pytest.raises(ValueError, match="alpha_lr"):
        SACLearner(**_networks(), alpha_lr=0.0)
    networks = _networks()
    networks["critic1"] = networks["critic1"].approximator
    with pytest.raises(TypeError, match="critic1"):
        SACLearner(**networks)
    with pytest.raises(ValueError, match=r"the sampler's gamma \(0.5\)"):
        SACLearner(**_networks(), schedule=ReplaySchedule(
            sampler=NStepBatchSampler(3, 0.5, 32, seed=0), min_replay_history=32))
    SACLearner(**_networks(), schedule=ReplaySchedule(sampler=BatchSampler(8, seed=0),
                                                      min_replay_history=8))


def _matched_draws(monkeypatch):
    """The learner's generator and the reparameterisation noise on the CPU, moved to the
    device: torch's CUDA generators give other streams than its CPU ones for one seed."""
    import rlzoo.policy_gradient.sac as sac

    monkeypatch.setattr(sac, "torch_generator",
                        lambda seed, device="cpu": torch.Generator().manual_seed(int(seed)))

    def rsample(self, generator):
        noise = torch.randn(self.mean.shape, generator=generator, dtype=self.mean.dtype)
        return self.mean + self.std * noise.to(self.mean.device)

    monkeypatch.setattr(DiagGaussian, "rsample", rsample)


def _after_one_update(device):
    learner = SACLearner(**_networks(device=device), seed=3)
    update(learner, _random_batch().to(device))
    return {"losses": torch.stack([learner.critic_loss, learner.actor_loss,
                                   learner.alpha_loss]).cpu(),
            "log_alpha": learner.log_alpha.detach().cpu(),
            "parameters": [p.cpu() for p in _parameters(learner)],
            "targets": [p.detach().cpu() for critic in (learner.critic1, learner.critic2)
                        for p in critic.target_model.parameters()]}


def _assert_same(a, b):
    torch.testing.assert_close(a["losses"], b["losses"], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(a["log_alpha"], b["log_alpha"], atol=1e-5, rtol=0)
    for key in ("parameters", "targets"):
        for x, y in zip(a[key], b[key], strict=True):
            torch.testing.assert_close(x, y, atol=1e-5, rtol=0)


def test_matched_draws_leave_a_cpu_update_unchanged(monkeypatch):
    # the GPU test's CPU side draws as the learner does on a CPU
    plain = _after_one_update("cpu")
    _matched_draws(monkeypatch)
    _assert_same(_after_one_update("cpu"), plain)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_one_update_on_gpu_matches_cpu(monkeypatch):
    _matched_draws(monkeypatch)
    _assert_same(_after_one_update("cuda"), _after_one_update("cpu"))


@pytest.mark.slow
def test_sac_pendulum_reaches_minus_250(one_thread):
    assert registry.parameters("SAC_Pendulum")["steps"] <= 60_000
    hook = run(registry.make("SAC_Pendulum", seed=0, stop_at=-250))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.n_episodes == 10 and evaluation.t <= 60_000
    assert max(evaluation.returns) >= -250, (evaluation.steps, evaluation.returns)


RESUME_SAC = """
    import sys, torch
    from rlcore import load, resume
    torch.set_num_threads(1)
    experiment = load(sys.argv[2])
    resume(experiment)
    learner = experiment.policy.policy.learner
    models = [learner.actor.model, learner.critic1.model, learner.critic1.target_model,
              learner.critic2.model, learner.critic2.target_model]
    torch.save({"params": [p.detach() for m in models for p in m.parameters()],
                "log_alpha": learner.log_alpha.detach(),
                "returns": [float(r) for r in experiment.hook[0].rewards]}, sys.argv[1])
"""


def test_sac_resume_in_a_fresh_process_is_bit_identical(tmp_path, one_thread):
    from rlcore import Checkpoint, run
    from tests.rlcore.test_checkpoint import run_python

    # learning from step 256, saved mid-episode at step 700 with the replay, the critics'
    # targets, log α and its Adam state, and the learner's and explorer's generators
    experiment = registry.make("SAC_Pendulum", 0, steps=1000, eval_every=10_000)
    experiment.hook = experiment.hook + Checkpoint(tmp_path / "run", every=700, keep=2)
    run(experiment)
    learner = experiment.policy.policy.learner
    models = [learner.actor.model, learner.critic1.model, learner.critic1.target_model,
              learner.critic2.model, learner.critic2.target_model]
    out = tmp_path / "resumed.pt"
    run_python(RESUME_SAC, out, tmp_path / "run" / "checkpoint-000000700.pt")
    resumed = torch.load(out, weights_only=True)
    assert resumed["returns"] == [float(r) for r in experiment.hook[0].rewards]
    expected = [p.detach() for m in models for p in m.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(resumed["params"], expected))
    assert torch.equal(resumed["log_alpha"], learner.log_alpha.detach())

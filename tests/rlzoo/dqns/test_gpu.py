"""The DQN family on a CUDA device (every test marked ``gpu``, skipped without CUDA).

- Every CartPole learner's training step on CUDA equals its CPU step to 1e-5, through the
  stage rule ``run`` calls (sampling, the gradient step, priorities, the target sync), given the
  same random draws (the ``matched_draws`` fixture).
- Every named experiment runs unchanged with ``device="cuda"``: the CartPole ones through
  ``run`` with learning, the Dopamine Atari ones for 500 frames; ``DQN_CartPole`` learns to 195
  on CUDA within the CI budget.
"""

import importlib

import pytest
import torch

from rlcore import Agent, EvaluateEveryNStep, RandomPolicy, StopAfterStep, run, update
from rlcore.stages import PRE_ACT_STAGE
from rlzoo.dqns import IQNLearner, NoisyLinear, REMDQNLearner
from rlzoo.experiments import registry
from rlzoo.experiments.cartpole import cartpole_env
from rlzoo.experiments.common import find_hook

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

CARTPOLE = ["BasicDQN_CartPole", "DQN_CartPole", "PrioritizedDQN_CartPole", "C51_CartPole",
            "QRDQN_CartPole", "IQN_CartPole", "REMDQN_CartPole", "Rainbow_CartPole"]
ATARI = ["Dopamine_DQN_Atari", "Dopamine_Rainbow_Atari", "Dopamine_IQN_Atari"]


@pytest.fixture
def matched_draws(monkeypatch):
    """The learners' and noisy layers' random numbers come from CPU generators (seeded as
    usual) and move to the device, so a CPU and a CUDA learner draw the same numbers: torch's
    CUDA generators give other streams than its CPU ones for the same seed."""
    def cpu_generator(seed, device):
        return torch.Generator().manual_seed(int(seed))

    for module in ("rlzoo.dqns.iqn", "rlzoo.dqns.rem_dqn"):
        monkeypatch.setattr(importlib.import_module(module), "torch_generator", cpu_generator)

    def sample_taus(self, batch_size, n, generator=None):
        generator = self.generator if generator is None else generator
        return torch.rand(batch_size, n, generator=generator).to(self.approximator.device)

    def sample_mixture(self, n_heads):
        alpha = torch.rand(n_heads, generator=self.generator).to(self.approximator.device)
        return alpha / alpha.sum()

    def noise(self, n):
        if self._generator is None:
            self._generator = torch.Generator().manual_seed(self.seed)
        x = torch.randn(n, generator=self._generator).to(self.weight_mu.device)
        return x.sign() * x.abs().sqrt()

    monkeypatch.setattr(IQNLearner, "sample_taus", sample_taus)
    monkeypatch.setattr(REMDQNLearner, "sample_mixture", sample_mixture)
    monkeypatch.setattr(NoisyLinear, "_noise", noise)


def _after_one_step(name, device):
    """The learner of experiment ``name`` (seed 0) on ``device``, after one training step on
    400 random CartPole transitions: its parameters (on the CPU) and its loss."""
    experiment = registry.make(name, 0, device=device, min_replay_history=400, update_freq=1)
    agent = experiment.policy
    run(Agent(RandomPolicy(seed=1), agent.trajectory), cartpole_env(7), StopAfterStep(400))
    learner = agent.policy.learner
    update(learner, agent.trajectory, experiment.env, PRE_ACT_STAGE)
    assert learner.loss_value is not None
    model = learner.approximator.model
    assert all(p.device.type == device for p in model.parameters())
    return [p.detach().cpu() for p in model.parameters()], float(learner.loss_value)


@pytest.mark.parametrize("name", CARTPOLE)
def test_a_training_step_on_cuda_matches_the_cpu_step(name, matched_draws):
    cpu, cpu_loss = _after_one_step(name, "cpu")
    gpu, gpu_loss = _after_one_step(name, "cuda")
    assert gpu_loss == pytest.approx(cpu_loss, rel=1e-5, abs=1e-6)
    for a, b in zip(cpu, gpu):
        torch.testing.assert_close(b, a, atol=1e-5, rtol=0)


@pytest.mark.parametrize("name", CARTPOLE)
def test_cartpole_experiments_run_on_cuda(name):
    experiment = registry.make(name, 0, device="cuda", steps=1000, min_replay_history=300,
                               eval_every=1000, eval_episodes=2)
    model = experiment.policy.policy.learner.approximator.model
    before = [p.detach().clone() for p in model.parameters()]
    run(experiment)
    learner = experiment.policy.policy.learner
    assert learner.update_step == 1000
    assert bool(torch.as_tensor(learner.loss_value).isfinite())
    after = list(model.parameters())
    assert all(p.device.type == "cuda" for p in after)
    assert any(not torch.equal(a, b) for a, b in zip(before, after))


def test_dqn_cartpole_learns_on_cuda():
    experiment = registry.make("DQN_CartPole", 0, device="cuda", stop_at=195)
    evaluation = find_hook(run(experiment), EvaluateEveryNStep)
    assert max(evaluation.returns) >= 195


@pytest.mark.parametrize("name", ATARI)
def test_atari_500_frames_on_cuda(name):
    experiment = registry.make(name, 0, device="cuda", steps=125, capacity=500,
                               min_replay_history=64, target_update_freq=40, eval_every=125,
                               eval_steps=30, max_episode_steps=50)
    run(experiment)
    learner = experiment.policy.policy.learner
    assert learner.update_step == 125
    assert bool(learner.loss_value.isfinite()) and learner.loss_value.device.type == "cuda"

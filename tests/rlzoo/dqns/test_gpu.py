"""The DQN family on a CUDA device (every test marked ``gpu``, skipped without CUDA).

- Every CartPole learner's training step on CUDA equals its CPU step to 1e-5, through the
  stage rule ``run`` calls (sampling, the gradient step, priorities, the target sync): the
  loss, the gradients, the parameters, the synced target network and the replay's priorities,
  given the same random draws (the ``matched_draws`` fixture).
- A CUDA learner's ``update(learner, batch)`` takes its sampler's numpy batch, or the batch as
  CPU or CUDA tensors, with the same result.
- Every named experiment runs unchanged with ``device="cuda"``: the CartPole ones through
  ``run`` with learning (with one env and with 4 sub-envs), the Dopamine Atari ones for 500
  frames; ``DQN_CartPole`` learns to 195 on CUDA within the CI budget.
"""

import importlib

import numpy as np
import pytest
import torch

from rlcore import (
    Agent, EvaluateEveryNStep, RandomPolicy, StopAfterStep, TargetNetwork, run, update,
)
from rlcore.stages import PRE_ACT_STAGE
from rlzoo.dqns import IQNLearner, NoisyLinear, REMDQNLearner
from rlzoo.experiments import registry
from rlzoo.experiments.cartpole import cartpole_env
from rlzoo.experiments.common import find_hook
from tests.rlzoo.dqns.dqn_helpers import CARTPOLE, learner_and_batch

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

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
    """What one training step of experiment ``name`` (seed 0) on ``device`` leaves, on 400
    random CartPole transitions, as CPU tensors: the loss, the online parameters and their
    gradients, the target network's parameters (synced after the step) and the replay's
    priorities (PER, Rainbow)."""
    overrides = dict(device=device, min_replay_history=400, update_freq=1)
    if "target_update_freq" in registry.parameters(name):
        overrides["target_update_freq"] = 1
    experiment = registry.make(name, 0, **overrides)
    agent = experiment.policy
    run(Agent(RandomPolicy(seed=1), agent.trajectory), cartpole_env(7), StopAfterStep(400))
    learner = agent.policy.learner
    update(learner, agent.trajectory, experiment.env, PRE_ACT_STAGE)
    model = learner.approximator.model
    assert all(p.device.type == device for p in model.parameters())
    out = {"loss": torch.as_tensor(float(learner.loss_value)),
           "parameters": [p.detach().cpu() for p in model.parameters()],
           "gradients": [p.grad.detach().cpu() for p in model.parameters()]}
    if isinstance(learner.approximator, TargetNetwork):
        out["target"] = [p.detach().cpu() for p in learner.approximator.target_model.parameters()]
    if "priority" in agent.trajectory:
        out["priorities"] = torch.from_numpy(agent.trajectory["priority"].to_array().copy())
    return out


@pytest.mark.parametrize("name", CARTPOLE)
def test_a_training_step_on_cuda_matches_the_cpu_step(name, matched_draws):
    # the gradients are compared too: after one Adam step a parameter moves by about
    # lr * sign(gradient), so equal parameters alone would say little
    cpu, gpu = _after_one_step(name, "cpu"), _after_one_step(name, "cuda")
    assert cpu.keys() == gpu.keys()
    torch.testing.assert_close(gpu["loss"], cpu["loss"], rtol=1e-5, atol=1e-6)
    for key in ("parameters", "gradients", "target"):
        for a, b in zip(cpu.get(key, []), gpu.get(key, [])):
            torch.testing.assert_close(b, a, atol=1e-5, rtol=0)
    if "priorities" in cpu:
        assert (cpu["priorities"] != 1.0).sum() > 0  # the step set some priorities
        torch.testing.assert_close(gpu["priorities"], cpu["priorities"], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", CARTPOLE)
def test_a_cuda_learner_takes_a_numpy_cpu_or_cuda_batch(name, matched_draws):
    results = []
    for form in ("numpy", "cpu", "cuda"):
        learner, batch = learner_and_batch(name, "cuda")
        assert isinstance(batch["state"], np.ndarray)   # the sampler draws numpy arrays
        if form != "numpy":
            batch = batch.to(form)
        update(learner, batch)
        results.append([p.detach().cpu() for p in learner.approximator.model.parameters()])
    for other in results[1:]:
        for a, b in zip(results[0], other, strict=True):
            torch.testing.assert_close(b, a)


@pytest.mark.parametrize("n_envs", [1, 4])
@pytest.mark.parametrize("name", CARTPOLE)
def test_cartpole_experiments_run_on_cuda(name, n_envs):
    experiment = registry.make(name, 0, device="cuda", n_envs=n_envs, steps=1000,
                               min_replay_history=300, eval_every=1000, eval_episodes=2)
    model = experiment.policy.policy.learner.approximator.model
    before = [p.detach().clone() for p in model.parameters()]
    run(experiment)
    learner = experiment.policy.policy.learner
    assert learner.schedule.env_steps == 1000
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
    assert learner.schedule.env_steps == 125
    assert bool(learner.loss_value.isfinite()) and learner.loss_value.device.type == "cuda"

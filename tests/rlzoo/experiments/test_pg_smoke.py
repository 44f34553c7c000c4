"""The MuJoCo and Atari experiments of the policy-gradient family: their published settings,
and a smoke run of a few hundred steps each that trains (a rollout or some gradient steps) and
evaluates. Skipped with a reason where the optional extra is not installed."""

import pytest

from rlcore import EvaluateEveryNStep, run
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook

MUJOCO = {  # name: overrides for a smoke run of a few hundred steps
    "PPO_HalfCheetah": dict(steps=256, n_steps=128, eval_every=256),
    "TD3_HalfCheetah": dict(steps=200, min_replay_history=100, batch_size=32, eval_every=200),
    "SAC_HalfCheetah": dict(steps=200, min_replay_history=100, batch_size=32, eval_every=200),
    "SAC_Hopper": dict(steps=200, min_replay_history=100, batch_size=32, eval_every=200),
}
ATARI = {
    "rlpyt_PPO_Atari": dict(steps=256, n_envs=2, n_steps=64, n_minibatches=2, eval_every=256),
    "rlpyt_A2C_Atari": dict(steps=160, n_envs=4, eval_every=160),
}


def _smoke(name, overrides, **eval_overrides):
    experiment = registry.make(name, 0, eval_episodes=1, **overrides, **eval_overrides)
    hook = run(experiment)
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert len(evaluation.returns) == 1
    return experiment


@pytest.mark.parametrize("name", MUJOCO)
def test_mujoco_smoke(name, one_thread):
    pytest.importorskip("mujoco", reason="the mujoco extra: pip install '.[mujoco]'")
    experiment = _smoke(name, MUJOCO[name])
    learner = experiment.policy.policy.learner
    # it learned: PPO a rollout's loss, the off-policy learners a critic loss
    assert getattr(learner, "loss_value", None) is not None \
        or getattr(learner, "critic_loss", None) is not None


def test_mujoco_settings():
    ppo = registry.parameters("PPO_HalfCheetah")  # Schulman et al. (2017), Table 3
    assert (ppo["n_steps"], ppo["lr"], ppo["n_epochs"], ppo["gamma"], ppo["lam"]) == \
        (2048, 3e-4, 10, 0.99, 0.95)
    assert ppo["n_steps"] // ppo["n_minibatches"] == 64 and ppo["clip_range"] == 0.2
    td3 = registry.parameters("TD3_HalfCheetah")  # Fujimoto et al. (2018), sfujim/TD3
    assert (td3["lr"], td3["batch_size"], td3["hidden"], td3["min_replay_history"]) == \
        (3e-4, 256, 256, 25_000)
    assert (td3["target_noise"], td3["noise_clip"], td3["policy_delay"]) == (0.2, 0.5, 2)
    for name in ("SAC_HalfCheetah", "SAC_Hopper"):  # Haarnoja et al. (2018)
        sac = registry.parameters(name)
        assert (sac["batch_size"], sac["hidden"], sac["gamma"], sac["tau"]) == \
            (256, 256, 0.99, 0.005)
    for name in MUJOCO:
        assert registry.parameters(name)["steps"] == 1_000_000


@pytest.mark.parametrize("name", ATARI)
def test_atari_smoke(name, one_thread):
    pytest.importorskip("ale_py", reason="the atari extra: pip install '.[atari]'")
    experiment = _smoke(name, ATARI[name], max_episode_steps=100)
    assert experiment.policy.policy.learner.schedule.rollouts >= 1


def test_rlpyt_settings():
    ppo = registry.parameters("rlpyt_PPO_Atari")  # rlpyt atari_ff_ppo + algos/pg/ppo.py
    assert (ppo["n_envs"], ppo["n_steps"], ppo["lr"], ppo["lam"], ppo["clip_range"]) == \
        (32, 64, 1e-3, 0.98, 0.1)
    assert (ppo["value_coef"], ppo["entropy_coef"], ppo["max_grad_norm"]) == (1.0, 0.01, 1.0)
    a2c = registry.parameters("rlpyt_A2C_Atari")  # rlpyt atari_ff_a2c
    assert (a2c["n_envs"], a2c["n_steps"], a2c["lr"]) == (32, 5, 7e-4)
    assert (a2c["value_coef"], a2c["entropy_coef"], a2c["max_grad_norm"]) == (0.5, 0.01, 1.0)

"""The registry of named experiments: names, parameters, errors that list valid choices."""

import pytest

from rlcore import Experiment
from rlzoo.experiments import registry

EXPECTED = {
    "BasicDQN_CartPole", "DQN_CartPole", "PrioritizedDQN_CartPole", "C51_CartPole",
    "QRDQN_CartPole", "IQN_CartPole", "REMDQN_CartPole", "Rainbow_CartPole",
    "BasicDQN_MountainCar", "DQN_MountainCar", "BasicDQN_PendulumDiscrete",
    "Dopamine_DQN_Atari", "Dopamine_Rainbow_Atari", "Dopamine_IQN_Atari",
    # the policy-gradient family (issue #17)
    "VPG_CartPole", "A2C_CartPole", "A2CGAE_CartPole", "MAC_CartPole", "PPO_CartPole",
    "TRPO_CartPole", "DiscreteSAC_CartPole", "PPO_Pendulum", "DDPG_Pendulum", "TD3_Pendulum",
    "SAC_Pendulum", "PPO_MountainCarContinuous", "PPO_HalfCheetah", "SAC_HalfCheetah",
    "TD3_HalfCheetah", "SAC_Hopper", "rlpyt_A2C_Atari", "rlpyt_PPO_Atari",
}


def test_all_issue_experiments_are_registered_with_descriptions():
    assert EXPECTED <= set(registry.names())
    for name in registry.names():
        assert registry.describe(name)
        assert "seed" not in registry.parameters(name)


def test_unknown_name_lists_the_valid_names():
    with pytest.raises(KeyError, match="valid names: .*DQN_CartPole"):
        registry.get("DQN_Cartpole")


def test_unknown_override_lists_the_valid_keys():
    with pytest.raises(TypeError, match="no parameter 'learning_rate'; valid keys: .*lr"):
        registry.make("DQN_CartPole", 0, learning_rate=1e-3)
    with pytest.raises(TypeError, match="seed must be an int"):
        registry.make("DQN_CartPole", "0")


def test_make_builds_an_experiment_with_the_overrides():
    experiment = registry.make("DQN_CartPole", 1, lr=5e-4, is_double=False)
    assert isinstance(experiment, Experiment)
    learner = experiment.policy.policy.learner
    assert learner.is_double is False
    assert learner.approximator.approximator.optimizer.param_groups[0]["lr"] == 5e-4
    assert "DQNLearner" in str(experiment)


def test_register_checks_the_signature():
    with pytest.raises(TypeError, match="keyword-only"):
        @registry.register("bad")
        def Bad_Experiment(seed=0, steps=10):
            pass
    with pytest.raises(ValueError, match="already registered"):
        @registry.register("again")
        def DQN_CartPole(seed=0):
            pass


def test_dqn_cartpole_passes_gradient_clipping_and_polyak_to_its_components():
    experiment = registry.make("DQN_CartPole", 0, max_grad_norm=10.0, rho=0.99, n_step=3,
                               dueling=True)
    learner = experiment.policy.policy.learner
    assert learner.approximator.approximator.max_grad_norm == 10.0
    assert learner.approximator.rho == 0.99
    assert learner.schedule.sampler.n == 3 and learner.schedule.sampler.gamma == 0.99

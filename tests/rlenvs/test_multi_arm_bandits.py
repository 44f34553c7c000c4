"""The k-armed testbed, single and batched."""

import numpy as np
import pytest

from rlcore import test_interfaces, test_runnable
from rlenvs.multi_arm_bandits import BatchMultiArmBanditsEnv, MultiArmBanditsEnv


@pytest.mark.parametrize("make", [
    lambda: MultiArmBanditsEnv(seed=0), lambda: MultiArmBanditsEnv(stationary=False, seed=0),
    lambda: BatchMultiArmBanditsEnv(n_envs=5, seed=0)])
def test_interface_checks(make):
    test_interfaces(make())
    test_runnable(make(), n_steps=500, seed=0)


def test_true_values_and_rewards():
    env = MultiArmBanditsEnv(k=10, true_reward=4.0, seed=0)
    assert env.q_true.shape == (10,) and abs(env.q_true.mean() - 4.0) < 1.5
    env = MultiArmBanditsEnv(k=3, true_values=[0.0, 1.0, -1.0], seed=0)
    rewards = []
    for _ in range(2000):
        env(1)
        rewards.append(env.reward())
    # R ~ N(1, 1): the mean of 2,000 has std 0.022.
    assert np.mean(rewards) == pytest.approx(1.0, abs=0.1)
    assert env.optimal_action() == 1


def test_non_stationary_random_walk():
    env = MultiArmBanditsEnv(k=10, stationary=False, walk_std=0.01, seed=0)
    assert (env.q_true == 0).all()
    for _ in range(10_000):
        env(0)
    # After 10,000 steps each value has std 0.01·100 = 1.
    assert 0.3 < env.q_true.std() < 2.5


def test_batch():
    env = BatchMultiArmBanditsEnv(n_envs=2000, k=10, seed=0)
    env.reset()
    env(env.optimal_action())
    # Best of 10 standard normals has mean ≈ 1.54; the mean reward of 2,000 has std ≈ 0.03.
    assert env.reward() == pytest.approx(1.54, abs=0.12)
    assert env.rewards().shape == (2000,)
    with pytest.raises(ValueError, match="2000 ints"):
        env(np.zeros(3, dtype=int))


def test_validation():
    with pytest.raises(ValueError, match="k must"):
        MultiArmBanditsEnv(k=0)
    with pytest.raises(ValueError, match="true_values"):
        MultiArmBanditsEnv(k=3, true_values=[1.0])

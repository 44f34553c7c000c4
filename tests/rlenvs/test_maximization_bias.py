"""Example 6.7's maximization-bias MDP."""

import numpy as np
import pytest

from rlcore import test_interfaces, test_runnable
from rlenvs.maximization_bias import LEFT, RIGHT, STATE_B, MaximizationBiasEnv


def test_interface_checks():
    test_interfaces(MaximizationBiasEnv(seed=0))
    test_runnable(MaximizationBiasEnv(seed=0), n_steps=1000, seed=0)


def test_dynamics():
    env = MaximizationBiasEnv(seed=0)
    env.reset()
    assert env.legal_action_space_mask().tolist() == [True, True] + [False] * 8
    with pytest.raises(ValueError, match="action 5"):
        env(5)
    env(RIGHT)
    assert env.is_terminated() and env.reward() == 0.0
    rewards = []
    for _ in range(2000):
        env.reset()
        env(LEFT)
        assert env.state() == STATE_B and env.reward() == 0.0
        env(7)
        rewards.append(env.reward())
    # N(−0.1, 1): the mean of 2,000 has std 0.022; 0.1 is 4.5σ.
    assert np.mean(rewards) == pytest.approx(-0.1, abs=0.1)

"""Jack's car rental: exact model and sampled steps agree; interface checks pass."""

import numpy as np
import pytest

from rlcore import test_interfaces, test_runnable
from rlenvs.jacks_car_rental import JacksCarRentalEnv


def test_interface_checks():
    test_interfaces(JacksCarRentalEnv(seed=0, max_steps=30))
    test_runnable(JacksCarRentalEnv(seed=0, max_steps=30), n_steps=500, seed=0)


def test_model_is_a_distribution_and_legal_moves():
    env = JacksCarRentalEnv()
    m = env.model_arrays()
    np.testing.assert_allclose(m.P.sum(axis=2)[m.legal], 1.0, atol=1e-12)
    s = env.to_state(2, 0)
    assert [env.move_of_action(a) for a in env.legal_actions(s)] == [0, 1, 2]
    assert not m.legal[s, env.action_of_move(3)]


def test_sampled_reward_matches_expected_reward():
    env = JacksCarRentalEnv(seed=0, start=(5, 15))
    a = env.action_of_move(-2)
    rewards, next_states = [], []
    for _ in range(4000):
        env.reset()
        env(a)
        rewards.append(env.reward())
        next_states.append(env.state())
    m = env.model_arrays()
    s = env.to_state(5, 15)
    # Reward std ≈ 10·sqrt(3 + 4) ≈ 26: the mean of 4,000 has std 0.42; 2.0 is about 5σ.
    assert np.mean(rewards) == pytest.approx(m.R[s, a], abs=2.0)
    mean_next = np.mean([env.to_cars(t)[0] for t in next_states])
    expected = sum(p * env.to_cars(t)[0] for t, p in enumerate(m.P[s, a]))
    assert mean_next == pytest.approx(expected, abs=0.15)  # std of n1 ≈ 2, of the mean ≈ 0.03


def test_illegal_move_and_validation():
    env = JacksCarRentalEnv(start=(0, 0), seed=0)
    with pytest.raises(ValueError, match="action"):
        env(env.action_of_move(3))
    with pytest.raises(ValueError, match="max_move"):
        JacksCarRentalEnv(max_move=30)
    for bad in [(1,), (1, 2, 3), (21, 0), (-1, 0), ("3", 4), (2.5, 3), 7]:
        with pytest.raises(ValueError, match="start must be two integer car counts"):
            JacksCarRentalEnv(start=bad)
    for bad in [0, -3, 2.5, True, "10"]:
        with pytest.raises(ValueError, match="max_steps must be None or an integer"):
            JacksCarRentalEnv(max_steps=bad)
    env = JacksCarRentalEnv(max_steps=2, seed=0)
    env(env.action_of_move(0))
    env(env.action_of_move(0))
    assert env.is_truncated()

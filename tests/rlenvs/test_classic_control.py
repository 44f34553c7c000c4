"""Tests of rlenvs/classic_control.py."""

import numpy as np
import pytest
from gymnasium import spaces

from rlcore.envs import test_interfaces
from rlenvs import (
    AcrobotEnv, CartPoleEnv, ContinuousMountainCarEnv, GymEnv, MountainCarEnv, PendulumEnv,
)


def run_out(env, action):
    env.reset()
    steps = 0
    while not (env.is_terminated() or env.is_truncated()):
        env(action)
        steps += 1
    return steps


def test_max_steps_truncates():
    env = CartPoleEnv(seed=0, max_steps=7)
    env.reset()
    for action in (0, 1, 0, 1, 0, 1, 0):
        env(action)
    assert env.is_truncated() and not env.is_terminated()
    assert run_out(PendulumEnv(seed=0, max_steps=13), np.zeros(1, np.float32)) == 13
    assert run_out(MountainCarEnv(seed=0), 1) == 200
    assert run_out(AcrobotEnv(seed=0, max_steps=20), 1) == 20


def test_cartpole_physics_keywords_change_the_dynamics():
    strong = CartPoleEnv(seed=0, forcemag=30.0, max_steps=500)
    normal = CartPoleEnv(seed=0, max_steps=500)
    assert run_out(strong, 1) < run_out(normal, 1)
    tight = CartPoleEnv(seed=0, thetathreshold=3.0, max_steps=500)
    assert run_out(tight, 1) < run_out(CartPoleEnv(seed=0, max_steps=500), 1)
    assert CartPoleEnv().gym_env.unwrapped.theta_threshold_radians == pytest.approx(
        12 * 2 * np.pi / 360)
    with pytest.raises(ValueError, match="gravity"):
        CartPoleEnv(gravity=-1.0)
    with pytest.raises(ValueError, match="max_steps"):
        CartPoleEnv(max_steps=0)


def test_continuous_variants():
    car = MountainCarEnv(continuous=True, seed=0)
    assert isinstance(car.action_space(), spaces.Box)
    assert ContinuousMountainCarEnv().name == "MountainCarContinuous-v0"
    pendulum = PendulumEnv(continuous=False, n_actions=5, seed=0)
    assert pendulum.action_space() == spaces.Discrete(5)
    assert isinstance(pendulum.innermost, GymEnv)
    with pytest.raises(ValueError, match="n_actions"):
        PendulumEnv(continuous=False, n_actions=1)


def test_discrete_pendulum_applies_the_torques():
    a = PendulumEnv(continuous=False, n_actions=3, seed=4)
    b = PendulumEnv(seed=4)
    a.reset()
    b.reset()
    for index, torque in ((0, -2.0), (2, 2.0), (1, 0.0)):
        a(index)
        b(np.array([torque], dtype=np.float32))
        np.testing.assert_array_equal(a.state(), b.state())


@pytest.mark.parametrize("make", [CartPoleEnv, MountainCarEnv, ContinuousMountainCarEnv,
                                  PendulumEnv, AcrobotEnv])
def test_passes_interface_checks(make):
    test_interfaces(make(seed=0), n_episodes=1)


def test_continuous_cartpole_scales_the_force():
    env = CartPoleEnv(continuous=True, seed=3, max_steps=500)
    assert env.action_space() == spaces.Box(-1.0, 1.0, (1,), np.float32)
    assert env.name == "CartPole-v1"
    reference = CartPoleEnv(seed=3, max_steps=500)
    env.reset()
    reference.reset()
    np.testing.assert_array_equal(env.state(), reference.state())
    # Full force either way is the discrete task; half force moves half as fast; zero force
    # leaves the cart's velocity alone.
    for scale, action in ((1.0, 1), (-1.0, 0), (-1.0, 0)):
        env(np.array([scale], dtype=np.float32))
        reference(action)
        np.testing.assert_allclose(env.state(), reference.state(), rtol=1e-6)
    half = CartPoleEnv(continuous=True, seed=3)
    full = CartPoleEnv(continuous=True, seed=3)
    half.reset()
    full.reset()
    velocity = half.state()[1]
    half(np.array([0.5], dtype=np.float32))
    full(np.array([1.0], dtype=np.float32))
    still = CartPoleEnv(continuous=True, seed=3)
    still.reset()
    still(np.zeros(1, dtype=np.float32))
    dv_half, dv_full = half.state()[1] - velocity, full.state()[1] - velocity
    dv_none = still.state()[1] - velocity
    assert dv_full > dv_half > dv_none
    assert dv_half - dv_none == pytest.approx((dv_full - dv_none) / 2, rel=1e-3)
    with pytest.raises(ValueError, match="Box"):
        env(np.array([1.5], dtype=np.float32))
    test_interfaces(CartPoleEnv(continuous=True, seed=0), n_episodes=2)


def test_acrobot_uses_rl_jl_max_steps():
    assert run_out(AcrobotEnv(seed=0), 1) == 200  # RL.jl's default, not Gymnasium's 500

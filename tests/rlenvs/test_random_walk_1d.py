"""Tests of rlenvs/random_walk_1d.py."""

import numpy as np
import pytest

from rlcore.envs import (
    DETERMINISTIC, MINIMAL_ACTION_SET, PERFECT_INFORMATION, SINGLE_AGENT, TERMINAL_REWARD,
    test_interfaces, test_runnable,
)
from rlenvs import RandomWalk1D


def test_defaults():
    env = RandomWalk1D()
    env.reset()
    assert env.state() == 3 and env.reward() == 0.0 and not env.is_terminated()
    assert env.state_space().n == 7 and env.action_space().n == 2
    assert env.is_truncated() is False


def test_traits():
    env = RandomWalk1D()
    assert env.NumAgentStyle is SINGLE_AGENT
    assert env.ChanceStyle is DETERMINISTIC
    assert env.InformationStyle is PERFECT_INFORMATION
    assert env.RewardStyle is TERMINAL_REWARD
    assert env.ActionStyle is MINIMAL_ACTION_SET


def test_moves():
    env = RandomWalk1D()
    env.reset()
    env(0)
    assert env.state() == 2
    env(1)
    env(np.int64(1))
    assert env.state() == 4 and env.reward() == 0.0


@pytest.mark.parametrize("action, end, reward", [(0, 0, -1.0), (1, 6, 1.0)])
def test_ends_are_terminal_with_their_rewards(action, end, reward):
    env = RandomWalk1D()
    env.reset()
    for _ in range(3):
        assert not env.is_terminated()
        env(action)
    assert env.state() == end and env.reward() == reward and env.is_terminated() is True
    with pytest.raises(RuntimeError, match="reset"):
        env(1 - action)
    env.reset()
    assert env.state() == 3 and not env.is_terminated() and env.reward() == 0.0


def test_custom_rewards_actions_and_start():
    env = RandomWalk1D(N=5, start_pos=1, rewards=(0.0, 10.0), actions=(-2, 0, 3))
    env.reset()
    assert env.state() == 1 and env.action_space().n == 3
    env(1)
    assert env.state() == 1
    env(2)  # 1 + 3 is the right end
    assert env.state() == 4 and env.reward() == 10.0 and env.is_terminated()
    env.reset()
    env(0)  # clipped at the left end
    assert env.state() == 0 and env.reward() == 0.0 and env.is_terminated()


@pytest.mark.parametrize("action", [2, -1, 0.0, "left", None])
def test_illegal_action_raises_and_leaves_the_state(action):
    env = RandomWalk1D()
    env.reset()
    with pytest.raises(ValueError, match=r"Discrete\(2\)"):
        env(action)
    assert env.state() == 3


@pytest.mark.parametrize("kwargs", [dict(N=2), dict(start_pos=0), dict(start_pos=6),
                                    dict(start_pos=9), dict(rewards=(1.0,)),
                                    dict(actions=()), dict(actions=(0.5, 1))])
def test_bad_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        RandomWalk1D(**kwargs)


def test_rng_or_seed_accepted():
    assert isinstance(RandomWalk1D(seed=3).rng, np.random.Generator)
    rng = np.random.default_rng(0)
    assert RandomWalk1D(rng=rng).rng is rng
    with pytest.raises(ValueError):
        RandomWalk1D(seed=1, rng=rng)


def test_render():
    env = RandomWalk1D()
    env.reset()
    assert env.render() == ".  .  .  x  .  .  ."
    env(0)
    assert env.render() == ".  .  x  .  .  .  ."
    with pytest.raises(ValueError):
        env.render("rgb_array")


def test_interfaces_and_runnable():
    test_interfaces(RandomWalk1D())
    test_interfaces(RandomWalk1D(N=11, start_pos=2, actions=(-1, 0, 1)))
    assert test_runnable(RandomWalk1D(), n_steps=2000, seed=0) > 100


def test_values_of_the_uniform_random_policy():
    """Sutton & Barto Example 6.2: with rewards (0, 1) the values of states 1..5 are 1/6..5/6.

    Iterative policy evaluation on transitions read from the environment itself.
    """
    env = RandomWalk1D(rewards=(0.0, 1.0))
    values = np.zeros(env.N)
    for _ in range(1000):
        new = np.zeros(env.N)
        for s in range(1, env.N - 1):
            for a in range(env.action_space().n):
                env.position = s
                env(a)
                s_next, r = env.state(), env.reward()
                new[s] += 0.5 * (r + (0.0 if env.is_terminated() else values[s_next]))
        values = new
    np.testing.assert_allclose(values[1:-1], np.arange(1, 6) / 6, atol=1e-9)

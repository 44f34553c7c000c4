"""Tests of rlenvs/bit_flipping.py."""

import numpy as np
import pytest

from rlcore import GOAL_STATE
from rlenvs import BitFlippingEnv


def test_flipping_the_differing_bits_reaches_the_goal():
    env = BitFlippingEnv(N=6, seed=0)
    for _ in range(20):
        env.reset()
        diff = np.flatnonzero(env.state() != env.state(style=GOAL_STATE))
        assert diff.size >= 1
        for k, i in enumerate(diff):
            env(int(i))
            done = k == diff.size - 1
            assert env.is_terminated() is done and env.reward() == (0.0 if done else -1.0)


def test_truncated_after_max_steps_and_never_starts_at_goal():
    env = BitFlippingEnv(N=1, max_steps=3, seed=0)
    env.reset()
    assert not env.is_terminated()
    env(0)
    assert env.is_terminated() and env.reward() == 0.0
    env = BitFlippingEnv(N=4, max_steps=2, seed=0)
    env.reset()
    env(0)
    env(0)  # back at the start, which is never the goal
    assert env.is_truncated() and not env.is_terminated() and env.reward() == -1.0
    with pytest.raises(RuntimeError, match="reset"):
        env(0)


def test_state_is_a_copy_in_its_space():
    env = BitFlippingEnv(N=5, seed=2)
    env.reset()
    s = env.state()
    s[:] = 7
    assert env.state() in env.state_space() and env.state(style=GOAL_STATE) in env.state_space()
    with pytest.raises(ValueError):
        BitFlippingEnv(N=0)

"""Example 5.5's one-state MDP."""

import numpy as np
import pytest

from rlcore import test_interfaces, test_runnable
from rlenvs.infinite_variance import LEFT, RIGHT, InfiniteVarianceEnv


def test_interface_checks():
    test_interfaces(InfiniteVarianceEnv(seed=0))
    test_runnable(InfiniteVarianceEnv(seed=0), n_steps=1000, seed=0)


def test_left_ends_with_one_tenth_probability():
    env = InfiniteVarianceEnv(seed=0)
    lengths = []
    for _ in range(2000):
        env.reset()
        n = 0
        while not env.is_terminated():
            env(LEFT)
            n += 1
        assert env.reward() == 1.0
        lengths.append(n)
    # Geometric(0.1): mean 10, std ≈ 9.5; the mean of 2,000 has std 0.21, 1.0 is ~5σ.
    assert np.mean(lengths) == pytest.approx(10.0, abs=1.0)
    env.reset()
    env(RIGHT)
    assert env.is_terminated() and env.reward() == 0.0

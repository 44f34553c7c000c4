"""Tests of rlenvs/tiger_problem.py."""

import numpy as np
import pytest

from rlcore.envs import INTERNAL_STATE, OBSERVATION, test_interfaces
from rlenvs import DefaultStateStyleEnv, TigerProblemEnv
from rlenvs.tiger_problem import HEAR_LEFT, HEAR_RIGHT, LISTEN, OPEN_LEFT, OPEN_RIGHT


def test_listening_is_right_with_probability_0_85():
    env = TigerProblemEnv(seed=0)
    correct, n = 0, 20_000
    for _ in range(n):
        env.reset()
        env(LISTEN)
        heard = LISTEN_SIDE[env.state()]
        correct += heard == env.state(style=INTERNAL_STATE)
        assert env.reward() == -1.0 and not env.is_terminated()
    # Binomial standard deviation sqrt(0.85 * 0.15 / n) = 0.0025; allow 4 of them.
    assert abs(correct / n - 0.85) < 0.01


LISTEN_SIDE = {HEAR_LEFT: 0, HEAR_RIGHT: 1}


@pytest.mark.parametrize("door, side", [(OPEN_LEFT, 0), (OPEN_RIGHT, 1)])
def test_opening_a_door_pays_and_terminates(door, side):
    env = TigerProblemEnv(seed=1)
    for _ in range(20):
        env.reset()
        env(door)
        expected = -100.0 if env.tiger == side else 10.0
        assert env.reward() == expected and env.is_terminated() and env.state() == 0
        with pytest.raises(RuntimeError, match="reset"):
            env(LISTEN)


def test_tiger_side_is_uniform_and_seeded():
    sides = []
    env = TigerProblemEnv(seed=3)
    for _ in range(2000):
        env.reset()
        sides.append(env.tiger)
    assert abs(np.mean(sides) - 0.5) < 0.05
    again = TigerProblemEnv(seed=3)
    assert [again.reset() or again.tiger for _ in range(50)] == sides[:50]


def test_state_styles():
    env = TigerProblemEnv(seed=0)
    assert env.StateStyle == (OBSERVATION, INTERNAL_STATE)
    env.reset()
    assert env.state() == 0 and env.state_space().n == 3
    assert env.state(style=INTERNAL_STATE) == env.tiger
    assert env.state_space(style=INTERNAL_STATE).n == 2
    internal = DefaultStateStyleEnv(env, INTERNAL_STATE)
    assert internal.StateStyle[0] is INTERNAL_STATE and internal.state() == env.tiger
    test_interfaces(internal)
    with pytest.raises(ValueError, match="state styles"):
        env.state(style="colour")


def test_bad_arguments():
    with pytest.raises(ValueError, match="listen_accuracy"):
        TigerProblemEnv(listen_accuracy=1.5)
    with pytest.raises(ValueError, match="Discrete"):
        env = TigerProblemEnv(seed=0)
        env.reset()
        env(3)
    assert "tiger" in TigerProblemEnv(seed=0).render()

"""The gambler's problem environment and model."""

import pytest

from rlcore import test_interfaces, test_runnable
from rlenvs.gamblers_problem import GamblersProblemEnv


def test_interface_checks():
    test_interfaces(GamblersProblemEnv(seed=0))
    test_runnable(GamblersProblemEnv(seed=0), n_steps=1000, seed=0)


def test_dynamics():
    env = GamblersProblemEnv(p_h=0.0, start=30)
    env.reset()
    assert list(env.legal_action_space()) == list(range(1, 31))
    env(30)
    assert env.state() == 0 and env.is_terminated() and env.reward() == 0.0
    env = GamblersProblemEnv(p_h=1.0, start=60)
    env.reset()
    with pytest.raises(ValueError, match="41"):
        env(41)
    env(40)
    assert env.state() == 100 and env.reward() == 1.0
    assert GamblersProblemEnv().transitions(99, 1) == [(0.4, 100, 1.0), (0.6, 98, 0.0)]


def test_validation():
    with pytest.raises(ValueError, match="p_h"):
        GamblersProblemEnv(p_h=1.5)
    with pytest.raises(ValueError, match="start"):
        GamblersProblemEnv(start=100)

"""Tests of rlenvs/monty_hall.py."""

import numpy as np
import pytest

from rlcore.envs import FULL_ACTION_SET
from rlenvs import MontyHallEnv


def play(env, switch):
    env.reset()
    env(0)
    legal = env.legal_action_space()
    assert env.opened not in legal and len(legal) == 2 and env.opened != env.car
    assert env.legal_action_space_mask().tolist() == [d != env.opened for d in range(3)]
    final = next(d for d in legal if d != 0) if switch else 0
    env(final)
    assert env.is_terminated()
    return env.reward()


def test_switching_wins_two_thirds_staying_one_third():
    env = MontyHallEnv(seed=0)
    n = 6000
    switch = np.mean([play(env, True) for _ in range(n)])
    stay = np.mean([play(env, False) for _ in range(n)])
    assert abs(switch - 2 / 3) < 0.025 and abs(stay - 1 / 3) < 0.025


def test_opened_door_is_illegal_and_state_encodes_the_guess():
    env = MontyHallEnv(seed=1)
    assert env.ActionStyle is FULL_ACTION_SET
    env.reset()
    assert env.state() == 0
    env(2)
    assert env.state() == 1 + 3 * 2 + env.opened
    with pytest.raises(ValueError, match="legal"):
        env(env.opened)
    assert not env.is_terminated() and env.reward() == 0.0
    env(2)
    with pytest.raises(RuntimeError, match="reset"):
        env(2)
    assert "*" in env.render()


def test_rewards_are_keywords():
    env = MontyHallEnv(reward_car=1000.0, reward_goat=10.0, seed=0)
    assert set(play(env, True) for _ in range(50)) == {1000.0, 10.0}

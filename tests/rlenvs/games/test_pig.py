"""Tests of rlenvs/games/pig.py."""

import numpy as np
import pytest

from rlcore.envs import CHANCE_PLAYER, CONSTANT_SUM, MultiAgent, test_interfaces
from rlenvs import PigEnv, StochasticEnv
from rlenvs.games.pig import HOLD, ROLL


def test_turn_logic():
    env = PigEnv(3, target_score=20)
    assert env.NumAgentStyle == MultiAgent(3) and env.UtilityStyle is CONSTANT_SUM
    env.reset()
    assert env.current_player() == "player_0"
    env(ROLL)
    assert env.current_player() is CHANCE_PLAYER and env.action_space().n == 6
    env(3)  # a four
    assert env.turn_total == 4 and env.current_player() == "player_0"
    env(ROLL)
    env(5)  # a six
    env(HOLD)
    assert env.scores.tolist() == [10, 0, 0] and env.turn_total == 0
    assert env.current_player() == "player_1"
    env(ROLL)
    env(4)  # a five
    env(ROLL)
    env(0)  # a one: the turn total is lost and the turn passes
    assert env.scores.tolist() == [10, 0, 0] and env.turn_total == 0
    assert env.current_player() == "player_2"
    env(HOLD)  # holding nothing passes the turn
    assert env.current_player() == "player_0"
    assert env.state("player_1").tolist() == [10, 0, 0, 0, 0]


def test_winner_gets_one_and_others_minus_one():
    env = PigEnv(2, target_score=10)
    env.reset()
    for face in (5, 4):
        env(ROLL)
        env(face)
    assert not env.is_terminated() and env.reward("player_0") == 0.0
    env(HOLD)
    assert env.is_terminated() and env.scores[0] == 11
    assert env.reward("player_0") == 1.0 and env.reward("player_1") == -1.0  # as in RL.jl
    with pytest.raises(RuntimeError, match="reset"):
        env(ROLL)
    three = PigEnv(3, target_score=2)
    three.reset()
    three(HOLD)  # player_0 passes
    three(ROLL)
    three(1)  # player_1 rolls a 2
    three(HOLD)
    rewards = [three.reward(p) for p in three.players()]
    assert three.is_terminated() and rewards == [-1.0, 1.0, -1.0]
    assert sum(rewards) == 2 - 3  # constant sum


def test_die_probabilities_sum_to_one():
    env = PigEnv()
    env.reset()
    env(ROLL)
    p = env.prob()
    assert p.shape == (6,) and np.allclose(p, 1 / 6) and p.sum() == pytest.approx(1.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_players"):
        PigEnv(1)
    with pytest.raises(ValueError, match="target_score"):
        PigEnv(target_score=0)


def test_passes_interface_checks():
    test_interfaces(PigEnv(3, target_score=30), n_episodes=5)
    test_interfaces(StochasticEnv(PigEnv(target_score=30), seed=0), n_episodes=5)

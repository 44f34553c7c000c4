"""Tests of rlenvs/games/rock_paper_scissors.py."""

import itertools

import pytest
from gymnasium import spaces

from rlcore import SIMULTANEOUS_PLAYER
from rlcore.envs import SIMULTANEOUS, ZERO_SUM, test_interfaces
from rlenvs import RockPaperScissorsEnv
from rlenvs.games.rock_paper_scissors import PAPER, ROCK, SCISSORS

WINS = {(PAPER, ROCK), (SCISSORS, PAPER), (ROCK, SCISSORS)}


@pytest.mark.parametrize("a, b", list(itertools.product(range(3), repeat=2)))
def test_every_round(a, b):
    env = RockPaperScissorsEnv()
    env.reset()
    env((a, b))
    expected = 1.0 if (a, b) in WINS else -1.0 if (b, a) in WINS else 0.0
    assert env.reward("player_0") == expected and env.reward("player_1") == -expected
    assert env.is_terminated()


def test_joint_actions_are_checked():
    env = RockPaperScissorsEnv()
    assert env.DynamicStyle is SIMULTANEOUS and env.UtilityStyle is ZERO_SUM
    assert env.current_player() is SIMULTANEOUS_PLAYER
    assert env.action_space() == spaces.Tuple((spaces.Discrete(3), spaces.Discrete(3)))
    env.reset()
    for bad in (0, (0,), (0, 3), (0, 1, 2)):
        with pytest.raises(ValueError, match="action"):
            env(bad)
    assert not env.is_terminated()
    env((0, 0))
    with pytest.raises(RuntimeError, match="reset"):
        env((0, 0))
    with pytest.raises(ValueError, match="player"):
        env.reward("player_3")


def test_passes_interface_checks():
    test_interfaces(RockPaperScissorsEnv(), n_episodes=10)

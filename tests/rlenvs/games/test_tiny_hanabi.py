"""Tests of rlenvs/games/tiny_hanabi.py."""

import itertools

import numpy as np

from rlcore.envs import CHANCE_PLAYER, IDENTICAL_UTILITY, test_interfaces
from rlenvs import TinyHanabiEnv
from rlenvs.games.tiny_hanabi import PAYOFF


def test_payoff_is_shared_and_read_from_the_table():
    env = TinyHanabiEnv()
    assert env.UtilityStyle is IDENTICAL_UTILITY
    for c0, c1, a0, a1 in itertools.product(range(2), range(2), range(3), range(3)):
        env.reset()
        assert env.current_player() is CHANCE_PLAYER
        env(c0)
        env(c1)
        assert env.current_player() == "player_0"
        env(a0)
        assert env.current_player() == "player_1" and env.reward("player_0") == 0.0
        env(a1)
        assert env.is_terminated()
        assert env.reward("player_0") == env.reward("player_1") == PAYOFF[c0, c1, a0, a1]


def test_best_joint_policy_earns_ten():
    """Exhaustive search over deterministic policies: player_0 maps its card to an action,
    player_1 maps (its card, player_0's action) to an action."""
    best = 0.0
    for policy_0 in itertools.product(range(3), repeat=2):
        value = 0.0
        # player_1 does not see c0: choose the best reply per (c1, a0) in expectation over c0
        for c1 in range(2):
            for a0 in set(policy_0):
                cards = [c0 for c0 in range(2) if policy_0[c0] == a0]
                value += max(sum(0.25 * PAYOFF[c0, c1, a0, a1] for c0 in cards)
                             for a1 in range(3))
        best = max(best, value)
    assert best == 10.0


def test_information_sets():
    env = TinyHanabiEnv()
    env.reset()
    env(1)
    env(0)
    assert env.state("player_0") == 4 * 2 and env.state("player_1") == 4 * 1
    env(2)
    assert env.state("player_1") == 4 * 1 + 3 and env.state("player_0") == 4 * 2 + 3
    assert np.allclose(env.prob(), [0.5, 0.5])


def test_passes_interface_checks():
    test_interfaces(TinyHanabiEnv(), n_episodes=20)

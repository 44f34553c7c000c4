"""Tests of rlenvs/games/kuhn_poker.py."""

import itertools

import numpy as np
import pytest

from rlcore.envs import CHANCE_PLAYER, EXPLICIT_STOCHASTIC, test_interfaces
from rlenvs import KuhnPokerEnv
from rlenvs.games.kuhn_poker import BET, INFO_SETS, PASS

# player_0's payoff for every terminal history, with player_0 holding the higher card (+) or
# the lower one (-): showdowns pay 1 (no bet) or 2 (bet called), folds pay the bettor 1.
EXPECTED = {"pp": (1, -1), "bp": (1, 1), "pbp": (-1, -1), "bb": (2, -2), "pbb": (2, -2)}


@pytest.mark.parametrize("history", sorted(EXPECTED))
@pytest.mark.parametrize("cards", list(itertools.permutations(range(3), 2)))
def test_payoffs_of_every_terminal_history(cards, history):
    env = KuhnPokerEnv()
    env.reset()
    env(cards[0])
    env(cards[1])
    for i, move in enumerate(history):
        assert not env.is_terminated()
        assert env.current_player() == ("player_0", "player_1")[i % 2]
        env(PASS if move == "p" else BET)
    assert env.is_terminated()
    higher, lower = EXPECTED[history]
    expected = higher if cards[0] > cards[1] else lower
    assert env.reward("player_0") == expected and env.reward("player_1") == -expected


def test_chance_deals_uniformly_without_replacement():
    env = KuhnPokerEnv()
    env.reset()
    assert env.ChanceStyle is EXPLICIT_STOCHASTIC and env.current_player() is CHANCE_PLAYER
    p = env.prob()
    assert np.allclose(p, 1 / 3) and p.sum() == pytest.approx(1.0)
    env(1)
    p = env.prob()
    assert p.tolist() == [0.5, 0.0, 0.5] and env.legal_action_space() == [0, 2]
    with pytest.raises(ValueError, match="legal"):
        env(1)  # the queen was dealt already
    env(2)
    assert env.current_player() == "player_0" and env.action_space().n == 2


def test_information_sets_hide_the_other_card():
    env = KuhnPokerEnv()
    env.reset()
    env(0)
    env(2)
    env(BET)
    assert env.information_set("player_0") == (0, "b")
    assert env.information_set("player_1") == (2, "b")
    assert INFO_SETS[env.state("player_1")] == (2, "b")
    assert env.reward("player_0") == 0.0 and "K" in env.render()


def test_passes_interface_checks():
    test_interfaces(KuhnPokerEnv(), n_episodes=20)

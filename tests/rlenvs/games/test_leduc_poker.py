"""Tests of rlenvs/games/leduc_poker.py."""

import copy
import warnings

import numpy as np
import pytest

with warnings.catch_warnings():  # pettingzoo.test imports a classic game the deprecated way
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test

from rlcore import ChancePolicy, MultiAgentHook, MultiAgentPolicy, RandomPolicy, \
    StopAfterEpisode, TotalRewardPerEpisode, run
from rlcore.envs import CHANCE_PLAYER, EXPLICIT_STOCHASTIC, test_interfaces, test_runnable
from rlenvs import to_pettingzoo
from rlenvs.games.leduc_poker import (
    CALL, FOLD, INFO_SETS, RAISE, ROUND_HISTORIES, LeducPokerEnv, hand_strength,
)
from rlzoo.multi_agent.exploitability import expected_policy_values, nash_conv
from rlzoo.multi_agent.game_tree import GameTree, TabularRandomPolicy

JS, JH, QS, QH, KS, KH = range(6)
MOVE = {"f": FOLD, "c": CALL, "r": RAISE}


def play(card_0, card_1, round_1, public=None, round_2=""):
    env = LeducPokerEnv()
    env.reset()
    env(card_0)
    env(card_1)
    for move in round_1:
        env(MOVE[move])
    if public is not None:
        env(public)
    for move in round_2:
        env(MOVE[move])
    return env


@pytest.mark.parametrize("cards, round_1, public, round_2, expected", [
    # player_0 raises to 3, player_1 folds its ante of 1
    ((QS, KS), "rf", None, "", 1),
    # check, player_1 raises to 3, player_0 folds its ante
    ((KS, JS), "crf", None, "", -1),
    # checks to the showdown, pot 1 + 1: Q beats J (K public pairs nobody)
    ((QS, JS), "cc", KS, "cc", 1),
    # player_0 K, player_1 Q, raise-call to 3 each, public Q: player_1's pair beats the king
    ((KS, QS), "rc", QH, "cc", -3),
    # most chips: 1 + 2 + 2 (round 1) + 4 + 4 (round 2) = 13 each; player_0 pairs the jack
    ((JS, KS), "rrc", JH, "rrc", 13),
    # round 2: raise to 1 + 4 = 5, re-raise to 9, player_0 folds its 5
    ((KS, QS), "cc", JS, "rrf", -5),
    # a check-raise called in round 1 (3 each), then player_1 raises to 7 in round 2 and
    # player_0 calls; jack and jack with a queen public: equal ranks split the pot
    ((JS, JH), "crc", QS, "crc", 0),
])
def test_hand_computed_payoffs(cards, round_1, public, round_2, expected):
    env = play(*cards, round_1, public, round_2)
    assert env.is_terminated()
    assert env.reward("player_0") == expected and env.reward("player_1") == -expected
    assert env.legal_action_space() == []


def test_hand_strength_pair_beats_rank_and_suits_tie():
    assert hand_strength(JS, JH) > hand_strength(KS, QS) > hand_strength(QS, KH) \
        > hand_strength(JS, KH)
    assert hand_strength(QS, KS) == hand_strength(QH, KH)  # suits do not rank


def test_legal_actions_fold_only_facing_a_raise_and_two_raises_a_round():
    env = play(KS, QS, "")
    assert env.current_player() == "player_0"
    assert env.legal_action_space() == [CALL, RAISE]       # nothing to fold against
    env(RAISE)
    assert env.current_player() == "player_1"
    assert env.legal_action_space() == [FOLD, CALL, RAISE]
    env(RAISE)
    assert env.legal_action_space() == [FOLD, CALL]        # the cap: two raises
    assert env.legal_action_space_mask().tolist() == [True, True, False]
    assert env.stakes == [3, 5]
    env(CALL)
    # the round is over: chance deals the public card among the four cards left, 1/4 each
    assert env.current_player() is CHANCE_PLAYER and env.legal_action_space() == [0, 1, 3, 5]
    assert env.prob().tolist() == [0.25, 0.25, 0.0, 0.25, 0.0, 0.25]
    assert env.legal_action_space("player_0") == []
    env(JS)
    assert env.round == 1 and env.current_player() == "player_0"
    env(CALL)
    env(RAISE)  # raises by 4 in the second round: 5 + 4
    assert env.stakes == [5, 9] and env.legal_action_space() == [FOLD, CALL, RAISE]


def test_player_0_opens_both_rounds():
    env = play(KS, QS, "crc")  # player_1 closed the first round
    env(JS)
    assert env.current_player() == "player_0" and env.legal_action_space() == [CALL, RAISE]


def test_bad_actions_are_refused_and_leave_the_hand_unchanged():
    env = play(KS, QS, "")
    with pytest.raises(ValueError, match="legal"):
        env(FOLD)  # not facing a raise
    with pytest.raises(ValueError, match="legal"):
        env(3)     # no such action
    env(RAISE)
    env(RAISE)
    with pytest.raises(ValueError, match="legal"):
        env(RAISE)  # a third raise
    assert env.histories == ["rr", ""] and env.stakes == [3, 5]
    env(FOLD)
    with pytest.raises(RuntimeError, match="reset"):
        env(CALL)
    dealer = LeducPokerEnv()
    dealer.reset()
    dealer(KS)
    with pytest.raises(ValueError, match="legal"):
        dealer(KS)  # dealt already
    with pytest.raises(ValueError, match="player"):
        dealer.reward("player_2")
    with pytest.raises(ValueError, match="mode"):
        dealer.render("rgb_array")


def test_information_states_hide_the_other_card():
    env = play(KS, QS, "rc", JH, "r")
    assert env.information_set("player_0") == (KS, JH, "rc", "r")
    assert env.information_set("player_1") == (QS, JH, "rc", "r")
    assert env.information_set(CHANCE_PLAYER) == (None, JH, "rc", "r")
    assert INFO_SETS[env.state("player_1")] == (QS, JH, "rc", "r")
    assert env.state_space().n == len(INFO_SETS) == 2805
    x = env.information_state_tensor("player_1")
    # player one-hot, own card QS = 2, public JH = 1, round 1: raise 01 call 10, round 2: raise
    expected = np.zeros(30, dtype=np.float32)
    expected[[1, 2 + QS, 8 + JH, 14 + 1, 14 + 2, 22 + 1]] = 1
    assert x.dtype == np.float32 and x.tolist() == expected.tolist()
    assert env.reward("player_0") == 0.0 and "Ks" in env.render()


def count_information_states(env):
    """Our own walk of every history: the (player, state) pairs where a player acts."""
    found, stack, histories = set(), [env], 0
    while stack:
        env = stack.pop()
        histories += 1
        if env.is_terminated():
            continue
        player = env.current_player()
        if player is not CHANCE_PLAYER:
            found.add((player, env.state(player)))
        for action in env.legal_action_space():
            child = copy.deepcopy(env)
            child(action)
            stack.append(child)
    return histories, found


def test_game_size_matches_openspiel():
    # Per deal (30 deals): 6 betting nodes in round 1, 4 folds, 5 calls each going to a chance
    # node with 4 public cards, each opening a round-2 subtree of 15 histories: 15 + 5 * 4 * 15
    # = 315; with the two deal chance levels (1 + 6): 7 + 30 * 315 = 9457 histories. Information
    # states: 6 cards x (6 round-1 states + 5 round-1 calls x 5 public cards x 6 round-2 states)
    # = 936, OpenSpiel's count for both players.
    env = LeducPokerEnv()
    env.reset()
    histories, found = count_information_states(env)
    assert len(ROUND_HISTORIES) == 15
    assert histories == 9457 and len(found) == 936
    assert sum(p == "player_0" for p, _ in found) == 468


def test_game_tree_and_nash_conv_of_uniform_play():
    tree = GameTree(LeducPokerEnv())
    assert tree.n_nodes == 9457 and tree.n_infosets == 936
    uniform = TabularRandomPolicy(tree)
    # OpenSpiel's exploitability_test.py (test_leduc_poker_uniform_random): 4.747222222222222;
    # player_0's value under uniform play, -0.078125, agrees with other implementations.
    assert nash_conv(tree, uniform) == pytest.approx(4.747222222222222, abs=1e-12)
    assert expected_policy_values(tree, uniform) == pytest.approx([-0.078125, 0.078125],
                                                                  abs=1e-12)


def test_random_hands_through_multi_agent_policy_are_zero_sum():
    env = LeducPokerEnv()
    assert env.ChanceStyle is EXPLICIT_STOCHASTIC
    policy = MultiAgentPolicy({"player_0": RandomPolicy(seed=0), "player_1": RandomPolicy(seed=1),
                               CHANCE_PLAYER: ChancePolicy(seed=2)})
    hook = run(policy, env, StopAfterEpisode(200),
               MultiAgentHook({p: TotalRewardPerEpisode() for p in env.players()}))
    rewards = np.array([hook["player_0"].rewards, hook["player_1"].rewards])
    assert rewards.shape == (2, 200) and np.all(rewards.sum(axis=0) == 0)
    assert np.all(np.abs(rewards) <= 13) and len(np.unique(rewards[0])) > 5


def test_passes_interface_checks():
    test_interfaces(LeducPokerEnv(), n_episodes=50)
    assert test_runnable(LeducPokerEnv(), n_steps=2000, seed=0) > 100


@pytest.mark.filterwarnings("ignore::UserWarning")  # PettingZoo's style advice
def test_pettingzoo_api_test_passes():
    api_test(to_pettingzoo(LeducPokerEnv(seed=0), parallel=False, seed=0), num_cycles=200)

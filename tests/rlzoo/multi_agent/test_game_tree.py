"""Tests of rlzoo/multi_agent/game_tree.py."""

import numpy as np
import pytest

from rlenvs import KuhnPokerEnv, RockPaperScissorsEnv, SequentialEnv
from rlenvs.games.kuhn_poker import INFO_SETS
from rlzoo.multi_agent.game_tree import (
    CHANCE, TERMINAL, GameTree, TabularGamePolicy, TabularRandomPolicy,
)


@pytest.fixture(scope="module")
def kuhn():
    return GameTree(KuhnPokerEnv())


def test_kuhn_tree_shape(kuhn):
    # 1 root deal + 3 second deals (chance), 6 deals x 4 decision nodes (h = "", p, b, pb),
    # 6 deals x 5 terminal histories (pp, pbp, pbb, bp, bb): 58 nodes.
    assert kuhn.n_nodes == 58
    assert (kuhn.node_player == CHANCE).sum() == 4
    assert (kuhn.node_player == TERMINAL).sum() == 30
    assert (kuhn.node_player >= 0).sum() == 24
    assert kuhn.n_infosets == 12 and kuhn.n_actions == 2
    assert np.bincount(kuhn.infoset_player).tolist() == [6, 6]
    assert all(len(nodes) == 2 for nodes in kuhn.infoset_nodes)  # 2 opponent cards each
    # the chance edges out of the root: three cards with probability 1/3
    root_edges = slice(kuhn.node_edges[0], kuhn.node_edges[1])
    assert kuhn.edge_action[root_edges].tolist() == [0, 1, 2]
    assert np.allclose(kuhn.edge_prob[root_edges], 1 / 3)
    # parents come first; every edge's child has that edge's parent
    assert np.all(kuhn.node_parent[1:] < np.arange(1, kuhn.n_nodes))
    assert np.array_equal(kuhn.node_parent[kuhn.edge_child], kuhn.edge_parent)
    assert np.array_equal(kuhn.node_action[kuhn.edge_child], kuhn.edge_action)


def test_kuhn_returns_and_infosets(kuhn):
    # K vs J, bet-call: player_0 wins 2.
    node = 0
    for a in (2, 0, 1, 1):
        edges = range(kuhn.node_edges[node], kuhn.node_edges[node + 1])
        node = next(kuhn.edge_child[e] for e in edges if kuhn.edge_action[e] == a)
    assert kuhn.node_player[node] == TERMINAL
    assert kuhn.node_returns[node].tolist() == [2.0, -2.0]
    replay = kuhn.env_at(node)
    assert replay.cards == [2, 0] and replay.history == "bb"
    i = kuhn.infoset_index(kuhn.env_at(kuhn.node_parent[node]), "player_1")
    assert INFO_SETS[kuhn.infoset_keys[i][1]] == (0, "b")
    with pytest.raises(KeyError, match="information set"):
        kuhn.infoset_index(KuhnPokerEnv(), "player_0")  # before the deal: no decision there


def test_tabular_policies(kuhn):
    uniform = TabularRandomPolicy(kuhn, seed=0)
    assert np.allclose(kuhn.policy_table(uniform), 0.5)
    table = kuhn.uniform_table()
    table[0] = [1.0, 0.0]
    policy = TabularGamePolicy(kuhn, table, seed=1)
    env = kuhn.infoset_env(0)
    assert policy.action_probabilities(env).tolist() == [1.0, 0.0]
    assert all(policy(env) == 0 for _ in range(20))
    with pytest.raises(ValueError, match="shape"):
        TabularGamePolicy(kuhn, np.ones((3, 2)) / 2)
    with pytest.raises(ValueError, match="distribution"):
        TabularGamePolicy(kuhn, np.ones((12, 2)))

    class Bad:
        def action_probabilities(self, env, player):
            return np.array([0.7, 0.7])
    with pytest.raises(ValueError, match="distribution over the legal actions"):
        kuhn.policy_table(Bad())
    with pytest.raises(TypeError, match="action_probabilities"):
        kuhn.policy_table(object())


def test_simultaneous_games_and_limits():
    # (Tic-tac-toe's tree, built once by hand: 549,946 nodes, the known number of histories,
    # and 4,520 decision positions, the 5,478 legal positions less 958 terminal ones; it takes
    # about a minute, too long for the suite.)
    with pytest.raises(ValueError, match="SEQUENTIAL"):
        GameTree(RockPaperScissorsEnv())
    rps = GameTree(SequentialEnv(RockPaperScissorsEnv()))
    assert (rps.node_player == TERMINAL).sum() == 9
    with pytest.raises(ValueError, match="max_nodes"):
        GameTree(KuhnPokerEnv(), max_nodes=10)


def test_chance_probabilities_are_checked():
    class BadDeal(KuhnPokerEnv):
        def prob(self, player=None):
            return np.array([0.5, 0.4, 0.3])  # sums to 1.2

    with pytest.raises(ValueError, match="distribution over the chance player's"):
        GameTree(BadDeal())

"""Tests of rlzoo/multi_agent/deep_cfr.py and its experiments."""

import numpy as np
import pytest
import torch

from rlcore import StopAfterStep, run
from rlcore.dispatch import update
from rlcore.stages import POST_ACT_STAGE
from rlenvs import KuhnPokerEnv, LeducPokerEnv, RockPaperScissorsEnv, SequentialEnv
from rlenvs.games.kuhn_poker import INFO_SETS
from rlzoo.experiments.deep_cfr import DeepCFR_KuhnPoker
from rlzoo.multi_agent.deep_cfr import (
    DeepCFRPolicy, ReservoirMemory, information_state_tensor, kuhn_information_state_tensor,
    strategy_from_advantages,
)
from rlzoo.multi_agent.game_tree import GameTree
from rlzoo.multi_agent.hooks import NashConvHook

J, Q, K = 0, 1, 2
PASS, BET = 0, 1
SMALL = dict(n_traversals=10, advantage_train_steps=5, policy_train_steps=5,
             advantage_batch_size=32, policy_batch_size=32)


@pytest.fixture(scope="module")
def kuhn():
    return GameTree(KuhnPokerEnv())


def infoset(tree, card, history):
    return next(i for i, (_, key) in enumerate(tree.infoset_keys)
                if INFO_SETS[key] == (card, history))


def child(tree, node, action):
    edges = range(tree.node_edges[node], tree.node_edges[node + 1])
    return next(tree.edge_child[e] for e in edges if tree.edge_action[e] == action)


def test_traversal_regrets_by_hand(kuhn):
    # The deal K to player_0, J to player_1. player_0 plays uniformly at (K, "") and (K, "pb");
    # player_1 folds to a bet at (J, "b") and bets after a pass at (J, "p").
    strategy = kuhn.uniform_table()
    strategy[infoset(kuhn, J, "b")] = [1.0, 0.0]
    strategy[infoset(kuhn, J, "p")] = [0.0, 1.0]
    deal = child(kuhn, child(kuhn, 0, K), J)
    solver = DeepCFRPolicy(kuhn, seed=0)
    value, regrets, strategies = solver.traverse(0, strategy, node=deal)
    # (K, "pb"): fold -1, call +2 (K beats J); σ = (1/2, 1/2): value 1/2, regrets (-3/2, 3/2).
    # (K, ""): pass -> player_1 bets -> (K, "pb") worth 1/2; bet -> player_1 folds: +1.
    # σ = (1/2, 1/2): value 3/4, regrets (1/2 - 3/4, 1 - 3/4) = (-1/4, 1/4).
    assert value == pytest.approx(0.75)
    assert [i for i, _ in regrets] == [infoset(kuhn, K, "pb"), infoset(kuhn, K, "")]
    assert np.allclose([r for _, r in regrets], [[-1.5, 1.5], [-0.25, 0.25]])
    # player_1's nodes: (J, "p") under the pass, then (J, "b") under the bet, with their σ
    assert strategies == [(infoset(kuhn, J, "p"), [0.0, 1.0]),
                          (infoset(kuhn, J, "b"), [1.0, 0.0])]


def test_traversal_on_rock_paper_scissors_by_hand():
    # player_0 (1/2, 1/4, 1/4) against a player_1 who always shows paper: the values of rock,
    # paper, scissors are -1, 0, +1; value -1/2 + 1/4 = -1/4; regrets (-3/4, 1/4, 5/4).
    tree = GameTree(SequentialEnv(RockPaperScissorsEnv()))
    solver = DeepCFRPolicy(tree, features=lambda env, player: np.ones(1), seed=0)
    value, regrets, strategies = solver.traverse(0, np.array([[0.5, 0.25, 0.25], [0, 1, 0]]))
    assert value == pytest.approx(-0.25)
    assert np.allclose(regrets[0][1], [-0.75, 0.25, 1.25])
    # player_1's one information set, met at its three histories (one under each action)
    assert strategies == [(1, [0.0, 1.0, 0.0])] * 3


def test_strategy_from_advantages():
    advantages = torch.tensor([[1.0, 3.0, -2.0], [-1.0, -0.5, 4.0], [0.0, 0.0, 0.0]])
    legal = torch.tensor([[True, True, True], [True, True, False], [True, True, True]])
    # positive parts (1, 3, 0)/4; none positive among the legal: the larger legal one, -0.5;
    # all zero: the first (argmax of ties)
    assert strategy_from_advantages(advantages, legal).tolist() == [
        [0.25, 0.75, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


def test_reservoir_memory_is_uniform():
    rng = np.random.default_rng(0)
    kept = np.zeros(4)
    for _ in range(3000):
        memory = ReservoirMemory(2, {"x": ((), np.int64)}, rng)
        memory.push(x=np.arange(2))
        memory.push(x=np.arange(2, 4))
        kept[memory.columns["x"]] += 1
    # each of the 4 rows is held with probability 2/4
    assert np.allclose(kept / 3000, 0.5, atol=0.04)
    with pytest.raises(ValueError, match="columns"):
        memory.push(y=np.arange(2))
    with pytest.raises(ValueError, match="capacity"):
        ReservoirMemory(0, {"x": ((), np.int64)}, rng)


def test_advantage_fit_weights_rows_by_iteration(kuhn, one_thread):
    # Two rows of one information set: iteration 1 with regrets (0, 0), iteration 3 with
    # (4, -4). Linear CFR weighs them 1 and 3: the fit's minimiser is (3, -3), not (2, -2).
    solver = DeepCFRPolicy(kuhn, advantage_train_steps=400, advantage_batch_size=64, seed=0)
    i = infoset(kuhn, K, "")
    solver.advantage_memories[0].push(infoset=np.array([i, i]), iteration=np.array([1, 3]),
                                      regret=np.array([[0.0, 0.0], [4.0, -4.0]]))
    solver.iteration = 3
    solver.train_advantage_network(0)
    with torch.no_grad():
        advantages = solver.advantage_networks[0](solver.feature_table[[i]])[0]
    assert advantages.tolist() == pytest.approx([3.0, -3.0], abs=0.1)


def test_policy_fit_is_the_weighted_average(kuhn, one_thread):
    # σ = (1, 0) at iteration 1 and (0, 1) at iteration 3: Π = (1/4, 3/4) at that set.
    solver = DeepCFRPolicy(kuhn, policy_train_steps=400, policy_batch_size=64, seed=0)
    i = infoset(kuhn, J, "p")
    solver.strategy_memory.push(infoset=np.array([i, i]), iteration=np.array([1, 3]),
                                strategy=np.array([[1.0, 0.0], [0.0, 1.0]]))
    solver.iteration = 3
    probs = solver.action_probabilities(kuhn.infoset_env(i))
    assert probs.tolist() == pytest.approx([0.25, 0.75], abs=0.02)


def test_seeds_reproduce_and_measuring_changes_nothing(kuhn, one_thread):
    def solve(seed, hook):
        solver = DeepCFRPolicy(kuhn, seed=seed, **SMALL)
        run(solver, KuhnPokerEnv(), StopAfterStep(3), hook)
        return solver, kuhn.policy_table(solver)

    a, table_a = solve(0, NashConvHook(kuhn, every=1))  # a policy fit after every iteration
    b, table_b = solve(0, NashConvHook(kuhn, every=100))
    c, table_c = solve(1, NashConvHook(kuhn, every=100))
    for memory_a, memory_b in zip(a.advantage_memories + [a.strategy_memory],
                                  b.advantage_memories + [b.strategy_memory]):
        for name, column in memory_a.columns.items():
            assert np.array_equal(column, memory_b.columns[name])
    assert np.array_equal(a.current_strategy(), b.current_strategy())
    assert np.array_equal(table_a, table_b)
    assert not np.array_equal(table_a, table_c)


def test_before_any_iteration_the_policy_is_uniform(kuhn):
    solver = DeepCFRPolicy(kuhn, seed=0)
    assert solver.action_probabilities(kuhn.infoset_env(3)).tolist() == [0.5, 0.5]
    assert np.array_equal(solver.current_strategy(), kuhn.uniform_table())


def test_one_iteration_fills_the_memories(kuhn, one_thread):
    solver = DeepCFRPolicy(kuhn, seed=0, **SMALL)
    update(solver, KuhnPokerEnv(), POST_ACT_STAGE)
    for p in (0, 1):
        memory = solver.advantage_memories[p]
        rows = memory.columns["infoset"][:len(memory)]
        # each traversal visits 1 to 3 nodes of the traverser, in its own information sets
        assert 10 <= len(memory) <= 30 and set(kuhn.infoset_player[rows]) == {p}
        assert set(memory.columns["iteration"][:len(memory)]) == {1.0}
        assert solver.advantage_networks[p] is not None and solver.advantage_losses[p]
    assert len(solver.strategy_memory) >= 20 and solver.iteration == 1


def test_features():
    env = KuhnPokerEnv()
    env.reset()
    env(Q)
    env(K)
    env(BET)
    # player_1 holds K and faces a bet: player one-hot, card one-hot, "b" as 01
    assert kuhn_information_state_tensor(env, "player_1").tolist() == \
        [0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0]
    assert np.array_equal(information_state_tensor(env, "player_0"),
                          kuhn_information_state_tensor(env, "player_0"))
    leduc = LeducPokerEnv()
    leduc.reset()
    leduc(0)
    leduc(3)
    assert information_state_tensor(leduc, "player_0").shape == (30,)
    with pytest.raises(TypeError, match="features="):
        information_state_tensor(SequentialEnv(RockPaperScissorsEnv()), "player_0")


def test_validation(kuhn):
    with pytest.raises(TypeError, match="GameTree"):
        DeepCFRPolicy(KuhnPokerEnv())
    with pytest.raises(TypeError, match="features"):
        DeepCFRPolicy(kuhn, features="cards")
    with pytest.raises(ValueError, match="1-d"):
        DeepCFRPolicy(kuhn, features=lambda env, player: np.zeros((2, 2)))
    with pytest.raises(ValueError, match="advantage_hidden"):
        DeepCFRPolicy(kuhn, advantage_hidden=(64, 0))
    with pytest.raises(ValueError, match="n_traversals"):
        DeepCFRPolicy(kuhn, n_traversals=0)
    with pytest.raises(TypeError, match="features="):
        DeepCFRPolicy(GameTree(SequentialEnv(RockPaperScissorsEnv())))


@pytest.mark.slow
def test_learns_kuhn(one_thread):
    # Budget: DeepCFR_KuhnPoker's defaults, 100 iterations of 50 traversals per player and 100
    # advantage steps (batch 512) per player and iteration, and one policy fit (500 steps) at
    # the end: about 17 s on one thread (up to 75 s on a loaded 2-core machine). Measured
    # NashConv after 100 iterations, seeds 0-4: 0.032, 0.025, 0.035, 0.050, 0.028 (uniform play:
    # 0.917); the players' values -0.055 +- 0.004 (the game's: -1/18 = -0.056).
    experiment = DeepCFR_KuhnPoker(seed=0, every=100)
    hook = run(experiment)
    assert hook.steps == [100]
    assert hook.values[0] < 0.08

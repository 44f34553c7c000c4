"""Tests of rlzoo/multi_agent/tabular_cfr.py and the tabular experiments of
rlzoo/experiments/cfr.py."""

import numpy as np
import pytest

from rlcore import POST_ACT_STAGE, StopAfterStep, run
from rlcore.dispatch import update
from rlenvs import KuhnPokerEnv, LeducPokerEnv, RockPaperScissorsEnv
from rlenvs.games.kuhn_poker import INFO_SETS
from rlzoo.experiments.cfr import TabularCFR_KuhnPoker, TabularCFR_LeducHoldem
from rlzoo.multi_agent.exploitability import expected_policy_values, nash_conv
from rlzoo.multi_agent.game_tree import GameTree
from rlzoo.multi_agent.hooks import NashConvHook
from rlzoo.multi_agent.tabular_cfr import TabularCFRPolicy, regret_matching

J, Q, K = 0, 1, 2
PASS, BET = 0, 1
PLAIN_CFR = {"is_reset_neg_regrets": False, "is_linear_averaging": False,
             "is_alternating_update": False}
# OpenSpiel's CFRSolver: regret matching, uniform averaging, alternating updates
OPENSPIEL_CFR = {"is_reset_neg_regrets": False, "is_linear_averaging": False}


@pytest.fixture(scope="module")
def kuhn():
    return GameTree(KuhnPokerEnv())


@pytest.fixture(scope="module")
def leduc():
    return GameTree(LeducPokerEnv())


def infoset(tree, player, card, history):
    """The index of Kuhn's information set (card, history) of ``player``."""
    return next(i for i, (p, key) in enumerate(tree.infoset_keys)
                if p == player and INFO_SETS[key] == (card, history))


def test_regret_matching():
    # R = [1, 3] -> [1/4, 3/4]; R = [-1, 2, 0] -> [0, 1, 0]; no positive regret -> uniform
    regrets = np.array([[1.0, 3.0, 0.0], [-1.0, 2.0, 0.0], [-1.0, -2.0, 0.0]])
    uniform = np.array([[0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0.0]])
    assert np.allclose(regret_matching(regrets, uniform),
                       [[0.25, 0.75, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.0]])


def test_one_cfr_plus_iteration_on_kuhn(kuhn):
    # Iteration 1, everyone uniform, each deal has chance reach 1/3 * 1/2 = 1/6.
    # player_0 updates first. With K (against J or Q, which K beats):
    #   v(pass) = 1/2 (pp: +1) + 1/2 (pb: 1/2 (pbp: -1) + 1/2 (pbb: +2) = 1/2) = 3/4
    #   v(bet)  = 1/2 (bp: +1) + 1/2 (bb: +2) = 3/2;   v = (3/4 + 3/2) / 2 = 9/8
    #   r(K, "") = 2 histories x 1/6 x [3/4 - 9/8, 3/2 - 9/8] = [-1/8, +1/8]
    # With J at "pb" (player_1 bet after the pass: pi_-0 = 1/6 x 1/2 = 1/12 per history):
    #   v(fold) = -1, v(call) = -2 (J loses to Q and K), v = -3/2
    #   r(J, "pb") = 2 x 1/12 x [-1 + 3/2, -2 + 3/2] = [+1/12, -1/12]
    # Regret matching+ floors at 0: R(K, "") = [0, 1/8] -> sigma = [0, 1] (always bet), and
    # player_0 bets at every opening (Q and J work out alike), R(J, "pb") = [1/12, 0] -> fold.
    # Then player_1 against the new sigma: at (Q, "b") pi_-1 = 1/6 x 1 per history;
    #   against J: v(pass) = -1 (bp), v(call) = +2 (bb), v = 1/2;
    #   against K: v(pass) = -1, v(call) = -2, v = -3/2
    #   r(Q, "b") = 1/6 x [(-1 - 1/2) + (-1 + 3/2), (2 - 1/2) + (-2 + 3/2)] = [-1/6, +1/6]
    # and (Q, "p") is no longer reached by player_0 (pi_-1 = 0): no regret.
    # The average, weight t = 1: S(K, "") = 2 histories x pi_0 = 1 x [1/2, 1/2] = [1, 1].
    solver = TabularCFRPolicy(kuhn)
    update(solver, KuhnPokerEnv(), POST_ACT_STAGE)
    R, S, sigma = solver.cumulative_regrets, solver.cumulative_policy, solver.current_policy
    assert np.allclose(R[infoset(kuhn, "player_0", K, "")], [0.0, 1 / 8])
    assert np.allclose(R[infoset(kuhn, "player_0", J, "pb")], [1 / 12, 0.0])
    assert np.allclose(sigma[infoset(kuhn, "player_0", K, "")], [0.0, 1.0])
    assert np.allclose(sigma[infoset(kuhn, "player_0", J, "pb")], [1.0, 0.0])
    assert np.allclose(R[infoset(kuhn, "player_1", Q, "b")], [0.0, 1 / 6])
    assert np.allclose(R[infoset(kuhn, "player_1", Q, "p")], [0.0, 0.0])
    assert np.allclose(S[infoset(kuhn, "player_0", K, "")], [1.0, 1.0])
    assert solver.iteration == 1


def test_one_plain_cfr_iteration_on_kuhn(kuhn):
    # Simultaneous updates: both players against the uniform policy, negative regrets kept.
    # player_0 as above: r(K, "") = [-1/8, +1/8], r(J, "pb") = [+1/12, -1/12].
    # player_1 at (Q, "b"), pi_-1 = 1/6 x 1/2 = 1/12 per history: [-1/12, +1/12]; at (Q, "p"),
    # pi_-1 = 1/12: against J v(pass) = +1 (pp), v(bet) = 1/2 (+1 fold) + 1/2 (+2 call) = 3/2,
    # v = 5/4; against K v(pass) = -1, v(bet) = 1/2 (+1) + 1/2 (-2) = -1/2, v = -3/4;
    #   r(Q, "p") = 1/12 x [(1 - 5/4) + (-1 + 3/4), (3/2 - 5/4) + (-1/2 + 3/4)] = [-1/24, +1/24]
    solver = TabularCFRPolicy(kuhn, **PLAIN_CFR)
    update(solver, KuhnPokerEnv(), POST_ACT_STAGE)
    R = solver.cumulative_regrets
    assert np.allclose(R[infoset(kuhn, "player_0", K, "")], [-1 / 8, 1 / 8])
    assert np.allclose(R[infoset(kuhn, "player_0", J, "pb")], [1 / 12, -1 / 12])
    assert np.allclose(R[infoset(kuhn, "player_1", Q, "b")], [-1 / 12, 1 / 12])
    assert np.allclose(R[infoset(kuhn, "player_1", Q, "p")], [-1 / 24, 1 / 24])
    # weight 1, reach 1 at the openings: S(K, "") = 2 x [1/2, 1/2]
    assert np.allclose(solver.cumulative_policy[infoset(kuhn, "player_0", K, "")], [1.0, 1.0])


def test_cfr_plus_solves_kuhn(kuhn):
    # Budget 300 iterations (OpenSpiel's CFR+ test: values within 1e-3 after 200).
    solver = TabularCFRPolicy(kuhn)
    run(solver, KuhnPokerEnv(), StopAfterStep(300))
    assert np.allclose(expected_policy_values(kuhn, solver), [-1 / 18, 1 / 18], atol=1e-3)
    assert nash_conv(kuhn, solver) < 1e-3
    # the equilibrium family: with a king, player_0 calls a bet; with a jack it folds
    env = KuhnPokerEnv()
    for a in (K, J, PASS, BET):
        env(a)
    assert solver.action_probabilities(env)[BET] > 0.99


def test_plain_cfr_on_kuhn(kuhn):
    # Plain CFR (simultaneous updates) is slower: 1,000 iterations for the values, NashConv
    # 0.0145 then (0.027 after 300).
    solver = TabularCFRPolicy(kuhn, **PLAIN_CFR)
    run(solver, KuhnPokerEnv(), StopAfterStep(1000))
    assert np.allclose(expected_policy_values(kuhn, solver), [-1 / 18, 1 / 18], atol=1e-3)
    assert nash_conv(kuhn, solver) < 0.02


def test_cfr_plus_on_leduc(leduc):
    # Budget 300 iterations: NashConv 0.0046 (from 4.747 for the uniform policy).
    solver = TabularCFRPolicy(leduc)
    run(solver, LeducPokerEnv(), StopAfterStep(300))
    assert nash_conv(leduc, solver) < 0.01


def test_matches_openspiel_cfr_on_leduc(leduc):
    # OpenSpiel's CFRSolver on leduc_poker, exploitability (NashConv / 2) printed after 1, 101
    # and 201 iterations in google-deepmind/open_spiel pull request #197: 2.37361, 0.0939493,
    # 0.0533379.
    solver = TabularCFRPolicy(leduc, **OPENSPIEL_CFR)
    env = LeducPokerEnv()
    printed = {1: 2.37361, 101: 0.0939493, 201: 0.0533379}
    for t in range(1, 202):
        update(solver, env, POST_ACT_STAGE)
        if t in printed:
            assert nash_conv(leduc, solver) / 2 == pytest.approx(printed[t], rel=1e-5)


def test_averaging_delay(kuhn):
    # weights max(t - 3, 0): nothing enters the average before iteration 4
    solver = TabularCFRPolicy(kuhn, weighted_averaging_delay=3)
    env = KuhnPokerEnv()
    for _ in range(3):
        update(solver, env, POST_ACT_STAGE)
    assert not solver.cumulative_policy.any()
    assert np.allclose(solver.average_policy_table(), kuhn.uniform_table())
    update(solver, env, POST_ACT_STAGE)
    assert solver.cumulative_policy.any()


def test_run_does_one_iteration_per_step(kuhn):
    solver = TabularCFRPolicy(kuhn)
    hook = run(solver, KuhnPokerEnv(), StopAfterStep(7), NashConvHook(kuhn, every=3))
    assert solver.iteration == 7
    assert hook.steps == [3, 6, 7]
    # the hook measured the solver's average policy after 3 iterations: replay them
    replay = TabularCFRPolicy(kuhn)
    for _ in range(3):
        update(replay, KuhnPokerEnv(), POST_ACT_STAGE)
    assert hook.values[0] == pytest.approx(nash_conv(kuhn, replay), abs=1e-12)


def test_sampling_is_seeded(kuhn):
    env = KuhnPokerEnv()
    env(K)
    env(J)
    solvers = [TabularCFRPolicy(kuhn, seed=s) for s in (5, 5, 6)]
    actions = [[solver(env) for _ in range(20)] for solver in solvers]  # the uniform average
    assert actions[0] == actions[1] != actions[2]
    assert set(actions[0]) <= {PASS, BET}


def test_errors(kuhn):
    with pytest.raises(TypeError, match="must be a GameTree"):
        TabularCFRPolicy(KuhnPokerEnv())
    with pytest.raises(ValueError, match="weighted_averaging_delay"):
        TabularCFRPolicy(kuhn, weighted_averaging_delay=-1)
    with pytest.raises(ValueError, match="would be ignored"):
        TabularCFRPolicy(kuhn, weighted_averaging_delay=5, is_linear_averaging=False)
    with pytest.raises(TypeError, match="is_alternating_update"):
        TabularCFRPolicy(kuhn, is_alternating_update="yes")
    # games a GameTree cannot hold: simultaneous moves, too many histories
    with pytest.raises(ValueError, match="SEQUENTIAL"):
        GameTree(RockPaperScissorsEnv())
    with pytest.raises(ValueError, match="max_nodes"):
        GameTree(LeducPokerEnv(), max_nodes=1000)
    # a run on another game than the tree's
    with pytest.raises(ValueError, match="solves the game of its tree"):
        run(TabularCFRPolicy(kuhn), LeducPokerEnv(), StopAfterStep(1))


def test_experiments():
    hook = run(TabularCFR_KuhnPoker(steps=100, every=50))
    assert hook.steps == [50, 100] and hook.values[-1] < 0.01
    hook = run(TabularCFR_KuhnPoker(steps=20, every=10, plus=False))
    assert hook.steps == [10, 20] and hook.values[-1] < 0.5
    experiment = TabularCFR_LeducHoldem(steps=10, every=10)
    assert "CFR+ on Leduc hold'em" in experiment.description
    assert run(experiment).values[-1] < 4.7  # the uniform policy: 4.747

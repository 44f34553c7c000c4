"""Dynamic programming reproduces the exact tables of Sutton & Barto, chapters 3 and 4."""

import numpy as np
import pytest

from rlenvs.gamblers_problem import GamblersProblemEnv
from rlenvs.grid_world import example_3_5_grid, example_4_1_grid
from rlenvs.jacks_car_rental import JacksCarRentalEnv
from rlzoo.tabular.dynamic_programming import (
    action_values, greedy_policy, policy_evaluation, policy_evaluation_exact, policy_iteration,
    uniform_policy, value_iteration,
)

FIG_3_2 = [[3.3, 8.8, 4.4, 5.3, 1.5],
           [1.5, 3.0, 2.3, 1.9, 0.5],
           [0.1, 0.7, 0.7, 0.4, -0.4],
           [-1.0, -0.4, -0.4, -0.6, -1.2],
           [-1.9, -1.3, -1.2, -1.4, -2.0]]
FIG_3_5 = [[22.0, 24.4, 22.0, 19.4, 17.5],
           [19.8, 22.0, 19.8, 17.8, 16.0],
           [17.8, 19.8, 17.8, 16.0, 14.4],
           [16.0, 17.8, 16.0, 14.4, 13.0],
           [14.4, 16.0, 14.4, 13.0, 11.7]]
FIG_4_1 = [[0, -14, -20, -22],
           [-14, -18, -20, -20],
           [-20, -20, -18, -14],
           [-22, -20, -14, 0]]


@pytest.mark.parametrize("method", ["exact", "in_place", "two_array"])
def test_figure_3_2_equiprobable_values(method):
    env = example_3_5_grid()
    pi = uniform_policy(env)
    if method == "exact":
        V = policy_evaluation_exact(env, pi, gamma=0.9)
    else:
        V, _ = policy_evaluation(env, pi, gamma=0.9, in_place=method == "in_place")
    # The book prints one decimal: rounding must reproduce the table exactly.
    np.testing.assert_array_equal(np.round(V.reshape(5, 5), 1), FIG_3_2)


def test_figure_3_5_optimal_values_and_policy():
    env = example_3_5_grid()
    V, _ = value_iteration(env, gamma=0.9)
    np.testing.assert_array_equal(np.round(V.reshape(5, 5), 1), FIG_3_5)
    pi = greedy_policy(env, V, gamma=0.9)
    # In A every action teleports: all four tie. Below A′'s row the optimal moves are up.
    assert np.allclose(pi[env.to_state((0, 1))], 0.25)
    assert pi[env.to_state((4, 1))].tolist() == [1.0, 0.0, 0.0, 0.0]
    # Policy iteration finds the same optimal values.
    _, V_pi, _ = policy_iteration(env, gamma=0.9, theta=1e-10)
    np.testing.assert_allclose(V_pi, V, atol=1e-6)


def test_figure_4_1_equiprobable_values_and_greedy_ties():
    env = example_4_1_grid()
    V_in, sweeps_in = policy_evaluation(env, uniform_policy(env), gamma=1.0, theta=1e-10)
    V_two, sweeps_two = policy_evaluation(env, uniform_policy(env), gamma=1.0, theta=1e-10,
                                          in_place=False)
    np.testing.assert_array_equal(np.round(V_in.reshape(4, 4)), FIG_4_1)
    np.testing.assert_allclose(V_in, V_two, atol=1e-8)
    np.testing.assert_allclose(V_in, policy_evaluation_exact(env, uniform_policy(env)), atol=1e-8)
    assert sweeps_in < sweeps_two  # §4.1: the in-place version usually converges faster
    # Sweeps k = 1, 2, 3 of the two-array version (Figure 4.1's left column), exactly: all
    # values are multiples of 1/16 (averages of four neighbours, minus 1).
    sixteenths = {1: [[0, -16, -16, -16], [-16, -16, -16, -16], [-16, -16, -16, -16],
                      [-16, -16, -16, 0]],
                  2: [[0, -28, -32, -32], [-28, -32, -32, -32], [-32, -32, -32, -28],
                      [-32, -32, -28, 0]],
                  3: [[0, -39, -47, -48], [-39, -46, -48, -47], [-47, -48, -46, -39],
                      [-48, -47, -39, 0]]}
    book = {2: [[0.0, -1.7, -2.0, -2.0], [-1.7, -2.0, -2.0, -2.0], [-2.0, -2.0, -2.0, -1.7],
                [-2.0, -2.0, -1.7, 0.0]],
            3: [[0.0, -2.4, -2.9, -3.0], [-2.4, -2.9, -3.0, -2.9], [-2.9, -3.0, -2.9, -2.4],
                [-3.0, -2.9, -2.4, 0.0]]}
    V_k = None
    for k in (1, 2, 3):
        V_k, _ = policy_evaluation(env, uniform_policy(env), theta=np.inf, in_place=False, V=V_k)
        np.testing.assert_array_equal(V_k.reshape(4, 4) * 16, sixteenths[k])
        if k in book:  # the book prints one decimal, rounding halves up (−1.75 → −1.7)
            np.testing.assert_allclose(np.floor(V_k.reshape(4, 4) * 10 + 0.5) / 10, book[k])
    # Greedy arrows of Figure 4.1 (last panel): state 1 goes left; state 5 goes up or left.
    pi = greedy_policy(env, V_in)
    assert pi[1].tolist() == [0.0, 0.0, 0.0, 1.0]
    assert pi[5].tolist() == [0.5, 0.0, 0.0, 0.5]
    q = action_values(env, V_in)
    assert q[1, 3] == pytest.approx(-1.0)


def test_jacks_car_rental_policy_iteration():
    env = JacksCarRentalEnv()
    never_move = np.zeros((env.n_states, env.n_actions))
    never_move[:, env.action_of_move(0)] = 1.0
    pi, V, policies = policy_iteration(env, gamma=0.9, theta=1e-4, pi=never_move)
    # Figure 4.2: π0 (never move) … π4, which is optimal: four improvements.
    assert len(policies) - 1 == 4
    moves = np.array([env.move_of_action(a) for a in pi.argmax(axis=1)]).reshape(21, 21)
    # Policy corners (first index: cars at the first location): empty lots move nothing, a full
    # first lot and an empty second one moves the maximum 5, the reverse moves 4 back, and two
    # full lots move nothing.
    assert moves[0, 0] == 0 and moves[20, 0] == 5 and moves[0, 20] == -4 and moves[20, 20] == 0
    # The policy is greedy for its own values and these are optimal (value iteration agrees).
    V_star, _ = value_iteration(env, gamma=0.9, theta=1e-4)
    np.testing.assert_allclose(V, V_star, atol=0.01)
    # Exact values of v_π4 (reference: the same evaluation with theta = 1e-10). Evaluation stops
    # when a sweep changes no value by more than θ = 1e-4, so |V − v_π| <= θ γ / (1 − γ) =
    # 9e-4: atol = 1e-3.
    assert V.min() == pytest.approx(421.4141, abs=1e-3)  # at (0, 0)
    assert V.max() == pytest.approx(636.9896, abs=1e-3)  # at (20, 20)
    assert V[env.to_state(10, 10)] == pytest.approx(574.9483, abs=1e-3)
    assert V.argmin() == env.to_state(0, 0) and V.argmax() == env.to_state(20, 20)
    # The book's Figure 4.2 draws v_π4 on an axis from 420 to 612; our maximum is 637. The book
    # does not say it truncates the Poisson distributions; truncating them at 11 (as some
    # re-implementations do) gives 421.26..635.55 here, so truncation does not explain 612.
    # Whether 612 is the maximum or only the last axis label is unverified.


def test_gamblers_problem_value_iteration():
    env = GamblersProblemEnv(p_h=0.4)
    V, sweeps = value_iteration(env, gamma=1.0, theta=1e-12)
    # With p_h < 0.5 bold play is optimal: V(25) = p², V(50) = p, V(75) = p + (1 − p) p.
    assert V[[25, 50, 75]] == pytest.approx([0.16, 0.4, 0.64], abs=1e-9)
    bold = np.zeros((101, 51))
    for s in range(1, 100):
        bold[s, min(s, 100 - s)] = 1.0
    np.testing.assert_allclose(V, policy_evaluation_exact(env, bold), atol=1e-9)
    pi = greedy_policy(env, V, tol=1e-9)
    assert pi[50, 50] == 1.0  # stake everything at 50
    assert len(sweeps) > 3  # Figure 4.3 draws sweeps 1, 2, 3 and the final one
    assert V[0] == 0.0 and V[100] == 0.0


def test_dp_validates():
    env = example_4_1_grid()
    with pytest.raises(ValueError, match="gamma"):
        policy_evaluation(env, uniform_policy(env), gamma=1.5)
    with pytest.raises(ValueError, match="shape"):
        policy_evaluation(env, np.ones((3, 4)) / 4)
    with pytest.raises(ValueError, match="sum"):
        policy_evaluation(env, np.ones((16, 4)))
    with pytest.raises(TypeError, match="AbstractTabularModel"):
        value_iteration("grid")
    with pytest.raises(ValueError, match="illegal"):
        pi = np.zeros((101, 51))
        pi[1:100, 0] = 1.0
        policy_evaluation(GamblersProblemEnv(), pi)


def _random_walk_values(N, rewards):
    """``v_π`` of the uniform random policy on ``RandomWalk1D``, its model read off the env."""
    from rlcore.envs.tabular_model import AbstractTabularModel
    from rlenvs import RandomWalk1D

    env = RandomWalk1D(N=N, rewards=rewards)

    class Model(AbstractTabularModel):
        n_states, n_actions = N, 2

        def transitions(self, s, a):
            env.position = s
            env(a)
            return [(1.0, env.state(), env.reward())]

        def is_terminal_state(self, s):
            return s in (0, N - 1)

    model = Model()
    return policy_evaluation_exact(model, uniform_policy(model), gamma=1.0)


def test_random_walk_true_values():
    # Example 6.2: 5 states A..E, reward +1 on the right → 1/6 … 5/6.
    np.testing.assert_allclose(_random_walk_values(7, (0.0, 1.0))[1:6], np.arange(1, 6) / 6)
    # Figure 7.2: 19 states, −1 on the left and +1 on the right → −0.9, −0.8, …, 0.9.
    np.testing.assert_allclose(_random_walk_values(21, (-1.0, 1.0))[1:20],
                               np.arange(-9, 10) / 10, atol=1e-12)


def test_optimal_path_lengths_of_chapter_6_grids():
    from rlenvs.grid_world import cliff_walking, windy_grid_world

    def v_start(env):
        V, _ = value_iteration(env, gamma=1.0, theta=1e-9)
        return V[env.to_state(env.start)]
    # Example 6.5: 15 steps to the goal; Exercise 6.9: 7 with king's moves; Example 6.6: the
    # optimal path along the cliff takes 13 steps. With −1 per step, v*(start) = −steps.
    assert v_start(windy_grid_world()) == pytest.approx(-15.0)
    assert v_start(windy_grid_world(king_moves=True)) == pytest.approx(-7.0)
    assert v_start(cliff_walking()) == pytest.approx(-13.0)
    # Stochastic wind makes the goal farther in expectation than the deterministic 7.
    assert v_start(windy_grid_world(king_moves=True, stochastic_wind=True)) < -7.5

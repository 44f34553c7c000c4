"""GridWorldEnv: the book's grid worlds step as described and pass the interface checks."""

import numpy as np
import pytest

from rlcore import test_interfaces, test_runnable
from rlcore.envs.tabular_model import model_arrays
from rlenvs.grid_world import (
    GridWorldEnv, cliff_walking, example_3_5_grid, example_4_1_grid, windy_grid_world,
)

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3


@pytest.mark.parametrize("make", [
    lambda: example_3_5_grid(seed=0, max_steps=100),
    lambda: example_4_1_grid(seed=0),
    lambda: windy_grid_world(seed=0, max_steps=300),
    lambda: windy_grid_world(king_moves=True, stochastic_wind=True, seed=0, max_steps=300),
    lambda: cliff_walking(seed=0, max_steps=300),
    lambda: GridWorldEnv(shape=(3, 3), walls=[(1, 1)], terminals=[(2, 2)], seed=0),
])
def test_interfaces_and_runnable(make):
    test_interfaces(make())
    test_runnable(make(), n_steps=2000, seed=0)


def test_example_3_5_teleports_and_off_grid():
    env = example_3_5_grid(start=(0, 1))
    env.reset()
    env(UP)  # any action in A jumps to A′ with +10
    assert env.position == (4, 1) and env.reward() == 10.0
    env(DOWN)  # off the grid: −1, stays
    assert env.position == (4, 1) and env.reward() == -1.0
    env(RIGHT)
    assert env.position == (4, 2) and env.reward() == 0.0
    env = example_3_5_grid(start=(0, 3))
    env.reset()
    env(LEFT)
    assert env.position == (2, 3) and env.reward() == 5.0


def test_windy_grid_world_wind_and_king_moves():
    env = windy_grid_world()
    env.reset()
    for _ in range(3):
        env(RIGHT)
    assert env.position == (3, 3)
    env(RIGHT)  # column 3 has wind 1
    assert env.position == (2, 4) and env.reward() == -1.0
    # The book's optimal path takes 15 steps.
    env.reset()
    for a in [RIGHT] * 9 + [DOWN] * 4 + [LEFT] * 2:
        env(a)
    assert env.is_terminated() and env.steps == 15
    king = windy_grid_world(king_moves=True)
    assert king.action_space().n == 8
    king.reset()
    king(5)  # down-right from (3, 0): no wind in column 0
    assert king.position == (4, 1)


def test_stochastic_wind_distribution():
    env = windy_grid_world(stochastic_wind=True)
    s = env.to_state((3, 4))  # wind 1: pushes 0, 1 or 2 up
    outcomes = sorted((env.to_cell(t), p) for p, t, _ in env.transitions(s, RIGHT))
    assert outcomes == [((1, 5), pytest.approx(1 / 3)), ((2, 5), pytest.approx(1 / 3)),
                        ((3, 5), pytest.approx(1 / 3))]
    assert len(env.transitions(env.to_state((3, 0)), RIGHT)) == 1  # no wind, no randomness
    env = windy_grid_world(stochastic_wind=True, seed=1)
    counts = {}
    for _ in range(3000):
        env.reset()
        env.position = (3, 4)
        env(RIGHT)
        counts[env.position] = counts.get(env.position, 0) + 1
    # each of the three outcomes has p = 1/3: std of a count is sqrt(3000·2/9) ≈ 26, 5σ = 130
    assert all(abs(c - 1000) < 130 for c in counts.values()) and len(counts) == 3


def test_cliff_walking():
    env = cliff_walking()
    env.reset()
    env(RIGHT)  # into the cliff
    assert env.position == (3, 0) and env.reward() == -100.0 and not env.is_terminated()
    for a in [UP] + [RIGHT] * 11 + [DOWN]:
        env(a)
    assert env.is_terminated() and env.reward() == -1.0


def test_walls_and_truncation():
    env = GridWorldEnv(shape=(1, 3), start=(0, 0), walls=[(0, 1)], max_steps=2)
    env.reset()
    env(RIGHT)
    assert env.position == (0, 0)
    env(RIGHT)
    assert env.is_truncated() and not env.is_terminated()
    with pytest.raises(RuntimeError, match="reset"):
        env(RIGHT)


def test_model_matches_steps():
    env = example_4_1_grid()
    m = model_arrays(env)
    assert m.terminal.sum() == 2 and m.legal[1:15].all()
    assert m.R[1].tolist() == [-1.0] * 4
    assert m.P[1, LEFT, 0] == 1.0


def test_validation():
    with pytest.raises(ValueError, match="outside"):
        GridWorldEnv(shape=(2, 2), terminals=[(5, 5)])
    with pytest.raises(ValueError, match="wind"):
        GridWorldEnv(shape=(2, 2), wind=[1])
    with pytest.raises(ValueError, match="action 9"):
        example_4_1_grid(seed=0)(9)
    with pytest.raises(ValueError, match="max_steps"):
        GridWorldEnv(max_steps=0)

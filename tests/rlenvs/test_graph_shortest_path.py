"""Tests of rlenvs/graph_shortest_path.py."""

import numpy as np
import pytest

from rlenvs import GraphShortestPathEnv


def test_following_shortest_paths_reaches_the_goal_in_distance_steps():
    env = GraphShortestPathEnv(n=20, sparsity=0.15, max_steps=50, seed=0)
    distance = env.distances()
    assert distance[env.goal] == 0
    for _ in range(30):
        env.reset()
        start = env.state()
        if distance[start] < 0:
            continue
        total, steps = 0.0, 0
        while not env.is_terminated():
            neighbours = env.legal_action_space()
            best = min((a for a in neighbours if distance[a] >= 0), key=lambda a: distance[a])
            assert distance[best] == distance[env.state()] - 1
            env(best)
            total += env.reward()
            steps += 1
        assert steps == distance[start] and total == -(distance[start] - 1)


def test_only_edges_are_legal_and_time_limit_truncates():
    env = GraphShortestPathEnv(n=6, sparsity=0.2, max_steps=2, seed=1)
    env.reset()
    mask = env.legal_action_space_mask()
    assert mask[env.state()] and mask.tolist() == env.adjacency[env.state()].tolist()
    illegal = np.flatnonzero(~mask)
    if illegal.size:
        with pytest.raises(ValueError):
            env(int(illegal[0]))
    here = env.state()
    if here != env.goal:
        env(here)
        env(here)
        assert env.is_truncated() and not env.is_terminated()


def test_graph_is_seeded():
    a, b = GraphShortestPathEnv(seed=5), GraphShortestPathEnv(seed=5)
    assert np.array_equal(a.adjacency, b.adjacency) and a.goal == b.goal
    with pytest.raises(ValueError, match="sparsity"):
        GraphShortestPathEnv(sparsity=0.0)

"""Shortest paths on a random directed graph, after RL.jl's ``GraphShortestPathEnv``."""

from collections import deque

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    FULL_ACTION_SET, GENERAL_SUM, OBSERVATION, PERFECT_INFORMATION,
    SEQUENTIAL, SINGLE_AGENT, STEP_REWARD, STOCHASTIC, AbstractEnv,
)
from rlcore.utils.random import make_rng

__all__ = ["GraphShortestPathEnv"]


class GraphShortestPathEnv(AbstractEnv):
    """Walk a random directed graph of ``n`` nodes from a random start to a fixed goal node.

    The graph is drawn once, at construction, with ``rng``: every ordered pair of distinct nodes
    is an edge with probability ``sparsity``, and every node has a self-loop so it always has a
    move; the goal node is drawn too. Each episode starts at a random node other than the goal.
    The action is the next node, legal only along an edge (FULL_ACTION_SET). Reward -1 per step
    and 0 for the step that reaches the goal, which terminates the episode; ``max_steps`` steps
    truncate it. The best return from node ``s`` is ``-(distance(s) - 1)``.

    Keyword arguments: ``n=10`` (at least 2), ``sparsity=0.1`` (in (0, 1]), ``max_steps=10``,
    ``rng``/``seed``.

    Example::

        >>> env = GraphShortestPathEnv(n=5, sparsity=1.0, seed=0)
        >>> env.reset(); env(env.goal); env.is_terminated(), env.reward()
        (True, 0.0)
    """

    NumAgentStyle = SINGLE_AGENT
    DynamicStyle = SEQUENTIAL
    InformationStyle = PERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = STEP_REWARD
    UtilityStyle = GENERAL_SUM
    ActionStyle = FULL_ACTION_SET
    StateStyle = (OBSERVATION,)

    def __init__(self, *, n=10, sparsity=0.1, max_steps=10, rng=None, seed=None):
        if not isinstance(n, (int, np.integer)) or n < 2:
            raise ValueError(f"GraphShortestPathEnv needs n >= 2 nodes, got n={n!r}")
        if not 0.0 < sparsity <= 1.0:
            raise ValueError(f"sparsity must be an edge probability in (0, 1], got "
                             f"sparsity={sparsity!r}")
        if not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, got max_steps={max_steps!r}")
        self.n, self.sparsity, self.max_steps = int(n), float(sparsity), int(max_steps)
        self.rng = make_rng(rng, seed)
        self.adjacency = self.rng.random((self.n, self.n)) < self.sparsity
        np.fill_diagonal(self.adjacency, True)
        self.goal = int(self.rng.integers(self.n))
        self._space = spaces.Discrete(self.n)
        self.position = (self.goal + 1) % self.n
        self.t = 0
        self._reward = 0.0

    def distances(self):
        """Edges on a shortest path from each node to the goal (``-1`` where unreachable),
        by breadth-first search over the reversed edges."""
        distance = np.full(self.n, -1, dtype=np.int64)
        distance[self.goal] = 0
        queue = deque([self.goal])
        while queue:
            node = queue.popleft()
            for previous in np.flatnonzero(self.adjacency[:, node]):
                if distance[previous] < 0:
                    distance[previous] = distance[node] + 1
                    queue.append(int(previous))
        return distance

    def reset(self):
        start = int(self.rng.integers(self.n - 1))
        self.position = start if start < self.goal else start + 1
        self.t = 0
        self._reward = 0.0

    def legal_action_space(self, player=None):
        return [int(a) for a in np.flatnonzero(self.adjacency[self.position])]

    def legal_action_space_mask(self, player=None):
        return self.adjacency[self.position].copy()

    def __call__(self, action):
        self.check_action(action)
        if self.is_terminated() or self.is_truncated():
            raise RuntimeError(f"{self!r}: the episode is over; call reset() before acting")
        self.position = int(action)
        self.t += 1
        self._reward = 0.0 if self.position == self.goal else -1.0

    def state(self, player=None):
        return self.position

    def state_space(self, player=None):
        return self._space

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        return self.position == self.goal

    def is_truncated(self):
        return self.t >= self.max_steps and not self.is_terminated()

    def action_space(self, player=None):
        return self._space

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"GraphShortestPathEnv renders only mode='text', got mode={mode!r}")
        targets = self.legal_action_space()
        return f"at node {self.position}, goal {self.goal}, edges to {targets}, step {self.t}"

    def __repr__(self):
        return (f"GraphShortestPathEnv(n={self.n}, sparsity={self.sparsity}, "
                f"max_steps={self.max_steps})")

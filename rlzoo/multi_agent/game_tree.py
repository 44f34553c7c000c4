"""The tree of every history of a finite sequential game, and tabular policies on it.

Reference: the extensive form as in OpenSpiel (Lanctot et al., *OpenSpiel: A Framework for
Reinforcement Learning in Games*, 2019, arXiv:1908.09453): histories, information states, chance
nodes with explicit outcome probabilities. :class:`GameTree` enumerates the histories once from
``env.reset()``, branching through ``copy.deepcopy(env)``, and keeps them as flat arrays, so the
algorithms that sweep the whole tree (CFR, best responses, exploitability) run on arrays instead
of re-playing the game.

Layout: nodes ``0 .. n_nodes-1`` in depth-first order (the root is 0, a parent comes before its
children); the edges out of node ``n`` are ``node_edges[n]:node_edges[n+1]`` and their arrays
(``edge_action``, ``edge_child``, ``edge_prob``) are indexed by edge. A decision node belongs to
one information set (``node_infoset``); an information set belongs to one player and has a
legal-action mask over ``n_actions`` actions. Tables of a tabular policy are
``(n_infosets, n_actions)``.

Example, Kuhn poker (12 information sets of two players, 6 deals)::

    >>> from rlenvs import KuhnPokerEnv
    >>> tree = GameTree(KuhnPokerEnv())
    >>> tree.n_infosets, int((tree.node_player == TERMINAL).sum())
    (12, 30)
    >>> TabularRandomPolicy(tree).action_probabilities(tree.infoset_env(0)).tolist()
    [0.5, 0.5]
"""

import copy

import attrs
import numpy as np
from gymnasium import spaces

from rlcore.envs import CHANCE_PLAYER, SEQUENTIAL, FullActionSet
from rlcore.policies.base import AbstractPolicy
from rlcore.utils.random import make_rng

__all__ = ["GameTree", "TabularGamePolicy", "TabularRandomPolicy", "default_info_key",
           "CHANCE", "TERMINAL"]

CHANCE = -1    # node_player of a chance node
TERMINAL = -2  # node_player of a terminal node


def default_info_key(env, player):
    """``env.state(player)`` made hashable: an array becomes ``(shape, dtype, bytes)``."""
    state = env.state(player)
    if isinstance(state, np.ndarray):
        return state.shape, state.dtype.str, state.tobytes()
    if isinstance(state, list):
        return tuple(state)
    return state


def _chance_probabilities(env):
    """``env.prob()``, checked to be a distribution over the chance player's action space."""
    probs = np.asarray(env.prob(), dtype=np.float64)
    space = env.action_space()
    n = space.n if isinstance(space, spaces.Discrete) else None
    if probs.ndim != 1 or (n is not None and len(probs) > n) or not np.all(np.isfinite(probs)) \
            or np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
        raise ValueError(f"{env!r}: prob() at a chance node must be a distribution over the "
                         f"chance player's {space!r}, got {probs!r}")
    return probs


def _legal_actions(env):
    space = env.action_space()
    if not isinstance(space, spaces.Discrete):
        raise ValueError(f"GameTree needs Discrete action spaces; {env!r} gives "
                         f"{space!r} to {env.current_player()!r}")
    if isinstance(env.ActionStyle, FullActionSet):
        return np.flatnonzero(env.legal_action_space_mask()), space.n
    return np.arange(space.n), space.n


class GameTree:
    """Every history of a finite SEQUENTIAL game with explicit chance (or none), as arrays.

    Built by a depth-first walk from a copy of ``env`` after ``reset()``: at a chance node the
    outcomes are the actions with ``env.prob() > 0``; at a decision node, the legal actions; each
    child is a ``copy.deepcopy`` of its parent after the action. Terminal nodes are those where
    ``is_terminated()`` or ``is_truncated()`` holds; ``node_returns`` sums each player's
    ``reward(player)`` along the history.

    Information sets are keyed by ``info_key(env, player)`` (default :func:`default_info_key`,
    ``env.state(player)``), so a game whose ``state(player)`` is the player's information state
    (Kuhn and Leduc poker) or its full observation (perfect information) needs nothing more.

    Keyword arguments: ``info_key=default_info_key``, ``max_nodes=2_000_000`` (a larger tree
    raises ``ValueError`` instead of exhausting memory).

    Arrays (see the module docstring for the layout): ``node_player``, ``node_infoset``,
    ``node_depth``, ``node_parent``, ``node_action``, ``node_edges``, ``node_returns``;
    ``edge_action``, ``edge_child``, ``edge_prob``, ``edge_parent``; ``infoset_keys``,
    ``infoset_player``, ``infoset_legal``, ``infoset_nodes`` (the nodes of each set).
    """

    def __init__(self, env, *, info_key=default_info_key, max_nodes=2_000_000):
        if env.DynamicStyle is not SEQUENTIAL:
            raise ValueError(f"GameTree needs a SEQUENTIAL game; {env!r} is "
                             f"{env.DynamicStyle!r} (wrap it in rlenvs.SequentialEnv)")
        if not callable(info_key):
            raise TypeError(f"info_key must be callable (env, player) -> key, got {info_key!r}")
        self.players = tuple(env.players())
        self.info_key = info_key
        self._player_index = {p: i for i, p in enumerate(self.players)}
        root = copy.deepcopy(env)
        root.reset()
        player, infoset, depth, parent, action, returns = [], [], [], [], [], []
        edges_of = []          # per node: list of edge indices
        edge_action, edge_prob, edge_child, edge_parent = [], [], [], []
        self._index = {}       # (player, key) -> infoset
        self.infoset_keys, infoset_player, legal_masks, self._infoset_envs = [], [], [], []
        infoset_nodes = []
        n_actions = 1
        stack = [(root, -1, -1, 0, np.zeros(len(self.players)))]
        while stack:
            env_here, parent_edge, act, d, ret = stack.pop()
            node = len(player)
            if node >= max_nodes:
                raise ValueError(f"the game tree of {env!r} has more than max_nodes="
                                 f"{max_nodes} nodes")
            if parent_edge >= 0:
                edge_child[parent_edge] = node
            parent.append(edge_parent[parent_edge] if parent_edge >= 0 else -1)
            action.append(act)
            depth.append(d)
            returns.append(ret)
            edges_of.append([])
            if env_here.is_terminated() or env_here.is_truncated():
                player.append(TERMINAL)
                infoset.append(-1)
                continue
            mover = env_here.current_player()
            if mover is CHANCE_PLAYER:
                probs = _chance_probabilities(env_here)
                outcomes = np.flatnonzero(probs > 0)
                player.append(CHANCE)
                infoset.append(-1)
                pairs = [(int(a), float(probs[a])) for a in outcomes]
            else:
                if mover not in self._player_index:
                    raise ValueError(f"{env!r}: current_player() {mover!r} is not one of "
                                     f"{self.players} or CHANCE_PLAYER")
                legal, n = _legal_actions(env_here)
                n_actions = max(n_actions, n)
                key = (mover, info_key(env_here, mover))
                index = self._index.get(key)
                if index is None:
                    index = self._index[key] = len(self.infoset_keys)
                    self.infoset_keys.append(key)
                    infoset_player.append(self._player_index[mover])
                    legal_masks.append(legal)
                    self._infoset_envs.append(env_here)
                    infoset_nodes.append([])
                elif not np.array_equal(legal_masks[index], legal):
                    raise ValueError(f"{env!r}: information set {key!r} has different legal "
                                     f"actions at two histories ({legal_masks[index].tolist()} "
                                     f"and {legal.tolist()}); info_key must tell them apart")
                infoset_nodes[index].append(node)
                player.append(self._player_index[mover])
                infoset.append(index)
                pairs = [(int(a), 1.0) for a in legal]
            children = []
            for a, p in pairs:
                child = copy.deepcopy(env_here)
                child(a)
                e = len(edge_action)
                edge_action.append(a)
                edge_prob.append(p)
                edge_child.append(-1)
                edge_parent.append(node)
                edges_of[node].append(e)
                children.append((child, e, a, d + 1,
                                 ret + [float(child.reward(q)) for q in self.players]))
            stack.extend(reversed(children))  # depth-first, first action first
        # edges were numbered in creation order; renumber them so each node's are contiguous
        order = [e for es in edges_of for e in es]
        self.node_edges = np.zeros(len(player) + 1, dtype=np.int64)
        self.node_edges[1:] = np.cumsum([len(es) for es in edges_of])
        self.edge_action = np.asarray(edge_action, dtype=np.int64)[order]
        self.edge_prob = np.asarray(edge_prob, dtype=np.float64)[order]
        self.edge_child = np.asarray(edge_child, dtype=np.int64)[order]
        self.edge_parent = np.asarray(edge_parent, dtype=np.int64)[order]
        self.node_player = np.asarray(player, dtype=np.int64)
        self.node_infoset = np.asarray(infoset, dtype=np.int64)
        self.node_depth = np.asarray(depth, dtype=np.int64)
        self.node_parent = np.asarray(parent, dtype=np.int64)
        self.node_action = np.asarray(action, dtype=np.int64)
        self.node_returns = np.asarray(returns, dtype=np.float64)
        self.n_nodes = len(player)
        self.n_actions = n_actions
        self.n_infosets = len(self.infoset_keys)
        self.infoset_player = np.asarray(infoset_player, dtype=np.int64)
        self.infoset_legal = np.zeros((self.n_infosets, n_actions), dtype=bool)
        for i, legal in enumerate(legal_masks):
            self.infoset_legal[i, legal] = True
        self.infoset_nodes = [np.asarray(nodes, dtype=np.int64) for nodes in infoset_nodes]
        # the table column of each edge's action at decision nodes (chance edges: -1)
        decision = self.node_player[self.edge_parent] >= 0
        self.edge_infoset = np.where(decision, self.node_infoset[self.edge_parent], -1)
        self._levels = None

    def __repr__(self):
        return (f"GameTree({self.n_nodes} nodes, {self.n_infosets} information sets, "
                f"players {self.players})")

    @property
    def levels(self):
        """The edges grouped by the depth of their parent, deepest first: a list of index arrays
        (backward sweeps go through it in order, forward sweeps in reverse)."""
        if self._levels is None:
            depth = self.node_depth[self.edge_parent]
            self._levels = [np.flatnonzero(depth == d) for d in range(depth.max(), -1, -1)]
        return self._levels

    def infoset_index(self, env, player=None):
        """The index of the information set ``player`` (default: the current player) is in."""
        player = env.current_player() if player is None else player
        key = (player, self.info_key(env, player))
        try:
            return self._index[key]
        except KeyError:
            raise KeyError(f"information set {key!r} is not in this {self!r}") from None

    def infoset_env(self, i):
        """A copy of the environment at one history of information set ``i``."""
        return copy.deepcopy(self._infoset_envs[i])

    def env_at(self, node, env=None):
        """A copy of the environment at ``node``, replayed from the root (``env``: the game the
        tree was built from, needed only to start the replay; default: a copy of the first
        information set's)."""
        path = []
        while node > 0:
            path.append(int(self.node_action[node]))
            node = int(self.node_parent[node])
        env = copy.deepcopy(self._infoset_envs[0] if env is None else env)
        env.reset()
        for a in reversed(path):
            env(a)
        return env

    def policy_table(self, policy):
        """``(n_infosets, n_actions)``: ``policy.action_probabilities(env, player)`` at one
        history of each information set, checked to be a distribution over legal actions."""
        if not hasattr(policy, "action_probabilities"):
            raise TypeError(f"{type(policy).__name__} has no action_probabilities(env, player); "
                            "a game policy needs one")
        table = np.zeros((self.n_infosets, self.n_actions))
        for i, env in enumerate(self._infoset_envs):
            player = self.players[self.infoset_player[i]]
            probs = np.asarray(policy.action_probabilities(env, player), dtype=np.float64)
            n = len(probs)
            if probs.ndim != 1 or n > self.n_actions or not np.isclose(probs.sum(), 1.0) \
                    or np.any(probs < -1e-12) or np.any(probs[~self.infoset_legal[i, :n]] > 1e-12):
                raise ValueError(f"{type(policy).__name__}.action_probabilities at information "
                                 f"set {self.infoset_keys[i]!r} gave {probs!r}; expected a "
                                 f"distribution over the legal actions "
                                 f"{np.flatnonzero(self.infoset_legal[i]).tolist()}")
            table[i, :n] = np.clip(probs, 0.0, None)
        return table

    def edge_probabilities(self, table):
        """The probability of every edge under ``table`` (chance edges: their outcome
        probability)."""
        decision = self.edge_infoset >= 0
        probs = self.edge_prob.copy()
        probs[decision] = table[self.edge_infoset[decision], self.edge_action[decision]]
        return probs

    def uniform_table(self):
        """The uniform distribution over each information set's legal actions."""
        return self.infoset_legal / self.infoset_legal.sum(axis=1, keepdims=True)


@attrs.define(eq=False)
class TabularGamePolicy(AbstractPolicy):
    """A policy for every player of a game, one distribution per information set of ``tree``:
    ``table`` is ``(n_infosets, n_actions)`` (default: uniform over the legal actions).

    ``action_probabilities(env, player=None)`` is the row of the information set ``player``
    (default: the current player) is in; ``policy(env)`` samples it with ``rng`` (or ``seed``).

    >>> from rlenvs import KuhnPokerEnv
    >>> tree = GameTree(KuhnPokerEnv())
    >>> policy = TabularGamePolicy(tree, seed=0)
    >>> env = tree.infoset_env(0)
    >>> policy(env) in (0, 1)
    True
    """

    tree: GameTree = attrs.field(repr=False)
    table: np.ndarray = attrs.field(default=None, repr=False)
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)

    def __attrs_post_init__(self):
        if not isinstance(self.tree, GameTree):
            raise TypeError(f"tree must be a GameTree, got {self.tree!r}")
        if self.table is None:
            self.table = self.tree.uniform_table()
        table = np.asarray(self.table, dtype=np.float64)
        expected = (self.tree.n_infosets, self.tree.n_actions)
        if table.shape != expected:
            raise ValueError(f"table must have shape {expected} (information sets, actions), "
                             f"got {table.shape}")
        if not np.allclose(table.sum(axis=1), 1.0) or np.any(table[~self.tree.infoset_legal] > 0):
            raise ValueError("every row of table must be a distribution over its information "
                             "set's legal actions")
        self.table = table
        self.rng = make_rng(self.rng, self.seed)

    def action_probabilities(self, env, player=None):
        player = env.current_player() if player is None else player
        row = self.table[self.tree.infoset_index(env, player)]
        return row[:env.action_space(player).n].copy()

    def __call__(self, env):
        p = self.action_probabilities(env)
        return int(self.rng.choice(len(p), p=p / p.sum()))


def TabularRandomPolicy(tree, *, rng=None, seed=None):
    """The uniformly random policy over each information set's legal actions, as a
    :class:`TabularGamePolicy` of ``tree``."""
    return TabularGamePolicy(tree, rng=rng, seed=seed)

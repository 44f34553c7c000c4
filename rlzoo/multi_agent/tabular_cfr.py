"""Counterfactual regret minimisation (CFR) and CFR+, sweeping the whole game tree.

References: Zinkevich, Johanson, Bowling & Piccione, *Regret Minimization in Games with
Incomplete Information*, NIPS 2007 (https://papers.nips.cc/paper/3306), CFR; Tammelin, *Solving
Large Imperfect Information Games Using CFR+*, 2014 (https://arxiv.org/abs/1407.5042), and
Tammelin, Burch, Johanson & Bowling, *Solving Heads-up Limit Texas Hold'em*, IJCAI 2015, CFR+:
regret matching+, weighted (linear) averaging with a delay, alternating updates. The keyword
arguments are those of RL.jl's ``TabularCFRPolicy``.

Iteration t, for a player i and the current policy σ^t of every player, over the histories h
of the game tree (π_i(h): the product of i's action probabilities on the way to h; π_{-i}(h):
that of everyone else's and chance's)::

    v_i(h)      = u_i(h) at a terminal, Σ_a σ^t(h, a) v_i(ha) elsewhere (chance: its probs)
    r^t(I, a)   = Σ_{h ∈ I} π_{-i}(h) (v_i(ha) − v_i(h))        counterfactual regret
    R^t(I, a)   = R^{t-1}(I, a) + r^t(I, a)                      CFR
                = max(R^{t-1}(I, a) + r^t(I, a), 0)              CFR+ (regret matching+)
    σ^{t+1}(I, a) = R^t(I, a)⁺ / Σ_b R^t(I, b)⁺   regret matching (uniform over the legal
                                                  actions where no R⁺ > 0)
    S^t(I, a)   = S^{t-1}(I, a) + w_t Σ_{h ∈ I} π_i(h) σ^t(I, a)
                  w_t = 1 (CFR), max(t − d, 0) (CFR+)

(with perfect recall every h ∈ I has the same π_i(h), so the sum in S is |I| π_i(I) σ^t(I, a),
as RL.jl and OpenSpiel accumulate it; the factor |I| cancels in the average).

The output, the policy that converges to an equilibrium, is the average ``S(I, ·) / Σ_a S(I,
a)``. Alternating updates (CFR+) do this for ``player_0``, then for ``player_1`` against
``player_0``'s new σ, and so on; simultaneous updates (CFR) do it for every player against the
same σ^t.

Structure: no recursion over histories (:func:`counterfactual_regrets`). The reaches go
forward over the tree's levels (root first), the values backward (deepest first), each level a
few numpy operations over all its edges (:attr:`GameTree.levels`, renumbered once so that a
level's children are one slice); the regrets of all information sets are one ``np.bincount``
over the player's edges. Shapes: tables ``(n_infosets, n_actions)``; values ``(n_nodes,)``;
reaches ``(n_nodes, 2)``, the columns ``[π_i, π_{-i}]``.
"""

import attrs
import numpy as np

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.stages import PostActStage
from rlcore.utils.random import make_rng
from rlcore.utils.validators import boolean, non_negative_int
from rlzoo.multi_agent.game_tree import GameTree
from rlzoo.multi_agent.solver import AbstractGameSolver, check_game_tree

__all__ = [
    "LevelOrder",
    "TabularCFRPolicy",
    "average_action_probabilities",
    "average_policy",
    "counterfactual_regrets",
    "regret_matching",
]


def regret_matching(regrets, uniform):
    """σ(I, a) = R(I, a)⁺ / Σ_b R(I, b)⁺ over the last axis; ``uniform`` (the same shape: the
    uniform distribution over the legal actions) where no regret is positive."""
    positive = np.maximum(regrets, 0.0)
    total = positive.sum(axis=-1, keepdims=True)
    return np.divide(positive, total, out=uniform.copy(), where=total > 0.0)


def average_policy(cumulative_policy, uniform):
    """The average policy ``S(I, ·) / Σ_a S(I, a)`` (``uniform`` where ``S`` is all zero: an
    information set never reached with positive weight)."""
    total = cumulative_policy.sum(axis=-1, keepdims=True)
    return np.divide(cumulative_policy, total, out=uniform.copy(), where=total > 0.0)


def average_action_probabilities(solver, env, player=None):
    """The row of ``solver``'s average policy at the information set ``player`` (default: the
    current player) is in at ``env``, over ``env.action_space(player)``: what a CFR-family
    solver's ``action_probabilities`` gives."""
    player = env.current_player() if player is None else player
    i = solver.tree.infoset_index(env, player)
    row = average_policy(solver.cumulative_policy[i], solver.tree.infoset_legal[i]
                         / solver.tree.infoset_legal[i].sum())
    return row[:env.action_space(player).n]


@attrs.define(eq=False)
class TabularCFRPolicy(AbstractGameSolver):
    """CFR+ (the defaults) or CFR on every information set of ``tree`` (a :class:`GameTree`);
    one ``update(solver, env, POST_ACT_STAGE)``, one step of ``run``, is one iteration (every
    player updated once). The policy it plays and ``action_probabilities(env, player)`` give is
    the average policy.

    Zinkevich et al. 2007 (CFR); Tammelin 2014, Tammelin et al. 2015 (CFR+); RL.jl's
    ``TabularCFRPolicy``. See the module docstring for the equations.

    Keyword arguments (the defaults are CFR+; plain CFR is ``is_reset_neg_regrets=False,
    is_linear_averaging=False, is_alternating_update=False``):

    * ``is_reset_neg_regrets=True``: regret matching+ (cumulative regrets floored at 0);
    * ``is_linear_averaging=True``: iteration t adds to the average with weight
      ``max(t − weighted_averaging_delay, 0)`` (else 1);
    * ``weighted_averaging_delay=0``: d above (Tammelin et al. 2015);
    * ``is_alternating_update=True``: update the players one after the other, each against the
      others' newest policy (else all against the same one);
    * ``rng``/``seed``: for sampling actions, ``solver(env)``.

    Fields: ``iteration`` (iterations done), ``cumulative_regrets`` (R), ``cumulative_policy``
    (S) and ``current_policy`` (σ), tables ``(n_infosets, n_actions)``.

    >>> from rlcore import StopAfterStep, run
    >>> from rlenvs import KuhnPokerEnv
    >>> from rlzoo.multi_agent.exploitability import nash_conv
    >>> tree = GameTree(KuhnPokerEnv())
    >>> solver = TabularCFRPolicy(tree)
    >>> _ = run(solver, KuhnPokerEnv(), StopAfterStep(300))
    >>> nash_conv(tree, solver) < 1e-3
    True
    """

    tree: GameTree = attrs.field(validator=check_game_tree, repr=False)
    is_reset_neg_regrets: bool = attrs.field(default=True, validator=boolean)
    is_linear_averaging: bool = attrs.field(default=True, validator=boolean)
    weighted_averaging_delay: int = attrs.field(default=0, validator=non_negative_int)

    @weighted_averaging_delay.validator
    def _delay_needs_linear_averaging(self, attribute, delay):
        if delay > 0 and not self.is_linear_averaging:
            raise ValueError(f"weighted_averaging_delay={delay} delays the linear average; "
                             f"with is_linear_averaging=False it would be ignored")
    is_alternating_update: bool = attrs.field(default=True, validator=boolean)
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)
    iteration: int = attrs.field(default=0, init=False)
    cumulative_regrets: np.ndarray = attrs.field(init=False, repr=False)
    cumulative_policy: np.ndarray = attrs.field(init=False, repr=False)
    current_policy: np.ndarray = attrs.field(init=False, repr=False)
    _uniform: np.ndarray = attrs.field(init=False, repr=False)
    _level_order: object = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)
        shape = (self.tree.n_infosets, self.tree.n_actions)
        self.cumulative_regrets = np.zeros(shape)
        self.cumulative_policy = np.zeros(shape)
        self._uniform = self.tree.uniform_table()
        self.current_policy = self._uniform.copy()
        self._level_order = LevelOrder(self.tree)

    def average_policy_table(self):
        """The average policy, ``(n_infosets, n_actions)``."""
        return average_policy(self.cumulative_policy, self._uniform)

    def action_probabilities(self, env, player=None):
        return average_action_probabilities(self, env, player)


@dispatch(TabularCFRPolicy, AbstractEnv, PostActStage)
def update(solver, env, stage):  # noqa: F811
    """One iteration: each player's regrets and average policy, alternately (each player
    against the others' newest σ) or simultaneously (all against σ^t)."""
    solver.iteration += 1
    t, d = solver.iteration, solver.weighted_averaging_delay
    weight = max(t - d, 0) if solver.is_linear_averaging else 1
    players = list(range(len(solver.tree.players)))
    for group in ([[i] for i in players] if solver.is_alternating_update else [players]):
        results = [counterfactual_regrets(solver.tree, solver._level_order,
                                          solver.current_policy, i) for i in group]
        for regrets, reach in results:
            _accumulate(solver, regrets, reach, weight)
        solver.current_policy = regret_matching(solver.cumulative_regrets, solver._uniform)


def _accumulate(solver, regrets, reach, weight):
    """R += r (floored at 0 for regret matching+), S += w π_i σ; σ is still σ^t here."""
    solver.cumulative_regrets += regrets
    if solver.is_reset_neg_regrets:
        np.maximum(solver.cumulative_regrets, 0.0, out=solver.cumulative_regrets)
    if weight:
        solver.cumulative_policy += weight * reach[:, None] * solver.current_policy


class LevelOrder:
    """The arrays of ``tree`` (a :class:`GameTree`) in *level order*, built once, so that each
    level of a sweep is a slice.

    Edges are ordered level by level from the root (:attr:`GameTree.levels` reversed), and
    nodes as the root followed by the children of the edges in that order: the child of the
    edge at position k is the node at position k + 1, so the children of a level's edges
    ``e0:e1`` are the nodes ``e0+1:e1+1``. ``levels``: per level, root first, ``(e0, e1,
    parents, starts, heads)``: the level's edges, the positions of their parents, where in
    ``e0:e1`` each parent's edges begin (a node's edges are contiguous; for ``np.add.reduceat``)
    and those parents' positions. ``returns[i]``: player index i's returns per node. Per player
    index i: ``split[i]`` ``(n_edges, 2)``, whether an edge's probability is a factor of
    ``π_i`` or of ``π_{-i}``; ``own[i]``, the positions of i's edges, with ``own_parent[i]`` and
    ``own_flat[i]`` (``infoset * n_actions + action``); ``own_nodes[i]`` and
    ``own_infoset[i]``, i's decision nodes and their information sets.
    """

    def __init__(self, tree):
        edge_order = np.concatenate(tree.levels[::-1])
        node_order = np.r_[0, tree.edge_child[edge_order]]
        position = np.empty(tree.n_nodes, dtype=np.int64)
        position[node_order] = np.arange(tree.n_nodes)
        parents = position[tree.edge_parent[edge_order]]
        self.edge_order = edge_order
        self.levels = []
        e0 = 0
        for edges in tree.levels[::-1]:
            e1 = e0 + len(edges)
            level_parents = parents[e0:e1]
            starts = np.flatnonzero(np.r_[True, level_parents[1:] != level_parents[:-1]])
            self.levels.append((e0, e1, level_parents, starts, level_parents[starts]))
            e0 = e1
        n_players = len(tree.players)
        self.returns = [np.ascontiguousarray(tree.node_returns[node_order, i])
                        for i in range(n_players)]
        owner = tree.node_player[tree.edge_parent[edge_order]]
        flat = tree.edge_infoset[edge_order] * tree.n_actions + tree.edge_action[edge_order]
        node_player = tree.node_player[node_order]
        self.split, self.own, self.own_parent, self.own_flat = [], [], [], []
        self.own_nodes, self.own_infoset = [], []
        for i in range(n_players):
            self.split.append(np.stack([owner == i, owner != i], axis=1))
            own = np.flatnonzero(owner == i)
            self.own.append(own)
            self.own_parent.append(parents[own])
            self.own_flat.append(flat[own])
            nodes = np.flatnonzero(node_player == i)
            self.own_nodes.append(nodes)
            self.own_infoset.append(tree.node_infoset[node_order[nodes]])


def counterfactual_regrets(tree, order, policy, player):
    """``(r, reach)`` for player index ``player`` when everyone plays the ``policy`` table
    (``order``: the tree's :class:`LevelOrder`):
    ``r`` ``(n_infosets, n_actions)`` the counterfactual regrets ``r(I, a)`` (zero at the other
    players' information sets), ``reach`` ``(n_infosets,)`` ``Σ_{h ∈ I} π_i(h)``."""
    probs = tree.edge_probabilities(policy).take(order.edge_order)
    factors = np.where(order.split[player], probs[:, None], 1.0)
    reach = np.empty((tree.n_nodes, 2))                   # [π_i(h), π_{-i}(h)]
    reach[0] = 1.0
    for e0, e1, parents, _, _ in order.levels:            # root first
        np.multiply(reach.take(parents, axis=0), factors[e0:e1], out=reach[e0 + 1:e1 + 1])
    values = order.returns[player].copy()                 # u_i at the terminals
    for e0, e1, _, starts, heads in reversed(order.levels):  # deepest first
        values.put(heads, np.add.reduceat(probs[e0:e1] * values[e0 + 1:e1 + 1], starts))
    own, parents = order.own[player], order.own_parent[player]
    # r(I, a) = Σ_{h ∈ I} π_{-i}(h) (v_i(ha) − v_i(h)); the child of edge k is node k + 1
    regrets = np.bincount(order.own_flat[player],
                          reach[:, 1].take(parents) * (values.take(own + 1) - values.take(parents)),
                          minlength=tree.n_infosets * tree.n_actions)
    own_reach = np.bincount(order.own_infoset[player], reach[:, 0].take(order.own_nodes[player]),
                            minlength=tree.n_infosets)
    return regrets.reshape(tree.n_infosets, tree.n_actions), own_reach

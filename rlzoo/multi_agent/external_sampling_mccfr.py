"""External-sampling Monte Carlo CFR: sample chance and the other players, enumerate one's own.

Reference: Lanctot, Waugh, Zinkevich & Bowling, *Monte Carlo Sampling for Regret Minimization
in Extensive Games*, NIPS 2009 (https://papers.nips.cc/paper/3713), external sampling; the
recursion as in Lanctot's thesis (2013) and OpenSpiel's ``external_sampling_mccfr`` (its
"simple" averaging).

An iteration is one *traversal* per player i (the traverser) of the :class:`GameTree`: at a
chance history one outcome is sampled, at another player's history one action from its current
policy σ (regret matching on its regrets), and at i's own histories every action is followed.
The sample probability of a terminal z is then π_{-i}(z), so the importance weights cancel and
the sampled counterfactual values are plain values of the sampled subtree::

    ṽ(z) = u_i(z)
    ṽ(h) = ṽ(ha'), a' sampled             at chance's and the other players' histories
    ṽ(h) = Σ_a σ(I, a) ṽ(ha)              at i's histories
    R(I, a) += ṽ(ha) − ṽ(h)               at each of i's histories visited

The average policy of another player j is updated where j acts, ``S(I, a) += σ(I, a)``: the
others sample their own policies, so a history of I is visited with probability proportional to
π_j(h) (*simple* averaging). With a third player k that weight would also carry π_k(h), which
changes between iterations, so the solver takes two-player games only.

Shapes: tables ``(n_infosets, n_actions)``; per-history vectors over the history's legal actions.
"""

import attrs
import numpy as np

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.stages import PostActStage
from rlcore.utils.random import make_rng
from rlzoo.multi_agent.game_tree import CHANCE, TERMINAL, GameTree
from rlzoo.multi_agent.outcome_sampling_mccfr import sample_index
from rlzoo.multi_agent.solver import AbstractGameSolver, check_game_tree
from rlzoo.multi_agent.tabular_cfr import (
    average_action_probabilities,
    average_policy,
    regret_matching,
)

__all__ = ["ExternalSamplingMCCFRPolicy"]


@attrs.define(eq=False)
class ExternalSamplingMCCFRPolicy(AbstractGameSolver):
    """External-sampling MCCFR on the information sets of ``tree`` (a :class:`GameTree`): one
    ``update(solver, env, POST_ACT_STAGE)``, one step of ``run``, is one iteration, one sampled
    traversal per player. ``action_probabilities(env, player)`` is the average policy.

    Lanctot et al. 2009; see the module docstring for the estimates.

    Keyword arguments: ``rng``/``seed`` (the sampling and ``solver(env)``).

    Fields: ``iteration``, ``cumulative_regrets`` (R) and ``cumulative_policy`` (S), tables
    ``(n_infosets, n_actions)``.

    >>> from rlcore import StopAfterStep, run
    >>> from rlenvs import KuhnPokerEnv
    >>> from rlzoo.multi_agent.exploitability import nash_conv
    >>> tree = GameTree(KuhnPokerEnv())
    >>> solver = ExternalSamplingMCCFRPolicy(tree, seed=0)
    >>> _ = run(solver, KuhnPokerEnv(), StopAfterStep(1000))
    >>> nash_conv(tree, solver) < 0.05
    True
    """

    tree: GameTree = attrs.field(validator=check_game_tree, repr=False)

    @tree.validator
    def _two_players(self, attribute, tree):
        if len(tree.players) != 2:
            raise ValueError(f"ExternalSamplingMCCFRPolicy averages simply, which is unbiased "
                             f"for two players only; the tree has {len(tree.players)}: "
                             f"{tree.players}")
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)
    iteration: int = attrs.field(default=0, init=False)
    cumulative_regrets: np.ndarray = attrs.field(init=False, repr=False)
    cumulative_policy: np.ndarray = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)
        self.cumulative_regrets = np.zeros((self.tree.n_infosets, self.tree.n_actions))
        self.cumulative_policy = np.zeros((self.tree.n_infosets, self.tree.n_actions))

    def average_policy_table(self):
        """The average policy, ``(n_infosets, n_actions)``."""
        return average_policy(self.cumulative_policy, self.tree.uniform_table())

    def action_probabilities(self, env, player=None):
        return average_action_probabilities(self, env, player)


@dispatch(ExternalSamplingMCCFRPolicy, AbstractEnv, PostActStage)
def update(solver, env, stage):  # noqa: F811
    """One iteration: one sampled traversal with each player as the traverser."""
    solver.iteration += 1
    for player in range(len(solver.tree.players)):
        _traverse(solver, 0, player)


def _traverse(solver, node, player):
    """``ṽ(node)`` for ``player`` (an index); updates its regrets and the others' averages."""
    tree = solver.tree
    owner = tree.node_player[node]
    if owner == TERMINAL:
        return tree.node_returns[node, player]
    lo, hi = tree.node_edges[node], tree.node_edges[node + 1]
    if owner == CHANCE:
        k = sample_index(tree.edge_prob[lo:hi], solver.rng)
        return _traverse(solver, tree.edge_child[lo + k], player)
    infoset, actions = tree.node_infoset[node], tree.edge_action[lo:hi]
    sigma = regret_matching(solver.cumulative_regrets[infoset, actions],
                            np.full(hi - lo, 1.0 / (hi - lo)))
    if owner == player:
        values = np.array([_traverse(solver, child, player) for child in tree.edge_child[lo:hi]])
        value = sigma @ values
        solver.cumulative_regrets[infoset, actions] += values - value
        return value
    solver.cumulative_policy[infoset, actions] += sigma     # simple averaging
    k = sample_index(sigma, solver.rng)
    return _traverse(solver, tree.edge_child[lo + k], player)

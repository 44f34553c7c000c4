"""Outcome-sampling Monte Carlo CFR: one sampled history per player per iteration.

Reference: Lanctot, Waugh, Zinkevich & Bowling, *Monte Carlo Sampling for Regret Minimization
in Extensive Games*, NIPS 2009 (https://papers.nips.cc/paper/3713), outcome sampling; the
recursion as in Lanctot's thesis (2013, Algorithm 3) and OpenSpiel's
``outcome_sampling_mccfr``. CFR's regrets (:mod:`rlzoo.multi_agent.tabular_cfr`) are replaced by
unbiased estimates from a single terminal history z.

An iteration is one *episode* per player i (the traverser), from the root to a terminal z of
the :class:`GameTree`: chance samples its outcomes, the other players sample their current
policy σ (regret matching on their regrets), and i samples the ε-exploring policy
``σ'(I) = ε uniform + (1 − ε) σ(I)``, so that every history has a positive probability. With
q(h) the probability of sampling the way to h, π_{-i}(h) the others' and chance's reach, and
back from ``ṽ(z) = u_i(z)`` over i's histories h on the way (a' the action sampled at h)::

    ṽ(ha') = ṽ(tail) / σ'(I, a'),   ṽ(ha) = 0 for a ≠ a',   ṽ(h) = σ(I, a') ṽ(ha')
    R(I, a) += π_{-i}(h) / q(h) · (ṽ(ha) − ṽ(h))     the sampled counterfactual regret

(ṽ(h) is the importance-weighted estimate of i's value of h; the others' and chance's factors
cancel because they sample their own probabilities). The average policy is updated where
another player j ≠ i acts, by *stochastically weighted averaging*: ``S(I, a) += π_j(h) π_c(h)
σ(I, a) / q(h)``, in expectation ``π_j(I) σ(I, a)`` times a constant of I (for two players the
weight is 1 / q_i(h), the traverser's sampling probability).

Shapes: tables ``(n_infosets, n_actions)``; per-history vectors over the history's legal
actions; the reach vector ``(n_players + 1,)``, chance's last.
"""

import attrs
import numpy as np

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.stages import PostActStage
from rlcore.utils.random import make_rng
from rlcore.utils.validators import real_in
from rlzoo.multi_agent.game_tree import CHANCE, TERMINAL, GameTree
from rlzoo.multi_agent.solver import AbstractGameSolver, check_game_tree
from rlzoo.multi_agent.tabular_cfr import (
    average_action_probabilities,
    average_policy,
    regret_matching,
)

__all__ = ["OutcomeSamplingMCCFRPolicy", "sample_index"]


def sample_index(probs, rng):
    """An index drawn with probabilities ``probs`` (summing to 1 up to rounding) by ``rng``."""
    cumulative = np.cumsum(probs)
    k = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    return min(k, len(probs) - 1)


@attrs.define(eq=False)
class OutcomeSamplingMCCFRPolicy(AbstractGameSolver):
    """Outcome-sampling MCCFR on the information sets of ``tree`` (a :class:`GameTree`): one
    ``update(solver, env, POST_ACT_STAGE)``, one step of ``run``, is one iteration, one sampled
    episode per player. ``action_probabilities(env, player)`` is the average policy.

    Lanctot et al. 2009; see the module docstring for the estimates.

    Keyword arguments: ``epsilon=0.6`` (the traverser's exploration, in (0, 1]; OpenSpiel's
    default), ``rng``/``seed`` (the sampling and ``solver(env)``).

    Fields: ``iteration``, ``cumulative_regrets`` (R) and ``cumulative_policy`` (S), tables
    ``(n_infosets, n_actions)``.

    >>> from rlcore import StopAfterStep, run
    >>> from rlenvs import KuhnPokerEnv
    >>> from rlzoo.multi_agent.exploitability import nash_conv
    >>> tree = GameTree(KuhnPokerEnv())
    >>> solver = OutcomeSamplingMCCFRPolicy(tree, seed=0)
    >>> _ = run(solver, KuhnPokerEnv(), StopAfterStep(3000))
    >>> nash_conv(tree, solver) < 0.1
    True
    """

    tree: GameTree = attrs.field(validator=check_game_tree, repr=False)
    epsilon: float = attrs.field(default=0.6, validator=real_in(0.0, 1.0, low_open=True))
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


@dispatch(OutcomeSamplingMCCFRPolicy, AbstractEnv, PostActStage)
def update(solver, env, stage):  # noqa: F811
    """One iteration: one sampled episode with each player as the traverser."""
    solver.iteration += 1
    for player in range(len(solver.tree.players)):
        _episode(solver, player)


def _episode(solver, player):
    """Sample a terminal history with ``player`` (an index) exploring, update its regrets on the
    way back and the others' average policies on the way down."""
    tree, rng, eps = solver.tree, solver.rng, solver.epsilon
    others = [j for j in range(len(tree.players) + 1) if j != player]   # chance is the last
    reach = np.ones(len(tree.players) + 1)   # π_j(h) of every player j, and π_c(h)
    sample_reach = 1.0                       # q(h)
    path = []                                # the traverser's (I, actions, σ, σ'(a'), a', weight)
    node = 0
    while (owner := tree.node_player[node]) != TERMINAL:
        lo, hi = tree.node_edges[node], tree.node_edges[node + 1]
        if owner == CHANCE:
            probs = tree.edge_prob[lo:hi]
            k = sample_index(probs, rng)
            reach[-1] *= probs[k]
            sample_reach *= probs[k]
        else:
            infoset, actions = tree.node_infoset[node], tree.edge_action[lo:hi]
            uniform = np.full(hi - lo, 1.0 / (hi - lo))
            sigma = regret_matching(solver.cumulative_regrets[infoset, actions], uniform)
            if owner == player:
                sampling = eps * uniform + (1.0 - eps) * sigma
                k = sample_index(sampling, rng)
                weight = reach[others].prod() / sample_reach       # π_{-i}(h) / q(h)
                path.append((infoset, actions, sigma, sampling[k], k, weight))
            else:
                sampling = sigma
                k = sample_index(sampling, rng)
                # stochastically weighted averaging: S(I) += π_j(h) π_c(h) σ(I) / q(h)
                solver.cumulative_policy[infoset, actions] += \
                    reach[owner] * reach[-1] / sample_reach * sigma
            reach[owner] *= sigma[k]
            sample_reach *= sampling[k]
        node = tree.edge_child[lo + k]
    value = tree.node_returns[node, player]      # ṽ(z) = u_i(z)
    for infoset, actions, sigma, sampled, k, weight in reversed(path):
        child = value / sampled                  # ṽ(ha')
        value = sigma[k] * child                 # ṽ(h)
        regrets = np.full(len(actions), -value)  # ṽ(ha) − ṽ(h), ṽ(ha) = 0 for a ≠ a'
        regrets[k] += child
        solver.cumulative_regrets[infoset, actions] += weight * regrets

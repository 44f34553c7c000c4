"""Tabular algorithms of Sutton & Barto chapters 2–7, written to the library's API.

* bandits (chapter 2): :class:`BanditLearner`, :class:`GradientBanditLearner` and batched
  policies and explorers (:mod:`rlzoo.tabular.bandits`);
* dynamic programming (chapter 4): :mod:`rlzoo.tabular.dynamic_programming`;
* Monte Carlo (chapter 5): :class:`MonteCarloLearner`, :class:`TabularPolicy`,
  :class:`ExploringStartsPolicy`;
* temporal-difference learning (chapters 6 and 7): :class:`TDLearner` (TD(0), Sarsa,
  Q-learning, Expected Sarsa), :class:`DoubleQLearner`, :class:`NStepTDLearner`,
  :class:`BatchUpdatingLearner` (batch TD(0) and MC);
* :class:`RecordPerEpisode`: a hook keeping one value per episode (learning curves);
* :func:`run_many`: many seeded runs averaged (:mod:`rlzoo.tabular.runner`).

The learners of chapters 5-7 refuse a vectorised env before the first step
(:mod:`rlzoo.tabular.checks`).
"""

from rlzoo.tabular import checks  # noqa: F401  (registers the checks before the first step)
from rlzoo.tabular.bandits import (
    BanditLearner, BatchEpsilonGreedyExplorer, BatchQBasedPolicy, BatchSoftmaxExplorer,
    BatchUCBExplorer, GradientBanditLearner, OptimalActionRate, bandit_trajectory,
)
from rlzoo.tabular.batch_updating import BatchUpdatingLearner
from rlzoo.tabular.double_q_learner import DoubleQLearner
from rlzoo.tabular.dynamic_programming import (
    action_values, greedy_policy, policy_evaluation, policy_evaluation_exact, policy_iteration,
    uniform_policy, value_iteration,
)
from rlzoo.tabular.hooks import RecordPerEpisode
from rlzoo.tabular.monte_carlo import MonteCarloLearner
from rlzoo.tabular.n_step_td_learner import NStepTDLearner
from rlzoo.tabular.runner import run_many
from rlzoo.tabular.tabular_policy import ExploringStartsPolicy, TabularPolicy
from rlzoo.tabular.td_learner import TDLearner

__all__ = [
    "TDLearner", "DoubleQLearner", "NStepTDLearner", "MonteCarloLearner", "TabularPolicy",
    "BatchUpdatingLearner", "RecordPerEpisode",
    "ExploringStartsPolicy", "BanditLearner", "GradientBanditLearner", "BatchQBasedPolicy",
    "BatchEpsilonGreedyExplorer", "BatchUCBExplorer", "BatchSoftmaxExplorer",
    "OptimalActionRate", "bandit_trajectory", "run_many", "policy_evaluation",
    "policy_evaluation_exact", "policy_iteration", "value_iteration", "greedy_policy",
    "action_values", "uniform_policy",
]

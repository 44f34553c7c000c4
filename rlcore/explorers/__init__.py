"""Explorers: map action values (and a legal-action mask) to an action index; an actor's
distribution or deterministic action to actions (``DistributionExplorer``,
``GaussianNoiseExplorer``).

``explorer(values, mask=None)`` returns an action index (0-based); ``explorer.prob(values,
mask=None)`` returns the probability of each action as a numpy array. Values may be lists,
numpy arrays or torch tensors; ``mask`` is a boolean array of legal actions.
"""

from rlcore.explorers.base import AbstractExplorer
from rlcore.explorers.batch_explorer import BatchExplorer
from rlcore.explorers.distribution_explorer import DistributionExplorer, GaussianNoiseExplorer
from rlcore.explorers.epsilon_greedy_explorer import (
           EpsilonGreedyExplorer,
           GreedyExplorer,
)
from rlcore.explorers.gumbel_softmax_explorer import GumbelSoftmaxExplorer
from rlcore.explorers.ucb_explorer import UCBExplorer
from rlcore.explorers.weighted_explorer import WeightedExplorer, WeightedSoftmaxExplorer

__all__ = ["AbstractExplorer", "BatchExplorer", "DistributionExplorer", "GaussianNoiseExplorer", "EpsilonGreedyExplorer", "GreedyExplorer",
           "GumbelSoftmaxExplorer", "UCBExplorer", "WeightedExplorer", "WeightedSoftmaxExplorer"]

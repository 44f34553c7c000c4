"""Approximators: what a learner learns (tables, linear weights, neural networks).

``approximator(x)`` gives the estimate; ``update(approximator, correction_or_loss)`` is one
learning step. Device placement lives here and nowhere else.
"""

from rlcore.approximators.base import AbstractApproximator
from rlcore.approximators.linear_approximator import LinearApproximator
from rlcore.approximators.neural_network_approximator import NeuralNetworkApproximator
from rlcore.approximators.tabular_approximator import (
                                                       InvDecay,
                                                       TabularQApproximator,
                                                       TabularVApproximator,
)
from rlcore.approximators.target_network import TargetNetwork

__all__ = ["AbstractApproximator", "InvDecay", "LinearApproximator",
           "NeuralNetworkApproximator", "TabularQApproximator", "TabularVApproximator",
           "TargetNetwork"]

"""Tiny actor and critic modules whose outputs are worked out by hand in the tests."""

import torch

from rlzoo.policy_gradient.distributions import Categorical


class UniformActor(torch.nn.Module):
    """π(a | s) = softmax(bias) whatever s; the bias starts at 0 (π = ½ for both actions)."""

    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(2))

    def forward(self, x, mask=None):
        return Categorical(self.bias.expand(x.shape[0], 2), mask)


class StateValue(torch.nn.Module):
    """V(s) = w · s[0] with w = 1."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.w * x[:, 0]

"""An online network with a frozen copy for computing targets.

Reference: Mnih et al. (2015), "Human-level control through deep reinforcement learning"
(periodic hard copies); Lillicrap et al. (2016), DDPG (Polyak averaging);
ReinforcementLearning.jl's ``TargetNetwork`` (``target ← ρ · target + (1 − ρ) · online``).
"""

import copy

import attrs
import torch

from rlcore.approximators.base import AbstractApproximator
from rlcore.approximators.neural_network_approximator import NeuralNetworkApproximator
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import positive_int, real_in

__all__ = ["TargetNetwork"]


@attrs.define(eq=False)
class TargetNetwork(AbstractApproximator):
    """Owns an online :class:`NeuralNetworkApproximator` and a frozen deep copy of its model.

    ``tn(x)`` is the online forward; ``tn.target(x)`` the target forward (under
    ``torch.no_grad``). ``update(tn, loss)`` steps the online network and counts the steps in
    ``n_updates``; every ``sync_every`` steps the target is synchronised: a hard copy when
    ``rho == 0``, else Polyak averaging ``target ← ρ · target + (1 − ρ) · online`` of the
    parameters (buffers such as batch-norm statistics are always copied).

    Keyword arguments: ``approximator`` (required), ``sync_every=1`` (>= 1), ``rho=0.0`` (in
    [0, 1)).

    >>> model = torch.nn.Linear(2, 1)
    >>> tn = TargetNetwork(NeuralNetworkApproximator(
    ...     model, torch.optim.SGD(model.parameters(), lr=0.1)), sync_every=2)
    >>> x = torch.ones(1, 2)
    >>> update(tn, tn(x).sum())
    >>> bool(torch.equal(tn(x), tn.target(x)))    # one step: not synchronised yet
    False
    >>> update(tn, tn(x).sum())
    >>> bool(torch.equal(tn(x), tn.target(x)))
    True
    """

    approximator: NeuralNetworkApproximator = attrs.field(
        validator=attrs.validators.instance_of(NeuralNetworkApproximator))
    sync_every: int = attrs.field(default=1, validator=positive_int)
    rho: float = attrs.field(default=0.0, validator=real_in(0, 1, high_open=True))
    target_model: torch.nn.Module = attrs.field(init=False, repr=False)
    n_updates: int = attrs.field(init=False, default=0)

    def __attrs_post_init__(self):
        self.target_model = copy.deepcopy(self.approximator.model).requires_grad_(False)

    @property
    def model(self):
        """The online model."""
        return self.approximator.model

    @property
    def device(self):
        return self.approximator.device

    def __call__(self, *xs):
        return self.approximator(*xs)

    def target(self, *xs):
        """The target model's output for ``xs`` (no gradient)."""
        with torch.no_grad():
            return self.target_model(*(self.approximator.to_device(x) for x in xs))

    @torch.no_grad()
    def sync(self):
        """Move the target towards the online model now (hard copy when ``rho == 0``)."""
        online = self.approximator.model
        for target_p, online_p in zip(self.target_model.parameters(), online.parameters()):
            if self.rho == 0:
                target_p.copy_(online_p)
            else:
                target_p.lerp_(online_p, 1.0 - self.rho)  # ρ·target + (1 − ρ)·online
        for target_b, online_b in zip(self.target_model.buffers(), online.buffers()):
            target_b.copy_(online_b)


@dispatch(TargetNetwork, object)
def update(tn, loss):  # noqa: F811
    """Step the online network; synchronise the target every ``sync_every`` steps."""
    update(tn.approximator, loss)
    tn.n_updates += 1
    if tn.n_updates % tn.sync_every == 0:
        tn.sync()

"""Explorers of stochastic and deterministic actors: sample the policy's distribution, or add
Gaussian noise to a deterministic action.

Shape convention: a batch axis first. An actor gives a distribution (or actions) over a batch
of ``B`` states, ``B = 1`` for one environment and ``n`` for a vectorised one; the explorer
returns ``B`` actions as a numpy array, ``(B,)`` for discrete and ``(B, d)`` for continuous
actions, and the policy (``rlzoo.policy_gradient.ActorPolicy``) takes the row of one
environment. Random numbers come from a ``torch.Generator`` made from ``seed`` on the device of
the actor's tensors, so the same seed gives the same actions on the same device.
"""

import attrs
import numpy as np
import torch

from rlcore.explorers.base import AbstractExplorer
from rlcore.utils.random import make_rng, torch_generator
from rlcore.utils.validators import non_negative_int, real_in

__all__ = ["DistributionExplorer", "GaussianNoiseExplorer"]


def _generator(generators, seed, device):
    """The explorer's generator on ``device`` (made from ``seed`` on first use there)."""
    key = str(device)
    if key not in generators:
        generators[key] = torch_generator(seed, device)
    return generators[key]


def _to_numpy(actions):
    return actions.detach().cpu().numpy()


@attrs.define(eq=False)
class DistributionExplorer(AbstractExplorer):
    """Acts by sampling an action distribution in training and by taking its mode (the most
    likely action, the mean of a Gaussian) in test mode.

    ``explorer(distribution)`` takes any object with ``sample(generator)``, ``mode()`` and
    ``device``
    (``rlzoo.policy_gradient.distributions``) and returns the actions as a numpy array (see the
    module doc). Keyword arguments: ``seed=0``; ``is_training=True``.

    >>> from rlzoo.policy_gradient.distributions import Categorical
    >>> explorer = DistributionExplorer(seed=0)
    >>> explorer(Categorical(torch.tensor([[0.0, 20.0]]))).tolist()
    [1]
    """

    seed: int = attrs.field(default=0, kw_only=True)
    is_training: bool = attrs.field(default=True, kw_only=True)
    generators: dict = attrs.field(factory=dict, init=False, repr=False)

    def __call__(self, distribution, mask=None):
        if mask is not None:
            raise TypeError("DistributionExplorer takes no mask: the learner builds the "
                            "distribution over the legal actions")
        if not self.is_training:
            return _to_numpy(distribution.mode())
        generator = _generator(self.generators, self.seed, distribution.device)
        return _to_numpy(distribution.sample(generator))

    def prob(self, distribution, mask=None):
        """The probability of each action (a categorical distribution only), as numpy."""
        probs = getattr(distribution, "probs", None)
        if probs is None:
            raise TypeError(f"{type(distribution).__name__} has no action probabilities")
        return _to_numpy(probs)


@attrs.define(eq=False)
class GaussianNoiseExplorer(AbstractExplorer):
    """Acts with a deterministic action plus Gaussian noise, clipped to the action bounds; in
    test mode the action itself. The exploration of DDPG and TD3.

    Reference: Fujimoto et al. (2018), "Addressing Function Approximation Error in Actor-Critic
    Methods" (https://arxiv.org/abs/1802.09477), §6.1: ``N(0, σ)`` with σ = 0.1 of the action
    scale (uncorrelated noise works as well as Ornstein-Uhlenbeck noise); Lillicrap et al.
    (2016) for DDPG.

    ``explorer(actions)`` takes a batch of actions ``(B, d)`` (a torch tensor) and returns
    ``clip(a + σ · (high − low) / 2 · ε, low, high)`` with ``ε ~ N(0, 1)``, as a numpy array.
    For the first ``warmup_steps`` env steps (counted per row: a batch of ``B`` counts ``B``)
    the actions are drawn uniformly from ``[low, high]`` instead, as TD3's start steps.

    Keyword arguments: ``low``, ``high`` (the action bounds, finite, shape ``(d,)``; required),
    ``std=0.1`` (σ, a fraction of the half-range), ``warmup_steps=0``, ``seed=0``,
    ``is_training=True``. ``step`` counts the env steps seen in training.

    >>> explorer = GaussianNoiseExplorer(low=[-2.0], high=[2.0], std=0.1, seed=0)
    >>> a = explorer(torch.zeros(3, 1))
    >>> a.shape, bool(np.all(np.abs(a) <= 2.0))
    ((3, 1), True)
    """

    low: np.ndarray = attrs.field(kw_only=True, converter=lambda x: np.asarray(x, np.float32))
    high: np.ndarray = attrs.field(kw_only=True, converter=lambda x: np.asarray(x, np.float32))
    std: float = attrs.field(kw_only=True, default=0.1, validator=real_in(0, np.inf))
    warmup_steps: int = attrs.field(kw_only=True, default=0, validator=non_negative_int)
    seed: int = attrs.field(kw_only=True, default=0)
    is_training: bool = attrs.field(kw_only=True, default=True)
    step: int = attrs.field(kw_only=True, default=0)
    generators: dict = attrs.field(factory=dict, init=False, repr=False)
    rng: object = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self):
        if self.low.shape != self.high.shape or not (
                np.all(np.isfinite(self.low)) and np.all(np.isfinite(self.high))
                and np.all(self.low < self.high)):
            raise ValueError(f"low and high must be finite bounds of one shape with low < high, "
                             f"got low={self.low!r}, high={self.high!r}")
        self.rng = make_rng(seed=self.seed)

    def __call__(self, actions, mask=None):
        if mask is not None:
            raise TypeError("GaussianNoiseExplorer acts in a continuous space: no mask")
        if not self.is_training:
            return _to_numpy(actions)
        batch = actions.shape[0]
        self.step += batch
        if self.step <= self.warmup_steps:
            return self.rng.uniform(self.low, self.high,
                                    size=(batch, *self.low.shape)).astype(np.float32)
        low = torch.as_tensor(self.low, device=actions.device)
        high = torch.as_tensor(self.high, device=actions.device)
        noise = torch.randn(actions.shape, generator=_generator(self.generators, self.seed,
                                                                actions.device),
                            device=actions.device, dtype=actions.dtype)
        noisy = actions + self.std * (high - low) / 2 * noise
        return _to_numpy(torch.clamp(noisy, low, high))

    def prob(self, actions, mask=None):
        raise TypeError("GaussianNoiseExplorer acts in a continuous space: no action "
                        "probabilities")

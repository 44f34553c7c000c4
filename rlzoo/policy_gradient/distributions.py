"""Action distributions of the policy-gradient family, sampled with an explicit ``torch.Generator``.

Thin wrappers around :mod:`torch.distributions`, which computes every log-probability and
entropy here; they exist because ``torch.distributions``' ``sample()`` takes no generator, and
every random thing in this project takes one (STYLE.md 8). The generator must live on the
device of the distribution's parameters (``rlcore.utils.random.torch_generator(seed, device)``).

Shape convention of this module: a batch axis first. Discrete actions, log-probabilities and
entropies are ``(batch,)``; logits and probabilities ``(batch, n_actions)``; continuous actions,
means and standard deviations ``(batch, action_dim)``, log-probabilities summed over
``action_dim``.
"""

import numpy as np
import torch
from gymnasium import spaces
from torch import distributions as D

from rlcore.checks import EnvMismatchError

__all__ = ["Categorical", "DiagGaussian", "TanhGaussian", "box_scale", "check_bounded_box"]


class Categorical:
    """A categorical distribution over ``n`` actions per row, with an optional mask of legal
    actions.

    ``logits`` (batch, n); ``mask`` a bool tensor (batch, n) or (n,), True for a legal action.
    An illegal action's logit is set to ``torch.finfo(dtype).min`` (not ``-inf``, so the entropy
    stays finite): its probability is 0, it is never sampled, and it is never the mode. A row with
    no legal action raises ``ValueError``.

    >>> import torch
    >>> dist = Categorical(torch.tensor([[0.0, 3.0, 0.0]]), mask=torch.tensor([True, False, True]))
    >>> dist.probs.tolist(), dist.mode().tolist()
    ([[0.5, 0.0, 0.5]], [0])
    """

    def __init__(self, logits, mask=None):
        if logits.dim() != 2:
            raise ValueError(f"logits must be (batch, n_actions), got shape {tuple(logits.shape)}")
        if mask is not None:
            if mask.dtype != torch.bool:
                raise ValueError(f"mask must be a bool tensor (True = legal), got {mask.dtype}")
            if mask.shape not in (logits.shape, logits.shape[1:]):
                raise ValueError(f"mask must have shape {tuple(logits.shape)} or "
                                 f"{tuple(logits.shape[1:])}, got {tuple(mask.shape)}")
            no_legal = ~mask.any(dim=-1)
            if no_legal.any():
                rows = no_legal.nonzero().flatten().tolist() if mask.dim() == 2 else "every row"
                raise ValueError(f"the action mask has no legal action in row(s) {rows}")
            logits = logits.masked_fill(~mask, torch.finfo(logits.dtype).min)
        self.mask = mask
        self._dist = D.Categorical(logits=logits, validate_args=False)

    @property
    def logits(self):
        """The log-probabilities (normalised logits), (batch, n); illegal actions near
        ``finfo.min``."""
        return self._dist.logits

    @property
    def probs(self):
        """The action probabilities, (batch, n); 0 for an illegal action."""
        return self._dist.probs

    @property
    def device(self):
        """The device of the distribution's tensors (where its samples are drawn)."""
        return self._dist.logits.device

    @property
    def distribution(self):
        """The ``torch.distributions.Categorical`` it wraps (for ``kl_divergence``)."""
        return self._dist

    def sample(self, generator):
        """Actions drawn with ``generator``, a LongTensor (batch,), without gradient."""
        with torch.no_grad():
            return torch.multinomial(self.probs, 1, generator=generator).squeeze(1)

    def mode(self):
        """The most probable legal action of each row, (batch,)."""
        return self.logits.argmax(dim=-1)

    def log_prob(self, actions):
        """``log π(a)`` of integer ``actions`` (batch,), (batch,)."""
        return self._dist.log_prob(actions)

    def entropy(self):
        """``−Σ_a π(a) log π(a)`` per row, (batch,); illegal actions contribute 0."""
        return self._dist.entropy()


class DiagGaussian:
    """A Gaussian with diagonal covariance over ``d``-dimensional actions (unbounded).

    ``mean`` (batch, d); ``log_std`` (batch, d), or (d,) shared by the batch (a state-independent
    parameter, as in PPO for continuous control).
    """

    def __init__(self, mean, log_std):
        if mean.dim() != 2:
            raise ValueError(f"mean must be (batch, action_dim), got shape {tuple(mean.shape)}")
        if log_std.shape not in (mean.shape, mean.shape[1:]):
            raise ValueError(f"log_std must have shape {tuple(mean.shape)} or "
                             f"{tuple(mean.shape[1:])}, got {tuple(log_std.shape)}")
        self.mean = mean
        self.std = log_std.exp().expand_as(mean)
        self._dist = D.Independent(D.Normal(mean, self.std, validate_args=False), 1,
                                   validate_args=False)

    @property
    def device(self):
        """The device of the distribution's tensors (where its samples are drawn)."""
        return self.mean.device

    @property
    def distribution(self):
        """The ``torch.distributions`` Gaussian it wraps (for ``kl_divergence``)."""
        return self._dist

    def rsample(self, generator):
        """Reparameterised actions ``mean + std · ε``, ε ~ N(0, I) drawn with ``generator``,
        (batch, d); gradients flow to ``mean`` and ``log_std``."""
        noise = torch.randn(self.mean.shape, generator=generator, device=self.mean.device,
                            dtype=self.mean.dtype)
        return self.mean + self.std * noise

    def sample(self, generator):
        """Actions drawn with ``generator``, (batch, d), without gradient."""
        with torch.no_grad():
            return self.rsample(generator)

    def mode(self):
        """The mean, (batch, d)."""
        return self.mean

    def log_prob(self, actions):
        """``log π(a)`` of ``actions`` (batch, d), summed over the action dimensions, (batch,)."""
        return self._dist.log_prob(actions)

    def entropy(self):
        """``Σ_i (1/2 + 1/2 log 2π + log σ_i)``, (batch,)."""
        return self._dist.entropy()


def box_scale(low, high, dtype=torch.float32, device=None):
    """``(loc, scale) = ((high + low) / 2, (high − low) / 2)`` as tensors: the affine map from
    ``[−1, 1]`` onto the Box ``[low, high]``, ``a = loc + scale · tanh(u)`` (a tanh-squashed
    Gaussian, or a deterministic tanh actor as in DDPG and TD3).

    ``low`` and ``high``: arrays or tensors (action_dim,), finite (see :func:`check_bounded_box`).

    >>> box_scale([-2.0, 0.0], [2.0, 1.0])
    (tensor([0.0000, 0.5000]), tensor([2.0000, 0.5000]))
    """
    low = torch.as_tensor(low, dtype=dtype, device=device)
    high = torch.as_tensor(high, dtype=dtype, device=device)
    return (high + low) / 2, (high - low) / 2


def check_bounded_box(space):
    """Raise :class:`~rlcore.checks.EnvMismatchError` (a ``ValueError``) naming ``space``
    unless it is a gymnasium Box with finite bounds, which a tanh-squashed action needs."""
    if not isinstance(space, spaces.Box):
        raise EnvMismatchError(f"a tanh-squashed action needs a Box action space with finite "
                               f"bounds, got {space!r}")
    if not (np.isfinite(space.low).all() and np.isfinite(space.high).all()):
        raise EnvMismatchError(f"the action space {space!r} has infinite bounds; a "
                               f"tanh-squashed action needs finite low and high (rescale the "
                               f"actions, or use a DiagGaussian)")


class TanhGaussian:
    """The tanh-squashed Gaussian of SAC rescaled to the Box ``[low, high]``.

    Haarnoja et al. (2018), "Soft Actor-Critic", appendix C (https://arxiv.org/abs/1801.01290):
    ``a = low + (tanh(u) + 1) / 2 · (high − low)``, ``u ~ N(mean, std²)``, and by the change of
    variables ``log π(a) = Σ_i [log N(u_i) − log(1 − tanh(u_i)²) − log((high_i − low_i) / 2)]``,
    whose terms are torch's ``TanhTransform`` and ``AffineTransform`` log-determinants.

    ``mean`` (batch, d); ``log_std`` (batch, d) or (d,); ``low``, ``high`` arrays or tensors
    (d,), finite. The entropy has no closed form and is not offered: SAC estimates it from the
    log-probabilities of sampled actions (:meth:`rsample_with_log_prob`).
    """

    def __init__(self, mean, log_std, low, high):
        self._gaussian = DiagGaussian(mean, log_std)
        loc, scale = box_scale(low, high, dtype=mean.dtype, device=mean.device)
        if loc.shape != mean.shape[1:]:
            raise ValueError(f"low and high must have shape {tuple(mean.shape[1:])}, got "
                             f"{tuple(loc.shape)}")
        self._affine = D.AffineTransform(loc, scale)
        self._squash = D.ComposeTransform([D.TanhTransform(), self._affine])

    @property
    def device(self):
        """The device of the distribution's tensors (where its samples are drawn)."""
        return self._gaussian.device

    def _log_prob_of(self, u, actions):
        """``log π(a)`` from the pre-tanh ``u`` and ``a = squash(u)``, summed over d."""
        log_det = self._squash.log_abs_det_jacobian(u, actions)
        return self._gaussian.log_prob(u) - log_det.sum(dim=-1)

    def rsample_with_log_prob(self, generator):
        """Reparameterised actions (batch, d) and their log-probabilities (batch,), computed
        from the pre-tanh sample (no ``atanh`` of a saturated action); gradients flow to
        ``mean`` and ``log_std`` (SAC's actor loss)."""
        u = self._gaussian.rsample(generator)
        actions = self._squash(u)
        return actions, self._log_prob_of(u, actions)

    def sample(self, generator):
        """Actions in ``[low, high]`` drawn with ``generator``, (batch, d), without gradient."""
        with torch.no_grad():
            return self._squash(self._gaussian.rsample(generator))

    def mode(self):
        """The squashed mean ``loc + scale · tanh(mean)``, (batch, d)."""
        return self._squash(self._gaussian.mean)

    def log_prob(self, actions):
        """``log π(a)`` of given ``actions`` (batch, d) in ``[low, high]``, (batch,).

        ``u = atanh(unit)`` with the unit-scaled action clamped to ``±(1 − eps)`` (``eps`` the
        dtype's machine epsilon), so an action on the bound has a finite log-probability.
        """
        eps = torch.finfo(actions.dtype).eps
        unit = self._affine.inv(actions).clamp(-1.0 + eps, 1.0 - eps)
        u = torch.atanh(unit)
        return self._log_prob_of(u, self._affine(unit))

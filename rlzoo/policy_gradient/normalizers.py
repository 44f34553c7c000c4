"""Running normalisers of observations and rewards, whose state is saved with the agent.

Shape convention of this module: a batch axis first, ``(batch, *shape)`` for the samples a
running statistic is updated with (observations ``(batch, *observation_shape)``); rewards and
episode-boundary flags of a rollout are time-major ``(T, n_envs)``.

The statistics are combined batch by batch with the parallel algorithm of Chan, Golub and
LeVeque (1979), as in OpenAI baselines' ``RunningMeanStd`` and Stable-Baselines3's
``VecNormalize``; unlike theirs they start empty (count 0, not a pseudo-count of 1e-4), so they
equal the mean and (population) variance of all the data seen.
"""

import attrs
import numpy as np
import torch

from rlcore.utils.validators import positive_int, real_in

__all__ = ["combine_moments", "RunningMeanStd", "ObservationNormalizer", "RewardNormalizer"]


def combine_moments(mean, var, count, batch_mean, batch_var, batch_count):
    """The ``(mean, var, count)`` of two samples from their own (Chan et al., 1979): with
    ``δ = batch_mean − mean`` and ``N = count + batch_count``, ``mean + δ · batch_count / N`` and
    ``(var · count + batch_var · batch_count + δ² · count · batch_count / N) / N``. Numpy arrays
    or torch tensors; ``batch_count`` must be positive."""
    delta = batch_mean - mean
    total = count + batch_count
    new_mean = mean + delta * (batch_count / total)
    m2 = var * count + batch_var * batch_count + delta * delta * (count * batch_count / total)
    return new_mean, m2 / total, total


def _shape(value):
    return (value,) if isinstance(value, int) else tuple(value)


@attrs.define(eq=False)
class RunningMeanStd:
    """The running mean and population variance (float64 numpy arrays of ``shape``) of every
    sample given to :meth:`update`; ``count`` samples so far. Before the first update the mean
    is 0 and the variance 1."""

    shape: tuple = attrs.field(default=(), converter=_shape)
    mean: np.ndarray = attrs.field(init=False)
    var: np.ndarray = attrs.field(init=False)
    count: float = attrs.field(init=False, default=0.0)

    def __attrs_post_init__(self):
        self.mean = np.zeros(self.shape, np.float64)
        self.var = np.ones(self.shape, np.float64)

    def update(self, x):
        """Add the samples ``x`` (batch, *shape); an empty batch changes nothing."""
        x = np.asarray(x, np.float64)
        if x.shape[1:] != self.shape:
            raise ValueError(f"RunningMeanStd: expected samples of shape (batch, *{self.shape}), "
                             f"got {x.shape}")
        if x.shape[0] > 0:
            self.mean, self.var, self.count = combine_moments(
                self.mean, self.var, self.count, x.mean(axis=0), x.var(axis=0), x.shape[0])


class ObservationNormalizer(torch.nn.Module):
    """Observations standardised by their running mean and variance, clipped:
    ``clamp((x − mean) / sqrt(var + eps), −clip, clip)`` (baselines' and Stable-Baselines3's
    ``VecNormalize``), as the first layer of an actor or critic network.

    ``shape``: the observation shape; ``clip=10.0``, ``eps=1e-8``. ``mean``, ``var`` and
    ``count`` are float64 buffers, not parameters: the optimiser does not train them, they move
    with ``.to(device)`` and are saved in the network's ``state_dict``. Only :meth:`update`
    changes them; the learner calls it on the observations it collects.

    >>> import torch
    >>> normalizer = ObservationNormalizer(2)
    >>> normalizer.update(torch.tensor([[1.0, 10.0], [3.0, 10.0]]))
    >>> normalizer(torch.tensor([[3.0, 10.0]])).tolist()
    [[1.0, 0.0]]
    """

    def __init__(self, shape, clip=10.0, eps=1e-8):
        super().__init__()
        if not clip > 0:
            raise ValueError(f"clip must be > 0, got {clip!r}")
        if not eps >= 0:
            raise ValueError(f"eps must be >= 0, got {eps!r}")
        self.shape, self.clip, self.eps = _shape(shape), float(clip), float(eps)
        self.register_buffer("mean", torch.zeros(self.shape, dtype=torch.float64))
        self.register_buffer("var", torch.ones(self.shape, dtype=torch.float64))
        self.register_buffer("count", torch.zeros((), dtype=torch.float64))

    def forward(self, x):
        """The normalised observations ``x`` (batch, *shape), in ``x``'s dtype."""
        std = torch.sqrt(self.var + self.eps).to(x.dtype)
        return ((x - self.mean.to(x.dtype)) / std).clamp(-self.clip, self.clip)

    @torch.no_grad()
    def update(self, x):
        """Add the observations ``x`` (batch, *shape), a tensor or a numpy array."""
        x = torch.as_tensor(x, dtype=torch.float64, device=self.mean.device)
        if tuple(x.shape[1:]) != self.shape:
            raise ValueError(f"ObservationNormalizer: expected observations of shape "
                             f"(batch, *{self.shape}), got {tuple(x.shape)}")
        if x.shape[0] > 0:
            moments = combine_moments(self.mean, self.var, self.count, x.mean(dim=0),
                                      x.var(dim=0, unbiased=False), x.shape[0])
            for buffer, value in zip((self.mean, self.var, self.count), moments):
                buffer.copy_(value)

    def extra_repr(self):
        return f"shape={self.shape}, clip={self.clip}, eps={self.eps}"


@attrs.define(eq=False)
class RewardNormalizer:
    """Rewards scaled by the running standard deviation of the discounted return, clipped
    (baselines' and Stable-Baselines3's ``VecNormalize(norm_reward=True)``).

    Per environment, ``ret ← γ · ret + r``; the running variance of ``ret`` is updated; the
    reward becomes ``clip(r / sqrt(var + eps), −clip, clip)``; ``ret ← 0`` at an episode
    boundary (termination or truncation). The rewards are scaled, not centred, so their sign
    is kept.

    ``n_envs``, ``gamma`` in [0, 1], ``clip=10.0``, ``eps=1e-8``. The state (``returns`` and
    ``return_stats``) is numpy, so it pickles with the learner.
    """

    n_envs: int = attrs.field(validator=positive_int)
    gamma: float = attrs.field(validator=real_in(0, 1))
    clip: float = attrs.field(default=10.0, validator=real_in(0, np.inf, low_open=True))
    eps: float = attrs.field(default=1e-8, validator=real_in(0, np.inf))
    returns: np.ndarray = attrs.field(init=False)
    return_stats: RunningMeanStd = attrs.field(init=False, factory=RunningMeanStd)

    def __attrs_post_init__(self):
        self.returns = np.zeros(self.n_envs, np.float64)

    def normalize(self, rewards, dones):
        """The scaled ``rewards`` (T, n_envs) of a rollout in time order, of their type (numpy
        or torch, device and floating dtype kept); ``dones`` (T, n_envs) marks episode
        boundaries. Updates the running returns and their statistics step by step."""
        is_tensor = isinstance(rewards, torch.Tensor)
        r = rewards.detach().cpu().numpy() if is_tensor else np.asarray(rewards)
        d = dones.detach().cpu().numpy() if isinstance(dones, torch.Tensor) else np.asarray(dones)
        expected = (r.shape[0] if r.ndim == 2 else "T", self.n_envs)
        if r.shape != expected or d.shape != expected:
            raise ValueError(f"RewardNormalizer: expected rewards and dones of shape "
                             f"(T, {self.n_envs}), got {r.shape} and {d.shape}")
        scaled = np.empty(r.shape, np.float64)
        for t in range(r.shape[0]):
            self.returns = self.returns * self.gamma + r[t]
            self.return_stats.update(self.returns)
            scaled[t] = np.clip(r[t] / np.sqrt(self.return_stats.var + self.eps),
                                -self.clip, self.clip)
            self.returns[d[t].astype(bool)] = 0.0
        if is_tensor:
            dtype = rewards.dtype if rewards.is_floating_point() else torch.get_default_dtype()
            return torch.as_tensor(scaled, dtype=dtype, device=rewards.device)
        return scaled.astype(r.dtype if r.dtype.kind == "f" else np.float64)

"""Networks of the policy-gradient family: actors that give action distributions (or
deterministic actions), state-value and action-value critics, and ``ActorCritic`` joining them.

Shape convention of this module: inputs are ``(batch, *state_shape)``; a categorical actor gives
a :class:`~rlzoo.policy_gradient.distributions.Categorical` over ``(batch, n_actions)``, a
Gaussian actor a distribution over ``(batch, d)`` actions, a deterministic actor ``(batch, d)``
actions in the Box ``[low, high]``; a value critic gives ``(batch,)`` values ``V(s)``, a Q
critic ``(batch,)`` values ``Q(s, a)`` for actions ``(batch, d)`` (or ``(batch, n_actions)`` for
all discrete actions at once, :class:`QValues`).

Initialisation: the actors and value critics of the on-policy learners use orthogonal weights
with gain √2 in hidden layers, 0.01 for the policy's output and 1 for the value's, and zero
biases (the PPO implementation details of Engstrom et al. 2020, https://arxiv.org/abs/2005.12729,
and Huang et al. 2022, "The 37 implementation details of PPO"); ``orthogonal=False`` keeps
torch's default initialisation (SAC, TD3 and DDPG use it, as their reference implementations).
Every constructor takes ``seed`` so the initial weights do not depend on torch's global random
state.
"""

import math

import numpy as np
import torch
from torch import nn

from rlzoo.dqns.networks import mlp, seeded_init
from rlzoo.policy_gradient.distributions import Categorical, DiagGaussian, TanhGaussian

__all__ = ["CategoricalActor", "GaussianActor", "TanhGaussianActor", "DeterministicActor",
           "ValueCritic", "QCritic", "QValues", "ActorCritic", "AtariBody", "orthogonal_init"]

_ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def _activation(name):
    if name not in _ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)}, got {name!r}")
    return _ACTIVATIONS[name]


def orthogonal_init(network, output_gain):
    """Orthogonal weights (gain √2, ``output_gain`` for the last linear layer) and zero biases
    for every linear layer of ``network``; returns it."""
    linears = [m for m in network.modules() if isinstance(m, nn.Linear)]
    for i, layer in enumerate(linears):
        nn.init.orthogonal_(layer.weight, output_gain if i == len(linears) - 1 else math.sqrt(2))
        nn.init.zeros_(layer.bias)
    return network


def _mlp(n_in, hidden, n_out, activation, orthogonal, output_gain):
    network = mlp((n_in, *hidden, n_out), _activation(activation))
    return orthogonal_init(network, output_gain) if orthogonal else network


def _bounds(low, high):
    low = torch.as_tensor(np.asarray(low, np.float32))
    high = torch.as_tensor(np.asarray(high, np.float32))
    if low.shape != high.shape or low.dim() != 1 or not bool(
            torch.isfinite(low).all() and torch.isfinite(high).all() and (low < high).all()):
        raise ValueError(f"low and high must be finite 1-d bounds of one shape with low < high, "
                         f"got low={low.tolist()}, high={high.tolist()}")
    return low, high


class CategoricalActor(nn.Module):
    """An MLP from states to the logits of a categorical distribution over ``n_actions``.

    ``actor(x, mask=None)`` gives a :class:`~rlzoo.policy_gradient.distributions.Categorical`
    (``mask``: the legal actions, ``(batch, n_actions)`` booleans). ``n_in`` is the width of
    the input (the state size, or the features of a shared body)."""

    def __init__(self, n_in, n_actions, *, hidden=(64, 64), activation="tanh", orthogonal=True,
                 seed=0):
        super().__init__()
        with seeded_init(seed):
            self.net = _mlp(n_in, hidden, n_actions, activation, orthogonal, 0.01)

    def forward(self, x, mask=None):
        return Categorical(self.net(x), mask)


class GaussianActor(nn.Module):
    """An MLP from states to the mean of a diagonal Gaussian over ``d`` actions, with a learned
    state-independent log standard deviation (``log_std_init``), as PPO and TRPO on continuous
    control (Schulman et al. 2015, 2017). The Gaussian is unbounded: an environment clips its
    samples (``rlenvs.ClipActionEnv``)."""

    def __init__(self, n_in, d, *, hidden=(64, 64), activation="tanh", orthogonal=True,
                 log_std_init=0.0, seed=0):
        super().__init__()
        with seeded_init(seed):
            self.net = _mlp(n_in, hidden, d, activation, orthogonal, 0.01)
        self.log_std = nn.Parameter(torch.full((d,), float(log_std_init)))

    def forward(self, x, mask=None):
        return DiagGaussian(self.net(x), self.log_std)


class TanhGaussianActor(nn.Module):
    """SAC's actor: an MLP from states to the mean and the (state-dependent) log standard
    deviation of a Gaussian, squashed by tanh into the Box ``[low, high]``
    (:class:`~rlzoo.policy_gradient.distributions.TanhGaussian`). The log standard deviation is
    ``tanh``-scaled into ``[log_std_min, log_std_max]`` (CleanRL's ``sac_continuous_action``)."""

    def __init__(self, n_in, low, high, *, hidden=(256, 256), activation="relu",
                 log_std_min=-5.0, log_std_max=2.0, seed=0):
        super().__init__()
        low, high = _bounds(low, high)
        self.register_buffer("low", low)
        self.register_buffer("high", high)
        self.log_std_min, self.log_std_max = float(log_std_min), float(log_std_max)
        with seeded_init(seed):
            self.net = mlp((n_in, *hidden, 2 * low.numel()), _activation(activation))

    def forward(self, x, mask=None):
        mean, log_std = self.net(x).chunk(2, dim=-1)
        log_std = self.log_std_min + 0.5 * (self.log_std_max - self.log_std_min) * (
            torch.tanh(log_std) + 1)
        return TanhGaussian(mean, log_std, self.low, self.high)


class DeterministicActor(nn.Module):
    """The actor of DDPG and TD3: an MLP from states to actions ``low + (tanh(y) + 1) / 2 ·
    (high − low)`` in the Box ``[low, high]``."""

    def __init__(self, n_in, low, high, *, hidden=(256, 256), activation="relu", seed=0):
        super().__init__()
        low, high = _bounds(low, high)
        self.register_buffer("low", low)
        self.register_buffer("high", high)
        with seeded_init(seed):
            self.net = mlp((n_in, *hidden, low.numel()), _activation(activation))

    def forward(self, x):
        return self.low + (torch.tanh(self.net(x)) + 1) / 2 * (self.high - self.low)


class ValueCritic(nn.Module):
    """An MLP from states to their values ``V(s)``, shape ``(batch,)``."""

    def __init__(self, n_in, *, hidden=(64, 64), activation="tanh", orthogonal=True, seed=0):
        super().__init__()
        with seeded_init(seed):
            self.net = _mlp(n_in, hidden, 1, activation, orthogonal, 1.0)

    def forward(self, x):
        return self.net(x).squeeze(-1)


class QCritic(nn.Module):
    """An MLP from a state and a continuous action, concatenated, to ``Q(s, a)``, shape
    ``(batch,)`` (DDPG, TD3, SAC)."""

    def __init__(self, n_in, d, *, hidden=(256, 256), activation="relu", seed=0):
        super().__init__()
        with seeded_init(seed):
            self.net = mlp((n_in + d, *hidden, 1), _activation(activation))

    def forward(self, x, actions):
        return self.net(torch.cat((x, actions), dim=-1)).squeeze(-1)


class QValues(nn.Module):
    """An MLP from states to the values of every discrete action, ``(batch, n_actions)``
    (discrete SAC's critics)."""

    def __init__(self, n_in, n_actions, *, hidden=(64, 64), activation="relu", seed=0):
        super().__init__()
        with seeded_init(seed):
            self.net = mlp((n_in, *hidden, n_actions), _activation(activation))

    def forward(self, x):
        return self.net(x)


class AtariBody(nn.Module):
    """rlpyt's Atari feed-forward body (``AtariFfModel``): uint8 frames ``(batch, 4, 84, 84)``
    scaled by 1/255, convolutions of 16 and 32 channels (kernels 8 and 4, strides 4 and 2,
    paddings 0 and 1, ReLU), then ``Linear(·, hidden)`` and ReLU; ``n_features`` is ``hidden``.
    The actor and the critic are linear heads on it (``hidden=()``)."""

    def __init__(self, in_channels=4, screen_size=84, hidden=512, seed=0):
        super().__init__()
        with seeded_init(seed):
            convolutions = nn.Sequential(
                nn.Conv2d(in_channels, 16, 8, stride=4), nn.ReLU(),
                nn.Conv2d(16, 32, 4, stride=2, padding=1), nn.ReLU(), nn.Flatten())
            with torch.no_grad():
                n_flat = convolutions(torch.zeros(1, in_channels, screen_size,
                                                  screen_size)).shape[1]
            self.layers = nn.Sequential(convolutions, nn.Linear(n_flat, int(hidden)), nn.ReLU())
        self.n_features = int(hidden)

    def forward(self, x):
        return self.layers(x.float() / 255.0)


class ActorCritic(nn.Module):
    """An actor and a critic behind one optional shared ``body`` (an Atari CNN, an
    :class:`~rlzoo.policy_gradient.normalizers.ObservationNormalizer`, or nothing), trained by
    one optimiser: ``model(x, mask=None)`` is the actor's distribution of ``body(x)``,
    :meth:`value` the critic's values, :meth:`forward_both` both from one pass of the body."""

    def __init__(self, actor, critic, body=None):
        super().__init__()
        self.body = body if body is not None else nn.Identity()
        self.actor = actor
        self.critic = critic

    def forward(self, x, mask=None):
        return self.actor(self.body(x), mask)

    def value(self, x):
        return self.critic(self.body(x))

    def forward_both(self, x, mask=None):
        features = self.body(x)
        return self.actor(features, mask), self.critic(features)

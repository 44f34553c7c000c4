"""Networks for the DQN family: MLP and Atari bodies, dueling, noisy, distributional heads.

Shape convention of this module: inputs are ``(batch, *state_shape)``; Q-value networks return
``(batch, n_actions)``; distributional networks (C51 logits, QR-DQN quantiles) return
``(batch, n_actions, n_atoms)``; the implicit quantile network returns ``(batch, n_taus,
n_actions)`` for ``taus`` of shape ``(batch, n_taus)``; ensemble (REM) networks return
``(batch, n_heads, n_actions)``.

References: Wang et al. (2016) "Dueling Network Architectures" (https://arxiv.org/abs/1511.06581);
Fortunato et al. (2018) "Noisy Networks for Exploration" (https://arxiv.org/abs/1706.10295);
Dabney et al. (2018) "Implicit Quantile Networks" (https://arxiv.org/abs/1806.06923);
Mnih et al. (2015) for the Atari ("Nature") convolutional body.

Every constructor takes ``seed`` so the initial weights do not depend on torch's global random
state (:func:`seeded_init`).
"""

import contextlib
import math

import numpy as np
import torch
from torch import nn

__all__ = ["seeded_init", "child_seed", "mlp", "NatureCNN", "NoisyLinear", "DuelingHead",
           "QNetwork", "DistributionalNetwork", "ImplicitQuantileNetwork", "EnsembleQNetwork",
           "target_network", "target_noise_seed"]


@contextlib.contextmanager
def seeded_init(seed):
    """Inside the block torch's CPU generator is seeded with ``seed``; its previous state is
    restored on exit, so building a network never reads or changes the global random state."""
    if seed is None:
        raise ValueError("seed must be an int, got None: every network takes an explicit seed")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        yield


def mlp(sizes, activation=nn.ReLU):
    """``Linear(sizes[0], sizes[1]), activation, ..., Linear(sizes[-2], sizes[-1])`` (no final
    activation)."""
    if len(sizes) < 2 or any(int(s) < 1 for s in sizes):
        raise ValueError(f"sizes must list at least two positive widths, got {sizes!r}")
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(int(a), int(b)))
        if i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


class NatureCNN(nn.Module):
    """The convolutional body of Mnih et al. (2015): ``(batch, 4, 84, 84)`` uint8 frames
    (scaled by 1/255 here) through three convolutions to 3136 features, then, when ``hidden``
    is given (default 512), a ``Linear(3136, hidden)`` and ReLU. ``n_features`` is the output
    width (``hidden`` or 3136)."""

    def __init__(self, in_channels=4, hidden=512):
        super().__init__()
        layers = [nn.Conv2d(in_channels, 32, 8, stride=4), nn.ReLU(),
                  nn.Conv2d(32, 64, 4, stride=2), nn.ReLU(),
                  nn.Conv2d(64, 64, 3, stride=1), nn.ReLU(), nn.Flatten()]
        if hidden:
            layers += [nn.Linear(3136, int(hidden)), nn.ReLU()]
        self.layers = nn.Sequential(*layers)
        self.n_features = int(hidden) if hidden else 3136

    def forward(self, x):
        return self.layers(x.float() / 255.0)


class NoisyLinear(nn.Module):
    """A linear layer with factorised Gaussian noise on its weights (Fortunato et al., 2018).

    ``y = (μ_w + σ_w ⊙ ε_w) x + μ_b + σ_b ⊙ ε_b`` with ``ε_w = f(ε_out) f(ε_in)ᵀ``,
    ``f(x) = sign(x) √|x|``. Fresh noise is drawn on every forward in training mode from the
    layer's own generator (seeded with ``seed``, created on the parameters' device); in eval mode
    (``testmode``) the layer uses the means only.

    Keyword arguments: ``sigma0=0.5``, ``seed=0``.
    """

    def __init__(self, in_features, out_features, *, sigma0=0.5, seed=0):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.sigma0, self.seed = float(sigma0), int(seed)
        bound = 1.0 / math.sqrt(self.in_features)
        self.weight_mu = nn.Parameter(torch.empty(out_features, in_features).uniform_(-bound,
                                                                                        bound))
        self.bias_mu = nn.Parameter(torch.empty(out_features).uniform_(-bound, bound))
        sigma = self.sigma0 / math.sqrt(self.in_features)
        self.weight_sigma = nn.Parameter(torch.full((out_features, in_features), sigma))
        self.bias_sigma = nn.Parameter(torch.full((out_features,), sigma))
        self._generator = None

    def reseed(self, seed):
        """Draw the noise from a new generator seeded with ``seed`` from the next forward on
        (a target network's copy gets noise of its own this way)."""
        self.seed = int(seed)
        self._generator = None

    def get_extra_state(self):
        """The noise's seed and, once noise was drawn, its generator's state (in the
        ``state_dict``): a restored checkpoint goes on with the noise the saved run would have
        drawn next, not with the noise drawn from the start.

        Loading another layer's ``state_dict`` takes its noise too (seed and generator): a
        target copy loaded from its online network would replay the online noise. Sync targets
        with :class:`~rlcore.TargetNetwork` (parameters and buffers only) or :meth:`reseed` them
        after loading."""
        generator = self._generator
        return {"seed": self.seed,
                "generator": None if generator is None else generator.get_state(),
                "device": None if generator is None else str(generator.device)}

    def set_extra_state(self, state):
        """Restore :meth:`get_extra_state`. A generator state saved on another device type (a
        CPU checkpoint loaded into a CUDA layer, say) cannot be carried over: the layer then
        draws from a new generator seeded with the saved seed, as after moving a layer."""
        if not isinstance(state, dict) or not {"seed", "generator", "device"} <= set(state):
            raise ValueError(f"NoisyLinear: extra state must be a dict with 'seed', 'generator' "
                             f"and 'device' (from get_extra_state), got {state!r}")
        self.seed, self._generator = int(state["seed"]), None
        device = self.weight_mu.device
        if state["generator"] is not None and torch.device(state["device"]).type == device.type:
            self._generator = torch.Generator(device=device)
            self._generator.set_state(state["generator"])

    def _noise(self, n):
        device = self.weight_mu.device
        if self._generator is None or self._generator.device != device:
            self._generator = torch.Generator(device=device).manual_seed(self.seed)
        x = torch.randn(n, device=device, generator=self._generator)
        return x.sign() * x.abs().sqrt()

    def forward(self, x):
        if not self.training:
            return nn.functional.linear(x, self.weight_mu, self.bias_mu)
        eps_in, eps_out = self._noise(self.in_features), self._noise(self.out_features)
        weight = self.weight_mu + self.weight_sigma * torch.outer(eps_out, eps_in)
        bias = self.bias_mu + self.bias_sigma * eps_out
        return nn.functional.linear(x, weight, bias)

    def extra_repr(self):
        return f"{self.in_features}, {self.out_features}, sigma0={self.sigma0}"


def _linear(n_in, n_out, noisy, seed):
    return NoisyLinear(n_in, n_out, seed=seed) if noisy else nn.Linear(n_in, n_out)


def child_seed(seed, key):
    """A seed hashed from ``seed`` and the int ``key >= 0`` by ``numpy.random.SeedSequence``
    (the child stream ``key``), below 2**63 (torch's ``manual_seed`` takes it): the ``k``-th
    noisy layer of a network seeded ``seed`` is seeded ``child_seed(seed, k)``, so that networks
    of nearby seeds draw unrelated noise (``seed + k`` gave the layer ``k`` of seed 0 the
    stream of the layer ``k - 1`` of seed 1)."""
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or key < 0:
        raise ValueError(f"child_seed: key must be an int >= 0, got {key!r}")
    entropy = int(seed) % 2**64
    state = np.random.SeedSequence(entropy, spawn_key=(int(key),)).generate_state(2, np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


class DuelingHead(nn.Module):
    """``Q(s, a) = V(s) + A(s, a) − mean_a A(s, a)`` per atom (Wang et al., 2016).

    Returns ``(batch, n_actions)`` when ``n_atoms == 1`` else ``(batch, n_actions, n_atoms)``.
    """

    def __init__(self, n_features, n_actions, *, hidden=None, n_atoms=1, noisy=False, seed=0):
        super().__init__()
        self.n_actions, self.n_atoms = int(n_actions), int(n_atoms)
        layers_v, layers_a, width = [], [], n_features
        if hidden:
            layers_v += [_linear(n_features, hidden, noisy, child_seed(seed, 1)), nn.ReLU()]
            layers_a += [_linear(n_features, hidden, noisy, child_seed(seed, 2)), nn.ReLU()]
            width = hidden
        self.value = nn.Sequential(*layers_v,
                                   _linear(width, self.n_atoms, noisy, child_seed(seed, 3)))
        self.advantage = nn.Sequential(*layers_a, _linear(width, self.n_actions * self.n_atoms,
                                                          noisy, child_seed(seed, 4)))

    def forward(self, features):
        v = self.value(features).view(-1, 1, self.n_atoms)
        a = self.advantage(features).view(-1, self.n_actions, self.n_atoms)
        q = v + a - a.mean(dim=1, keepdim=True)
        return q.squeeze(-1) if self.n_atoms == 1 else q


class QNetwork(nn.Module):
    """A body (``(batch, *state) -> (batch, n_features)``) and a Q head (plain or dueling).

    Args:
        state_size / body: an MLP body ``state_size -> hidden...`` or a given module with its
            ``n_features``.
        n_actions: the number of discrete actions.
        hidden: widths of the MLP body (default ``(64, 64)``).
        dueling: use a :class:`DuelingHead` (default False).
        seed: initial weights' seed.

    >>> net = QNetwork(4, 2, hidden=(64, 64), seed=0)
    >>> net(torch.zeros(3, 4)).shape
    torch.Size([3, 2])
    """

    def __init__(self, state_size, n_actions, *, hidden=(64, 64), dueling=False, body=None,
                 n_features=None, seed=0):
        super().__init__()
        with seeded_init(seed):
            self.body, width = _body(state_size, hidden, body, n_features)
            self.head = (DuelingHead(width, n_actions, seed=seed) if dueling
                         else nn.Linear(width, int(n_actions)))

    def forward(self, x):
        return self.head(self.body(x))


def _body(state_size, hidden, body, n_features):
    if body is not None:
        if n_features is None:
            n_features = body.n_features
        return body, int(n_features)
    hidden = tuple(hidden)
    if not hidden:
        return nn.Sequential(), int(state_size)
    return nn.Sequential(*mlp((state_size,) + hidden), nn.ReLU()), hidden[-1]


class DistributionalNetwork(nn.Module):
    """A body and a head of ``n_atoms`` outputs per action: ``(batch, n_actions, n_atoms)``.

    C51 reads the outputs as logits over a fixed support, QR-DQN as quantile values. With
    ``dueling`` and ``noisy`` it is Rainbow's network.

    Keyword arguments: ``hidden=(64, 64)``, ``n_atoms=51``, ``dueling=False``, ``noisy=False``,
    ``body=None`` (a module with ``n_features``), ``seed=0``.
    """

    def __init__(self, state_size, n_actions, *, hidden=(64, 64), n_atoms=51, dueling=False,
                 noisy=False, body=None, n_features=None, seed=0):
        super().__init__()
        self.n_actions, self.n_atoms = int(n_actions), int(n_atoms)
        with seeded_init(seed):
            self.body, width = _body(state_size, hidden, body, n_features)
            if dueling:
                self.head = DuelingHead(width, n_actions, n_atoms=n_atoms, noisy=noisy,
                                        seed=seed)
            else:
                self.head = _linear(width, self.n_actions * self.n_atoms, noisy,
                                    child_seed(seed, 5))

    def forward(self, x):
        out = self.head(self.body(x))
        return out.view(-1, self.n_actions, self.n_atoms)


class ImplicitQuantileNetwork(nn.Module):
    """IQN: ``Z_τ(s, a) = f(ψ(s) ⊙ φ(τ))(a)`` with the cosine embedding
    ``φ(τ)_j = ReLU(Σ_i cos(π i τ) w_ij + b_j)``, ``i = 0..n_cos-1`` (Dabney et al., 2018).

    ``net(state, taus)`` with taus ``(batch, n_taus)`` returns ``(batch, n_taus, n_actions)``.

    Keyword arguments: ``hidden=(64, 64)`` (body), ``n_cos=64``, ``head_hidden=64``,
    ``body=None``, ``seed=0``.
    """

    def __init__(self, state_size, n_actions, *, hidden=(64, 64), n_cos=64, head_hidden=64,
                 body=None, n_features=None, seed=0):
        super().__init__()
        self.n_cos = int(n_cos)
        with seeded_init(seed):
            self.body, width = _body(state_size, hidden, body, n_features)
            self.embedding = nn.Sequential(nn.Linear(self.n_cos, width), nn.ReLU())
            self.head = mlp((width, head_hidden, n_actions)) if head_hidden else \
                nn.Linear(width, n_actions)
        self.register_buffer("_pi_i", math.pi * torch.arange(self.n_cos, dtype=torch.float32),
                             persistent=False)

    def forward(self, x, taus):
        features = self.body(x)                                    # (B, F)
        cos = torch.cos(taus.unsqueeze(-1) * self._pi_i)           # (B, N, n_cos)
        return self.head(features.unsqueeze(1) * self.embedding(cos))   # (B, N, A)


class EnsembleQNetwork(nn.Module):
    """A shared body and ``n_heads`` Q heads: ``(batch, n_heads, n_actions)`` (REM; Agarwal et
    al., 2020, https://arxiv.org/abs/1907.04543).

    Keyword arguments: ``hidden=(64, 64)``, ``n_heads=4``, ``body=None``, ``seed=0``.
    """

    def __init__(self, state_size, n_actions, *, hidden=(64, 64), n_heads=4, body=None,
                 n_features=None, seed=0):
        super().__init__()
        self.n_heads, self.n_actions = int(n_heads), int(n_actions)
        with seeded_init(seed):
            self.body, width = _body(state_size, hidden, body, n_features)
            self.head = nn.Linear(width, self.n_heads * self.n_actions)

    def forward(self, x):
        return self.head(self.body(x)).view(-1, self.n_heads, self.n_actions)


def target_network(approximator, *, sync_every=1, rho=0.0):
    """A :class:`~rlcore.TargetNetwork` over ``approximator`` (it syncs every ``sync_every``
    optimiser steps, a hard copy or, with ``rho > 0``, Polyak averaging) whose noisy layers
    draw noise of their own.

    A deep copy would replay the online layers' noise draw for draw, where noisy nets use
    independent noise ε' for the target (Fortunato et al., 2018; Hessel et al., 2018): each
    :class:`NoisyLinear` of the copy is reseeded with :func:`target_noise_seed` of its online
    layer's seed."""
    from rlcore import TargetNetwork

    network = TargetNetwork(approximator, sync_every=sync_every, rho=rho)
    for module in network.target_model.modules():
        if isinstance(module, NoisyLinear):
            module.reseed(target_noise_seed(module.seed))
    return network


def target_noise_seed(seed):
    """The seed of a target network's noisy layer whose online layer has ``seed``: a child
    stream of it (:func:`child_seed`), not a small offset that a layer of a nearby seed could
    hold."""
    return child_seed(seed, 0x7A46)

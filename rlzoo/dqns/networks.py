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
import torch.nn.functional as F
from torch import nn

__all__ = ["seeded_init", "mlp", "NatureCNN", "NoisyLinear", "DuelingHead", "QNetwork",
           "DistributionalNetwork", "ImplicitQuantileNetwork", "EnsembleQNetwork", "NumpyMLP",
           "blas_threads"]


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

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # a state_dict saved before the extra state existed loads too (strict or not); the
        # layer then keeps its own noise, as such a load did
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)
        key = prefix + "_extra_state"
        if key not in state_dict and key in missing_keys:
            missing_keys.remove(key)

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
            body, width = _body(state_size, hidden, body, n_features)
            head = (DuelingHead(width, n_actions, seed=seed) if dueling
                    else nn.Linear(width, int(n_actions)))
            # one flat Sequential: every nested module call costs microseconds per forward
            layers = list(body) if isinstance(body, nn.Sequential) else [body]
            self.layers = nn.Sequential(*layers, head)

    def forward(self, x):
        plan = self._plan()
        if plan is None:  # hooks, an instance forward, compiling or torch.func: checked path
            return self._forward_checked(x)
        # the layers' forward without the module calls (microseconds per forward): plain Linear
        # and ReLU layers run as their functions, any other layer as is
        for kind, a, b in plan.torch_steps:
            if kind == _LINEAR:
                x = F.linear(x, a, b)
            elif kind == _RELU:
                x = F.relu(x, inplace=a.inplace)
            else:
                x = a(x)
        return x

    def _forward_checked(self, x):
        layers = self._modules["layers"]
        if not _plain(layers) or _has_global_hooks():
            return layers(x)
        for layer in layers._modules.values():
            kind = type(layer)
            if kind is nn.Linear and _plain(layer):
                x = F.linear(x, layer.weight, layer.bias)
            elif kind is nn.ReLU and _plain(layer):
                x = F.relu(x, inplace=layer.inplace)
            else:
                x = layer(x)
        return x

    def _plan(self):
        """The cached :class:`_Plan` of the layers, or ``None`` where the module calls must run:
        a hook (on this network, its ``layers``, a layer, or global), a ``forward`` set on an
        instance or a compiled call, or a trace in progress (``torch.compile``/``export``,
        ``torch.func`` transforms: the layers' checked path keeps their semantics). Checked on
        every call (about 1 µs)."""
        if (_has_global_hooks() or torch.compiler.is_compiling()
                or torch._C._are_functorch_transforms_active()):
            return None
        own = self.__dict__
        if "forward" in own or own.get("_compiled_call_impl") is not None:
            return None
        plan = own.get("_layer_plan")
        layers = self._modules["layers"]
        if plan is None or not plan.holds(layers):
            plan = _Plan(self, layers)
            own["_layer_plan"] = plan  # not a module attribute: not in the state_dict
        return plan if plan.clean else None

    def _numpy_plan(self):
        """:meth:`_plan`, or ``None`` when a subclass has its own ``forward`` (the numpy
        passes compute this class's)."""
        if type(self).forward is not QNetwork.forward:
            return None
        return self._plan()

    def __getstate__(self):  # copies and pickles make their own plan (numpy views)
        state = super().__getstate__() if hasattr(super(), "__getstate__") else self.__dict__
        return {k: v for k, v in state.items() if k != "_layer_plan"}

    def values_of(self, state):
        """The output for one state computed with numpy, or ``None`` where that does not apply.

        Applies when ``state`` is a 1-D float32 numpy array, every layer is a plain ``Linear``
        (float32 parameters in CPU memory) or ``ReLU``, no module hook is set (on the network,
        its layers or globally) nor a ``forward`` on an instance, and the class's ``forward``
        is this one (a subclass that overrides it gets ``None``). Returns a new 1-D float32
        array equal to ``self(state[None])[0]`` up to float32 rounding (numpy's and torch's
        matrix products may sum in another order), without gradient. Acting on one state is
        where a small network's forward is all overhead: for the 64×64 MLP of CartPole this
        takes about 10 µs against 15 µs through torch. The numpy arrays are views of the
        parameters, so optimiser steps are seen at once; a replaced layer or parameter, or
        parameter data moved, cast or re-laid out (``.to(...)``, ``.data = ...``) is noticed
        on the next call.

        >>> net = QNetwork(4, 2, seed=0)
        >>> state = np.zeros(4, dtype=np.float32)
        >>> np.allclose(net.values_of(state), net(torch.from_numpy(state)[None])[0].detach())
        True
        """
        if type(state) is not np.ndarray or state.ndim != 1 or state.dtype != np.float32:
            return None
        plan = self._numpy_plan()
        if plan is None:
            return None
        steps = plan.numpy()
        if steps is None or state.shape[0] != steps[0][1].shape[0]:
            return None  # (a wrong width: the module's forward raises torch's error)
        return _numpy_forward(steps, state)

    def numpy_layers(self, training=True):
        """The layers as a :class:`NumpyMLP` (forward and backward passes in numpy over views
        of the parameters), or ``None`` where :meth:`values_of` would give ``None`` for that
        reason (another layer type, a hook, parameters not float32 in CPU memory, a subclass's
        own ``forward``), a parameter is shared between layers, or, with ``training`` (for
        :meth:`NumpyMLP.backward`), :meth:`NumpyMLP.trainable_here` is False (no parameter to
        train, one that is not a leaf or has a gradient hook of its own). ``training=False``
        is for forward passes only (a target network). Checked on every call, like
        :meth:`values_of`.

        The DQN learners train a plain MLP on the CPU through it
        (:func:`rlzoo.dqns.common.numpy_td_update`): a double-DQN step of the 64×64 CartPole
        network on a batch of 128 takes about 190–210 µs against 248 µs through autograd."""
        plan = self._numpy_plan()
        if plan is None:
            return None
        mlp_ = plan.numpy_mlp()
        if mlp_ is None or (training and not mlp_.trainable_here()):
            return None
        return mlp_


class blas_threads:
    """Inside the block numpy's BLAS (its matrix products) runs with at most ``n`` threads,
    by default torch's intra-op thread count; the previous counts are restored on exit.

    The numpy training path (:class:`NumpyMLP`) runs in this block so that its matrix products
    use no more threads than torch's would. OpenBLAS's default, one thread per core, made a
    numpy DQN step on the 2-core development machine about 3 × slower while another process
    was busy (its threads wait for each other): the pitfall ``torch.set_num_threads(1)``
    avoids for torch. The libraries are found once with ``threadpoolctl``; entering and
    leaving cost about 1 µs when the count changes. The count is process-wide state: another
    Python thread's matrix products inside the block run with it too (their values do not
    change, only their speed)."""

    __slots__ = ("n", "previous")
    _controllers = None

    def __init__(self, n=None):
        n = torch.get_num_threads() if n is None else n
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"blas_threads: n must be a positive int, got {n!r}")
        self.n = int(n)
        self.previous = []  # one list of (controller, count) per entry: re-entrant

    def __enter__(self):
        controllers = blas_threads._controllers
        if controllers is None:
            controllers = blas_threads._controllers = _blas_controllers()
        changed = []
        self.previous.append(changed)
        try:
            for controller in controllers:
                count = controller.get_num_threads()
                if count > self.n:
                    controller.set_num_threads(self.n)
                    changed.append((controller, count))
        except BaseException:  # __exit__ will not run: undo what was changed
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        for controller, count in reversed(self.previous.pop()):
            controller.set_num_threads(count)
        return False


def _blas_controllers():
    """threadpoolctl's controllers of the loaded BLAS libraries; none (no thread control,
    with a warning) where threadpoolctl cannot inspect them."""
    try:
        from threadpoolctl import ThreadpoolController

        return tuple(ThreadpoolController().select(user_api="blas").lib_controllers)
    except Exception as error:  # a library threadpoolctl fails on: run without control
        import warnings

        warnings.warn(f"threadpoolctl could not find numpy's BLAS ({error!r}); numpy's matrix "
                      f"products keep their own thread count", RuntimeWarning, stacklevel=3)
        return ()


class NumpyMLP:
    """A plain ``Linear``/``ReLU`` stack run in numpy over views of its torch parameters (made
    by :meth:`QNetwork.numpy_layers`): the values of :meth:`forward` are the torch forward's up
    to float32 rounding, the gradients of :meth:`backward` autograd's.

    Shape convention: ``x`` is ``(batch, in_features)`` float32, the output ``(batch,
    out_features)``; :meth:`backward` takes the loss's gradient with respect to the output for
    the first ``rows`` rows of a forward that kept its activations.
    """

    __slots__ = ("steps", "linears", "in_features", "out_features")

    def __init__(self, steps, linears):
        self.steps = steps        # ((kind, weightᵀ view, bias view or None), ...)
        self.linears = linears    # per step: (weight, bias) parameters of a Linear, else None
        self.in_features = steps[0][1].shape[0]
        self.out_features = next(w.shape[1] for kind, w, b in reversed(steps) if kind == _LINEAR)

    def trainable_here(self):
        """Whether :meth:`backward` gives what autograd would: some parameter requires a
        gradient, every such parameter is a leaf (not a tensor computed from others, as under
        ``torch.func.functional_call``) and none has a gradient hook of its own
        (``register_hook``, ``register_post_accumulate_grad_hook``: autograd would call it)."""
        found = False
        for pair in self.linears:
            if pair is not None:
                for p in pair:
                    if p is None or not p.requires_grad:
                        continue
                    if (not p.is_leaf or p._backward_hooks
                            or getattr(p, "_post_accumulate_grad_hooks", None)):
                        return False
                    found = True
        return found

    def forward(self, x, saved=None):
        """The output for ``x``; with a list ``saved``, each layer's input (Linear) or output
        (ReLU) is appended to it for :meth:`backward`. ``x`` itself is not written to."""
        return _numpy_forward(self.steps, x, saved)

    def backward(self, saved, grad_out):
        """``[(parameter, gradient tensor), ...]`` for the parameters that require a gradient,
        given ``grad_out`` (``(rows, out_features)``, the loss's gradient with respect to the
        output of the first ``rows`` rows of the forward that filled ``saved``); new CPU
        tensors on every call, as ``backward()`` makes."""
        rows = grad_out.shape[0]
        linears = self.linears
        # the lowest layer with a trainable parameter: the gradient goes no further down
        first = next((k for k, pair in enumerate(linears) if pair is not None and any(
            p is not None and p.requires_grad for p in pair)), None)
        g, pairs = grad_out, []
        if first is None:
            return pairs
        for k in range(len(self.steps) - 1, first - 1, -1):
            kind, weight_t, _ = self.steps[k]
            kept = saved[k][:rows]
            if kind == _LINEAR:
                weight, bias = linears[k]
                if weight.requires_grad:
                    view = np.dot(g.T, kept)
                    pairs.append((weight, torch.from_numpy(view)))
                if bias is not None and bias.requires_grad:
                    pairs.append((bias, torch.from_numpy(np.add.reduce(g, axis=0))))
                if k > first:
                    g = g @ weight_t.T
            else:  # ReLU: the gradient passes where the output is positive
                g = g * (kept > 0)
        return pairs


_LINEAR, _RELU, _MODULE = 0, 1, 2


def _numpy_forward(steps, x, saved=None):
    for kind, weight_t, bias in steps:
        if kind == _LINEAR:
            if saved is not None:
                saved.append(x)
            x = x @ weight_t  # a new array: the in-place steps below never touch the input
            if bias is not None:
                x += bias
        else:  # ReLU, in place
            np.maximum(x, _zeros(x.shape), out=x)
            if saved is not None:
                saved.append(x)
    return x


_CONSTANTS = {}


def constant_array(make, key):
    """``make(key)``, made read-only and kept for later calls with the same ``make`` and ``key``
    (at most 256 arrays of at most 1 MiB each; larger ones are made on each call): arrays that
    the numpy passes need on every step, such as zeros for a ReLU or the rows of a batch."""
    array = _CONSTANTS.get((make, key))
    if array is None:
        array = make(key)
        array.flags.writeable = False
        if len(_CONSTANTS) < 256 and array.nbytes <= 1 << 20:
            _CONSTANTS[(make, key)] = array
    return array


def _float32_zeros(shape):
    return np.zeros(shape, np.float32)


def _zeros(shape):
    """A read-only float32 array of zeros of ``shape`` (:func:`constant_array`).

    ``np.maximum(x, zeros, out=x)`` runs numpy's vectorised loop; with the scalar ``0.0`` numpy
    2.4 takes a loop several times slower: 1.1 against 5.7 µs for a (256, 64) float32 array,
    the hidden layer of a double-DQN step at batch 128. The same values (a NaN stays NaN)."""
    return constant_array(_float32_zeros, shape)


_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
               "_backward_pre_hooks")


class _Plan:
    """What :meth:`QNetwork.forward` and :meth:`QNetwork.values_of` run for the current layers.

    ``torch_steps``: ``(_LINEAR, weight, bias)``, ``(_RELU, layer, None)`` or ``(_MODULE,
    layer, None)`` per layer (a Linear whose ``weight`` is not a parameter, e.g. under pruning
    or the old ``weight_norm``, runs as a module). ``clean`` is False when a hook is set on the
    network, its ``layers`` or a layer, or a ``forward``/compiled call on ``layers`` or a layer
    (then no steps are used). The plan holds while the ``layers`` module, its layers, ``clean``
    and every Linear's ``weight`` and ``bias`` (the objects, ``None`` included) stay the same.

    :meth:`numpy` gives the numpy steps, made on first use: ``(_LINEAR, weightᵀ view, bias view
    or None)`` / ``(_RELU, None, None)``, or ``None`` when some layer is not a plain Linear/ReLU,
    a parameter is not float32 in CPU memory, or the first layer is not a Linear (a ReLU would
    write into the caller's array); they are remade when a parameter's data pointer, shape or
    strides change."""

    __slots__ = ("layers", "modules", "hook_dicts", "instance_dicts", "clean", "params",
                 "torch_steps", "tensors", "_numpy", "_layout", "_mlp")

    def __init__(self, network, layers):
        self.layers = layers
        self.modules = modules = tuple(layers._modules.values())
        watched = (network, layers) + modules
        self.hook_dicts = tuple(getattr(m, name) for m in watched for name in _HOOK_DICTS)
        # the network's own dict is checked by QNetwork._plan (holding it here made a cycle)
        self.instance_dicts = tuple(m.__dict__ for m in (layers,) + modules)
        self.clean = self._clean()
        params, torch_steps = [], []
        for layer in modules:
            kind = type(layer)
            found = layer._parameters
            weight, bias = found.get("weight"), found.get("bias")
            if kind is nn.Linear and weight is not None:
                params.append((found, "weight", weight))
                params.append((found, "bias", bias))
                torch_steps.append((_LINEAR, weight, bias))
            elif kind is nn.ReLU:
                torch_steps.append((_RELU, layer, None))
            else:
                torch_steps.append((_MODULE, layer, None))
        self.params = tuple(params)
        self.torch_steps = tuple(torch_steps)
        self.tensors = tuple(t for kind, w, b in torch_steps if kind == _LINEAR
                             for t in (w, b) if t is not None)
        self._numpy = self._layout = self._mlp = None

    def _clean(self):
        if any(self.hook_dicts):
            return False
        for d in self.instance_dicts:
            if "forward" in d or d.get("_compiled_call_impl") is not None:
                return False
        return True

    def holds(self, layers):
        """Whether ``layers`` (the network's current ``layers``) still matches this plan."""
        if layers is not self.layers or tuple(layers._modules.values()) != self.modules:
            return False
        if self._clean() is not self.clean:
            return False
        for found, name, param in self.params:
            if found.get(name) is not param:
                return False
        return True

    def numpy(self):
        """The numpy steps (see the class doc), or ``None``."""
        try:
            layout = tuple((t.data_ptr(), t.shape, t.stride()) for t in self.tensors)
        except RuntimeError:  # tensors without storage (meta, fake): no numpy views
            return None
        if layout != self._layout:
            self._numpy, self._layout, self._mlp = self._numpy_steps(), layout, None
        return self._numpy

    def numpy_mlp(self):
        """A :class:`NumpyMLP` over the numpy steps (remade with them), or ``None`` without
        numpy steps or when a parameter appears in two layers (its gradient would be a sum)."""
        steps = self.numpy()
        if steps is None:
            return None
        if self._mlp is None:
            if len({id(t) for t in self.tensors}) != len(self.tensors):
                self._mlp = False
            else:
                linears = tuple((a, b) if kind == _LINEAR else None
                                for kind, a, b in self.torch_steps)
                self._mlp = NumpyMLP(steps, linears)
        return self._mlp or None

    def _numpy_steps(self):
        steps = []
        for kind, a, b in self.torch_steps:
            if kind == _LINEAR:
                if not all(t.device.type == "cpu" and t.dtype == torch.float32
                           and type(t) in (torch.Tensor, nn.Parameter) and t.layout == torch.strided
                           for t in (a, b) if t is not None):
                    return None
                steps.append((_LINEAR, a.detach().numpy().T,
                              None if b is None else b.detach().numpy()))
            elif kind == _RELU:
                steps.append((_RELU, None, None))
            else:
                return None
        if not steps or steps[0][0] != _LINEAR:
            return None
        return tuple(steps)


def _has_hooks(module):
    """Whether ``module`` has forward or backward hooks of its own."""
    return bool(module._forward_hooks or module._forward_pre_hooks or module._backward_hooks
                or module._backward_pre_hooks)


def _plain(module):
    """Whether calling ``module`` is just its class's forward: no hooks, no ``forward`` set on
    the instance, not compiled with ``module.compile()``."""
    return not (_has_hooks(module) or "forward" in module.__dict__
                or getattr(module, "_compiled_call_impl", None) is not None)


def _has_global_hooks():
    """Whether module hooks are registered globally (``register_module_forward_hook``...)."""
    m = torch.nn.modules.module
    return bool(m._global_forward_hooks or m._global_forward_pre_hooks
                or m._global_backward_hooks or m._global_backward_pre_hooks)


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

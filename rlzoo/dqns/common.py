"""Functions shared by the DQN family (composition, not inheritance: each learner calls these).

Shape convention of this module: batch axis first; ``reward``, ``terminal``, ``discount`` and
per-sample losses are ``(batch,)``; Q-values ``(batch, n_actions)``; distributions and quantiles
``(batch, n_atoms)`` once an action is chosen.

*When* a learner learns (RL.jl's ``update!(learner, trajectory, env, ::PreActStage)``): at every
``PreActStage`` the learner's ``update_step`` counts one env step; once the trajectory holds
``min_replay_history`` steps, every ``update_freq``-th step takes ``gradient_steps`` gradient steps
(1 by default), each on a batch of its own; every ``target_update_freq``-th step the target
network is synchronised. ``update_freq=8, gradient_steps=4`` keeps the ratio of
``update_freq=2`` (one gradient step per 2 env steps) but runs the steps back to back, which on a
CPU is cheaper: torch's and the interpreter's code stays in the caches (DQN on CartPole, 8,000 env
steps: 10 % less wall time; 16 steps every 32: 13 %).

*Targets*: a batch from ``BatchSampler`` bootstraps with ``γ``, one from ``NStepBatchSampler``
with its ``discount = γ^k``; a step that *terminated* does not bootstrap, a *truncated* one (time
limit) does, from its true final state (see :mod:`rlcore.trajectories.recording`).
"""

import numpy as np
import torch
import torch.nn.functional as F

from rlcore import NeuralNetworkApproximator, NStepBatchSampler, TargetNetwork, apply_gradients
from rlcore.approximators.neural_network_approximator import to_device
from rlcore.trajectories.samplers import Batch, reused_buffers
from rlcore.utils.validators import (
    boolean, int_at_least, non_negative_int, one_of, positive_int, real_in,
)
from rlzoo.dqns.networks import (
    DuelingHead, NatureCNN, NoisyLinear, QNetwork, blas_threads, child_seed, constant_array,
)

__all__ = [
    "positive_int", "real_in", "int_at_least", "non_negative_int", "one_of", "boolean",
    "check_approximator", "attach_sampler", "make_target_network", "target_noise_seed",
    "should_learn", "sync_target", "state_batch", "batch_on",
    "state_values", "numpy_td_update",
    "bootstrap_factor", "bootstrapped_target", "is_deterministic", "td_loss",
    "project_onto_support", "c51_cross_entropy", "quantile_huber_loss", "importance_weights",
    "beta_at", "LOSSES", "torch_generator",
]

LOSSES = {"huber": F.smooth_l1_loss, "mse": F.mse_loss}


def check_approximator(instance, attribute, value):
    """An attrs validator: a :class:`NeuralNetworkApproximator` (the learner adds the target)."""
    if not isinstance(value, NeuralNetworkApproximator):
        raise TypeError(f"{type(instance).__name__}: {attribute.name} must be a "
                        f"NeuralNetworkApproximator, got {type(value).__name__}")


def attach_sampler(learner):
    """Point the learner's sampler at the approximator's device (batches move there once);
    check that the first batch can be drawn (``min_replay_history >= batch_size``) and that an
    n-step sampler discounts with the learner's ``gamma``."""
    sampler = learner.sampler
    if not hasattr(sampler, "sample"):
        raise TypeError(f"{type(learner).__name__}: sampler must be a BatchSampler or "
                        f"NStepBatchSampler, got {sampler!r}")
    if learner.min_replay_history < sampler.batch_size:
        raise ValueError(f"{type(learner).__name__}: min_replay_history "
                         f"({learner.min_replay_history}) must be at least the sampler's "
                         f"batch_size ({sampler.batch_size})")
    if isinstance(sampler, NStepBatchSampler) and sampler.gamma != learner.gamma:
        raise ValueError(f"{type(learner).__name__}: the sampler's gamma ({sampler.gamma}) must "
                         f"equal the learner's gamma ({learner.gamma})")
    sampler.device = learner.approximator.device


def make_target_network(learner):
    """A :class:`TargetNetwork` over the learner's approximator; the learner syncs it itself
    (every ``target_update_freq`` env steps, with Polyak factor ``rho``).

    Noisy layers of the target copy draw noise of their own: a deep copy would replay the
    online layers' noise draw for draw, where noisy nets use independent noise ε' for the
    target (Fortunato et al., 2018; Hessel et al., 2018). Each gets the seed
    :func:`target_noise_seed` derives from its online layer's."""
    network = TargetNetwork(learner.approximator, sync_every=1, rho=learner.rho)
    for module in network.target_model.modules():
        if isinstance(module, NoisyLinear):
            module.reseed(target_noise_seed(module.seed))
    return network


def target_noise_seed(seed):
    """The seed of a target network's noisy layer whose online layer has ``seed``: a seed
    hashed from it by ``numpy.random.SeedSequence`` (a child stream,
    :func:`~rlzoo.dqns.networks.child_seed`), not a small offset that a layer of a nearby seed
    could hold."""
    return child_seed(seed, 0x7A46)


def should_learn(learner, trajectory):
    """Count one env step; True when this step takes a gradient step (see the module doc)."""
    learner.update_step += 1
    return (len(trajectory) >= learner.min_replay_history
            and learner.update_step % learner.update_freq == 0)


def sync_target(learner):
    """Synchronise the target network on every ``target_update_freq``-th step."""
    if learner.update_step % learner.target_update_freq == 0:
        learner.target_network.sync()


def _deterministic_modules():
    nn = torch.nn
    return (nn.Linear, nn.ReLU, nn.Sequential, nn.Identity, nn.Flatten, nn.Conv2d, nn.Tanh,
            nn.ELU, nn.LeakyReLU, nn.Sigmoid, nn.LayerNorm, QNetwork, DuelingHead, NatureCNN)


def is_deterministic(model):
    """Whether a forward of ``model`` draws no random numbers and changes no state: every
    module is of a known deterministic type (no dropout, batch norm, noisy layers or unknown
    modules)."""
    known = _deterministic_modules()
    return all(type(m) in known for m in model.modules())


def state_values(approximator, env):
    """The approximator's output for ``env.state()`` without gradient and without the batch
    axis (a tensor). A :class:`~rlzoo.dqns.networks.QNetwork` on the CPU computes it in numpy
    when it can (:meth:`~rlzoo.dqns.networks.QNetwork.values_of`: 11 instead of 18 µs for
    CartPole's network, the same values up to float32 rounding)."""
    state = env.state()
    model = approximator.model
    values_of = getattr(type(model), "values_of", None)  # the class: a module's getattr is slow
    if values_of is not None and approximator.device.type == "cpu":
        values = values_of(model, state)
        if values is not None:
            return torch.from_numpy(values)
    with torch.no_grad():
        return approximator(_as_batch(approximator, state))[0]


def state_batch(approximator, env):
    """``env.state()`` as a batch of one on the approximator's device."""
    return _as_batch(approximator, env.state())


def _as_batch(approximator, state):
    if type(state) is np.ndarray and state.dtype == np.float32:  # the common case, fast
        x = torch.from_numpy(state[None])  # a numpy view: one tensor, not two
        device = approximator.device
        return x if device.type == "cpu" else x.to(device)
    return approximator.to_device(state).unsqueeze(0)


def batch_on(batch, device):
    """``batch`` itself when all its values but ``indices`` are tensors on ``device`` (as the
    learner's own sampler draws it; a batch of a sampler's reused CPU buffers,
    :func:`~rlcore.trajectories.samplers.reused_buffers`, for a CPU ``device`` without looking
    at each value), else a copy with them placed there as the approximator places its inputs
    (:func:`~rlcore.approximators.neural_network_approximator.to_device`: numpy floats as
    float32): a learner's ``update(learner, batch)`` takes a numpy batch, or one on another
    device, too."""
    buffers = reused_buffers(batch)  # the sampler's own CPU tensors: nothing to check
    if buffers is not None and device.type == "cpu":
        return batch
    for key, value in batch.items():
        if key != "indices" and (type(value) is not torch.Tensor or value.device != device):
            return Batch({k: v if k == "indices" else to_device(v, device)
                          for k, v in batch.items()})
    return batch


def bootstrap_factor(batch, gamma):
    """``γ^k · (1 − terminal)`` per transition: 0 after a termination, ``γ`` (or the n-step
    sampler's ``discount``) otherwise, truncation included."""
    discount = batch.get("discount")
    not_terminal = 1.0 - batch["terminal"].float()
    return not_terminal * (gamma if discount is None else discount)


def bootstrapped_target(batch, gamma, next_value):
    """``reward + γ^k (1 − terminal) · next_value`` (``γ^k``: see :func:`bootstrap_factor`),
    shape (batch,).

    The common case (a bool ``terminal``, no n-step ``discount``) takes two tensor operations,
    ``reward + γ · next_value`` with the terminated entries' ``next_value`` replaced by 0."""
    terminal = batch["terminal"]
    if batch.get("discount") is None and terminal.dtype == torch.bool:
        return torch.add(batch["reward"], next_value.masked_fill(terminal, 0.0), alpha=gamma)
    return batch["reward"] + bootstrap_factor(batch, gamma) * next_value


def td_loss(q_sa, target, loss="huber", weights=None):
    """``(mean loss, per-sample losses)`` of ``loss(q_sa, target)``; with ``weights`` the mean
    is weighted per sample, without them the per-sample losses are not kept (``None``)."""
    if weights is None:
        return LOSSES[loss](q_sa, target), None
    per_sample = LOSSES[loss](q_sa, target, reduction="none")
    return (per_sample * weights).mean(), per_sample


def numpy_td_update(learner, batch, target_model, *, is_double=False, weights=None):
    """One gradient step of ``learner``'s TD loss computed in numpy, or ``None`` (nothing
    done) where that does not apply; then the learner takes its torch path.

    The step is the torch path's: target ``r + γ^k (1 − terminal) Q'(s', a*)`` (``a*`` greedy
    under the target network, or under the online one with ``is_double``; the terminated
    entries masked or multiplied by 0 as the torch path does, so a NaN next state gives the
    same error), Huber or squared loss on ``Q(s, a)``, averaged (weighted by ``weights`` when
    given), its gradient by hand, then :func:`rlcore.apply_gradients` (finite-loss check,
    clipping, optimiser step). Values and gradients equal autograd's up to float32 rounding.
    For a small network most of a torch step is the cost of the torch calls themselves: a
    double-DQN step of the 64×64 CartPole network on a batch of 128 takes about 190 µs here
    against 248 µs through autograd (one CPU thread). The matrix products run with numpy's
    BLAS limited to torch's thread count (:class:`~rlzoo.dqns.networks.blas_threads`).

    Where it applies: the learner's Q network and ``target_model`` (``None``: bootstrap from
    the online network, as ``BasicDQNLearner``) give a :class:`~rlzoo.dqns.networks.NumpyMLP`
    of the same input and output widths (:meth:`~rlzoo.dqns.networks.QNetwork.numpy_layers`:
    a plain Linear/ReLU MLP, float32 on the CPU, no module or tensor hooks, trainable
    parameters that are leaves, all held by the optimiser); the approximator is a plain
    :class:`NeuralNetworkApproximator` on the CPU; torch runs plainly (gradients enabled, no
    anomaly detection, no CPU autocast, no saved-tensor hooks, no dispatch or function mode
    but a default device's); the batch holds float32 states, int64 actions in range, a
    float32 reward, a bool ``terminal`` and, from an n-step sampler, a float32 ``discount``,
    all plain CPU tensors (not inference tensors); ``weights`` is a float32 array of shape
    ``(batch,)``. Not seen: hooks registered on a parameter's autograd node
    (``AccumulateGrad`` hooks, as distributed all-reduce wrappers use); register them on the
    tensor (``register_hook``) or add a module hook to keep the torch path.

    Returns ``(loss, td)``: the mean loss as a 0-d float32 CPU tensor and ``Q(s, a) − target``
    per sample (a float32 array, before the step)."""
    app = learner.approximator
    if (type(app) is not NeuralNetworkApproximator or app.device.type != "cpu"
            or not _plain_autograd()):
        return None
    online = numpy_layers(app.model)
    if online is None or not _optimizer_holds(app.optimizer, online):
        return None
    if target_model is None:
        target = online
    else:
        target = numpy_layers(target_model, training=False)
        if (target is None or target.in_features != online.in_features
                or target.out_features != online.out_features):
            return None
    arrays = _numpy_batch(batch, online.in_features, online.out_features)
    if arrays is None:
        return None
    if weights is not None and (weights.dtype is not _F32 or weights.shape != arrays[1].shape):
        return None
    with blas_threads(), np.errstate(all="ignore"):  # a non-finite loss: apply_gradients raises
        loss, td, gradients = _numpy_td(learner, online, None if target_model is None else target,
                                        arrays, is_double, weights)
    apply_gradients(app, gradients, float(loss))
    return torch.from_numpy(np.asarray(loss)), td  # a 0-d float32 CPU tensor


def _plain_autograd():
    """Whether torch would just run its operations and compute gradients: gradients enabled,
    no anomaly detection, no autocast on the CPU, no saved-tensor hooks (``save_on_cpu``...),
    no torch dispatch mode and no torch function mode other than a default device's."""
    if (not torch.is_grad_enabled() or torch.is_anomaly_enabled()
            or torch.is_autocast_enabled("cpu") or torch._C._len_torch_dispatch_stack()):
        return False
    if torch._C._is_torch_function_mode_enabled():
        from torch.overrides import _get_current_function_mode_stack
        from torch.utils._device import DeviceContext

        if any(type(mode) is not DeviceContext for mode in _get_current_function_mode_stack()):
            return False
    top_hooks = getattr(torch._C._autograd, "_top_saved_tensors_default_hooks", None)
    return top_hooks is None or top_hooks(False) is None


def _optimizer_holds(optimizer, layers):
    """Whether ``optimizer`` holds every parameter of ``layers`` that requires a gradient (for
    one it does not hold, ``backward()`` would add into a gradient no ``zero_grad`` resets)."""
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    return all(id(p) in held for pair in layers.linears if pair is not None
               for p in pair if p is not None and p.requires_grad)


def _numpy_td(learner, online, target, arrays, is_double, weights):
    """``(mean loss (a float32 scalar), td, [(parameter, gradient)])`` of
    :func:`numpy_td_update`; ``target`` ``None`` bootstraps from the online network."""
    state, action, reward, terminal, discount, next_state, flat = arrays
    gamma = float(learner.gamma)  # (a numpy float64 γ would make the target float64)
    n = state.shape[0]
    saved = []
    if target is None or is_double:  # the online values of s' too: one forward of both
        both = online.forward(np.concatenate((state, next_state)), saved)
        q, online_next = both[:n], both[n:]
    else:
        q = online.forward(state, saved)
    if target is None:
        next_value = online_next.max(axis=1)
    elif is_double:
        next_value = target.forward(next_state)[_rows(n), online_next.argmax(axis=1)]
    else:
        next_value = target.forward(next_state).max(axis=1)
    if discount is None and target is not None:  # as bootstrapped_target: masked
        next_value[terminal] = 0.0
        target_value = reward + gamma * next_value
    else:  # as bootstrap_factor: multiplied (0 · NaN is NaN, as in torch)
        factor = 1.0 - terminal.astype(np.float32)
        factor *= gamma if discount is None else discount
        target_value = reward + factor * next_value
    td = q.take(flat) - target_value  # q[rows, action]
    if learner.loss == "huber":  # 0.5 δ² within ±1, |δ| − 0.5 outside: c (δ − c / 2)
        slope = np.minimum(np.maximum(td, -1.0), 1.0)  # np.clip, without its Python layers
        per_sample = slope * (td - 0.5 * slope)
    else:
        slope = 2.0 * td
        per_sample = td * td
    if weights is not None:
        per_sample = per_sample * weights
        slope = slope * weights
    grad_out = np.zeros(q.shape, q.dtype)
    grad_out.put(flat, slope / n)  # grad_out[rows, action] = ...
    loss = np.add.reduce(per_sample) / np.float32(n)  # the mean, as a float32 scalar
    return loss, td, online.backward(saved, grad_out)


def numpy_layers(model, training=True):
    """``model.numpy_layers(training)`` for a model that has it (a ``QNetwork``), else
    ``None``."""
    method = getattr(type(model), "numpy_layers", None)  # the class: a module's getattr is slow
    return None if method is None else method(model, training)


_F32, _I64, _BOOL = np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.bool_)


def _numpy_batch(batch, width, n_actions):
    """The batch's arrays as numpy views ``(state, action, reward, terminal, discount or None,
    next_state, flat)``, ``flat`` the indices of ``(row, action)`` in a ``(batch, n_actions)``
    array, or ``None`` unless they are what :func:`numpy_td_update` takes (an action out of
    range included: torch's ``gather`` raises its error where numpy would wrap a negative one).

    A batch of a sampler's reused CPU buffers (as ``rlzoo``'s experiments draw them,
    :func:`~rlcore.trajectories.samplers.reused_buffers`) is checked once per set of buffers."""
    buffers = reused_buffers(batch)
    if buffers is None:
        arrays = _checked_arrays(batch, width)
    else:
        key = (_NUMPY_BATCH, width)
        arrays = buffers.memo.get(key)
        if arrays is None:
            arrays = buffers.memo[key] = _checked_arrays(batch, width) or False
    if not arrays:
        return None
    try:  # the flat indices, and the range check of the actions (out of range: ValueError)
        flat = np.ravel_multi_index((_rows(arrays[0].shape[0]), arrays[1]),
                                    (arrays[0].shape[0], n_actions))
    except ValueError:
        return None
    return arrays + (flat,)


_NUMPY_BATCH = object()  # the memo key's owner (see _numpy_batch)


def _checked_arrays(batch, width):
    """``(state, action, reward, terminal, discount or None, next_state)`` as numpy views when
    their types, dtypes and shapes are what :func:`numpy_td_update` takes, else ``None``."""
    arrays = []
    try:
        for key in ("state", "action", "reward", "terminal", "discount", "next_state"):
            t = batch.get(key)
            if t is None and key == "discount":
                arrays.append(None)
            elif type(t) is torch.Tensor and not t.is_inference():  # (autograd refuses those)
                arrays.append(t.numpy())   # raises for a GPU tensor or one requiring grad
            else:  # (a tensor subclass's operations may differ)
                return None
    except (RuntimeError, TypeError):
        return None
    state, action, reward, terminal, discount, next_state = arrays
    if (state.ndim != 2 or state.dtype is not _F32 or next_state.dtype is not _F32
            or state.shape[1] != width or next_state.shape != state.shape):
        return None
    n = state.shape[0]
    if n == 0 or action.dtype is not _I64 or reward.dtype is not _F32 \
            or terminal.dtype is not _BOOL or action.shape != (n,) or reward.shape != (n,) \
            or terminal.shape != (n,):
        return None
    if discount is not None and (discount.dtype is not _F32 or discount.shape != (n,)):
        return None
    return tuple(arrays)


def _rows(n):
    """``np.arange(n)``, read-only and kept (:func:`~rlzoo.dqns.networks.constant_array`)."""
    return constant_array(np.arange, n)


def project_onto_support(next_probs, reward, factor, support):
    """The C51 projection Φ of ``r + factor · z`` onto the fixed support ``z`` (Bellemare et
    al., 2017, Algorithm 1).

    ``next_probs`` (batch, N) are the probabilities of the next state's greedy action,
    ``reward`` and ``factor`` (batch,) (``factor = γ^k (1 − terminal)``), ``support`` (N,) evenly
    spaced from ``v_min`` to ``v_max``. Each atom's mass goes to its two neighbours in
    proportion to closeness: ``m_l += p (u − b)``, ``m_u += p (b − l)``,
    ``b = (Tz − v_min)/Δz``.
    """
    n = support.shape[0]
    v_min, v_max = support[0], support[-1]
    delta = (v_max - v_min) / (n - 1)
    tz = (reward.unsqueeze(1) + factor.unsqueeze(1) * support.unsqueeze(0)).clamp(v_min, v_max)
    b = (tz - v_min) / delta
    lower, upper = b.floor().long(), b.ceil().long()
    lower = lower.clamp(0, n - 1)
    upper = upper.clamp(0, n - 1)
    same = (lower == upper).to(next_probs.dtype)  # b on an atom: all its mass goes there
    projected = torch.zeros_like(next_probs)
    projected.scatter_add_(1, lower, next_probs * (upper.to(b.dtype) - b + same))
    projected.scatter_add_(1, upper, next_probs * (b - lower.to(b.dtype)))
    return projected


def c51_cross_entropy(logits_sa, target_probs):
    """Per-sample cross-entropy ``−Σ_i m_i log p_i`` of the predicted logits (batch, N) against
    the projected target distribution (batch, N)."""
    return -(target_probs * F.log_softmax(logits_sa, dim=1)).sum(dim=1)


def quantile_huber_loss(quantiles, target, taus, kappa=1.0):
    """Per-sample quantile Huber loss (Dabney et al., 2018, eq. 10; QR-DQN and IQN).

    ``quantiles`` (batch, N) at fractions ``taus`` ((N,) or (batch, N)); ``target`` (batch, M).
    With ``u = target_j − quantile_i``: ``ρ^κ_τ(u) = |τ − 1{u < 0}| · L_κ(u) / κ``, where
    ``L_κ`` is the Huber loss; returns ``Σ_i mean_j ρ^κ_τi(u_ij)``, shape (batch,).
    """
    if kappa <= 0:
        raise ValueError(f"kappa must be > 0, got {kappa!r}")
    u = target.unsqueeze(1) - quantiles.unsqueeze(2)            # (B, N, M)
    abs_u = u.abs()
    huber = torch.where(abs_u <= kappa, 0.5 * u * u, kappa * (abs_u - 0.5 * kappa))
    if taus.dim() == 1:
        taus = taus.unsqueeze(0)
    weight = (taus.unsqueeze(2) - (u.detach() < 0).to(u.dtype)).abs()
    return (weight * huber / kappa).mean(dim=2).sum(dim=1)


def beta_at(step, beta_init, beta_steps):
    """The importance-sampling exponent β, annealed linearly from ``beta_init`` to 1 over
    ``beta_steps`` env steps (Schaul et al., 2016); ``beta_steps=0`` keeps β at ``beta_init``
    (Dopamine's Rainbow: a constant 0.5)."""
    if beta_steps == 0:
        return beta_init
    return min(1.0, beta_init + (1.0 - beta_init) * step / beta_steps)


def importance_weights(priorities, beta):
    """``w_i = (N P(i))^−β / max_j w_j`` with ``P(i) = p_i / Σ_k p_k`` (Schaul et al., 2016).
    ``N`` and ``Σ_k p_k`` cancel in the normalisation, so the batch's priorities ``p_i`` (or its
    sampling probabilities, proportional to them) are enough."""
    weights = priorities.clamp_min(1e-12).pow(-beta)
    return weights / weights.max()


def torch_generator(seed, device):
    """A ``torch.Generator`` on ``device`` seeded with ``seed`` (for noise drawn in a learner)."""
    return torch.Generator(device=device).manual_seed(int(seed))


def expected_q_values(learner, env):
    """Q-values of ``env``'s state as the expectation of a categorical distribution over
    ``learner.support`` (C51, Rainbow)."""
    with torch.no_grad():
        logits = learner.approximator(state_batch(learner.approximator, env))[0]
        return (logits.softmax(dim=-1) * learner.support).sum(dim=-1)

"""Samplers: draw a batch of transitions from a SART or SARTS trajectory into contiguous arrays.

Reference: ReinforcementLearningCore.jl v0.10, ``src/policies/agents/trajectories/samplers.jl``
(``BatchSampler``, ``NStepBatchSampler``); n-step returns as in Sutton & Barto (2018) §7.1.

Shape convention: every array of a :class:`Batch` has the batch axis first, ``(batch_size,
*element_shape)``; ``state`` of a ``(4,)`` float32 trace gives ``(batch_size, 4)`` float32. With
``device=None`` the batch holds numpy arrays; with a device every array except ``indices`` is a
torch tensor on it, moved once.

A transition ``i`` (a logical index of the ``reward`` trace) can be sampled when its next state
has been recorded and it is not a padding step (``terminal`` and ``truncated`` both set, see
:mod:`rlcore.trajectories.recording`). Its next state is ``state[i + 1]`` in the SART layout and
``next_state[i]`` in the SARTS layout (a trajectory with a ``next_state`` trace, see
:mod:`rlcore.trajectories.trajectory`): :func:`_next_states` says which, and both samplers read
both layouts through it. The rows of one environment are ``trajectory.n_envs`` apart (1 in the
SART layout), so an n-step window steps by that stride. When the trajectory has a ``priority`` trace
(a :class:`~rlcore.trajectories.sum_tree.SumTree`), transitions are drawn with probability
``priority / total`` and the batch also holds ``indices``, ``priorities`` and ``probabilities``.
"""

import numpy as np

from rlcore.trajectories.sum_tree import SumTree
from rlcore.utils.random import make_rng

__all__ = ["Batch", "BatchSampler", "NStepBatchSampler"]

_MAX_REDRAWS = 32  # rejection rounds for padding before listing the real transitions


class Batch(dict):
    """A dict of batch arrays with attribute access: ``batch.state is batch["state"]``."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"batch has no {name!r}; it has {list(self)}") from None

    def to(self, device):
        """A new batch whose arrays (all but ``indices``) are torch tensors on ``device``,
        placed as an approximator places its inputs
        (:func:`~rlcore.approximators.neural_network_approximator.to_device`: numpy floats
        become float32, tensors move, those already there are kept); other values are kept as
        they are."""
        import torch

        from rlcore.approximators.neural_network_approximator import to_device

        device = torch.device(device)
        out = Batch()
        for key, value in self.items():
            if key == "indices" or not isinstance(value, (torch.Tensor, np.ndarray)):
                out[key] = value
            elif isinstance(value, np.ndarray) and value.dtype == object:
                raise TypeError(f"batch[{key!r}] holds Python objects (dtype object) and "
                                f"cannot become a tensor on {device}")
            else:
                out[key] = to_device(value, device)
        return out


def _make_rng(rng, seed):
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        rng, seed = None, int(rng)
    return make_rng(rng=rng, seed=seed)


def _check_batch_size(batch_size):
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) \
            or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
    return int(batch_size)


def _check_device(device):
    if device is None:
        return None
    import torch

    return torch.device(device)


def _gather(trace, absolute):
    """Elements of ``trace`` at stream positions ``absolute`` (in range, int64 array)."""
    return trace.gather(absolute - trace.first_index)


def _next_states(traces):
    """Where next states are: ``(trace, offset)``, the next state of the transition at stream
    position ``i`` being ``trace`` at ``i + offset``: ``(next_state, 0)`` in the SARTS layout,
    ``(state, 1)`` in the SART layout."""
    next_state = traces.get("next_state")
    if next_state is not None:
        return next_state, 0
    return traces["state"], 1


def _valid_range(traces):
    """The stream positions ``[lo, hi)`` of the transitions whose next state is recorded."""
    state, reward = traces["state"], traces["reward"]
    next_trace, offset = _next_states(traces)
    lo = max(reward.first_index, state.first_index, traces["action"].first_index,
             next_trace.first_index - offset)
    hi = min(reward.end_index, next_trace.end_index - offset)
    return lo, hi


def _is_padding(traces, absolute):
    truncated = traces.get("truncated")
    if truncated is None:
        return np.zeros(len(absolute), bool)
    return np.asarray(_gather(traces["terminal"], absolute), bool) \
        & np.asarray(_gather(truncated, absolute), bool)


def _draw(traces, batch_size, rng):
    """Stream positions of ``batch_size`` transitions (and their priorities, or ``None``)."""
    lo, hi = _valid_range(traces)
    held = max(0, hi - lo)
    if held == 0:
        raise ValueError(f"cannot sample from a trajectory holding no complete transition "
                         f"({len(traces['reward'])} rewards, {len(traces['state'])} states)")
    if batch_size > held:
        raise ValueError(f"cannot sample a batch of {batch_size} from a trajectory holding "
                         f"{held} complete transitions")
    priority = traces.get("priority")
    if isinstance(priority, SumTree):
        return _draw_prioritized(traces, priority, batch_size, rng, lo, hi)
    absolute = rng.integers(lo, hi, size=batch_size)
    bad = _is_padding(traces, absolute)
    if bad.any():
        _redraw_padding(traces, absolute, bad, lo, hi, rng)
    return absolute, None, None


def _redraw_padding(traces, absolute, bad, lo, hi, rng):
    """Redraw the padding steps of ``absolute`` (flagged in ``bad``) in place, uniformly among
    the real transitions of ``[lo, hi)``."""
    redraws = 0
    while bad.any():
        if redraws == _MAX_REDRAWS:
            # padding dominates: draw from the explicit list of real transitions instead
            candidates = np.arange(lo, hi)
            candidates = candidates[~_is_padding(traces, candidates)]
            if len(candidates) == 0:
                raise ValueError(f"cannot sample: the trajectory's {hi - lo} transitions are "
                                 f"all padding steps")
            absolute[bad] = rng.choice(candidates, size=int(bad.sum()))
            break
        absolute[bad] = rng.integers(lo, hi, size=int(bad.sum()))
        bad = _is_padding(traces, absolute)
        redraws += 1


def _draw_prioritized(traces, tree, batch_size, rng, lo, hi):
    # Steps outside [lo, hi) (the newest step before its next state is recorded) must not be
    # drawn: their priorities are set to 0 for the draw and restored after. Padding steps are
    # recorded with priority 0 and are never drawn.
    excluded = np.concatenate((np.arange(tree.first_index, min(lo, tree.end_index)),
                               np.arange(max(hi, tree.first_index), tree.end_index)))
    excluded -= tree.first_index
    # The sampling probability of a drawn step is its priority over the total it was drawn from
    # (excluded steps not counted).
    if len(excluded) == 0:
        logical, priorities = tree.sample(rng, batch_size)
        total = tree.total
    else:
        saved = tree.gather(excluded)
        max_priority = tree.max_priority
        tree.update(excluded, np.zeros(len(excluded)))
        try:
            logical, priorities = tree.sample(rng, batch_size)
            total = tree.total
        finally:
            tree.update(excluded, saved)
            tree.max_priority = max_priority
    return logical + tree.first_index, priorities, total


def _finish(batch, traces, absolute, priorities, total, device):
    if priorities is not None:
        reward = traces["reward"]
        batch["indices"] = absolute - reward.first_index
        batch["priorities"] = priorities.astype(np.float32)
        batch["probabilities"] = (priorities / total).astype(np.float32)
    return batch if device is None else batch.to(device)


def _sart(traces, absolute, last):
    """The keys common to both samplers for transitions at stream positions ``absolute`` whose
    windows end at ``last`` (the next state is the one of ``last``; ``reward``/``terminal`` are
    filled by the caller)."""
    next_trace, offset = _next_states(traces)
    batch = Batch(state=_gather(traces["state"], absolute),
                  action=_gather(traces["action"], absolute))
    mask = traces.get("legal_actions_mask")
    if mask is not None:
        batch["legal_actions_mask"] = _gather(mask, absolute)
        if offset == 1:  # the SART layout: the mask of the next state is the next row's
            batch["next_legal_actions_mask"] = _gather(mask, last + 1)
        # (the SARTS layout records each row's mask with its state, none of its next state)
    batch["next_state"] = _gather(next_trace, last + offset)
    return batch


class BatchSampler:
    """Draws ``batch_size`` transitions uniformly, with replacement (by priority if prioritized).

    Reference: RL.jl ``BatchSampler``.

    Args:
        batch_size: transitions per batch (>= 1).
        device: ``None`` for numpy arrays, else a torch device (or its name) for tensors.
        rng: a ``numpy.random.Generator`` or an int seed (default: a fresh generator).
        seed: an int seed, instead of ``rng``.

    ``sampler.sample(trajectory)`` (or ``sampler(trajectory)``) returns a :class:`Batch` with
    ``state, action, reward, terminal, truncated, next_state`` (plus ``legal_actions_mask`` when
    the trajectory has a mask, and ``next_legal_actions_mask`` when it is of the SART layout, a
    ``CircularArraySARTTrajectory``/``SLART``: a SARTS trajectory keeps no mask of the next
    state; ``indices``, ``priorities`` and
    ``probabilities`` when it is prioritized). Raises ``ValueError`` when the trajectory holds
    fewer complete transitions than ``batch_size``.

    >>> from rlcore.trajectories.trajectory import CircularArraySARTTrajectory
    >>> t = CircularArraySARTTrajectory(10, state=((), np.int64))
    >>> for s in range(3):
    ...     t.push(state=s, action=0); t.push(reward=1.0, terminal=False, truncated=False)
    >>> t.push(state=3, action=0)
    >>> batch = BatchSampler(2, rng=0)(t)
    >>> bool(np.all(batch.next_state == batch.state + 1)), batch.state.shape
    (True, (2,))
    """

    def __init__(self, batch_size, device=None, rng=None, *, seed=None):
        self.batch_size = _check_batch_size(batch_size)
        self.device = _check_device(device)
        self.rng = _make_rng(rng, seed)

    def sample(self, trajectory):
        """A :class:`Batch` of ``batch_size`` transitions of ``trajectory``."""
        traces = trajectory.traces
        absolute, priorities, total = _draw(traces, self.batch_size, self.rng)
        batch = _sart(traces, absolute, absolute)
        batch["reward"] = _gather(traces["reward"], absolute)
        batch["terminal"] = _gather(traces["terminal"], absolute)
        truncated = traces.get("truncated")
        if truncated is not None:
            batch["truncated"] = _gather(truncated, absolute)
        return _finish(batch, traces, absolute, priorities, total, self.device)

    __call__ = sample

    def __repr__(self):
        return f"BatchSampler(batch_size={self.batch_size}, device={self.device})"


class NStepBatchSampler:
    """Draws transitions with n-step discounted returns, cut at the end of an episode.

    Reference: RL.jl ``NStepBatchSampler``; Sutton & Barto (2018) §7.1.

    For a drawn step ``i`` the batch holds ``reward = Σ_{j<k} γ^j r_{i+j}``, summed over
    ``k <= n`` steps of the same environment: the window stops after the first step that is
    terminal or truncated (the end of the episode) and at the newest step whose next state is
    recorded. ``terminal`` is True iff a terminal step lies in the window, ``next_state`` is the
    next state of the window's last step: ``state[i + k]`` in the SART layout (for a truncated
    episode, the true final state kept by the padding step), ``next_state[i + (k - 1)·s]`` in
    the SARTS layout, whose window walks the rows ``i, i + s, i + 2s, ...`` of one
    sub-environment (``s = trajectory.n_envs``). ``discount = γ^k`` (float32), so a
    learner's target is ``reward + discount * (1 - terminal) * V(next_state)``. ``truncated``
    says whether the window ended at a truncated step.

    Args:
        n: the most steps summed (>= 1).
        gamma: the discount γ in [0, 1].
        batch_size: transitions per batch (>= 1).
        device, rng, seed: as for :class:`BatchSampler`.

    >>> from rlcore.trajectories.trajectory import CircularArraySARTTrajectory
    >>> t = CircularArraySARTTrajectory(10, state=((), np.int64))
    >>> for s in range(3):
    ...     t.push(state=s, action=0); t.push(reward=1.0, terminal=s == 2, truncated=False)
    >>> t.push(state=3, action=0)
    >>> b = NStepBatchSampler(n=5, gamma=0.5, batch_size=3, rng=0)(t)
    >>> expected = {0: 1.75, 1: 1.5, 2: 1.0}  # 1 + .5 + .25, 1 + .5, 1: cut at the terminal step
    >>> all(expected[s] == r for s, r in zip(b.state.tolist(), b.reward.tolist()))
    True
    >>> b.next_state.tolist(), b.terminal.tolist()
    ([3, 3, 3], [True, True, True])
    """

    def __init__(self, n, gamma, batch_size, device=None, rng=None, *, seed=None):
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n must be an int >= 1, got {n!r}")
        if not isinstance(gamma, (int, float, np.integer, np.floating)) or isinstance(gamma, bool) \
                or not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must be a number in [0, 1], got {gamma!r}")
        self.n = int(n)
        self.gamma = float(gamma)
        self.batch_size = _check_batch_size(batch_size)
        self.device = _check_device(device)
        self.rng = _make_rng(rng, seed)

    def sample(self, trajectory):
        """A :class:`Batch` of ``batch_size`` n-step transitions of ``trajectory``."""
        traces = trajectory.traces
        absolute, priorities, total = _draw(traces, self.batch_size, self.rng)
        _, hi = _valid_range(traces)
        stride = trajectory.n_envs  # rows of one environment are this far apart
        reward_trace, terminal_trace = traces["reward"], traces["terminal"]
        truncated_trace = traces.get("truncated")
        size = len(absolute)
        n_step_return = np.zeros(size, np.float64)
        steps = np.zeros(size, np.int64)
        terminal = np.zeros(size, bool)
        truncated = np.zeros(size, bool)
        alive = np.ones(size, bool)
        weight = 1.0
        for k in range(self.n):
            position = absolute + k * stride
            alive &= position < hi
            if not alive.any():
                break
            position = np.minimum(position, hi - 1)
            r = np.asarray(_gather(reward_trace, position), np.float64)
            t = np.asarray(_gather(terminal_trace, position), bool)
            if truncated_trace is None:
                c = np.zeros(size, bool)
            else:
                c = np.asarray(_gather(truncated_trace, position), bool)
            n_step_return += np.where(alive, weight * r, 0.0)
            steps += alive
            terminal |= alive & t
            truncated |= alive & c & ~t
            alive &= ~(t | c)
            weight *= self.gamma
        batch = _sart(traces, absolute, absolute + (steps - 1) * stride)
        batch["reward"] = n_step_return.astype(np.float32)
        batch["terminal"] = terminal
        batch["truncated"] = truncated
        batch["discount"] = np.power(self.gamma, steps).astype(np.float32)
        return _finish(batch, traces, absolute, priorities, total, self.device)

    __call__ = sample

    def __repr__(self):
        return (f"NStepBatchSampler(n={self.n}, gamma={self.gamma}, "
                f"batch_size={self.batch_size}, device={self.device})")

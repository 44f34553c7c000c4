"""Samplers: draw a batch of transitions from a SART trajectory into contiguous arrays.

Reference: ReinforcementLearningCore.jl v0.10, ``src/policies/agents/trajectories/samplers.jl``
(``BatchSampler``, ``NStepBatchSampler``); n-step returns as in Sutton & Barto (2018) §7.1.

Shape convention: every array of a :class:`Batch` has the batch axis first, ``(batch_size,
*element_shape)``; ``state`` of a ``(4,)`` float32 trace gives ``(batch_size, 4)`` float32. With
``device=None`` the batch holds numpy arrays; with a device every array except ``indices`` is a
torch tensor on it, moved once.

A transition ``i`` (a logical index of the ``reward`` trace) can be sampled when its next state
``state[i + 1]`` has been recorded and it is not a padding step (``terminal`` and ``truncated``
both set, see :mod:`rlcore.trajectories.recording`). When the trajectory has a ``priority`` trace
(a :class:`~rlcore.trajectories.sum_tree.SumTree`), transitions are drawn with probability
``priority / total`` and the batch also holds ``indices``, ``priorities`` and ``probabilities``.
"""

import numpy as np

from rlcore.trajectories.buffers import CircularArrayBuffer
from rlcore.trajectories.sum_tree import SumTree
from rlcore.utils.random import make_rng

__all__ = ["Batch", "BatchSampler", "NStepBatchSampler", "reused_buffers"]

_BOOL = np.dtype(bool)
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
        """A new batch whose arrays (all but ``indices``) are torch tensors on ``device``:
        numpy arrays become tensors, tensors move (those already there are kept); other values
        are kept as they are."""
        import torch

        device = torch.device(device)
        out = Batch()
        for key, value in self.items():
            if key == "indices":
                out[key] = value
            elif isinstance(value, torch.Tensor):
                out[key] = value.to(device)
            elif isinstance(value, np.ndarray):
                if value.dtype == object:
                    raise TypeError(f"batch[{key!r}] holds Python objects (dtype object) and "
                                    f"cannot become a tensor on {device}")
                out[key] = torch.from_numpy(np.ascontiguousarray(value)).to(device)
            else:
                out[key] = value
        return out


class _BufferBatch(Batch):
    """A :class:`Batch` of the CPU tensors of a ``BatchSampler``'s reused buffers
    (``reuse_buffers=True``); ``buffers`` is the :class:`_BatchBuffers` (see
    :func:`reused_buffers`)."""

    __slots__ = ("buffers",)

    def __reduce__(self):  # a copy or pickle is a plain Batch of its own tensors, not the replay's
        return Batch, (dict(self),)


def reused_buffers(batch):
    """The reused buffers (a ``_BatchBuffers``) whose CPU tensors ``batch`` holds, when it
    holds exactly those, as a ``BatchSampler(..., device="cpu", reuse_buffers=True)`` drew it
    (no key added, removed or replaced since), else ``None``.

    Their ``arrays`` are numpy arrays sharing the tensors' memory, with the dtypes and shapes
    they were made with; ``memo`` is a dict in which a consumer may keep what it derived from
    them once (a learner's check of their dtypes and shapes), valid as long as the buffers are
    used: the sampler makes new buffers, with a new ``memo``, for another trajectory, batch size
    or device. So a learner can skip per-tensor conversions and checks, about 3 µs per batch;
    in return the tensors of such a batch must keep their dtype, shape, storage (no ``.data =``
    or ``set_``) and ``requires_grad``: their values may change, in place."""
    if type(batch) is not _BufferBatch:
        return None
    buffers = batch.buffers
    tensors = buffers.tensors
    if len(batch) != len(tensors):
        return None
    get = batch.get
    for key, tensor in tensors.items():
        if get(key) is not tensor:
            return None
    return buffers


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


def _valid_range(traces):
    """The stream positions ``[lo, hi)`` of the transitions whose next state is recorded."""
    state, reward = traces["state"], traces["reward"]
    lo = max(reward.first_index, state.first_index, traces["action"].first_index)
    hi = min(reward.end_index, state.end_index - 1)
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


def _sart(traces, absolute, next_absolute):
    """The keys common to both samplers (``reward``/``terminal`` are filled by the caller)."""
    batch = Batch(state=_gather(traces["state"], absolute),
                  action=_gather(traces["action"], absolute))
    mask = traces.get("legal_actions_mask")
    if mask is not None:
        batch["legal_actions_mask"] = _gather(mask, absolute)
        batch["next_legal_actions_mask"] = _gather(mask, next_absolute)
    batch["next_state"] = _gather(traces["state"], next_absolute)
    return batch


def _circular_layout(traces):
    """The buffers ``(state, action, reward, terminal, truncated, mask or None)`` when the
    uniform fast path of :class:`BatchSampler` applies, else ``None``.

    It applies to the replay trajectories of :mod:`rlcore.trajectories.trajectory` without a sum
    tree: every trace the sampler reads is a :class:`CircularArrayBuffer`, and ``terminal`` and
    ``truncated`` are scalar bool traces (so padding is ``terminal & truncated``).
    """
    get = traces.get
    state, action, reward = get("state"), get("action"), get("reward")
    terminal, truncated, mask = get("terminal"), get("truncated"), get("legal_actions_mask")
    if (type(state) is not CircularArrayBuffer or type(action) is not CircularArrayBuffer
            or type(reward) is not CircularArrayBuffer
            or type(terminal) is not CircularArrayBuffer
            or type(truncated) is not CircularArrayBuffer
            or (mask is not None and type(mask) is not CircularArrayBuffer)
            or isinstance(get("priority"), SumTree)
            or terminal.dtype is not _BOOL or truncated.dtype is not _BOOL
            or terminal.shape != () or truncated.shape != ()):
        return None
    return state, action, reward, terminal, truncated, mask


def _rows(buffer, positions, cache):
    """Storage rows (before wrapping at the capacity) of the stream ``positions`` of
    ``buffer``: ``positions + (start - first_index)``, shared by every buffer with the same
    offset through ``cache`` (the traces of a trajectory usually share one or two)."""
    offset = buffer._start - buffer._end + buffer._len
    rows = cache.get(offset)
    if rows is None:
        rows = cache[offset] = positions + offset
    return rows


def _take(buffer, positions, cache, out=None):
    """Elements of ``buffer`` at in-range stream ``positions`` (a new array, as ``_gather``, or
    written into ``out``): one ``take`` with ``mode="wrap"`` does the circular index
    arithmetic."""
    return buffer.data.take(_rows(buffer, positions, cache), axis=0, mode="wrap", out=out)


_NO_BUFFERS = {}


def _sample_circular(layout, traces, batch_size, rng, device, out=None):
    """The uniform batch of :meth:`BatchSampler.sample` for a circular SART trajectory (see
    :func:`_circular_layout`), drawn with the same random numbers as the general path; ``None``
    when the trajectory holds fewer than ``batch_size`` transitions (the general path raises).
    With ``out`` (a :class:`_BatchBuffers`) the arrays are written into its buffers and the
    batch holds its arrays or tensors instead of new ones.
    """
    state, action, reward, terminal, truncated, mask = layout
    lo = max(reward._end - reward._len, state._end - state._len, action._end - action._len)
    hi = min(reward._end, state._end - 1)
    if hi - lo < batch_size:
        return None
    absolute = rng.integers(lo, hi, size=batch_size)
    into = _NO_BUFFERS if out is None else out.arrays
    cache = {}
    term = _take(terminal, absolute, cache, into.get("terminal"))
    trunc = _take(truncated, absolute, cache, into.get("truncated"))
    bad = term & trunc
    if np.count_nonzero(bad):  # padding drawn: redraw it as the general path does
        _redraw_padding(traces, absolute, bad, lo, hi, rng)
        cache = {}
        term = _take(terminal, absolute, cache, into.get("terminal"))
        trunc = _take(truncated, absolute, cache, into.get("truncated"))
    state_rows = _rows(state, absolute, cache)
    take_state = state.data.take
    batch = Batch(state=take_state(state_rows, axis=0, mode="wrap", out=into.get("state")),
                  action=_take(action, absolute, cache, into.get("action")))
    if mask is not None:
        batch["legal_actions_mask"] = _take(mask, absolute, cache,
                                            into.get("legal_actions_mask"))
        batch["next_legal_actions_mask"] = _take(mask, absolute + 1, {},
                                                 into.get("next_legal_actions_mask"))
    # the next states: one row on, wrapped by take
    batch["next_state"] = take_state(state_rows + 1, axis=0, mode="wrap",
                                     out=into.get("next_state"))
    batch["reward"] = _take(reward, absolute, cache, into.get("reward"))
    batch["terminal"] = term
    batch["truncated"] = trunc
    if device is None:
        return batch
    if out is not None and out.tensors is not None:
        batch = _BufferBatch(out.tensors)  # CPU tensors sharing the arrays just written
        batch.buffers = out
        return batch
    import torch

    if type(device) is not torch.device:
        device = torch.device(device)
    from_numpy = torch.from_numpy
    if device.type == "cpu":  # the fresh contiguous arrays become tensors without a copy
        for key, value in batch.items():
            batch[key] = from_numpy(value)
    else:
        for key, value in batch.items():
            batch[key] = from_numpy(value).to(device)
    return batch


class _BatchBuffers:
    """The arrays (and CPU tensors sharing their memory) that a ``BatchSampler`` with
    ``reuse_buffers=True`` writes each batch of a circular SART trajectory into."""

    def __init__(self, layout, batch_size, device):
        state, action, reward, terminal, truncated, mask = layout
        # what it was made for: the trace buffers and their storage arrays, batch size, device
        self.layout = layout
        self.storage = tuple(None if buffer is None else buffer.data for buffer in layout)
        self.batch_size, self.device = batch_size, device
        # in the order of the batch's keys
        specs = {"state": state, "action": action}
        if mask is not None:
            specs["legal_actions_mask"] = specs["next_legal_actions_mask"] = mask
        specs.update(next_state=state, reward=reward, terminal=terminal, truncated=truncated)
        self.arrays = {key: np.empty((batch_size, *buffer.data.shape[1:]), buffer.data.dtype)
                       for key, buffer in specs.items()}
        self.tensors = None
        self.memo = {}  # see reused_buffers
        if device is not None and device.type == "cpu":
            import torch

            self.tensors = {key: torch.from_numpy(a) for key, a in self.arrays.items()}

    def serves(self, layout, batch_size, device):
        """Whether these buffers fit ``layout`` (the same buffer objects and storage arrays),
        ``batch_size`` and ``device``."""
        if batch_size != self.batch_size or device != self.device:
            return False
        for mine, theirs, data in zip(self.layout, layout, self.storage):
            if mine is not theirs or (theirs is not None and theirs.data is not data):
                return False
        return True


class BatchSampler:
    """Draws ``batch_size`` transitions uniformly, with replacement (by priority if prioritized).

    Reference: RL.jl ``BatchSampler``.

    Args:
        batch_size: transitions per batch (>= 1).
        device: ``None`` for numpy arrays, else a torch device (or its name) for tensors.
        rng: a ``numpy.random.Generator`` or an int seed (default: a fresh generator).
        seed: an int seed, instead of ``rng``.
        reuse_buffers: write every batch into the same arrays (and CPU tensors) instead of new
            ones (default False). A batch is then valid only until the next one is drawn: for
            learners that finish with a batch before drawing another, as every ``rlzoo`` learner
            does; it saves the allocations of about a dozen arrays and tensors per batch. Applies
            to uniform sampling from the circular replay trajectories (the fast path); other
            trajectories get new arrays as before. On the CPU a learner may recognise such a
            batch (:func:`reused_buffers`) and use the buffers' numpy arrays directly, so its
            tensors must keep their dtype, shape, storage and ``requires_grad``.

    ``sampler.sample(trajectory)`` (or ``sampler(trajectory)``) returns a :class:`Batch` with
    ``state, action, reward, terminal, truncated, next_state`` (plus ``legal_actions_mask`` and
    ``next_legal_actions_mask`` when the trajectory has a mask; ``indices``, ``priorities`` and
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

    def __init__(self, batch_size, device=None, rng=None, *, seed=None, reuse_buffers=False):
        self.batch_size = _check_batch_size(batch_size)
        self.device = _check_device(device)
        self.rng = _make_rng(rng, seed)
        if not isinstance(reuse_buffers, bool):
            raise TypeError(f"reuse_buffers must be True or False, got {reuse_buffers!r}")
        self.reuse_buffers = reuse_buffers
        self._buffers = None

    def sample(self, trajectory):
        """A :class:`Batch` of ``batch_size`` transitions of ``trajectory``."""
        traces = trajectory.traces
        layout = _circular_layout(traces)
        if layout is not None:
            out = self._buffers_for(layout) if self.reuse_buffers else None
            batch = _sample_circular(layout, traces, self.batch_size, self.rng, self.device, out)
            if batch is not None:
                return batch
        return self._sample_general(trajectory)

    def _buffers_for(self, layout):
        """The reused buffers, (re)made for another trajectory, storage, batch size or device."""
        if type(self.device) is str:  # set after construction as a name
            self.device = _check_device(self.device)
        buffers = self._buffers
        if buffers is None or not buffers.serves(layout, self.batch_size, self.device):
            buffers = self._buffers = _BatchBuffers(layout, self.batch_size, self.device)
        return buffers

    def __getstate__(self):
        # a copy or pickle draws into buffers of its own (and does not carry the replay's)
        state = self.__dict__.copy()
        state["_buffers"] = None
        return state

    def _sample_general(self, trajectory):
        """:meth:`sample` for any trajectory (the fast path's reference, same random numbers)."""
        traces = trajectory.traces
        absolute, priorities, total = _draw(traces, self.batch_size, self.rng)
        batch = _sart(traces, absolute, absolute + 1)
        batch["reward"] = _gather(traces["reward"], absolute)
        batch["terminal"] = _gather(traces["terminal"], absolute)
        truncated = traces.get("truncated")
        if truncated is not None:
            batch["truncated"] = _gather(truncated, absolute)
        return _finish(batch, traces, absolute, priorities, total, self.device)

    __call__ = sample

    def __repr__(self):
        reuse = ", reuse_buffers=True" if self.reuse_buffers else ""
        return f"BatchSampler(batch_size={self.batch_size}, device={self.device}{reuse})"


class NStepBatchSampler:
    """Draws transitions with n-step discounted returns, cut at the end of an episode.

    Reference: RL.jl ``NStepBatchSampler``; Sutton & Barto (2018) §7.1.

    For a drawn step ``i`` the batch holds ``reward = Σ_{j<k} γ^j r_{i+j}``, summed over
    ``k <= n`` steps: the window stops after the first step that is terminal or truncated (the
    end of the episode) and at the newest step whose next state is recorded. ``terminal`` is
    True iff a terminal step lies in the window, ``next_state = state[i + k]`` (for a truncated
    episode, the true final state kept by the padding step), ``discount = γ^k`` (float32), so a
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
            position = absolute + k
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
        batch = _sart(traces, absolute, absolute + steps)
        batch["reward"] = n_step_return.astype(np.float32)
        batch["terminal"] = terminal
        batch["truncated"] = truncated
        batch["discount"] = np.power(self.gamma, steps).astype(np.float32)
        return _finish(batch, traces, absolute, priorities, total, self.device)

    __call__ = sample

    def __repr__(self):
        return (f"NStepBatchSampler(n={self.n}, gamma={self.gamma}, "
                f"batch_size={self.batch_size}, device={self.device})")

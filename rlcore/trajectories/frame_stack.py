"""``FrameStackBuffer``: a ring of stacked states that stores each frame once.

Reference: Dopamine's ``OutOfGraphReplayBuffer`` (Castro et al. 2018,
https://arxiv.org/abs/1812.06110), which keeps single Atari frames and rebuilds the 4-frame
stacks when sampling, so a 1,000,000-step replay holds about 7 GB of frames instead of 28 GB of
stacks.

Shape convention: an element is a stack of shape ``(depth, *frame_shape)``, the stack axis first
(``(4, 84, 84)`` for Atari), oldest frame first; a batch has shape ``(batch, depth,
*frame_shape)``. The buffer behaves as a :class:`~rlcore.trajectories.buffers.CircularArrayBuffer`
of these stacks (same logical indices, stream positions, capacity and returned arrays); only the
storage differs:

* ``frames`` is a ring of single frames, addressed by *frame positions* (a frame's position in
  the stream of frames written since the last ``clear``; its row is ``position % len(frames)``);
* ``positions`` holds, for each element slot, the frame positions of its ``depth`` frames.

A pushed stack that continues the newest one (``new[:-1] == newest[1:]``, the next state of an
episode) writes only its newest frame and shares the others. Any other stack (an episode start,
or anything else) writes its frames afresh, each frame equal to the one before it in the stack
written once (so a stack padded by repeating or zero frames costs one or two frames). Frame
positions never decrease along the buffer (element by element, and within a stack), so the
frames still referenced are exactly those from the oldest element's first frame on; a write that
would overwrite one of them first grows ``frames`` (by at least a quarter). Memory is therefore
one frame per step plus at most ``depth - 1`` frames per episode start, and a stack is never
rebuilt from an overwritten frame.
"""

import warnings

import numpy as np

from rlcore.trajectories.buffers import (
    AbstractBuffer, CircularArrayBuffer, array_protocol, array_check, as_capacity, as_shape,
    dummy_element, init_element, ring_row,
)

__all__ = ["FrameStackBuffer"]


class FrameStackBuffer(AbstractBuffer):
    """A fixed-capacity ring of stacked states (stack axis first) storing each frame once.

    Reference: Dopamine's replay memory (Castro et al. 2018, https://arxiv.org/abs/1812.06110);
    the module docstring describes the storage.

    Args:
        capacity: the most stacks held; ``push`` overwrites the oldest when full.
        shape: the shape of one stack, ``(depth, *frame_shape)``, e.g. ``(4, 84, 84)``.
        dtype: numpy dtype of the frames (default ``uint8``).
        frame_capacity: frames preallocated (default ``None``: ``capacity + depth - 1`` plus a
            reserve of ``max(depth, capacity // 64)`` for episode starts). ``frames`` grows by at
            least a quarter when the stacks held need more; it never shrinks. While it grows,
            the old and the new arrays are both alive: the peak is about 2.25 times the frames
            held (e.g. 16 GB for a moment when 7.2 GB of Atari frames grow by a quarter), so
            preallocate with ``frame_capacity`` when memory is tight.

    It is used, as the state trace of a replay trajectory, through ``frame_stack=True``:
    ``CircularArraySARTTrajectory(capacity, state=((4, 84, 84), np.uint8), frame_stack=True)``.
    Differences from ``CircularArrayBuffer``: there is no ``data`` array (``frames`` and
    ``positions`` hold the storage; ``nbytes`` counts both; reading ``data`` raises an
    ``AttributeError`` saying so); ``physical(indices)`` gives rows of ``positions`` (element
    slots), whose entries are *frame positions*, so the stacks at ``indices`` are
    ``frames[positions[physical(indices)] % len(frames)]`` (what ``buffer[indices]`` returns);
    an int index returns a new array, not a view; elements cannot be assigned
    (``buffer[i] = x`` raises ``TypeError``) since neighbouring stacks share frames.

    Frames are shared only between stacks that continue each other along the stack axis, the
    first axis. If the frames held average more than two per stack once the buffer is full (or
    holds 1,000 stacks; never in a buffer of fewer than ``4 * depth`` stacks), a
    ``RuntimeWarning`` is emitted, once: the stacks do not continue each other, most likely
    because the stack axis is last (e.g. ``(84, 84, 4)`` where ``(4, 84, 84)`` is needed), and
    the buffer saves less than half the memory of plain stacks, or none.

    >>> b = FrameStackBuffer(10, shape=(3, 2), dtype=np.uint8)
    >>> frames = np.arange(12, dtype=np.uint8).reshape(6, 2)
    >>> for t in range(4):  # one episode: the stacks of frames t, t + 1, t + 2
    ...     b.push(frames[t:t + 3])
    >>> b[-1].tolist(), len(b), b.n_frames
    ([[6, 7], [8, 9], [10, 11]], 4, 6)
    """

    __slots__ = ("capacity", "shape", "dtype", "depth", "frame_shape", "frames", "positions",
                 "_start", "_fast", "_frame_end", "_bits", "_warned")

    def __init__(self, capacity, shape, dtype=np.uint8, frame_capacity=None):
        self.capacity = as_capacity(capacity)
        shape = as_shape(shape)
        if len(shape) == 0 or shape[0] < 1:
            raise ValueError(f"shape of a FrameStackBuffer must be (depth, *frame_shape) with "
                             f"depth >= 1, the stack axis first, got {shape!r}")
        init_element(self, shape, dtype)
        self.depth = shape[0]
        self.frame_shape = shape[1:]
        if frame_capacity is None:
            frame_capacity = self.capacity + self.depth - 1 + max(self.depth,
                                                                 self.capacity // 64)
        elif not isinstance(frame_capacity, (int, np.integer)) or isinstance(frame_capacity, bool) \
                or frame_capacity < self.depth:
            raise ValueError(f"frame_capacity must be an int >= depth = {self.depth} (or None), "
                             f"got {frame_capacity!r}")
        self.frames = np.zeros((int(frame_capacity), *self.frame_shape), self.dtype)
        self.positions = np.zeros((self.capacity, self.depth), np.int64)
        self._start = 0
        self._len = 0
        self._end = 0
        self._frame_end = 0  # frame position one past the newest frame written
        self._warned = False  # the no-sharing RuntimeWarning was emitted
        # Frames are compared bit for bit (0.0 and -0.0 differ, a NaN equals itself), so a
        # shared frame is always the exact frame pushed.
        self._bits = np.dtype((np.void, self.dtype.itemsize)) \
            if self.dtype.kind in "fc" else None

    # --- storage
    @property
    def n_frames(self):
        """The number of frames the stacks held reference (written and not yet released)."""
        if self._len == 0:
            return 0
        return self._frame_end - int(self.positions[self._start, 0])

    @property
    def data(self):
        """Not available: raises ``AttributeError`` (the stacks share frames)."""
        raise AttributeError("a FrameStackBuffer has no data array: its stacks share frames; "
                             "use buffer[indices] or gather(indices) for stacks, or "
                             "frames[positions[physical(indices)] % len(frames)]")

    @property
    def nbytes(self):
        """Bytes of the storage: ``frames`` plus ``positions``."""
        return self.frames.nbytes + self.positions.nbytes

    def _grow(self, needed, first):
        """Reallocate ``frames`` to hold at least ``needed`` frames, keeping positions
        ``[first, _frame_end)`` (the frames still referenced)."""
        old = self.frames
        size = len(old)
        new_size = max(needed, size + size // 4)
        new = np.zeros((new_size, *self.frame_shape), self.dtype)
        p, end = first, self._frame_end
        while p < end:  # at most three contiguous runs: no temporary copy of the frames
            a, b = p % size, p % new_size
            run = min(end - p, size - a, new_size - b)
            new[b:b + run] = old[a:a + run]
            p += run
        self.frames = new

    # --- the AbstractBuffer API (shared with CircularArrayBuffer where it reads the same)

    check = array_check
    isfull = CircularArrayBuffer.isfull
    _physical_unchecked = CircularArrayBuffer._physical_unchecked
    __array__ = array_protocol
    dummy = dummy_element

    def push(self, x):
        """Append the stack ``x``, overwriting the oldest when full; unchanged on error."""
        x = self.check(x)
        if x.dtype is not self.dtype:
            x = x.astype(self.dtype)
        depth, cap, n = self.depth, self.capacity, self._len
        end = self._frame_end
        row = np.empty(depth, np.int64)
        bits = x if self._bits is None else np.ascontiguousarray(x).view(self._bits)
        if n and self._continues(bits):
            # the next state of an episode: share the newest stack's frames, write the last one
            row[:-1] = self.positions[self._slot(n - 1), 1:]
            row[-1] = end
            new = x[-1:]
        else:
            # write afresh, a frame equal to the one before it in the stack only once
            if depth > 1:
                repeated = (bits[1:] == bits[:-1]).reshape(depth - 1, -1).all(axis=1)
            else:
                repeated = np.zeros(0, bool)
            written = np.concatenate(([True], ~repeated))
            row[:] = end + np.cumsum(written) - 1
            new = x[written]
        # The oldest stack kept after this push bounds the frames still needed.
        if n == cap:
            first = int(self.positions[self._slot(1), 0]) if cap > 1 else int(row[0])
        else:
            first = int(self.positions[self._start, 0]) if n else int(row[0])
        needed = end + len(new) - first
        if needed > len(self.frames):
            self._grow(needed, first)
        size = len(self.frames)
        for j in range(len(new)):
            self.frames[(end + j) % size] = new[j]
        self._frame_end = end + len(new)
        if n < cap:
            self.positions[self._slot(n)] = row
            self._len = n + 1
        else:
            self.positions[self._start] = row
            self._start = ring_row(self._start, 1, cap)
        self._end += 1
        if not self._warned and self._len >= max(min(cap, 1000), 4 * depth):
            self._warn_if_unshared()

    def _warn_if_unshared(self):
        """Warn once if the stacks held average more than two frames each."""
        n_frames = self.n_frames
        if n_frames <= 2 * self._len:
            return
        self._warned = True
        warnings.warn(
            f"FrameStackBuffer of shape {self.shape} holds {n_frames} frames of shape "
            f"{self.frame_shape} for {self._len} stacks ({n_frames / self._len:.1f} per stack, "
            f"where stacks of one episode share all but one): its stacks do not continue each "
            f"other along the first (stack) axis. Most likely the stack axis is last (e.g. "
            f"(84, 84, 4)); it must come first (e.g. (4, 84, 84)). Otherwise the episodes are "
            f"too short to share frames: use frame_stack=False",
            RuntimeWarning, stacklevel=2)

    def pop(self):
        """Remove and return the newest stack (a new array); its own frames are released."""
        n = self._len
        if n == 0:
            raise IndexError("pop from an empty FrameStackBuffer")
        x = self._stack_frames(self._slot(n - 1))
        self._len = n - 1
        self._end -= 1
        if n > 1:
            self._frame_end = int(self.positions[self._slot(n - 2), -1]) + 1
        return x

    def clear(self):
        """Remove every stack (the storage is kept)."""
        self._start = 0
        self._len = 0
        self._end = 0
        self._frame_end = 0

    def _continues(self, bits):
        """Whether the stack (as ``bits``) continues the newest: ``new[:-1] == newest[1:]``."""
        if self.depth == 1:
            return True
        newest = self.frames[self.positions[self._slot(self._len - 1), 1:] % len(self.frames)]
        if self._bits is not None:
            newest = newest.view(self._bits)
        return np.array_equal(bits[:-1], newest)

    def _slot(self, i):
        return ring_row(self._start, i, self.capacity)

    def _stack_frames(self, slots):
        return self.frames[self.positions[slots] % len(self.frames)]

    def gather(self, indices):
        """Stacks at non-negative in-range logical ``indices`` (int array), shape
        ``(len(indices), depth, *frame_shape)``, as a new array."""
        return self._stack_frames(self._physical_unchecked(np.array(indices, np.int64)))

    def __getitem__(self, indices):
        """Stacks at logical ``indices`` (a new array; an int index gives one stack)."""
        return self._stack_frames(self._physical_unchecked(self._logical(indices)))

    def __setitem__(self, indices, value):
        raise TypeError("FrameStackBuffer elements cannot be assigned: neighbouring stacks share "
                        "frames; push a new stack instead")

    def to_array(self):
        """A copy of the stacks in logical order, shape ``(len, depth, *frame_shape)``."""
        return self.gather(np.arange(self._len))

    def __repr__(self):
        return (f"FrameStackBuffer(capacity={self.capacity}, shape={self.shape}, "
                f"dtype={self.dtype}, len={self._len}, frames={len(self.frames)})")

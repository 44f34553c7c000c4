"""Buffers: the storage behind each trace of a trajectory.

After ReinforcementLearningCore.jl's ``CircularArrayBuffer`` (CircularArrayBuffers.jl) and the
elastic and vector traces of RL.jl v0.10.

Shape convention: a buffer holds elements of one fixed ``shape`` (``()`` for scalars); its storage
``data`` has shape ``(storage_length, *shape)``, the element axis first. Indices are *logical*:
``0`` is the oldest element held, ``-1`` the newest. ``physical(indices)`` maps logical indices to
rows of ``data`` for vectorised gathers, ``buffer.data[buffer.physical(idx)]``.

A ring (``CircularArrayBuffer``, ``SumTree``, ``FrameStackBuffer``) keeps its elements in
storage rows ``start, start + 1, ...`` wrapped at ``capacity``; :func:`ring_row`,
:func:`ring_rows`, :func:`ring_append` and :func:`ring_logical` are that index arithmetic, written
once for all three.
``CircularArrayBuffer.extend(xs)`` (and ``SumTree.extend``) appends ``k`` elements at once, ``xs``
of shape ``(k, *shape)``, the element axis first.

Every buffer also counts positions in the *stream* of values pushed since creation or the last
``clear()`` (a ``pop`` takes one back): ``first_index`` is the stream position of the oldest
element held and ``end_index`` one past the newest. Traces of a trajectory that overwrite their
oldest elements at different times stay aligned through these stream positions.
"""

import abc
import reprlib

import numpy as np

__all__ = ["AbstractBuffer", "CircularArrayBuffer", "ElasticArrayBuffer", "VectorBuffer",
           "ring_row", "ring_rows", "ring_append", "ring_logical"]

_INT_TYPES = (int, bool, np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
              np.uint32, np.uint64)
_FLOAT_TYPES = _INT_TYPES + (float, np.float16, np.float32, np.float64)
# Python and numpy scalar types that can be stored in a scalar buffer of each dtype kind without
# a same_kind violation: the push fast path skips np.asarray for them.
_FAST_SCALAR_TYPES = {
    "b": frozenset((bool, np.bool_)),
    "i": frozenset(_INT_TYPES),
    "u": frozenset(_INT_TYPES),
    "f": frozenset(_FLOAT_TYPES),
    "c": frozenset(_FLOAT_TYPES + (complex, np.complex64, np.complex128)),
}

_repr = reprlib.Repr()
_repr.maxstring = 60
_repr.maxother = 60


def short_repr(x):
    """A short repr of ``x`` for error messages (large arrays are summarised)."""
    if isinstance(x, np.ndarray) and x.size > 8:
        return f"array(shape={x.shape}, dtype={x.dtype})"
    return _repr.repr(x)


def as_shape(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        shape = tuple(int(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be a tuple of ints, got {shape!r}") from None
    if any(n < 0 for n in shape):
        raise ValueError(f"shape must have non-negative sizes, got {shape!r}")
    return shape


def ring_row(start, i, capacity):
    """The storage row of logical index ``i`` in a ring of ``capacity`` rows starting at row
    ``start``: ``(start + i) mod capacity``, for ``0 <= start < capacity`` and
    ``0 <= i <= capacity`` (one subtraction, no division).

    >>> ring_row(3, 0, 4), ring_row(3, 1, 4), ring_row(3, 4, 4)
    (3, 0, 3)
    """
    row = start + i
    return row - capacity if row >= capacity else row


def ring_rows(start, indices, capacity):
    """:func:`ring_row` of each entry of the int array ``indices`` (a new array).

    >>> ring_rows(3, np.arange(4), 4).tolist()
    [3, 0, 1, 2]
    """
    return np.add(indices, start) % capacity


def ring_append(ring, k):
    """Advance ``ring`` (a ``CircularArrayBuffer`` or ``SumTree``: ``_start``, ``_len``, ``_end``,
    ``capacity``) by ``k <= capacity`` new elements, dropping the oldest when full; return the
    storage rows they go to, oldest first."""
    n, cap = ring._len, ring.capacity
    rows = ring_rows(ring_row(ring._start, n, cap), np.arange(k), cap)
    overflow = n + k - cap
    if overflow > 0:
        ring._start = ring_row(ring._start, overflow, cap)
        ring._len = cap
    else:
        ring._len = n + k
    ring._end += k
    return rows


def ring_logical(start, rows, capacity):
    """The inverse of :func:`ring_rows`: logical indices of the storage ``rows`` (a new array).

    >>> ring_logical(3, np.array([3, 0, 1, 2]), 4).tolist()
    [0, 1, 2, 3]
    """
    logical = rows - start
    logical[logical < 0] += capacity
    return logical


def as_capacity(capacity):
    if not isinstance(capacity, (int, np.integer)) or isinstance(capacity, bool) or capacity < 1:
        raise ValueError(f"capacity must be a positive int, got {capacity!r}")
    return int(capacity)


class AbstractBuffer(abc.ABC):
    """Base class of buffers: an ordered sequence of elements with logical indexing.

    Subclasses keep ``_len`` and implement ``push``, ``pop``, ``clear``, ``check``, ``gather`` and
    ``_physical_unchecked``; indexing, iteration and stream positions are shared here.
    """

    __slots__ = ("_len", "_end")

    # --- shared API
    def __len__(self):
        return self._len

    @property
    def isfull(self):
        """Whether the next ``push`` overwrites (or, if unbounded, never: ``False``)."""
        return False

    @property
    def first_index(self):
        """Stream position of the oldest element held (see the module docstring)."""
        return self._end - self._len

    @property
    def end_index(self):
        """Stream position one past the newest element: pushes minus pops since the last clear."""
        return self._end

    def __iter__(self):
        for i in range(self._len):
            yield self[i]

    def _logical(self, indices):
        """Normalise logical ``indices`` (int, slice, int or bool array; negatives from the end)."""
        n = self._len
        if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
            i = int(indices)
            if i < 0:
                i += n
            if not 0 <= i < n:
                raise IndexError(f"index {indices} is out of range for a buffer of length {n}")
            return i
        if isinstance(indices, slice):
            return np.arange(*indices.indices(n))
        idx = np.asarray(indices)
        if idx.dtype == bool:
            if idx.shape != (n,):
                raise IndexError(f"boolean index of shape {idx.shape} does not match a buffer of "
                                 f"length {n}")
            return np.flatnonzero(idx)
        if idx.dtype.kind not in "iu":
            raise IndexError(f"buffer indices must be ints, slices or int arrays, got "
                             f"{short_repr(indices)}")
        idx = idx.astype(np.int64, copy=False)
        if idx.size:
            lo, hi = idx.min(), idx.max()
            if lo < -n or hi >= n:
                bad = lo if lo < -n else hi
                raise IndexError(f"index {bad} is out of range for a buffer of length {n}")
            if lo < 0:
                idx = np.where(idx < 0, idx + n, idx)
        return idx

    def physical(self, indices):
        """Map logical ``indices`` (0 oldest, -1 newest; int, slice or array) to storage rows."""
        return self._physical_unchecked(self._logical(indices))

    # --- abstract
    @abc.abstractmethod
    def _physical_unchecked(self, indices):
        """Storage rows of normalised (non-negative, in range) logical ``indices``."""

    @abc.abstractmethod
    def check(self, x):
        """Return ``x`` ready to store, or raise ``ValueError``/``TypeError`` naming it."""

    @abc.abstractmethod
    def push(self, x):
        """Append ``x`` as the newest element."""

    @abc.abstractmethod
    def pop(self):
        """Remove and return the newest element."""

    @abc.abstractmethod
    def clear(self):
        """Remove every element and reset the stream positions."""

    @abc.abstractmethod
    def gather(self, indices):
        """Elements at normalised logical ``indices`` (an int array), stacked into a new array."""

    @abc.abstractmethod
    def dummy(self):
        """A placeholder element (zeros), pushed where a trace needs a value without meaning."""


def init_element(buffer, shape, dtype):
    buffer.shape = as_shape(shape)
    buffer.dtype = np.dtype(dtype)
    if buffer.dtype.kind == "O":
        raise TypeError("use VectorBuffer for arbitrary Python objects, not dtype=object")
    buffer._fast = _FAST_SCALAR_TYPES.get(buffer.dtype.kind, frozenset()) \
        if buffer.shape == () else frozenset()


def _check_element(buffer, x):
    """The slow path of ``check`` for the numpy-backed buffers."""
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as e:
        raise ValueError(f"cannot store {short_repr(x)} in a buffer of element shape "
                         f"{buffer.shape} and dtype {buffer.dtype}: {e}") from None
    if arr.shape != buffer.shape:
        raise ValueError(f"cannot store {short_repr(x)} (shape {arr.shape}) in a buffer of "
                         f"element shape {buffer.shape} and dtype {buffer.dtype}")
    if not np.can_cast(arr.dtype, buffer.dtype, casting="same_kind"):
        raise TypeError(f"cannot store {short_repr(x)} (dtype {arr.dtype}) in a buffer of dtype "
                        f"{buffer.dtype} and element shape {buffer.shape}: not a 'same_kind' cast")
    return arr


def _check_rows(buffer, xs):
    """``xs`` as an array of ``k`` elements, shape ``(k, *shape)``, ready for ``extend``."""
    if not (type(xs) is np.ndarray and xs.dtype is buffer.dtype):
        try:
            arr = np.asarray(xs)
        except (ValueError, TypeError) as e:
            raise ValueError(f"cannot store {short_repr(xs)} as rows of a buffer of element shape "
                             f"{buffer.shape} and dtype {buffer.dtype}: {e}") from None
        if not np.can_cast(arr.dtype, buffer.dtype, casting="same_kind"):
            raise TypeError(f"cannot store {short_repr(xs)} (dtype {arr.dtype}) in a buffer of "
                            f"dtype {buffer.dtype} and element shape {buffer.shape}: not a "
                            f"'same_kind' cast")
        xs = arr
    if xs.ndim != len(buffer.shape) + 1 or xs.shape[1:] != buffer.shape:
        raise ValueError(f"cannot store {short_repr(xs)} (shape {xs.shape}) as rows of a buffer of "
                         f"element shape {buffer.shape}: expected shape (k, *{buffer.shape})")
    return xs


def _set_logical(buffer, indices, value):
    """``buffer[indices] = value`` for the numpy-backed buffers, validated before writing."""
    p = buffer._physical_unchecked(buffer._logical(indices))
    if isinstance(p, int):
        buffer.data[p] = buffer.check(value)
        return
    arr = np.asarray(value)
    if not np.can_cast(arr.dtype, buffer.dtype, casting="same_kind"):
        raise TypeError(f"cannot store {short_repr(value)} (dtype {arr.dtype}) in a buffer of "
                        f"dtype {buffer.dtype}: not a 'same_kind' cast")
    buffer.data[p] = arr


def dummy_element(buffer):
    """Zeros of the element shape and dtype (a numpy scalar for scalar buffers)."""
    return buffer.dtype.type(0) if buffer.shape == () else np.zeros(buffer.shape, buffer.dtype)


_CHECK_DOC = """Return ``x`` ready to store, or raise naming ``x``, the expected shape and dtype.

        A value must have exactly the buffer's element ``shape`` (``ValueError`` otherwise) and a
        dtype that casts to the buffer's under numpy's ``'same_kind'`` rule (``TypeError``
        otherwise): int into float is fine, float into int is not.
        """


def array_check(buffer, x):
    if type(x) in buffer._fast or (
            type(x) is np.ndarray and x.dtype is buffer.dtype and x.shape == buffer.shape):
        return x
    return _check_element(buffer, x)


array_check.__doc__ = _CHECK_DOC


def _array_getitem(buffer, indices):
    """Elements at logical ``indices``; an int index of a shaped buffer gives a view."""
    return buffer.data[buffer._physical_unchecked(buffer._logical(indices))]


def array_protocol(buffer, dtype=None, copy=None):
    a = buffer.to_array()
    return a if dtype is None else a.astype(dtype, copy=False)


class CircularArrayBuffer(AbstractBuffer):
    """A fixed-capacity ring of numpy elements; ``push`` overwrites the oldest when full.

    Reference: CircularArrayBuffers.jl, the replay storage of ReinforcementLearning.jl.

    Args:
        capacity: the most elements held.
        shape: the shape of one element (default ``()``, scalars).
        dtype: numpy dtype of the elements (default ``float32``).

    ``data`` is preallocated with shape ``(capacity, *shape)``. ``push`` validates (see
    :meth:`check`) and is fast for Python/numpy scalars and for arrays already of the right shape
    and dtype.

    >>> b = CircularArrayBuffer(3, shape=(2,), dtype=np.float32)
    >>> for i in range(4):
    ...     b.push(np.full(2, i, np.float32))
    >>> b.to_array()[:, 0].tolist(), len(b), b.isfull
    ([1.0, 2.0, 3.0], 3, True)
    >>> b.pop().tolist(), b[-1].tolist()
    ([3.0, 3.0], [2.0, 2.0])
    """

    __slots__ = ("capacity", "shape", "dtype", "data", "_start", "_fast")

    def __init__(self, capacity, shape=(), dtype=np.float32):
        self.capacity = as_capacity(capacity)
        init_element(self, shape, dtype)
        self.data = np.zeros((self.capacity, *self.shape), self.dtype)
        self._start = 0
        self._len = 0
        self._end = 0

    # The element-level methods shared with ElasticArrayBuffer (module functions, not a base
    # class, to keep one level below AbstractBuffer).
    check = array_check
    __getitem__ = _array_getitem
    __setitem__ = _set_logical
    __array__ = array_protocol
    dummy = dummy_element

    def push(self, x):
        """Append ``x``, overwriting the oldest element when full; unchanged on error."""
        t = type(x)
        if t not in self._fast and not (
                t is np.ndarray and x.dtype is self.dtype and x.shape == self.shape):
            x = _check_element(self, x)
        n = self._len
        cap = self.capacity
        if n < cap:
            self.data[ring_row(self._start, n, cap)] = x
            self._len = n + 1
        else:
            i = self._start
            self.data[i] = x
            self._start = ring_row(i, 1, cap)
        self._end += 1

    def check_rows(self, xs):
        """Return ``xs`` as an array of shape ``(k, *shape)`` ready for :meth:`extend`, or raise.

        ``ValueError`` for another shape or ``k > capacity`` (the rows would overwrite each
        other), ``TypeError`` for a dtype that is not a ``'same_kind'`` cast (as :meth:`check`).
        """
        xs = _check_rows(self, xs)
        if len(xs) > self.capacity:
            raise ValueError(f"cannot extend a CircularArrayBuffer of capacity {self.capacity} "
                             f"by {len(xs)} rows at once (at most {self.capacity})")
        return xs

    def extend(self, xs):
        """Append the ``k`` elements ``xs`` (shape ``(k, *shape)``, oldest first), overwriting the
        oldest when full; ``k <= capacity``. Validated before writing: unchanged on error."""
        xs = self.check_rows(xs)
        self.data[ring_append(self, len(xs))] = xs

    def pop(self):
        """Remove and return the newest element (a copy)."""
        n = self._len
        if n == 0:
            raise IndexError("pop from an empty CircularArrayBuffer")
        x = self.data[ring_row(self._start, n - 1, self.capacity)].copy()
        self._len = n - 1
        self._end -= 1
        return x

    def clear(self):
        """Remove every element (the storage is kept)."""
        self._start = 0
        self._len = 0
        self._end = 0

    @property
    def isfull(self):
        """Whether the buffer holds ``capacity`` elements (the next push overwrites the oldest)."""
        return self._len == self.capacity

    def _physical_unchecked(self, indices):
        if isinstance(indices, int):
            return ring_row(self._start, indices, self.capacity)
        return ring_rows(self._start, indices, self.capacity)

    def gather(self, indices):
        """Elements at non-negative in-range logical ``indices`` (int array), as a new array."""
        return self.data[ring_rows(self._start, indices, self.capacity)]

    def to_array(self):
        """A copy of the elements in logical order, shape ``(len, *shape)``."""
        s, n, cap = self._start, self._len, self.capacity
        if s + n <= cap:
            return self.data[s:s + n].copy()
        return np.concatenate((self.data[s:], self.data[:s + n - cap]))

    def __repr__(self):
        return (f"CircularArrayBuffer(capacity={self.capacity}, shape={self.shape}, "
                f"dtype={self.dtype}, len={self._len})")


class ElasticArrayBuffer(AbstractBuffer):
    """A growing numpy buffer (amortised doubling) for episodic methods; never full.

    Reference: the ``ElasticArray`` traces of ReinforcementLearning.jl (``ElasticSARTTrajectory``).

    Args:
        shape: the shape of one element (default ``()``).
        dtype: numpy dtype of the elements (default ``float32``).
        initial_capacity: rows preallocated before the first doubling (default 16).

    >>> b = ElasticArrayBuffer(dtype=np.int64)
    >>> for i in range(40):
    ...     b.push(i)
    >>> len(b), int(b[-1]), b.isfull
    (40, 39, False)
    """

    __slots__ = ("shape", "dtype", "data", "_fast")

    def __init__(self, shape=(), dtype=np.float32, initial_capacity=16):
        init_element(self, shape, dtype)
        self.data = np.zeros((as_capacity(initial_capacity), *self.shape), self.dtype)
        self._len = 0
        self._end = 0

    # The element-level methods shared with CircularArrayBuffer (module functions, not a base
    # class, to keep one level below AbstractBuffer).
    check = array_check
    __getitem__ = _array_getitem
    __setitem__ = _set_logical
    __array__ = array_protocol
    dummy = dummy_element

    def push(self, x):
        """Append ``x``, doubling the storage when it is full. Unchanged on error."""
        t = type(x)
        if t not in self._fast and not (
                t is np.ndarray and x.dtype is self.dtype and x.shape == self.shape):
            x = _check_element(self, x)
        n = self._len
        if n == len(self.data):
            # store first so a failing assignment leaves the old storage in place
            grown = np.zeros((2 * n, *self.shape), self.dtype)
            grown[n] = x
            grown[:n] = self.data
            self.data = grown
        else:
            self.data[n] = x
        self._len = n + 1
        self._end += 1

    def pop(self):
        """Remove and return the newest element (a copy)."""
        n = self._len
        if n == 0:
            raise IndexError("pop from an empty ElasticArrayBuffer")
        self._len = n - 1
        self._end -= 1
        return self.data[n - 1].copy()

    def clear(self):
        """Remove every element (the storage is kept)."""
        self._len = 0
        self._end = 0

    def _physical_unchecked(self, indices):
        return indices

    def gather(self, indices):
        return self.data[indices]

    def to_array(self):
        """A copy of the elements, shape ``(len, *shape)``."""
        return self.data[:self._len].copy()

    def __repr__(self):
        return f"ElasticArrayBuffer(shape={self.shape}, dtype={self.dtype}, len={self._len})"


class VectorBuffer(AbstractBuffer):
    """A list of arbitrary Python objects, for ``VectorSARTTrajectory``; never full.

    Args:
        dummy: the placeholder element returned by :meth:`dummy` (default ``None``: zeros like
            the newest element when that is a number or an array, else ``None``).

    >>> b = VectorBuffer()
    >>> b.push("a"); b.push({"x": 1})
    >>> len(b), b[0], b[-1]
    (2, 'a', {'x': 1})
    """

    __slots__ = ("items", "_dummy")

    def __init__(self, dummy=None):
        self.items = []
        self._dummy = dummy
        self._len = 0
        self._end = 0

    def check(self, x):
        """Any object can be stored."""
        return x

    def push(self, x):
        """Append ``x``."""
        self.items.append(x)
        self._len += 1
        self._end += 1

    def pop(self):
        """Remove and return the newest element."""
        if not self.items:
            raise IndexError("pop from an empty VectorBuffer")
        self._len -= 1
        self._end -= 1
        return self.items.pop()

    def clear(self):
        """Remove every element."""
        self.items.clear()
        self._len = 0
        self._end = 0

    def __getitem__(self, indices):
        idx = self._logical(indices)
        if isinstance(idx, int):
            return self.items[idx]
        return [self.items[i] for i in idx]

    def __setitem__(self, indices, value):
        idx = self._logical(indices)
        if isinstance(idx, int):
            self.items[idx] = value
        else:
            for i, v in zip(idx, value, strict=True):
                self.items[i] = v

    def _physical_unchecked(self, indices):
        return indices

    def gather(self, indices):
        """Elements at logical ``indices`` stacked with ``np.asarray`` (object array if ragged)."""
        picked = [self.items[i] for i in indices]
        try:
            return np.asarray(picked)
        except ValueError:
            out = np.empty(len(picked), object)
            out[:] = picked
            return out

    def to_array(self):
        """The elements as a numpy array (``np.asarray`` of the list)."""
        return self.gather(range(self._len))

    def dummy(self):
        if self._dummy is not None or not self.items:
            return self._dummy
        last = self.items[-1]
        if isinstance(last, (int, float, np.number, np.ndarray)) and not isinstance(last, bool):
            return np.zeros_like(last)[()] if np.ndim(last) == 0 else np.zeros_like(last)
        return None

    def __repr__(self):
        return f"VectorBuffer(len={self._len})"

"""A sum tree: a circular buffer of priorities that samples indices in proportion to them.

Reference: Schaul et al., "Prioritized Experience Replay", ICLR 2016
(https://arxiv.org/abs/1511.05952), appendix B.2.1; the ``SumTree`` of
ReinforcementLearningCore.jl, which is likewise a circular buffer of priorities.

Shape convention: priorities are scalars; ``indices`` are 1-D int arrays of *logical* indices
(0 = oldest priority held, as in :mod:`rlcore.trajectories.buffers`). The tree is a flat float64
array of ``2P - 1`` nodes, ``P`` the capacity rounded up to a power of two; node ``j`` has children
``2j + 1`` and ``2j + 2`` and the leaf of storage row ``p`` is node ``P - 1 + p``.
"""

import math

import numpy as np

from rlcore.trajectories.buffers import (
    AbstractBuffer, as_capacity, short_repr, ring_append, ring_logical, ring_row, ring_rows,
)

__all__ = ["SumTree"]


def _check_priorities(pr):
    """Return the float64 array ``pr``, or raise naming the first priority not finite and >= 0."""
    if pr.size and (not np.all(np.isfinite(pr)) or pr.min() < 0):
        bad = pr[~(np.isfinite(pr) & (pr >= 0))][0]
        raise ValueError(f"priorities must be finite and >= 0, got {float(bad)!r}")
    return pr


class SumTree(AbstractBuffer):
    """A fixed-capacity circular buffer of non-negative priorities backed by a sum tree.

    ``push(p)`` appends a priority (overwriting the oldest when full), ``extend(priorities)``
    appends several at once (vectorised), ``total`` is the sum of
    the priorities held, ``sample(rng, n)`` draws ``n`` logical indices independently with
    probability ``priority / total``, and ``update(indices, priorities)`` sets priorities; both are
    vectorised. ``max_priority`` is the largest priority ever stored (at least
    ``initial_max_priority``): prioritized trajectories give it to new transitions.

    Args:
        capacity: the most priorities held.
        initial_max_priority: the starting value of ``max_priority`` (default 1.0).

    >>> tree = SumTree(4)
    >>> for p in (1.0, 0.0, 3.0):
    ...     tree.push(p)
    >>> tree.total, len(tree)
    (4.0, 3)
    >>> indices, priorities = tree.sample(np.random.default_rng(0), 1000)
    >>> sorted(set(indices.tolist()))
    [0, 2]
    """

    __slots__ = ("capacity", "tree", "max_priority", "_leaf0", "_depth", "_shifts", "_start",
                 "_updates")

    shape = ()
    dtype = np.dtype(np.float64)

    def __init__(self, capacity, initial_max_priority=1.0):
        self.capacity = as_capacity(capacity)
        size = 1 << max(0, math.ceil(math.log2(self.capacity)))
        self._depth = size.bit_length() - 1
        self._leaf0 = size - 1
        self._shifts = np.arange(1, self._depth + 1)
        self.tree = np.zeros(2 * size - 1, np.float64)
        self.max_priority = float(self._check_priority(initial_max_priority))
        self._start = 0
        self._len = 0
        self._end = 0
        self._updates = 0

    # --- buffer API
    @property
    def total(self):
        """The sum of the priorities held."""
        return float(self.tree[0])

    @property
    def isfull(self):
        """Whether the tree holds ``capacity`` priorities (the next push overwrites the oldest)."""
        return self._len == self.capacity

    @staticmethod
    def _check_priority(p):
        if type(p) is not float:
            if not isinstance(p, (int, float, np.integer, np.floating)) or isinstance(p, bool):
                if not (isinstance(p, np.ndarray) and p.shape == () and p.dtype.kind in "iuf"):
                    raise TypeError(f"a priority must be a real number, got {short_repr(p)}")
            p = float(p)
        if not 0.0 <= p < math.inf:
            raise ValueError(f"a priority must be finite and >= 0, got {p!r}")
        return p

    def check(self, x):
        """Return ``x`` as a float, or raise unless it is a finite number >= 0."""
        return self._check_priority(x)

    def _set_leaf(self, row, p):
        node = self._leaf0 + row
        delta = p - self.tree[node]
        # ancestors of node (0-based heap): ((node + 1) >> s) - 1 for s = 1..depth
        self.tree[((node + 1) >> self._shifts) - 1] += delta
        self.tree[node] = p
        self._updates += 1
        if self._updates >= self._leaf0 + 1:
            self._rebuild()  # bound the round-off that incremental deltas accumulate

    def _rebuild(self):
        """Recompute every internal node from the leaves."""
        tree = self.tree
        for d in range(self._depth - 1, -1, -1):
            a, c = (1 << d) - 1, (1 << (d + 1)) - 1
            tree[a:c] = tree[c:2 * c + 1:2] + tree[c + 1:2 * c + 2:2]
        self._updates = 0

    def push(self, p):
        """Append priority ``p``; overwrite the oldest when full."""
        p = self._check_priority(p)
        n, cap = self._len, self.capacity
        if n < cap:
            row = ring_row(self._start, n, cap)
            self._len = n + 1
        else:
            row = self._start
            self._start = ring_row(row, 1, cap)
        self._set_leaf(row, p)
        self._end += 1
        if p > self.max_priority:
            self.max_priority = p

    def check_rows(self, priorities):
        """Return ``priorities`` as a 1-D float64 array ready for :meth:`extend`, or raise
        unless they are at most ``capacity`` finite numbers >= 0."""
        pr = np.asarray(priorities)
        if pr.ndim != 1 or (pr.size and pr.dtype.kind not in "iuf"):
            raise TypeError(f"priorities must be a 1-D array of real numbers, got "
                            f"{short_repr(priorities)}")
        if len(pr) > self.capacity:
            raise ValueError(f"cannot extend a SumTree of capacity {self.capacity} by {len(pr)} "
                             f"priorities at once (at most {self.capacity})")
        return _check_priorities(pr.astype(np.float64, copy=False))

    def extend(self, priorities):
        """Append the priorities (a 1-D array, oldest first, at most ``capacity``), overwriting
        the oldest when full; validated before writing."""
        pr = self.check_rows(priorities)
        if len(pr):
            self._set_leaves(ring_append(self, len(pr)), pr)

    def pop(self):
        """Remove and return the newest priority (its leaf is set to 0)."""
        n = self._len
        if n == 0:
            raise IndexError("pop from an empty SumTree")
        row = ring_row(self._start, n - 1, self.capacity)
        p = float(self.tree[self._leaf0 + row])
        self._set_leaf(row, 0.0)
        self._len = n - 1
        self._end -= 1
        return p

    def clear(self):
        """Remove every priority (``max_priority`` is kept)."""
        self.tree[:] = 0.0
        self._start = 0
        self._len = 0
        self._end = 0
        self._updates = 0

    def _physical_unchecked(self, indices):
        if isinstance(indices, int):
            return ring_row(self._start, indices, self.capacity)
        return ring_rows(self._start, indices, self.capacity)

    def __getitem__(self, indices):
        """Priorities at logical ``indices``."""
        return self.tree[self._leaf0 + self.physical(indices)]

    def __setitem__(self, indices, priorities):
        idx = self._logical(indices)
        if isinstance(idx, int):
            self.update(np.array([idx]), np.array([priorities], np.float64))
        else:
            self.update(idx, np.broadcast_to(np.asarray(priorities, np.float64), idx.shape))

    def gather(self, indices):
        return self.tree[self._leaf0 + self._physical_unchecked(indices)]

    def to_array(self):
        """The priorities in logical order (a copy)."""
        return self.gather(np.arange(self._len))

    def dummy(self):
        """A zero priority: a transition that is never sampled."""
        return 0.0

    # --- sum-tree API
    def update(self, indices, priorities):
        """Set the priorities at logical ``indices`` (vectorised; the last of duplicates wins)."""
        idx = self._logical(np.asarray(indices).reshape(-1))
        pr = np.asarray(priorities, np.float64).reshape(-1)
        if pr.shape != idx.shape:
            raise ValueError(f"got {idx.size} indices but {pr.size} priorities")
        _check_priorities(pr)
        if pr.size == 0:
            return
        self._set_leaves(self._physical_unchecked(idx), pr)

    def _set_leaves(self, rows, pr):
        """Set the leaves of storage ``rows`` to ``pr`` and recompute their ancestors (exactly,
        from the children: no round-off accumulates); raise ``max_priority`` if needed."""
        tree = self.tree
        nodes = self._leaf0 + rows
        tree[nodes] = pr
        for _ in range(self._depth):
            # duplicate parents receive the same (final) sum, so no np.unique is needed
            nodes = (nodes - 1) >> 1
            tree[nodes] = tree[2 * nodes + 1] + tree[2 * nodes + 2]
        m = float(pr.max())
        if m > self.max_priority:
            self.max_priority = m

    def sample(self, rng, n):
        """Draw ``n`` logical indices with probability ``priority / total``, with replacement.

        Returns ``(indices, priorities)``: int64 and float64 arrays of length ``n``. Raises
        ``ValueError`` when the tree is empty or every priority is 0.
        """
        if self._len == 0 or not self.tree[0] > 0:
            raise ValueError(f"cannot sample from a SumTree holding {self._len} priorities with "
                             f"total {self.total}")
        rows = self._descend(rng.random(n) * self.tree[0])
        bad = self.tree[self._leaf0 + rows] <= 0
        if bad.any():  # round-off sent a draw into an empty leaf: rebuild and draw those again
            self._rebuild()
            for _ in range(32):
                rows[bad] = self._descend(rng.random(int(bad.sum())) * self.tree[0])
                bad = self.tree[self._leaf0 + rows] <= 0
                if not bad.any():
                    break
            else:
                raise RuntimeError("SumTree.sample kept landing on zero priorities")
        return ring_logical(self._start, rows, self.capacity), self.tree[self._leaf0 + rows]

    def _descend(self, u):
        """Storage rows of the leaves where the prefix sums first exceed ``u``."""
        tree = self.tree
        node = np.zeros(len(u), np.int64)
        for _ in range(self._depth):
            left = 2 * node + 1
            left_sum = tree[left]
            right = (u >= left_sum) & (tree[left + 1] > 0)
            u = np.where(right, u - left_sum, u)
            node = left + right
        return node - self._leaf0

    def __repr__(self):
        return (f"SumTree(capacity={self.capacity}, len={self._len}, total={self.total:g}, "
                f"max_priority={self.max_priority:g})")

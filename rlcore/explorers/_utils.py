"""Helpers shared by the explorers: input conversion, masks, greedy choice.

Values and masks arrive as lists, numpy arrays or torch tensors; each is converted once to a
Python list, because for the 2 to 18 actions of a typical environment pure-Python ``max`` and
``list.index`` are several times faster than numpy calls. A batch of values
``(batch, n_actions)`` (one row per sub-environment) is instead handled as numpy arrays, every
row at once (``is_batch``, ``as_mask_rows``, ``greedy_rows``, ``pick_rows``).
"""


import numpy as np
import torch

__all__ = ["as_list", "as_array", "legal_indices", "greedy_action", "greedy_set",
           "softmax", "as_mask_array", "is_batch", "as_mask_rows", "greedy_rows", "pick_rows"]


def as_list(values, name="values"):
    """``values`` (list, tuple, 1-D numpy array or torch tensor) as a non-empty Python list."""
    kind = type(values)
    if kind is list:
        out = values
    elif kind is np.ndarray:
        if values.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got an array of shape {values.shape}")
        out = values.tolist()
    elif isinstance(values, torch.Tensor):
        if values.dim() != 1:
            raise ValueError(f"{name} must be 1-D, got a tensor of shape {tuple(values.shape)}")
        # tolist needs no detach, and a CPU tensor no copy to the CPU
        out = values.tolist() if values.is_cpu else values.detach().cpu().tolist()
    else:
        array = np.asarray(values)
        if array.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got {values!r}")
        out = array.tolist()
    if not out:
        raise ValueError(f"{name} must not be empty")
    return out


def as_array(values, name="values", ndim=1):
    """``values`` as a float64 numpy array with ``ndim`` dimensions."""
    if isinstance(values, torch.Tensor):
        values = values.detach().cpu().numpy()
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != ndim or array.size == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D array, got shape {array.shape}")
    return array


def legal_indices(mask, n):
    """The indices where the boolean ``mask`` (of length ``n``) is true; at least one."""
    flags = as_list(mask, "mask")
    if len(flags) != n:
        raise ValueError(f"mask has {len(flags)} entries but there are {n} action values")
    legal = [i for i, ok in enumerate(flags) if ok]
    if not legal:
        raise ValueError(f"mask {flags!r} allows no action")
    return legal


def as_mask_array(mask, n):
    """The boolean ``mask`` as a numpy array of length ``n`` with at least one true entry."""
    if isinstance(mask, torch.Tensor):
        mask = mask.detach().cpu().numpy()
    flags = np.asarray(mask, dtype=bool)
    if flags.shape != (n,):
        raise ValueError(f"mask must have shape ({n},) to match the values, got {flags.shape}")
    if not flags.any():
        raise ValueError(f"mask {flags.tolist()!r} allows no action")
    return flags


def is_batch(values):
    """Whether ``values`` is a 2-D numpy array or torch tensor, a batch ``(batch, n_actions)``."""
    if type(values) is np.ndarray:
        return values.ndim == 2
    return isinstance(values, torch.Tensor) and values.dim() == 2


def as_mask_rows(mask, shape):
    """The boolean ``mask`` as a numpy array of ``shape`` ``(batch, n_actions)``, each row with
    at least one true entry."""
    if isinstance(mask, torch.Tensor):
        mask = mask.detach().cpu().numpy()
    flags = np.asarray(mask, dtype=bool)
    if flags.shape != shape:
        raise ValueError(f"mask must have shape {shape} to match the values, got {flags.shape}")
    empty = np.flatnonzero(~flags.any(axis=1))
    if len(empty):
        raise ValueError(f"mask row {empty[0]} ({flags[empty[0]].tolist()!r}) allows no action")
    return flags


def greedy_rows(values, legal):
    """The maximal entries of each row of ``values`` among ``legal`` (both ``(batch, n)``), as a
    boolean array: NaN entries are ignored, unless a row's legal entries are all NaN, when all of
    them are maximal (as :func:`greedy_set`, row by row)."""
    candidates = legal & ~np.isnan(values)
    all_nan = ~candidates.any(axis=1)
    if all_nan.any():
        candidates[all_nan] = legal[all_nan]
    best = np.where(candidates, values, -np.inf).max(axis=1, keepdims=True)
    ties = candidates & (values == best)
    if all_nan.any():
        ties[all_nan] = candidates[all_nan]
    return ties


def pick_rows(flags, u):
    """For each row of the boolean ``flags`` (at least one true entry), the index of its
    ``floor(u · count)``-th true entry, ``u`` in [0, 1) per row: a uniform choice among them
    (the first when ``u == 0``)."""
    counts = flags.sum(axis=1)
    rank = np.minimum((u * counts).astype(np.int64), counts - 1)  # u·count rounding up to count
    return np.argmax(np.cumsum(flags, axis=1) > rank[:, None], axis=1)


def greedy_set(values, legal=None):
    """The indices of the maximal entries of the list ``values`` among ``legal`` (all if None).

    NaN entries are ignored; if every candidate is NaN, every candidate is returned.
    """
    candidates = range(len(values)) if legal is None else legal
    finite = [i for i in candidates if values[i] == values[i]]
    if not finite:
        return list(candidates)
    best = max(values[i] for i in finite)
    return [i for i in finite if values[i] == best]


def greedy_action(values, legal, rng, break_tie):
    """An index of a maximal entry of the list ``values`` among ``legal`` (all if None).

    Ties go to a uniformly random maximal entry when ``break_tie``, else to the first one.
    """
    if legal is not None and len(legal) != len(values):
        return legal[greedy_action([values[i] for i in legal], None, rng, break_tie)]
    total = sum(values)
    if total != total:  # a NaN (or inf - inf): take the careful path
        ties = greedy_set(values)
        if not break_tie or len(ties) == 1:
            return ties[0]
        return ties[int(rng.random() * len(ties))]
    best = max(values)
    if not break_tie:
        return values.index(best)
    count = values.count(best)
    if count == 1:
        return values.index(best)
    ties = [i for i, v in enumerate(values) if v == best]
    return ties[int(rng.random() * count)]


def softmax(values):
    """Softmax of a 1-D float array, ``-inf`` entries getting probability 0."""
    shifted = values - np.max(values)
    weights = np.exp(shifted)
    return weights / weights.sum()

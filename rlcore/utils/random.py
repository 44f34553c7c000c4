"""Random-number helpers: every random component takes an ``rng`` or a ``seed``."""

import numpy as np

__all__ = ["make_rng"]


def make_rng(rng=None, seed=None):
    """Return a ``numpy.random.Generator`` from ``rng`` (a Generator) or ``seed`` (an int).

    Exactly one of them may be given; with neither, a fresh unseeded generator is returned.

    >>> make_rng(seed=0).integers(10) == make_rng(seed=0).integers(10)
    True
    """
    if rng is not None and seed is not None:
        raise ValueError(f"give rng or seed, not both (got rng={rng!r}, seed={seed!r})")
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return rng
    if seed is not None and not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    return np.random.default_rng(seed)

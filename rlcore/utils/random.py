"""Random-number helpers: every random component takes an ``rng`` or a ``seed``."""

import copy

import numpy as np
from gymnasium import spaces

__all__ = ["make_rng", "torch_generator", "sample_space"]


def make_rng(rng=None, seed=None):
    """Return a ``numpy.random.Generator`` from ``rng`` (a Generator) or ``seed`` (an int).

    One of them may be given; with neither, a fresh unseeded generator is returned. Both may be
    given only when ``rng`` was made from that very seed (``numpy.random.default_rng(seed)``,
    or a copy of one): then ``rng`` itself is returned. That is what ``attrs.evolve`` passes
    when it copies a component made with ``seed=`` (its ``rng`` field holds the generator made
    from its ``seed`` field), so the evolved copy draws from the same generator, as evolve
    shares every other field.

    >>> int(make_rng(seed=0).integers(10)) == int(make_rng(seed=0).integers(10))
    True
    >>> rng = make_rng(seed=3)
    >>> make_rng(rng, seed=3) is rng
    True
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        if seed is not None and not _made_from(rng, seed):
            raise ValueError(f"give rng or seed, not both (got rng={rng!r}, seed={seed!r}; both "
                             f"are accepted only when rng was made from that seed)")
        return rng
    return np.random.default_rng(seed)


def torch_generator(seed, device="cpu"):
    """A ``torch.Generator`` on ``device`` seeded with the int ``seed`` (for noise a learner
    draws in torch: IQN's fractions, REM's mixtures).

    >>> import torch
    >>> bool(torch.equal(torch.rand(2, generator=torch_generator(0)),
    ...                  torch.rand(2, generator=torch_generator(0))))
    True
    """
    import torch

    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    return torch.Generator(device=device).manual_seed(int(seed))


def _made_from(rng, seed):
    """Whether ``rng``'s bit generator was seeded with ``seed`` itself (not a spawned child)."""
    sequence = getattr(rng.bit_generator, "seed_seq", None)
    return (isinstance(sequence, np.random.SeedSequence) and sequence.entropy == int(seed)
            and sequence.spawn_key == ())


def sample_space(space, rng):
    """A random element of a Gymnasium ``space`` drawn with ``rng`` (not the space's own RNG).

    Discrete, Box (bounded, half-bounded and unbounded; integer or float), MultiDiscrete,
    MultiBinary, Tuple and Dict are sampled from ``rng`` directly; any other space from a private
    copy seeded from ``rng``, so neither the space nor global random state is touched.

    >>> from gymnasium import spaces
    >>> int(sample_space(spaces.Discrete(3), make_rng(seed=0))) in (0, 1, 2)
    True
    """
    if isinstance(space, spaces.Discrete):
        return int(space.start) + int(rng.integers(space.n))
    if isinstance(space, spaces.Box):
        low, high = space.low, space.high
        if np.issubdtype(space.dtype, np.integer):
            info = np.iinfo(np.int64)
            lo = np.clip(low, info.min, info.max - 1).astype(np.int64)
            hi = np.clip(high, info.min, info.max - 1).astype(np.int64)
            return rng.integers(lo, hi, endpoint=True).astype(space.dtype)
        low, high = low.astype(np.float64), high.astype(np.float64)
        bounded_low, bounded_high = np.isfinite(low), np.isfinite(high)
        sample = np.where(bounded_low & bounded_high,
                          rng.uniform(np.where(bounded_low, low, 0.0),
                                      np.where(bounded_high, high, 1.0)),
                          rng.standard_normal(space.shape))
        sample = np.where(bounded_low & ~bounded_high, low + rng.exponential(size=space.shape),
                          sample)
        sample = np.where(~bounded_low & bounded_high, high - rng.exponential(size=space.shape),
                          sample)
        return np.clip(sample.astype(space.dtype), space.low, space.high)
    if isinstance(space, spaces.MultiDiscrete):
        return (space.start + rng.integers(space.nvec)).astype(space.dtype)
    if isinstance(space, spaces.MultiBinary):
        return rng.integers(2, size=space.shape).astype(space.dtype)
    if isinstance(space, spaces.Tuple):
        return tuple(sample_space(s, rng) for s in space.spaces)
    if isinstance(space, spaces.Dict):
        return {key: sample_space(s, rng) for key, s in space.spaces.items()}
    # Any other space: a private copy seeded from rng, so the env's space is left untouched.
    private = copy.deepcopy(space)
    private.seed(int(rng.integers(2**31 - 1)))
    return private.sample()

"""``RandomPolicy``: uniformly random legal actions."""

import numpy as np
from gymnasium import spaces

from rlcore.envs.traits import FullActionSet
from rlcore.policies.base import AbstractPolicy
from rlcore.utils.random import make_rng, sample_space

__all__ = ["RandomPolicy"]

_BLOCK = 1024


class RandomPolicy(AbstractPolicy):
    """Picks a uniformly random action.

    With ``action_space=None`` (default) it samples from the environment's space at each call:
    ``env.legal_action_space()`` (through the legal-action mask) for ``FULL_ACTION_SET``
    environments, ``env.action_space()`` otherwise. Discrete actions are returned as ``int``.
    Randomness comes only from ``rng`` (or ``seed``).

    >>> from rlenvs import RandomWalk1D
    >>> policy = RandomPolicy(seed=0)
    >>> policy(RandomWalk1D()) in (0, 1)
    True
    """

    def __init__(self, action_space=None, rng=None, seed=None):
        if action_space is not None and not isinstance(action_space, spaces.Space):
            raise TypeError(f"action_space must be a gymnasium Space or None, got {action_space!r}")
        self.action_space = action_space
        self.rng = make_rng(rng, seed)
        self._uniform = self.rng.random(_BLOCK)
        self._next = 0

    def _u(self):
        # Uniform draws come in blocks: one Generator call per 1024 actions keeps the hot path cheap
        # and the sequence fully determined by the seed.
        i = self._next
        if i == _BLOCK:
            self._uniform = self.rng.random(_BLOCK)
            i = 0
        self._next = i + 1
        return self._uniform[i]

    def __call__(self, env):
        space = self.action_space
        if space is None:
            if isinstance(env.ActionStyle, FullActionSet):
                legal = np.flatnonzero(env.legal_action_space_mask())
                if len(legal) == 0:
                    raise ValueError(f"{type(env).__name__} has no legal action in this state")
                return int(env.action_space().start + legal[int(self._u() * len(legal))])
            space = env.action_space()
        if type(space) is spaces.Discrete:
            return int(space.start) + int(self._u() * space.n)
        return sample_space(space, self.rng)

    def prob(self, env):
        """Uniform probabilities over the (legal) discrete actions."""
        space = self.action_space or env.action_space()
        if not isinstance(space, spaces.Discrete):
            raise TypeError(f"prob is defined for Discrete action spaces, got {space}")
        if self.action_space is None and isinstance(env.ActionStyle, FullActionSet):
            mask = env.legal_action_space_mask().astype(np.float64)
            return mask / mask.sum()
        return np.full(space.n, 1.0 / space.n)

    def __repr__(self):
        return f"RandomPolicy(action_space={self.action_space})"

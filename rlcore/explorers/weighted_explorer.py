"""Sampling actions in proportion to weights, or to softmax(values).

Reference: ReinforcementLearning.jl, ``explorers/weighted_explorer.jl`` and
``explorers/weighted_softmax_explorer.jl``. Action indices are 0-based.
"""

import attrs
import numpy as np

from rlcore.explorers._utils import as_array, as_mask_array, softmax
from rlcore.explorers.base import AbstractExplorer
from rlcore.utils.random import make_rng
from rlcore.utils.validators import boolean

__all__ = ["WeightedExplorer", "WeightedSoftmaxExplorer"]


def _sample(rng, weights):
    """An index drawn with probability ``weights[i] / sum(weights)`` (weights >= 0)."""
    cumulative = np.cumsum(weights)
    index = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    if index >= weights.size:  # u · total rounded up to total: take the last positive weight
        index = int(np.flatnonzero(weights)[-1])
    return index


@attrs.define(on_setattr=attrs.setters.NO_OP)
class WeightedExplorer(AbstractExplorer):
    """Samples action ``a`` with probability ``values[a] / sum(values)``; values are weights >= 0.

    Illegal actions (``mask`` false) get weight 0. With ``is_normalized=True`` the values are
    declared to be probabilities already: ``prob`` returns them as given (illegal entries set to
    0) instead of renormalising; sampling always uses the actual total, so rounding errors never
    pick a zero-weight action. The weights are the policy, so test mode (``is_training=False``)
    keeps sampling, as in ReinforcementLearning.jl.

    Keyword arguments: ``is_normalized=False``, ``is_training=True`` (no effect), ``rng`` or
    ``seed``.

    >>> WeightedExplorer(seed=0)([0.0, 3.0, 0.0])
    1
    """

    is_normalized: bool = attrs.field(default=False, validator=boolean)
    is_training: bool = attrs.field(default=True, validator=boolean)
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    @staticmethod
    def _weights(values, mask):
        weights = as_array(values)
        if not (weights >= 0).all() or not np.isfinite(weights).all():
            raise ValueError(f"WeightedExplorer needs finite weights >= 0, got {values!r}")
        if mask is not None:
            weights = np.where(as_mask_array(mask, weights.size), weights, 0.0)
        if not weights.sum() > 0:
            raise ValueError(f"the legal weights sum to 0 in {values!r}; nothing to sample")
        return weights

    def __call__(self, values, mask=None):
        return _sample(self.rng, self._weights(values, mask))

    def prob(self, values, mask=None):
        weights = self._weights(values, mask)
        return weights if self.is_normalized else weights / weights.sum()


@attrs.define(on_setattr=attrs.setters.NO_OP)
class WeightedSoftmaxExplorer(AbstractExplorer):
    """Samples action ``a`` with probability ``softmax(values)[a]``.

    Illegal actions (``mask`` false) get value ``-inf`` (probability 0). Same distribution as
    :class:`~rlcore.explorers.GumbelSoftmaxExplorer`, drawn by inverting the cumulative
    distribution (one uniform number). The softmax is the policy, so test mode
    (``is_training=False``) keeps sampling, as in ReinforcementLearning.jl.

    Keyword arguments: ``is_training=True`` (no effect), ``rng`` or ``seed``.

    >>> WeightedSoftmaxExplorer(seed=0)([0.0, 50.0])
    1
    """

    is_training: bool = attrs.field(default=True, validator=boolean)
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    @staticmethod
    def _probs(values, mask):
        logits = as_array(values)
        if mask is not None:
            logits = np.where(as_mask_array(mask, logits.size), logits, -np.inf)
        top = logits.max()
        if not np.isfinite(top):
            raise ValueError(f"the largest legal value must be finite, got {top} in {values!r}")
        return softmax(logits)

    def __call__(self, values, mask=None):
        return _sample(self.rng, self._probs(values, mask))

    def prob(self, values, mask=None):
        return self._probs(values, mask)

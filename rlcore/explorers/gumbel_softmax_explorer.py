"""Sampling from softmax(values) with the Gumbel-max trick.

Reference: Gumbel (1954); Maddison et al. (2014), "A* Sampling"; ReinforcementLearning.jl,
``explorers/gumbel_softmax_explorer.jl``. Action indices are 0-based.
"""

import attrs
import numpy as np

from rlcore.explorers._utils import as_array, as_mask_array, softmax
from rlcore.explorers.base import AbstractExplorer
from rlcore.utils.random import make_rng
from rlcore.utils.validators import boolean

__all__ = ["GumbelSoftmaxExplorer"]


def _masked_logits(values, mask):
    logits = as_array(values)
    if mask is not None:
        logits = np.where(as_mask_array(mask, logits.size), logits, -np.inf)
    top = logits.max()
    if not np.isfinite(top):
        raise ValueError(f"the largest legal value must be finite, got {top} in {values!r}")
    return logits


@attrs.define(on_setattr=attrs.setters.NO_OP)
class GumbelSoftmaxExplorer(AbstractExplorer):
    """Samples ``a ~ softmax(values)`` as ``argmax_a (values[a] + g[a])``, ``g[a] ~ Gumbel(0, 1)``.

    Illegal actions (``mask`` false) get logit ``-inf`` and are never chosen. ``prob`` is
    ``softmax(values)`` over the legal actions. The softmax is the policy, so test mode
    (``is_training=False``) keeps sampling, as in ReinforcementLearning.jl.

    Keyword arguments: ``is_training=True`` (no effect), ``rng`` or ``seed``.

    >>> GumbelSoftmaxExplorer(seed=0)([0.0, 50.0])
    1
    """

    is_training: bool = attrs.field(default=True, validator=boolean)
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def __call__(self, values, mask=None):
        logits = _masked_logits(values, mask)
        return int(np.argmax(logits + self.rng.gumbel(size=logits.size)))

    def prob(self, values, mask=None):
        return softmax(_masked_logits(values, mask))

"""Applying one explorer to every row of a batch of action values.

Reference: ReinforcementLearning.jl, ``explorers/batch_explorer.jl`` (which uses columns; here
the batch is the first axis: ``values`` has shape ``(batch, n_actions)``).
"""

import attrs
import numpy as np
import torch

from rlcore.explorers.base import AbstractExplorer

__all__ = ["BatchExplorer"]


def _rows(x, name):
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    x = np.asarray(x)
    if x.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D (batch, n_actions), got shape {x.shape}")
    return x


@attrs.define
class BatchExplorer(AbstractExplorer):
    """``explorer(values[i], mask[i])`` for each row ``i`` of 2-D ``values`` (and ``mask``).

    Returns a numpy ``int64`` array of shape ``(batch,)``; ``prob`` returns shape
    ``(batch, n_actions)``. A 1-D ``values`` is passed straight to the inner explorer. The
    ``is_training`` flag is the inner explorer's, so test mode is whatever the inner explorer
    does in test mode. Rows are explored in order with the inner explorer's state (its rng,
    step counter), so an ε-greedy schedule advances once per row.

    >>> from rlcore.explorers import GreedyExplorer
    >>> BatchExplorer(GreedyExplorer(seed=0))([[0.0, 1.0], [2.0, 1.0]]).tolist()
    [1, 0]
    """

    explorer: AbstractExplorer = attrs.field(
        validator=attrs.validators.instance_of(AbstractExplorer))

    @property
    def is_training(self):
        return self.explorer.is_training

    @is_training.setter
    def is_training(self, flag):
        self.explorer.is_training = flag

    def _pairs(self, values, mask):
        values = _rows(values, "values")
        if mask is None:
            return values.tolist(), [None] * len(values)
        mask = _rows(mask, "mask").astype(bool)
        if mask.shape != values.shape:
            raise ValueError(f"mask shape {mask.shape} does not match values shape {values.shape}")
        return values.tolist(), list(mask)

    def __call__(self, values, mask=None):
        values_array = _rows(values, "values")
        if values_array.ndim == 1:
            return self.explorer(values, mask)
        rows, masks = self._pairs(values_array, mask)
        inner = self.explorer
        return np.array([inner(v, m) for v, m in zip(rows, masks)], dtype=np.int64)

    def prob(self, values, mask=None):
        values_array = _rows(values, "values")
        if values_array.ndim == 1:
            return self.explorer.prob(values, mask)
        rows, masks = self._pairs(values_array, mask)
        return np.stack([self.explorer.prob(v, m) for v, m in zip(rows, masks)])

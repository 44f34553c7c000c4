"""Upper-confidence-bound action selection.

Reference: Sutton & Barto (2018), section 2.7, eq. (2.10); ReinforcementLearning.jl,
``explorers/UCB_explorer.jl``. Action indices are 0-based.
"""

import math

import attrs
import numpy as np

from rlcore.explorers._utils import as_list, greedy_action, greedy_set, legal_indices
from rlcore.explorers.base import AbstractExplorer
from rlcore.utils.random import make_rng
from rlcore.utils.validators import boolean, non_negative_int, positive_int, real_in

__all__ = ["UCBExplorer"]


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated on construction: fast calls
class UCBExplorer(AbstractExplorer):
    """Picks ``argmax_a [Q(a) + c · sqrt(ln(t + 1) / N(a))]``, trying every action once first.

    ``N(a)`` (``action_counts``) is the number of times ``a`` was chosen and ``t`` is ``step``;
    ``ln(t + 1)`` with ``step`` starting at 1 is ReinforcementLearning.jl's convention. An
    untried action (``N(a) = 0``) counts as maximizing, as in Sutton & Barto, so untried legal
    actions are taken first, uniformly at random among them; other ties are also broken
    uniformly at random. Each training call increments the count of the chosen action and
    ``step``.

    Test mode (``is_training=False``) is greedy on the values alone (the bonus is the
    exploration, ReinforcementLearning.jl keeps it) and leaves counts and step unchanged.
    ``prob`` is uniform over the actions the next call could choose.

    Keyword arguments: ``n_actions`` (required); ``c=2.0`` (>= 0); ``step=1``;
    ``is_training=True``; ``rng`` or ``seed``.

    >>> explorer = UCBExplorer(2, seed=0)
    >>> sorted([explorer([0.0, 1.0]), explorer([0.0, 1.0])])
    [0, 1]
    >>> explorer.action_counts.tolist()
    [1, 1]
    """

    n_actions: int = attrs.field(validator=positive_int)
    c: float = attrs.field(default=2.0, validator=real_in(0, math.inf, high_open=True))
    step: int = attrs.field(default=1, validator=non_negative_int)
    is_training: bool = attrs.field(default=True, validator=boolean)
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)
    action_counts: np.ndarray = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)
        self.action_counts = np.zeros(self.n_actions, dtype=np.int64)

    def _values(self, values):
        values = as_list(values)
        if len(values) != self.n_actions:
            raise ValueError(f"UCBExplorer(n_actions={self.n_actions}) got {len(values)} values")
        return values

    def _scores(self, values):
        """The upper confidence bounds, ``inf`` for untried actions."""
        log_t = math.log(self.step + 1)
        c = self.c
        return [v + c * math.sqrt(log_t / n) if n > 0 else math.inf
                for v, n in zip(values, self.action_counts.tolist())]

    def __call__(self, values, mask=None):
        values = self._values(values)
        legal = None if mask is None else legal_indices(mask, len(values))
        if not self.is_training:
            return greedy_action(values, legal, self.rng, True)
        action = greedy_action(self._scores(values), legal, self.rng, True)
        self.action_counts[action] += 1
        self.step += 1
        return action

    def prob(self, values, mask=None):
        values = self._values(values)
        legal = None if mask is None else legal_indices(mask, len(values))
        ties = greedy_set(self._scores(values) if self.is_training else values, legal)
        probs = np.zeros(len(values))
        probs[ties] = 1.0 / len(ties)
        return probs

    def reset(self):
        """Forget the counts and restart at step 1."""
        self.action_counts[:] = 0
        self.step = 1

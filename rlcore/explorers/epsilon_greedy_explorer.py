"""Epsilon-greedy and greedy explorers.

Reference: ReinforcementLearning.jl, ``explorers/epsilon_greedy_explorer.jl``; Sutton & Barto
(2018), section 2.2. Action indices are 0-based.

Shape convention: ``values`` of shape ``(n_actions,)`` (list, numpy array or torch tensor) give
one action, an ``int``; a batch of shape ``(batch, n_actions)`` (numpy array or torch tensor; one
row per sub-environment of a vectorised environment) gives an ``int64`` numpy array of shape
``(batch,)``, row ``k`` choosing as one call would (ε of step ``step + k``, so the schedule
advances once per env step). A ``mask`` has the shape of ``values``.
"""

import math

import attrs
import numpy as np

from rlcore.explorers._utils import (
    as_array, as_list, as_mask_rows, greedy_action, greedy_rows, greedy_set, is_batch,
    legal_indices, pick_rows,
)
from rlcore.explorers.base import AbstractExplorer
from rlcore.utils.random import make_rng
from rlcore.utils.validators import boolean, non_negative_int, one_of, real_in

__all__ = ["EpsilonGreedyExplorer", "GreedyExplorer"]


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated on construction: fast calls
class EpsilonGreedyExplorer(AbstractExplorer):
    """Picks a uniformly random (legal) action with probability ε, the greedy one otherwise.

    With probability ``1 - ε`` the action with the largest value is taken (a uniformly random
    one among equal maxima when ``is_break_tie``, else the first); with probability ``ε`` an
    action is drawn uniformly from all legal actions, the greedy one included. So
    ``prob(a) = ε / n_legal + (1 - ε) / n_ties`` for a maximal ``a`` and ``ε / n_legal`` for the
    others. NaN values are never greedy unless all legal values are NaN.

    ε follows the schedule of ReinforcementLearning.jl, with ``t`` the current ``step``
    (``w = warmup_steps``, ``d = decay_steps``):

    * ``kind="linear"``: ``ε_init`` while ``t <= w``; ``ε_stable`` once ``t >= w + d``; in
      between ``ε_stable + (w + d - t) / d · (ε_init - ε_stable)``.
    * ``kind="exp"``: ``ε_init`` while ``t <= w``; then
      ``ε_stable + (ε_init - ε_stable) · exp(-(t - w) / d)`` (``ε_stable`` when ``d == 0``).

    Each call in training mode uses ε of the current step, then increments ``step``. In test
    mode (``is_training=False``) ε is 0 (greedy, ties still broken at random) and ``step`` does
    not move. A batch ``(batch, n_actions)`` (see the module docstring) is one step per row:
    row ``k`` uses ε of ``step + k`` and ``step`` advances by ``batch``; its random numbers
    differ from ``batch`` single calls (it draws them for all rows at once).

    Keyword arguments: ``epsilon_stable`` (required, in [0, 1]); ``kind="linear"`` or ``"exp"``;
    ``epsilon_init=1.0`` (in [0, 1]); ``warmup_steps=0``; ``decay_steps=0``; ``step=1``;
    ``is_break_tie=True``; ``is_training=True``; ``rng`` (a ``numpy.random.Generator``) or
    ``seed``.

    >>> explorer = EpsilonGreedyExplorer(epsilon_stable=0.1, warmup_steps=10, decay_steps=100,
    ...                                  seed=0)
    >>> explorer.epsilon
    1.0
    >>> explorer([0.0, 1.0]) in (0, 1)
    True
    >>> explorer.step
    2
    >>> explorer(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0]])).shape, explorer.step
    ((3,), 5)
    """

    epsilon_stable: float = attrs.field(validator=real_in(0, 1))
    kind: str = attrs.field(default="linear", validator=one_of("linear", "exp"))
    epsilon_init: float = attrs.field(default=1.0, validator=real_in(0, 1))
    warmup_steps: int = attrs.field(default=0, validator=non_negative_int)
    decay_steps: int = attrs.field(default=0, validator=non_negative_int)
    step: int = attrs.field(default=1, validator=non_negative_int)
    is_break_tie: bool = attrs.field(default=True, validator=boolean)
    is_training: bool = attrs.field(default=True, validator=boolean)
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def epsilon_at(self, step):
        """ε of the schedule at ``step`` (ignoring test mode)."""
        if step <= self.warmup_steps:
            return self.epsilon_init
        if self.kind == "linear":
            end = self.warmup_steps + self.decay_steps
            if step >= end:
                return self.epsilon_stable
            return self.epsilon_stable + (end - step) / self.decay_steps * (
                self.epsilon_init - self.epsilon_stable)
        if self.decay_steps == 0:  # exp(-n / 0) = 0, as in Julia
            return self.epsilon_stable
        return self.epsilon_stable + (self.epsilon_init - self.epsilon_stable) * math.exp(
            -(step - self.warmup_steps) / self.decay_steps)

    def get_epsilon(self):
        """ε used by the next call: the schedule at ``step`` in training mode, 0 in test mode."""
        return self.epsilon_at(self.step) if self.is_training else 0.0

    @property
    def epsilon(self):
        """Same as :meth:`get_epsilon`."""
        return self.get_epsilon()

    def __call__(self, values, mask=None):
        if is_batch(values):
            return self._call_batch(values, mask)
        values = as_list(values)
        if self.is_training:
            epsilon = self.epsilon_at(self.step)
            self.step += 1
        else:
            epsilon = 0.0
        legal = None if mask is None else legal_indices(mask, len(values))
        rng = self.rng
        # ε = 0 or 1 needs no coin flip; the distribution is the same as with one.
        if epsilon <= 0.0 or (epsilon < 1.0 and rng.random() >= epsilon):
            return greedy_action(values, legal, rng, self.is_break_tie)
        if legal is None:
            return int(rng.random() * len(values))
        return legal[int(rng.random() * len(legal))]

    def _call_batch(self, values, mask):
        values = as_array(values, ndim=2)
        legal = _legal_rows(mask, values.shape)  # validated before the step moves
        batch = len(values)
        if self.is_training:
            epsilon = np.array([self.epsilon_at(self.step + k) for k in range(batch)])
            self.step += batch
        else:
            epsilon = np.zeros(batch)
        return _epsilon_greedy_rows(values, legal, epsilon, self.rng, self.is_break_tie)

    def prob(self, values, mask=None):
        """The probability of each action under the current ε (the step does not move)."""
        values = as_list(values)
        epsilon, n = self.get_epsilon(), len(values)
        probs = np.zeros(n)
        if mask is None:
            probs[:] = epsilon / n
            ties = greedy_set(values)
        else:
            legal = legal_indices(mask, n)
            probs[legal] = epsilon / len(legal)
            ties = greedy_set(values, legal)
        if self.is_break_tie:
            probs[ties] += (1.0 - epsilon) / len(ties)
        else:
            probs[ties[0]] += 1.0 - epsilon
        return probs


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated on construction: fast calls
class GreedyExplorer(AbstractExplorer):
    """Picks the action with the largest value (the same in training and test mode).

    Ties go to a uniformly random maximal action when ``is_break_tie`` (default), else to the
    first one. NaN values are never greedy unless all legal values are NaN.

    Keyword arguments: ``is_break_tie=True``, ``is_training=True`` (no effect), ``rng`` or
    ``seed``.

    >>> GreedyExplorer(seed=0)([0.0, 2.0, 1.0])
    1
    >>> GreedyExplorer(seed=0)(np.array([[0.0, 2.0, 1.0], [3.0, 2.0, 1.0]])).tolist()
    [1, 0]
    """

    is_break_tie: bool = attrs.field(default=True, validator=boolean)
    is_training: bool = attrs.field(default=True, validator=boolean)
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def __call__(self, values, mask=None):
        if is_batch(values):
            values = as_array(values, ndim=2)
            return _epsilon_greedy_rows(values, _legal_rows(mask, values.shape), None, self.rng,
                                       self.is_break_tie)
        values = as_list(values)
        legal = None if mask is None else legal_indices(mask, len(values))
        return greedy_action(values, legal, self.rng, self.is_break_tie)

    def prob(self, values, mask=None):
        values = as_list(values)
        legal = None if mask is None else legal_indices(mask, len(values))
        ties = greedy_set(values, legal)
        probs = np.zeros(len(values))
        if self.is_break_tie:
            probs[ties] = 1.0 / len(ties)
        else:
            probs[ties[0]] = 1.0
        return probs


def _legal_rows(mask, shape):
    """The legal actions of a batch as booleans of ``shape``: all when ``mask`` is ``None``."""
    return np.ones(shape, bool) if mask is None else as_mask_rows(mask, shape)


def _epsilon_greedy_rows(values, legal, epsilon, rng, break_tie):
    """ε-greedy actions of a batch: an ``int64`` array ``(batch,)``.

    ``values`` is a float array ``(batch, n_actions)``, ``legal`` booleans of that shape (at
    least one true per row), ``epsilon`` the ε of each row (``None``: greedy, no coin drawn).
    Row ``k`` explores when a coin ``u_k < ε_k`` and then takes a uniformly random legal action;
    otherwise a maximal legal value (NaN never, unless all legal values are NaN), a uniformly
    random one among ties when ``break_tie``, else the first.
    """
    batch = len(values)
    ties = greedy_rows(values, legal)
    u = rng.random(batch)  # which legal action (exploring rows) or which tie (the others)
    if epsilon is None:
        choices = ties
        explore = np.zeros(batch, bool)
    else:
        explore = rng.random(batch) < epsilon
        choices = np.where(explore[:, None], legal, ties)
    if not break_tie:
        u[~explore] = 0.0  # the first maximal action
    return pick_rows(choices, u).astype(np.int64)

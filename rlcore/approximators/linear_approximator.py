"""Linear function approximation ``v(s) = w · x(s)``.

Reference: Sutton & Barto (2018), section 9.4 (semi-gradient methods with linear features:
``w ← w + α δ x(s)``). Weights have shape ``(n_features,)`` for state values and
``(n_actions, n_features)`` for action values.
"""

import math

import attrs
import numpy as np

from rlcore.approximators.base import AbstractApproximator
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import (
    finite_real,
    index_in,
    optional_positive_int,
    positive_int,
    real_in,
)

__all__ = ["LinearApproximator"]


@attrs.define(eq=False)
class LinearApproximator(AbstractApproximator):
    """``v(s) = w · x(s)``, or ``q(s, a) = w[a] · x(s)`` with ``n_actions`` weight rows.

    ``feature_fn(s)`` returns the dense feature vector ``x(s)`` of length ``n_features``
    (``None``: the state is already that vector). ``app(s)`` is ``v(s)`` (a float) or, with
    ``n_actions``, the vector of ``q(s, ·)``; ``app(s, a)`` is ``q(s, a)``.
    ``update(app, (s, delta))`` does ``w += α · delta · x(s)`` and ``update(app, (s, a, delta))``
    does ``w[a] += α · delta · x(s)``: the semi-gradient step for the error
    ``delta = target − estimate``.

    Keyword arguments: ``feature_fn``, ``n_features`` (required), ``n_actions=None``,
    ``alpha=0.01`` (> 0), ``init=0.0`` (initial weights).

    >>> app = LinearApproximator(lambda s: np.array([1.0, s]), n_features=2, alpha=0.5)
    >>> update(app, (2.0, 1.0))
    >>> app.weights.tolist(), app(2.0)
    ([0.5, 1.0], 2.5)
    """

    feature_fn: object = attrs.field()
    n_features: int = attrs.field(validator=positive_int)
    n_actions: object = attrs.field(default=None, validator=optional_positive_int)
    alpha: float = attrs.field(default=0.01, validator=real_in(0, math.inf, low_open=True,
                                                               high_open=True))
    init: float = attrs.field(default=0.0)
    weights: np.ndarray = attrs.field(init=False, repr=False)

    @feature_fn.validator
    def _check_feature_fn(self, attribute, value):
        if value is not None and not callable(value):
            raise TypeError(f"feature_fn must be callable or None, got {value!r}")

    def __attrs_post_init__(self):
        shape = (self.n_features,) if self.n_actions is None else (self.n_actions,
                                                                   self.n_features)
        self.weights = np.full(shape, float(self.init))

    def features(self, s):
        """``x(s)``, checked to be a finite vector of length ``n_features``."""
        x = np.asarray(s if self.feature_fn is None else self.feature_fn(s), dtype=np.float64)
        if x.shape != (self.n_features,):
            raise ValueError(f"features of state {s!r} must have shape ({self.n_features},), "
                             f"got {x.shape}")
        return x

    def _action(self, a):
        if self.n_actions is None:
            raise TypeError("this LinearApproximator estimates state values (n_actions=None); "
                            "it takes no action")
        return index_in(a, self.n_actions, "action",
                        f"LinearApproximator(n_actions={self.n_actions})")

    def __call__(self, s, a=None):
        x = self.features(s)
        if a is not None:
            return float(self.weights[self._action(a)] @ x)
        if self.n_actions is None:
            return float(self.weights @ x)
        return self.weights @ x


@dispatch(LinearApproximator, object)
def update(app, correction):  # noqa: F811
    """``w += α δ x(s)`` for ``(s, delta)``; ``w[a] += α δ x(s)`` for ``(s, a, delta)``."""
    if isinstance(correction, tuple) and len(correction) == 2 and app.n_actions is None:
        s, delta = correction
        delta = finite_real(delta, "delta", "LinearApproximator")
        app.weights += app.alpha * delta * app.features(s)
    elif isinstance(correction, tuple) and len(correction) == 3 and app.n_actions is not None:
        s, a, delta = correction
        a = app._action(a)
        delta = finite_real(delta, "delta", "LinearApproximator")
        app.weights[a] += app.alpha * delta * app.features(s)
    else:
        expected = "(state, delta)" if app.n_actions is None else "(state, action, delta)"
        raise TypeError(f"update(LinearApproximator(n_actions={app.n_actions}), correction) "
                        f"needs {expected}, got {correction!r}")

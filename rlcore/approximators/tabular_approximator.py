"""Tables of state values and action values.

Reference: Sutton & Barto (2018), chapters 2 and 6 (incremental updates
``V(s) ← V(s) + α [target − V(s)]``); ReinforcementLearning.jl, ``tabular_approximator.jl``.
States and actions are 0-based integers. The Q table has shape ``(n_state, n_action)`` (state
first, unlike RL.jl's action-first Julia layout).
"""

import math
import numbers

import attrs
import numpy as np

from rlcore.approximators.base import AbstractApproximator
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import finite_real, index_in, positive_int, real_in

__all__ = ["TabularVApproximator", "TabularQApproximator", "InvDecay"]


@attrs.define(frozen=True)
class InvDecay:
    """Step size ``α_n = 1 / (1 + γ (n − 1))`` for the ``n``-th update of a table entry.

    With ``gamma=1`` (default) this is ``1 / n``: each entry becomes the sample average of its
    targets (Sutton & Barto, section 2.4). Unlike Flux's ``InvDecay``, the first update uses
    ``α_1 = 1``.

    >>> [InvDecay()(n) for n in (1, 2, 4)]
    [1.0, 0.5, 0.25]
    """

    gamma: float = attrs.field(default=1.0, validator=real_in(0, math.inf, high_open=True))

    def __call__(self, n):
        return 1.0 / (1.0 + self.gamma * (n - 1))


def _check_alpha(instance, attribute, value):
    if callable(value):
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value <= 1:
        raise ValueError(f"alpha must be a real number in (0, 1] or a callable step-size "
                         f"schedule alpha(n), got {value!r}")


class _Table:
    """The shared step-size logic: a constant ``alpha`` or a per-entry schedule ``alpha(n)``."""

    def _step_size(self, index):
        """The step size of the next update of ``index``; :meth:`_count` records that update."""
        alpha = self.alpha
        if not callable(alpha):
            return alpha
        n = int(self.counts[index]) + 1
        step_size = float(alpha(n))
        if not 0 < step_size <= 1:
            raise ValueError(f"the step-size schedule gave alpha={step_size!r} for update "
                             f"{n}; expected a value in (0, 1]")
        return step_size

    def _count(self, index):
        if callable(self.alpha):
            self.counts[index] += 1


@attrs.define(eq=False)
class TabularVApproximator(_Table, AbstractApproximator):
    """A table of state values: ``app(s)`` is ``V[s]``.

    ``update(app, (s, delta))`` does ``V[s] += α · delta`` (``delta`` is the error
    ``target − V[s]``). ``alpha`` is a constant in (0, 1] or a schedule ``alpha(n)`` of the
    number ``n`` of updates of that entry so far, this one included (e.g. :class:`InvDecay`);
    ``counts`` holds those numbers. A state that is not an integer in ``[0, n_state)`` raises
    and changes nothing.

    Keyword arguments: ``n_state`` (required), ``init=0.0``, ``alpha=0.1``.

    >>> V = TabularVApproximator(n_state=3, alpha=0.5)
    >>> update(V, (1, 2.0))
    >>> V(1)
    1.0
    """

    n_state: int = attrs.field(validator=positive_int)
    init: float = attrs.field(default=0.0)
    alpha: object = attrs.field(default=0.1, validator=_check_alpha)
    table: np.ndarray = attrs.field(init=False, repr=False)
    counts: np.ndarray = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self):
        self.table = np.full(self.n_state, float(self.init))
        self.counts = np.zeros(self.n_state, dtype=np.int64)

    def _state(self, s):
        if type(s) is int and 0 <= s < self.n_state:  # the common case, without the message
            return s
        return index_in(s, self.n_state, "state",
                        f"TabularVApproximator(n_state={self.n_state})")

    def __call__(self, s):
        return float(self.table[self._state(s)])


@dispatch(TabularVApproximator, object)
def update(app, correction):
    """``V[s] += α · delta`` for ``correction = (s, delta)``."""
    if not isinstance(correction, tuple) or len(correction) != 2:
        raise TypeError(f"update(TabularVApproximator, correction) needs (state, delta), "
                        f"got {correction!r}")
    s, delta = correction
    s = app._state(s)
    if not (type(delta) is float and math.isfinite(delta)):
        delta = finite_real(delta, "delta", "TabularVApproximator")
    app.table[s] += app._step_size(s) * delta
    app._count(s)


@attrs.define(eq=False)
class TabularQApproximator(_Table, AbstractApproximator):
    """A table of action values: ``app(s)`` is a copy of the row ``Q[s]``, ``app(s, a)`` ``Q[s, a]``.

    ``update(app, (s, a, delta))`` does ``Q[s, a] += α · delta``; ``update(app, (s, deltas))``
    does ``Q[s] += α · deltas`` for a whole row (one schedule count per entry). ``alpha`` is a
    constant in (0, 1] or a schedule ``alpha(n)`` as in :class:`TabularVApproximator`. A state
    or action that is not an integer in range raises and changes nothing.

    Keyword arguments: ``n_state``, ``n_action`` (required), ``init=0.0``, ``alpha=0.1``.

    >>> Q = TabularQApproximator(n_state=2, n_action=3, alpha=0.5)
    >>> update(Q, (0, 2, 4.0))
    >>> Q(0).tolist(), Q(0, 2)
    ([0.0, 0.0, 2.0], 2.0)
    """

    n_state: int = attrs.field(validator=positive_int)
    n_action: int = attrs.field(validator=positive_int)
    init: float = attrs.field(default=0.0)
    alpha: object = attrs.field(default=0.1, validator=_check_alpha)
    table: np.ndarray = attrs.field(init=False, repr=False)
    counts: np.ndarray = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self):
        self.table = np.full((self.n_state, self.n_action), float(self.init))
        self.counts = np.zeros((self.n_state, self.n_action), dtype=np.int64)

    @property
    def _owner(self):
        return f"TabularQApproximator(n_state={self.n_state}, n_action={self.n_action})"

    def _state(self, s):
        if type(s) is int and 0 <= s < self.n_state:  # the common case, without the message
            return s
        return index_in(s, self.n_state, "state", self._owner)

    def _action(self, a):
        if type(a) is int and 0 <= a < self.n_action:
            return a
        return index_in(a, self.n_action, "action", self._owner)

    def __call__(self, s, a=None):
        s = self._state(s)
        if a is None:
            return self.table[s].copy()
        return float(self.table[s, self._action(a)])


@dispatch(TabularQApproximator, object)
def update(app, correction):  # noqa: F811
    """``Q[s, a] += α · delta`` for ``(s, a, delta)``, ``Q[s] += α · deltas`` for ``(s, deltas)``."""
    if isinstance(correction, tuple) and len(correction) == 3:
        s, a, delta = correction
        index = (app._state(s), app._action(a))
        if not (type(delta) is float and math.isfinite(delta)):
            delta = finite_real(delta, "delta", app._owner)
        app.table[index] += app._step_size(index) * delta
        app._count(index)
    elif isinstance(correction, tuple) and len(correction) == 2:
        s, deltas = correction
        s = app._state(s)
        deltas = np.asarray(deltas, dtype=np.float64)
        if deltas.shape != (app.n_action,) or not np.isfinite(deltas).all():
            raise ValueError(f"{app._owner}: deltas must be {app.n_action} finite numbers, "
                             f"got {correction[1]!r}")
        steps = np.array([app._step_size((s, a)) for a in range(app.n_action)])
        app.table[s] += steps * deltas
        for a in range(app.n_action):
            app._count((s, a))
    else:
        raise TypeError(f"update(TabularQApproximator, correction) needs (state, action, delta) "
                        f"or (state, deltas), got {correction!r}")

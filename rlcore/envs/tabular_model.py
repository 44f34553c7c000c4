"""The tabular model interface: a finite MDP given by its dynamics ``p(s', r | s, a)``.

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), §3.1
(eq. 3.2, the four-argument ``p``) and chapter 4 (dynamic programming needs the model).

A tabular model enumerates its states ``0..n_states-1`` and actions ``0..n_actions-1``; some
actions may be illegal in some states (``legal_actions(s)``) and some states may be terminal
(their value is 0 by definition). ``transitions(s, a)`` lists the outcomes of taking ``a`` in
``s`` as ``(probability, next_state, reward)`` triples whose probabilities sum to 1.
:func:`model_arrays` turns a model into the dense arrays dynamic programming works on.

An environment that knows its dynamics (grid worlds, Jack's car rental, the gambler's problem)
subclasses both ``AbstractEnv`` and :class:`AbstractTabularModel`.

Example, a two-state chain::

    >>> class Chain(AbstractTabularModel):
    ...     n_states, n_actions = 2, 1
    ...     def transitions(self, s, a):
    ...         return [(1.0, 1, 1.0)] if s == 0 else []
    ...     def is_terminal_state(self, s):
    ...         return s == 1
    >>> arrays = model_arrays(Chain())
    >>> arrays.P[0, 0].tolist(), float(arrays.R[0, 0])
    ([0.0, 1.0], 1.0)
"""

import abc

import attrs
import numpy as np

__all__ = ["AbstractTabularModel", "ModelArrays", "model_arrays"]


class AbstractTabularModel(abc.ABC):
    """A finite MDP known by its dynamics ``p(s', r | s, a)``.

    Subclasses set ``n_states`` and ``n_actions`` (attributes or properties) and implement
    :meth:`transitions`; they may override :meth:`legal_actions` (default: every action) and
    :meth:`is_terminal_state` (default: none).
    """

    n_states: int
    n_actions: int

    @abc.abstractmethod
    def transitions(self, s, a):
        """The outcomes of action ``a`` in state ``s``: a list of ``(p, next_state, reward)``.

        Probabilities are positive and sum to 1. Not called for terminal states or illegal
        actions.

        Expected-reward models are allowed: the reward of a triple may be an expectation (e.g.
        ``r(s, a) = E[R | s, a]`` on every outcome) instead of one value of the random reward.
        Dynamic programming uses only ``p(s' | s, a)`` and the expected reward ``r(s, a)``
        (:class:`ModelArrays`), so it is exact for such a model, but the triples then do not
        describe the reward's distribution (Jack's car rental is such a model).
        """

    def legal_actions(self, s):
        """The actions allowed in state ``s`` (default: all ``n_actions``)."""
        return range(self.n_actions)

    def is_terminal_state(self, s):
        """Whether ``s`` is terminal: no action is taken there and its value is 0."""
        return False


@attrs.define(frozen=True)
class ModelArrays:
    """Dense arrays of a tabular model (shape convention: state first, then action).

    * ``P[s, a, s']``: transition probabilities (rows of illegal pairs and terminal states are 0).
    * ``R[s, a]``: expected reward ``r(s, a) = Σ_{s', r} p(s', r | s, a) r``.
    * ``legal[s, a]``: whether ``a`` is legal in ``s`` (all False for terminal states).
    * ``terminal[s]``: terminal states.
    """

    P: np.ndarray
    R: np.ndarray
    legal: np.ndarray
    terminal: np.ndarray


def model_arrays(model):
    """The :class:`ModelArrays` of ``model`` (an :class:`AbstractTabularModel`).

    A model may provide ``model_arrays()`` itself when it can build them faster (e.g. Jack's car
    rental with numpy); otherwise ``transitions`` is called once for every legal pair. Raises
    ``ValueError`` if some outcome list does not sum to 1 or names a state out of range.
    """
    if not isinstance(model, AbstractTabularModel):
        raise TypeError(f"model must be an AbstractTabularModel, got {type(model).__name__}")
    own = getattr(model, "model_arrays", None)
    if own is not None:
        return own()
    n_s, n_a = int(model.n_states), int(model.n_actions)
    P = np.zeros((n_s, n_a, n_s))
    R = np.zeros((n_s, n_a))
    legal = np.zeros((n_s, n_a), dtype=bool)
    terminal = np.array([bool(model.is_terminal_state(s)) for s in range(n_s)])
    for s in range(n_s):
        if terminal[s]:
            continue
        for a in model.legal_actions(s):
            legal[s, a] = True
            for p, s_next, r in model.transitions(s, a):
                if not 0 <= s_next < n_s:
                    raise ValueError(f"transitions({s}, {a}) names next state {s_next!r}, "
                                     f"expected one in 0..{n_s - 1}")
                P[s, a, s_next] += p
                R[s, a] += p * r
            if abs(P[s, a].sum() - 1.0) > 1e-9:
                raise ValueError(f"transitions({s}, {a}) probabilities sum to {P[s, a].sum()!r}, "
                                 "expected 1")
    return ModelArrays(P=P, R=R, legal=legal, terminal=terminal)

"""Dynamic programming on a tabular model: policy evaluation, policy iteration, value iteration.

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), chapter 4:
iterative policy evaluation (§4.1, in place and with two arrays), its exact solution as a linear
system (eq. 3.14 in matrix form, ``v = r_π + γ P_π v``), policy improvement with ties (§4.2),
policy iteration (§4.3) and value iteration (§4.4).

Models are :class:`rlcore.envs.tabular_model.AbstractTabularModel` objects (or their
:class:`~rlcore.envs.tabular_model.ModelArrays`). A policy is an array ``pi[s, a]`` of action
probabilities (rows of terminal states are ignored); a value function is an array ``V[s]`` with
``V = 0`` on terminal states. Shapes: state first, then action.

Example (Figure 4.1's equiprobable policy on the 4×4 grid)::

    >>> from rlenvs.grid_world import example_4_1_grid
    >>> env = example_4_1_grid()
    >>> V, _ = policy_evaluation(env, uniform_policy(env), gamma=1.0)
    >>> round(float(V[1]))
    -14
"""

import numpy as np

from rlcore.envs.tabular_model import AbstractTabularModel, ModelArrays, model_arrays
from rlcore.utils.validators import positive_int, real_in

__all__ = ["uniform_policy", "policy_evaluation", "policy_evaluation_exact", "action_values",
           "greedy_policy", "policy_iteration", "value_iteration"]


def _arrays(model):
    if isinstance(model, ModelArrays):
        return model
    if isinstance(model, AbstractTabularModel):
        return model_arrays(model)
    raise TypeError(f"model must be an AbstractTabularModel or ModelArrays, "
                    f"got {type(model).__name__}")


class _Argument:
    """Stands in for the attrs attribute that :mod:`rlcore.utils.validators` name in errors."""

    def __init__(self, name):
        self.name = name


_probability = real_in(0, 1)
_positive = real_in(0, float("inf"), low_open=True)  # theta=inf: exactly one sweep


def _check_gamma(gamma, theta=None, **counts):
    """Validate function arguments with the shared attrs validators."""
    _probability(None, _Argument("gamma"), gamma)
    if theta is not None:
        _positive(None, _Argument("theta"), theta)
    for name, value in counts.items():
        positive_int(None, _Argument(name), value)


def _check_policy(m, pi):
    pi = np.asarray(pi, dtype=np.float64)
    if pi.shape != m.legal.shape:
        raise ValueError(f"policy must have shape (n_states, n_actions) = {m.legal.shape}, "
                         f"got {pi.shape}")
    live = ~m.terminal
    if (pi[live] < 0).any() or not np.allclose(pi[live].sum(axis=1), 1.0):
        raise ValueError("policy rows of non-terminal states must be probabilities summing to 1")
    if (pi[live] * ~m.legal[live] > 0).any():
        raise ValueError("policy gives positive probability to an illegal action")
    return pi


def uniform_policy(model):
    """The equiprobable random policy over each state's legal actions."""
    m = _arrays(model)
    counts = m.legal.sum(axis=1, keepdims=True)
    return np.divide(m.legal, counts, out=np.zeros(m.legal.shape), where=counts > 0)


def policy_evaluation(model, pi, gamma=1.0, theta=1e-10, in_place=True, V=None,
                      max_sweeps=100_000):
    """Iterative policy evaluation (§4.1): sweep ``V(s) ← Σ_a π(a|s) Σ p (r + γ V(s'))``.

    Stops when a sweep changes no value by more than ``theta``. ``in_place=True`` updates ``V``
    state by state within a sweep (usually converges faster), ``False`` keeps two arrays.
    ``V`` is the initial estimate (zeros by default). Returns ``(V, n_sweeps)``.
    """
    m = _arrays(model)
    _check_gamma(gamma, theta, max_sweeps=max_sweeps)
    pi = _check_policy(m, pi)
    r_pi = (pi * m.R).sum(axis=1)
    P_pi = np.einsum("sa,sat->st", pi, m.P)
    V = np.zeros(len(r_pi)) if V is None else np.array(V, dtype=np.float64)
    V[m.terminal] = 0.0
    live = np.flatnonzero(~m.terminal)
    for sweep in range(1, max_sweeps + 1):
        if in_place:
            delta = 0.0
            for s in live:
                v = r_pi[s] + gamma * P_pi[s] @ V
                delta = max(delta, abs(v - V[s]))
                V[s] = v
        else:
            new = r_pi + gamma * P_pi @ V
            new[m.terminal] = 0.0
            delta = float(np.abs(new - V).max())
            V = new
        if delta <= theta:
            return V, sweep
    raise RuntimeError(f"policy evaluation did not converge to theta={theta} in {max_sweeps} "
                       "sweeps (γ = 1 with a policy that may never terminate?)")


def policy_evaluation_exact(model, pi, gamma=1.0):
    """``v_π`` as the solution of the linear system ``(I − γ P_π) v = r_π`` (terminals 0)."""
    m = _arrays(model)
    _check_gamma(gamma)
    pi = _check_policy(m, pi)
    live = ~m.terminal
    r_pi = (pi * m.R).sum(axis=1)[live]
    P_pi = np.einsum("sa,sat->st", pi, m.P)[np.ix_(live, live)]
    V = np.zeros(len(m.terminal))
    try:
        V[live] = np.linalg.solve(np.eye(len(r_pi)) - gamma * P_pi, r_pi)
    except np.linalg.LinAlgError:
        raise ValueError("I − γ P_π is singular: the policy never terminates from some state "
                         "and γ = 1") from None
    return V


def action_values(model, V, gamma=1.0):
    """``q(s, a) = r(s, a) + γ Σ_s' p(s'|s, a) V(s')``; ``-inf`` for illegal pairs."""
    m = _arrays(model)
    q = m.R + gamma * m.P @ np.asarray(V, dtype=np.float64)
    return np.where(m.legal, q, -np.inf)


def greedy_policy(model, V, gamma=1.0, tol=1e-9):
    """The greedy policy of ``V`` (§4.2), sharing probability equally among tied actions.

    Actions whose value is within ``tol`` of the best are ties (Figure 4.1's arrows).
    """
    m = _arrays(model)
    q = action_values(m, V, gamma)
    best = q.max(axis=1, keepdims=True)
    ties = m.legal & (q >= best - tol)
    counts = ties.sum(axis=1, keepdims=True)
    return np.divide(ties, counts, out=np.zeros(q.shape), where=counts > 0)


def _first_greedy(m, V, gamma, tol):
    """A deterministic greedy policy: the lowest-numbered tied action (stable in iteration)."""
    q = action_values(m, V, gamma)
    pi = np.zeros(q.shape)
    live = np.flatnonzero(~m.terminal)
    best = q[live].max(axis=1, keepdims=True)
    first = np.argmax(q[live] >= best - tol, axis=1)
    pi[live, first] = 1.0
    return pi


def policy_iteration(model, gamma=1.0, theta=1e-6, pi=None, in_place=True, tol=1e-9,
                     max_iterations=1000):
    """Policy iteration (§4.3): evaluate, improve greedily, until the policy is stable.

    Each improvement keeps the current action when it is among the greedy ties, so the loop
    cannot cycle between equally good policies. Starts from ``pi`` (the first legal action in
    each state by default). Returns ``(pi, V, policies)`` where ``policies`` lists every policy
    evaluated, the first one included (``len(policies) - 1`` improvements changed it).
    """
    m = _arrays(model)
    _check_gamma(gamma, theta, max_iterations=max_iterations)
    if pi is None:
        pi = np.zeros(m.legal.shape)
        live = np.flatnonzero(~m.terminal)
        pi[live, np.argmax(m.legal[live], axis=1)] = 1.0
    pi = _check_policy(m, pi)
    policies, V = [pi], None
    for _ in range(max_iterations):
        V, _ = policy_evaluation(m, pi, gamma, theta, in_place=in_place, V=V)
        q = action_values(m, V, gamma)
        current = (pi * np.where(m.legal, q, 0.0)).sum(axis=1)
        best = q.max(axis=1)
        improve = ~m.terminal & (best > current + tol)
        if not improve.any():
            return pi, V, policies
        new = pi.copy()
        greedy = _first_greedy(m, V, gamma, tol)
        new[improve] = greedy[improve]
        pi = new
        policies.append(pi)
    raise RuntimeError(f"policy iteration did not stabilise in {max_iterations} iterations")


def value_iteration(model, gamma=1.0, theta=1e-10, V=None, max_sweeps=100_000):
    """Value iteration (§4.4): sweep ``V(s) ← max_a Σ p (r + γ V(s'))`` in place.

    Stops when a sweep changes no value by more than ``theta``. Returns ``(V, sweeps)`` where
    ``sweeps`` lists the value function after each sweep (Figure 4.3, top).
    """
    m = _arrays(model)
    _check_gamma(gamma, theta, max_sweeps=max_sweeps)
    V = np.zeros(len(m.terminal)) if V is None else np.array(V, dtype=np.float64)
    V[m.terminal] = 0.0
    live = np.flatnonzero(~m.terminal)
    sweeps = []
    for _ in range(max_sweeps):
        delta = 0.0
        for s in live:
            q = m.R[s] + gamma * m.P[s] @ V
            v = q[m.legal[s]].max()
            delta = max(delta, abs(v - V[s]))
            V[s] = v
        sweeps.append(V.copy())
        if delta <= theta:
            return V, sweeps
    raise RuntimeError(f"value iteration did not converge to theta={theta} in {max_sweeps} sweeps")

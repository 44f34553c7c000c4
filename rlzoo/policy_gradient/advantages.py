"""Discounted returns, generalised advantage estimation and advantage normalisation.

Shape convention of this module: time-major ``(T, n)`` tensors, ``T`` steps of a rollout of
``n`` environments (``n = 1`` for one environment), on any device; ``last_value`` is ``(n,)``.
Flags are bool or float tensors. ``terminals`` marks a step whose episode *terminated* (no
bootstrap); ``dones`` marks every episode boundary, termination *or* truncation (a time limit),
where a recursion over time is cut. A truncated step bootstraps from its own true final state:
``next_values[t]`` is ``V(s'_t)`` of row ``t``'s next state, not ``values[t + 1]``, which after
a boundary is the value of the next episode's first state.
"""

import numbers

import torch

__all__ = ["discounted_returns", "gae", "normalize"]


def _check_unit_interval(x, name):
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not 0.0 <= x <= 1.0:
        raise ValueError(f"{name} must be a real number in [0, 1], got {x!r}")


def _check_same_2d(**tensors):
    shapes = {name: tuple(x.shape) for name, x in tensors.items()}
    first = next(iter(shapes.values()))
    if len(first) != 2 or any(shape != first for shape in shapes.values()):
        raise ValueError("expected tensors of one shape (T, n_envs), got "
                         + ", ".join(f"{name} {shape}" for name, shape in shapes.items()))


def discounted_returns(rewards, dones, gamma, last_value=None):
    """The discounted returns ``G_t = r_t + γ (1 − done_t) G_{t+1}`` of a rollout, (T, n).

    Sutton & Barto (2018), eq. 3.9, cut at episode boundaries: ``dones`` (T, n) marks a
    termination or a truncation. ``G_T = last_value`` (n,), the value of the state after the
    rollout's last step (zeros when ``None``): it reaches back only to steps of an episode not
    ended within the rollout.
    """
    _check_same_2d(rewards=rewards, dones=dones)
    _check_unit_interval(gamma, "gamma")
    n = rewards.shape[1]
    if last_value is None:
        last_value = rewards.new_zeros(n)
    elif tuple(last_value.shape) != (n,):
        raise ValueError(f"last_value must have shape ({n},), got {tuple(last_value.shape)}")
    keep = gamma * (1.0 - dones.to(rewards.dtype))
    returns = torch.empty_like(rewards)
    following = last_value.to(rewards.dtype)
    for t in reversed(range(rewards.shape[0])):
        following = rewards[t] + keep[t] * following
        returns[t] = following
    return returns


def gae(rewards, values, next_values, terminals, dones, gamma, lam):
    """Generalised advantage estimates and λ-returns ``(advantages, returns)``, each (T, n).

    Schulman et al. (2016), "High-Dimensional Continuous Control Using Generalized Advantage
    Estimation", eq. 16 (https://arxiv.org/abs/1506.02438):

    ``δ_t = r_t + γ (1 − terminal_t) V(s'_t) − V(s_t)``,
    ``A_t = δ_t + γ λ (1 − done_t) A_{t+1}``, ``A_T = 0``, and ``returns = A + V``
    (the targets of the value function).

    ``rewards``, ``values`` ``V(s_t)``, ``next_values`` ``V(s'_t)`` (the value of each row's own
    next state, so the rollout's last row and a truncated step bootstrap), ``terminals`` and
    ``dones`` (termination or truncation), all (T, n); ``gamma`` and ``lam`` in [0, 1]. With
    ``lam = 0``, ``A = δ``; with ``lam = 1`` and no termination, ``A + V`` are the discounted
    returns bootstrapped from the last ``next_values``. The result carries gradient if the
    values do: compute it under ``torch.no_grad()``.
    """
    _check_same_2d(rewards=rewards, values=values, next_values=next_values,
                   terminals=terminals, dones=dones)
    _check_unit_interval(gamma, "gamma")
    _check_unit_interval(lam, "lam")
    not_terminal = 1.0 - terminals.to(rewards.dtype)
    deltas = rewards + gamma * not_terminal * next_values - values
    keep = gamma * lam * (1.0 - dones.to(rewards.dtype))
    advantages = torch.empty_like(deltas)
    following = torch.zeros_like(deltas[0])
    for t in reversed(range(rewards.shape[0])):
        following = deltas[t] + keep[t] * following
        advantages[t] = following
    return advantages, advantages + values


def normalize(x, eps=1e-8):
    """``(x − mean(x)) / (std(x) + eps)`` over all elements (the advantage normalisation of
    Stable-Baselines3's and CleanRL's PPO), the same shape as ``x``.

    ``std`` is the sample standard deviation (Bessel's correction, torch's default). With fewer
    than two elements it is undefined and zeros are returned: one advantage centred on itself
    is 0.
    """
    if x.numel() < 2:
        return torch.zeros_like(x)
    return (x - x.mean()) / (x.std() + eps)

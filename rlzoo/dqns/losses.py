"""TD targets, losses and importance weights of the DQN family (functions the learners compose).

Shape convention of this module: batch axis first; ``reward``, ``terminal``, ``discount`` and
per-sample losses are ``(batch,)``; distributions and quantiles ``(batch, n_atoms)`` once an
action is chosen.

*Targets*: a batch from ``BatchSampler`` bootstraps with ``γ``, one from ``NStepBatchSampler``
with its ``discount = γ^k``; a step that *terminated* does not bootstrap, a *truncated* one (time
limit) does, from its true final state (see :mod:`rlcore.trajectories.recording`).
"""

import torch
import torch.nn.functional as F

__all__ = ["LOSSES", "bootstrap_factor", "bootstrapped_target", "td_loss", "project_onto_support",
           "c51_cross_entropy", "quantile_huber_loss", "beta_at", "importance_weights"]

LOSSES = {"huber": F.smooth_l1_loss, "mse": F.mse_loss}


def bootstrap_factor(batch, gamma):
    """``γ^k · (1 − terminal)`` per transition: 0 after a termination, ``γ`` (or the n-step
    sampler's ``discount``) otherwise, truncation included."""
    discount = batch.get("discount")
    not_terminal = 1.0 - batch["terminal"].float()
    return not_terminal * (gamma if discount is None else discount)


def bootstrapped_target(batch, gamma, next_value):
    """``reward + γ^k (1 − terminal) · next_value`` (``γ^k``: see :func:`bootstrap_factor`),
    shape (batch,)."""
    return batch["reward"] + bootstrap_factor(batch, gamma) * next_value


def td_loss(q_sa, target, loss="huber", weights=None):
    """``(mean loss, per-sample losses)`` of ``loss(q_sa, target)``; with ``weights`` the mean
    is weighted per sample, without them the per-sample losses are not kept (``None``)."""
    if weights is None:
        return LOSSES[loss](q_sa, target), None
    per_sample = LOSSES[loss](q_sa, target, reduction="none")
    return (per_sample * weights).mean(), per_sample


def project_onto_support(next_probs, reward, factor, support):
    """The C51 projection Φ of ``r + factor · z`` onto the fixed support ``z`` (Bellemare et
    al., 2017, Algorithm 1).

    ``next_probs`` (batch, N) are the probabilities of the next state's greedy action,
    ``reward`` and ``factor`` (batch,) (``factor = γ^k (1 − terminal)``), ``support`` (N,) evenly
    spaced from ``v_min`` to ``v_max``. Each atom's mass goes to its two neighbours in
    proportion to closeness: ``m_l += p (u − b)``, ``m_u += p (b − l)``,
    ``b = (Tz − v_min)/Δz``.
    """
    n = support.shape[0]
    v_min, v_max = support[0], support[-1]
    delta = (v_max - v_min) / (n - 1)
    tz = (reward.unsqueeze(1) + factor.unsqueeze(1) * support.unsqueeze(0)).clamp(v_min, v_max)
    b = (tz - v_min) / delta
    lower, upper = b.floor().long(), b.ceil().long()
    lower = lower.clamp(0, n - 1)
    upper = upper.clamp(0, n - 1)
    same = (lower == upper).to(next_probs.dtype)  # b on an atom: all its mass goes there
    projected = torch.zeros_like(next_probs)
    projected.scatter_add_(1, lower, next_probs * (upper.to(b.dtype) - b + same))
    projected.scatter_add_(1, upper, next_probs * (b - lower.to(b.dtype)))
    return projected


def c51_cross_entropy(logits_sa, target_probs):
    """Per-sample cross-entropy ``−Σ_i m_i log p_i`` of the predicted logits (batch, N) against
    the projected target distribution (batch, N)."""
    return -(target_probs * F.log_softmax(logits_sa, dim=1)).sum(dim=1)


def quantile_huber_loss(quantiles, target, taus, kappa=1.0):
    """Per-sample quantile Huber loss (Dabney et al., 2018, eq. 10; QR-DQN and IQN).

    ``quantiles`` (batch, N) at fractions ``taus`` ((N,) or (batch, N)); ``target`` (batch, M).
    With ``u = target_j − quantile_i``: ``ρ^κ_τ(u) = |τ − 1{u < 0}| · L_κ(u) / κ``, where
    ``L_κ`` is the Huber loss; returns ``Σ_i mean_j ρ^κ_τi(u_ij)``, shape (batch,).
    """
    if kappa <= 0:
        raise ValueError(f"kappa must be > 0, got {kappa!r}")
    u = target.unsqueeze(1) - quantiles.unsqueeze(2)            # (B, N, M)
    abs_u = u.abs()
    huber = torch.where(abs_u <= kappa, 0.5 * u * u, kappa * (abs_u - 0.5 * kappa))
    if taus.dim() == 1:
        taus = taus.unsqueeze(0)
    weight = (taus.unsqueeze(2) - (u.detach() < 0).to(u.dtype)).abs()
    return (weight * huber / kappa).mean(dim=2).sum(dim=1)


def beta_at(step, beta_init, beta_steps):
    """The importance-sampling exponent β, annealed linearly from ``beta_init`` to 1 over
    ``beta_steps`` env steps (Schaul et al., 2016); ``beta_steps=0`` keeps β at ``beta_init``
    (Dopamine's Rainbow: a constant 0.5)."""
    if beta_steps == 0:
        return beta_init
    return min(1.0, beta_init + (1.0 - beta_init) * step / beta_steps)


def importance_weights(priorities, beta):
    """``w_i = (N P(i))^−β / max_j w_j`` with ``P(i) = p_i / Σ_k p_k`` (Schaul et al., 2016).
    ``N`` and ``Σ_k p_k`` cancel in the normalisation, so the batch's priorities ``p_i`` (or its
    sampling probabilities, proportional to them) are enough."""
    weights = priorities.clamp_min(1e-12).pow(-beta)
    return weights / weights.max()

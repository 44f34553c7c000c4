"""Hand-computed checks of the DQN family's targets, losses and importance weights."""

import pytest
import torch

from rlzoo.dqns.losses import (
    LOSSES, beta_at, bootstrap_factor, bootstrapped_target, importance_weights,
    project_onto_support, quantile_huber_loss, td_loss,
)
from tests.rlzoo.dqns.dqn_helpers import make_batch


def test_c51_projection_splits_mass_between_neighbouring_atoms():
    support = torch.tensor([0.0, 1.0, 2.0])
    next_probs = torch.tensor([[0.2, 0.5, 0.3]])
    # Tz = 0.5 + 0.5 z = [0.5, 1.0, 1.5]: atom 0 splits between 0 and 1, atom 1 lands on 1,
    # atom 2 splits between 1 and 2 -> [0.1, 0.1 + 0.5 + 0.15, 0.15]
    m = project_onto_support(next_probs, torch.tensor([0.5]), torch.tensor([0.5]), support)
    torch.testing.assert_close(m, torch.tensor([[0.1, 0.75, 0.15]]))


def test_c51_projection_clamps_and_handles_termination():
    support = torch.tensor([0.0, 1.0, 2.0])
    p = torch.tensor([[0.2, 0.5, 0.3], [0.2, 0.5, 0.3], [0.2, 0.5, 0.3]])
    m = project_onto_support(p, torch.tensor([5.0, 1.0, -3.0]), torch.tensor([0.9, 0.0, 1.0]),
                             support)
    # r=5 beyond v_max: all mass on 2; terminal (factor 0), r=1: all on 1; r=-3: Tz <= 0 -> 0
    torch.testing.assert_close(m, torch.tensor([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0],
                                                [1.0, 0.0, 0.0]]))
    torch.testing.assert_close(m.sum(dim=1), torch.ones(3))


def test_quantile_huber_loss_by_hand():
    quantiles = torch.tensor([[0.0, 2.0]])
    taus = torch.tensor([0.25, 0.75])
    # u = 1 - 0 = 1: Huber 0.5, weight |0.25 - 0| -> 0.125; u = 1 - 2 = -1: Huber 0.5,
    # weight |0.75 - 1| -> 0.125; sum over quantiles 0.25
    loss = quantile_huber_loss(quantiles, torch.tensor([[1.0]]), taus)
    torch.testing.assert_close(loss, torch.tensor([0.25]))
    # |u| = 3 > κ = 1: κ(|u| - κ/2) = 2.5, weight 0.1; averaged over the two equal targets
    loss = quantile_huber_loss(torch.tensor([[0.0]]), torch.tensor([[3.0, 3.0]]),
                               torch.tensor([0.1]))
    torch.testing.assert_close(loss, torch.tensor([0.25]))
    with pytest.raises(ValueError, match="kappa must be > 0, got 0.0"):
        quantile_huber_loss(quantiles, torch.tensor([[1.0]]), taus, kappa=0.0)


def test_quantile_regression_recovers_quantiles():
    # minimising the quantile loss over samples of U(0, 1) puts θ_i at τ_i
    gen = torch.Generator().manual_seed(0)
    taus = torch.tensor([0.1, 0.5, 0.9])
    theta = torch.zeros(1, 3, requires_grad=True)
    opt = torch.optim.SGD([theta], lr=0.05)
    for _ in range(3000):
        samples = torch.rand(1, 64, generator=gen)
        loss = quantile_huber_loss(theta, samples, taus, kappa=0.01).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.testing.assert_close(theta.detach(), taus.unsqueeze(0), atol=0.05, rtol=0)


def test_bootstrap_factor_terminal_and_n_step():
    batch = make_batch([[0.0]] * 3, [0, 0, 0], [1, 1, 1], [[0.0]] * 3,
                       terminal=[False, True, False], truncated=[False, False, True])
    torch.testing.assert_close(bootstrap_factor(batch, 0.9), torch.tensor([0.9, 0.0, 0.9]))
    # y = r + factor · next_value = 1 + [0.9, 0, 0.9] · 2
    torch.testing.assert_close(bootstrapped_target(batch, 0.9, torch.full((3,), 2.0)),
                               torch.tensor([2.8, 1.0, 2.8]))
    batch["discount"] = torch.tensor([0.25, 0.5, 0.125])
    torch.testing.assert_close(bootstrap_factor(batch, 0.9), torch.tensor([0.25, 0.0, 0.125]))


def test_td_loss_mean_and_weighted_per_sample():
    q_sa, target = torch.tensor([1.0, 0.0]), torch.tensor([3.0, 0.5])
    # MSE: mean(2², 0.5²) = 2.125; the per-sample losses are not kept without weights
    loss, per_sample = td_loss(q_sa, target, "mse")
    assert loss.item() == pytest.approx(2.125) and per_sample is None
    # Huber (δ = 1): |2| -> 2 - 0.5 = 1.5, |0.5| -> 0.5 · 0.25 = 0.125; weights [1, 0.5]:
    # mean(1.5, 0.0625) = 0.78125
    loss, per_sample = td_loss(q_sa, target, "huber", torch.tensor([1.0, 0.5]))
    torch.testing.assert_close(per_sample, torch.tensor([1.5, 0.125]))
    assert loss.item() == pytest.approx(0.78125)
    assert set(LOSSES) == {"huber", "mse"}


def test_importance_weights_and_beta_schedule():
    # w_i = p_i^-β / max_j p_j^-β: β = 1 -> [10, 2.5] / 10; β = 0.5 -> [√10, √2.5] / √10
    w = importance_weights(torch.tensor([0.1, 0.4]), 1.0)
    torch.testing.assert_close(w, torch.tensor([1.0, 0.25]))
    w = importance_weights(torch.tensor([0.1, 0.4]), 0.5)
    torch.testing.assert_close(w, torch.tensor([1.0, 0.5]))
    assert beta_at(0, 0.4, 100) == 0.4
    assert beta_at(50, 0.4, 100) == pytest.approx(0.7)   # 0.4 + 0.6 · 50/100
    assert beta_at(500, 0.4, 100) == 1.0
    assert beta_at(3, 0.4, 0) == 0.4   # beta_steps = 0: constant

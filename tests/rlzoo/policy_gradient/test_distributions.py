"""Action distributions: hand-computed log-probabilities and entropies, masks, seeded sampling,
the tanh change of variables, gradients through the reparameterised sample."""

import math

import numpy as np
import pytest
import torch
from gymnasium import spaces

from rlzoo.policy_gradient.distributions import (
    Categorical, DiagGaussian, TanhGaussian, box_scale, check_bounded_box,
)

LOG_2PI = math.log(2 * math.pi)


def _generator(seed=0):
    return torch.Generator().manual_seed(seed)


# --- Categorical ------------------------------------------------------------------------------

def test_categorical_log_prob_probs_and_entropy():
    dist = Categorical(torch.tensor([[0.0, math.log(3.0)]] * 2))
    # softmax([0, log 3]) = [1, 3] / 4
    torch.testing.assert_close(dist.probs, torch.tensor([[0.25, 0.75]] * 2))
    torch.testing.assert_close(dist.log_prob(torch.tensor([0, 1])),
                               torch.tensor([math.log(0.25), math.log(0.75)]))
    # H = −(0.25 log 0.25 + 0.75 log 0.75) = 0.5623
    expected = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    torch.testing.assert_close(dist.entropy(), torch.tensor([expected] * 2))
    assert dist.mode().tolist() == [1, 1]


def test_categorical_samples_follow_the_probabilities():
    dist = Categorical(torch.tensor([[0.0, math.log(3.0)]]).expand(4000, 2))
    actions = dist.sample(_generator())
    assert actions.shape == (4000,) and actions.dtype == torch.long
    # P(a = 1) = 0.75; the binomial standard deviation of the mean is sqrt(0.75 · 0.25 / 4000)
    # = 0.007, so 0.03 is more than 4 of them
    assert actions.float().mean().item() == pytest.approx(0.75, abs=0.03)


def test_a_masked_action_has_probability_zero_and_is_never_sampled():
    logits = torch.tensor([[0.0, 5.0, 0.0]]).expand(1000, 3)
    dist = Categorical(logits, mask=torch.tensor([True, False, True]))
    # the two legal actions share the mass equally; the illegal one, with the largest logit,
    # gets none
    torch.testing.assert_close(dist.probs[0], torch.tensor([0.5, 0.0, 0.5]))
    actions = dist.sample(_generator())
    assert (actions != 1).all()
    assert set(actions.tolist()) == {0, 2}
    # H = log 2 over the legal actions, finite (finfo.min logits, not −inf)
    torch.testing.assert_close(dist.entropy(), torch.full((1000,), math.log(2.0)))
    assert dist.mode().unique().tolist() == [0]         # argmax over legal actions: first of ties
    torch.testing.assert_close(dist.log_prob(torch.zeros(1000, dtype=torch.long)),
                               torch.full((1000,), math.log(0.5)))


def test_a_per_row_mask():
    logits = torch.tensor([[3.0, 2.0, 1.0], [3.0, 2.0, 1.0]])
    mask = torch.tensor([[True, True, True], [False, True, True]])
    dist = Categorical(logits, mask=mask)
    assert dist.mode().tolist() == [0, 1]
    assert dist.probs[1, 0].item() == 0.0
    assert torch.isfinite(dist.entropy()).all()


def test_the_entropy_gradient_of_a_masked_distribution_is_finite():
    logits = torch.zeros(2, 3, requires_grad=True)
    Categorical(logits, mask=torch.tensor([True, True, False])).entropy().sum().backward()
    assert torch.isfinite(logits.grad).all()
    assert (logits.grad[:, 2] == 0).all()          # the masked logit gets no gradient


def test_a_row_with_no_legal_action_is_refused():
    logits = torch.zeros(3, 2)
    mask = torch.tensor([[True, False], [False, False], [True, True]])
    with pytest.raises(ValueError, match=r"no legal action in row\(s\) \[1\]"):
        Categorical(logits, mask=mask)
    with pytest.raises(ValueError, match="no legal action in row"):
        Categorical(logits, mask=torch.tensor([False, False]))


def test_categorical_input_checks_name_the_value():
    with pytest.raises(ValueError, match=r"mask must be a bool tensor .* got torch.int64"):
        Categorical(torch.zeros(1, 2), mask=torch.tensor([1, 0]))
    with pytest.raises(ValueError, match=r"mask must have shape \(1, 2\) or \(2,\), got \(3,\)"):
        Categorical(torch.zeros(1, 2), mask=torch.tensor([True, True, True]))
    with pytest.raises(ValueError, match=r"logits must be \(batch, n_actions\), got shape \(2,\)"):
        Categorical(torch.zeros(2))


def test_the_same_seed_gives_the_same_samples():
    logits = torch.randn(100, 5, generator=_generator(1))
    dist = Categorical(logits)
    first, again = dist.sample(_generator(7)), dist.sample(_generator(7))
    assert torch.equal(first, again)
    assert not torch.equal(first, dist.sample(_generator(8)))
    gaussian = DiagGaussian(torch.zeros(10, 2), torch.zeros(2))
    assert torch.equal(gaussian.sample(_generator(7)), gaussian.sample(_generator(7)))
    tanh = TanhGaussian(torch.zeros(10, 2), torch.zeros(2), [-1, -1], [1, 1])
    assert torch.equal(tanh.sample(_generator(7)), tanh.sample(_generator(7)))


# --- DiagGaussian -----------------------------------------------------------------------------

def test_diag_gaussian_log_prob_at_the_mean_and_entropy():
    mean = torch.tensor([[1.0, -2.0]])
    log_std = torch.tensor([0.0, math.log(2.0)])           # (d,), broadcast over the batch
    dist = DiagGaussian(mean, log_std)
    # log N(μ; μ, σ²) = −1/2 log 2π − log σ per dimension: −log 2π − (0 + log 2)
    torch.testing.assert_close(dist.log_prob(mean), torch.tensor([-LOG_2PI - math.log(2.0)]))
    # one standard deviation away in the second dimension adds −1/2
    torch.testing.assert_close(dist.log_prob(torch.tensor([[1.0, 0.0]])),
                               torch.tensor([-LOG_2PI - math.log(2.0) - 0.5]))
    assert torch.equal(dist.mode(), mean)


def test_the_entropy_of_a_standard_normal_in_d_dimensions():
    dist = DiagGaussian(torch.zeros(2, 3), torch.zeros(2, 3))
    # d/2 (1 + log 2π) with d = 3: 4.2568
    torch.testing.assert_close(dist.entropy(), torch.full((2,), 1.5 * (1 + LOG_2PI)))


def test_diag_gaussian_samples_have_its_moments():
    dist = DiagGaussian(torch.tensor([[3.0, -1.0]]).expand(20000, 2),
                        torch.tensor([math.log(0.5), math.log(2.0)]))
    actions = dist.sample(_generator())
    assert actions.shape == (20000, 2)
    # standard error of the mean: σ / sqrt(20000) <= 0.015
    torch.testing.assert_close(actions.mean(0), torch.tensor([3.0, -1.0]), atol=0.06, rtol=0)
    torch.testing.assert_close(actions.std(0), torch.tensor([0.5, 2.0]), atol=0.05, rtol=0)


def test_sample_has_no_gradient_and_rsample_has_one():
    mean = torch.zeros(4, 2, requires_grad=True)
    log_std = torch.zeros(2, requires_grad=True)
    dist = DiagGaussian(mean, log_std)
    assert not dist.sample(_generator()).requires_grad
    actions = dist.rsample(_generator())
    actions.sum().backward()
    # a = μ + σ ε: ∂a/∂μ = 1 per element; ∂a/∂log σ = σ ε summed over the batch
    torch.testing.assert_close(mean.grad, torch.ones(4, 2))
    torch.testing.assert_close(log_std.grad, actions.detach().sum(0))


def test_diag_gaussian_checks_the_shape_of_log_std():
    with pytest.raises(ValueError, match=r"log_std must have shape \(4, 2\) or \(2,\), got \(3,\)"):
        DiagGaussian(torch.zeros(4, 2), torch.zeros(3))


# --- TanhGaussian -----------------------------------------------------------------------------

def test_tanh_gaussian_log_prob_at_the_centre_of_the_box():
    dist = TanhGaussian(torch.zeros(1, 1), torch.zeros(1, 1), [-2.0], [2.0])
    # u = 0: log N(0; 0, 1) − log(1 − tanh(0)²) − log((2 − (−2)) / 2) = −1/2 log 2π − 0 − log 2
    expected = torch.tensor([-0.5 * LOG_2PI - math.log(2.0)])
    torch.testing.assert_close(dist.log_prob(torch.zeros(1, 1)), expected)
    torch.testing.assert_close(dist.mode(), torch.zeros(1, 1))


def test_tanh_gaussian_mode_is_the_squashed_mean_rescaled():
    dist = TanhGaussian(torch.tensor([[0.0, 100.0]]), torch.zeros(2), [0.0, -1.0], [4.0, 3.0])
    # a = low + (tanh(μ) + 1) / 2 (high − low): tanh(0) = 0 -> 2; tanh(100) = 1 -> 3
    torch.testing.assert_close(dist.mode(), torch.tensor([[2.0, 3.0]]))


def test_tanh_gaussian_samples_lie_in_the_box():
    low, high = np.array([-2.0, 0.0], np.float32), np.array([2.0, 0.5], np.float32)
    # σ = e² ≈ 7.4: most samples saturate, in float32 to the bound itself
    dist = TanhGaussian(torch.zeros(5000, 2), torch.full((2,), 2.0), low, high)
    actions = dist.sample(_generator())
    assert actions.shape == (5000, 2)
    assert (actions >= torch.from_numpy(low)).all() and (actions <= torch.from_numpy(high)).all()
    actions, log_prob = dist.rsample_with_log_prob(_generator())
    assert (actions >= torch.from_numpy(low)).all() and (actions <= torch.from_numpy(high)).all()
    assert torch.isfinite(log_prob).all()
    assert torch.isfinite(dist.log_prob(actions)).all()     # saturated actions included


def test_log_prob_of_given_actions_agrees_with_the_sampled_one():
    mean = torch.tensor([[0.3, -0.5, 1.0]]).expand(1000, 3)
    dist = TanhGaussian(mean, torch.tensor([-0.5, 0.0, -1.0]), [-1.0, -2.0, 0.0],
                        [1.0, 2.0, 10.0])
    actions, log_prob = dist.rsample_with_log_prob(_generator())
    # away from saturation atanh recovers u, so both routes give the same log π(a)
    unit = (actions - torch.tensor([0.0, 0.0, 5.0])) / torch.tensor([1.0, 2.0, 5.0])
    away = (unit.abs() < 0.99).all(dim=1)
    assert away.sum() > 900
    torch.testing.assert_close(dist.log_prob(actions)[away], log_prob[away], atol=1e-4,
                               rtol=1e-4)


def test_tanh_gaussian_density_integrates_to_one():
    # d = 1 on the Box [−1, 3], u ~ N(0.5, 1), in float64; trapezoid rule on a fine grid
    grid = torch.linspace(-1.0, 3.0, 40001, dtype=torch.float64)[1:-1].unsqueeze(1)
    mean = torch.full_like(grid, 0.5)
    density = TanhGaussian(mean, torch.zeros(1, dtype=torch.float64), [-1.0], [3.0]).log_prob(
        grid).exp()
    integral = torch.trapezoid(density, grid.squeeze(1)).item()
    assert integral == pytest.approx(1.0, abs=1e-3)


def test_gradients_flow_through_rsample_with_log_prob():
    mean = torch.tensor([[0.2, -0.3]], requires_grad=True)
    log_std = torch.tensor([-0.5, 0.1], requires_grad=True)
    dist = TanhGaussian(mean, log_std, [-1.0, -1.0], [1.0, 1.0])
    actions, log_prob = dist.rsample_with_log_prob(_generator())
    assert actions.requires_grad and log_prob.requires_grad
    (actions.sum() - log_prob.sum()).backward()              # SAC's actor: Q(a) − α log π(a)
    assert mean.grad is not None and (mean.grad != 0).all()
    assert log_std.grad is not None and (log_std.grad != 0).all()
    assert not dist.sample(_generator()).requires_grad


def test_tanh_gaussian_checks_the_bounds_shape():
    with pytest.raises(ValueError, match=r"low and high must have shape \(2,\), got \(3,\)"):
        TanhGaussian(torch.zeros(1, 2), torch.zeros(2), [-1.0] * 3, [1.0] * 3)


# --- helpers ----------------------------------------------------------------------------------

def test_box_scale():
    loc, scale = box_scale(np.array([-2.0, 0.0]), torch.tensor([2.0, 1.0]))
    # loc = (high + low) / 2, scale = (high − low) / 2
    torch.testing.assert_close(loc, torch.tensor([0.0, 0.5]))
    torch.testing.assert_close(scale, torch.tensor([2.0, 0.5]))
    assert box_scale([0.0], [1.0], dtype=torch.float64)[0].dtype == torch.float64


def test_check_bounded_box():
    check_bounded_box(spaces.Box(-2.0, 2.0, (1,)))
    unbounded = spaces.Box(np.array([-1.0, -np.inf], np.float32), np.ones(2, np.float32))
    with pytest.raises(ValueError, match=r"the action space Box\(.*\) has infinite bounds"):
        check_bounded_box(unbounded)
    with pytest.raises(ValueError, match=r"needs a Box action space .*, got Discrete\(3\)"):
        check_bounded_box(spaces.Discrete(3))

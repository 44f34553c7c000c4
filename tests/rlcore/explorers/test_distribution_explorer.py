"""DistributionExplorer and GaussianNoiseExplorer: sampling with their own generator, the mode
or the action itself in test mode, noise scale and bounds, warm-up."""

import numpy as np
import pytest
import torch

from rlcore import testmode
from rlcore.explorers import DistributionExplorer, GaussianNoiseExplorer
from rlzoo.policy_gradient.distributions import Categorical, DiagGaussian


def test_samples_follow_the_distribution_and_repeat_with_the_seed():
    logits = torch.log(torch.tensor([[0.25, 0.75]])).expand(4000, 2)
    actions = DistributionExplorer(seed=0)(Categorical(logits))
    assert actions.shape == (4000,) and actions.dtype == np.int64
    # P(1) = 0.75: the mean of 4,000 draws is within 4 standard errors (0.0068 each)
    assert abs(actions.mean() - 0.75) < 4 * np.sqrt(0.75 * 0.25 / 4000)
    again = DistributionExplorer(seed=0)(Categorical(logits))
    assert np.array_equal(actions, again)


def test_test_mode_takes_the_mode():
    explorer = DistributionExplorer(seed=0)
    gaussian = DiagGaussian(torch.tensor([[0.5, -1.0]]), torch.zeros(2))
    with testmode(explorer):
        assert explorer(gaussian).tolist() == [[0.5, -1.0]]
        assert explorer(Categorical(torch.tensor([[0.0, 1.0, 3.0]]))).tolist() == [2]
    assert explorer(gaussian).tolist() != [[0.5, -1.0]]  # back to sampling


def test_prob_of_a_categorical_and_refusals():
    explorer = DistributionExplorer(seed=0)
    probs = explorer.prob(Categorical(torch.log(torch.tensor([[0.25, 0.75]]))))
    np.testing.assert_allclose(probs, [[0.25, 0.75]], rtol=1e-6)
    with pytest.raises(TypeError, match="no action probabilities"):
        explorer.prob(DiagGaussian(torch.zeros(1, 1), torch.zeros(1)))
    with pytest.raises(TypeError, match="no mask"):
        explorer(Categorical(torch.zeros(1, 2)), np.ones(2, bool))


def test_gaussian_noise_has_the_scale_of_the_half_range_and_stays_in_bounds():
    explorer = GaussianNoiseExplorer(low=[-2.0], high=[2.0], std=0.1, seed=0)
    actions = explorer(torch.zeros(20_000, 1))
    # σ = 0.1 · (2 − (−2)) / 2 = 0.2
    assert actions.std() == pytest.approx(0.2, rel=0.03)
    assert explorer.step == 20_000
    edge = explorer(torch.full((1000, 1), 2.0))
    assert edge.max() <= 2.0 and (edge == 2.0).mean() == pytest.approx(0.5, abs=0.06)


def test_warmup_draws_uniformly_then_test_mode_returns_the_action():
    explorer = GaussianNoiseExplorer(low=[-1.0, 0.0], high=[1.0, 4.0], warmup_steps=1000,
                                     seed=0)
    actions = explorer(torch.zeros(1000, 2))
    assert actions.min(axis=0).tolist() >= [-1.0, 0.0] and actions.max(axis=0).tolist() <= [
        1.0, 4.0]
    np.testing.assert_allclose(actions.mean(axis=0), [0.0, 2.0], atol=0.15)
    with testmode(explorer):
        np.testing.assert_allclose(explorer(torch.tensor([[0.3, 1.5]])), [[0.3, 1.5]])
    assert explorer.step == 1000  # test mode does not count


@pytest.mark.parametrize("low, high", [([0.0], [0.0]), ([-np.inf], [1.0]), ([0.0], [1.0, 2.0])])
def test_gaussian_noise_refuses_bad_bounds(low, high):
    with pytest.raises(ValueError, match="low and high"):
        GaussianNoiseExplorer(low=low, high=high)

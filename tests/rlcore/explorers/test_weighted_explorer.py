import numpy as np
import pytest
import torch

from rlcore.explorers.weighted_explorer import WeightedExplorer, WeightedSoftmaxExplorer


def test_weighted_frequencies_match_normalised_weights(assert_frequencies):
    explorer = WeightedExplorer(seed=0)
    weights = [1.0, 0.0, 3.0, 4.0]
    probs = explorer.prob(weights)
    np.testing.assert_allclose(probs, [0.125, 0.0, 0.375, 0.5])
    freqs = assert_frequencies(lambda: explorer(weights), probs)
    assert freqs[1] == 0  # zero weight: never chosen


def test_weighted_mask_and_normalized(assert_frequencies):
    explorer = WeightedExplorer(seed=1)
    weights = np.array([0.2, 0.5, 0.3])
    mask = [True, False, True]
    probs = explorer.prob(weights, mask)
    np.testing.assert_allclose(probs, [0.4, 0.0, 0.6])
    assert_frequencies(lambda: explorer(weights, mask), probs)
    normalized = WeightedExplorer(is_normalized=True, seed=1)
    np.testing.assert_allclose(normalized.prob(weights), weights)  # returned as given
    assert_frequencies(lambda: normalized(torch.tensor(weights)), weights)


def test_weighted_bad_weights_raise():
    explorer = WeightedExplorer(seed=0)
    with pytest.raises(ValueError, match="weights >= 0"):
        explorer([0.5, -0.1])
    with pytest.raises(ValueError, match="sum to 0"):
        explorer([0.0, 1.0], [True, False])
    with pytest.raises(ValueError, match="weights >= 0"):
        explorer([np.nan, 1.0])


def test_weighted_softmax_frequencies_and_mask(assert_frequencies):
    explorer = WeightedSoftmaxExplorer(seed=2)
    values = np.array([0.0, 1.0, 2.0])
    e = np.exp(values - 2.0)
    np.testing.assert_allclose(explorer.prob(values), e / e.sum())
    assert_frequencies(lambda: explorer(values), e / e.sum())
    mask = [False, True, True]
    probs = explorer.prob(values, mask)
    np.testing.assert_allclose(probs, [0.0, e[1] / e[1:].sum(), e[2] / e[1:].sum()])
    assert_frequencies(lambda: explorer(values, mask), probs)


def test_test_mode_keeps_sampling_and_seed_reproduces():
    for cls in (WeightedExplorer, WeightedSoftmaxExplorer):
        explorer = cls(is_training=False, seed=3)
        assert {explorer([1.0, 1.0]) for _ in range(100)} == {0, 1}
        a, b = cls(seed=4), cls(seed=4)
        assert [a([1.0, 2.0, 3.0]) for _ in range(50)] == [b([1.0, 2.0, 3.0]) for _ in range(50)]

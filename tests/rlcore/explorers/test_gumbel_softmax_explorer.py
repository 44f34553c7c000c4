import numpy as np
import pytest
import torch

from rlcore.explorers.gumbel_softmax_explorer import GumbelSoftmaxExplorer


def softmax(x):
    e = np.exp(np.asarray(x) - np.max(x))
    return e / e.sum()


def test_frequencies_match_softmax(assert_frequencies):
    explorer = GumbelSoftmaxExplorer(seed=0)
    values = [1.0, 0.0, 2.0, -1.0]
    np.testing.assert_allclose(explorer.prob(values), softmax(values))
    assert_frequencies(lambda: explorer(values), softmax(values))


def test_mask(assert_frequencies):
    explorer = GumbelSoftmaxExplorer(seed=1)
    values = torch.tensor([1.0, 5.0, 0.0])
    mask = np.array([True, False, True])
    probs = explorer.prob(values, mask)
    np.testing.assert_allclose(probs, [softmax([1.0, 0.0])[0], 0.0, softmax([1.0, 0.0])[1]])
    assert_frequencies(lambda: explorer(values, mask), probs)


def test_test_mode_keeps_sampling_and_seed_reproduces():
    explorer = GumbelSoftmaxExplorer(is_training=False, seed=2)
    assert {explorer([0.0, 0.0]) for _ in range(100)} == {0, 1}
    a = GumbelSoftmaxExplorer(seed=3)
    b = GumbelSoftmaxExplorer(seed=3)
    assert [a([0.0, 0.5, 1.0]) for _ in range(50)] == [b([0.0, 0.5, 1.0]) for _ in range(50)]


def test_bad_input_raises():
    explorer = GumbelSoftmaxExplorer(seed=0)
    with pytest.raises(ValueError, match="allows no action"):
        explorer([0.0, 1.0], [False, False])
    with pytest.raises(ValueError, match="finite"):
        explorer([-np.inf, -np.inf])

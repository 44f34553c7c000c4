import numpy as np
import pytest
import torch

from rlcore.explorers.batch_explorer import BatchExplorer
from rlcore.explorers.epsilon_greedy_explorer import EpsilonGreedyExplorer, GreedyExplorer
from rlcore.explorers.weighted_explorer import WeightedSoftmaxExplorer


def test_shapes_and_rowwise_choice():
    explorer = BatchExplorer(GreedyExplorer(seed=0))
    values = np.array([[0.0, 1.0, 2.0], [5.0, 1.0, 2.0]])
    actions = explorer(values)
    assert actions.shape == (2,) and actions.dtype == np.int64
    assert actions.tolist() == [2, 0]
    mask = np.array([[True, True, False], [False, True, True]])
    assert explorer(values, mask).tolist() == [1, 2]
    probs = explorer.prob(values, mask)
    assert probs.shape == (2, 3)
    np.testing.assert_allclose(probs, [[0, 1, 0], [0, 0, 1]])
    assert explorer(torch.tensor(values)).tolist() == [2, 0]
    assert explorer(values[0]) == 2  # 1-D goes straight to the inner explorer


def test_each_row_advances_the_inner_schedule_and_test_mode_is_shared():
    inner = EpsilonGreedyExplorer(epsilon_stable=0.1, decay_steps=100, seed=1)
    explorer = BatchExplorer(inner)
    explorer(np.zeros((4, 2)))
    assert inner.step == 5
    explorer.is_training = False
    assert inner.is_training is False
    explorer(np.zeros((4, 2)))
    assert inner.step == 5


def test_rows_follow_the_inner_distribution(assert_frequencies):
    explorer = BatchExplorer(WeightedSoftmaxExplorer(seed=2))
    values = np.array([[0.0, 1.0]] * 1000)
    probs = explorer.prob(values)[0]
    batches = iter(explorer(values) for _ in range(20))
    flat = iter(np.concatenate(list(batches)).tolist())
    assert_frequencies(lambda: next(flat), probs, n=20_000)


def test_bad_shapes_raise():
    explorer = BatchExplorer(GreedyExplorer())
    with pytest.raises(ValueError, match="mask shape"):
        explorer(np.zeros((2, 3)), np.ones((3, 2), dtype=bool))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        explorer(np.zeros((2, 3, 4)))
    with pytest.raises(TypeError):
        BatchExplorer(object())

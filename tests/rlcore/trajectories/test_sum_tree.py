"""Tests of rlcore/trajectories/sum_tree.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlcore.trajectories.sum_tree import SumTree


def _chi_square(counts, probabilities):
    expected = counts.sum() * probabilities
    return float(((counts - expected) ** 2 / expected).sum())


def test_sampling_frequencies_follow_priorities():
    priorities = np.array([1.0, 2.0, 0.0, 4.0, 0.5, 2.5, 0.0])
    tree = SumTree(7)
    for p in priorities:
        tree.push(p)
    assert tree.total == pytest.approx(priorities.sum())
    n = 200_000
    indices, drawn = tree.sample(np.random.default_rng(0), n)
    assert indices.dtype == np.int64 and indices.shape == (n,)
    np.testing.assert_array_equal(drawn, priorities[indices])
    counts = np.bincount(indices, minlength=7)
    assert counts[2] == 0 and counts[6] == 0  # zero priorities are never drawn
    nonzero = priorities > 0
    # 4 degrees of freedom: P(chi2 > 18.47) = 0.001, so a correct sampler fails 1 seed in 1000
    assert _chi_square(counts[nonzero], priorities[nonzero] / priorities.sum()) < 18.47


def _chi_square_critical(dof, z=4.753):
    """Wilson-Hilferty approximation of the chi-square quantile at standard-normal ``z``
    (4.753: one-sided tail 1e-6)."""
    return dof * (1 - 2 / (9 * dof) + z * np.sqrt(2 / (9 * dof))) ** 3


@settings(max_examples=30, deadline=None, derandomize=True)
@given(priorities=st.lists(st.floats(0.05, 20.0), min_size=2, max_size=40),
       capacity=st.integers(2, 16), seed=st.integers(0, 2**16))
def test_sampling_frequencies_follow_any_priorities(priorities, capacity, seed):
    # The tree keeps the last ``capacity`` pushes (wrap-around included); 40,000 seeded draws are
    # compared with priority / total by a chi-square test at a 1e-6 tail (derandomized examples,
    # so the test is repeatable).
    tree = SumTree(capacity)
    for p in priorities:
        tree.push(p)
    held = np.array(priorities[-capacity:])
    assert tree.total == pytest.approx(held.sum())
    indices, drawn = tree.sample(np.random.default_rng(seed), 40_000)
    np.testing.assert_allclose(drawn, held[indices])
    counts = np.bincount(indices, minlength=len(held))
    assert _chi_square(counts, held / held.sum()) < _chi_square_critical(len(held) - 1)


def test_update_and_wraparound():
    tree = SumTree(4)
    for p in (1.0, 1.0, 1.0, 1.0, 5.0):  # the 5 overwrites the oldest
        tree.push(p)
    assert len(tree) == 4 and tree.isfull and tree.total == 8.0
    assert tree.to_array().tolist() == [1.0, 1.0, 1.0, 5.0]
    assert tree.max_priority == 5.0
    tree.update(np.array([0, 2, 2]), np.array([3.0, 9.0, 0.0]))  # the last duplicate wins
    assert tree.to_array().tolist() == [3.0, 1.0, 0.0, 5.0]
    assert tree.total == 9.0 and tree.max_priority == 9.0
    tree[-1] = 2.0
    assert tree.total == 6.0
    indices, _ = tree.sample(np.random.default_rng(1), 5000)
    assert set(indices.tolist()) == {0, 1, 3}
    assert tree.pop() == 2.0 and tree.total == 4.0 and len(tree) == 3
    tree.clear()
    assert tree.total == 0.0 and len(tree) == 0


def test_bad_input():
    tree = SumTree(3)
    with pytest.raises(ValueError, match="cannot sample"):
        tree.sample(np.random.default_rng(0), 1)
    tree.push(0.0)
    with pytest.raises(ValueError, match="total 0"):
        tree.sample(np.random.default_rng(0), 1)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite and >= 0"):
            tree.push(bad)
    with pytest.raises(TypeError):
        tree.push("high")
    with pytest.raises(ValueError, match="finite and >= 0"):
        tree.update([0], [-2.0])
    with pytest.raises(IndexError):
        tree.update([3], [1.0])
    with pytest.raises(ValueError, match="2 priorities"):
        tree.update([0], [1.0, 2.0])
    assert len(tree) == 1 and tree.total == 0.0


def test_capacity_one_and_non_power_of_two():
    tree = SumTree(1)
    tree.push(2.0)
    tree.push(3.0)
    assert tree.total == 3.0
    indices, drawn = tree.sample(np.random.default_rng(0), 3)
    assert indices.tolist() == [0, 0, 0] and drawn.tolist() == [3.0] * 3
    tree = SumTree(5)
    for p in range(1, 6):
        tree.push(float(p))
    indices, _ = tree.sample(np.random.default_rng(0), 1000)
    assert indices.min() >= 0 and indices.max() <= 4


@settings(max_examples=100, deadline=None)
@given(capacity=st.integers(1, 9),
       ops=st.lists(st.tuples(st.booleans(), st.integers(0, 8), st.floats(0, 100)), max_size=60))
def test_total_and_leaves_match_a_list_model(capacity, ops):
    tree = SumTree(capacity)
    model = []
    for is_push, index, priority in ops:
        if is_push or not model:
            tree.push(priority)
            model.append(priority)
            model = model[-capacity:]
        else:
            i = index % len(model)
            tree.update([i], [priority])
            model[i] = priority
        assert tree.to_array().tolist() == model
        assert tree.total == pytest.approx(sum(model), rel=1e-9, abs=1e-9)


# --- extend: several priorities at once ---------------------------------------------------------

def test_extend_equals_pushes_and_wraps():
    extended, pushed = SumTree(5), SumTree(5)
    for chunk in ([1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0]):
        extended.extend(np.array(chunk))
        for p in chunk:
            pushed.push(p)
    # 7 priorities through a ring of 5: 3..7 remain, total 3 + 4 + 5 + 6 + 7 = 25
    assert extended.to_array().tolist() == pushed.to_array().tolist() == [3, 4, 5, 6, 7]
    assert extended.total == pushed.total == 25.0
    np.testing.assert_array_equal(extended.tree, pushed.tree)  # every internal sum too
    assert (extended.first_index, extended.end_index) == (2, 7)
    assert extended.max_priority == 7.0
    indices, priorities = extended.sample(np.random.default_rng(0), 100)
    np.testing.assert_array_equal(priorities, np.array([3, 4, 5, 6, 7.0])[indices])
    extended.extend([])
    assert extended.end_index == 7


def test_extend_validates_before_writing():
    tree = SumTree(3)
    tree.push(1.0)
    with pytest.raises(ValueError, match="finite and >= 0, got -1.0"):
        tree.extend(np.array([2.0, -1.0]))
    with pytest.raises(ValueError, match="finite and >= 0, got nan"):
        tree.extend([np.nan])
    with pytest.raises(ValueError, match="capacity 3 by 4 priorities"):
        tree.extend(np.ones(4))
    with pytest.raises(TypeError, match="1-D array of real numbers"):
        tree.extend(np.ones((2, 1)))
    with pytest.raises(TypeError, match="1-D array of real numbers"):
        tree.extend(np.array([True]))
    assert tree.to_array().tolist() == [1.0] and tree.total == 1.0 and tree.end_index == 1

import math

import numpy as np
import pytest

from rlcore.explorers.ucb_explorer import UCBExplorer


def test_untried_actions_come_first_then_counts_add_up():
    explorer = UCBExplorer(4, seed=0)
    values = [10.0, 0.0, 0.0, 0.0]  # a large value does not stop the others being tried first
    first = [explorer(values) for _ in range(4)]
    assert sorted(first) == [0, 1, 2, 3]
    assert explorer.action_counts.tolist() == [1, 1, 1, 1]
    assert explorer.step == 5
    for _ in range(20):
        explorer(values)
    assert explorer.action_counts.sum() == 24
    assert explorer.step == 25


def test_choice_matches_the_hand_computed_bound():
    explorer = UCBExplorer(3, c=2.0, step=9, seed=0)
    explorer.action_counts[:] = [5, 1, 3]
    values = [1.0, 0.0, 0.5]
    # bound_a = Q_a + 2 sqrt(ln(10) / N_a)
    bounds = [q + 2 * math.sqrt(math.log(10) / n) for q, n in zip(values, [5, 1, 3])]
    expected = int(np.argmax(bounds))
    assert expected == 1
    np.testing.assert_allclose(explorer.prob(values), np.eye(3)[expected])
    assert explorer(values) == expected
    assert explorer.action_counts.tolist() == [5, 2, 3]
    assert explorer.step == 10


def test_c_zero_is_greedy_after_trying_everything():
    explorer = UCBExplorer(3, c=0.0, seed=1)
    values = [0.0, 1.0, 0.5]
    for _ in range(3):
        explorer(values)
    assert {explorer(values) for _ in range(50)} == {1}


def test_mask_is_respected():
    explorer = UCBExplorer(3, seed=2)
    mask = [True, False, True]
    actions = [explorer([0.0, 9.0, 0.0], mask) for _ in range(50)]
    assert 1 not in actions
    assert explorer.action_counts[1] == 0
    assert explorer.prob([0.0, 9.0, 0.0], mask)[1] == 0


def test_test_mode_is_greedy_on_values_and_freezes_counts():
    explorer = UCBExplorer(3, seed=3)
    explorer.is_training = False
    assert {explorer([0.0, 2.0, 1.0]) for _ in range(20)} == {1}
    assert explorer.action_counts.tolist() == [0, 0, 0]
    assert explorer.step == 1
    np.testing.assert_allclose(explorer.prob([0.0, 2.0, 1.0]), [0, 1, 0])


def test_untried_ties_share_the_probability():
    explorer = UCBExplorer(3, seed=4)
    explorer.action_counts[:] = [0, 2, 0]
    np.testing.assert_allclose(explorer.prob([0.0, 5.0, 0.0]), [0.5, 0, 0.5])


def test_reproducible_and_resettable():
    def run(seed):
        explorer = UCBExplorer(5, seed=seed)
        return [explorer([0.0] * 5) for _ in range(30)]
    assert run(0) == run(0)
    explorer = UCBExplorer(2, seed=0)
    explorer([0.0, 0.0])
    explorer.reset()
    assert explorer.action_counts.tolist() == [0, 0] and explorer.step == 1


def test_bad_input_raises():
    with pytest.raises(ValueError, match="n_actions.*0"):
        UCBExplorer(0)
    with pytest.raises(ValueError, match="c .*-1"):
        UCBExplorer(2, c=-1.0)
    with pytest.raises(ValueError, match="n_actions=2.*3 values"):
        UCBExplorer(2)([0.0, 1.0, 2.0])

import numpy as np
import pytest
import torch

from rlcore.approximators.tabular_approximator import (InvDecay, TabularQApproximator,
                                                       TabularVApproximator)
from rlcore.dispatch import update


def test_v_update_matches_hand_computation():
    V = TabularVApproximator(n_state=4, init=1.0, alpha=0.1)
    assert V.table.tolist() == [1.0] * 4
    update(V, (2, 3.0))            # 1 + 0.1 · 3
    update(V, (2, -1.0))           # 1.3 − 0.1
    update(V, (np.int64(0), 0.5))  # numpy integers are fine
    assert V(2) == pytest.approx(1.2)
    assert V(0) == pytest.approx(1.05)
    assert V(1) == V(3) == 1.0


def test_v_td0_converges_to_the_analytic_values():
    # Deterministic chain 0 -> 1 -> 2 -> end, rewards 1, 2, 3, no discount:
    # V = [6, 5, 3]; TD(0) with a constant step converges to it.
    V = TabularVApproximator(n_state=3, alpha=0.5)
    for _ in range(200):
        for s, r in ((0, 1.0), (1, 2.0), (2, 3.0)):
            target = r + (V(s + 1) if s < 2 else 0.0)
            update(V, (s, target - V(s)))
    np.testing.assert_allclose(V.table, [6.0, 5.0, 3.0], atol=1e-8)


def test_inv_decay_gives_sample_averages():
    V = TabularVApproximator(n_state=2, alpha=InvDecay())
    samples = [4.0, 1.0, 7.0, 2.0]
    for x in samples:
        update(V, (1, x - V(1)))
    assert V(1) == pytest.approx(np.mean(samples))
    assert V.counts.tolist() == [0, 4]
    half = InvDecay(gamma=0.5)
    assert [half(n) for n in (1, 2, 3)] == [1.0, 1 / 1.5, 0.5]


@pytest.mark.parametrize("state, error, fragment", [
    (1.5, TypeError, "1.5"),
    (np.array([1, 2]), TypeError, "state"),
    ("a", TypeError, "'a'"),
    (True, TypeError, "True"),
    (4, ValueError, r"\[0, 4\).*4"),
    (-1, ValueError, "-1"),
])
def test_invalid_states_raise_and_change_nothing(state, error, fragment):
    V = TabularVApproximator(n_state=4)
    Q = TabularQApproximator(n_state=4, n_action=2)
    with pytest.raises(error, match=fragment):
        V(state)
    with pytest.raises(error, match="n_state=4"):
        update(V, (state, 1.0))
    with pytest.raises(error, match="n_state=4"):
        update(Q, (state, 0, 1.0))
    with pytest.raises(error, match="n_state=4"):
        Q(state)
    assert not V.table.any() and not Q.table.any()


def test_bad_corrections_raise_and_change_nothing():
    V = TabularVApproximator(n_state=2)
    with pytest.raises(ValueError, match="nan"):
        update(V, (0, float("nan")))
    with pytest.raises(TypeError, match="state, delta"):
        update(V, (0, 1.0, 2.0))
    assert not V.table.any()


def test_q_reads_and_updates():
    Q = TabularQApproximator(n_state=3, n_action=2, init=0.5, alpha=0.2)
    update(Q, (1, 0, 2.0))                      # 0.5 + 0.2 · 2
    assert Q(1, 0) == pytest.approx(0.9)
    row = Q(1)
    np.testing.assert_allclose(row, [0.9, 0.5])
    row[:] = 0                                   # a copy: the table is not touched
    assert Q(1, 0) == pytest.approx(0.9)
    update(Q, (2, np.array([1.0, -1.0])))        # a whole row
    np.testing.assert_allclose(Q(2), [0.7, 0.3])
    update(Q, (0, 1, torch.tensor(1.0)))         # 0-d tensors are real numbers too
    assert Q(0, 1) == pytest.approx(0.7)
    assert Q.table.shape == (3, 2)


def test_q_invalid_actions_and_parameters():
    Q = TabularQApproximator(n_state=3, n_action=2)
    with pytest.raises(ValueError, match="action.*2"):
        Q(0, 2)
    with pytest.raises(TypeError, match="action"):
        update(Q, (0, 0.5, 1.0))
    with pytest.raises(ValueError, match="deltas"):
        update(Q, (0, [1.0, 2.0, 3.0]))
    assert not Q.table.any()
    with pytest.raises(ValueError, match="alpha.*1.5"):
        TabularQApproximator(n_state=3, n_action=2, alpha=1.5)
    with pytest.raises(ValueError, match="n_action.*0"):
        TabularQApproximator(n_state=3, n_action=0)
    with pytest.raises(ValueError, match="n_state.*2.5"):
        TabularVApproximator(n_state=2.5)


def test_a_bad_schedule_value_changes_neither_table_nor_counts():
    Q = TabularQApproximator(n_state=2, n_action=2, alpha=lambda n: 1.0 if n == 1 else 2.0)
    update(Q, (0, 1, 1.0))
    table, counts = Q.table.copy(), Q.counts.copy()
    with pytest.raises(ValueError, match="alpha=2.0 for update 2"):
        update(Q, (0, 1, 1.0))
    with pytest.raises(ValueError, match="alpha=2.0"):
        update(Q, (0, [1.0, 1.0]))
    np.testing.assert_array_equal(Q.table, table)
    np.testing.assert_array_equal(Q.counts, counts)

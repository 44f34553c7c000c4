"""Tests of rlcore/trajectories/buffers.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlcore.trajectories.buffers import (
    CircularArrayBuffer, ElasticArrayBuffer, VectorBuffer, ring_logical, ring_row, ring_rows,
)

# --- CircularArrayBuffer against a Python list model ----------------------------------------

_ops = st.lists(
    st.one_of(
        st.tuples(st.just("push"), st.integers(-1000, 1000)),
        st.tuples(st.just("pop"), st.none()),
        st.tuples(st.just("clear"), st.none()),
        st.tuples(st.just("set_last"), st.integers(-1000, 1000)),
    ),
    max_size=80,
)


@settings(max_examples=300, deadline=None)
@given(capacity=st.integers(1, 7), ops=_ops, probe=st.lists(st.integers(-10, 10), max_size=6))
def test_circular_buffer_matches_list_model(capacity, ops, probe):
    buffer = CircularArrayBuffer(capacity, shape=(2,), dtype=np.int64)
    model = []
    pushed = 0  # stream position one past the newest
    for op, value in ops:
        if op == "push":
            buffer.push(np.array([value, -value]))
            model.append(value)
            pushed += 1
            if len(model) > capacity:
                model.pop(0)
        elif op == "pop":
            if model:
                assert buffer.pop().tolist() == [model[-1], -model[-1]]
                model.pop()
                pushed -= 1
            else:
                with pytest.raises(IndexError):
                    buffer.pop()
        elif op == "clear":
            buffer.clear()
            model.clear()
            pushed = 0
        elif op == "set_last" and model:
            buffer[-1] = np.array([value, -value])
            model[-1] = value
        assert len(buffer) == len(model)
        assert buffer.isfull == (len(model) == capacity)
        assert buffer.end_index == pushed
        assert buffer.first_index == pushed - len(model)
        assert buffer.to_array()[:, 0].tolist() == model
    n = len(model)
    for i in probe:
        if -n <= i < n:
            assert buffer[i][0] == model[i]
        else:
            with pytest.raises(IndexError):
                buffer[i]
    valid = [i for i in probe if -n <= i < n]
    assert buffer[np.array(valid, dtype=np.int64)][:, 0].tolist() == [model[i] for i in valid]
    assert buffer.data[buffer.physical(np.array(valid, dtype=np.int64))][:, 0].tolist() == \
        [model[i] for i in valid]
    assert buffer[1:-1][:, 0].tolist() == model[1:-1]
    assert buffer[::-2][:, 0].tolist() == model[::-2]


def test_circular_buffer_basics():
    b = CircularArrayBuffer(3)
    assert b.data.shape == (3,) and b.data.dtype == np.float32
    for x in (1, 2.5, np.float64(3), 4):
        b.push(x)
    assert b.to_array().tolist() == [2.5, 3.0, 4.0]
    assert b.isfull and len(b) == 3 and b.capacity == 3
    assert float(b[0]) == 2.5 and float(b[-1]) == 4.0
    assert b.physical(0) == 1  # the oldest now sits in row 1
    b[-1] = 7
    assert float(b.pop()) == 7.0 and len(b) == 2 and not b.isfull
    b.push(8)
    assert b.to_array().tolist() == [2.5, 3.0, 8.0]
    assert np.asarray(b).tolist() == [2.5, 3.0, 8.0]
    b.clear()
    assert len(b) == 0 and b.to_array().shape == (0,)


def test_circular_buffer_rejects_bad_values_and_is_unchanged():
    actions = CircularArrayBuffer(4, dtype=np.int64)
    actions.push(1)
    actions.push(2)
    before = (actions.to_array().copy(), len(actions), actions.end_index)
    with pytest.raises(TypeError, match=r"1\.5.*int64"):
        actions.push(1.5)
    with pytest.raises(TypeError, match="int64"):
        actions.push(np.float32(1.0))
    with pytest.raises(ValueError, match=r"shape \(2,\).*\(\)"):
        actions.push(np.array([1, 2]))
    with pytest.raises(TypeError):
        actions.push("left")
    assert (actions.to_array().tolist(), len(actions), actions.end_index) == \
        (before[0].tolist(), before[1], before[2])

    states = CircularArrayBuffer(2, shape=(4,), dtype=np.float32)
    with pytest.raises(ValueError, match=r"shape \(3,\).*\(4,\).*float32"):
        states.push(np.zeros(3))
    with pytest.raises(ValueError, match=r"shape \(\)"):
        states.push(1.0)
    states.push(np.zeros(4, np.float64))  # float64 -> float32 is a same_kind cast
    states.push([1, 2, 3, 4])             # ints into floats are fine
    assert states.to_array().tolist() == [[0, 0, 0, 0], [1, 2, 3, 4]]

    flags = CircularArrayBuffer(2, dtype=bool)
    with pytest.raises(TypeError, match="bool"):
        flags.push(1.0)
    flags.push(np.bool_(True))
    flags.push(False)
    assert flags.to_array().tolist() == [True, False]


def test_circular_buffer_validation_of_constructor_and_indices():
    with pytest.raises(ValueError, match="capacity"):
        CircularArrayBuffer(0)
    with pytest.raises(TypeError, match="VectorBuffer"):
        CircularArrayBuffer(3, dtype=object)
    b = CircularArrayBuffer(3)
    b.push(1.0)
    with pytest.raises(IndexError, match="index 1"):
        b[1]
    with pytest.raises(IndexError):
        b[np.array([0, 5])]
    with pytest.raises(IndexError):
        b[0.5]
    with pytest.raises(TypeError):
        b[0] = 1 + 2j


def test_elastic_buffer_grows_and_validates():
    b = ElasticArrayBuffer(shape=(2,), dtype=np.int32, initial_capacity=2)
    for i in range(100):
        b.push(np.array([i, i]))
    assert len(b) == 100 and not b.isfull and len(b.data) >= 100
    assert b[-1].tolist() == [99, 99] and b[10:12][:, 0].tolist() == [10, 11]
    assert b.pop().tolist() == [99, 99] and len(b) == 99
    with pytest.raises(TypeError):
        b.push(np.array([0.5, 1.0]))
    with pytest.raises(ValueError):
        b.push(np.zeros(3, np.int32))
    assert len(b) == 99 and b.end_index == 99 and b.first_index == 0
    assert b.to_array().shape == (99, 2)
    assert b.dummy().tolist() == [0, 0]
    b.clear()
    assert len(b) == 0


def test_vector_buffer_holds_any_object():
    b = VectorBuffer()
    b.push("a")
    b.push((1, 2))
    b.push(None)
    assert len(b) == 3 and b[0] == "a" and b[-2] == (1, 2) and b[1:] == [(1, 2), None]
    assert b.pop() is None
    b[0] = "b"
    assert b[0] == "b" and not b.isfull
    assert b.gather(np.array([0, 0])).tolist() == ["b", "b"]
    numbers = VectorBuffer()
    numbers.push(3)
    assert numbers.dummy() == 0
    assert VectorBuffer(dummy=-1).dummy() == -1
    b.clear()
    assert len(b) == 0 and b.end_index == 0


def test_push_speed_is_reasonable():
    """Generous bounds (the measured figures are in the report): push stays a fast path."""
    import timeit

    scalars = CircularArrayBuffer(1000)
    arrays = CircularArrayBuffer(1000, shape=(4,))
    x = np.ones(4, np.float32)
    n = 20000
    scalar_us = min(timeit.repeat(lambda: scalars.push(1.0), number=n, repeat=3)) / n * 1e6
    array_us = min(timeit.repeat(lambda: arrays.push(x), number=n, repeat=3)) / n * 1e6
    assert scalar_us < 10 and array_us < 20


# --- the ring index arithmetic and batched pushes ----------------------------------------------

def test_ring_arithmetic():
    # a ring of 5 rows starting at row 3: logical 0, 1, 2, 3, 4 live in rows 3, 4, 0, 1, 2
    assert [ring_row(3, i, 5) for i in range(6)] == [3, 4, 0, 1, 2, 3]
    indices = np.arange(5)
    assert ring_rows(3, indices, 5).tolist() == [3, 4, 0, 1, 2]
    assert indices.tolist() == [0, 1, 2, 3, 4]  # a new array: the input is untouched
    assert ring_logical(3, np.array([3, 4, 0, 1, 2]), 5).tolist() == [0, 1, 2, 3, 4]
    assert ring_rows(0, np.array([0, 4]), 5).tolist() == [0, 4]


def test_extend_writes_rows_like_pushes_and_wraps():
    b = CircularArrayBuffer(4, shape=(2,), dtype=np.int64)
    for i in range(3):
        b.push(np.full(2, i))
    b.extend(np.array([[3, 3], [4, 4], [5, 5]]))
    # 6 elements through a ring of 4: the newest four, 2..5, the oldest (0, 1) overwritten
    assert b.to_array()[:, 0].tolist() == [2, 3, 4, 5]
    assert (len(b), b.first_index, b.end_index, b.isfull) == (4, 2, 6, True)
    assert b.data[:, 0].tolist() == [4, 5, 2, 3]  # rows 0, 1 rewritten: the ring starts at 2
    b.extend(np.zeros((0, 2), np.int64))  # nothing
    assert b.end_index == 6
    b.extend([[6, 6], [7, 7], [8, 8], [9, 9]])  # a full capacity at once, lists welcome
    assert b.to_array()[:, 0].tolist() == [6, 7, 8, 9] and b.first_index == 6
    assert b.pop().tolist() == [9, 9] and b[-1].tolist() == [8, 8]


@settings(max_examples=200, deadline=None)
@given(capacity=st.integers(1, 6), chunks=st.lists(st.integers(0, 6), max_size=12))
def test_extend_equals_pushing_one_by_one(capacity, chunks):
    extended = CircularArrayBuffer(capacity, dtype=np.int64)
    pushed = CircularArrayBuffer(capacity, dtype=np.int64)
    value = 0
    for k in chunks:
        k = min(k, capacity)
        rows = np.arange(value, value + k)
        extended.extend(rows)
        for x in rows:
            pushed.push(x)
        value += k
        assert extended.to_array().tolist() == pushed.to_array().tolist()
        assert (extended.first_index, extended.end_index) == (pushed.first_index,
                                                              pushed.end_index)


def test_extend_validates_before_writing():
    b = CircularArrayBuffer(3, shape=(2,), dtype=np.int64)
    b.push(np.array([1, 1]))
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*expected shape \(k, \*\(2,\)\)"):
        b.extend(np.zeros((2, 3), np.int64))
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        b.extend(np.array([1, 2]))  # one element, not a row of them
    with pytest.raises(TypeError, match="float64.*not a 'same_kind' cast"):
        b.extend(np.full((2, 2), 0.5))
    with pytest.raises(ValueError, match="capacity 3 by 4 rows at once"):
        b.extend(np.zeros((4, 2), np.int64))
    assert b.to_array().tolist() == [[1, 1]] and b.end_index == 1
    f = CircularArrayBuffer(3)
    f.extend(np.array([1, 2]))  # int into float32: a same_kind cast
    assert f.to_array().tolist() == [1.0, 2.0]

"""Tests of rlcore/trajectories/buffers.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlcore.trajectories.buffers import CircularArrayBuffer, ElasticArrayBuffer, VectorBuffer

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

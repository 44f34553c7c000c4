"""Tests of rlcore/trajectories/trajectory.py and the shared API of base.py."""

import numpy as np
import pytest

from rlcore.trajectories.base import AbstractTrajectory
from rlcore.trajectories.buffers import CircularArrayBuffer, ElasticArrayBuffer, VectorBuffer
from rlcore.trajectories.sum_tree import SumTree
from rlcore.trajectories.trajectory import (
    CircularArrayPSARTTrajectory, CircularArraySARTSTrajectory, CircularArraySARTTrajectory,
    CircularArraySLARTTrajectory, ElasticSARTTrajectory, Trajectory, VectorSARTTrajectory,
)


def _step(t, s, a, r, terminal=False, truncated=False):
    t.push(state=s, action=a)
    t.push(reward=r, terminal=terminal, truncated=truncated)


def test_circular_sart_layout():
    t = CircularArraySARTTrajectory(3, state=((2,), np.float32), action=((), np.int64))
    assert isinstance(t, AbstractTrajectory)
    assert list(t.keys()) == ["state", "action", "reward", "terminal", "truncated"]
    assert t["state"].capacity == 4 and t["action"].capacity == 4
    assert [t[k].capacity for k in ("reward", "terminal", "truncated")] == [3, 3, 3]
    assert t["state"].shape == (2,) and t["state"].dtype == np.float32
    assert t["terminal"].dtype == bool and t["truncated"].dtype == bool
    assert "state" in t and "priority" not in t and t.traces["reward"] is t["reward"]
    for i in range(5):
        _step(t, np.full(2, i), i, float(i))
    t.push(state=np.full(2, 5), action=0)
    assert len(t) == 3 and t.isfull
    assert t["state"].to_array()[:, 0].tolist() == [2, 3, 4, 5]
    assert t["reward"].to_array().tolist() == [2, 3, 4]
    assert "CircularArraySARTTrajectory(capacity=3" in repr(t)


def test_push_validates_everything_first():
    t = CircularArraySARTTrajectory(3, state=((2,), np.float32))
    t.push(state=np.zeros(2), action=1)
    with pytest.raises(TypeError, match="int64"):
        t.push(state=np.ones(2), action=0.5)  # float into an int action: nothing is pushed
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        t.push(action=1, state=np.ones(3))
    with pytest.raises(KeyError, match="no trace 'rewards'"):
        t.push(rewards=1.0)
    assert len(t["state"]) == 1 and len(t["action"]) == 1 and len(t["reward"]) == 0


def test_pop_and_clear():
    t = CircularArraySARTTrajectory(3, state=((), np.int64))
    _step(t, 1, 0, 1.0)
    t.push(state=2, action=1)
    popped = t.pop("state", "action")
    assert int(popped["state"]) == 2 and int(popped["action"]) == 1
    assert len(t["state"]) == 1
    with pytest.raises(IndexError, match="empty"):
        Trajectory(x=VectorBuffer()).pop()
    assert set(t.pop()) == set(t.keys())
    t.clear()
    assert all(len(trace) == 0 for trace in t.traces.values()) and len(t) == 0


def test_trajectory_len_without_terminal_is_shortest_trace():
    t = Trajectory(a=ElasticArrayBuffer(), b=ElasticArrayBuffer())
    t.push(a=1.0, b=2.0)
    t.push(a=3.0)
    assert len(t) == 1 and not t.isfull
    with pytest.raises(ValueError):
        Trajectory()
    with pytest.raises(TypeError, match="buffer"):
        Trajectory(a=[1, 2])


def test_slart_has_a_mask_trace():
    t = CircularArraySLARTTrajectory(5, legal_actions_mask=((3,), bool))
    assert t["legal_actions_mask"].capacity == 6 and t["legal_actions_mask"].shape == (3,)
    t.push(state=np.zeros(4, np.float32), action=2, legal_actions_mask=np.array([1, 0, 1], bool))
    with pytest.raises(TypeError):
        CircularArraySLARTTrajectory(5)  # the mask shape has no default


def test_psart_priorities():
    t = CircularArrayPSARTTrajectory(4, state=((), np.int64), initial_priority=2.0)
    assert isinstance(t["priority"], SumTree) and t["priority"].max_priority == 2.0
    _step(t, 0, 0, 1.0)
    t.push(priority=t["priority"].max_priority)
    t.update_priorities(np.array([0]), np.array([5.0]))
    assert t["priority"].to_array().tolist() == [5.0] and t["priority"].max_priority == 5.0
    import torch

    t.update_priorities(torch.tensor([0]), torch.tensor([0.25]))
    assert t["priority"].to_array().tolist() == [0.25]
    with pytest.raises(ValueError):
        t.update_priorities([0], [-1.0])


def test_vector_and_elastic_trajectories():
    v = VectorSARTTrajectory()
    _step(v, {"pos": 0}, "left", 1)
    assert v["state"][0] == {"pos": 0} and len(v) == 1
    e = ElasticSARTTrajectory(state=((2,), np.float64), action=((), np.int32))
    for i in range(50):
        _step(e, np.array([i, i]), i, 0.5)
    assert len(e) == 50 and not e.isfull and e["action"].dtype == np.int32
    with pytest.raises(TypeError):
        e.push(state=np.zeros(2), action=1.5)


def test_bad_specs():
    with pytest.raises(TypeError, match="state must be a"):
        CircularArraySARTTrajectory(3, state=np.float32)
    with pytest.raises(ValueError, match="capacity"):
        CircularArraySARTTrajectory(-1)
    t = CircularArraySARTTrajectory(3, state=(4, np.float32))  # an int shape is accepted
    assert t["state"].shape == (4,)


def test_generic_trajectory_of_buffers():
    t = Trajectory(state=CircularArrayBuffer(3, (2,)), reward=CircularArrayBuffer(3))
    t.push(state=[1.0, 2.0], reward=1)
    assert t["state"][0].tolist() == [1.0, 2.0]


# --- the SARTS layout ---------------------------------------------------------------------------

def _sarts_step(t, states, actions, rewards, next_states, terminal=None, truncated=None):
    """One batched step of ``len(states)`` environments, as the recording rules push it."""
    k = len(states)
    t.extend(state=states, action=actions)
    t.extend(reward=rewards, next_state=next_states,
             terminal=np.zeros(k, bool) if terminal is None else terminal,
             truncated=np.zeros(k, bool) if truncated is None else truncated)


def test_sarts_layout():
    t = CircularArraySARTSTrajectory(4, n_envs=2, state=((2,), np.float32))
    assert isinstance(t, AbstractTrajectory) and t.n_envs == 2 and not t.prioritized
    assert list(t.keys()) == ["state", "action", "reward", "terminal", "truncated",
                              "next_state"]
    assert all(trace.capacity == 4 for trace in t.traces.values())
    assert t["next_state"].shape == (2,) and t["next_state"].dtype == np.float32
    assert t["truncated"].dtype == bool and t["action"].dtype == np.int64
    # three steps of two sub-envs: sub-env 0 in states 0, 1, 2; sub-env 1 in 10, 11, 12
    for step in range(3):
        _sarts_step(t, np.array([[step, 0], [10 + step, 0]]), [0, 1], [1.0, 2.0],
                    np.array([[step + 1, 0], [11 + step, 0]]))
    assert len(t) == 4 and t.isfull  # 6 transitions through 4 rows: the newest 4 kept
    assert t["state"].to_array()[:, 0].tolist() == [1, 11, 2, 12]
    assert t["next_state"].to_array()[:, 0].tolist() == [2, 12, 3, 13]
    assert t["state"].first_index == 2 and t["next_state"].end_index == 6
    assert "CircularArraySARTSTrajectory(capacity=4" in repr(t) and "n_envs=2" in repr(t)
    assert AbstractTrajectory.n_envs == 1 and CircularArraySARTTrajectory(3).n_envs == 1


def test_sarts_prioritized():
    t = CircularArraySARTSTrajectory(6, n_envs=2, state=((), np.int64), prioritized=True,
                                     initial_priority=2.0)
    assert isinstance(t["priority"], SumTree) and t["priority"].max_priority == 2.0
    assert t.prioritized and "initial_priority=2.0" in repr(t)
    _sarts_step(t, [0, 10], [0, 0], [1.0, 1.0], [1, 11])
    t.extend(priority=np.full(2, t["priority"].max_priority))
    t.update_priorities(np.array([1]), np.array([5.0]))
    assert t["priority"].to_array().tolist() == [2.0, 5.0] and t["priority"].max_priority == 5.0
    with pytest.raises(TypeError, match="has no priorities: build it with prioritized=True"):
        CircularArraySARTSTrajectory(4).update_priorities([0], [1.0])


def test_sarts_extend_validates_everything_first():
    t = CircularArraySARTSTrajectory(4, n_envs=2, state=((), np.int64))
    with pytest.raises(ValueError, match=r"same number of rows .*'state': 2, 'action': 3"):
        t.extend(state=[0, 1], action=[0, 1, 1])
    with pytest.raises(TypeError, match="not a 'same_kind' cast"):
        t.extend(state=[0, 1], action=[0.5, 1.0])
    with pytest.raises(ValueError, match="capacity 4 by 5 rows"):
        t.extend(state=np.arange(5), action=np.arange(5))
    with pytest.raises(TypeError, match="'x' .*cannot be extended"):
        Trajectory(x=VectorBuffer()).extend(x=[1, 2])
    assert all(len(trace) == 0 for trace in t.traces.values())


@pytest.mark.parametrize("kwargs, error, fragment", [
    (dict(n_envs=0), ValueError, "n_envs must be a positive int, got 0"),
    (dict(n_envs=2.0), ValueError, "n_envs must be a positive int, got 2.0"),
    (dict(n_envs=True), ValueError, "n_envs must be a positive int, got True"),
    (dict(n_envs=4), ValueError, r"capacity \(3\) must be at least n_envs \(4\)"),
    (dict(prioritized=1), TypeError, "prioritized must be True or False, got 1"),
    (dict(state=np.float32), TypeError, "state must be a"),
])
def test_sarts_bad_arguments(kwargs, error, fragment):
    with pytest.raises(error, match=fragment):
        CircularArraySARTSTrajectory(3, **kwargs)

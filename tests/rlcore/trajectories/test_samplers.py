"""Tests of rlcore/trajectories/samplers.py."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rlcore.trajectories.samplers import Batch, BatchSampler, NStepBatchSampler
from rlcore.trajectories.trajectory import (
    CircularArrayPSARTTrajectory, CircularArraySARTTrajectory, CircularArraySLARTTrajectory,
    ElasticSARTTrajectory, VectorSARTTrajectory,
)


def record(t, steps, final_state=None, padding_after=()):
    """Push ``steps`` = [(state, action, reward, terminal, truncated)] then ``final_state``.

    States are ints; after the step at each index in ``padding_after`` (a truncated step), its
    final state and a padding step are pushed, as the recording rules do.
    """
    for i, (s, a, r, term, trunc) in enumerate(steps):
        t.push(state=s, action=a)
        t.push(reward=r, terminal=term, truncated=trunc)
        if "priority" in t:
            t["priority"].push(1.0)
        if i in padding_after:
            t.push(state=s + 1, action=0)
            t.push(reward=0.0, terminal=True, truncated=True)
            if "priority" in t:
                t["priority"].push(0.0)
    if final_state is not None:
        t.push(state=final_state, action=0)


def int_traj(capacity=100, cls=CircularArraySARTTrajectory, **kwargs):
    return cls(capacity, state=((), np.int64), **kwargs)


def test_batch_sampler_returns_aligned_contiguous_copies():
    t = CircularArraySARTTrajectory(50, state=((3,), np.float32))
    for i in range(30):
        t.push(state=np.full(3, i, np.float32), action=i % 4)
        t.push(reward=float(i), terminal=False, truncated=False)
    t.push(state=np.full(3, 30, np.float32), action=0)
    batch = BatchSampler(16, rng=0).sample(t)
    assert isinstance(batch, Batch)
    assert set(batch) == {"state", "action", "reward", "terminal", "truncated", "next_state"}
    assert batch.state.shape == (16, 3) and batch.state.dtype == np.float32
    assert batch.action.dtype == np.int64 and batch.reward.dtype == np.float32
    assert batch.terminal.dtype == bool
    for value in batch.values():
        assert value.flags.c_contiguous and value.base is None or not np.shares_memory(
            value, t["state"].data)
    np.testing.assert_array_equal(batch.next_state[:, 0], batch.state[:, 0] + 1)
    np.testing.assert_array_equal(batch.reward, batch.state[:, 0])
    np.testing.assert_array_equal(batch.action, batch.state[:, 0].astype(int) % 4)
    batch.state[:] = -1  # a copy: the trajectory is untouched
    assert t["state"][0].tolist() == [0, 0, 0]


def test_same_seed_same_batch_and_rng_forms():
    t = int_traj()
    record(t, [(i, 0, 1.0, False, False) for i in range(20)], final_state=20)
    a = BatchSampler(8, rng=np.random.default_rng(3))(t)
    b = BatchSampler(8, seed=3)(t)
    c = BatchSampler(8, rng=3)(t)
    np.testing.assert_array_equal(a.state, b.state)
    np.testing.assert_array_equal(a.state, c.state)


def test_uniform_frequencies_and_padding_is_never_sampled():
    t = int_traj()
    # 0..3 truncated at the step from 3; its final state 4 then padding; then 10, 11, 12
    steps = [(0, 0, 1.0, False, False), (1, 0, 1.0, False, False), (2, 0, 1.0, False, False),
             (3, 0, 1.0, False, True), (10, 0, 1.0, False, False), (11, 0, 1.0, True, False)]
    record(t, steps, final_state=12, padding_after=(3,))
    batch = BatchSampler(6, rng=0)(t)
    states = np.concatenate([BatchSampler(6, rng=s)(t).state for s in range(2000)])
    counts = {s: int((states == s).sum()) for s in (0, 1, 2, 3, 4, 10, 11)}
    assert counts[4] == 0  # the padding step (state 4) is never drawn
    # 6 real transitions, 12000 draws: each count is Binomial(12000, 1/6), sd ~ 41
    for s in (0, 1, 2, 3, 10, 11):
        assert abs(counts[s] - 2000) < 6 * 41
    nxt = dict(zip(batch.state.tolist(), batch.next_state.tolist()))
    assert all(nxt[s] == {3: 4, 11: 12}.get(s, s + 1) for s in nxt)


def test_errors_with_numbers():
    t = int_traj(10)
    with pytest.raises(ValueError, match="no complete transition"):
        BatchSampler(1)(t)
    record(t, [(0, 0, 1.0, False, False)])  # no next state yet
    with pytest.raises(ValueError, match="no complete transition"):
        BatchSampler(1)(t)
    t.push(state=1, action=0)
    with pytest.raises(ValueError, match="batch of 2 .* 1 complete"):
        BatchSampler(2)(t)
    assert BatchSampler(1)(t).state.tolist() == [0]
    for bad in (0, -3, 1.5, True):
        with pytest.raises(ValueError, match="batch_size"):
            BatchSampler(bad)
    with pytest.raises(ValueError, match="gamma"):
        NStepBatchSampler(n=3, gamma=1.5, batch_size=4)
    with pytest.raises(ValueError, match="n must"):
        NStepBatchSampler(n=0, gamma=0.9, batch_size=4)
    with pytest.raises(RuntimeError):
        BatchSampler(4, device="no-such-device")


def test_only_padding_is_an_error():
    t = int_traj(10)
    record(t, [(0, 0, 0.0, True, True)], final_state=1)
    with pytest.raises(ValueError, match="padding"):
        BatchSampler(1, rng=0)(t)


def test_device_gives_tensors_moved_once():
    t = int_traj()
    record(t, [(i, 0, 1.0, False, False) for i in range(10)], final_state=10)
    batch = BatchSampler(4, device="cpu", rng=0)(t)
    for key, value in batch.items():
        assert isinstance(value, torch.Tensor), key
        assert value.device.type == "cpu" and value.is_contiguous()
    assert batch.terminal.dtype == torch.bool and batch.reward.dtype == torch.float32
    assert torch.equal(batch.next_state, batch.state + 1)
    numpy_batch = BatchSampler(4, rng=0)(t)
    assert torch.equal(batch.state, torch.from_numpy(numpy_batch.state))


def test_slart_masks():
    t = CircularArraySLARTTrajectory(10, state=((), np.int64), legal_actions_mask=((3,), bool))
    for i in range(4):
        t.push(state=i, action=0, legal_actions_mask=np.array([i % 2 == 0, True, i == 2]))
        t.push(reward=0.0, terminal=False, truncated=False)
    t.push(state=4, action=0, legal_actions_mask=np.array([True, False, False]))
    b = BatchSampler(4, rng=0)(t)
    for s, m, nm in zip(b.state, b.legal_actions_mask, b.next_legal_actions_mask):
        assert m.tolist() == [s % 2 == 0, True, s == 2]
        expected_next = [True, False, False] if s == 3 else [(s + 1) % 2 == 0, True, s + 1 == 2]
        assert nm.tolist() == expected_next


def test_prioritized_sampling_follows_priorities():
    t = int_traj(10, CircularArrayPSARTTrajectory)
    record(t, [(i, 0, 1.0, False, False) for i in range(4)], final_state=4)
    t.update_priorities([0, 1, 2, 3], [1.0, 0.0, 2.0, 1.0])
    sampler = BatchSampler(4, rng=0)
    batch = sampler(t)
    assert set(batch) >= {"indices", "priorities", "probabilities"}
    assert batch.indices.dtype == np.int64
    np.testing.assert_allclose(batch.probabilities, batch.priorities / 4.0)
    np.testing.assert_array_equal(batch.state, batch.indices)
    states = np.concatenate([sampler(t).state for _ in range(2000)])
    counts = np.bincount(states, minlength=4)
    assert counts[1] == 0
    # 8000 draws with p = (1/4, 1/2, 1/4): chi-square with 2 d.o.f., P(> 13.8) = 0.001
    expected = 8000 * np.array([0.25, 0.5, 0.25])
    assert (((counts[[0, 2, 3]] - expected) ** 2) / expected).sum() < 13.8
    t.update_priorities(batch.indices, np.full(4, 0.5))
    # a step without its next state is not drawn even with a high priority
    t.push(reward=1.0, terminal=False, truncated=False)
    t["priority"].push(1.0)
    t.update_priorities([4], [1000.0])
    before = t["priority"].to_array().tolist()
    excluded_batch = BatchSampler(4, rng=0)(t)
    assert 4 not in excluded_batch.state
    assert t["priority"].to_array().tolist() == before  # restored after the draw
    assert before[4] == 1000.0 and t["priority"].max_priority == 1000.0
    # probabilities are relative to what could be drawn (steps 0-3), not to a total that
    # includes the excluded newest step
    np.testing.assert_allclose(excluded_batch.probabilities,
                               excluded_batch.priorities / sum(before[:4]), rtol=1e-6)
    assert sum(before[:4]) < 10


def test_prioritized_padding_gets_zero_priority_via_recording_layout():
    t = int_traj(10, CircularArrayPSARTTrajectory)
    record(t, [(0, 0, 1.0, False, True), (5, 0, 1.0, False, False)], final_state=6,
           padding_after=(0,))
    assert t["priority"].to_array().tolist() == [1.0, 0.0, 1.0]
    states = BatchSampler(2, rng=0)(t).state
    assert set(states.tolist()) <= {0, 5}


def test_episodic_trajectories_can_be_sampled():
    v = VectorSARTTrajectory()
    e = ElasticSARTTrajectory(state=((), np.int64))
    for t in (v, e):
        record(t, [(i, 1, 0.5, i == 4, False) for i in range(5)], final_state=5)
        b = BatchSampler(3, rng=0)(t)
        np.testing.assert_array_equal(np.asarray(b.next_state), np.asarray(b.state) + 1)


# --- n-step -----------------------------------------------------------------------------------

def nstep_by_state(t, n, gamma, draws=400):
    """{state: (reward, terminal, truncated, next_state, discount)} over many draws."""
    sampler = NStepBatchSampler(n=n, gamma=gamma, batch_size=1, rng=0)
    out = {}
    for _ in range(draws):
        b = sampler(t)
        out[int(b.state[0])] = (float(b.reward[0]), bool(b.terminal[0]), bool(b.truncated[0]),
                                int(b.next_state[0]), float(b.discount[0]))
    return out


def test_nstep_hand_computed():
    g = 0.5
    t = int_traj()
    # episode A: 0 -> 1 -> 2 -> (3) (terminal at the step from 2; final state dropped)
    # episode B: 10 -> 11 -> 12, truncated at the step from 11: final 12, then padding
    # episode C: 20 -> 21 -> 22, still running (22 is the newest state)
    steps = [(0, 0, 1.0, False, False), (1, 0, 2.0, False, False), (2, 0, 4.0, True, False),
             (10, 0, 1.0, False, False), (11, 0, 3.0, False, True),
             (20, 0, 1.0, False, False), (21, 0, 5.0, False, False)]
    record(t, steps, final_state=22, padding_after=(4,))
    got = nstep_by_state(t, n=3, gamma=g)
    assert set(got) == {0, 1, 2, 10, 11, 20, 21}
    f32 = lambda x: float(np.float32(x))  # noqa: E731
    # cut at the terminal step: no bootstrapping (the terminated episode's final state was
    # dropped, so next_state is the next episode's first state, 10, and is never used)
    assert got[0] == (f32(1 + g * 2 + g * g * 4), True, False, 10, g ** 3)
    assert got[1] == (f32(2 + g * 4), True, False, 10, g ** 2)
    assert got[2] == (4.0, True, False, 10, g)
    # cut at the truncated step: bootstrap from the kept final state 12
    assert got[10] == (f32(1 + g * 3), False, True, 12, g ** 2)
    assert got[11] == (3.0, False, True, 12, g)
    # n larger than the steps available: cut at the newest recorded step
    assert got[20] == (f32(1 + g * 5), False, False, 22, g ** 2)
    assert got[21] == (5.0, False, False, 22, g)


def test_nstep_with_n_1_matches_batch_sampler():
    t = int_traj()
    record(t, [(i, 0, float(i), i % 3 == 2, False) for i in range(12)], final_state=12)
    a = NStepBatchSampler(n=1, gamma=0.9, batch_size=8, rng=1)(t)
    b = BatchSampler(8, rng=1)(t)
    for key in ("state", "action", "reward", "terminal", "next_state"):
        np.testing.assert_array_equal(a[key], b[key])
    np.testing.assert_allclose(a.discount, 0.9)


def test_nstep_prioritized_and_device():
    t = int_traj(20, CircularArrayPSARTTrajectory)
    record(t, [(i, 0, 1.0, False, False) for i in range(6)], final_state=6)
    b = NStepBatchSampler(n=2, gamma=1.0, batch_size=4, device="cpu", rng=0)(t)
    assert isinstance(b.reward, torch.Tensor) and isinstance(b.indices, np.ndarray)
    assert "priorities" in b and b.discount.dtype == torch.float32
    expected = torch.where(b.state == 5, 1.0, 2.0)
    assert torch.equal(b.reward, expected)
    # six steps of priority 1: each drawn step has probability 1/6 (not priority / return)
    torch.testing.assert_close(b.probabilities, torch.full((4,), 1 / 6))


@settings(max_examples=100, deadline=None)
@given(
    data=st.lists(st.tuples(st.floats(-10, 10, width=32), st.sampled_from(["", "term", "trunc"])),
                  min_size=1, max_size=25),
    n=st.integers(1, 6),
    gamma=st.floats(0, 1),
    capacity=st.integers(3, 30),
)
def test_nstep_reward_matches_brute_force(data, n, gamma, capacity):
    """Record a stream of steps (with padding after truncations) into a small ring buffer."""
    t = int_traj(capacity)
    stream = []  # (state, reward, terminal, truncated) of every step pushed, padding included
    state = 0
    for r, end in data:
        term, trunc = end == "term", end == "trunc"
        stream.append((state, r, term, trunc))
        t.push(state=state, action=0)
        t.push(reward=r, terminal=term, truncated=trunc)
        state += 1
        if trunc:
            stream.append((state, 0.0, True, True))
            t.push(state=state, action=0)
            t.push(reward=0.0, terminal=True, truncated=True)
            state += 1
    t.push(state=state, action=0)
    kept = stream[-capacity:]
    real = [i for i, (_, _, term, trunc) in enumerate(kept) if not (term and trunc)]
    if not real:
        return
    sampler = NStepBatchSampler(n=n, gamma=gamma, batch_size=1, rng=0)
    for _ in range(10):
        b = sampler(t)
        i = next(j for j in real if kept[j][0] == int(b.state[0]))
        total, k, terminal = 0.0, 0, False
        while k < n and i + k < len(kept):
            _, r, term, trunc = kept[i + k]
            total += gamma ** k * r
            k += 1
            if term or trunc:
                terminal = term
                break
        assert float(b.reward[0]) == pytest.approx(total, rel=1e-5, abs=1e-4)
        assert bool(b.terminal[0]) == terminal
        assert int(b.next_state[0]) == kept[i][0] + k
        assert float(b.discount[0]) == pytest.approx(gamma ** k, rel=1e-6, abs=1e-30)


@settings(max_examples=60, deadline=None)
@given(
    ends=st.lists(st.sampled_from(["", "", "", "term", "trunc"]), min_size=1, max_size=40),
    capacity=st.integers(2, 25),
    batch_size=st.integers(1, 6),
    masked=st.booleans(),
    device=st.sampled_from([None, "cpu"]),
    seed=st.integers(0, 2**32 - 1),
    reuse=st.booleans(),
)
def test_circular_fast_path_equals_general_path(ends, capacity, batch_size, masked, device, seed,
                                                reuse):
    """The uniform fast path for circular SART trajectories (wrapped rings, padding steps that
    must be redrawn, masks, tensors, reused buffers) gives the general path's batches from the
    same seed."""
    from rlcore.trajectories.samplers import _circular_layout

    if masked:
        t = CircularArraySLARTTrajectory(capacity, state=((2,), np.float32),
                                         legal_actions_mask=((3,), bool))
    else:
        t = CircularArraySARTTrajectory(capacity, state=((2,), np.float32))
    state = 0
    for i, end in enumerate(ends):
        extra = {"legal_actions_mask": np.array([state % 2 == 0, True, state % 3 == 0])} \
            if masked else {}
        t.push(state=np.array([state, -state], np.float32), action=i % 3, **extra)
        t.push(reward=float(i), terminal=end == "term", truncated=end == "trunc")
        state += 1
        if end == "trunc":  # the final state, closed as a padding step
            t.push(state=np.array([state, -state], np.float32), action=0, **extra)
            t.push(reward=0.0, terminal=True, truncated=True)
            state += 1
    extra = {"legal_actions_mask": np.array([True, False, True])} if masked else {}
    t.push(state=np.array([state, -state], np.float32), action=0, **extra)
    assert _circular_layout(t.traces) is not None
    fast = BatchSampler(batch_size, device=device, rng=seed, reuse_buffers=reuse)
    general = BatchSampler(batch_size, device=device, rng=seed)
    for _ in range(3):
        try:
            expected = general._sample_general(t)
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)[:30]):
                fast.sample(t)
            return
        got = fast.sample(t)
        assert list(got) == list(expected)
        for key in expected:
            assert type(got[key]) is type(expected[key]), key
            if device is None:
                assert got[key].dtype == expected[key].dtype, key
                np.testing.assert_array_equal(got[key], expected[key])
            else:
                assert got[key].dtype == expected[key].dtype, key
                assert torch.equal(got[key], expected[key]), key
        assert not np.any(np.asarray(got["terminal"]) & np.asarray(got["truncated"]))


def test_reused_buffers_are_overwritten_in_place_and_remade_for_another_trajectory():
    t = int_traj(50)
    record(t, [(s, s % 2, float(s), False, False) for s in range(30)], final_state=30)
    sampler = BatchSampler(8, device="cpu", rng=0, reuse_buffers=True)
    first = sampler(t)
    kept = {key: value.clone() for key, value in first.items()}
    second = sampler(t)
    for key in first:
        assert second[key] is first[key]  # the same tensor, new contents
        assert second[key].data_ptr() == first[key].data_ptr()
    assert not all(torch.equal(kept[key], second[key]) for key in kept)
    assert torch.equal(second.next_state, second.state + 1)
    numpy_sampler = BatchSampler(8, rng=0, reuse_buffers=True)
    assert numpy_sampler(t).state is numpy_sampler(t).state
    # another trajectory (other shapes): new buffers of its shapes
    other = CircularArraySARTTrajectory(20, state=((3,), np.float32))
    for i in range(10):
        other.push(state=np.full(3, i, np.float32), action=0)
        other.push(reward=1.0, terminal=False, truncated=False)
    other.push(state=np.full(3, 10, np.float32), action=0)
    batch = sampler(other)
    assert batch.state.shape == (8, 3) and batch.state.dtype == torch.float32
    assert torch.equal(batch.next_state, batch.state + 1)
    assert "reuse_buffers=True" in repr(sampler)
    with pytest.raises(TypeError, match="reuse_buffers must be True or False, got 1"):
        BatchSampler(8, reuse_buffers=1)


def test_reused_buffers_recognise_a_batch_as_the_sampler_drew_it():
    import copy
    import pickle

    from rlcore.trajectories.samplers import Batch, reused_buffers

    t = int_traj(50)
    record(t, [(s, s % 2, float(s), False, False) for s in range(30)], final_state=30)
    sampler = BatchSampler(8, device="cpu", rng=0, reuse_buffers=True)
    batch = sampler(t)
    buffers = reused_buffers(batch)
    assert buffers is not None and buffers.memo == {}
    for key, value in batch.items():  # numpy arrays sharing the tensors' memory
        assert np.shares_memory(buffers.arrays[key], value.numpy())
    assert reused_buffers(sampler(t)) is buffers  # the same buffers, draw after draw
    changed = sampler(t)
    changed["state"] = changed["state"].clone()  # a key replaced
    assert reused_buffers(changed) is None
    added = sampler(t)
    added["extra"] = torch.zeros(8)
    assert reused_buffers(added) is None
    removed = sampler(t)
    del removed["truncated"]
    assert reused_buffers(removed) is None
    assert reused_buffers(Batch(sampler(t))) is None  # a plain Batch of the same tensors
    assert reused_buffers(BatchSampler(8, device="cpu", rng=0)(t)) is None  # fresh tensors
    assert reused_buffers(BatchSampler(8, rng=0, reuse_buffers=True)(t)) is None  # numpy
    assert reused_buffers({"state": batch["state"]}) is None
    drawn = sampler(t)
    for clone in (copy.deepcopy(drawn), pickle.loads(pickle.dumps(drawn))):
        # a plain Batch of its own tensors: the replay's buffers do not travel with it
        assert type(clone) is Batch and reused_buffers(clone) is None
        assert all(torch.equal(clone[k], drawn[k]) for k in drawn)
    assert len(pickle.dumps(drawn)) < 5000


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_reusing_sampler_draws_fresh_batches(how):
    import copy
    import pickle

    t = int_traj(50)
    record(t, [(s, s % 2, float(s), False, False) for s in range(30)], final_state=30)
    sampler = BatchSampler(8, device="cpu", rng=0, reuse_buffers=True)
    sampler(t)
    clone = copy.deepcopy(sampler) if how == "deepcopy" else pickle.loads(pickle.dumps(sampler))
    reference = BatchSampler(8, device="cpu", rng=0)
    reference(t)
    for _ in range(3):  # the clone continues the original's random stream, into its own buffers
        expected, got = reference(t), clone(t)
        assert all(torch.equal(expected[k], got[k]) for k in expected)
    assert len(pickle.dumps(sampler)) < 2000  # the replay does not travel with it


def test_reused_buffers_follow_changes_of_storage_batch_size_and_device():
    t = int_traj(50)
    record(t, [(s, s % 2, float(s), False, False) for s in range(30)], final_state=30)
    sampler = BatchSampler(8, device="cpu", rng=0, reuse_buffers=True)
    reference = BatchSampler(8, device="cpu", rng=0)

    def same():
        expected, got = reference(t), sampler(t)
        assert all(torch.equal(expected[k], got[k]) and expected[k].dtype == got[k].dtype
                   for k in expected)

    same()
    reward = t.traces["reward"]
    reward.data = reward.data.astype(np.float64)  # storage replaced: new buffers, no silent cast
    same()
    sampler.batch_size = reference.batch_size = 5
    same()
    sampler.device = "cpu"  # a name set after construction
    same()
    sampler.device = reference.device = None
    expected, got = reference(t), sampler(t)
    assert all(np.array_equal(expected[k], got[k]) for k in expected)


def test_reused_buffers_leave_other_trajectories_to_the_general_path():
    t = ElasticSARTTrajectory(state=((), np.int64))
    record(t, [(s, 0, 1.0, False, False) for s in range(10)], final_state=10)
    sampler = BatchSampler(4, rng=0, reuse_buffers=True)
    a, b = sampler(t), sampler(t)
    assert a.state is not b.state  # new arrays: the buffers serve circular trajectories only


def test_fast_path_is_only_for_uniform_circular_traces():
    from rlcore.trajectories.samplers import _circular_layout

    assert _circular_layout(int_traj().traces) is not None
    assert _circular_layout(int_traj(10, CircularArrayPSARTTrajectory).traces) is None
    assert _circular_layout(ElasticSARTTrajectory(state=((), np.int64)).traces) is None
    assert _circular_layout(int_traj(terminal=((), np.float32)).traces) is None


def test_batch_to_moves_arrays_and_tensors_and_keeps_indices():
    indices = np.arange(3)
    tensor = torch.arange(3.0)
    batch = Batch(state=np.ones((3, 2), np.float32), reward=tensor, indices=indices, note="x")
    on_cpu = batch.to("cpu")
    assert type(on_cpu) is Batch and on_cpu is not batch
    assert on_cpu.state.dtype == torch.float32 and on_cpu.state.shape == (3, 2)
    assert on_cpu.reward is tensor                   # already there: kept, not copied
    assert on_cpu.indices is indices and on_cpu.note == "x"
    # the meta device stands in for an accelerator: numpy arrays and tensors both move there
    on_meta = batch.to("meta")
    assert on_meta.state.device.type == "meta" and on_meta.reward.device.type == "meta"
    assert on_meta.indices is indices
    with pytest.raises(TypeError, match=r"batch\['info'\] holds Python objects"):
        Batch(info=np.array([{}], dtype=object)).to("cpu")

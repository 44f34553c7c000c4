"""Tests of rlcore/trajectories/samplers.py."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rlcore.trajectories.samplers import Batch, BatchSampler, NStepBatchSampler
from rlcore.trajectories.trajectory import (
    CircularArrayPSARTTrajectory, CircularArraySARTSTrajectory, CircularArraySARTTrajectory,
    CircularArraySLARTTrajectory, ElasticSARTTrajectory, VectorSARTTrajectory,
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


# --- the SARTS layout -------------------------------------------------------------------------

def sarts_step(t, rows):
    """Push one batched step: ``rows`` = [(state, action, reward, terminal, truncated,
    next_state or None)], one per sub-env; a ``None`` next state is left unrecorded (the
    PostAct half of the step has not happened for it: only valid on the newest rows)."""
    states, actions, rewards, terminals, truncateds, next_states = zip(*rows)
    t.extend(state=np.array(states), action=np.array(actions))
    t.extend(reward=np.array(rewards, np.float32), terminal=np.array(terminals),
             truncated=np.array(truncateds))
    if "priority" in t:
        t["priority"].extend(np.ones(len(rows)))
    recorded = [x for x in next_states if x is not None]
    if recorded:
        t["next_state"].extend(np.array(recorded))


def concatenated(sampler, t, n):
    """``n`` batches of ``sampler`` from ``t``, concatenated key by key."""
    batches = [sampler(t) for _ in range(n)]
    return Batch({key: np.concatenate([b[key] for b in batches]) for key in batches[0]})


def test_batch_sampler_reads_next_states_from_their_trace():
    t = CircularArraySARTSTrajectory(10, state=((), np.int64))
    for s in range(4):  # next states 100 + s: not state + 1, so the trace must be read
        sarts_step(t, [(s, s % 2, float(s), s == 3, False, 100 + s)])
    sampler = BatchSampler(4, rng=0)
    batch = concatenated(sampler, t, 10)
    assert set(batch) == {"state", "action", "reward", "terminal", "truncated", "next_state"}
    assert set(batch.state.tolist()) == {0, 1, 2, 3}
    np.testing.assert_array_equal(batch.next_state, batch.state + 100)
    np.testing.assert_array_equal(batch.reward, batch.state)
    np.testing.assert_array_equal(batch.action, batch.state % 2)
    np.testing.assert_array_equal(batch.terminal, batch.state == 3)


@pytest.mark.parametrize("prioritized", [False, True])
def test_a_transition_without_its_next_state_is_never_drawn(prioritized):
    t = CircularArraySARTSTrajectory(10, state=((), np.int64), prioritized=prioritized)
    for s in range(3):
        sarts_step(t, [(s, 0, 1.0, False, False, s + 1)])
    sarts_step(t, [(3, 0, 1.0, False, False, None)])  # its next state is not recorded yet
    if prioritized:
        t.update_priorities([3], [1000.0])  # the most likely by far, were it drawable
    states = np.concatenate([BatchSampler(3, rng=seed)(t).state for seed in range(50)])
    assert set(states.tolist()) == {0, 1, 2}
    with pytest.raises(ValueError, match="batch of 4 from a trajectory holding 3 complete"):
        BatchSampler(4, rng=0)(t)


def two_env_trajectory(capacity):
    """Four batched steps of two sub-envs (rows alternate sub-env 0, sub-env 1).

    step | sub-env 0: state, reward, flags, next state | sub-env 1
    0    | 0,  1                 -> 1                  | 10, 10                -> 11
    1    | 1,  2, terminal      -> 2                  | 11, 20                -> 12
    2    | 50, 3                 -> 51                 | 12, 30, truncated     -> 13
    3    | 51, 4                 -> 52                 | 60, 40                -> 61
    """
    t = CircularArraySARTSTrajectory(capacity, n_envs=2, state=((), np.int64))
    sarts_step(t, [(0, 0, 1.0, False, False, 1), (10, 1, 10.0, False, False, 11)])
    sarts_step(t, [(1, 0, 2.0, True, False, 2), (11, 1, 20.0, False, False, 12)])
    sarts_step(t, [(50, 0, 3.0, False, False, 51), (12, 1, 30.0, False, True, 13)])
    sarts_step(t, [(51, 0, 4.0, False, False, 52), (60, 1, 40.0, False, False, 61)])
    return t


@pytest.mark.parametrize("capacity", [8, 6])
def test_nstep_windows_stay_in_their_sub_env_and_stop_at_episode_ends(capacity):
    t = two_env_trajectory(capacity)
    # n = 3, γ = 0.5; a window walks rows i, i + 2, i + 4 (one sub-env), stops after a terminal
    # or truncated step and at the newest row: state -> (return, terminal, truncated,
    # next state, discount)
    expected = {
        0: (1 + 0.5 * 2, True, False, 2, 0.25),                  # rows 0, 2 (terminal)
        10: (10 + 0.5 * 20 + 0.25 * 30, False, True, 13, 0.125),  # rows 1, 3, 5 (truncated)
        1: (2, True, False, 2, 0.5),
        11: (20 + 0.5 * 30, False, True, 13, 0.25),
        50: (3 + 0.5 * 4, False, False, 52, 0.25),               # rows 4, 6: the newest
        12: (30, False, True, 13, 0.5),
        51: (4, False, False, 52, 0.5),
        60: (40, False, False, 61, 0.5),
    }
    if capacity == 6:  # the first step's rows are overwritten
        del expected[0], expected[10]
    sampler = NStepBatchSampler(n=3, gamma=0.5, batch_size=len(expected), rng=0)
    seen = set()
    for _ in range(20):
        batch = sampler(t)
        for k, s in enumerate(batch.state.tolist()):
            ret, terminal, truncated, next_state, discount = expected[s]
            assert float(batch.reward[k]) == ret
            assert (bool(batch.terminal[k]), bool(batch.truncated[k])) == (terminal, truncated)
            assert int(batch.next_state[k]) == next_state
            assert float(batch.discount[k]) == discount
            seen.add(s)
    assert seen == set(expected)
    # one step: the batch sampler's transitions, discount γ
    one = NStepBatchSampler(n=1, gamma=0.5, batch_size=len(expected), rng=0)(t)
    plain = BatchSampler(len(expected), rng=0)(t)
    for key in ("state", "reward", "terminal", "truncated", "next_state"):
        np.testing.assert_array_equal(one[key], plain[key])


def test_prioritized_sarts_batches_carry_indices_and_probabilities():
    t = CircularArraySARTSTrajectory(8, n_envs=2, state=((), np.int64), prioritized=True)
    sarts_step(t, [(0, 0, 1.0, False, False, 1), (10, 0, 1.0, False, False, 11)])
    sarts_step(t, [(1, 0, 1.0, False, False, 2), (11, 0, 1.0, False, False, None)])
    # rows: 0 (state 0), 1 (10), 2 (1) complete; row 3 (11) waits for its next state
    t.update_priorities([0, 1, 2, 3], [1.0, 3.0, 0.0, 9.0])
    sampler = NStepBatchSampler(n=2, gamma=0.5, batch_size=3, rng=0)
    batch = concatenated(sampler, t, 400)
    assert set(batch.state.tolist()) == {0, 10}  # priority 0 and unrecorded: never
    # the total drawn from is 1 + 3 (row 3 excluded): probabilities 1/4 and 3/4
    np.testing.assert_array_equal(batch.indices, np.where(batch.state == 0, 0, 1))
    np.testing.assert_allclose(batch.probabilities, np.where(batch.state == 0, 0.25, 0.75))
    np.testing.assert_array_equal(batch.priorities, np.where(batch.state == 0, 1.0, 3.0))
    assert 0.7 < float(np.mean(batch.state == 10)) < 0.8
    # state 0's window: rows 0, 2 (1 + 0.5 · 1), stopped at the newest complete row
    np.testing.assert_array_equal(batch.reward, np.where(batch.state == 0, 1.5, 1.0))
    np.testing.assert_array_equal(batch.next_state, np.where(batch.state == 0, 2, 11))
    t.update_priorities(batch.indices[:1], [7.0])
    assert t["priority"][int(batch.indices[0])] == 7.0

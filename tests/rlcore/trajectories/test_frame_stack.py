"""Tests of rlcore/trajectories/frame_stack.py: ``FrameStackBuffer`` and ``frame_stack=True``.

The reference is the ``CircularArrayBuffer`` of stacked states that a ``FrameStackBuffer``
replaces: fed the same stacks (or the same recorded run), both must give identical contents and
identical samples for identical sampler seeds.
"""

import warnings

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from rlcore import (
    Agent, BatchSampler, CircularArrayBuffer, CircularArrayPSARTTrajectory,
    CircularArraySARTTrajectory, CircularArraySLARTTrajectory, DoEveryNStep, FrameStackBuffer,
    NStepBatchSampler, RandomPolicy, StopAfterStep, run,
)
from rlcore.envs.base import AbstractEnv
from rlcore.envs.traits import FULL_ACTION_SET


# --- the buffer against CircularArrayBuffer, operation by operation

def _same_state(fs, ref):
    assert len(fs) == len(ref) and fs.isfull == ref.isfull
    assert (fs.first_index, fs.end_index) == (ref.first_index, ref.end_index)
    np.testing.assert_array_equal(fs.to_array(), ref.to_array(), strict=True)
    # every frame still referenced lies in the ring, none overwritten: the referenced frame
    # positions are the newest len(frames) written, and never decrease along the buffer
    assert fs.n_frames <= len(fs.frames)
    if len(fs):
        live = fs.positions[fs.physical(np.arange(len(fs)))]
        assert live.min() >= fs._frame_end - len(fs.frames) and live.max() < fs._frame_end
        assert np.all(np.diff(live, axis=1) >= 0)  # within a stack
        assert np.all(np.diff(live, axis=0) >= 0)  # frame by frame along the buffer


@st.composite
def _operations(draw):
    depth = draw(st.integers(1, 4))
    frame_shape = draw(st.sampled_from([(), (2,), (2, 3)]))
    capacity = draw(st.integers(1, 6))
    frame_capacity = draw(st.sampled_from([None, depth, depth + 1]))
    n_ops = draw(st.integers(1, 60))
    # op: 0 continue the newest stack with a new frame, 1 a random stack (frames from a
    # 3-value alphabet, so repeats and accidental continuations happen), 2 a reset-padded
    # stack (first frame repeated), 3 pop, 4 clear (rare)
    ops = draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, 3, 4]), min_size=n_ops, max_size=n_ops))
    seed = draw(st.integers(0, 2**16))
    return depth, frame_shape, capacity, frame_capacity, ops, seed


@pytest.mark.filterwarnings("ignore:FrameStackBuffer of shape:RuntimeWarning")  # short episodes
@settings(max_examples=150, deadline=None)
@given(_operations())
def test_buffer_matches_circular_array_buffer(case):
    depth, frame_shape, capacity, frame_capacity, ops, seed = case
    rng = np.random.default_rng(seed)
    shape = (depth, *frame_shape)
    fs = FrameStackBuffer(capacity, shape, np.uint8, frame_capacity=frame_capacity)
    ref = CircularArrayBuffer(capacity, shape, np.uint8)
    for op in ops:
        if op == 0 and len(ref):
            x = np.concatenate((ref[-1][1:], rng.integers(0, 3, (1, *frame_shape))))
        elif op in (0, 1):
            x = rng.integers(0, 3, shape)
        elif op == 2:
            x = np.repeat(rng.integers(0, 3, (1, *frame_shape)), depth, axis=0)
        elif op == 3:
            if len(ref) == 0:
                with pytest.raises(IndexError, match="empty FrameStackBuffer"):
                    fs.pop()
                continue
            np.testing.assert_array_equal(fs.pop(), ref.pop(), strict=True)
            _same_state(fs, ref)
            continue
        else:
            fs.clear()
            ref.clear()
            continue
        x = x.astype(np.uint8)
        fs.push(x)
        ref.push(x)
        _same_state(fs, ref)
        if len(ref):
            idx = rng.integers(0, len(ref), 5)
            np.testing.assert_array_equal(fs.gather(idx), ref.gather(idx), strict=True)
            np.testing.assert_array_equal(fs[-1], ref[-1], strict=True)
            np.testing.assert_array_equal(fs[idx - len(ref)], ref[idx - len(ref)], strict=True)


def test_float_frames_are_shared_only_when_bit_identical():
    fs = FrameStackBuffer(4, (2,), np.float32)
    ref = CircularArrayBuffer(4, (2,), np.float32)
    for x in ([0.0, -0.0], [-0.0, 0.0], [0.0, np.nan], [np.nan, np.nan], [np.nan, 1.0]):
        fs.push(np.array(x, np.float32))
        ref.push(np.array(x, np.float32))
    out = fs.to_array()
    np.testing.assert_array_equal(out, ref.to_array(), strict=True)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(ref.to_array()), strict=True)


# --- memory

def _episode_stacks(rng, length, depth, frame_shape):
    """The stacks of one episode, as Gymnasium's ``FrameStackObservation`` (reset padding)
    builds them."""
    frames = rng.integers(0, 256, (length, *frame_shape), dtype=np.uint8)
    padded = np.concatenate((np.repeat(frames[:1], depth - 1, axis=0), frames))
    return [padded[t:t + depth] for t in range(length)]


def test_memory_is_about_one_frame_per_step():
    rng = np.random.default_rng(0)
    capacity, depth, frame_shape = 2_000, 4, (84, 84)
    fs = FrameStackBuffer(capacity + 1, (depth, *frame_shape), np.uint8)
    frame_bytes = 84 * 84
    for _ in range(12):  # 6 times round the ring
        for x in _episode_stacks(rng, int(rng.integers(150, 250)), depth, frame_shape):
            fs.push(x)
    assert fs.nbytes < 1.3 * (capacity + 1) * frame_bytes
    # the stacked buffer it replaces holds depth frames per step
    assert CircularArrayBuffer(capacity + 1, (depth, *frame_shape), np.uint8).data.nbytes \
        > 3.9 * fs.nbytes


def test_channels_last_stacks_warn_once_naming_the_stack_axis():
    # an episode's stacks with the stack axis last, (6, 6, 4): consecutive stacks share no
    # first-axis rows, so the buffer stores about 6 rows ("frames") per stack instead of 1
    rng = np.random.default_rng(0)
    channels_last = [x.transpose(1, 2, 0) for x in _episode_stacks(rng, 40, 4, (6, 6))]
    fs = FrameStackBuffer(24, (6, 6, 4), np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in channels_last[:23]:  # not full yet: no warning
            fs.push(x)
    with pytest.warns(RuntimeWarning, match=r"FrameStackBuffer of shape \(6, 6, 4\) holds 144 "
                                            r"frames .* for 24 stacks .*stack axis is last"):
        fs.push(channels_last[23])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once only
        for x in channels_last[24:]:
            fs.push(x)
    np.testing.assert_array_equal(fs[-1], channels_last[-1])  # still correct, only wasteful


def test_stack_axis_first_does_not_warn():
    # the same frames stacked along the first axis, in episodes of 3 to 6 steps (an episode
    # start costs depth - 1 extra frames): at most 2 frames per stack, no warning
    rng = np.random.default_rng(0)
    fs = FrameStackBuffer(50, (4, 6, 6), np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(40):
            for x in _episode_stacks(rng, int(rng.integers(3, 7)), 4, (6, 6)):
                fs.push(x)
    assert fs.isfull and fs.n_frames <= 2 * len(fs)


def test_there_is_no_data_array_and_physical_gives_rows_of_positions():
    rng = np.random.default_rng(0)
    fs = FrameStackBuffer(5, (3, 2), np.uint8)
    for x in _episode_stacks(rng, 8, 3, (2,)):
        fs.push(x)
    with pytest.raises(AttributeError, match="FrameStackBuffer has no data array"):
        fs.data  # noqa: B018
    indices = np.array([0, 2, 4])
    np.testing.assert_array_equal(
        fs.frames[fs.positions[fs.physical(indices)] % len(fs.frames)], fs[indices])


@pytest.mark.filterwarnings("ignore:FrameStackBuffer of shape:RuntimeWarning")
def test_frames_grow_when_episode_starts_need_more_and_stay_correct():
    # one-step episodes of distinct frames need depth frames a step: the ring must grow, and
    # every stack must still be the one pushed
    rng = np.random.default_rng(1)
    fs = FrameStackBuffer(50, (4, 3), np.uint8)
    ref = CircularArrayBuffer(50, (4, 3), np.uint8)
    initial = len(fs.frames)
    for _ in range(400):
        x = rng.integers(0, 256, (4, 3), dtype=np.uint8)
        fs.push(x)
        ref.push(x)
    assert len(fs.frames) > initial and fs.n_frames == 200
    np.testing.assert_array_equal(fs.to_array(), ref.to_array(), strict=True)
    # a long episode afterwards: no more growth, one new frame a step
    size = len(fs.frames)
    for x in _episode_stacks(rng, 500, 4, (3,)):
        fs.push(x)
        ref.push(x)
    assert len(fs.frames) == size and fs.n_frames == 50 + 3
    np.testing.assert_array_equal(fs.to_array(), ref.to_array(), strict=True)


def test_pop_releases_the_frames_of_the_popped_stack():
    # the recording pops an episode's final state after a termination: its frame is reused
    rng = np.random.default_rng(2)
    fs = FrameStackBuffer(10, (4, 2), np.uint8, frame_capacity=4 + 6)
    stacks = _episode_stacks(rng, 8, 4, (2,))
    for x in stacks[:6]:
        fs.push(x)
    held = fs.n_frames
    for _ in range(20):
        fs.push(stacks[6])
        assert fs.n_frames == held + 1
        np.testing.assert_array_equal(fs.pop(), stacks[6], strict=True)
        assert fs.n_frames == held
    assert len(fs.frames) == 10  # never grew


# --- errors

def test_bad_input_raises_naming_the_value():
    with pytest.raises(ValueError, match="depth >= 1"):
        FrameStackBuffer(10, (), np.uint8)
    with pytest.raises(ValueError, match="depth >= 1"):
        FrameStackBuffer(10, (0, 84), np.uint8)
    with pytest.raises(ValueError, match="capacity must be a positive int"):
        FrameStackBuffer(0, (4, 84), np.uint8)
    with pytest.raises(ValueError, match="frame_capacity must be an int >= depth = 4"):
        FrameStackBuffer(10, (4, 84), np.uint8, frame_capacity=3)
    b = FrameStackBuffer(10, (4, 2), np.uint8)
    with pytest.raises(ValueError, match=r"shape \(3, 2\).*element shape \(4, 2\)"):
        b.push(np.zeros((3, 2), np.uint8))
    with pytest.raises(TypeError, match="float64.*dtype uint8"):
        b.push(np.zeros((4, 2)))
    assert len(b) == 0
    b.push(np.zeros((4, 2), np.uint8))
    with pytest.raises(TypeError, match="cannot be assigned"):
        b[0] = np.ones((4, 2), np.uint8)
    with pytest.raises(IndexError, match="out of range"):
        b[1]
    with pytest.raises(ValueError, match=r"frame_stack=True needs stacked states.*\(\)"):
        CircularArraySARTTrajectory(10, state=((), np.int64), frame_stack=True)
    with pytest.raises(TypeError, match="frame_stack must be True or False, got 4"):
        CircularArraySARTTrajectory(10, state=((4, 84, 84), np.uint8), frame_stack=4)


# --- trajectories recorded by the run loop, sampled by every sampler

class StackedFramesEnv(AbstractEnv):
    """Episodes of random lengths whose state is a stack of the last ``depth`` frames.

    Frames come from a small alphabet (so equal frames are common); an episode starts with its
    first frame repeated (``FrameStackObservation``'s padding) or with zero frames; it
    terminates or is truncated at random.
    """

    def __init__(self, depth, frame_shape, max_length, seed):
        self.depth, self.frame_shape, self.max_length = depth, frame_shape, max_length
        self.rng = np.random.default_rng(seed)
        self.stack = np.zeros((depth, *frame_shape), np.uint8)
        self.t, self.length, self.terminates, self.r = 0, 1, True, 0.0

    def _frame(self):
        return self.rng.integers(0, 3, (1, *self.frame_shape), dtype=np.uint8)

    def reset(self):
        self.t = 0
        self.length = int(self.rng.integers(1, self.max_length + 1))
        self.terminates = bool(self.rng.random() < 0.5)
        first = self._frame()
        pad = first if self.rng.random() < 0.7 else np.zeros_like(first)
        self.stack = np.concatenate((np.repeat(pad, self.depth - 1, axis=0), first))

    def __call__(self, action):
        self.t += 1
        self.r = float(action) + self.rng.random()
        self.stack = np.concatenate((self.stack[1:], self._frame()))

    def state(self, player=None):
        return self.stack.copy()

    def reward(self, player=None):
        return self.r

    def is_terminated(self):
        return self.terminates and self.t >= self.length

    def is_truncated(self):
        return not self.terminates and self.t >= self.length

    def action_space(self, player=None):
        return spaces.Discrete(3)

    def state_space(self, player=None):
        return spaces.Box(0, 255, (self.depth, *self.frame_shape), np.uint8)


class MaskedStackedFramesEnv(StackedFramesEnv):
    """``StackedFramesEnv`` under FULL_ACTION_SET: one of the 3 actions, set by the newest frame,
    is illegal, so the legal-action masks vary from step to step."""

    ActionStyle = FULL_ACTION_SET

    def legal_action_space(self, player=None):
        illegal = int(self.stack[-1].sum()) % 3
        return [a for a in range(3) if a != illegal]


def _record_and_sample(make_trajectory, depth, frame_shape, capacity, steps, seed,
                       env_cls=StackedFramesEnv, **trajectory_kwargs):
    """Run a random agent, sampling from its trajectory every few steps with each sampler (and
    updating priorities); return the trajectory and every batch (or error message)."""
    env = env_cls(depth, frame_shape, max_length=2 * capacity, seed=seed)
    trajectory = make_trajectory(capacity, state=((depth, *frame_shape), np.uint8),
                                 **trajectory_kwargs)
    samplers = [BatchSampler(3, seed=seed), NStepBatchSampler(3, 0.9, 3, seed=seed)]
    rng = np.random.default_rng(seed)
    batches = []

    def sample(t, agent, env):
        for sampler in samplers:
            try:
                batch = sampler(agent.trajectory)
            except ValueError as e:
                batches.append(str(e))
                continue
            batches.append(dict(batch))
            if "priority" in agent.trajectory:
                agent.trajectory.update_priorities(batch["indices"], rng.random(3) + 0.1)

    run(Agent(RandomPolicy(seed=seed), trajectory), env, StopAfterStep(steps),
        DoEveryNStep(sample, n=3))
    sample(None, Agent(RandomPolicy(), trajectory), env)  # after the final PostExperiment rule
    return trajectory, batches


@pytest.mark.filterwarnings("ignore:FrameStackBuffer of shape:RuntimeWarning")  # short episodes
@pytest.mark.parametrize("cls", [CircularArraySARTTrajectory, CircularArrayPSARTTrajectory])
@settings(max_examples=50, deadline=None)
@given(depth=st.integers(1, 4), frame_shape=st.sampled_from([(), (2,), (2, 2)]),
       capacity=st.integers(3, 8), steps=st.integers(1, 120), seed=st.integers(0, 2**16))
def test_trajectory_samples_match_stacked_states(cls, depth, frame_shape, capacity, steps, seed):
    plain, expected = _record_and_sample(cls, depth, frame_shape, capacity, steps, seed)
    framed, got = _record_and_sample(lambda *a, **k: cls(*a, frame_stack=True, **k),
                                     depth, frame_shape, capacity, steps, seed)
    assert type(framed["state"]) is FrameStackBuffer
    np.testing.assert_array_equal(framed["state"].to_array(), plain["state"].to_array(),
                                  strict=True)
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        if isinstance(b, str):
            assert a == b
            continue
        assert a.keys() == b.keys()
        for key in b:
            np.testing.assert_array_equal(a[key], b[key], strict=True)


@pytest.mark.filterwarnings("ignore:FrameStackBuffer of shape:RuntimeWarning")  # short episodes
@settings(max_examples=30, deadline=None)
@given(depth=st.integers(1, 4), frame_shape=st.sampled_from([(), (2,)]),
       capacity=st.integers(3, 8), steps=st.integers(1, 120), seed=st.integers(0, 2**16))
def test_slart_trajectory_samples_match_stacked_states(depth, frame_shape, capacity, steps,
                                                       seed):
    # the legal_actions_mask path of the samplers, with masks that vary from step to step
    cls, mask = CircularArraySLARTTrajectory, ((3,), bool)
    plain, expected = _record_and_sample(cls, depth, frame_shape, capacity, steps, seed,
                                         MaskedStackedFramesEnv, legal_actions_mask=mask)
    framed, got = _record_and_sample(cls, depth, frame_shape, capacity, steps, seed,
                                     MaskedStackedFramesEnv, legal_actions_mask=mask,
                                     frame_stack=True)
    assert type(framed["state"]) is FrameStackBuffer
    np.testing.assert_array_equal(framed["state"].to_array(), plain["state"].to_array(),
                                  strict=True)
    np.testing.assert_array_equal(framed["legal_actions_mask"].to_array(),
                                  plain["legal_actions_mask"].to_array(), strict=True)
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        if isinstance(b, str):
            assert a == b
            continue
        assert a.keys() == b.keys()
        assert {"legal_actions_mask", "next_legal_actions_mask"} <= b.keys()
        assert not b["legal_actions_mask"].all()  # one action illegal in every state
        for key in b:
            np.testing.assert_array_equal(a[key], b[key], strict=True)


def test_slart_trajectory_takes_frame_stack():
    t = CircularArraySLARTTrajectory(5, state=((2, 3), np.uint8),
                                     legal_actions_mask=((2,), bool), frame_stack=True)
    assert type(t["state"]) is FrameStackBuffer and t["state"].capacity == 6
    assert "frame_stack=True" in repr(t)

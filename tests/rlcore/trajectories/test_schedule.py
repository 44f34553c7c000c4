"""``ReplaySchedule``: how many batches a replay learner draws at each env step, by hand;
``RolloutSchedule``: when an on-policy rollout is complete, and its time-major layout."""

import numpy as np
import pytest

from rlcore.trajectories import (
    BatchSampler, CircularArraySARTSTrajectory, CircularArraySARTTrajectory, NStepBatchSampler,
)
from rlcore.trajectories.schedule import ReplaySchedule, RolloutSchedule
from tests.helpers import counting_replay


def _grow(t, state):
    """Record one more transition into ``t`` (whose newest state is ``state``)."""
    t.push(reward=1.0, terminal=False, truncated=False)
    t.push(state=state + 1, action=0)


def _schedule(**kwargs):
    kwargs.setdefault("sampler", BatchSampler(2, seed=0))
    return ReplaySchedule(**kwargs)


def test_defaults():
    schedule = ReplaySchedule()
    assert type(schedule.sampler) is BatchSampler and schedule.sampler.batch_size == 32
    assert (schedule.min_replay_history, schedule.update_freq, schedule.gradient_steps,
            schedule.env_steps) == (1000, 1, 1, 0)


def test_one_env_learns_every_update_freq_steps_gradient_steps_batches():
    schedule = _schedule(min_replay_history=4, update_freq=2, gradient_steps=3)
    t = counting_replay(10)
    # env steps 1..6: the even ones are multiples of update_freq 2, each draws 3 batches
    assert [schedule.n_batches(t) for _ in range(6)] == [0, 3, 0, 3, 0, 3]
    assert schedule.env_steps == 6


def test_nothing_is_drawn_before_min_replay_history_transitions_are_held():
    schedule = _schedule(min_replay_history=4, update_freq=2, gradient_steps=3)
    t = counting_replay(3)
    # steps 1 and 2 count, but 3 < 4 transitions are held: the multiple 2 draws nothing (it is
    # not made up later)
    assert [schedule.n_batches(t), schedule.n_batches(t)] == [0, 0]
    assert schedule.env_steps == 2
    _grow(t, 3)                            # 4 transitions: learning may start
    assert len(t) == 4
    assert [schedule.n_batches(t), schedule.n_batches(t)] == [0, 3]    # steps 3 and 4


def test_eight_sub_envs_count_eight_env_steps_per_call():
    schedule = _schedule(min_replay_history=4, update_freq=2, gradient_steps=3)
    t = counting_replay(10)
    # steps 1-8 pass the multiples 2, 4, 6, 8 of update_freq: 4 · 3 batches; then 9-16 as many
    assert schedule.n_batches(t, n_steps=8) == 12 and schedule.env_steps == 8
    assert schedule.n_batches(t, n_steps=8) == 12 and schedule.env_steps == 16
    # update_freq 3: steps 1-8 pass 3 and 6 (2 · 3 batches), 9-16 pass 9, 12, 15 (3 · 3),
    # 17-24 pass 18, 21, 24 (3 · 3): 8 multiples in 24 steps, as one env would pass
    thirds = _schedule(min_replay_history=4, update_freq=3, gradient_steps=3)
    assert [thirds.n_batches(t, n_steps=8) for _ in range(3)] == [6, 9, 9]
    ones = _schedule(min_replay_history=4, update_freq=3, gradient_steps=3)
    assert sum(ones.n_batches(t) for _ in range(24)) == 24


def test_batches_draws_each_batch_when_the_previous_one_was_used():
    draws = []

    class Counting(BatchSampler):
        def sample(self, trajectory):
            draws.append(len(trajectory))
            return super().sample(trajectory)

        __call__ = sample

    schedule = _schedule(sampler=Counting(2, seed=0), min_replay_history=4, update_freq=2,
                         gradient_steps=3)
    t = counting_replay(10)
    batches = schedule.batches(t, n_steps=2)   # counts the 2 env steps at once: 3 batches
    assert schedule.env_steps == 2 and draws == []
    first = next(batches)
    assert draws == [10] and first["state"].shape == (2,)
    assert first["state"].tolist() == [s - 1 for s in first["next_state"].tolist()]
    _grow(t, 10)                   # what a learner changes between batches, the next one sees
    assert len(list(batches)) == 2 and draws == [10, 11, 11]
    assert list(schedule.batches(t)) == []     # step 3: odd


def test_an_n_step_sampler_draws_the_batches_too():
    schedule = _schedule(sampler=NStepBatchSampler(2, 0.5, 3, seed=0), min_replay_history=3)
    batch, = schedule.batches(counting_replay(5))
    # transitions from states 0..4, none terminal: a 2-step window gives reward 1 + 0.5 = 1.5
    # and discount 0.5² = 0.25; from state 4, the newest transition, the window is 1 step:
    # reward 1, discount 0.5
    for s, r, d in zip(batch["state"].tolist(), batch["reward"].tolist(),
                       batch["discount"].tolist()):
        assert (r, d) == ((1.5, 0.25) if s < 4 else (1.0, 0.5))


@pytest.mark.parametrize("field, value", [
    ("min_replay_history", 0), ("update_freq", 0), ("gradient_steps", 0),
    ("update_freq", 1.5), ("gradient_steps", True), ("min_replay_history", -3),
])
def test_a_bad_count_is_named_with_its_value(field, value):
    with pytest.raises(ValueError, match=f"{field} must be an integer >= 1, got {value!r}"):
        _schedule(**{field: value})


def test_the_warm_up_must_hold_a_batch_and_the_sampler_must_be_one():
    with pytest.raises(ValueError, match=r"min_replay_history \(16\) must be at least the "
                                         r"sampler's batch_size \(32\)"):
        ReplaySchedule(sampler=BatchSampler(32, seed=0), min_replay_history=16)
    ReplaySchedule(sampler=BatchSampler(32, seed=0), min_replay_history=32)
    with pytest.raises(TypeError, match="sampler must be a BatchSampler or NStepBatchSampler, "
                                        "got 'uniform'"):
        ReplaySchedule(sampler="uniform")


# --- RolloutSchedule

def _record_step(t, step, n_envs):
    t.extend(state=[step * 10 + i for i in range(n_envs)], action=[0] * n_envs)
    t.extend(reward=[float(step)] * n_envs, terminal=[False] * n_envs,
             truncated=[False] * n_envs, next_state=[(step + 1) * 10 + i for i in range(n_envs)])


def test_rollout_is_time_major_and_clears_the_trajectory():
    t = CircularArraySARTSTrajectory(6, n_envs=3, state=((), np.int64))
    schedule = RolloutSchedule(n_steps=2)
    _record_step(t, 0, 3)
    assert schedule.rollout(t) is None
    _record_step(t, 1, 3)
    batch = schedule.rollout(t)
    # row t, column i: step t of env i (state 10 t + i)
    assert batch["state"].tolist() == [[0, 1, 2], [10, 11, 12]]
    assert batch["next_state"].tolist() == [[10, 11, 12], [20, 21, 22]]
    assert batch["reward"].shape == (2, 3) and len(t) == 0 and schedule.rollouts == 1
    _record_step(t, 2, 3)
    assert schedule.rollout(t) is None


def test_rollout_waits_for_a_half_recorded_step():
    t = CircularArraySARTSTrajectory(2, state=((), np.int64))
    schedule = RolloutSchedule(n_steps=2)
    _record_step(t, 0, 1)
    _record_step(t, 1, 1)
    t.extend(state=[20], action=[0])  # a third step's state: the ring overwrote row 0
    assert schedule.rollout(t) is None


def test_rollout_schedule_checks_the_trajectory():
    schedule = RolloutSchedule(n_steps=4)
    with pytest.raises(ValueError, match=r"n_steps · n_envs = 4 · 2 = 8"):
        schedule.check(CircularArraySARTSTrajectory(6, n_envs=2))
    with pytest.raises(TypeError, match="CircularArraySARTSTrajectory"):
        schedule.check(CircularArraySARTTrajectory(8))
    schedule.check(CircularArraySARTSTrajectory(8, n_envs=2))
    with pytest.raises(ValueError, match="n_steps"):
        RolloutSchedule(n_steps=0)

"""Tests of rlcore/trajectories/recording.py: the default SART recording rules."""

import numpy as np
import pytest
from gymnasium import spaces

from rlcore.dispatch import update
from rlcore.envs.base import AbstractEnv
from rlcore.policies.base import AbstractPolicy
from rlcore.stages import (
    POST_ACT_STAGE, POST_EPISODE_STAGE, POST_EXPERIMENT_STAGE, PRE_ACT_STAGE, PRE_EPISODE_STAGE,
    PRE_EXPERIMENT_STAGE,
)
from rlcore.trajectories.trajectory import (
    CircularArrayPSARTTrajectory, CircularArraySARTTrajectory, CircularArraySLARTTrajectory,
    ElasticSARTTrajectory, VectorSARTTrajectory,
)


class CountingEnv(AbstractEnv):
    """State = step count within the episode + 10 * episode; reward = the action + 1.

    The episode terminates at step ``terminate_at`` or is truncated at ``truncate_at``.
    """

    def __init__(self, terminate_at=None, truncate_at=None):
        self.terminate_at, self.truncate_at = terminate_at, truncate_at
        self.episode, self.t, self.last_action = -1, 0, None

    def reset(self):
        self.episode += 1
        self.t = 0

    def __call__(self, action):
        self.t += 1
        self.last_action = action

    def state(self, player=None):
        return 10 * self.episode + self.t

    def reward(self, player=None):
        return float(self.last_action + 1)

    def is_terminated(self):
        return self.terminate_at is not None and self.t >= self.terminate_at

    def is_truncated(self):
        return self.truncate_at is not None and self.t >= self.truncate_at

    def action_space(self, player=None):
        return spaces.Discrete(2)

    def state_space(self, player=None):
        return spaces.Discrete(100)


class AlwaysOne(AbstractPolicy):
    def __call__(self, env):
        return 1


def run_episode(trajectory, policy, env, max_steps=None):
    """The run loop of DESIGN.md §3, calling only the trajectory rules."""
    env.reset()
    update(trajectory, policy, env, PRE_EPISODE_STAGE)
    steps = 0
    while not (env.is_terminated() or env.is_truncated()):
        action = policy(env)
        update(trajectory, policy, env, PRE_ACT_STAGE, action)
        env(action)
        update(trajectory, policy, env, POST_ACT_STAGE)
        steps += 1
        if max_steps is not None and steps == max_steps:
            return False
    update(trajectory, policy, env, POST_EPISODE_STAGE)
    return True


def contents(t):
    return {name: [x.tolist() if isinstance(x, np.ndarray) else x for x in t[name].to_array()]
            for name in t.keys()}


def test_terminated_then_truncated_then_stopped_mid_episode():
    t = CircularArraySARTTrajectory(100, state=((), np.int64))
    policy, env = AlwaysOne(), CountingEnv()
    update(t, policy, env, PRE_EXPERIMENT_STAGE)
    # episode 0 terminates after 2 steps
    env.terminate_at, env.truncate_at = 2, None
    assert run_episode(t, policy, env)
    assert contents(t) == {"state": [0, 1, 2], "action": [1, 1, 0], "reward": [2.0, 2.0],
                           "terminal": [False, True], "truncated": [False, False]}
    # episode 1 is truncated after 2 steps: the pair (final state 12, dummy) is dropped first
    env.terminate_at, env.truncate_at = None, 2
    assert run_episode(t, policy, env)
    assert contents(t)["state"] == [0, 1, 10, 11, 12]
    assert contents(t)["truncated"] == [False, False, False, True]
    # episode 2 starts: the truncated episode's final state 12 is kept behind a padding step
    env.terminate_at, env.truncate_at = None, None
    assert not run_episode(t, policy, env, max_steps=2)
    update(t, policy, env, POST_EXPERIMENT_STAGE)
    assert contents(t) == {
        "state": [0, 1, 10, 11, 12, 20, 21, 22],
        "action": [1, 1, 1, 1, 0, 1, 1, 0],
        "reward": [2.0, 2.0, 2.0, 2.0, 0.0, 2.0, 2.0],
        "terminal": [False, True, False, False, True, False, False],
        "truncated": [False, False, False, True, True, False, True],
    }
    # PostExperiment is idempotent; a new run closes the cut step as padding
    update(t, policy, env, POST_EXPERIMENT_STAGE)
    assert len(t["state"]) == 8
    env.terminate_at = 1
    assert run_episode(t, policy, env)
    c = contents(t)
    assert c["state"][7:] == [22, 30, 31]
    assert c["terminal"][7:] == [True, True] and c["truncated"][7:] == [True, False]


def test_terminal_and_time_limit_on_the_same_step_is_terminal():
    t = CircularArraySARTTrajectory(10, state=((), np.int64))
    env = CountingEnv(terminate_at=1, truncate_at=1)
    run_episode(t, AlwaysOne(), env)
    assert contents(t)["terminal"] == [True] and contents(t)["truncated"] == [False]
    env.terminate_at = env.truncate_at = 5
    run_episode(t, AlwaysOne(), env)
    assert contents(t)["state"][:2] == [0, 10]  # the pair was dropped, not padded


def test_slart_records_masks():
    class Masked(CountingEnv):
        def legal_action_space_mask(self, player=None):
            return np.array([self.t % 2 == 0, True])

    t = CircularArraySLARTTrajectory(10, state=((), np.int64), legal_actions_mask=((2,), bool))
    env = Masked(truncate_at=1)
    run_episode(t, AlwaysOne(), env)
    # after a truncation the final state's real mask is kept (a learner bootstraps from it)
    assert contents(t)["legal_actions_mask"] == [[True, True], [False, True]]
    env.truncate_at, env.terminate_at = None, 1
    run_episode(t, AlwaysOne(), env)
    # padding closed the first episode; after a termination the dummy mask is all True
    assert contents(t)["legal_actions_mask"] == [[True, True], [False, True], [True, True],
                                                 [True, True]]


def test_psart_gives_new_steps_max_priority_and_padding_zero():
    t = CircularArrayPSARTTrajectory(10, state=((), np.int64))
    env = CountingEnv(truncate_at=2)
    run_episode(t, AlwaysOne(), env)
    t.update_priorities([0], [3.0])
    env.truncate_at, env.terminate_at = None, 1
    run_episode(t, AlwaysOne(), env)
    assert t["priority"].to_array().tolist() == [3.0, 1.0, 0.0, 3.0]


@pytest.mark.parametrize("make", [
    lambda: VectorSARTTrajectory(),
    lambda: ElasticSARTTrajectory(state=((), np.int64)),
])
def test_episodic_trajectories_record_the_same(make):
    t = make()
    env = CountingEnv(terminate_at=2)
    run_episode(t, AlwaysOne(), env)
    assert [int(s) for s in t["state"].to_array()] == [0, 1, 2]
    assert [float(r) for r in t["reward"].to_array()] == [2.0, 2.0]
    assert [bool(x) for x in t["terminal"].to_array()] == [False, True]
    run_episode(t, AlwaysOne(), env)
    assert [int(s) for s in t["state"].to_array()] == [0, 1, 10, 11, 12]


def test_a_bad_action_or_state_leaves_the_trajectory_unchanged():
    t = CircularArraySARTTrajectory(2, state=((), np.int64))
    env, policy = CountingEnv(terminate_at=1), AlwaysOne()
    for _ in range(3):
        run_episode(t, policy, env)
    before = contents(t)
    env.reset()
    update(t, policy, env, PRE_EPISODE_STAGE)
    before = contents(t)
    with pytest.raises(ValueError, match=r"action 0\.5 is not in the action space"):
        update(t, policy, env, PRE_ACT_STAGE, 0.5)
    assert contents(t) == before

    class BadState(CountingEnv):
        def state(self, player=None):
            return np.zeros(3)

    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        update(t, policy, BadState(), PRE_ACT_STAGE, 1)
    assert contents(t) == before


def test_other_stages_record_nothing():
    t = CircularArraySARTTrajectory(2, state=((), np.int64))
    update(t, AlwaysOne(), CountingEnv(), PRE_EXPERIMENT_STAGE)
    update(t, AlwaysOne(), CountingEnv(), POST_EXPERIMENT_STAGE)  # nothing recorded: no-op
    assert all(len(trace) == 0 for trace in t.traces.values())


def test_circular_overflow_keeps_alignment():
    """With overwrites, state and reward stay aligned through their stream positions."""
    from rlcore.trajectories.samplers import BatchSampler

    t = CircularArraySARTTrajectory(5, state=((), np.int64))
    env, policy = CountingEnv(terminate_at=3), AlwaysOne()
    for _ in range(7):
        run_episode(t, policy, env)
    assert t["state"].to_array().tolist() == [51, 52, 60, 61, 62, 63]
    batch = BatchSampler(5, rng=0)(t)
    assert np.all(batch.terminal == (batch.state % 10 == 2))
    # a terminal step's pair was dropped (as in RL.jl): its next_state is the next episode's
    # first state, never used since the target does not bootstrap past a terminal step
    expected = np.where(batch.state == 52, 60, batch.state + 1)
    np.testing.assert_array_equal(batch.next_state, expected)

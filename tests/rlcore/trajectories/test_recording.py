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
    CircularArrayPSARTTrajectory, CircularArraySARTSTrajectory, CircularArraySARTTrajectory,
    CircularArraySLARTTrajectory, ElasticSARTTrajectory, VectorSARTTrajectory,
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
    """The run loop of docs/architecture.md §3, calling only the trajectory rules."""
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


# --- the SARTS layout, one environment ------------------------------------------------------

def test_sarts_records_each_transition_with_its_next_state():
    t = CircularArraySARTSTrajectory(100, state=((), np.int64))
    policy, env = AlwaysOne(), CountingEnv(terminate_at=2)
    update(t, policy, env, PRE_EXPERIMENT_STAGE)
    assert run_episode(t, policy, env)       # episode 0: 0 -> 1 -> 2, terminated
    env.terminate_at, env.truncate_at = None, 2
    assert run_episode(t, policy, env)       # episode 1: 10 -> 11 -> 12, truncated
    env.truncate_at = None
    assert not run_episode(t, policy, env, max_steps=2)  # episode 2: 20 -> 21 -> 22, cut
    update(t, policy, env, POST_EXPERIMENT_STAGE)
    # one row per step, no padding, no dummy actions; the cut step is marked truncated
    assert contents(t) == {
        "state": [0, 1, 10, 11, 20, 21],
        "action": [1, 1, 1, 1, 1, 1],
        "reward": [2.0] * 6,
        "terminal": [False, True, False, False, False, False],
        "truncated": [False, False, False, True, False, True],
        "next_state": [1, 2, 11, 12, 21, 22],
    }
    update(t, policy, env, POST_EXPERIMENT_STAGE)  # idempotent
    assert contents(t)["truncated"][-1] and len(t) == 6


def test_sarts_post_experiment_keeps_a_terminal_last_step_and_needs_a_complete_one():
    t = CircularArraySARTSTrajectory(10, state=((), np.int64))
    policy, env = AlwaysOne(), CountingEnv(terminate_at=1)
    update(t, policy, env, POST_EXPERIMENT_STAGE)  # nothing recorded: nothing to mark
    run_episode(t, policy, env)
    update(t, policy, env, POST_EXPERIMENT_STAGE)
    assert contents(t)["terminal"] == [True] and contents(t)["truncated"] == [False]
    env.reset()
    update(t, policy, env, PRE_ACT_STAGE, 1)  # a step without its outcome: not complete
    update(t, policy, env, POST_EXPERIMENT_STAGE)
    assert contents(t)["truncated"] == [False]


def test_sarts_prioritized_rows_get_the_max_priority():
    t = CircularArraySARTSTrajectory(10, state=((), np.int64), prioritized=True)
    env = CountingEnv(terminate_at=2)
    run_episode(t, AlwaysOne(), env)
    t.update_priorities([0], [3.0])
    run_episode(t, AlwaysOne(), env)
    assert t["priority"].to_array().tolist() == [3.0, 1.0, 3.0, 3.0]


def test_sarts_validates_before_pushing():
    t = CircularArraySARTSTrajectory(10, state=((), np.int64))
    policy, env = AlwaysOne(), CountingEnv()
    env.reset()
    with pytest.raises(ValueError, match=r"action 0\.5 is not in the action space"):
        update(t, policy, env, PRE_ACT_STAGE, 0.5)
    update(t, policy, env, PRE_ACT_STAGE, 1)
    env(1)

    class BadState(CountingEnv):
        def state(self, player=None):
            return np.zeros(3)

    bad = BadState()
    bad.reset()
    bad(1)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        update(t, policy, bad, POST_ACT_STAGE)  # a bad next state: no reward either
    assert [len(trace) for trace in t.traces.values()] == [1, 1, 0, 0, 0, 0]


def test_sarts_of_another_n_envs_is_refused():
    t = CircularArraySARTSTrajectory(10, n_envs=2, state=((), np.int64))
    env = CountingEnv()
    env.reset()
    with pytest.raises(ValueError, match=r"built with n_envs=2 but n_envs\(.*\) is 1: build "
                                         r"it with n_envs=1"):
        update(t, AlwaysOne(), env, PRE_ACT_STAGE, 1)
    assert len(t["state"]) == 0


def test_sarts_through_run_and_agent():
    from rlcore import Agent, StopAfterStep, run

    t = CircularArraySARTSTrajectory(100, state=((), np.int64))
    run(Agent(AlwaysOne(), t), CountingEnv(terminate_at=3), StopAfterStep(7))
    # episodes 0 -> 3 and 10 -> 13 terminated, then 20 -> 21 cut by the stop condition
    assert contents(t)["state"] == [0, 1, 2, 10, 11, 12, 20]
    assert contents(t)["next_state"] == [1, 2, 3, 11, 12, 13, 21]
    assert contents(t)["terminal"] == [False, False, True, False, False, True, False]
    assert contents(t)["truncated"] == [False] * 6 + [True]

"""``AbstractReplayLearner``: its one ``PreActStage`` rule learns from exactly the batches its
schedule draws, counting ``n_envs(env)`` env steps per step."""

import attrs
import numpy as np

from rlcore import (
    PRE_ACT_STAGE, AbstractReplayLearner, Agent, BatchSampler, CircularArraySARTSTrajectory,
    CircularArraySARTTrajectory, QBasedPolicy, ReplaySchedule, StopAfterStep, run,
)
from rlcore.dispatch import dispatch, update
from rlcore.explorers import AbstractExplorer
from rlenvs import CartPoleEnv, MultiThreadEnv
from tests.helpers import LineEnv, counting_replay


@attrs.define(eq=False)
class RecordingLearner(AbstractReplayLearner):
    """Values 0 for its 2 actions; records the env step count at each batch it learns from."""

    schedule: ReplaySchedule
    learned_at: list = attrs.field(factory=list)

    def __call__(self, env):
        states = np.asarray(env.state())
        return np.zeros(2) if isinstance(env, LineEnv) else np.zeros((len(states), 2))


@dispatch(RecordingLearner, object)
def update(learner, batch):  # noqa: F811
    assert len(batch["state"]) == learner.schedule.sampler.batch_size
    learner.learned_at.append(learner.schedule.env_steps)


class FirstAction(AbstractExplorer):
    """Action 0, for one env or for each row of a vector env's values."""

    def __call__(self, values, mask=None):
        return 0 if np.ndim(values) == 1 else np.zeros(len(values), np.int64)

    def prob(self, values, mask=None):
        return np.eye(np.shape(values)[-1])[0]


def _learner(min_replay_history, update_freq=2, gradient_steps=1):
    return RecordingLearner(ReplaySchedule(sampler=BatchSampler(2, seed=0),
                                           min_replay_history=min_replay_history,
                                           update_freq=update_freq,
                                           gradient_steps=gradient_steps))


def test_the_pre_act_rule_learns_from_the_schedules_batches():
    learner = _learner(4, update_freq=2, gradient_steps=3)
    t, env = counting_replay(10), LineEnv()
    for _ in range(5):
        update(learner, t, env, PRE_ACT_STAGE)
    # env steps 2 and 4 are multiples of update_freq 2: 3 batches each
    assert learner.learned_at == [2, 2, 2, 4, 4, 4]
    assert learner.schedule.env_steps == 5


def test_through_run_it_learns_exactly_when_the_schedule_says():
    # LineEnv(3): episodes of 3 steps ending in a terminal state, so at env step t the replay
    # holds t - 1 transitions: with 4 needed and update_freq 2, steps 6, 8 and 10 learn
    learner = _learner(4)
    trajectory = CircularArraySARTTrajectory(100, state=((), np.int64))
    run(Agent(QBasedPolicy(learner, FirstAction()), trajectory), LineEnv(3), StopAfterStep(10))
    assert learner.learned_at == [6, 8, 10]


def test_a_vector_env_counts_its_sub_envs_steps():
    # 4 sub-envs: batched step k takes env steps 4k - 3..4k with 4 (k - 1) transitions held;
    # 8 are needed, so k = 3..6 learn, each passing 2 multiples of update_freq 2: 8 batches,
    # as many as one env takes in 24 steps (steps 10, 12, ..., 24)
    learner = _learner(8)
    env = MultiThreadEnv(lambda: CartPoleEnv(seed=None), 4, seed=0)
    trajectory = CircularArraySARTSTrajectory(100, n_envs=4, state=((4,), np.float32))
    run(Agent(QBasedPolicy(learner, FirstAction()), trajectory), env, StopAfterStep(24))
    assert learner.learned_at == [12, 12, 16, 16, 20, 20, 24, 24]
    assert learner.schedule.env_steps == 24
    one = _learner(8)
    run(Agent(QBasedPolicy(one, FirstAction()), CircularArraySARTTrajectory(
        100, state=((), np.int64))), LineEnv(100), StopAfterStep(24))
    assert one.learned_at == [10, 12, 14, 16, 18, 20, 22, 24]

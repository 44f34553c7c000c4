"""The DQN family as ``rlzoo.dqns`` exports it: learners whose hyper-parameters are keywords."""

import inspect

import pytest

from rlzoo import dqns
from tests.rlzoo.dqns.dqn_helpers import learner_and_batch

LEARNERS = ["BasicDQNLearner", "DQNLearner", "PrioritizedDQNLearner", "C51Learner",
            "QRDQNLearner", "IQNLearner", "REMDQNLearner", "RainbowLearner"]


def test_every_learner_is_a_replay_learner_with_a_schedule():
    from rlcore import AbstractReplayLearner

    for name in LEARNERS:
        cls = getattr(dqns, name)
        assert issubclass(cls, AbstractReplayLearner), name
        assert "schedule" in inspect.signature(cls.__init__).parameters, name


def test_hyper_parameters_are_keyword_only():
    # docs/architecture.md §4: hyper-parameters are keyword fields; a field added later (as
    # gradient_steps was) cannot shift a positional call onto the wrong parameter
    for name in LEARNERS:
        parameters = list(inspect.signature(getattr(dqns, name).__init__).parameters.values())
        assert [p.name for p in parameters[:2]] == ["self", "approximator"], name
        assert parameters[1].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, name
        assert len(parameters) > 3 and all(
            p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[2:]), name
    learner, _ = learner_and_batch("DQN_CartPole")
    with pytest.raises(TypeError, match="positional"):
        type(learner)(learner.approximator, learner.schedule)


@pytest.mark.parametrize("name", LEARNERS)
def test_a_sampler_given_as_the_schedule_is_named_as_such(name):
    # before the schedule, learners took `sampler=`; a sampler passed as `schedule=` must fail
    # at construction, naming what was expected, not deep inside the first update
    from rlcore import BatchSampler

    learner, _ = learner_and_batch(name.replace("Learner", "_CartPole"))
    with pytest.raises(TypeError, match="'schedule' must be <class 'rlcore.trajectories.schedule"
                                        ".ReplaySchedule'>"):
        type(learner)(learner.approximator, schedule=BatchSampler(32, seed=0))

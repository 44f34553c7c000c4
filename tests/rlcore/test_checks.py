"""rlcore.checks and the replay learners' PreExperimentStage rule: what every replay learner
checks before the first step, whatever its family."""

import attrs
import numpy as np
import pytest
import torch
from gymnasium import spaces

from rlcore import (
    PRE_EXPERIMENT_STAGE, AbstractReplayLearner, BatchSampler, CircularArraySARTSTrajectory,
    CircularArraySARTTrajectory, EnvMismatchError, ReplaySchedule,
)
from rlcore.checks import check_discrete_actions, check_network_input
from rlcore.dispatch import update
from tests.helpers import LineEnv


@attrs.define(eq=False)
class ZeroLearner(AbstractReplayLearner):
    """A replay learner with no checks of its own (``check_env``'s default)."""

    schedule: ReplaySchedule = attrs.field(factory=lambda: ReplaySchedule(
        sampler=BatchSampler(2, seed=0)))

    def __call__(self, env):
        return np.zeros(2)


class DictLine(LineEnv):
    def state(self, player=None):
        return {"position": self.position}

    def state_space(self, player=None):
        return spaces.Dict({"position": spaces.Discrete(self.length + 1)})


class TupleLine(DictLine):
    def state_space(self, player=None):
        return spaces.Tuple((spaces.Discrete(self.length + 1),))


def test_the_error_is_a_value_error_exported_by_rlcore():
    assert issubclass(EnvMismatchError, ValueError)


@pytest.mark.parametrize("env", [DictLine(), TupleLine()], ids=["Dict", "Tuple"])
def test_every_replay_learner_refuses_observations_it_cannot_store(env):
    with pytest.raises(EnvMismatchError, match=rf"has {type(env.state_space()).__name__} "
                                               r"observations .*, which a replay cannot store as "
                                               r"arrays; .*FlattenObservation"):
        update(ZeroLearner(), CircularArraySARTTrajectory(10), env, PRE_EXPERIMENT_STAGE)


def test_every_replay_learner_checks_the_trajectorys_n_envs():
    t = CircularArraySARTSTrajectory(10, n_envs=2, state=((), np.int64))
    with pytest.raises(EnvMismatchError, match=r"built with n_envs=2 but n_envs\(LineEnv\(\)\) "
                                               r"is 1: build it with n_envs=1"):
        update(ZeroLearner(), t, LineEnv(), PRE_EXPERIMENT_STAGE)
    update(ZeroLearner(), CircularArraySARTTrajectory(10, state=((), np.int64)), LineEnv(),
           PRE_EXPERIMENT_STAGE)  # a suitable env passes


def test_discrete_actions_need_the_networks_count():
    check_discrete_actions(spaces.Discrete(3), "env", "learner", n_actions=3)
    with pytest.raises(EnvMismatchError, match=r"learner's network gives values for n_actions=2 "
                                               r"actions, but the action space of 'env' is "
                                               r"Discrete\(3\)"):
        check_discrete_actions(spaces.Discrete(3), "env", "learner", n_actions=2)


def test_a_network_check_restores_training_mode_and_names_convolutions():
    model = torch.nn.Sequential(torch.nn.Conv2d(4, 8, 3), torch.nn.Flatten())
    space = spaces.Box(0, 255, (3, 8, 8), np.uint8)
    with pytest.raises(EnvMismatchError, match=r"a state has shape \(3, 8, 8\) and dtype uint8; "
                                               r"its first layer Conv2d\(4, 8, .*\) takes inputs "
                                               r"of 4 channels"):
        check_network_input(model, lambda s: model(torch.as_tensor(s, dtype=torch.float32)),
                            space, "env", "learner")
    assert model.training
    out = check_network_input(model, lambda s: model(torch.as_tensor(s, dtype=torch.float32)),
                              spaces.Box(0, 255, (4, 8, 8), np.uint8), "env", "learner")
    assert out.shape == (1, 8 * 6 * 6) and model.training and not out.requires_grad

"""The recording rules refuse a NaN or infinite reward at the step it is given, naming the env
and the step, for every trajectory kind, one env or a vector env (rlcore.trajectories.recording,
rlenvs.vector_env)."""

import re

import numpy as np
import pytest
from gymnasium import spaces

from rlcore import (
    Agent, CircularArrayPSARTTrajectory, CircularArraySARTSTrajectory,
    CircularArraySARTTrajectory, CircularArraySLARTTrajectory, ElasticSARTTrajectory,
    EnvMismatchError, RandomPolicy, StopAfterStep, VectorSARTTrajectory, run,
)
from rlcore.checks import check_finite_reward, check_finite_rewards
from rlenvs import MultiThreadEnv
from tests.helpers import LineEnv

INT_STATE = ((), np.int64)


class BadRewardLine(LineEnv):
    """``LineEnv`` (reward 1 per step, episodes of ``length`` steps) whose reward at its
    ``at``-th step of the run is ``bad``."""

    def __init__(self, at, bad=float("nan"), length=4):
        super().__init__(length=length)
        self.at, self.bad, self.steps = at, bad, 0

    def __call__(self, action):
        super().__call__(action)
        self.steps += 1

    def reward(self, player=None):
        return self.bad if self.steps == self.at else super().reward(player)

    def __repr__(self):
        return f"BadRewardLine(at={self.at})"


TRAJECTORIES = {
    "SART": lambda: CircularArraySARTTrajectory(100, state=INT_STATE),
    "SLART": lambda: CircularArraySLARTTrajectory(100, state=INT_STATE,
                                                  legal_actions_mask=((2,), bool)),
    "PSART": lambda: CircularArrayPSARTTrajectory(100, state=INT_STATE),
    "SARTS": lambda: CircularArraySARTSTrajectory(100, state=INT_STATE),
    "Elastic": lambda: ElasticSARTTrajectory(state=INT_STATE),
    "Vector": lambda: VectorSARTTrajectory(),
}


@pytest.mark.parametrize("kind", sorted(TRAJECTORIES))
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -np.inf, np.float32("nan")])
def test_a_non_finite_reward_names_the_env_and_the_step(kind, bad):
    # step 7 of the run: the 3rd of the second 4-step episode; a SART trajectory has recorded
    # 6 rewards before it (the terminated episode's pair is dropped, nothing padded)
    trajectory = TRAJECTORIES[kind]()
    message = rf"BadRewardLine\(at=7\) gave the reward {re.escape(repr(bad))} at step 7; " \
              rf"expected a finite number"
    with pytest.raises(EnvMismatchError, match=message):
        run(Agent(RandomPolicy(seed=0), trajectory), BadRewardLine(7, bad), StopAfterStep(20))
    assert len(trajectory["reward"]) == 6  # nothing of the bad step's reward or flags
    assert len(trajectory["terminal"]) == 6


def test_finite_rewards_of_every_kind_pass():
    for reward in (0, 1.5, np.float32(-2), np.int64(3), np.array([1.0, 2.0]), np.float64(1e300)):
        check_finite_reward(reward, "env", 1)
    check_finite_rewards(np.array([0.0, 1.0]), "env", 1)
    check_finite_rewards(np.array([0, 1]), "env", 1)
    with pytest.raises(EnvMismatchError, match=r"'env' gave the reward array\(\[ 1., nan\]\) "
                                               r"at step 2"):
        check_finite_reward(np.array([1.0, np.nan]), "env", 2)


def test_a_reward_that_is_no_number_keeps_the_traces_message():
    class TextReward(LineEnv):
        def reward(self, player=None):
            return "one"

    with pytest.raises(TypeError, match=r"cannot store 'one' \(dtype <U3\) in a buffer of "
                                        r"dtype float32"):
        run(Agent(RandomPolicy(seed=0), CircularArraySARTTrajectory(100, state=INT_STATE)),
            TextReward(), StopAfterStep(5))


class SpaceLine(BadRewardLine):
    """A ``BadRewardLine`` with a Box state, as a Gymnasium vector env stacks states."""

    def state(self, player=None):
        return np.array([self.position], np.float32)

    def state_space(self, player=None):
        return spaces.Box(0.0, 10.0, (1,), np.float32)


def test_a_vector_env_names_the_sub_envs_and_the_batched_step():
    factories = [lambda: SpaceLine(None), lambda: SpaceLine(3, float("-inf")),
                 lambda: SpaceLine(None)]
    trajectory = CircularArraySARTSTrajectory(100, n_envs=3, state=((1,), np.float32))
    with MultiThreadEnv(factories, seed=0) as env:
        with pytest.raises(EnvMismatchError, match=r"MultiThreadEnv\(n=3, mode='sync'\) gave "
                                                   r"the rewards \[-inf\] \(sub-envs \[1\]\) at "
                                                   r"step 3; expected finite numbers"):
            run(Agent(RandomPolicy(seed=0), trajectory), env, StopAfterStep(30))
    assert len(trajectory["reward"]) == 6  # two whole steps of 3 rows, nothing of the third

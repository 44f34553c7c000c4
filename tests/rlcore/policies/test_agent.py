import numpy as np
import pytest

from rlcore.hooks import StepsPerEpisode
from rlcore.policies import Agent, RandomPolicy
from rlcore.run import run
from rlcore.stop_conditions import StopAfterEpisode, StopAfterStep
from rlcore.trajectories import CircularArraySARTTrajectory, VectorSARTTrajectory
from tests.helpers import LineEnv


def test_agent_records_sart_through_run():
    agent = Agent(RandomPolicy(seed=0), VectorSARTTrajectory())
    run(agent, LineEnv(length=3), StopAfterEpisode(2))
    t = agent.trajectory
    # Two terminated episodes: the dummy pair of the first is dropped at the second's start,
    # the second's final state and dummy action stay until the next episode.
    assert list(t["state"]) == [0, 1, 2, 0, 1, 2, 3]
    assert list(t["reward"]) == [1.0] * 6
    assert list(t["terminal"]) == [False, False, True] * 2
    assert list(t["truncated"]) == [False] * 6
    assert len(t) == 6


def test_agent_with_circular_trajectory_keeps_the_latest():
    agent = Agent(RandomPolicy(seed=0), CircularArraySARTTrajectory(
        capacity=4, state=((), np.int64)))
    run(agent, LineEnv(length=3), StopAfterStep(7))
    t = agent.trajectory
    assert len(t) == 4
    assert list(t["reward"]) == [1.0] * 4


def test_agent_validates_its_parts():
    with pytest.raises(TypeError):
        Agent(RandomPolicy(), trajectory=[])
    with pytest.raises(TypeError):
        Agent(policy=lambda env: 0, trajectory=VectorSARTTrajectory())


def test_hooks_see_the_agent_as_the_policy():
    seen = []
    from rlcore.hooks import DoOnExit

    agent = Agent(RandomPolicy(seed=0), VectorSARTTrajectory())
    run(agent, LineEnv(), StopAfterStep(2), DoOnExit(lambda p, e: seen.append(p)) + StepsPerEpisode())
    assert seen == [agent]


def test_an_illegal_action_records_nothing():
    from rlcore.policies.base import AbstractPolicy

    class SevenPolicy(AbstractPolicy):
        def __call__(self, env):
            return 7

    for trajectory in (VectorSARTTrajectory(),
                       CircularArraySARTTrajectory(capacity=8, state=((), np.int64))):
        agent = Agent(RandomPolicy(seed=0), trajectory)
        env = LineEnv(length=3)
        run(agent, env, StopAfterStep(2))
        before = {k: list(v) for k, v in trajectory.traces.items()}
        agent.policy = SevenPolicy()
        with pytest.raises(ValueError, match="action 7 is not in the action space Discrete"):
            run(agent, env, StopAfterStep(1))
        after = {k: list(v) for k, v in trajectory.traces.items()}
        # only the previous run's cut transition was closed as padding at the new PreEpisode
        assert after["state"] == before["state"]
        assert after["reward"] == before["reward"] + [0.0]

"""``Agent``: a policy plus a trajectory (docs/architecture.md §4)."""

import attrs

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.policies.base import AbstractPolicy
from rlcore.stages import AbstractStage, PreActStage
from rlcore.trajectories.base import AbstractTrajectory

__all__ = ["Agent"]


@attrs.define
class Agent(AbstractPolicy):
    """A policy that records its experience into a trajectory and learns from it.

    At every stage the agent first lets the trajectory record
    (``update(trajectory, policy, env, stage[, action])``), then lets the policy learn
    (``update(policy, trajectory, env, stage)``).

    >>> from rlcore import RandomPolicy, CircularArraySARTTrajectory, run, StopAfterStep
    >>> from rlenvs import GymEnv
    >>> agent = Agent(RandomPolicy(seed=0), CircularArraySARTTrajectory(
    ...     capacity=1000, state=((4,), "float32")))
    >>> _ = run(agent, GymEnv("CartPole-v1", seed=0), StopAfterStep(100))
    >>> len(agent.trajectory)
    100
    """

    policy: AbstractPolicy = attrs.field(validator=attrs.validators.instance_of(AbstractPolicy))
    trajectory: AbstractTrajectory = attrs.field(
        validator=attrs.validators.instance_of(AbstractTrajectory))

    def __call__(self, env):
        return self.policy(env)

    def prob(self, env):
        return self.policy.prob(env)


@dispatch(object, AbstractEnv, AbstractStage)
def update(policy, env, stage):
    """Default: a policy ignores the stage."""


@dispatch(object, AbstractEnv, PreActStage, object)
def update(policy, env, stage, action):  # noqa: F811
    """Default: a policy ignores the chosen action."""


@dispatch(Agent, AbstractEnv, AbstractStage)
def update(agent, env, stage):  # noqa: F811
    update(agent.trajectory, agent.policy, env, stage)
    update(agent.policy, agent.trajectory, env, stage)


@dispatch(Agent, AbstractEnv, PreActStage, object)
def update(agent, env, stage, action):  # noqa: F811
    update(agent.trajectory, agent.policy, env, stage, action)
    update(agent.policy, agent.trajectory, env, stage)

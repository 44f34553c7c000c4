"""``ActorPolicy``: acts with an actor-critic learner's policy through an explorer.

``policy(env)`` is ``explorer(learner(env))`` for the environment's row(s): the learner gives
its actor's output for a batch of states (a distribution for the stochastic actors of PPO, A2C
and SAC, deterministic actions for DDPG and TD3), the explorer turns it into actions (samples
or adds noise in training, takes the mode or the action itself in test mode), and the policy
returns the one action of one environment or the ``n`` actions of a vectorised one
(:func:`rlzoo.inputs.for_env`). ``update(policy, trajectory, env, stage)`` is forwarded to the
learner, as ``QBasedPolicy`` does.
"""

import attrs

from rlcore import AbstractExplorer, AbstractLearner, AbstractPolicy, AbstractTrajectory
from rlcore.dispatch import dispatch, update
from rlcore.envs import AbstractEnv
from rlcore.logger import scalars
from rlcore.stages import AbstractStage
from rlzoo.inputs import for_env

__all__ = ["ActorPolicy"]


@attrs.define
class ActorPolicy(AbstractPolicy):
    """Acts by giving the learner's actor output to an explorer: ``explorer(learner(env))``.

    >>> import torch
    >>> from rlcore import DistributionExplorer, NeuralNetworkApproximator
    >>> from rlzoo.policy_gradient import ActorCritic, CategoricalActor, PPOLearner, ValueCritic
    >>> model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    >>> learner = PPOLearner(NeuralNetworkApproximator(model, torch.optim.Adam(
    ...     model.parameters(), lr=3e-4)))
    >>> policy = ActorPolicy(learner, DistributionExplorer(seed=0))
    """

    learner: AbstractLearner = attrs.field(validator=attrs.validators.instance_of(AbstractLearner))
    explorer: AbstractExplorer = attrs.field(
        validator=attrs.validators.instance_of(AbstractExplorer))

    def __call__(self, env):
        return for_env(self.explorer(self.learner(env)), env)

    def prob(self, env):
        return for_env(self.explorer.prob(self.learner(env)), env)


@dispatch(ActorPolicy, AbstractTrajectory, AbstractEnv, AbstractStage)
def update(policy, trajectory, env, stage):  # noqa: F811
    update(policy.learner, trajectory, env, stage)


@dispatch(ActorPolicy)
def scalars(policy):  # noqa: F811
    """The learner's scalars and the explorer's."""
    return {**scalars(policy.learner), **scalars(policy.explorer)}

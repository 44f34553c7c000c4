"""``QBasedPolicy`` and ``VBasedPolicy``: policies built on a learner's value estimates."""

import attrs

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.envs.traits import FullActionSet
from rlcore.explorers.base import AbstractExplorer
from rlcore.policies.base import AbstractLearner, AbstractPolicy
from rlcore.stages import AbstractStage
from rlcore.trajectories.base import AbstractTrajectory

__all__ = ["QBasedPolicy", "VBasedPolicy"]


@attrs.define
class QBasedPolicy(AbstractPolicy):
    """Acts by giving the learner's action values to an explorer: ``explorer(learner(env))``.

    Under ``FULL_ACTION_SET`` the explorer also receives ``env.legal_action_space_mask()``.
    ``update(policy, trajectory, env, stage)`` is forwarded to the learner.

    >>> from rlcore.explorers import EpsilonGreedyExplorer
    >>> from rlzoo.tabular import TDLearner
    >>> from rlcore.approximators import TabularQApproximator
    >>> policy = QBasedPolicy(
    ...     learner=TDLearner(TabularQApproximator(n_state=7, n_action=2), method="Q"),
    ...     explorer=EpsilonGreedyExplorer(epsilon_stable=0.1, seed=0))
    """

    learner: AbstractLearner = attrs.field(validator=attrs.validators.instance_of(AbstractLearner))
    explorer: AbstractExplorer = attrs.field(
        validator=attrs.validators.instance_of(AbstractExplorer))

    def __call__(self, env):
        if isinstance(env.ActionStyle, FullActionSet):
            return self.explorer(self.learner(env), env.legal_action_space_mask())
        return self.explorer(self.learner(env))

    def prob(self, env):
        if isinstance(env.ActionStyle, FullActionSet):
            return self.explorer.prob(self.learner(env), env.legal_action_space_mask())
        return self.explorer.prob(self.learner(env))


@attrs.define
class VBasedPolicy(AbstractPolicy):
    """Acts through ``mapping(env, learner)``, where the learner estimates state values.

    ``mapping`` turns the value estimates into an action (e.g. a one-step look-ahead with a
    model, or a fixed behaviour policy for prediction). ``update(policy, trajectory, env, stage)``
    is forwarded to the learner.
    """

    learner: AbstractLearner = attrs.field(validator=attrs.validators.instance_of(AbstractLearner))
    mapping: object = attrs.field()

    @mapping.validator
    def _check(self, attribute, value):
        if not callable(value):
            raise TypeError(f"mapping must be callable as mapping(env, learner), got {value!r}")

    def __call__(self, env):
        return self.mapping(env, self.learner)


@dispatch(AbstractPolicy, AbstractTrajectory, AbstractEnv, AbstractStage)
def update(policy, trajectory, env, stage):
    """Default: a policy does not learn at this stage."""


@dispatch(QBasedPolicy, AbstractTrajectory, AbstractEnv, AbstractStage)
def update(policy, trajectory, env, stage):  # noqa: F811
    update(policy.learner, trajectory, env, stage)


@dispatch(VBasedPolicy, AbstractTrajectory, AbstractEnv, AbstractStage)
def update(policy, trajectory, env, stage):  # noqa: F811
    update(policy.learner, trajectory, env, stage)


@dispatch(AbstractLearner, AbstractTrajectory, AbstractEnv, AbstractStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Default: a learner does not learn at this stage."""

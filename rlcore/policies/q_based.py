"""``QBasedPolicy`` and ``VBasedPolicy``: policies built on a learner's value estimates."""

import attrs
from gymnasium import spaces

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
    When the learner declares ``pure_call = True`` (``learner(env)`` has no side effects and
    draws no random numbers) and the explorer has ``select(values_fn, n, mask=None)`` (e.g.
    :class:`~rlcore.explorers.EpsilonGreedyExplorer`), the values are computed only when the
    explorer needs them (not on an exploring step of ε-greedy): same actions, same random
    numbers, less work. ``n`` is the length of the mask, or ``n`` of a ``Discrete`` action space
    starting at 0; other spaces take the plain call.
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
        learner, explorer = self.learner, self.explorer
        if isinstance(env.ActionStyle, FullActionSet):
            mask = env.legal_action_space_mask()
            if getattr(learner, "pure_call", False) and hasattr(explorer, "select"):
                return int(explorer.select(lambda: learner(env), len(mask), mask))
            return int(explorer(learner(env), mask))
        if getattr(learner, "pure_call", False) and hasattr(explorer, "select"):
            space = env.action_space()
            if type(space) is spaces.Discrete and space.start == 0:
                return int(explorer.select(lambda: learner(env), int(space.n)))
        return int(explorer(learner(env)))

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

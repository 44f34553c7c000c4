"""What the learners with an ``ActorCritic`` model (VPG, A2C, A2C-GAE, PPO, TRPO) check of their
environment before the first step, and the legal-action masks they learn with.

The check (:func:`check_actor_critic_env`, the ``check_env`` rule of those learners) runs the
model on a zero state of the env and compares what its actor gives with the env's action space: a
categorical distribution over ``n`` actions needs ``Discrete(n)``; a Gaussian over ``d``
dimensions a Box of shape ``(d,)`` with infinite bounds (a bounded Box is wrapped in
``rlenvs.ClipActionEnv``, so an unclipped sample is never refused in mid-run); states of the
shape the trajectory stores. An environment whose legal actions change (``FULL_ACTION_SET``)
needs a trajectory that records them (``legal_actions_mask``), so the learner learns with the
masks its policy acted with. Each mismatch raises :class:`~rlcore.EnvMismatchError`.
"""

import numpy as np
from gymnasium import spaces

from rlcore.checks import (
    EnvMismatchError, check_discrete_actions, check_network_input, check_state_shape,
)
from rlcore.dispatch import dispatch
from rlcore.envs.traits import FullActionSet
from rlcore.policies.replay_learner import check_env
from rlcore.policies.rollout_learner import AbstractRolloutLearner
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.envs.base import AbstractEnv
from rlzoo.inputs import env_spaces
from rlzoo.policy_gradient.distributions import Categorical, DiagGaussian

__all__ = ["check_actor_critic_env", "check_stored_actions", "policy_of"]


def policy_of(model, samples):
    """The model's action distribution for ``samples["state"]``, masked with the
    ``legal_actions_mask`` the policy acted with when the samples hold one."""
    return model(samples["state"], samples.get("legal_actions_mask"))


def check_stored_actions(trajectory, action_space, env):
    """Raise :class:`~rlcore.EnvMismatchError` unless ``trajectory`` stores actions of the
    shape of ``action_space`` (a Box's), ``env``'s."""
    stored = tuple(trajectory["action"].shape)
    if stored != tuple(action_space.shape):
        raise EnvMismatchError(
            f"{type(trajectory).__name__} stores actions of shape {stored}, but {env!r} has "
            f"actions of shape {tuple(action_space.shape)}: build it with action="
            f"({tuple(action_space.shape)}, 'float32')")


def check_actor_critic_env(learner, trajectory, env):
    """Raise :class:`~rlcore.EnvMismatchError` unless ``env`` suits ``learner``'s actor (see
    the module doc)."""
    state_space, action_space = env_spaces(env)
    check_state_shape(trajectory, state_space, env)
    app = learner.approximator
    dist = check_network_input(app.model, app, state_space, env, learner)
    name = type(learner).__name__
    if isinstance(dist, Categorical):
        check_discrete_actions(action_space, env, learner, n_actions=dist.probs.shape[-1])
        if isinstance(getattr(env, "ActionStyle", None), FullActionSet) \
                and "legal_actions_mask" not in trajectory:
            raise EnvMismatchError(
                f"{env!r} changes its legal actions (FULL_ACTION_SET): {name} learns with the "
                f"masks its policy acted with; record them with "
                f"CircularArraySARTSTrajectory(..., legal_actions_mask=(({action_space.n},), "
                f"bool))")
    elif isinstance(dist, DiagGaussian):
        d = dist.mean.shape[-1]
        if not isinstance(action_space, spaces.Box) or action_space.shape != (d,):
            raise EnvMismatchError(f"{name}'s Gaussian actor gives actions of shape ({d},); "
                                   f"{env!r} takes {action_space}")
        if np.isfinite(action_space.low).any() or np.isfinite(action_space.high).any():
            raise EnvMismatchError(
                f"{name}'s Gaussian actor samples unbounded actions, and {env!r} takes "
                f"{action_space}: wrap the env in rlenvs.ClipActionEnv (it clips what it "
                f"receives; the sample is what is recorded and learned from)")


@dispatch(AbstractRolloutLearner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """The actor-critic check of :func:`check_actor_critic_env` (learners with another model, such as
    MAC's separate actor and critic, have rules of their own)."""
    check_actor_critic_env(learner, trajectory, env)

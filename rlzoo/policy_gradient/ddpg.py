"""DDPG: deep deterministic policy gradient.

Reference: Lillicrap et al. (2016), "Continuous control with deep reinforcement learning"
(https://arxiv.org/abs/1509.02971), Algorithm 1; the deterministic policy gradient of Silver et
al. (2014); RL.jl ``DDPGPolicy`` (``policy_gradient/ddpg.jl``).

Shape convention: states ``(batch, *state_shape)``, actions ``(batch, d)`` in the Box ``[low,
high]``, Q-values ``(batch,)``. For a batch of transitions ``(s, a, r, s')`` the critic ``Q``
regresses on ``y = r + γ (1 − terminal) Q'(s', μ'(s'))`` (the targets ``Q'`` and ``μ'``,
without gradient; a truncated step bootstraps from its true final state, a terminal one does
not) with the loss ``mean((Q(s, a) − y)²)``; then the actor ``μ`` climbs the updated critic,
loss ``−mean(Q(s, μ(s)))``. The actor and the critic are :class:`~rlcore.TargetNetwork`\\ s,
each with its own optimiser: the optimiser step of each moves its target by Polyak
averaging, ``θ' ← ρ θ' + (1 − ρ) θ`` with ``ρ = 1 − τ`` (the paper's τ = 0.001; 0.005 in TD3 and
Stable-Baselines3), through ``target_network(..., sync_every=1, rho=1 − τ)``. When to learn is
the ``schedule``'s (:class:`~rlcore.ReplaySchedule`); exploration noise is the explorer's
(:class:`~rlcore.GaussianNoiseExplorer`, acting through
:class:`~rlzoo.policy_gradient.ActorPolicy`).

:func:`check_actor_env` is what DDPG and TD3 check of their environment before the first step.
"""

import attrs
import numpy as np
import torch
import torch.nn.functional as F
from gymnasium import spaces

from rlcore import AbstractEnv, AbstractReplayLearner, AbstractTrajectory, ReplaySchedule
from rlcore import TargetNetwork
from rlcore.checks import EnvMismatchError, check_network_input, check_state_shape
from rlcore.dispatch import dispatch, update
from rlcore.logger import scalars
from rlcore.policies.replay_learner import check_env
from rlcore.utils.validators import real_in
from rlzoo.dqns.losses import bootstrapped_target
from rlzoo.dqns.replay import check_sampler_gamma
from rlzoo.inputs import batch_on, env_spaces
from rlzoo.policy_gradient.checks import check_stored_actions
from rlzoo.policy_gradient.rollout import actor_output, rollout_scalars

__all__ = ["DDPGLearner", "ddpg_target", "action_bounds", "check_actor_env"]


def action_bounds(learner):
    """``(low, high)``, the Box the learner's actor acts in (its model's ``low`` and ``high``
    buffers, as :class:`~rlzoo.policy_gradient.networks.DeterministicActor` keeps them)."""
    model = learner.actor.model
    low, high = getattr(model, "low", None), getattr(model, "high", None)
    if not isinstance(low, torch.Tensor) or not isinstance(high, torch.Tensor):
        raise TypeError(f"{type(learner).__name__}: the actor's model must keep its action "
                        f"bounds as tensors low and high (a DeterministicActor does), got "
                        f"{type(model).__name__} with low={low!r}, high={high!r}")
    return low, high


@attrs.define(eq=False)
class DDPGLearner(AbstractReplayLearner):
    """Deep deterministic policy gradient: a deterministic actor and a Q critic, each with a
    Polyak-averaged target (see the module doc).

    Keyword arguments: ``actor`` (a :class:`~rlcore.TargetNetwork` over the
    ``NeuralNetworkApproximator`` of a
    :class:`~rlzoo.policy_gradient.networks.DeterministicActor`; required), ``critic`` (a
    ``TargetNetwork`` over a :class:`~rlzoo.policy_gradient.networks.QCritic`'s; required),
    ``schedule=ReplaySchedule()`` (its ``min_replay_history`` is when learning starts),
    ``gamma=0.99``. After each update: ``critic_loss`` and ``actor_loss``.

    >>> from rlcore import NeuralNetworkApproximator
    >>> from rlzoo.dqns.networks import target_network
    >>> from rlzoo.policy_gradient import DeterministicActor, QCritic
    >>> def polyak(model):
    ...     return target_network(NeuralNetworkApproximator(model, torch.optim.Adam(
    ...         model.parameters(), lr=1e-3)), rho=0.995)
    >>> learner = DDPGLearner(polyak(DeterministicActor(3, [-2.0], [2.0], seed=0)),
    ...                       polyak(QCritic(3, 1, seed=1)))
    >>> learner.actor(torch.zeros(4, 3)).shape
    torch.Size([4, 1])
    """

    actor: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    critic: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    critic_loss: object = attrs.field(init=False, default=None, repr=False)
    actor_loss: object = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)
        action_bounds(self)

    def __call__(self, env):
        return actor_output(self.actor, env)


def ddpg_target(learner, batch):
    """``y = r + γ (1 − terminal) Q'(s', μ'(s'))``, shape ``(batch,)``, without gradient (an
    n-step sampler's ``discount = γ^k`` in place of γ)."""
    with torch.no_grad():
        next_state = batch["next_state"]
        next_value = learner.critic.target(next_state, learner.actor.target(next_state))
        return bootstrapped_target(batch, learner.gamma, next_value)


@dispatch(DDPGLearner, object)
def update(learner, batch):  # noqa: F811
    """One critic step on ``mean((Q(s, a) − y)²)``, then one actor step on ``−mean(Q(s, μ(s)))``
    with the updated critic; each step moves its target."""
    batch = batch_on(batch, learner.critic.device)
    state = batch["state"]
    critic_loss = F.mse_loss(learner.critic(state, batch["action"]), ddpg_target(learner, batch))
    update(learner.critic, critic_loss)
    # the gradient also reaches the critic's parameters; its next step zeroes them first
    actor_loss = -learner.critic(state, learner.actor(state)).mean()
    update(learner.actor, actor_loss)
    learner.critic_loss, learner.actor_loss = critic_loss.detach(), actor_loss.detach()


def check_actor_env(learner, trajectory, env, critics):
    """What a learner with a deterministic actor in a Box checks before the first step (for one
    env, or one sub-env of a vector env): a ``Box`` action space of one axis with finite bounds
    equal to the actor's ``low`` and ``high``; a trajectory storing states of the env's shape
    and actions of the space's shape; an actor that takes the env's states and ``critics`` (its
    Q approximators) that take them with the actor's actions (one forward of a zero state each,
    without gradient). Each mismatch raises :class:`~rlcore.EnvMismatchError` naming the
    value."""
    name = type(learner).__name__
    state_space, action_space = env_spaces(env)
    if not isinstance(action_space, spaces.Box) or len(action_space.shape) != 1:
        raise EnvMismatchError(
            f"{name} acts in a Box of continuous actions with one axis, but the action space "
            f"of {env!r} is {action_space}: use a learner for discrete actions (DQN, PPO) or "
            f"flatten the actions")
    space_low = np.asarray(action_space.low, np.float32)
    space_high = np.asarray(action_space.high, np.float32)
    if not (np.isfinite(space_low).all() and np.isfinite(space_high).all()):
        raise EnvMismatchError(
            f"{name}'s actor acts within finite bounds, but the action space of {env!r} is "
            f"{action_space} (low={space_low.tolist()}, high={space_high.tolist()}): give the "
            f"env finite bounds (rescale or clip its actions)")
    low, high = (bound.detach().cpu().numpy() for bound in action_bounds(learner))
    if not (np.array_equal(low, space_low) and np.array_equal(high, space_high)):
        raise EnvMismatchError(
            f"{name}'s actor acts in [low, high] = [{low.tolist()}, {high.tolist()}], but the "
            f"action space of {env!r} is {action_space} (low={space_low.tolist()}, high="
            f"{space_high.tolist()}): build the actor with the space's low and high")
    check_state_shape(trajectory, state_space, env)
    check_stored_actions(trajectory, action_space, env)
    actions = check_network_input(learner.actor.model, learner.actor, state_space, env, learner)
    for critic in critics:
        check_network_input(critic.model, lambda states, q=critic: q(states, actions),
                            state_space, env, learner)


@dispatch(DDPGLearner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    check_actor_env(learner, trajectory, env, (learner.critic,))


@dispatch(DDPGLearner)
def scalars(learner):  # noqa: F811
    return rollout_scalars(learner, ("critic_loss", "actor_loss"))

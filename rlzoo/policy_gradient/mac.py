"""MAC: Mean Actor-Critic, a policy gradient over every discrete action's value, from short
rollouts.

Reference: Allen et al. (2017), "Mean Actor Critic" (https://arxiv.org/abs/1709.00503), eq. 5:
``∇J(θ) = E_s[Σ_a ∇π(a | s) Q(s, a)]``, the expectation over actions computed exactly with a
learned ``Q`` instead of sampled through the action taken (``log π(a_t | s_t) · Â_t``), which
lowers the variance of the estimate; RL.jl ``MACLearner`` (``policy_gradient/MAC.jl``), whose
structure this follows: a rollout learner (there ``update_freq`` steps of a
``MultiThreadEnv``), an actor and a critic that gives ``Q(s, ·)``, one actor step on
``−mean_s Σ_a π(a | s) Q(s, a)`` with ``Q`` held fixed, then one critic step on the squared
error against returns computed over the rollout.

Shape convention: a rollout is time-major, ``(T, n, ...)`` for ``T = schedule.n_steps`` steps of
``n`` environments (:class:`~rlcore.RolloutSchedule`), flattened to ``T · n`` samples;
``π(· | s)`` and ``Q(s, ·)`` are ``(T · n, n_actions)``. Per rollout, one actor step on

``−mean_t Σ_a π(a | s_t) Q(s_t, a) − c_e · mean_t(H[π(· | s_t)])`` (``Q`` held fixed)

and one critic step on ``½ mean_t((R_t − Q(s_t, a_t))²)``. Since ``Σ_a ∇π(a | s) = 0``, a
baseline would change nothing. The critic's targets ``R_t`` are λ-returns bootstrapped from the
state values under the current policy, ``V(s) = Σ_a π(a | s) Q(s, a)`` (expected SARSA):
:func:`~rlzoo.policy_gradient.advantages.gae` with ``values = V(s_t)`` and ``next_values =
V(s'_t)`` gives ``R_t = A_t + V(s_t)``. ``lam = 1`` (the default) telescopes to the n-step
returns ``r_t + γ r_{t+1} + … + γ^k V(s')`` of RL.jl's ``bootstrap=true``; ``lam = 0`` gives the
one-step targets ``r_t + γ V(s'_t)`` of its ``bootstrap=false``. A terminal step does not
bootstrap, a truncated one bootstraps from its own true final state, and episode boundaries cut
the returns.

The actor and the critic are two approximators, each with its own optimiser, as in RL.jl's
``JuliaRL_MAC_CartPole`` (Adam, 1e-2 for the actor, 3e-3 for the critic), rather than one
:class:`~rlzoo.policy_gradient.networks.ActorCritic` under one optimiser, because MAC needs
them to learn at different rates. Its actor gradient carries no sampling noise: it follows the
critic's ``Q(s, a) − V(s)`` wherever they point, so an adaptive optimiser (Adam, RMSprop: steps
of about the learning rate whatever the gradient's size) moves it at full speed after the small
differences of an untrained critic; the action then taken more often has its ``Q`` learned
faster (rewards are positive and ``Q`` starts near 0), which pushes the actor further, until
the policy is deterministic and the other action is never tried again. On CartPole every
learning rate shared by actor and critic that we tried ended there within 5,000 steps; an actor
30 times slower than its critic learns (:func:`~rlzoo.experiments.pg_cartpole.MAC_CartPole`).
Separate approximators also clip their gradients separately, as RL.jl does.
"""

import attrs
import torch

from rlcore import AbstractEnv, AbstractRolloutLearner, AbstractTrajectory
from rlcore import NeuralNetworkApproximator, RolloutSchedule
from rlcore.checks import (
    EnvMismatchError, check_discrete_actions, check_network_input, check_state_shape,
)
from rlcore.envs.traits import FullActionSet
from rlcore.dispatch import dispatch, update
from rlcore.logger import scalars
from rlcore.policies.replay_learner import check_env
from rlcore.utils.validators import real_in
from rlzoo.inputs import batch_on, env_spaces
from rlzoo.policy_gradient.advantages import gae
from rlzoo.policy_gradient.rollout import actor_output, rollout_scalars

__all__ = ["MACLearner", "mac_targets", "mac_losses"]


def _approximator(instance, attribute, value):
    if not isinstance(value, NeuralNetworkApproximator):
        raise TypeError(f"{attribute.name} must be a NeuralNetworkApproximator, got {value!r}")


@attrs.define(eq=False)
class MACLearner(AbstractRolloutLearner):
    """Mean Actor-Critic, one actor and one critic step per rollout (see the module doc).

    Arguments: ``actor`` (a ``NeuralNetworkApproximator`` over a
    :class:`~rlzoo.policy_gradient.networks.CategoricalActor`; required), ``critic`` (one over
    a :class:`~rlzoo.policy_gradient.networks.QValues`, ``Q(s, ·)`` for every action;
    required); keyword arguments ``schedule=RolloutSchedule(5)``, ``gamma=0.99``, ``lam=1.0``
    (λ of the critic's targets), ``entropy_coef=0.0`` (``c_e``). Each approximator has its own
    optimiser and ``max_grad_norm``.

    After each update: ``policy_loss``, ``value_loss``, ``entropy`` and ``loss_value`` (their
    sum ``policy_loss − c_e · entropy + value_loss``, for the logs).

    >>> from rlzoo.policy_gradient import CategoricalActor, QValues
    >>> actor, critic = CategoricalActor(4, 2, seed=0), QValues(4, 2, seed=1)
    >>> learner = MACLearner(
    ...     NeuralNetworkApproximator(actor, torch.optim.Adam(actor.parameters(), lr=1e-4)),
    ...     NeuralNetworkApproximator(critic, torch.optim.Adam(critic.parameters(), lr=3e-3)))
    """

    actor: NeuralNetworkApproximator = attrs.field(validator=_approximator)
    critic: NeuralNetworkApproximator = attrs.field(validator=_approximator)
    schedule: RolloutSchedule = attrs.field(
        kw_only=True, factory=lambda: RolloutSchedule(5),
        validator=attrs.validators.instance_of(RolloutSchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    lam: float = attrs.field(kw_only=True, default=1.0, validator=real_in(0, 1))
    entropy_coef: float = attrs.field(kw_only=True, default=0.0,
                                      validator=real_in(0, float("inf")))
    loss_value: object = attrs.field(init=False, default=None, repr=False)
    policy_loss: object = attrs.field(init=False, default=None, repr=False)
    value_loss: object = attrs.field(init=False, default=None, repr=False)
    entropy: object = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self):
        if self.actor.device != self.critic.device:
            raise ValueError(f"MACLearner: the actor ({self.actor.device}) and the critic "
                             f"({self.critic.device}) must be on one device: the actor's "
                             f"gradient multiplies its probabilities by the critic's values")

    def __call__(self, env):
        return actor_output(self.actor, env)


def mac_targets(learner, batch, dist, q_values):
    """The critic's targets ``R_t`` of the module doc, flat ``(T · n,)``, without gradient:
    ``batch`` is the time-major rollout on the critic's device, ``dist`` and ``q_values`` the
    actor's and the critic's outputs for its flattened states."""
    steps, n = batch["reward"].shape
    with torch.no_grad():
        values = (dist.probs * q_values).sum(-1).view(steps, n)   # V(s) = Σ_a π(a | s) Q(s, a)
        next_states = batch["next_state"].flatten(0, 1)
        next_values = (learner.actor(next_states).probs * learner.critic(next_states)).sum(
            -1).view(steps, n)
        terminal = batch["terminal"]
        _, returns = gae(batch["reward"], values, next_values, terminal,
                         terminal | batch["truncated"], learner.gamma, learner.lam)
    return returns.flatten()


def mac_losses(learner, dist, q_values, actions, targets):
    """``(actor_loss, critic_loss, policy_loss, entropy)`` of the module doc for states whose
    distribution is ``dist`` and action values ``q_values`` ``(N, n_actions)``, the ``actions``
    taken ``(N,)`` and the critic's ``targets`` ``(N,)``; ``actor_loss = policy_loss − c_e ·
    entropy``."""
    policy_loss = -(dist.probs * q_values.detach()).sum(-1).mean()
    entropy = dist.entropy().mean()
    taken = q_values.gather(1, actions.long().unsqueeze(1)).squeeze(1)
    critic_loss = 0.5 * ((targets - taken) ** 2).mean()
    return policy_loss - learner.entropy_coef * entropy, critic_loss, policy_loss, entropy


@dispatch(MACLearner, object)
def update(learner, rollout):  # noqa: F811
    """The critic's targets, then one actor step and one critic step (see the module doc)."""
    batch = batch_on(rollout, learner.critic.device)
    states = batch["state"].flatten(0, 1)
    dist, q_values = learner.actor(states), learner.critic(states)
    targets = mac_targets(learner, batch, dist, q_values)
    actor_loss, critic_loss, policy_loss, entropy = mac_losses(
        learner, dist, q_values, batch["action"].flatten(0, 1), targets)
    update(learner.actor, actor_loss)
    update(learner.critic, critic_loss)
    learner.policy_loss, learner.value_loss = policy_loss.detach(), critic_loss.detach()
    learner.entropy = entropy.detach()
    learner.loss_value = actor_loss.detach() + learner.value_loss


@dispatch(MACLearner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """A ``Discrete`` action space starting at 0 whose size is the width of the critic's
    ``Q(s, ·)`` and of the actor's distribution, and states of the shape the trajectory stores
    and both networks take."""
    state_space, action_space = env_spaces(env)
    check_discrete_actions(action_space, env, learner)
    if isinstance(getattr(env, "ActionStyle", None), FullActionSet):
        raise EnvMismatchError(f"MACLearner sums over every action of the critic's Q(s, ·), "
                               f"legal or not; {env!r} changes its legal actions "
                               f"(FULL_ACTION_SET)")
    check_state_shape(trajectory, state_space, env)
    q_values = check_network_input(learner.critic.model, learner.critic, state_space, env,
                                   learner)
    check_discrete_actions(action_space, env, learner, n_actions=q_values.shape[-1])
    dist = check_network_input(learner.actor.model, learner.actor, state_space, env, learner)
    check_discrete_actions(action_space, env, learner, n_actions=dist.probs.shape[-1])


@dispatch(MACLearner)
def scalars(learner):  # noqa: F811
    values = rollout_scalars(learner, ("policy_loss", "value_loss", "entropy"))
    for name in ("actor", "critic"):
        groups = getattr(learner, name).optimizer.param_groups
        values[f"train/{name}_learning_rate"] = float(groups[0]["lr"])
    return values

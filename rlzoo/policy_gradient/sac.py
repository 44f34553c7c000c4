"""SAC: soft actor-critic with twin Q-critics and automatic entropy tuning.

Reference: Haarnoja et al. (2018), "Soft Actor-Critic Algorithms and Applications"
(https://arxiv.org/abs/1812.05905), §4-5 and Algorithm 1; the practical
details of CleanRL's ``sac_continuous_action.py`` (a tanh-squashed Gaussian with a bounded log
standard deviation, two critics updated together, Polyak-averaged targets every step, α learned
through log α with its own optimiser); RL.jl ``SACPolicy`` (``policy_gradient/sac.jl``).

Shape convention: states ``(batch, *state_shape)``, actions ``(batch, d)`` in the Box
``[low, high]``, Q-values and log-probabilities ``(batch,)``. One update on a batch, in the
paper's order:

* critics: ``y = r + γ (1 − terminal) (min_i Q'_i(s', a') − α log π(a' | s'))`` with
  ``a' ~ π(· | s')`` (the soft Bellman target with the twin-critic minimum), each ``Q_i``
  regressed on ``y`` by MSE; a truncated step bootstraps, a terminal one does not;
* actor: ``mean(α log π(a | s) − min_i Q_i(s, a))`` with reparameterised ``a ~ π(· | s)``, the
  critics as just updated;
* temperature (unless ``alpha`` is fixed): ``J(α) = mean(α (H(s) − H̄))`` through ``log α``,
  ``H(s) = −log π(a | s)`` the entropy estimate of the actor's samples and ``H̄`` the target
  entropy, ``−dim(A)`` by default (§5): α rises while the policy's entropy is below ``H̄``;
* targets: ``Q'_i ← ρ Q'_i + (1 − ρ) Q_i`` after each critic step (the critics'
  :class:`~rlcore.TargetNetwork`, ``rho = 1 − τ``).

Every action the updates draw comes from the learner's ``torch.Generator`` (seeded from
``seed`` on the actor's device); acting draws from the explorer's own
(:class:`~rlcore.DistributionExplorer`). When to learn is the ``schedule``'s
(:class:`~rlcore.ReplaySchedule`). :func:`temperature_parameter`, :func:`temperature`,
:func:`update_temperature`, :func:`update_critics` and :func:`sac_scalars` are shared with
discrete SAC (:mod:`rlzoo.policy_gradient.discrete_sac`).
"""

import attrs
import numpy as np
import torch
import torch.nn.functional as F

from rlcore import AbstractEnv, AbstractReplayLearner, AbstractTrajectory, ReplaySchedule
from rlcore import NeuralNetworkApproximator, TargetNetwork
from rlcore.checks import EnvMismatchError, check_network_input, check_state_shape
from rlcore.dispatch import dispatch, update
from rlcore.logger import scalars
from rlcore.policies.replay_learner import check_env
from rlcore.utils.random import torch_generator
from rlcore.utils.validators import real_in
from rlzoo.dqns.losses import bootstrapped_target
from rlzoo.dqns.replay import check_sampler_gamma
from rlzoo.inputs import batch_on, env_spaces
from rlzoo.policy_gradient.checks import check_stored_actions
from rlzoo.policy_gradient.distributions import check_bounded_box
from rlzoo.policy_gradient.rollout import actor_output, rollout_scalars

__all__ = ["SACLearner", "sac_target", "temperature_parameter", "temperature",
           "update_temperature", "update_critics", "sac_scalars"]

INF = float("inf")


@attrs.define(eq=False)
class SACLearner(AbstractReplayLearner):
    """Soft actor-critic for a bounded Box of actions (see the module doc).

    Keyword arguments: ``actor`` (a ``NeuralNetworkApproximator`` whose model gives a
    distribution with ``rsample_with_log_prob(generator)``, e.g.
    :class:`~rlzoo.policy_gradient.networks.TanhGaussianActor`; required), ``critic1``,
    ``critic2`` (``TargetNetwork``\\ s over ``Q(s, a)`` models, e.g.
    :class:`~rlzoo.policy_gradient.networks.QCritic`, Polyak-averaged with their ``rho``;
    required), ``schedule=ReplaySchedule()``, ``gamma=0.99``, ``alpha=None`` (a fixed
    temperature α >= 0; ``None`` learns it), ``alpha_init=1.0`` (the learned α's start),
    ``alpha_lr=3e-4`` (Adam on log α), ``target_entropy=None`` (H̄; ``None``: ``−d`` for
    ``d``-dimensional actions), ``seed=0`` (the actions the updates draw).

    After each update: ``critic_loss`` (the two critics' MSE, averaged), ``actor_loss``,
    ``alpha_loss`` (``None`` with a fixed α), ``entropy`` (``mean(−log π(a | s))``);
    :attr:`current_alpha` is α now.

    >>> from rlzoo.dqns.networks import target_network
    >>> from rlzoo.policy_gradient import QCritic, TanhGaussianActor
    >>> def adam(model, lr):
    ...     return NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters(), lr=lr))
    >>> learner = SACLearner(adam(TanhGaussianActor(3, [-2.0], [2.0], seed=0), 1e-3),
    ...                      target_network(adam(QCritic(3, 1, seed=1), 1e-3), rho=0.995),
    ...                      target_network(adam(QCritic(3, 1, seed=2), 1e-3), rho=0.995))
    >>> learner.current_alpha
    1.0
    """

    actor: NeuralNetworkApproximator = attrs.field(
        validator=attrs.validators.instance_of(NeuralNetworkApproximator))
    critic1: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    critic2: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    alpha: object = attrs.field(kw_only=True, default=None, validator=attrs.validators.optional(
        real_in(0, INF, high_open=True)))
    alpha_init: float = attrs.field(kw_only=True, default=1.0,
                                    validator=real_in(0, INF, low_open=True, high_open=True))
    alpha_lr: float = attrs.field(kw_only=True, default=3e-4,
                                  validator=real_in(0, INF, low_open=True, high_open=True))
    target_entropy: object = attrs.field(kw_only=True, default=None,
                                         validator=attrs.validators.optional(
                                             real_in(-INF, INF, low_open=True, high_open=True)))
    seed: int = attrs.field(kw_only=True, default=0)
    generator: torch.Generator = attrs.field(init=False, repr=False)
    log_alpha: object = attrs.field(init=False, default=None, repr=False)
    alpha_optimizer: object = attrs.field(init=False, default=None, repr=False)
    critic_loss: object = attrs.field(init=False, default=None, repr=False)
    actor_loss: object = attrs.field(init=False, default=None, repr=False)
    alpha_loss: object = attrs.field(init=False, default=None, repr=False)
    entropy: object = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)
        self.generator = torch_generator(self.seed, self.actor.device)
        self.log_alpha, self.alpha_optimizer = temperature_parameter(self)

    def __call__(self, env):
        return actor_output(self.actor, env)

    @property
    def current_alpha(self):
        """α now: the fixed ``alpha``, or ``exp(log α)`` of the learned one."""
        return self.alpha if self.log_alpha is None else self.log_alpha.exp().item()


def temperature_parameter(learner):
    """``(log α, its Adam optimiser)`` on the actor's device, starting at ``log(alpha_init)``,
    for a learner that learns its temperature; ``(None, None)`` for a fixed ``alpha``."""
    if learner.alpha is not None:
        return None, None
    log_alpha = torch.nn.Parameter(torch.tensor(float(np.log(learner.alpha_init)),
                                                device=learner.actor.device))
    return log_alpha, torch.optim.Adam([log_alpha], lr=learner.alpha_lr)


def update_temperature(learner, entropy, target_entropy):
    """One optimiser step of log α on ``J(α) = mean(α (entropy − target_entropy))`` (§5),
    ``entropy`` the per-state entropy (estimates) of the actor, ``(batch,)``, without gradient;
    nothing for a fixed ``alpha``."""
    if learner.log_alpha is None:
        return
    loss = (learner.log_alpha.exp() * (entropy - target_entropy)).mean()
    learner.alpha_optimizer.zero_grad(set_to_none=True)
    loss.backward()
    learner.alpha_optimizer.step()
    learner.alpha_loss = loss.detach()


def update_critics(learner, q1, q2, target):
    """One optimiser step of each critic on the MSE of its values ``(batch,)`` to ``target``
    (each critic's ``TargetNetwork`` then moves its target); keeps their mean in
    ``critic_loss``."""
    loss1, loss2 = F.mse_loss(q1, target), F.mse_loss(q2, target)
    update(learner.critic1, loss1)
    update(learner.critic2, loss2)
    learner.critic_loss = (loss1.detach() + loss2.detach()) / 2


def temperature(learner):
    """α for a loss or a target: the fixed ``alpha``, or ``exp(log α)`` as a tensor without
    gradient."""
    if learner.log_alpha is None:
        return learner.alpha
    return learner.log_alpha.detach().exp()


def sac_target(learner, batch):
    """``r + γ (1 − terminal) (min_i Q'_i(s', a') − α log π(a' | s'))``, ``a' ~ π(· | s')``
    drawn with the learner's generator, without gradient, shape ``(batch,)`` (an n-step
    sampler's batch bootstraps with its ``discount = γ^k``; the entropy bonus is then counted
    at ``s_{t+k}`` only, not at the steps in between: an approximation of the n-step soft
    return, as Tianshou's n-step SAC makes)."""
    with torch.no_grad():
        next_state = batch["next_state"]
        next_actions, next_log_prob = learner.actor(next_state).rsample_with_log_prob(
            learner.generator)
        next_q = torch.min(learner.critic1.target(next_state, next_actions),
                           learner.critic2.target(next_state, next_actions))
        return bootstrapped_target(batch, learner.gamma,
                                   next_q - temperature(learner) * next_log_prob)


@dispatch(SACLearner, object)
def update(learner, batch):  # noqa: F811
    """One SAC update on ``batch``: critics, actor, temperature (see the module doc)."""
    batch = batch_on(batch, learner.actor.device)
    state, action = batch["state"], batch["action"]
    alpha = temperature(learner)
    update_critics(learner, learner.critic1(state, action), learner.critic2(state, action),
                   sac_target(learner, batch))

    actions, log_prob = learner.actor(state).rsample_with_log_prob(learner.generator)
    # the gradient also reaches the critics' parameters; their next step zeroes them first
    q = torch.min(learner.critic1(state, actions), learner.critic2(state, actions))
    actor_loss = (alpha * log_prob - q).mean()
    update(learner.actor, actor_loss)
    learner.actor_loss = actor_loss.detach()

    entropy = -log_prob.detach()
    learner.entropy = entropy.mean()
    target_entropy = (-float(actions.shape[-1]) if learner.target_entropy is None
                      else learner.target_entropy)
    update_temperature(learner, entropy, target_entropy)


def sac_scalars(learner):
    """``train/critic_loss``, ``train/actor_loss``, ``train/alpha_loss``, ``train/entropy``
    (once learned) and ``train/alpha``: the scalars of SAC and discrete SAC."""
    values = rollout_scalars(learner, ("critic_loss", "actor_loss", "alpha_loss", "entropy"))
    values["train/alpha"] = float(learner.current_alpha)
    return values


@dispatch(SACLearner)
def scalars(learner):  # noqa: F811
    return sac_scalars(learner)


@dispatch(SACLearner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """A Box of actions with finite bounds, equal to the actor's (its model's ``low`` and
    ``high``, when it keeps them, as :class:`~rlzoo.policy_gradient.networks.TanhGaussianActor`
    does) and of the shape of its actions; a replay storing states and actions of the env's
    shapes; an actor and critics that take the env's states (one forward of a zero state each,
    without gradient). Each mismatch raises :class:`~rlcore.EnvMismatchError` naming the
    value."""
    state_space, action_space = env_spaces(env)
    check_bounded_box(action_space)
    check_state_shape(trajectory, state_space, env)
    check_stored_actions(trajectory, action_space, env)
    dist = check_network_input(learner.actor.model, learner.actor, state_space, env, learner)
    actions = dist.mode()
    if tuple(actions.shape[1:]) != tuple(action_space.shape):
        raise EnvMismatchError(
            f"SACLearner's actor gives actions of shape {tuple(actions.shape[1:])}, but the "
            f"action space of {env!r} is {action_space}: build the actor with "
            f"{action_space.shape} actions")
    model = learner.actor.model
    if isinstance(getattr(model, "low", None), torch.Tensor):
        low, high = model.low.cpu().numpy(), model.high.cpu().numpy()
        space_low = np.asarray(action_space.low, np.float32)
        space_high = np.asarray(action_space.high, np.float32)
        if not (np.array_equal(low, space_low) and np.array_equal(high, space_high)):
            raise EnvMismatchError(
                f"SACLearner's actor squashes its actions into [low, high] = [{low.tolist()}, "
                f"{high.tolist()}], but the action space of {env!r} is {action_space} (low="
                f"{space_low.tolist()}, high={space_high.tolist()}): build the actor with the "
                f"space's low and high")
    for critic in (learner.critic1, learner.critic2):
        check_network_input(critic.model, lambda states, q=critic: q(states, actions),
                            state_space, env, learner)

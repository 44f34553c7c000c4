"""Discrete SAC: soft actor-critic for a finite set of actions.

Reference: Christodoulou (2019), "Soft Actor-Critic for Discrete Action Settings"
(https://arxiv.org/abs/1910.07207), §4: with finitely many actions the policy gives every
action's probability, so the expectations over actions that SAC estimates with samples are
computed exactly; CleanRL's ``sac_atari.py`` (target entropy a fraction of the largest,
``log |A|``).

Shape convention: states ``(batch, *state_shape)``; probabilities, log-probabilities and
Q-values ``(batch, n_actions)``; targets and entropies ``(batch,)``. With ``π(s)`` the actor's
probabilities and ``log π(s)`` its log-probabilities, one update on a batch:

* critics: ``y = r + γ (1 − terminal) Σ_a π(a | s') (min_i Q'_i(s', a) − α log π(a | s'))``
  (the soft state value as an exact expectation: no action is sampled), each ``Q_i(s, a)`` of
  the taken action regressed on ``y`` by MSE; a truncated step bootstraps, a terminal one does
  not;
* actor: ``mean_s Σ_a π(a | s) (α log π(a | s) − min_i Q_i(s, a))``, the critics (as just
  updated) without gradient;
* temperature (unless ``alpha`` is fixed): ``J(α) = mean_s α (H(π(s)) − H̄)`` through
  ``log α`` with the exact entropy ``H(π(s)) = −Σ_a π(a | s) log π(a | s)``, ``H̄ =
  target_entropy_scale · log |A|``: α rises while the entropy is below ``H̄``;
* targets: ``Q'_i ← ρ Q'_i + (1 − ρ) Q_i`` after each critic step (``TargetNetwork``).

Nothing is drawn in an update; acting samples the actor's categorical distribution through the
explorer (:class:`~rlcore.DistributionExplorer`). The temperature and the critics' steps are
SAC's (:func:`~rlzoo.policy_gradient.sac.update_temperature`,
:func:`~rlzoo.policy_gradient.sac.update_critics`).
"""

import math

import attrs
import torch

from rlcore import AbstractEnv, AbstractReplayLearner, AbstractTrajectory, ReplaySchedule
from rlcore import NeuralNetworkApproximator, TargetNetwork
from rlcore.checks import check_discrete_actions, check_network_input, check_state_shape
from rlcore.dispatch import dispatch, update
from rlcore.logger import scalars
from rlcore.policies.replay_learner import check_env
from rlcore.utils.validators import real_in
from rlzoo.dqns.losses import bootstrapped_target
from rlzoo.dqns.replay import check_sampler_gamma
from rlzoo.inputs import batch_on, env_spaces
from rlzoo.policy_gradient.rollout import actor_output
from rlzoo.policy_gradient.sac import (
    sac_scalars, temperature, temperature_parameter, update_critics, update_temperature,
)

__all__ = ["DiscreteSACLearner", "discrete_sac_target"]

INF = float("inf")


@attrs.define(eq=False)
class DiscreteSACLearner(AbstractReplayLearner):
    """Soft actor-critic for ``Discrete(n)`` actions with exact expectations over the actions
    (see the module doc).

    Keyword arguments: ``actor`` (a ``NeuralNetworkApproximator`` whose model gives a
    :class:`~rlzoo.policy_gradient.distributions.Categorical`, e.g.
    :class:`~rlzoo.policy_gradient.networks.CategoricalActor`; required), ``critic1``,
    ``critic2`` (``TargetNetwork``\\ s over models of ``(batch, n_actions)`` Q-values, e.g.
    :class:`~rlzoo.policy_gradient.networks.QValues`, Polyak-averaged with their ``rho``;
    required), ``schedule=ReplaySchedule()``, ``gamma=0.99``, ``alpha=None`` (a fixed
    temperature α >= 0; ``None`` learns it), ``alpha_init=1.0``, ``alpha_lr=3e-4`` (Adam on
    log α), ``target_entropy_scale=0.89`` (H̄ as a fraction of ``log |A|``, CleanRL's; 1 is the
    uniform policy's entropy).

    After each update: ``critic_loss`` (the two critics' MSE, averaged), ``actor_loss``,
    ``alpha_loss`` (``None`` with a fixed α), ``entropy`` (the mean of ``H(π(s))``);
    :attr:`current_alpha` is α now.

    >>> from rlzoo.dqns.networks import target_network
    >>> from rlzoo.policy_gradient import CategoricalActor, QValues
    >>> def adam(model, lr):
    ...     return NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters(), lr=lr))
    >>> learner = DiscreteSACLearner(
    ...     adam(CategoricalActor(4, 2, orthogonal=False, seed=0), 1e-3),
    ...     target_network(adam(QValues(4, 2, seed=1), 1e-3), rho=0.995),
    ...     target_network(adam(QValues(4, 2, seed=2), 1e-3), rho=0.995), alpha=0.05)
    >>> learner.current_alpha
    0.05
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
    target_entropy_scale: float = attrs.field(kw_only=True, default=0.89,
                                              validator=real_in(0, 1))
    log_alpha: object = attrs.field(init=False, default=None, repr=False)
    alpha_optimizer: object = attrs.field(init=False, default=None, repr=False)
    critic_loss: object = attrs.field(init=False, default=None, repr=False)
    actor_loss: object = attrs.field(init=False, default=None, repr=False)
    alpha_loss: object = attrs.field(init=False, default=None, repr=False)
    entropy: object = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)
        self.log_alpha, self.alpha_optimizer = temperature_parameter(self)

    def __call__(self, env):
        return actor_output(self.actor, env)

    @property
    def current_alpha(self):
        """α now: the fixed ``alpha``, or ``exp(log α)`` of the learned one."""
        return self.alpha if self.log_alpha is None else self.log_alpha.exp().item()


def discrete_sac_target(learner, batch):
    """``r + γ (1 − terminal) Σ_a π(a | s') (min_i Q'_i(s', a) − α log π(a | s'))`` without
    gradient, shape ``(batch,)`` (an n-step sampler's batch bootstraps with its ``discount``;
    the entropy bonus is then counted at ``s_{t+k}`` only, not at the steps in between: an
    approximation of the n-step soft return, as Tianshou's n-step discrete SAC makes)."""
    with torch.no_grad():
        next_state = batch["next_state"]
        dist = learner.actor(next_state)
        next_q = torch.min(learner.critic1.target(next_state),
                           learner.critic2.target(next_state))
        soft_value = (dist.probs * (next_q - temperature(learner) * dist.logits)).sum(dim=1)
        return bootstrapped_target(batch, learner.gamma, soft_value)


@dispatch(DiscreteSACLearner, object)
def update(learner, batch):  # noqa: F811
    """One discrete SAC update on ``batch``: critics, actor, temperature (see the module
    doc)."""
    batch = batch_on(batch, learner.actor.device)
    state = batch["state"]
    action = batch["action"].long().unsqueeze(1)
    alpha = temperature(learner)
    q1, q2 = learner.critic1(state), learner.critic2(state)
    update_critics(learner, q1.gather(1, action).squeeze(1), q2.gather(1, action).squeeze(1),
                   discrete_sac_target(learner, batch))

    dist = learner.actor(state)
    with torch.no_grad():
        q = torch.min(learner.critic1(state), learner.critic2(state))
    probs, log_probs = dist.probs, dist.logits
    actor_loss = (probs * (alpha * log_probs - q)).sum(dim=1).mean()
    update(learner.actor, actor_loss)
    learner.actor_loss = actor_loss.detach()

    entropy = -(probs * log_probs).sum(dim=1).detach()
    learner.entropy = entropy.mean()
    target_entropy = learner.target_entropy_scale * math.log(probs.shape[1])
    update_temperature(learner, entropy, target_entropy)


@dispatch(DiscreteSACLearner)
def scalars(learner):  # noqa: F811
    return sac_scalars(learner)


@dispatch(DiscreteSACLearner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """A ``Discrete(n)`` action space from 0 with ``n`` the actor's and each critic's number of
    actions; states of the replay's shape that the actor and the critics take."""
    state_space, action_space = env_spaces(env)
    check_discrete_actions(action_space, env, learner)
    check_state_shape(trajectory, state_space, env)
    dist = check_network_input(learner.actor.model, learner.actor, state_space, env, learner)
    check_discrete_actions(action_space, env, learner, n_actions=dist.probs.shape[-1])
    for critic in (learner.critic1, learner.critic2):
        values = check_network_input(critic.model, critic, state_space, env, learner)
        check_discrete_actions(action_space, env, learner, n_actions=values.shape[-1])

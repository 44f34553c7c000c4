"""TD3: twin delayed deep deterministic policy gradient.

Reference: Fujimoto, van Hoof & Meger (2018), "Addressing Function Approximation Error in
Actor-Critic Methods" (https://arxiv.org/abs/1802.09477), Algorithm 1; RL.jl ``TD3Policy``
(``policy_gradient/td3.jl``).

Shape convention: states ``(batch, *state_shape)``, actions ``(batch, d)`` in the Box ``[low,
high]``, Q-values and targets ``(batch,)``. DDPG (:mod:`rlzoo.policy_gradient.ddpg`) with three
changes:

* *clipped double Q-learning*: two critics ``Q_1``, ``Q_2`` (each a
  :class:`~rlcore.TargetNetwork` with its own optimiser, as SAC's) regress on one target with the
  smaller of the two target values, ``y = r + γ (1 − terminal) min_i Q'_i(s', ã)``, each on its
  own loss ``mean((Q_i(s, a) − y)²)``;
* *target policy smoothing*: ``ã = clip(μ'(s') + clip(ε, −c, c), low, high)``, ``ε ~ N(0, σ̃²)``,
  with σ̃ (``target_noise``) and c (``noise_clip``) fractions of the half-range ``(high − low) /
  2`` (0.2 and 0.5: the paper's 0.2 and 0.5 for actions in [−1, 1]), ε drawn from the learner's
  ``torch.Generator`` seeded from ``seed``;
* *delayed updates*: every ``policy_delay`` (d) critic steps, one actor step on ``−mean(Q_1(s,
  μ(s)))`` and a Polyak step of every target, ``θ' ← ρ θ' + (1 − ρ) θ``: the critics are
  ``TargetNetwork``\\ s with ``sync_every = d`` (their optimiser steps are counted in
  ``critic1.n_updates``), the actor one with ``sync_every = 1`` (it steps every d critic
  steps).

Truncated steps bootstrap, terminal ones do not. When to learn is the ``schedule``'s
(:class:`~rlcore.ReplaySchedule`); exploration noise is the explorer's
(:class:`~rlcore.GaussianNoiseExplorer`).
"""

import attrs
import torch
import torch.nn.functional as F

from rlcore import AbstractEnv, AbstractReplayLearner, AbstractTrajectory, ReplaySchedule
from rlcore import TargetNetwork
from rlcore.dispatch import dispatch, update
from rlcore.logger import scalars
from rlcore.policies.replay_learner import check_env
from rlcore.utils.random import torch_generator
from rlcore.utils.validators import non_negative_int, positive_int, real_in
from rlzoo.dqns.losses import bootstrapped_target
from rlzoo.dqns.replay import check_sampler_gamma
from rlzoo.inputs import batch_on
from rlzoo.policy_gradient.ddpg import action_bounds, check_actor_env
from rlzoo.policy_gradient.rollout import actor_output, rollout_scalars

__all__ = ["TD3Learner", "td3_target", "smoothed_target_action"]


@attrs.define(eq=False)
class TD3Learner(AbstractReplayLearner):
    """Twin delayed DDPG (see the module doc).

    Keyword arguments: ``actor`` (a :class:`~rlcore.TargetNetwork` over the
    ``NeuralNetworkApproximator`` of a
    :class:`~rlzoo.policy_gradient.networks.DeterministicActor`, ``sync_every=1``; required),
    ``critic1``, ``critic2`` (``TargetNetwork``\\ s over
    :class:`~rlzoo.policy_gradient.networks.QCritic`\\ s' approximators, each with its own
    optimiser, ``sync_every=policy_delay``; required), ``schedule=ReplaySchedule()``,
    ``gamma=0.99``, ``policy_delay=2``, ``target_noise=0.2``, ``noise_clip=0.5``, ``seed=0``
    (the smoothing noise). After each update: ``critic_loss`` (the two critics' MSE, averaged),
    and ``actor_loss`` of the last actor step.

    >>> from rlcore import NeuralNetworkApproximator
    >>> from rlzoo.dqns.networks import target_network
    >>> from rlzoo.policy_gradient import DeterministicActor, QCritic
    >>> def polyak(model, sync_every):
    ...     return target_network(NeuralNetworkApproximator(model, torch.optim.Adam(
    ...         model.parameters(), lr=1e-3)), sync_every=sync_every, rho=0.995)
    >>> learner = TD3Learner(polyak(DeterministicActor(3, [-2.0], [2.0], seed=0), 1),
    ...                      polyak(QCritic(3, 1, seed=1), 2), polyak(QCritic(3, 1, seed=2), 2))
    >>> learner.critic2(torch.zeros(4, 3), torch.zeros(4, 1)).shape
    torch.Size([4])
    """

    actor: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    critic1: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    critic2: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    policy_delay: int = attrs.field(kw_only=True, default=2, validator=positive_int)
    target_noise: float = attrs.field(kw_only=True, default=0.2,
                                      validator=real_in(0, float("inf"), high_open=True))
    noise_clip: float = attrs.field(kw_only=True, default=0.5,
                                    validator=real_in(0, float("inf"), high_open=True))
    seed: int = attrs.field(kw_only=True, default=0, validator=non_negative_int)
    generator: torch.Generator = attrs.field(init=False, repr=False)
    critic_loss: object = attrs.field(init=False, default=None, repr=False)
    actor_loss: object = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)
        action_bounds(self)
        for name in ("critic1", "critic2"):
            sync_every = getattr(self, name).sync_every
            if sync_every != self.policy_delay:
                raise ValueError(f"TD3Learner: the critics' targets move every policy_delay "
                                 f"({self.policy_delay}) critic steps, with the actor's; got "
                                 f"{name} with sync_every={sync_every}")
        if self.actor.sync_every != 1:
            raise ValueError(f"TD3Learner: the actor steps every policy_delay critic steps and "
                             f"its target moves with each step; got an actor TargetNetwork with "
                             f"sync_every={self.actor.sync_every} (expected 1)")
        self.generator = torch_generator(self.seed, self.actor.device)

    def __call__(self, env):
        return actor_output(self.actor, env)


def smoothed_target_action(learner, next_state):
    """``ã = clip(μ'(s') + clip(ε, −c, c), low, high)``, ``ε ~ N(0, σ̃²)``, with σ̃ and c
    scaled by the half-range ``(high − low) / 2``; ``(batch, d)``, without gradient."""
    low, high = action_bounds(learner)
    with torch.no_grad():
        action = learner.actor.target(next_state)
        epsilon = torch.randn(action.shape, generator=learner.generator, device=action.device,
                              dtype=action.dtype)
        noise = (learner.target_noise * epsilon).clamp(-learner.noise_clip, learner.noise_clip)
        return torch.clamp(action + noise * (high - low) / 2, low, high)


def td3_target(learner, batch):
    """``y = r + γ (1 − terminal) min_i Q'_i(s', ã)``, shape ``(batch,)``, without gradient (an
    n-step sampler's ``discount = γ^k`` in place of γ)."""
    with torch.no_grad():
        next_state = batch["next_state"]
        next_action = smoothed_target_action(learner, next_state)
        next_value = torch.min(learner.critic1.target(next_state, next_action),
                               learner.critic2.target(next_state, next_action))
        return bootstrapped_target(batch, learner.gamma, next_value)


@dispatch(TD3Learner, object)
def update(learner, batch):  # noqa: F811
    """One step of each critic on ``mean((Q_i(s, a) − y)²)``; every ``policy_delay``-th critic
    step also one actor step on ``−mean(Q_1(s, μ(s)))``. The targets move with them (see the
    module doc)."""
    batch = batch_on(batch, learner.critic1.device)
    state, action = batch["state"], batch["action"]
    target = td3_target(learner, batch)
    loss1 = F.mse_loss(learner.critic1(state, action), target)
    loss2 = F.mse_loss(learner.critic2(state, action), target)
    update(learner.critic1, loss1)
    update(learner.critic2, loss2)
    learner.critic_loss = (loss1.detach() + loss2.detach()) / 2
    if learner.critic1.n_updates % learner.policy_delay == 0:
        # the gradient also reaches Q_1's parameters; its next step zeroes them first
        actor_loss = -learner.critic1(state, learner.actor(state)).mean()
        update(learner.actor, actor_loss)
        learner.actor_loss = actor_loss.detach()


@dispatch(TD3Learner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    check_actor_env(learner, trajectory, env, (learner.critic1, learner.critic2))


@dispatch(TD3Learner)
def scalars(learner):  # noqa: F811
    return rollout_scalars(learner, ("critic_loss", "actor_loss"))

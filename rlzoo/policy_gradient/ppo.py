"""PPO: proximal policy optimisation with the clipped surrogate objective.

Reference: Schulman et al. (2017), "Proximal Policy Optimization Algorithms"
(https://arxiv.org/abs/1707.06347), Algorithm 1 and eq. (7), (9); GAE from Schulman et al.
(2016) (:func:`~rlzoo.policy_gradient.advantages.gae`); the implementation details of Huang et
al. (2022), "The 37 Implementation Details of Proximal Policy Optimization" (advantage
normalisation per minibatch, value clipping, learning-rate annealing, the approximate KL
``(r − 1) − log r``); RL.jl ``PPOPolicy`` (``policy_gradient/ppo.jl``).

Shape convention: a rollout is time-major, ``(T, n, ...)`` for ``T = schedule.n_steps`` steps of
``n`` environments; it is flattened to ``T · n`` samples for the epochs of minibatches.
With ``r_t(θ) = π_θ(a_t | s_t) / π_θ_old(a_t | s_t)`` and advantages ``Â_t`` the loss of a
minibatch is ``−mean(min(r_t Â_t, clip(r_t, 1 − ε, 1 + ε) Â_t)) + c_v · ½ mean((V(s_t) −
R_t)²) − c_e · mean(H[π_θ(· | s_t)])`` with returns ``R_t = Â_t + V_old(s_t)``. The old
log-probabilities and values are computed once, when the rollout is complete, by the same
network that acted (its weights do not change during a rollout). When to learn is the
``schedule``'s (:class:`~rlcore.RolloutSchedule`, one update per full rollout).
"""

import attrs
import torch

from rlcore import AbstractRolloutLearner, NeuralNetworkApproximator, RolloutSchedule
from rlcore.dispatch import dispatch, update
from rlcore.logger import scalars
from rlcore.utils.random import torch_generator
from rlcore.utils.validators import boolean, positive_int, real_in
from rlzoo.policy_gradient.advantages import normalize
from rlzoo.policy_gradient.rollout import actor_output, rollout_advantages, rollout_scalars

__all__ = ["PPOLearner", "ppo_loss"]


def _optional_positive(instance, attribute, value):
    if value is not None:
        real_in(0, float("inf"), low_open=True)(instance, attribute, value)


@attrs.define(eq=False)
class PPOLearner(AbstractRolloutLearner):
    """Proximal policy optimisation (clipped objective) from full rollouts.

    Keyword arguments: ``approximator`` (a ``NeuralNetworkApproximator`` over an
    :class:`~rlzoo.policy_gradient.networks.ActorCritic`; required), ``schedule=
    RolloutSchedule(128)``, ``gamma=0.99``, ``lam=0.95`` (GAE λ), ``clip_range=0.2`` (ε),
    ``n_epochs=4``, ``n_minibatches=4``, ``value_coef=0.5``, ``entropy_coef=0.0``,
    ``value_clip=None`` (clip the value change to ±this around the old values),
    ``normalize_advantages=True`` (per minibatch), ``target_kl=None`` (stop the epochs once the
    approximate KL of an epoch's last minibatch passes it), ``anneal_rollouts=None`` (decay the
    learning rate, through ``torch.optim.lr_scheduler.LinearLR``, and ε linearly to 0 over that
    many rollouts), ``anneal_clip_range=True`` (``False``: ε stays, only the learning rate
    decays), ``state_normalizer=None`` (the model's
    :class:`~rlzoo.policy_gradient.normalizers.ObservationNormalizer`, updated from each
    rollout's states after the update), ``reward_normalizer=None`` (a
    :class:`~rlzoo.policy_gradient.normalizers.RewardNormalizer`), ``seed=0`` (the minibatch
    shuffles). Gradient clipping is the approximator's ``max_grad_norm``.

    After each update: ``loss_value``, ``policy_loss``, ``value_loss``, ``entropy``,
    ``approx_kl``, ``clip_fraction`` (of the last minibatch), ``epochs_run``.

    >>> from rlzoo.policy_gradient import ActorCritic, CategoricalActor, ValueCritic
    >>> model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    >>> learner = PPOLearner(NeuralNetworkApproximator(model, torch.optim.Adam(
    ...     model.parameters(), lr=3e-4)), schedule=RolloutSchedule(32), n_epochs=10)
    """

    approximator: NeuralNetworkApproximator = attrs.field(
        validator=attrs.validators.instance_of(NeuralNetworkApproximator))
    schedule: RolloutSchedule = attrs.field(
        kw_only=True, factory=RolloutSchedule,
        validator=attrs.validators.instance_of(RolloutSchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    lam: float = attrs.field(kw_only=True, default=0.95, validator=real_in(0, 1))
    clip_range: float = attrs.field(kw_only=True, default=0.2,
                                    validator=real_in(0, 1, low_open=True))
    n_epochs: int = attrs.field(kw_only=True, default=4, validator=positive_int)
    n_minibatches: int = attrs.field(kw_only=True, default=4, validator=positive_int)
    value_coef: float = attrs.field(kw_only=True, default=0.5, validator=real_in(0, float("inf")))
    entropy_coef: float = attrs.field(kw_only=True, default=0.0,
                                      validator=real_in(0, float("inf")))
    value_clip: object = attrs.field(kw_only=True, default=None, validator=_optional_positive)
    normalize_advantages: bool = attrs.field(kw_only=True, default=True, validator=boolean)
    target_kl: object = attrs.field(kw_only=True, default=None, validator=_optional_positive)
    anneal_rollouts: object = attrs.field(kw_only=True, default=None, validator=attrs.validators.
                                          optional(positive_int))
    anneal_clip_range: bool = attrs.field(kw_only=True, default=True, validator=boolean)
    state_normalizer: object = attrs.field(kw_only=True, default=None)
    reward_normalizer: object = attrs.field(kw_only=True, default=None)
    seed: int = attrs.field(kw_only=True, default=0)
    generator: torch.Generator = attrs.field(init=False, repr=False)
    lr_scheduler: object = attrs.field(init=False, default=None, repr=False)
    loss_value: object = attrs.field(init=False, default=None, repr=False)
    policy_loss: object = attrs.field(init=False, default=None, repr=False)
    value_loss: object = attrs.field(init=False, default=None, repr=False)
    entropy: object = attrs.field(init=False, default=None, repr=False)
    approx_kl: object = attrs.field(init=False, default=None, repr=False)
    clip_fraction: object = attrs.field(init=False, default=None, repr=False)
    epochs_run: int = attrs.field(init=False, default=0, repr=False)

    def __attrs_post_init__(self):
        self.generator = torch_generator(self.seed)
        if self.anneal_rollouts is not None:
            self.lr_scheduler = torch.optim.lr_scheduler.LinearLR(
                self.approximator.optimizer, start_factor=1.0, end_factor=0.0,
                total_iters=self.anneal_rollouts)

    def __call__(self, env):
        return actor_output(self.approximator, env)

    @property
    def current_clip_range(self):
        """ε now: ``clip_range``, decayed linearly over ``anneal_rollouts`` when given (and
        ``anneal_clip_range``), counted in the schedule's rollouts."""
        if self.anneal_rollouts is None or not self.anneal_clip_range:
            return self.clip_range
        done = min(max(self.schedule.rollouts - 1, 0), self.anneal_rollouts)
        return self.clip_range * (1 - done / self.anneal_rollouts)


def ppo_loss(learner, dist, values, batch, clip):
    """The minibatch loss of the module doc and its parts ``(loss, policy_loss, value_loss,
    entropy, log_ratio)``; ``batch`` holds ``action``, ``log_prob`` (old), ``value`` (old),
    ``advantage`` and ``return`` of the minibatch."""
    advantages = batch["advantage"]
    if learner.normalize_advantages:
        advantages = normalize(advantages)
    log_ratio = dist.log_prob(batch["action"]) - batch["log_prob"]
    ratio = log_ratio.exp()
    policy_loss = -torch.min(ratio * advantages,
                             ratio.clamp(1 - clip, 1 + clip) * advantages).mean()
    value_error = (values - batch["return"]) ** 2
    if learner.value_clip is not None:
        clipped = batch["value"] + (values - batch["value"]).clamp(-learner.value_clip,
                                                                  learner.value_clip)
        value_error = torch.max(value_error, (clipped - batch["return"]) ** 2)
    value_loss = 0.5 * value_error.mean()
    entropy = dist.entropy().mean()
    loss = policy_loss + learner.value_coef * value_loss - learner.entropy_coef * entropy
    return loss, policy_loss, value_loss, entropy, log_ratio


@dispatch(PPOLearner, object)
def update(learner, rollout):  # noqa: F811
    """``n_epochs`` passes over the rollout in ``n_minibatches`` shuffled minibatches, one
    optimiser step each (see the module doc)."""
    app = learner.approximator
    samples = rollout_advantages(learner, rollout)  # flat (T · n) samples, on app.device
    n = samples["action"].shape[0]
    clip = learner.current_clip_range
    learner.epochs_run = 0
    for _ in range(learner.n_epochs):
        order = torch.randperm(n, generator=learner.generator).to(app.device)
        for indices in order.chunk(learner.n_minibatches):
            batch = {key: value[indices] for key, value in samples.items()}
            dist, values = app.model.forward_both(batch["state"],
                                                  batch.get("legal_actions_mask"))
            loss, policy_loss, value_loss, entropy, log_ratio = ppo_loss(
                learner, dist, values, batch, clip)
            update(app, loss)
        learner.epochs_run += 1
        with torch.no_grad():
            learner.approx_kl = ((log_ratio.exp() - 1) - log_ratio).mean()
            learner.clip_fraction = ((log_ratio.exp() - 1).abs() > clip).float().mean()
        if learner.target_kl is not None and learner.approx_kl.item() > learner.target_kl:
            break
    learner.loss_value, learner.policy_loss = loss.detach(), policy_loss.detach()
    learner.value_loss, learner.entropy = value_loss.detach(), entropy.detach()
    if learner.lr_scheduler is not None:
        learner.lr_scheduler.step()
    if learner.state_normalizer is not None:
        learner.state_normalizer.update(samples["state"])


@dispatch(PPOLearner)
def scalars(learner):  # noqa: F811
    return rollout_scalars(learner, ("policy_loss", "value_loss", "entropy", "approx_kl",
                                     "clip_fraction"))

"""A2C: advantage actor-critic, the synchronous variant of A3C, from short rollouts.

Reference: Mnih et al. (2016), "Asynchronous Methods for Deep Reinforcement Learning"
(https://arxiv.org/abs/1602.01783), Algorithm S3 (n-step returns, one update per ``t_max``
steps); the synchronous variant of OpenAI Baselines and Stable-Baselines3 (``A2C``: ``n_envs``
environments step together, one gradient step per rollout); RL.jl ``A2CLearner``
(``policy_gradient/A2C.jl``).

Shape convention: a rollout is time-major, ``(T, n, ...)`` for ``T = schedule.n_steps`` steps of
``n`` environments (:class:`~rlcore.RolloutSchedule`), flattened to ``T · n`` samples by
:func:`~rlzoo.policy_gradient.rollout.rollout_advantages`. One optimiser step per rollout on

``−mean(log π(a_t | s_t) · A_t) + c_v · ½ mean((R_t − V(s_t))²) − c_e · mean(H[π(· | s_t)])``

with ``A_t = R_t − V(s_t)`` (``V`` detached) and the n-step returns ``R_t = r_t + γ r_{t+1} + … +
γ^k V(s')``: each step's return runs to the end of the rollout or of its episode, whichever comes
first, a terminal step adds nothing after its reward, a truncated one bootstraps from its own
true final state (the row's ``next_state``), and the rollout's last row from its next state.

The returns are GAE's λ-returns with ``λ = 1`` (:func:`~rlzoo.policy_gradient.advantages.gae`,
through ``rollout_advantages``): ``A_t = Σ_k γ^k δ_{t+k}`` telescopes, since ``V(s'_t) =
V(s_{t+1})`` inside an episode, to ``R_t − V(s_t)`` with exactly those bootstraps. We use it
rather than ``discounted_returns``, which cuts a return at every episode boundary with nothing
after it, so it cannot bootstrap a truncated step from its own final state.
:class:`~rlzoo.policy_gradient.a2c_gae.A2CGAELearner` is the same update with ``λ < 1``; both
call :func:`actor_critic_step`.
"""

import attrs

from rlcore import AbstractRolloutLearner, NeuralNetworkApproximator, RolloutSchedule
from rlcore.dispatch import dispatch, update
from rlcore.logger import scalars
from rlcore.utils.validators import boolean, real_in
from rlzoo.policy_gradient.advantages import normalize
from rlzoo.policy_gradient.rollout import actor_output, rollout_advantages, rollout_scalars

__all__ = ["A2CLearner", "a2c_loss", "actor_critic_step"]


@attrs.define(eq=False)
class A2CLearner(AbstractRolloutLearner):
    """Advantage actor-critic with n-step returns, one optimiser step per rollout (see the
    module doc).

    Keyword arguments: ``approximator`` (a ``NeuralNetworkApproximator`` over an
    :class:`~rlzoo.policy_gradient.networks.ActorCritic`; required), ``schedule=
    RolloutSchedule(5)`` (``n_steps``, ``t_max`` of the paper), ``gamma=0.99``,
    ``value_coef=0.5`` (``c_v``), ``entropy_coef=0.0`` (``c_e``),
    ``normalize_advantages=False`` (over the rollout), ``reward_normalizer=None`` (a
    :class:`~rlzoo.policy_gradient.normalizers.RewardNormalizer`). Gradient clipping is the
    approximator's ``max_grad_norm``. ``lam`` is 1: the returns are n-step returns.

    After each update: ``loss_value``, ``policy_loss``, ``value_loss``, ``entropy``.

    >>> import torch
    >>> from rlzoo.policy_gradient import ActorCritic, CategoricalActor, ValueCritic
    >>> model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    >>> learner = A2CLearner(NeuralNetworkApproximator(model, torch.optim.RMSprop(
    ...     model.parameters(), lr=7e-4, alpha=0.99, eps=1e-5)), schedule=RolloutSchedule(5))
    """

    approximator: NeuralNetworkApproximator = attrs.field(
        validator=attrs.validators.instance_of(NeuralNetworkApproximator))
    schedule: RolloutSchedule = attrs.field(
        kw_only=True, factory=lambda: RolloutSchedule(5),
        validator=attrs.validators.instance_of(RolloutSchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    value_coef: float = attrs.field(kw_only=True, default=0.5, validator=real_in(0, float("inf")))
    entropy_coef: float = attrs.field(kw_only=True, default=0.0,
                                      validator=real_in(0, float("inf")))
    normalize_advantages: bool = attrs.field(kw_only=True, default=False, validator=boolean)
    reward_normalizer: object = attrs.field(kw_only=True, default=None)
    loss_value: object = attrs.field(init=False, default=None, repr=False)
    policy_loss: object = attrs.field(init=False, default=None, repr=False)
    value_loss: object = attrs.field(init=False, default=None, repr=False)
    entropy: object = attrs.field(init=False, default=None, repr=False)

    @property
    def lam(self):
        """GAE's λ for ``rollout_advantages``: 1, whose λ-returns are the n-step returns."""
        return 1.0

    def __call__(self, env):
        return actor_output(self.approximator, env)


def a2c_loss(learner, dist, values, samples):
    """The loss of the module doc and its parts ``(loss, policy_loss, value_loss, entropy)``:
    ``dist`` and ``values`` the model's output for ``samples["state"]``, ``samples`` from
    ``rollout_advantages`` (``action``, ``advantage``, ``return``)."""
    advantages = samples["advantage"]
    if learner.normalize_advantages:
        advantages = normalize(advantages)
    policy_loss = -(dist.log_prob(samples["action"]) * advantages).mean()
    value_loss = 0.5 * ((samples["return"] - values) ** 2).mean()
    entropy = dist.entropy().mean()
    loss = policy_loss + learner.value_coef * value_loss - learner.entropy_coef * entropy
    return loss, policy_loss, value_loss, entropy


def actor_critic_step(learner, rollout):
    """One optimiser step of ``learner`` (an A2C-style learner: ``approximator``, ``gamma``,
    ``lam``, ``value_coef``, ``entropy_coef``, ``normalize_advantages``,
    ``reward_normalizer``) on :func:`a2c_loss` of the rollout, whose advantages and returns
    ``rollout_advantages`` computes (GAE with the learner's ``lam``) from the weights that
    acted; sets ``loss_value`` and the parts."""
    app = learner.approximator
    samples = rollout_advantages(learner, rollout)  # flat (T · n) samples, on app.device
    dist, values = app.model.forward_both(samples["state"], samples.get("legal_actions_mask"))
    loss, policy_loss, value_loss, entropy = a2c_loss(learner, dist, values, samples)
    update(app, loss)
    learner.loss_value, learner.policy_loss = loss.detach(), policy_loss.detach()
    learner.value_loss, learner.entropy = value_loss.detach(), entropy.detach()


@dispatch(A2CLearner, object)
def update(learner, rollout):  # noqa: F811
    """One optimiser step on the rollout (see the module doc)."""
    actor_critic_step(learner, rollout)


@dispatch(A2CLearner)
def scalars(learner):  # noqa: F811
    return rollout_scalars(learner, ("policy_loss", "value_loss", "entropy"))


"""A2C with generalised advantage estimation: A2C's one gradient step per rollout, with GAE's
λ-weighted advantages instead of n-step ones.

Reference: Mnih et al. (2016), "Asynchronous Methods for Deep Reinforcement Learning"
(https://arxiv.org/abs/1602.01783), synchronous as in :mod:`~rlzoo.policy_gradient.a2c`;
Schulman et al. (2016), "High-Dimensional Continuous Control Using Generalized Advantage
Estimation" (https://arxiv.org/abs/1506.02438), eq. 16; RL.jl ``A2CGAELearner``
(``policy_gradient/A2CGAE.jl``); Stable-Baselines3's ``A2C(gae_lambda=λ)``.

Shape convention: as A2C's, a time-major ``(T, n, ...)`` rollout flattened to ``T · n``
samples. The loss is A2C's (:func:`~rlzoo.policy_gradient.a2c.a2c_loss`) with
``A_t = Σ_k (γλ)^k δ_{t+k}``, ``δ_t = r_t + γ (1 − terminal_t) V(s'_t) − V(s_t)``, cut at episode
boundaries, and the value targets ``R_t = A_t + V(s_t)`` (the λ-returns), both from
:func:`~rlzoo.policy_gradient.rollout.rollout_advantages` with the learner's ``gamma`` and
``lam``: ``λ = 1`` is A2C's n-step update, ``λ = 0`` the one-step TD actor-critic.
"""

import attrs

from rlcore import AbstractRolloutLearner, NeuralNetworkApproximator, RolloutSchedule
from rlcore.dispatch import dispatch, update
from rlcore.logger import scalars
from rlcore.utils.validators import boolean, real_in
from rlzoo.policy_gradient.a2c import actor_critic_step
from rlzoo.policy_gradient.rollout import actor_output, rollout_scalars

__all__ = ["A2CGAELearner"]


@attrs.define(eq=False)
class A2CGAELearner(AbstractRolloutLearner):
    """Advantage actor-critic with GAE(λ) advantages, one optimiser step per rollout (see the
    module doc).

    Keyword arguments: ``approximator`` (a ``NeuralNetworkApproximator`` over an
    :class:`~rlzoo.policy_gradient.networks.ActorCritic`; required), ``schedule=
    RolloutSchedule(5)``, ``gamma=0.99``, ``lam=0.95`` (GAE λ), ``value_coef=0.5``,
    ``entropy_coef=0.0``, ``normalize_advantages=False`` (over the rollout),
    ``reward_normalizer=None``. Gradient clipping is the approximator's ``max_grad_norm``.

    After each update: ``loss_value``, ``policy_loss``, ``value_loss``, ``entropy``.

    >>> import torch
    >>> from rlzoo.policy_gradient import ActorCritic, CategoricalActor, ValueCritic
    >>> model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    >>> learner = A2CGAELearner(NeuralNetworkApproximator(model, torch.optim.Adam(
    ...     model.parameters(), lr=1e-3)), schedule=RolloutSchedule(8), lam=0.9)
    """

    approximator: NeuralNetworkApproximator = attrs.field(
        validator=attrs.validators.instance_of(NeuralNetworkApproximator))
    schedule: RolloutSchedule = attrs.field(
        kw_only=True, factory=lambda: RolloutSchedule(5),
        validator=attrs.validators.instance_of(RolloutSchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    lam: float = attrs.field(kw_only=True, default=0.95, validator=real_in(0, 1))
    value_coef: float = attrs.field(kw_only=True, default=0.5, validator=real_in(0, float("inf")))
    entropy_coef: float = attrs.field(kw_only=True, default=0.0,
                                      validator=real_in(0, float("inf")))
    normalize_advantages: bool = attrs.field(kw_only=True, default=False, validator=boolean)
    reward_normalizer: object = attrs.field(kw_only=True, default=None)
    loss_value: object = attrs.field(init=False, default=None, repr=False)
    policy_loss: object = attrs.field(init=False, default=None, repr=False)
    value_loss: object = attrs.field(init=False, default=None, repr=False)
    entropy: object = attrs.field(init=False, default=None, repr=False)

    def __call__(self, env):
        return actor_output(self.approximator, env)


@dispatch(A2CGAELearner, object)
def update(learner, rollout):  # noqa: F811
    """One optimiser step on the rollout with GAE(λ) advantages (see the module doc)."""
    actor_critic_step(learner, rollout)


@dispatch(A2CGAELearner)
def scalars(learner):  # noqa: F811
    return rollout_scalars(learner, ("policy_loss", "value_loss", "entropy"))

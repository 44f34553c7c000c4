"""IQN: implicit quantile networks.

Reference: Dabney, Ostrovski, Silver & Munos (2018), "Implicit Quantile Networks for
Distributional Reinforcement Learning" (https://arxiv.org/abs/1806.06923); RL.jl ``IQNLearner``;
Dopamine's ``ImplicitQuantileAgent``.

Shape convention: the network maps ``(state (batch, *state_shape), taus (batch, n))`` to
``(batch, n, n_actions)``. Acting: ``Q(s, a) = mean_k Z_τk(s, a)`` over ``n_tau_act`` fractions
``τ ~ U(0, 1)``. Learning: ``N = n_tau`` online fractions τ and ``N' = n_tau_prime`` target
fractions τ'; ``a* = argmax_a mean_k Z'_τ̃k(s', a)`` over ``K = n_tau_act`` fractions τ̃ of its
own, through the target network (the paper's Algorithm 1 and Dopamine: choosing with the τ'
that then evaluate a* would bias the target upwards); target
``r + γ^k (1 − terminal) Z'_τ'j(s', a*)``; loss: quantile Huber loss at τ, summed over the N
fractions and averaged over the N' targets. An update draws τ, τ' and τ̃ in that order.
Fractions come from three ``torch.Generator`` objects of the learner, all seeded from ``seed``:
``generator`` for the updates, ``acting_generator`` for acting in training,
``evaluation_generator`` for acting in test mode (``testmode``, the model in eval mode), so
neither acting nor an evaluation ever shifts the τ draws of the updates, and a training run is
the same with and without evaluations.
"""

import attrs
import numpy as np
import torch

from rlcore import AbstractReplayLearner, ReplaySchedule, TargetNetwork
from rlcore.dispatch import dispatch, update
from rlcore.utils.random import torch_generator
from rlcore.utils.validators import non_negative_int, positive_int, real_in
from rlzoo.inputs import batch_on, env_states, for_env
from rlzoo.dqns.losses import bootstrap_factor, quantile_huber_loss
from rlzoo.dqns.replay import check_sampler_gamma

__all__ = ["IQNLearner"]


@attrs.define(eq=False)
class IQNLearner(AbstractReplayLearner):
    """Implicit quantile network learner.

    Keyword arguments: ``approximator`` (a ``TargetNetwork`` whose model maps ``(state, taus)``
    to ``(batch, n, n_actions)``, e.g. :class:`rlzoo.dqns.networks.ImplicitQuantileNetwork`;
    required), ``schedule=ReplaySchedule()``, ``gamma=0.99``, ``n_tau=64``, ``n_tau_prime=64``,
    ``n_tau_act=32``, ``kappa=1.0``, ``seed=0`` (an int >= 0: the fractions τ; the updates draw
    from ``torch_generator(seed)``, acting from two generators seeded by
    ``numpy.random.SeedSequence(seed).spawn(2)``).
    """

    approximator: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    n_tau: int = attrs.field(kw_only=True, default=64, validator=positive_int)
    n_tau_prime: int = attrs.field(kw_only=True, default=64, validator=positive_int)
    n_tau_act: int = attrs.field(kw_only=True, default=32, validator=positive_int)
    kappa: float = attrs.field(kw_only=True, default=1.0, validator=real_in(
        0, float("inf"), low_open=True, high_open=True))
    seed: int = attrs.field(kw_only=True, default=0, validator=non_negative_int)
    generator: object = attrs.field(init=False, repr=False)
    acting_generator: object = attrs.field(init=False, repr=False)
    evaluation_generator: object = attrs.field(init=False, repr=False)
    loss_value: object = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)
        device = self.approximator.device
        self.generator = torch_generator(self.seed, device)
        acting, evaluation = np.random.SeedSequence(int(self.seed)).spawn(2)
        self.acting_generator = torch_generator(int(acting.generate_state(1)[0]), device)
        self.evaluation_generator = torch_generator(int(evaluation.generate_state(1)[0]), device)

    def sample_taus(self, batch_size, n, generator=None):
        """``(batch_size, n)`` fractions drawn uniformly from (0, 1) with ``generator``
        (default: the update generator)."""
        return torch.rand(batch_size, n, generator=self.generator if generator is None
                          else generator, device=self.approximator.device)

    def __call__(self, env):
        # in test mode (the model in eval mode) an evaluation draws from its own generator
        generator = self.acting_generator if self.approximator.model.training \
            else self.evaluation_generator
        with torch.no_grad():
            states = env_states(self.approximator, env)
            taus = self.sample_taus(states.shape[0], self.n_tau_act, generator)
            return for_env(self.approximator(states, taus).mean(dim=1), env)


@dispatch(IQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch``; returns the loss tensor."""
    batch = batch_on(batch, learner.approximator.device)
    state = batch["state"]
    size = state.shape[0]
    rows = torch.arange(size, device=state.device)
    taus = learner.sample_taus(size, learner.n_tau)
    z = learner.approximator(state, taus)                               # (B, N, A)
    z_sa = z[rows, :, batch["action"].long()]                           # (B, N)
    with torch.no_grad():
        network, next_state = learner.approximator, batch["next_state"]
        taus_prime = learner.sample_taus(size, learner.n_tau_prime)
        z_next = network.target(next_state, taus_prime)                 # (B, N', A)
        # a* from K = n_tau_act fractions of its own (Algorithm 1 of the paper, Dopamine):
        # choosing a* with the τ' that then evaluate it would bias the target upwards
        taus_select = learner.sample_taus(size, learner.n_tau_act)
        best = network.target(next_state, taus_select).mean(dim=1).argmax(dim=1)
        target = batch["reward"].unsqueeze(1) + bootstrap_factor(batch, learner.gamma) \
            .unsqueeze(1) * z_next[rows, :, best]                       # (B, N')
    loss = quantile_huber_loss(z_sa, target, taus, learner.kappa).mean()
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return loss

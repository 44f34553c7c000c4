"""QR-DQN: distributional Q-learning by quantile regression.

Reference: Dabney, Rowland, Bellemare & Munos (2018), "Distributional Reinforcement Learning with
Quantile Regression" (https://arxiv.org/abs/1710.10044), Algorithm 1; RL.jl ``QRDQNLearner``.

Shape convention: the network maps states ``(batch, *state_shape)`` to quantile values
``(batch, n_actions, n_quantiles)`` at the fractions ``τ̂_i = (2i + 1) / (2N)``;
``Q(s, a) = mean_i θ_i(s, a)``. Target quantiles ``r + γ^k (1 − terminal) θ'_j(s', a*)`` with
``a* = argmax_a Q_target(s', a)``; loss: the quantile Huber loss summed over ``i``, averaged
over ``j`` (:func:`rlzoo.dqns.common.quantile_huber_loss`).
"""

import attrs
import torch

from rlcore import AbstractEnv, AbstractLearner, AbstractTrajectory, BatchSampler, PreActStage
from rlcore.dispatch import dispatch, update
from rlzoo.dqns.common import (
    attach_sampler,
    batch_on,
    bootstrap_factor,
    check_approximator,
    make_target_network,
    positive_int,
    quantile_huber_loss,
    real_in,
    should_learn,
    state_batch,
    sync_target,
)

__all__ = ["QRDQNLearner"]


@attrs.define(eq=False)
class QRDQNLearner(AbstractLearner):
    """Quantile-regression DQN.

    Keyword arguments: ``approximator`` (model: states to ``(batch, n_actions, n_quantiles)``, e.g.
    :class:`rlzoo.dqns.networks.DistributionalNetwork`; required),
    ``sampler=BatchSampler(32, seed=0)``, ``gamma=0.99``, ``n_quantiles=200``, ``kappa=1.0``,
    ``min_replay_history=1000``, ``update_freq=1``, ``gradient_steps=1``,
    ``target_update_freq=100``, ``rho=0.0``.
    """

    approximator: object = attrs.field(validator=check_approximator)
    sampler: object = attrs.field(kw_only=True, factory=lambda: BatchSampler(32, seed=0))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    n_quantiles: int = attrs.field(kw_only=True, default=200, validator=positive_int)
    kappa: float = attrs.field(kw_only=True, default=1.0, validator=real_in(
        0, float("inf"), low_open=True, high_open=True))
    min_replay_history: int = attrs.field(kw_only=True, default=1000, validator=positive_int)
    update_freq: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    gradient_steps: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    target_update_freq: int = attrs.field(kw_only=True, default=100, validator=positive_int)
    rho: float = attrs.field(kw_only=True, default=0.0, validator=real_in(0, 1, high_open=True))
    taus: object = attrs.field(init=False, repr=False)
    target_network: object = attrs.field(init=False, repr=False)
    update_step: int = attrs.field(default=0, init=False, on_setattr=attrs.setters.NO_OP)
    loss_value: object = attrs.field(default=None, init=False, repr=False,
                                     on_setattr=attrs.setters.NO_OP)

    def __attrs_post_init__(self):
        attach_sampler(self)
        n = self.n_quantiles
        self.taus = (2 * torch.arange(n, dtype=torch.float32) + 1).div(2 * n).to(
            self.approximator.device)
        self.target_network = make_target_network(self)

    def __call__(self, env):
        with torch.no_grad():
            return self.approximator(state_batch(self.approximator, env))[0].mean(dim=-1)


@dispatch(QRDQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch``; returns the loss tensor."""
    batch = batch_on(batch, learner.approximator.device)
    quantiles = learner.approximator(batch["state"])
    if quantiles.dim() != 3 or quantiles.shape[2] != learner.n_quantiles:
        raise ValueError(f"QRDQNLearner: the network gives outputs of shape "
                         f"{tuple(quantiles.shape)}, expected (batch, n_actions, n_quantiles="
                         f"{learner.n_quantiles}); build it with n_atoms={learner.n_quantiles}")
    rows = torch.arange(quantiles.shape[0], device=quantiles.device)
    quantiles_sa = quantiles[rows, batch["action"].long()]             # (B, N)
    with torch.no_grad():
        next_quantiles = learner.target_network.target(batch["next_state"])
        best = next_quantiles.mean(dim=-1).argmax(dim=1)
        target = batch["reward"].unsqueeze(1) + bootstrap_factor(batch, learner.gamma) \
            .unsqueeze(1) * next_quantiles[rows, best]                  # (B, N)
    loss = quantile_huber_loss(quantiles_sa, target, learner.taus, learner.kappa).mean()
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return loss


@dispatch(QRDQNLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    if should_learn(learner, trajectory):
        for _ in range(learner.gradient_steps):
            update(learner, learner.sampler(trajectory))
    sync_target(learner)

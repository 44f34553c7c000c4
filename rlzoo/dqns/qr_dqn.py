"""QR-DQN: distributional Q-learning by quantile regression.

Reference: Dabney, Rowland, Bellemare & Munos (2018), "Distributional Reinforcement Learning with
Quantile Regression" (https://arxiv.org/abs/1710.10044), Algorithm 1; RL.jl ``QRDQNLearner``.

Shape convention: the network maps states ``(batch, *state_shape)`` to quantile values
``(batch, n_actions, n_quantiles)`` at the fractions ``τ̂_i = (2i + 1) / (2N)``;
``Q(s, a) = mean_i θ_i(s, a)``. Target quantiles ``r + γ^k (1 − terminal) θ'_j(s', a*)`` with
``a* = argmax_a Q_target(s', a)``; loss: the quantile Huber loss summed over ``i``, averaged
over ``j`` (:func:`rlzoo.dqns.losses.quantile_huber_loss`).
"""

import attrs
import torch

from rlcore import AbstractReplayLearner, ReplaySchedule, TargetNetwork
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import positive_int, real_in
from rlzoo.inputs import batch_on, env_states, for_env
from rlzoo.dqns.losses import bootstrap_factor, quantile_huber_loss
from rlzoo.dqns.replay import check_sampler_gamma

__all__ = ["QRDQNLearner"]


@attrs.define(eq=False)
class QRDQNLearner(AbstractReplayLearner):
    """Quantile-regression DQN.

    Keyword arguments: ``approximator`` (a ``TargetNetwork`` whose model maps states to
    ``(batch, n_actions, n_quantiles)``, e.g. :class:`rlzoo.dqns.networks.DistributionalNetwork`;
    required), ``schedule=ReplaySchedule()``, ``gamma=0.99``, ``n_quantiles=200``,
    ``kappa=1.0``.
    """

    approximator: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    n_quantiles: int = attrs.field(kw_only=True, default=200, validator=positive_int)
    kappa: float = attrs.field(kw_only=True, default=1.0, validator=real_in(
        0, float("inf"), low_open=True, high_open=True))
    taus: object = attrs.field(init=False, repr=False)
    loss_value: object = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)
        n = self.n_quantiles
        self.taus = (2 * torch.arange(n, dtype=torch.float32) + 1).div(2 * n).to(
            self.approximator.device)

    def __call__(self, env):
        with torch.no_grad():
            quantiles = self.approximator(env_states(self.approximator, env))
            return for_env(quantiles.mean(dim=-1), env)


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
        next_quantiles = learner.approximator.target(batch["next_state"])
        best = next_quantiles.mean(dim=-1).argmax(dim=1)
        target = batch["reward"].unsqueeze(1) + bootstrap_factor(batch, learner.gamma) \
            .unsqueeze(1) * next_quantiles[rows, best]                  # (B, N)
    loss = quantile_huber_loss(quantiles_sa, target, learner.taus, learner.kappa).mean()
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return loss

"""REM: random ensemble mixture DQN.

Reference: Agarwal, Schuurmans & Norouzi (2020), "An Optimistic Perspective on Offline
Reinforcement Learning" (https://arxiv.org/abs/1907.04543), §4.2; RL.jl ``REMDQNLearner``.

Shape convention: the network maps states ``(batch, *state_shape)`` to ``(batch, n_heads,
n_actions)`` (:class:`rlzoo.dqns.networks.EnsembleQNetwork`). For each mini-batch one convex
combination ``α ~ U(0, 1)^K / Σ`` of the K heads is drawn (from the learner's own
``torch.Generator``); ``Q_α = Σ_k α_k Q_k``, target ``r + γ^k (1 − terminal)
max_a Σ_k α_k Q'_k(s', a)`` from the target network, Huber (or MSE) loss. Acting uses the mean
of the heads.
"""

import attrs
import torch

from rlcore import AbstractReplayLearner, ReplaySchedule, TargetNetwork
from rlcore.dispatch import dispatch, update
from rlcore.utils.random import torch_generator
from rlcore.utils.validators import non_negative_int, one_of, real_in
from rlzoo.inputs import batch_on, env_states, for_env
from rlzoo.dqns.losses import bootstrapped_target, td_loss
from rlzoo.dqns.replay import check_sampler_gamma

__all__ = ["REMDQNLearner"]


@attrs.define(eq=False)
class REMDQNLearner(AbstractReplayLearner):
    """Random-ensemble-mixture DQN.

    Keyword arguments: ``approximator`` (a ``TargetNetwork`` whose model maps states to
    ``(batch, n_heads, n_actions)``; required), ``schedule=ReplaySchedule()``, ``gamma=0.99``,
    ``loss="huber"``, ``seed=0`` (the mixture weights' generator).
    """

    approximator: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    loss: str = attrs.field(kw_only=True, default="huber", validator=one_of("huber", "mse"))
    seed: int = attrs.field(kw_only=True, default=0, validator=non_negative_int)
    generator: object = attrs.field(init=False, repr=False)
    loss_value: object = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)
        self.generator = torch_generator(self.seed, self.approximator.device)

    def sample_mixture(self, n_heads):
        """A random convex combination ``(n_heads,)``: uniform draws normalised to sum 1."""
        alpha = torch.rand(n_heads, generator=self.generator, device=self.approximator.device)
        return alpha / alpha.sum()

    def __call__(self, env):
        with torch.no_grad():
            q_heads = self.approximator(env_states(self.approximator, env))
            return for_env(q_heads.mean(dim=1), env)


@dispatch(REMDQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch`` with a fresh mixture α; returns the loss tensor."""
    batch = batch_on(batch, learner.approximator.device)
    q_heads = learner.approximator(batch["state"])                     # (B, K, A)
    alpha = learner.sample_mixture(q_heads.shape[1]).view(1, -1, 1)
    q = (alpha * q_heads).sum(dim=1)                                   # (B, A)
    q_sa = q.gather(1, batch["action"].long().unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        next_q = (alpha * learner.approximator.target(batch["next_state"])).sum(dim=1)
        target = bootstrapped_target(batch, learner.gamma, next_q.max(dim=1).values)
    loss, _ = td_loss(q_sa, target, learner.loss)
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return loss

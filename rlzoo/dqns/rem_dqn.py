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

from rlcore import AbstractEnv, AbstractLearner, AbstractTrajectory, BatchSampler, PreActStage
from rlcore.dispatch import dispatch, update
from rlzoo.dqns.common import (
    attach_sampler,
    batch_on,
    bootstrap_factor,
    check_approximator,
    make_target_network,
    non_negative_int,
    one_of,
    positive_int,
    real_in,
    should_learn,
    state_batch,
    sync_target,
    td_loss,
    torch_generator,
)

__all__ = ["REMDQNLearner"]


@attrs.define(eq=False)
class REMDQNLearner(AbstractLearner):
    """Random-ensemble-mixture DQN.

    Keyword arguments: ``approximator`` (model: states to ``(batch, n_heads, n_actions)``;
    required), ``sampler=BatchSampler(32, seed=0)``, ``gamma=0.99``, ``loss="huber"``,
    ``min_replay_history=1000``, ``update_freq=1``, ``gradient_steps=1``,
    ``target_update_freq=100``, ``rho=0.0``, ``seed=0`` (mixture weights).
    """

    approximator: object = attrs.field(validator=check_approximator)
    sampler: object = attrs.field(kw_only=True, factory=lambda: BatchSampler(32, seed=0))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    loss: str = attrs.field(kw_only=True, default="huber", validator=one_of("huber", "mse"))
    min_replay_history: int = attrs.field(kw_only=True, default=1000, validator=positive_int)
    update_freq: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    gradient_steps: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    target_update_freq: int = attrs.field(kw_only=True, default=100, validator=positive_int)
    rho: float = attrs.field(kw_only=True, default=0.0, validator=real_in(0, 1, high_open=True))
    seed: int = attrs.field(kw_only=True, default=0, validator=non_negative_int)
    generator: object = attrs.field(init=False, repr=False)
    target_network: object = attrs.field(init=False, repr=False)
    update_step: int = attrs.field(default=0, init=False, on_setattr=attrs.setters.NO_OP)
    loss_value: object = attrs.field(default=None, init=False, repr=False,
                                     on_setattr=attrs.setters.NO_OP)

    def __attrs_post_init__(self):
        attach_sampler(self)
        self.generator = torch_generator(self.seed, self.approximator.device)
        self.target_network = make_target_network(self)

    def sample_mixture(self, n_heads):
        """A random convex combination ``(n_heads,)``: uniform draws normalised to sum 1."""
        alpha = torch.rand(n_heads, generator=self.generator, device=self.approximator.device)
        return alpha / alpha.sum()

    def __call__(self, env):
        with torch.no_grad():
            return self.approximator(state_batch(self.approximator, env))[0].mean(dim=0)


@dispatch(REMDQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch`` with a fresh mixture α; returns the loss tensor."""
    batch = batch_on(batch, learner.approximator.device)
    q_heads = learner.approximator(batch["state"])                     # (B, K, A)
    alpha = learner.sample_mixture(q_heads.shape[1]).view(1, -1, 1)
    q = (alpha * q_heads).sum(dim=1)                                   # (B, A)
    q_sa = q.gather(1, batch["action"].long().unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        next_q = (alpha * learner.target_network.target(batch["next_state"])).sum(dim=1)
        target = batch["reward"] + bootstrap_factor(batch, learner.gamma) * \
            next_q.max(dim=1).values
    loss, _ = td_loss(q_sa, target, learner.loss)
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return loss


@dispatch(REMDQNLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    if should_learn(learner, trajectory):
        for _ in range(learner.gradient_steps):
            update(learner, learner.sampler(trajectory))
    sync_target(learner)

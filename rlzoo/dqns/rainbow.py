"""Rainbow: C51 with prioritized replay, n-step returns, a dueling head and noisy layers.

Reference: Hessel et al. (2018), "Rainbow: Combining Improvements in Deep Reinforcement
Learning" (https://arxiv.org/abs/1710.02298); RL.jl ``RainbowLearner``; Dopamine's
``RainbowAgent``.

The pieces are composed, not inherited: the network is a
:class:`rlzoo.dqns.networks.DistributionalNetwork` with ``dueling=True, noisy=True``; n-step
returns come from an ``NStepBatchSampler``; the trajectory is a
``CircularArrayPSARTTrajectory``. The loss is C51's cross-entropy to the projected target
(:func:`rlzoo.dqns.c51.c51_target`), weighted by importance weights ``(N P(i))^−β / max``;
new priorities are ``(loss_i + priority_epsilon)^α``, with the cross-entropy as ``loss_i``
(Dopamine's choice; the paper's KL divergence is smaller by the target's entropy). As in
Dopamine's Rainbow the next action is the target network's greedy one (the paper chooses it
with the online network, double Q-learning). The target network's noisy layers draw noise of
their own (:func:`rlzoo.dqns.common.make_target_network`).
Shape convention: logits ``(batch, n_actions, n_atoms)``.
"""

import attrs
import torch

from rlcore import (
    AbstractEnv, AbstractLearner, AbstractTrajectory, NStepBatchSampler, PreActStage,
)
from rlcore.dispatch import dispatch, update
from rlzoo.dqns.c51 import c51_target, make_support
from rlzoo.dqns.common import (
    attach_sampler,
    batch_on,
    beta_at,
    c51_cross_entropy,
    check_approximator,
    expected_q_values,
    importance_weights,
    int_at_least,
    make_target_network,
    non_negative_int,
    positive_int,
    real_in,
    should_learn,
    sync_target,
)
from rlzoo.dqns.prioritized_dqn import check_prioritized

__all__ = ["RainbowLearner"]


@attrs.define(eq=False)
class RainbowLearner(AbstractLearner):
    """Rainbow DQN.

    Keyword arguments: ``approximator`` (logits ``(batch, n_actions, n_atoms)``; required),
    ``sampler=None`` (``NStepBatchSampler(3, gamma, 32, seed=0)``: 3-step returns, Dopamine's
    ``update_horizon``; give one of another ``n``, or a ``BatchSampler`` for 1-step),
    ``gamma=0.99``, ``n_atoms=51``, ``v_min=-10.0``, ``v_max=10.0``, ``min_replay_history=1000``,
    ``update_freq=1``, ``gradient_steps=1``, ``target_update_freq=100``, ``rho=0.0``, ``alpha=0.5``,
    ``beta_init=0.4``, ``beta_steps=10_000`` (0: β stays ``beta_init``),
    ``priority_epsilon=1e-6``. ``attrs.evolve`` keeps the sampler built by default, whose
    ``gamma`` must match the learner's: with a new ``gamma`` pass ``sampler=None`` too.
    """

    approximator: object = attrs.field(validator=check_approximator)
    sampler: object = attrs.field(kw_only=True, default=None)
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    n_atoms: int = attrs.field(kw_only=True, default=51, validator=int_at_least(2))  # 1: Δz = 0/0
    v_min: float = attrs.field(kw_only=True, default=-10.0)
    v_max: float = attrs.field(kw_only=True, default=10.0)
    min_replay_history: int = attrs.field(kw_only=True, default=1000, validator=positive_int)
    update_freq: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    gradient_steps: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    target_update_freq: int = attrs.field(kw_only=True, default=100, validator=positive_int)
    rho: float = attrs.field(kw_only=True, default=0.0, validator=real_in(0, 1, high_open=True))
    alpha: float = attrs.field(kw_only=True, default=0.5, validator=real_in(0, 1))
    beta_init: float = attrs.field(kw_only=True, default=0.4, validator=real_in(0, 1))
    beta_steps: int = attrs.field(kw_only=True, default=10_000, validator=non_negative_int)
    priority_epsilon: float = attrs.field(kw_only=True, default=1e-6,
                                          validator=real_in(0, 1, low_open=True))
    support: object = attrs.field(init=False, repr=False)
    target_network: object = attrs.field(init=False, repr=False)
    update_step: int = attrs.field(default=0, init=False, on_setattr=attrs.setters.NO_OP)
    loss_value: object = attrs.field(default=None, init=False, repr=False,
                                     on_setattr=attrs.setters.NO_OP)

    def __attrs_post_init__(self):
        if self.sampler is None:
            self.sampler = NStepBatchSampler(3, self.gamma, 32, seed=0)
        attach_sampler(self)
        self.support = make_support(self)
        self.target_network = make_target_network(self)

    def __call__(self, env):
        return expected_q_values(self, env)


@dispatch(RainbowLearner, object)
def update(learner, batch):  # noqa: F811
    """One importance-weighted gradient step; returns the new priorities."""
    batch = batch_on(batch, learner.approximator.device)
    logits = learner.approximator(batch["state"])
    logits_sa = logits[torch.arange(logits.shape[0], device=logits.device),
                       batch["action"].long()]
    per_sample = c51_cross_entropy(logits_sa, c51_target(learner, batch))
    weights = importance_weights(batch["priorities"],
                                 beta_at(learner.update_step, learner.beta_init,
                                         learner.beta_steps))
    loss = (per_sample * weights).mean()
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return (per_sample.detach() + learner.priority_epsilon).pow(learner.alpha)


@dispatch(RainbowLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    if should_learn(learner, trajectory):
        check_prioritized(learner, trajectory)
        for _ in range(learner.gradient_steps):
            batch = learner.sampler(trajectory)
            trajectory.update_priorities(batch["indices"], update(learner, batch))
    sync_target(learner)

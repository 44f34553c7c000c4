"""Rainbow: C51 with prioritized replay, n-step returns, a dueling head and noisy layers.

Reference: Hessel et al. (2018), "Rainbow: Combining Improvements in Deep Reinforcement
Learning" (https://arxiv.org/abs/1710.02298); RL.jl ``RainbowLearner``; Dopamine's
``RainbowAgent``.

The pieces are composed, not inherited: the network is a
:class:`rlzoo.dqns.networks.DistributionalNetwork` with ``dueling=True, noisy=True``; n-step
returns come from the schedule's ``NStepBatchSampler``; the trajectory keeps priorities. The
loss is C51's cross-entropy to the projected target (:func:`rlzoo.dqns.c51.c51_target`),
weighted by importance weights ``(N P(i))^−β / max``; new priorities are
``(loss_i + priority_epsilon)^α``, with the cross-entropy as ``loss_i`` (Dopamine's choice; the
paper's KL divergence is smaller by the target's entropy). As in Dopamine's Rainbow the next
action is the target network's greedy one (the paper chooses it with the online network, double
Q-learning). The target network's noisy layers draw noise of their own
(:func:`rlzoo.dqns.networks.target_network`).
Shape convention: logits ``(batch, n_actions, n_atoms)``.
"""

import attrs

from rlcore import (
    AbstractEnv, AbstractReplayLearner, AbstractTrajectory, NStepBatchSampler, PreActStage,
    ReplaySchedule, TargetNetwork,
)
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import int_at_least, non_negative_int, real_in
from rlzoo.dqns.c51 import c51_per_sample_loss, expected_q_values, make_support
from rlzoo.inputs import batch_on
from rlzoo.dqns.losses import beta_at, importance_weights
from rlzoo.dqns.replay import check_sampler_gamma, learn_prioritized

__all__ = ["RainbowLearner"]


def _three_step_schedule():
    # Dopamine's update_horizon: 3-step returns (discounted with the learner's default γ)
    return ReplaySchedule(sampler=NStepBatchSampler(3, 0.99, 32, seed=0))


@attrs.define(eq=False)
class RainbowLearner(AbstractReplayLearner):
    """Rainbow DQN.

    Keyword arguments: ``approximator`` (a ``TargetNetwork`` whose model gives logits
    ``(batch, n_actions, n_atoms)``; required), ``schedule`` (default: its sampler an
    ``NStepBatchSampler(3, 0.99, 32)``, Dopamine's 3-step returns; with another ``gamma`` give a
    schedule whose sampler discounts with it), ``gamma=0.99``, ``n_atoms=51``,
    ``v_min=-10.0``, ``v_max=10.0``, ``alpha=0.5``, ``beta_init=0.4``, ``beta_steps=10_000`` (0:
    β stays ``beta_init``), ``priority_epsilon=1e-6``.
    """

    approximator: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=_three_step_schedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    n_atoms: int = attrs.field(kw_only=True, default=51, validator=int_at_least(2))  # 1: Δz = 0/0
    v_min: float = attrs.field(kw_only=True, default=-10.0)
    v_max: float = attrs.field(kw_only=True, default=10.0)
    alpha: float = attrs.field(kw_only=True, default=0.5, validator=real_in(0, 1))
    beta_init: float = attrs.field(kw_only=True, default=0.4, validator=real_in(0, 1))
    beta_steps: int = attrs.field(kw_only=True, default=10_000, validator=non_negative_int)
    priority_epsilon: float = attrs.field(kw_only=True, default=1e-6,
                                          validator=real_in(0, 1, low_open=True))
    support: object = attrs.field(init=False, repr=False)
    loss_value: object = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)
        self.support = make_support(self)

    def __call__(self, env):
        return expected_q_values(self, env)


@dispatch(RainbowLearner, object)
def update(learner, batch):  # noqa: F811
    """One importance-weighted gradient step; returns the new priorities."""
    batch = batch_on(batch, learner.approximator.device)
    per_sample = c51_per_sample_loss(learner, batch)
    beta = beta_at(learner.schedule.env_steps, learner.beta_init, learner.beta_steps)
    loss = (per_sample * importance_weights(batch["priorities"], beta)).mean()
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return (per_sample.detach() + learner.priority_epsilon).pow(learner.alpha)


@dispatch(RainbowLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    learn_prioritized(learner, trajectory, env)

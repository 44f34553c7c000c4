"""DQN with proportional prioritized experience replay.

Reference: Schaul et al. (2016), "Prioritized Experience Replay" (https://arxiv.org/abs/1511.05952),
proportional variant; RL.jl ``PrioritizedDQNLearner`` (``dqns/prioritized_dqn.jl``).

The trajectory keeps priorities (a sum tree). Each sampled transition ``i`` is weighted by
``w_i = (N P(i))^−β / max_j w_j`` with β annealed linearly from ``beta_init`` to 1 over
``beta_steps`` env steps; after the step its priority becomes ``(|δ_i| + priority_epsilon)^α``.
Targets as in :mod:`rlzoo.dqns.dqn` (double DQN optional).
Shape convention: states ``(batch, *state_shape)``, Q-values ``(batch, n_actions)``.
"""

import attrs

from rlcore import AbstractEnv, AbstractReplayLearner, AbstractTrajectory, PreActStage
from rlcore import ReplaySchedule, TargetNetwork
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import boolean, non_negative_int, one_of, real_in
from rlzoo.dqns.dqn import dqn_target
from rlzoo.inputs import batch_on, state_values
from rlzoo.dqns.losses import beta_at, importance_weights, td_loss
from rlzoo.dqns.replay import check_sampler_gamma, learn_prioritized

__all__ = ["PrioritizedDQNLearner"]


@attrs.define(eq=False)
class PrioritizedDQNLearner(AbstractReplayLearner):
    """DQN learning from a prioritized replay, with importance-sampling weights.

    Keyword arguments: those of :class:`rlzoo.dqns.dqn.DQNLearner` (``approximator``, a
    ``TargetNetwork``; ``schedule``, ``gamma=0.99``, ``loss="huber"``, ``is_double=False``) plus
    ``alpha=0.6`` (priority exponent), ``beta_init=0.4``, ``beta_steps=10_000`` (env steps to
    anneal β to 1; 0 keeps β at ``beta_init``), ``priority_epsilon=1e-6``.
    """

    approximator: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    loss: str = attrs.field(kw_only=True, default="huber", validator=one_of("huber", "mse"))
    is_double: bool = attrs.field(kw_only=True, default=False, validator=boolean)
    alpha: float = attrs.field(kw_only=True, default=0.6, validator=real_in(0, 1))
    beta_init: float = attrs.field(kw_only=True, default=0.4, validator=real_in(0, 1))
    beta_steps: int = attrs.field(kw_only=True, default=10_000, validator=non_negative_int)
    priority_epsilon: float = attrs.field(kw_only=True, default=1e-6,
                                          validator=real_in(0, 1, low_open=True))
    loss_value: object = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)

    def __call__(self, env):
        return state_values(self.approximator, env)


@dispatch(PrioritizedDQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One importance-weighted gradient step; returns the new priorities ``(|δ| + ε)^α``."""
    batch = batch_on(batch, learner.approximator.device)
    beta = beta_at(learner.schedule.env_steps, learner.beta_init, learner.beta_steps)
    q = learner.approximator(batch["state"])
    q_sa = q.gather(1, batch["action"].long().unsqueeze(1)).squeeze(1)
    target = dqn_target(learner, batch)
    loss, _ = td_loss(q_sa, target, learner.loss, importance_weights(batch["priorities"], beta))
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return ((q_sa.detach() - target).abs() + learner.priority_epsilon).pow(learner.alpha)


@dispatch(PrioritizedDQNLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    learn_prioritized(learner, trajectory, env)

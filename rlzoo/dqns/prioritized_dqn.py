"""DQN with proportional prioritized experience replay.

Reference: Schaul et al. (2016), "Prioritized Experience Replay" (https://arxiv.org/abs/1511.05952),
proportional variant; RL.jl ``PrioritizedDQNLearner`` (``dqns/prioritized_dqn.jl``).

The trajectory is a ``CircularArrayPSARTTrajectory`` (a sum tree of priorities). Each sampled
transition ``i`` is weighted by ``w_i = (N P(i))^−β / max_j w_j`` with β annealed linearly from
``beta_init`` to 1 over ``beta_steps`` env steps; after the step its priority becomes
``(|δ_i| + priority_epsilon)^α``. Targets as in :mod:`rlzoo.dqns.dqn` (double DQN optional).
Shape convention: states ``(batch, *state_shape)``, Q-values ``(batch, n_actions)``.
"""

import attrs
import numpy as np
import torch

from rlcore import AbstractEnv, AbstractLearner, AbstractTrajectory, BatchSampler, PreActStage
from rlcore.dispatch import dispatch, update
from rlzoo.dqns.common import (
    attach_sampler,
    batch_on,
    beta_at,
    boolean,
    check_approximator,
    importance_weights,
    make_target_network,
    non_negative_int,
    numpy_td_update,
    one_of,
    positive_int,
    real_in,
    should_learn,
    state_values,
    sync_target,
    td_loss,
)
from rlzoo.dqns.dqn import dqn_target

__all__ = ["PrioritizedDQNLearner", "check_prioritized"]


@attrs.define(eq=False)
class PrioritizedDQNLearner(AbstractLearner):
    """DQN learning from a prioritized replay, with importance-sampling weights.

    Keyword arguments: those of :class:`rlzoo.dqns.dqn.DQNLearner` (``approximator``, ``sampler``,
    ``gamma=0.99``, ``loss="huber"``, ``min_replay_history=1000``, ``update_freq=1``,
    ``gradient_steps=1``, ``target_update_freq=100``, ``rho=0.0``, ``is_double=False``) plus
    ``alpha=0.6`` (priority exponent), ``beta_init=0.4``, ``beta_steps=10_000`` (env steps to anneal
    β to 1; 0 keeps β at ``beta_init``), ``priority_epsilon=1e-6``.
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
    is_double: bool = attrs.field(kw_only=True, default=False, validator=boolean)
    alpha: float = attrs.field(kw_only=True, default=0.6, validator=real_in(0, 1))
    beta_init: float = attrs.field(kw_only=True, default=0.4, validator=real_in(0, 1))
    beta_steps: int = attrs.field(kw_only=True, default=10_000, validator=non_negative_int)
    priority_epsilon: float = attrs.field(kw_only=True, default=1e-6,
                                          validator=real_in(0, 1, low_open=True))
    target_network: object = attrs.field(init=False, repr=False)
    update_step: int = attrs.field(default=0, init=False, on_setattr=attrs.setters.NO_OP)
    loss_value: object = attrs.field(default=None, init=False, repr=False,
                                     on_setattr=attrs.setters.NO_OP)

    def __attrs_post_init__(self):
        attach_sampler(self)
        self.target_network = make_target_network(self)

    def __call__(self, env):
        return state_values(self.approximator, env)


def check_prioritized(learner, trajectory):
    """Raise unless ``trajectory`` keeps priorities (a ``CircularArrayPSARTTrajectory``)."""
    if "priority" not in trajectory:
        raise TypeError(f"{type(learner).__name__} needs a prioritized trajectory "
                        f"(CircularArrayPSARTTrajectory), got {type(trajectory).__name__}")


@dispatch(PrioritizedDQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One importance-weighted gradient step; returns the new priorities ``(|δ| + ε)^α`` (in
    numpy where it can: :func:`~rlzoo.dqns.common.numpy_td_update`)."""
    batch = batch_on(batch, learner.approximator.device)
    weights = importance_weights(batch["priorities"],
                                 beta_at(learner.update_step, learner.beta_init,
                                         learner.beta_steps))
    if (type(weights) is torch.Tensor and weights.device.type == "cpu"
            and weights.dtype == torch.float32 and not weights.requires_grad):
        fast = numpy_td_update(learner, batch, learner.target_network.target_model,
                               is_double=learner.is_double, weights=weights.numpy())
        if fast is not None:
            learner.loss_value, td = fast
            return torch.from_numpy((np.abs(td) + float(learner.priority_epsilon))
                                    ** float(learner.alpha))
    app = learner.approximator
    q = app(batch["state"])
    q_sa = q.gather(1, batch["action"].long().unsqueeze(1)).squeeze(1)
    target = dqn_target(learner, batch)
    loss, _ = td_loss(q_sa, target, learner.loss, weights)
    update(app, loss)
    learner.loss_value = loss.detach()
    return ((q_sa.detach() - target).abs() + learner.priority_epsilon).pow(learner.alpha)


@dispatch(PrioritizedDQNLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    if should_learn(learner, trajectory):
        check_prioritized(learner, trajectory)
        for _ in range(learner.gradient_steps):
            batch = learner.sampler(trajectory)
            trajectory.update_priorities(batch["indices"], update(learner, batch))
    sync_target(learner)

"""Basic DQN: Q-learning with a neural network and experience replay, no target network.

Reference: Mnih et al. (2013), "Playing Atari with Deep Reinforcement Learning"
(https://arxiv.org/abs/1312.5602); RL.jl ``BasicDQNLearner`` (``dqns/basic_dqn.jl``).

Shape convention: states ``(batch, *state_shape)``, Q-values ``(batch, n_actions)``.
Target ``y = r + γ (1 − terminal) max_a' Q(s', a')`` from the online network itself, under
``torch.no_grad()``; a truncated step (time limit) bootstraps, a terminated one does not.
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
    numpy_td_update,
    one_of,
    positive_int,
    real_in,
    should_learn,
    state_values,
    td_loss,
)

__all__ = ["BasicDQNLearner"]


@attrs.define(eq=False)
class BasicDQNLearner(AbstractLearner):
    """Deep Q-learning from replay with the online network as its own target.

    Keyword arguments: ``approximator`` (a ``NeuralNetworkApproximator`` whose model maps states to
    Q-values; required), ``sampler=BatchSampler(32, seed=0)``, ``gamma=0.99``, ``loss="huber"`` (or
    ``"mse"``), ``min_replay_history=32``, ``update_freq=1``, ``gradient_steps=1``. ``update_step``
    counts the env steps seen; ``loss_value`` is the last loss (a tensor).

    >>> import torch
    >>> from rlcore import NeuralNetworkApproximator
    >>> from rlzoo.dqns.networks import QNetwork
    >>> net = QNetwork(4, 2, seed=0)
    >>> learner = BasicDQNLearner(approximator=NeuralNetworkApproximator(
    ...     net, torch.optim.Adam(net.parameters(), lr=1e-3)))
    """

    approximator: object = attrs.field(validator=check_approximator)
    sampler: object = attrs.field(kw_only=True, factory=lambda: BatchSampler(32, seed=0))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    loss: str = attrs.field(kw_only=True, default="huber", validator=one_of("huber", "mse"))
    min_replay_history: int = attrs.field(kw_only=True, default=32, validator=positive_int)
    update_freq: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    gradient_steps: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    update_step: int = attrs.field(default=0, init=False, on_setattr=attrs.setters.NO_OP)
    loss_value: object = attrs.field(default=None, init=False, repr=False,
                                     on_setattr=attrs.setters.NO_OP)

    def __attrs_post_init__(self):
        attach_sampler(self)

    def __call__(self, env):
        return state_values(self.approximator, env)


@dispatch(BasicDQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch``; returns the loss tensor (detached when the step ran in
    numpy: :func:`~rlzoo.dqns.common.numpy_td_update`)."""
    batch = batch_on(batch, learner.approximator.device)
    fast = numpy_td_update(learner, batch, None)
    if fast is not None:
        learner.loss_value = fast[0]
        return fast[0]
    app = learner.approximator
    q_sa = app(batch["state"]).gather(1, batch["action"].long().unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        next_value = app(batch["next_state"]).max(dim=1).values
        target = batch["reward"] + bootstrap_factor(batch, learner.gamma) * next_value
    loss, _ = td_loss(q_sa, target, learner.loss)
    update(app, loss)
    learner.loss_value = loss.detach()
    return loss


@dispatch(BasicDQNLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    if should_learn(learner, trajectory):
        for _ in range(learner.gradient_steps):
            update(learner, learner.sampler(trajectory))

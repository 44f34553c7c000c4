"""Basic DQN: Q-learning with a neural network and experience replay, no target network.

Reference: Mnih et al. (2013), "Playing Atari with Deep Reinforcement Learning"
(https://arxiv.org/abs/1312.5602); RL.jl ``BasicDQNLearner`` (``dqns/basic_dqn.jl``).

Shape convention: states ``(batch, *state_shape)``, Q-values ``(batch, n_actions)``.
Target ``y = r + γ^k (1 − terminal) max_a' Q(s', a')`` from the online network itself, under
``torch.no_grad()``; a truncated step (time limit) bootstraps, a terminated one does not.
"""

import attrs
import torch

from rlcore import AbstractReplayLearner, NeuralNetworkApproximator, ReplaySchedule
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import one_of, real_in
from rlzoo.inputs import batch_on, state_values
from rlzoo.dqns.losses import bootstrapped_target, td_loss
from rlzoo.dqns.replay import check_sampler_gamma

__all__ = ["BasicDQNLearner"]


@attrs.define(eq=False)
class BasicDQNLearner(AbstractReplayLearner):
    """Deep Q-learning from replay with the online network as its own target.

    Keyword arguments: ``approximator`` (a ``NeuralNetworkApproximator`` whose model maps states
    to Q-values; required), ``schedule=ReplaySchedule(min_replay_history=32)``, ``gamma=0.99``,
    ``loss="huber"`` (or ``"mse"``). ``loss_value`` is the last loss (a tensor).

    >>> import torch
    >>> from rlcore import NeuralNetworkApproximator
    >>> from rlzoo.dqns.networks import QNetwork
    >>> net = QNetwork(4, 2, seed=0)
    >>> learner = BasicDQNLearner(approximator=NeuralNetworkApproximator(
    ...     net, torch.optim.Adam(net.parameters(), lr=1e-3)))
    """

    approximator: NeuralNetworkApproximator = attrs.field(
        validator=attrs.validators.instance_of(NeuralNetworkApproximator))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=lambda: ReplaySchedule(min_replay_history=32),
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    loss: str = attrs.field(kw_only=True, default="huber", validator=one_of("huber", "mse"))
    loss_value: object = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)

    def __call__(self, env):
        return state_values(self.approximator, env)


@dispatch(BasicDQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch``; returns the loss tensor."""
    app = learner.approximator
    batch = batch_on(batch, app.device)
    q_sa = app(batch["state"]).gather(1, batch["action"].long().unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        next_value = app(batch["next_state"]).max(dim=1).values
    loss, _ = td_loss(q_sa, bootstrapped_target(batch, learner.gamma, next_value), learner.loss)
    update(app, loss)
    learner.loss_value = loss.detach()
    return loss

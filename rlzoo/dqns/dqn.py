"""DQN with a target network: hard or Polyak sync, double DQN, n-step returns, dueling heads.

References: Mnih et al. (2015), "Human-level control through deep reinforcement learning"
(target network); van Hasselt et al. (2016), "Deep Reinforcement Learning with Double
Q-learning" (https://arxiv.org/abs/1509.06461); Wang et al. (2016), dueling networks (a network
choice: :class:`rlzoo.dqns.networks.QNetwork` with ``dueling=True``); n-step returns come from
``NStepBatchSampler`` (Sutton & Barto 2018, §7.1). RL.jl ``DQNLearner`` (``dqns/dqn.jl``).

Shape convention: states ``(batch, *state_shape)``, Q-values ``(batch, n_actions)``.
Target ``y = r^(k) + γ^k (1 − terminal) Q_target(s', a*)`` with ``a* = argmax_a Q_target(s', a)``
or, double DQN, ``a* = argmax_a Q_online(s', a)``. Truncation bootstraps; termination does not.
When to learn is the ``schedule``'s (:class:`~rlcore.ReplaySchedule`), when to sync the target
the ``TargetNetwork``'s; gradient clipping is the approximator's ``max_grad_norm``.
"""

import attrs
import torch

from rlcore import AbstractReplayLearner, ReplaySchedule, TargetNetwork
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import boolean, one_of, real_in
from rlzoo.inputs import batch_on, state_values
from rlzoo.dqns.losses import bootstrapped_target, td_loss
from rlzoo.dqns.replay import check_sampler_gamma

__all__ = ["DQNLearner", "dqn_target"]


@attrs.define(eq=False)
class DQNLearner(AbstractReplayLearner):
    """Deep Q-learning with a target network.

    Keyword arguments: ``approximator`` (a :class:`~rlcore.TargetNetwork` over the Q-network's
    ``NeuralNetworkApproximator``, e.g. :func:`rlzoo.dqns.networks.target_network`; required),
    ``schedule=ReplaySchedule()`` (when and how many batches; its sampler's batches),
    ``gamma=0.99``, ``loss="huber"`` or ``"mse"``, ``is_double=False``. ``loss_value`` is the
    last loss.

    >>> import torch
    >>> from rlcore import NeuralNetworkApproximator
    >>> from rlzoo.dqns.networks import QNetwork, target_network
    >>> net = QNetwork(4, 2, dueling=True, seed=0)
    >>> learner = DQNLearner(approximator=target_network(NeuralNetworkApproximator(
    ...     net, torch.optim.Adam(net.parameters(), lr=1e-3)), sync_every=100), is_double=True)
    """

    approximator: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    loss: str = attrs.field(kw_only=True, default="huber", validator=one_of("huber", "mse"))
    is_double: bool = attrs.field(kw_only=True, default=False, validator=boolean)
    loss_value: object = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)

    def __call__(self, env):
        return state_values(self.approximator, env)


def dqn_target(learner, batch):
    """``r + γ^k (1 − terminal) Q_target(s', a*)`` (see the module doc), without gradient
    (double DQN: ``a*`` from a forward of the online network over ``next_state``). With a
    ``next_legal_actions_mask`` in the batch (a trajectory that records masks, FULL_ACTION_SET)
    ``a*`` ranges over the next state's legal actions only: an illegal action's value is never
    trained, and bootstrapping from it overestimates."""
    with torch.no_grad():
        next_state = batch["next_state"]
        target_next = learner.approximator.target(next_state)
        chooser = learner.approximator(next_state) if learner.is_double else target_next
        legal = batch.get("next_legal_actions_mask")
        if legal is not None:
            chooser = chooser.masked_fill(~legal.bool(), float("-inf"))
        best = chooser.argmax(dim=1, keepdim=True)
        next_value = target_next.gather(1, best).squeeze(1)
        return bootstrapped_target(batch, learner.gamma, next_value)


@dispatch(DQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch``; returns the loss tensor."""
    batch = batch_on(batch, learner.approximator.device)
    q = learner.approximator(batch["state"])
    q_sa = q.gather(1, batch["action"].long().unsqueeze(1)).squeeze(1)
    loss, _ = td_loss(q_sa, dqn_target(learner, batch), learner.loss)
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return loss

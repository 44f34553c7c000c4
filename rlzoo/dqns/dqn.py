"""DQN with a target network: hard or Polyak sync, double DQN, n-step returns, dueling heads.

References: Mnih et al. (2015), "Human-level control through deep reinforcement learning"
(target network); van Hasselt et al. (2016), "Deep Reinforcement Learning with Double
Q-learning" (https://arxiv.org/abs/1509.06461); Wang et al. (2016), dueling networks (a network
choice: :class:`rlzoo.dqns.networks.QNetwork` with ``dueling=True``); n-step returns come from
``NStepBatchSampler`` (Sutton & Barto 2018, §7.1). RL.jl ``DQNLearner`` (``dqns/dqn.jl``).

Shape convention: states ``(batch, *state_shape)``, Q-values ``(batch, n_actions)``.
Target ``y = r^(k) + γ^k (1 − terminal) Q_target(s', a*)`` with ``a* = argmax_a Q_target(s', a)``
or, double DQN, ``a* = argmax_a Q_online(s', a)``. Truncation bootstraps; termination does not.
Gradient clipping is the approximator's ``max_grad_norm``.
"""

import attrs
import torch

from rlcore import AbstractEnv, AbstractLearner, AbstractTrajectory, BatchSampler, PreActStage
from rlcore.dispatch import dispatch, update
from rlzoo.dqns.common import (
    attach_sampler,
    batch_on,
    boolean,
    bootstrapped_target,
    check_approximator,
    is_deterministic,
    make_target_network,
    numpy_td_update,
    one_of,
    positive_int,
    real_in,
    should_learn,
    state_values,
    sync_target,
    td_loss,
)

__all__ = ["DQNLearner", "dqn_target"]


@attrs.define(eq=False)
class DQNLearner(AbstractLearner):
    """Deep Q-learning with a target network.

    Keyword arguments: ``approximator`` (``NeuralNetworkApproximator``, required),
    ``sampler=BatchSampler(32, seed=0)`` (an ``NStepBatchSampler`` gives n-step returns),
    ``gamma=0.99``, ``loss="huber"`` or ``"mse"``, ``min_replay_history=1000``,
    ``update_freq=1``, ``gradient_steps=1``, ``target_update_freq=100`` (env steps between
    syncs), ``rho=0.0`` (0: hard copy; else Polyak ``target ← ρ target + (1 − ρ) online`` at
    each sync), ``is_double=False``.
    ``target_network`` is built from ``approximator``.

    >>> import torch
    >>> from rlcore import NeuralNetworkApproximator
    >>> from rlzoo.dqns.networks import QNetwork
    >>> net = QNetwork(4, 2, dueling=True, seed=0)
    >>> learner = DQNLearner(approximator=NeuralNetworkApproximator(
    ...     net, torch.optim.Adam(net.parameters(), lr=1e-3)), is_double=True)
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
    target_network: object = attrs.field(init=False, repr=False)
    update_step: int = attrs.field(default=0, init=False, on_setattr=attrs.setters.NO_OP)
    loss_value: object = attrs.field(default=None, init=False, repr=False,
                                     on_setattr=attrs.setters.NO_OP)

    # True when learner(env) draws no random numbers and changes nothing (every module of the
    # network a known deterministic one): QBasedPolicy then skips it when the explorer does not
    # need the values (an exploring ε-greedy step)
    pure_call: bool = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self):
        attach_sampler(self)
        self.target_network = make_target_network(self)
        self.pure_call = is_deterministic(self.approximator.model)

    def __call__(self, env):
        return state_values(self.approximator, env)


def dqn_target(learner, batch):
    """``r + γ^k (1 − terminal) Q_target(s', a*)`` (see the module doc), without gradient
    (double DQN: with a forward of the online network over ``next_state``)."""
    with torch.no_grad():
        next_state = batch["next_state"]
        network = learner.target_network
        if type(next_state) is torch.Tensor and next_state.device == network.device:
            target_next = network.target_model(next_state)  # TargetNetwork.target, inlined
        else:
            target_next = network.target(next_state)
        if learner.is_double:
            best = learner.approximator(next_state).argmax(dim=1, keepdim=True)
            next_value = target_next.gather(1, best).squeeze(1)
        else:
            next_value = target_next.max(dim=1).values
        return bootstrapped_target(batch, learner.gamma, next_value)


@dispatch(DQNLearner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch``; returns the loss tensor (detached when the step ran in
    numpy: :func:`~rlzoo.dqns.common.numpy_td_update`)."""
    batch = batch_on(batch, learner.approximator.device)
    fast = numpy_td_update(learner, batch, learner.target_network.target_model,
                           is_double=learner.is_double)
    if fast is not None:
        learner.loss_value = fast[0]
        return fast[0]
    app = learner.approximator
    # double DQN's online Q-values of s' come from a separate forward without gradient (in
    # dqn_target): one forward over s and s' together would make the backward pass twice as
    # large (340 against 301 µs per step at batch 128 on a CPU; the same parameters for a
    # deterministic network; noisy layers draw their noise for s and s' apart, batch-norm
    # statistics are updated by both passes)
    q = app(batch["state"])
    q_sa = q.gather(1, batch["action"].long().unsqueeze(1)).squeeze(1)
    target = dqn_target(learner, batch)
    loss, _ = td_loss(q_sa, target, learner.loss)
    update(app, loss)
    learner.loss_value = loss.detach()
    return loss


@dispatch(DQNLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    if should_learn(learner, trajectory):
        for _ in range(learner.gradient_steps):
            update(learner, learner.sampler(trajectory))
    sync_target(learner)

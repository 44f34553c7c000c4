"""C51: distributional Q-learning over a fixed support of 51 atoms.

Reference: Bellemare, Dabney & Munos (2017), "A Distributional Perspective on Reinforcement
Learning" (https://arxiv.org/abs/1707.06887), Algorithm 1; RL.jl ``C51Learner``.

Shape convention: the network maps states ``(batch, *state_shape)`` to logits ``(batch,
n_actions, n_atoms)``; the support ``z`` is ``linspace(v_min, v_max, n_atoms)``; Q-values
``Q(s, a) = Σ_i z_i p_i(s, a)``. The target distribution is the projection
``Φ(r + γ^k (1 − terminal) z)`` of the target network's distribution at
``a* = argmax_a Q_target(s', a)``; the loss is the cross-entropy to it.
"""

import attrs
import torch

from rlcore import AbstractEnv, AbstractLearner, AbstractTrajectory, BatchSampler, PreActStage
from rlcore.dispatch import dispatch, update
from rlzoo.dqns.common import (
    attach_sampler,
    batch_on,
    bootstrap_factor,
    c51_cross_entropy,
    check_approximator,
    expected_q_values,
    int_at_least,
    make_target_network,
    positive_int,
    project_onto_support,
    real_in,
    should_learn,
    sync_target,
)

__all__ = ["C51Learner", "c51_target", "make_support"]


def make_support(learner):
    """``linspace(v_min, v_max, n_atoms)`` on the approximator's device."""
    if not learner.v_min < learner.v_max:
        raise ValueError(f"{type(learner).__name__}: v_min ({learner.v_min}) must be below "
                         f"v_max ({learner.v_max})")
    return torch.linspace(learner.v_min, learner.v_max, learner.n_atoms,
                          device=learner.approximator.device)


@attrs.define(eq=False)
class C51Learner(AbstractLearner):
    """Categorical distributional DQN.

    Keyword arguments: ``approximator`` (model: states to logits ``(batch, n_actions, n_atoms)``,
    e.g. :class:`rlzoo.dqns.networks.DistributionalNetwork`; required),
    ``sampler=BatchSampler(32, seed=0)``, ``gamma=0.99``, ``n_atoms=51``, ``v_min=-10.0``,
    ``v_max=10.0``, ``min_replay_history=1000``, ``update_freq=1``, ``gradient_steps=1``,
    ``target_update_freq=100``, ``rho=0.0``.
    """

    approximator: object = attrs.field(validator=check_approximator)
    sampler: object = attrs.field(kw_only=True, factory=lambda: BatchSampler(32, seed=0))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    n_atoms: int = attrs.field(kw_only=True, default=51, validator=int_at_least(2))  # 1: Δz = 0/0
    v_min: float = attrs.field(kw_only=True, default=-10.0)
    v_max: float = attrs.field(kw_only=True, default=10.0)
    min_replay_history: int = attrs.field(kw_only=True, default=1000, validator=positive_int)
    update_freq: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    gradient_steps: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    target_update_freq: int = attrs.field(kw_only=True, default=100, validator=positive_int)
    rho: float = attrs.field(kw_only=True, default=0.0, validator=real_in(0, 1, high_open=True))
    support: object = attrs.field(init=False, repr=False)
    target_network: object = attrs.field(init=False, repr=False)
    update_step: int = attrs.field(default=0, init=False, on_setattr=attrs.setters.NO_OP)
    loss_value: object = attrs.field(default=None, init=False, repr=False,
                                     on_setattr=attrs.setters.NO_OP)

    def __attrs_post_init__(self):
        attach_sampler(self)
        self.support = make_support(self)
        self.target_network = make_target_network(self)

    def __call__(self, env):
        return expected_q_values(self, env)


def c51_target(learner, batch):
    """The projected target distribution ``(batch, n_atoms)`` (see the module doc)."""
    with torch.no_grad():
        next_probs = learner.target_network.target(batch["next_state"]).softmax(dim=-1)
        best = (next_probs * learner.support).sum(dim=-1).argmax(dim=1)
        next_probs = next_probs[torch.arange(best.shape[0], device=best.device), best]
        return project_onto_support(next_probs, batch["reward"],
                                    bootstrap_factor(batch, learner.gamma), learner.support)


@dispatch(C51Learner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch``; returns the loss tensor."""
    batch = batch_on(batch, learner.approximator.device)
    logits = learner.approximator(batch["state"])
    logits_sa = logits[torch.arange(logits.shape[0], device=logits.device),
                       batch["action"].long()]
    loss = c51_cross_entropy(logits_sa, c51_target(learner, batch)).mean()
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return loss


@dispatch(C51Learner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    if should_learn(learner, trajectory):
        for _ in range(learner.gradient_steps):
            update(learner, learner.sampler(trajectory))
    sync_target(learner)

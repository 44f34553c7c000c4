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

from rlcore import AbstractReplayLearner, ReplaySchedule, TargetNetwork
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import int_at_least, real_in
from rlzoo.inputs import batch_on, env_states, for_env
from rlzoo.dqns.losses import bootstrap_factor, c51_cross_entropy, project_onto_support
from rlzoo.dqns.replay import check_sampler_gamma

__all__ = ["C51Learner", "c51_target", "c51_per_sample_loss", "make_support",
           "expected_q_values"]


def make_support(learner):
    """``linspace(v_min, v_max, n_atoms)`` on the approximator's device."""
    if not learner.v_min < learner.v_max:
        raise ValueError(f"{type(learner).__name__}: v_min ({learner.v_min}) must be below "
                         f"v_max ({learner.v_max})")
    return torch.linspace(learner.v_min, learner.v_max, learner.n_atoms,
                          device=learner.approximator.device)


def expected_q_values(learner, env):
    """Q-values of ``env``'s state(s) as the expectation of the categorical distribution over
    ``learner.support`` (C51, Rainbow): ``(n_actions,)``, or ``(n, n_actions)`` for n envs."""
    with torch.no_grad():
        logits = learner.approximator(env_states(learner.approximator, env))
        return for_env((logits.softmax(dim=-1) * learner.support).sum(dim=-1), env)


@attrs.define(eq=False)
class C51Learner(AbstractReplayLearner):
    """Categorical distributional DQN.

    Keyword arguments: ``approximator`` (a ``TargetNetwork`` whose model maps states to logits
    ``(batch, n_actions, n_atoms)``, e.g. :class:`rlzoo.dqns.networks.DistributionalNetwork`;
    required), ``schedule=ReplaySchedule()``, ``gamma=0.99``, ``n_atoms=51``, ``v_min=-10.0``,
    ``v_max=10.0``.
    """

    approximator: TargetNetwork = attrs.field(validator=attrs.validators.instance_of(TargetNetwork))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    n_atoms: int = attrs.field(kw_only=True, default=51, validator=int_at_least(2))  # 1: Δz = 0/0
    v_min: float = attrs.field(kw_only=True, default=-10.0)
    v_max: float = attrs.field(kw_only=True, default=10.0)
    support: object = attrs.field(init=False, repr=False)
    loss_value: object = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self):
        check_sampler_gamma(self)
        self.support = make_support(self)

    def __call__(self, env):
        return expected_q_values(self, env)


def c51_target(learner, batch):
    """The projected target distribution ``(batch, n_atoms)`` (see the module doc)."""
    with torch.no_grad():
        next_probs = learner.approximator.target(batch["next_state"]).softmax(dim=-1)
        best = (next_probs * learner.support).sum(dim=-1).argmax(dim=1)
        next_probs = next_probs[torch.arange(best.shape[0], device=best.device), best]
        return project_onto_support(next_probs, batch["reward"],
                                    bootstrap_factor(batch, learner.gamma), learner.support)


def c51_per_sample_loss(learner, batch):
    """The cross-entropy of each sample's predicted distribution ``p(s, a)`` to its projected
    target, shape (batch,) (C51's loss before the mean; Rainbow weights it)."""
    logits = learner.approximator(batch["state"])
    logits_sa = logits[torch.arange(logits.shape[0], device=logits.device),
                       batch["action"].long()]
    return c51_cross_entropy(logits_sa, c51_target(learner, batch))


@dispatch(C51Learner, object)
def update(learner, batch):  # noqa: F811
    """One gradient step on ``batch``; returns the loss tensor."""
    batch = batch_on(batch, learner.approximator.device)
    loss = c51_per_sample_loss(learner, batch).mean()
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return loss

"""``gradient_steps``: every learner of the DQN family takes that many gradient steps, each on
a batch of its own, every ``update_freq`` env steps."""

import numpy as np
import pytest

from rlcore import (
    PRE_ACT_STAGE, BatchSampler, CircularArrayPSARTTrajectory, CircularArraySARTTrajectory,
    update,
)
from rlzoo.dqns import (
    BasicDQNLearner, C51Learner, DistributionalNetwork, DQNLearner, EnsembleQNetwork,
    ImplicitQuantileNetwork, IQNLearner, PrioritizedDQNLearner, QNetwork, QRDQNLearner,
    RainbowLearner, REMDQNLearner,
)
from rlzoo.experiments.common import approximator
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import filled_trajectory

BUILDERS = {
    "BasicDQN": (BasicDQNLearner, lambda: QNetwork(4, 2, hidden=(8,), seed=0), {}),
    "DQN": (DQNLearner, lambda: QNetwork(4, 2, hidden=(8,), seed=0), {"is_double": True}),
    "PrioritizedDQN": (PrioritizedDQNLearner, lambda: QNetwork(4, 2, hidden=(8,), seed=0), {}),
    "C51": (C51Learner, lambda: DistributionalNetwork(4, 2, hidden=(8,), n_atoms=5, seed=0),
            {"n_atoms": 5}),
    "QRDQN": (QRDQNLearner, lambda: DistributionalNetwork(4, 2, hidden=(8,), n_atoms=4, seed=0),
              {"n_quantiles": 4}),
    "IQN": (IQNLearner, lambda: ImplicitQuantileNetwork(4, 2, hidden=(8,), n_cos=4,
                                                        head_hidden=8, seed=0),
            {"n_tau": 4, "n_tau_prime": 4, "n_tau_act": 4}),
    "REMDQN": (REMDQNLearner, lambda: EnsembleQNetwork(4, 2, hidden=(8,), n_heads=2, seed=0),
               {}),
    "Rainbow": (RainbowLearner, lambda: DistributionalNetwork(
        4, 2, hidden=(8,), n_atoms=5, dueling=True, noisy=True, seed=0), {"n_atoms": 5}),
}
PRIORITIZED = {"PrioritizedDQN", "Rainbow"}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_gradient_steps_per_learning_step(name):
    cls, network, extra = BUILDERS[name]
    learner = cls(approximator=approximator(network(), 1e-3), sampler=BatchSampler(8, seed=0),
                  min_replay_history=16, update_freq=3, gradient_steps=4, **extra)
    draws, steps = [], []
    sampler_call = type(learner.sampler).__call__
    learner.sampler = _Counting(learner.sampler, draws, sampler_call)
    optimizer = learner.approximator.optimizer
    step = optimizer.step
    optimizer.step = lambda *a, **k: (steps.append(1), step(*a, **k))[1]
    trajectory = filled_trajectory(
        100, cls=CircularArrayPSARTTrajectory if name in PRIORITIZED
        else CircularArraySARTTrajectory)
    if name in PRIORITIZED:
        priorities = np.asarray(trajectory["priority"].gather(np.arange(100)))
    for _ in range(7):  # env steps 1..7: learns at 3 and 6
        update(learner, trajectory, LineEnv(), PRE_ACT_STAGE)
    assert len(draws) == 8 and len(steps) == 8
    if name in PRIORITIZED:  # each gradient step updates its own batch's priorities
        after = np.asarray(trajectory["priority"].gather(np.arange(100)))
        assert (after != priorities).sum() > 16  # more than 2 batches of 8
    with pytest.raises(ValueError, match="gradient_steps"):
        cls(approximator=approximator(network(), 1e-3), gradient_steps=0, **extra)


class _Counting:
    """A sampler that records each draw (the learner's attach_sampler already ran)."""

    def __init__(self, sampler, draws, call):
        self._sampler, self._draws, self._call = sampler, draws, call

    def __call__(self, trajectory):
        self._draws.append(1)
        return self._call(self._sampler, trajectory)

    def __getattr__(self, name):
        return getattr(self._sampler, name)

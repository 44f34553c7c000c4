"""What the DQN-family learners check of their replay, prioritized replay's step, and every
learner of the family learning on its schedule (``gradient_steps`` batches every
``update_freq`` env steps)."""

import numpy as np
import pytest

from rlcore import (
    PRE_ACT_STAGE, BatchSampler, CircularArrayPSARTTrajectory, CircularArraySARTSTrajectory,
    CircularArraySARTTrajectory, NStepBatchSampler, ReplaySchedule, update,
)
from rlzoo.dqns import (
    BasicDQNLearner, C51Learner, DistributionalNetwork, DQNLearner, EnsembleQNetwork,
    ImplicitQuantileNetwork, IQNLearner, PrioritizedDQNLearner, QNetwork, QRDQNLearner,
    RainbowLearner, REMDQNLearner,
)
from rlzoo.dqns.replay import check_prioritized, check_sampler_gamma, learn_prioritized
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import adam, adam_target, filled_trajectory, schedule


def _priorities(trajectory, n=100):
    return np.asarray(trajectory["priority"].gather(np.arange(n)), dtype=float)


class _Recording:
    """A sampler that records each batch it draws (and calls ``before_draw(trajectory)``)."""

    def __init__(self, sampler, before_draw=lambda trajectory: None):
        self._sampler, self.batches, self._before_draw = sampler, [], before_draw

    def __call__(self, trajectory):
        self._before_draw(trajectory)
        batch = self._sampler(trajectory)
        self.batches.append(batch)
        return batch

    def __getattr__(self, name):
        return getattr(self._sampler, name)


def test_an_n_step_sampler_must_discount_with_the_learners_gamma():
    net = QNetwork(4, 2, hidden=(8,), seed=0)
    learner = DQNLearner(adam_target(net), gamma=0.9,
                         schedule=ReplaySchedule(sampler=BatchSampler(32, seed=0)))
    check_sampler_gamma(learner)   # a 1-step sampler has no γ of its own
    learner.schedule = ReplaySchedule(sampler=NStepBatchSampler(3, 0.99, 32, seed=0))
    with pytest.raises(ValueError, match=r"DQNLearner: the sampler's gamma \(0.99\) must equal "
                                         r"the learner's gamma \(0.9\)"):
        check_sampler_gamma(learner)


def test_a_prioritized_learner_needs_a_prioritized_trajectory():
    learner = PrioritizedDQNLearner(adam_target(QNetwork(4, 2, hidden=(8,), seed=0)))
    check_prioritized(learner, filled_trajectory(20, cls=CircularArrayPSARTTrajectory))
    check_prioritized(learner, CircularArraySARTSTrajectory(10, n_envs=2, state=((4,), np.float32),
                                                            prioritized=True))
    for trajectory in (filled_trajectory(20),
                       CircularArraySARTSTrajectory(10, n_envs=2, state=((4,), np.float32))):
        with pytest.raises(TypeError, match="PrioritizedDQNLearner needs a prioritized "
                                            "trajectory"):
            check_prioritized(learner, trajectory)


def test_each_batchs_priorities_are_written_back_before_the_next_is_drawn():
    learner = PrioritizedDQNLearner(adam_target(QNetwork(4, 2, hidden=(8,), seed=0)),
                                    schedule=schedule(8, gradient_steps=2))
    seen = []   # the replay's priorities when each batch is drawn
    learner.schedule.sampler = _Recording(learner.schedule.sampler,
                                          lambda trajectory: seen.append(_priorities(trajectory)))
    t = filled_trajectory(100, cls=CircularArrayPSARTTrajectory)
    learn_prioritized(learner, t, LineEnv())
    first, second = learner.schedule.sampler.batches
    assert len(seen) == 2 and np.all(seen[0] == 1.0)     # all at the initial priority 1
    # by the second draw the first batch's transitions had their new priorities (|δ| + ε)^α
    assert np.all(seen[1][first["indices"]] != 1.0)
    assert np.all(np.delete(seen[1], first["indices"]) == 1.0)
    assert np.all(_priorities(t)[second["indices"]] != 1.0)


NETWORKS = {
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


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_every_learner_takes_gradient_steps_batches_every_update_freq_env_steps(name):
    cls, network, extra = NETWORKS[name]
    approximator = adam(network()) if cls is BasicDQNLearner else adam_target(network())
    learner = cls(approximator, schedule=schedule(8, update_freq=3, gradient_steps=4), **extra)
    sampler = learner.schedule.sampler = _Recording(learner.schedule.sampler)
    optimizer = getattr(learner.approximator, "approximator", learner.approximator).optimizer
    steps = []
    step = optimizer.step
    optimizer.step = lambda *a, **k: (steps.append(1), step(*a, **k))[1]
    trajectory = filled_trajectory(
        100, cls=CircularArrayPSARTTrajectory if name in PRIORITIZED
        else CircularArraySARTTrajectory)
    for _ in range(7):  # env steps 1..7: learns at 3 and 6, 4 batches each
        update(learner, trajectory, LineEnv(), PRE_ACT_STAGE)
    assert len(sampler.batches) == 8 and len(steps) == 8
    assert learner.schedule.env_steps == 7
    if name in PRIORITIZED:  # each gradient step updates its own batch's priorities
        changed = _priorities(trajectory) != 1.0
        indices = np.unique(np.concatenate([b["indices"] for b in sampler.batches]))
        assert changed.sum() == len(indices) and changed[indices].all()

"""Helpers for the DQN-family tests: hand-built batches, tiny linear models, replay data."""

import numpy as np
import torch
from gymnasium import spaces

from rlcore import (
    AbstractEnv, BatchSampler, CircularArraySARTTrajectory, NeuralNetworkApproximator,
    ReplaySchedule,
)
from rlcore.trajectories.samplers import Batch
from rlzoo.dqns import target_network


def linear_approximator(weight, lr=0.1):
    """A bias-free ``Linear`` with the given weight ``(n_out, n_in)`` and plain SGD."""
    weight = torch.as_tensor(weight, dtype=torch.float32)
    model = torch.nn.Linear(weight.shape[1], weight.shape[0], bias=False)
    with torch.no_grad():
        model.weight.copy_(weight)
    return NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(), lr=lr))


def sgd(model, lr=0.1):
    """``model`` with plain SGD, in a target network synced after every optimiser step."""
    return target_network(NeuralNetworkApproximator(
        model, torch.optim.SGD(model.parameters(), lr=lr)))


def adam(model, lr=1e-3, device="cpu"):
    """``model`` with Adam on ``device`` (a ``NeuralNetworkApproximator``)."""
    return NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters(), lr=lr),
                                     device=device)


def adam_target(model, lr=1e-3, *, sync_every=1, rho=0.0, device="cpu"):
    """:func:`adam` in a target network (noisy layers reseeded, as the experiments build it)."""
    return target_network(adam(model, lr, device), sync_every=sync_every, rho=rho)


def schedule(batch_size=16, min_replay_history=16, **kwargs):
    """A ``ReplaySchedule`` drawing uniform batches of ``batch_size`` (seed 0)."""
    return ReplaySchedule(sampler=BatchSampler(batch_size, seed=0),
                          min_replay_history=min_replay_history, **kwargs)


def make_batch(state, action, reward, next_state, terminal=None, truncated=None, **extra):
    """A :class:`Batch` of float32/int64/bool tensors (batch axis first)."""
    n = len(action)
    batch = Batch(
        state=torch.as_tensor(np.asarray(state, np.float32)),
        action=torch.as_tensor(np.asarray(action, np.int64)),
        reward=torch.as_tensor(np.asarray(reward, np.float32)),
        next_state=torch.as_tensor(np.asarray(next_state, np.float32)),
        terminal=torch.as_tensor(np.zeros(n, bool) if terminal is None else np.asarray(terminal)),
        truncated=torch.as_tensor(np.zeros(n, bool) if truncated is None
                                  else np.asarray(truncated)))
    for key, value in extra.items():
        batch[key] = torch.as_tensor(np.asarray(value, np.float32))
    return batch


def random_batch(n=32, state_size=4, n_actions=2, seed=0):
    rng = np.random.default_rng(seed)
    return make_batch(rng.normal(size=(n, state_size)), rng.integers(n_actions, size=n),
                      rng.normal(size=n), rng.normal(size=(n, state_size)),
                      terminal=rng.random(n) < 0.1,
                      priorities=np.full(n, 1.0))


def filled_trajectory(n=200, state_size=4, seed=0, cls=CircularArraySARTTrajectory):
    """A trajectory of ``n`` random steps (episodes of 10 steps, the last one terminal)."""
    rng = np.random.default_rng(seed)
    t = cls(1000, state=((state_size,), np.float32))
    for i in range(n):
        t.push(state=rng.normal(size=state_size).astype(np.float32), action=int(rng.integers(2)))
        values = dict(reward=float(rng.normal()), terminal=(i % 10 == 9), truncated=False)
        if "priority" in t:
            values["priority"] = t["priority"].max_priority
        t.push(**values)
    t.push(state=rng.normal(size=state_size).astype(np.float32), action=0)
    return t


def params(module):
    return [p.detach().clone() for p in module.parameters()]


def same(a, b):
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


CARTPOLE = ["BasicDQN_CartPole", "DQN_CartPole", "PrioritizedDQN_CartPole", "C51_CartPole",
            "QRDQN_CartPole", "IQN_CartPole", "REMDQN_CartPole", "Rainbow_CartPole"]


def learner_and_batch(name, device="cpu", steps=400):
    """The learner of experiment ``name`` (seed 0) on ``device`` and a batch its schedule's
    sampler drew (numpy arrays) from ``steps`` random CartPole transitions."""
    from rlcore import Agent, RandomPolicy, StopAfterStep, run
    from rlzoo.experiments import registry
    from rlzoo.experiments.cartpole import cartpole_env

    experiment = registry.make(name, 0, device=device, min_replay_history=steps)
    agent = experiment.policy
    run(Agent(RandomPolicy(seed=1), agent.trajectory), cartpole_env(7), StopAfterStep(steps))
    learner = agent.policy.learner
    return learner, learner.schedule.sampler(agent.trajectory)


class FixedStateEnv(AbstractEnv):
    """One environment that shows ``state`` (a learner's acting input); it cannot be stepped."""

    def __init__(self, state):
        self._state = state

    def reset(self):
        pass

    def __call__(self, action):
        raise NotImplementedError("FixedStateEnv only shows a state")

    def state(self, player=None):
        return self._state

    def reward(self, player=None):
        return 0.0

    def is_terminated(self):
        return False

    def action_space(self, player=None):
        return spaces.Discrete(2)

    def state_space(self, player=None):
        return spaces.Box(-np.inf, np.inf, np.shape(self._state), np.float32)

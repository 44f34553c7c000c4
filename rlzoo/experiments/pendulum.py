"""Basic DQN on Pendulum with a discretised action set (through ``ActionTransformedEnv``).

Gymnasium's ``Pendulum-v1`` dynamics, 200 steps per episode (truncated), reward
``−(θ² + 0.1 θ̇² + 0.001 u²)`` per step (about −1,200 to −1,600 for a random policy, −150 to
−200 for a good swing-up). The continuous torque in [−2, 2] becomes ``n_actions`` evenly spaced
torques.
"""

import numpy as np
from gymnasium import spaces

from rlenvs import ActionTransformedEnv, PendulumEnv
from rlzoo.dqns import BasicDQNLearner, QNetwork
from rlzoo.experiments.common import ReplaySetup
from rlzoo.experiments.registry import register

__all__ = ["BasicDQN_PendulumDiscrete", "discrete_pendulum"]


def discrete_pendulum(seed, n_actions):
    """``PendulumEnv`` whose action ``i`` applies the torque ``linspace(−2, 2, n_actions)[i]``."""
    if not isinstance(n_actions, int) or n_actions < 2:
        raise ValueError(f"n_actions must be an int >= 2, got {n_actions!r}")
    torques = np.linspace(-2.0, 2.0, n_actions, dtype=np.float32)
    discrete = spaces.Discrete(n_actions)
    return ActionTransformedEnv(PendulumEnv(seed=seed),
                                action_mapping=lambda a: torques[a:a + 1],
                                action_space_mapping=lambda _: discrete)


@register("Basic DQN on Pendulum with a discretised action set")
def BasicDQN_PendulumDiscrete(seed=0, *, steps=50_000, device="cpu", lr=1e-3, batch_size=64,
                              hidden=64, gamma=0.9, n_actions=5, capacity=50_000,
                              min_replay_history=1000, update_freq=1, epsilon_stable=0.05,
                              epsilon_decay_steps=10_000, eval_every=5000, eval_episodes=10,
                              stop_at=None, progress=False, verbose=False):
    # γ = 0.9: no target network (see BasicDQN_CartPole on divergence with larger γ)
    setup = ReplaySetup(locals(), lambda seed: discrete_pendulum(seed, n_actions))
    net = QNetwork(3, n_actions, hidden=(hidden, hidden), seed=setup.seeds[2])
    learner = BasicDQNLearner(setup.approximator(net), schedule=setup.schedule, gamma=gamma)
    return setup.experiment(learner, f"BasicDQN on discrete-action Pendulum, seed {seed}")

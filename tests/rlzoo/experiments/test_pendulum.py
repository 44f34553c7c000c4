"""Discrete-action Pendulum: the action mapping and a short run."""

import numpy as np
import pytest

from rlcore import EvaluateEveryNStep, run
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.experiments.pendulum import discrete_pendulum


def test_actions_map_to_evenly_spaced_torques():
    env = discrete_pendulum(0, 5)
    assert env.action_space().n == 5
    env.reset()
    env(4)
    # reward -(θ² + 0.1 θ̇² + 0.001 u²) includes the applied torque: u = +2 for action 4
    assert env.reward() <= -0.001 * 4 + 1e-9
    with pytest.raises(ValueError):
        env(5)
    with pytest.raises(ValueError, match="n_actions"):
        discrete_pendulum(0, 1)


def test_pendulum_experiment_runs(one_thread):
    hook = run(registry.make("BasicDQN_PendulumDiscrete", 0, steps=600, min_replay_history=200,
                             eval_every=600, eval_episodes=1))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.steps == [600]
    assert np.isfinite(evaluation.returns[0]) and evaluation.returns[0] < 0

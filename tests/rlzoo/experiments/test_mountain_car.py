"""MountainCar experiments: they run and learn (the -150 goal is checked in benchmarks/)."""

from rlcore import EvaluateEveryNStep, run
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook


def test_mountain_car_experiments_run(one_thread):
    for name in ("BasicDQN_MountainCar", "DQN_MountainCar"):
        hook = run(registry.make(name, 0, steps=1200, min_replay_history=200, eval_every=1200,
                                 eval_episodes=1))
        evaluation = find_hook(hook, EvaluateEveryNStep)
        assert evaluation.steps == [1200]
        assert -200.0 <= evaluation.returns[0] < 0.0

"""Shared experiment pieces: seed spawning, the evaluation stop condition, hook lookup."""

from rlcore import EvaluateEveryNStep, StopAfterStep, TotalRewardPerEpisode, run
from rlenvs import RandomWalk1D
from rlzoo.experiments.common import StopWhenEvaluated, find_hook, spawn_seeds
from rlcore import RandomPolicy, ComposedStopCondition


def test_spawn_seeds_are_reproducible_and_distinct():
    assert spawn_seeds(3, 5) == spawn_seeds(3, 5)
    assert len(set(spawn_seeds(3, 5))) == 5
    assert spawn_seeds(3, 5) != spawn_seeds(4, 5)


def test_stop_when_evaluated_ends_the_run_at_the_threshold():
    evaluation = EvaluateEveryNStep(RandomWalk1D(seed=1), n=5, n_episodes=3)
    stop = ComposedStopCondition(StopAfterStep(1000), StopWhenEvaluated(evaluation, -10.0))
    hook = run(RandomPolicy(seed=0), RandomWalk1D(seed=0), stop,
               TotalRewardPerEpisode() + evaluation)
    # every mean return is >= -1 >= -10, so the first evaluation (step 5) stops the run
    assert evaluation.steps == [5]
    assert find_hook(hook, EvaluateEveryNStep) is evaluation
    assert find_hook(hook, StopAfterStep) is None

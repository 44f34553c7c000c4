import threading

import pytest

from rlcore.hooks import DoEveryNStep, StepsPerEpisode, TotalRewardPerEpisode
from rlcore.policies.random_policy import RandomPolicy
from rlcore.run import run
from rlcore.stop_conditions import (
    ComposedStopCondition, StopAfterEpisode, StopAfterNoImprovement, StopAfterNSeconds,
    StopAfterStep, StopSignal, StopWhenDone,
)
from tests.helpers import LineEnv


@pytest.mark.parametrize("n", [1, 2, 7, 100])
def test_stop_after_step_runs_exactly_n_steps(n):
    hook = StepsPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(n), hook)
    assert sum(hook.steps) + hook.count == n


@pytest.mark.parametrize("n", [1, 3, 10])
def test_stop_after_episode_runs_exactly_n_episodes(n):
    hook = StepsPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=4, truncate_at=2), StopAfterEpisode(n), hook)
    assert hook.steps == [2] * n and hook.count == 0


def test_progress_bar(capsys):
    run(RandomPolicy(seed=0), LineEnv(), StopAfterStep(20, progress=True))
    run(RandomPolicy(seed=0), LineEnv(), StopAfterEpisode(3, progress=True))
    err = capsys.readouterr().err
    assert "20/20" in err and "3/3" in err


def test_stop_when_done():
    hook = StepsPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=5), StopWhenDone(), hook)
    assert hook.steps == [5]


def test_composed_any_and_all():
    hook = StepsPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=3),
        ComposedStopCondition(StopAfterStep(100), StopAfterEpisode(2)), hook)
    assert hook.steps == [3, 3]
    hook = StepsPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=3),
        ComposedStopCondition(StopAfterStep(4), StopAfterEpisode(2), reducer=all), hook)
    assert hook.steps == [3, 3]  # steps reached 4 first, but all() waits for the 2nd episode
    with pytest.raises(ValueError, match="reducer"):
        ComposedStopCondition(StopAfterStep(1), reducer=sum)
    with pytest.raises(ValueError, match="at least one"):
        ComposedStopCondition()


def test_stop_signal_from_a_hook():
    signal = StopSignal()
    hook = StepsPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=3),
        ComposedStopCondition(signal, StopAfterStep(1000)),
        hook + DoEveryNStep(lambda t, p, e: signal.set(), n=5))
    assert sum(hook.steps) + hook.count == 5
    signal.clear()
    assert not signal(None, None)


def test_stop_signal_from_another_thread():
    signal = StopSignal()
    timer = threading.Timer(0.05, signal.set)
    timer.start()
    run(RandomPolicy(seed=0), LineEnv(length=3), signal)
    assert signal(None, None)


def test_stop_after_no_improvement():
    returns = iter([1.0, 2.0, 2.05, 1.0, 1.5, 3.0, 3.0, 3.0])
    stop = StopAfterNoImprovement(lambda: next(returns), patience=2, delta=0.1)
    hook = StepsPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=1), stop, hook)
    # best 2.0 after ep 2; 2.05 and 1.0 do not beat it by more than 0.1 -> stop after episode 4
    assert len(hook.steps) == 4
    with pytest.raises(ValueError, match="patience"):
        StopAfterNoImprovement(lambda: 0, patience=0)


def test_stop_after_no_improvement_with_reward_hook():
    total = TotalRewardPerEpisode()
    stop = StopAfterNoImprovement(lambda: total.reward, patience=3)
    # The running return is complete when the stop condition sees the episode end: constant
    # returns of 2.0 set the best at episode 1, then 3 stale episodes stop the run.
    run(RandomPolicy(seed=0), LineEnv(length=2), stop, total)
    assert len(total.rewards) == 4
    assert stop.best == 2.0


def test_stop_after_n_seconds():
    import time

    start = time.perf_counter()
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterNSeconds(0.2))
    assert 0.2 <= time.perf_counter() - start < 2.0
    with pytest.raises(ValueError, match="seconds"):
        StopAfterNSeconds(0)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_bad_counts(bad):
    with pytest.raises(ValueError, match="positive int"):
        StopAfterStep(bad)
    with pytest.raises(ValueError, match="positive int"):
        StopAfterEpisode(bad)

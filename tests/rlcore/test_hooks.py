import attrs
import pytest

from rlcore.dispatch import dispatch
from rlcore.hooks import (
    AbstractHook, ComposedHook, DoEveryNEpisode, DoEveryNStep, DoOnExit, EmptyHook,
    RewardsPerEpisode, StepsPerEpisode, TimePerStep, TotalRewardPerEpisode,
)
from rlcore.policies.random_policy import RandomPolicy
from rlcore.run import run
from rlcore.stages import PRE_EPISODE_STAGE, PostEpisodeStage
from rlcore.stop_conditions import StopAfterEpisode, StopAfterStep
from tests.helpers import LineEnv


def test_steps_and_rewards_per_episode():
    hook = StepsPerEpisode() + TotalRewardPerEpisode() + RewardsPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterEpisode(4), hook)
    steps, total, per_step = hook
    assert steps.steps == [3, 3, 3, 3]
    assert total.rewards == [3.0, 3.0, 3.0, 3.0]
    assert per_step.rewards == [[1.0, 1.0, 1.0]] * 4


def test_unfinished_episode_is_not_counted_as_finished():
    steps, total = StepsPerEpisode(), TotalRewardPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(5), steps + total)
    assert steps.steps == [3]
    assert steps.count == 2
    assert total.rewards == [3.0]


def test_an_episode_cut_by_one_run_is_not_continued_by_the_next():
    steps, total = StepsPerEpisode(), TotalRewardPerEpisode()
    env = LineEnv(length=3)
    run(RandomPolicy(seed=0), env, StopAfterStep(5), steps + total)
    run(RandomPolicy(seed=0), env, StopAfterEpisode(1), steps + total)
    assert steps.steps == [3, 3]
    assert total.rewards == [3.0, 3.0]


def test_composed_hook_flattens_and_keeps_order():
    a, b, c = StepsPerEpisode(), TotalRewardPerEpisode(), EmptyHook()
    hook = (a + b) + c
    assert isinstance(hook, ComposedHook)
    assert hook.hooks == (a, b, c)
    assert ComposedHook(a, ComposedHook(b, c)).hooks == (a, b, c)
    with pytest.raises(TypeError, match="ComposedHook takes hooks"):
        ComposedHook(a, 3)


def test_do_every_n_step_receives_t_policy_env():
    calls = []
    policy, env = RandomPolicy(seed=0), LineEnv(length=3)
    run(policy, env, StopAfterStep(10), DoEveryNStep(lambda t, p, e: calls.append((t, p, e)), n=4))
    assert [t for t, _, _ in calls] == [4, 8]
    assert all(p is policy and e is env for _, p, e in calls)


def test_do_every_n_episode_at_both_stages():
    post, pre = [], []
    hook = (DoEveryNEpisode(lambda t, p, e: post.append(t), n=2)
            + DoEveryNEpisode(lambda t, p, e: pre.append(t), n=3, stage=PRE_EPISODE_STAGE))
    run(RandomPolicy(seed=0), LineEnv(length=1), StopAfterEpisode(7), hook)
    assert post == [2, 4, 6]
    assert pre == [3, 6]


def test_do_on_exit_called_once():
    calls = []
    run(RandomPolicy(seed=0), LineEnv(length=2), StopAfterEpisode(3),
        DoOnExit(lambda p, e: calls.append(e.position)))
    assert calls == [2]


def test_time_per_step_keeps_a_window():
    hook = TimePerStep(max_steps=5)
    run(RandomPolicy(seed=0), LineEnv(length=4), StopAfterStep(12), hook)
    assert len(hook.times) == 5
    assert all(t >= 0 for t in hook.times)
    assert hook.mean() > 0


def test_bad_hook_parameters():
    with pytest.raises(ValueError, match="n must be a positive int, got 0"):
        DoEveryNStep(print, n=0)
    with pytest.raises(ValueError, match="max_steps"):
        TimePerStep(max_steps=0)
    with pytest.raises(ValueError, match="stage must be"):
        DoEveryNEpisode(print, stage="post")


def test_a_user_hook_is_a_class_and_a_dispatched_rule():
    @attrs.define
    class CountEpisodes(AbstractHook):
        n: int = 0

    @dispatch(CountEpisodes, PostEpisodeStage, object, object)
    def on_stage(hook, stage, policy, env):  # noqa: F811
        hook.n += 1

    hook = run(RandomPolicy(seed=0), LineEnv(length=2), StopAfterEpisode(5), CountEpisodes())
    assert hook.n == 5


def test_total_reward_display_on_exit(capsys):
    run(RandomPolicy(seed=0), LineEnv(length=2), StopAfterEpisode(2),
        TotalRewardPerEpisode(display_on_exit=True))
    assert "2 episodes; mean return 2.000" in capsys.readouterr().out

"""The run loop emits exactly the stages of docs/architecture.md §3."""

import attrs
import pytest

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.hooks import AbstractHook, on_stage
from rlcore.policies.base import AbstractPolicy
from rlcore.run import run
from rlcore.stages import AbstractStage, PreActStage
from rlcore.stop_conditions import StopAfterEpisode, StopAfterStep
from tests.helpers import LineEnv


class RecordingPolicy(AbstractPolicy):
    def __init__(self):
        self.log = []

    def __call__(self, env):
        return 0


@dispatch(RecordingPolicy, AbstractEnv, AbstractStage)
def update(policy, env, stage):
    policy.log.append(("update", repr(stage)))


@dispatch(RecordingPolicy, AbstractEnv, PreActStage, object)
def update(policy, env, stage, action):  # noqa: F811
    policy.log.append(("update", repr(stage), action))


@attrs.define
class RecordingHook(AbstractHook):
    log: list


@dispatch(RecordingHook, AbstractStage, object, object)
def on_stage(hook, stage, policy, env):
    hook.log.append(("hook", repr(stage)))


@dispatch(RecordingHook, PreActStage, object, object, object)
def on_stage(hook, stage, policy, env, action):  # noqa: F811
    hook.log.append(("hook", repr(stage), action))


def _episode(n_steps, ended=True):
    out = [("update", "PRE_EPISODE_STAGE"), ("hook", "PRE_EPISODE_STAGE")]
    for _ in range(n_steps):
        out += [("update", "PRE_ACT_STAGE", 0), ("hook", "PRE_ACT_STAGE", 0),
                ("update", "POST_ACT_STAGE"), ("hook", "POST_ACT_STAGE")]
    if ended:
        out += [("update", "POST_EPISODE_STAGE"), ("hook", "POST_EPISODE_STAGE")]
    return out


def test_stage_sequence_two_episodes():
    policy = RecordingPolicy()
    hook = RecordingHook(policy.log)
    returned = run(policy, LineEnv(length=2), StopAfterEpisode(2), hook)
    assert returned is hook
    expected = ([("hook", "PRE_EXPERIMENT_STAGE"), ("update", "PRE_EXPERIMENT_STAGE")]
                + _episode(2) + _episode(2)
                + [("hook", "POST_EXPERIMENT_STAGE"), ("update", "POST_EXPERIMENT_STAGE")])
    assert policy.log == expected


def test_stage_sequence_stopped_mid_episode():
    policy = RecordingPolicy()
    hook = RecordingHook(policy.log)
    run(policy, LineEnv(length=3), StopAfterStep(4), hook)
    expected = ([("hook", "PRE_EXPERIMENT_STAGE"), ("update", "PRE_EXPERIMENT_STAGE")]
                + _episode(3) + _episode(1, ended=False)
                + [("hook", "POST_EXPERIMENT_STAGE"), ("update", "POST_EXPERIMENT_STAGE")])
    assert policy.log == expected


def test_stop_on_the_last_step_of_an_episode_still_ends_the_episode():
    policy = RecordingPolicy()
    hook = RecordingHook(policy.log)
    run(policy, LineEnv(length=3), StopAfterStep(3), hook)
    assert policy.log[-4:] == [("update", "POST_EPISODE_STAGE"), ("hook", "POST_EPISODE_STAGE"),
                               ("hook", "POST_EXPERIMENT_STAGE"),
                               ("update", "POST_EXPERIMENT_STAGE")]


def test_truncated_episode_ends_the_loop():
    policy = RecordingPolicy()
    run(policy, LineEnv(length=10, truncate_at=2), StopAfterEpisode(1), RecordingHook([]))
    assert policy.log.count(("update", "POST_ACT_STAGE")) == 2
    assert ("update", "POST_EPISODE_STAGE") in policy.log


def test_run_defaults_to_one_episode_and_empty_hook():
    from rlcore.hooks import EmptyHook

    policy = RecordingPolicy()
    hook = run(policy, LineEnv(length=2))
    assert isinstance(hook, EmptyHook)
    assert policy.log.count(("update", "POST_EPISODE_STAGE")) == 1


def test_run_rejects_a_gymnasium_env_with_a_pointer_to_GymEnv():
    import gymnasium

    with pytest.raises(TypeError, match="GymEnv"):
        run(RecordingPolicy(), gymnasium.make("CartPole-v1"), StopAfterStep(1))


def test_an_illegal_action_raises_and_names_the_action():
    class BadPolicy(AbstractPolicy):
        def __call__(self, env):
            return 7

    env = LineEnv()
    with pytest.raises(ValueError, match="7"):
        run(BadPolicy(), env, StopAfterStep(1))
    assert env.position == 0


def test_an_env_that_is_over_after_reset_raises_instead_of_hanging():
    with pytest.raises(RuntimeError, match="already over right after reset"):
        run(RecordingPolicy(), LineEnv(length=0), StopAfterStep(3))

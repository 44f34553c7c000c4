"""Tests of rlenvs/atari.py: Pong through Gymnasium's ALE (ale-py ships the ROMs)."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from rlcore import RandomPolicy, StopAfterStep, TotalRewardPerEpisode, run  # noqa: E402
from rlcore.envs import test_interfaces  # noqa: E402
from rlenvs import AtariEnv, to_gymnasium  # noqa: E402
from rlenvs.atari import atari_id  # noqa: E402


def test_pong_steps_a_few_hundred_frames():
    env = AtariEnv("pong", seed=0)
    env.reset()
    state = env.state()
    assert state.shape == (4, 84, 84) and state.dtype == np.uint8
    assert env.action_space().n == 6
    rng = np.random.default_rng(0)
    rewards = []
    for _ in range(300):  # 1200 frames with frame_skip=4
        env(int(rng.integers(6)))
        rewards.append(env.reward())
        assert env.state().shape == (4, 84, 84)
    assert set(rewards) <= {-1.0, 0.0, 1.0}
    assert rewards.count(-1.0) >= 1  # a random player concedes points within 1200 frames
    # The four stacked frames are consecutive agent steps: the newest differs from the oldest.
    assert not np.array_equal(env.state()[0], env.state()[-1])
    env.close()


def test_same_seed_same_frames_and_preprocessing_keywords():
    def frames(**kwargs):
        env = AtariEnv("pong", seed=3, **kwargs)
        env.reset()
        for action in (2, 3) * 10:
            env(action)
        state = env.state().copy()
        env.close()
        return state

    np.testing.assert_array_equal(frames(), frames())
    assert frames(frame_stack=1, grayscale=False, screen_size=64).shape == (64, 64, 3)
    sticky = AtariEnv("pong", seed=0, repeat_action_probability=0.25, max_steps=5)
    assert sticky.gym_env.unwrapped.ale.getFloat("repeat_action_probability") == 0.25
    sticky.reset()
    for _ in range(5):
        sticky(0)
    assert sticky.is_truncated()
    assert atari_id("space_invaders") == "ALE/SpaceInvaders-v5" and atari_id("Pong") == \
        "ALE/Pong-v5"
    with pytest.raises(ValueError, match="frame_skip"):
        AtariEnv("pong", frame_skip=0)


def test_interfaces_run_and_gymnasium_checker():
    env = AtariEnv("pong", seed=0, max_steps=100)
    test_interfaces(env, n_episodes=1)
    hook = run(RandomPolicy(seed=0), env, StopAfterStep(100), TotalRewardPerEpisode())
    assert len(hook.rewards) == 1  # truncated after 100 steps
    check_env(to_gymnasium(AtariEnv("pong", seed=0)), skip_render_check=True)

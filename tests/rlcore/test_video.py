"""RecordFrames keeps a frame per step and save_episodes writes one video per episode."""

import numpy as np
import pytest

from rlcore import RandomPolicy, StepsPerEpisode, StopAfterEpisode, run
from rlcore.video import RecordFrames, save_episodes
from rlenvs import CartPoleEnv, GymEnv, RandomWalk1D


def test_one_frame_at_the_start_and_one_per_step(tmp_path):
    env = CartPoleEnv(render_mode="rgb_array", seed=0)
    frames = RecordFrames()
    steps = StepsPerEpisode()
    run(RandomPolicy(seed=0), env, StopAfterEpisode(2), frames + steps)
    assert [len(e) for e in frames.episodes] == [n + 1 for n in steps.steps]
    assert frames.episodes[0][0].shape == (400, 600, 3)
    assert frames.episodes[0][0].dtype == np.uint8
    pytest.importorskip("moviepy")
    paths = save_episodes(frames.episodes, tmp_path / "videos", fps=50)
    assert [p.name for p in paths] == ["eval-episode-0.mp4", "eval-episode-1.mp4"]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_an_env_made_without_render_mode_can_be_switched_to_frames():
    env = GymEnv("CartPole-v1", seed=0)
    env.set_render_mode("rgb_array")
    frames = run(RandomPolicy(seed=0), env, StopAfterEpisode(1), RecordFrames())
    assert frames.episodes[0][0].shape == (400, 600, 3)
    with pytest.raises(ValueError, match="not render_mode='video'"):
        env.set_render_mode("video")


def test_an_env_without_frames_says_so():
    with pytest.raises(ValueError, match="RandomWalk1D renders only mode='text'"):
        run(RandomPolicy(seed=0), RandomWalk1D(), StopAfterEpisode(1), RecordFrames())


class _BlankEnv(RandomWalk1D):
    def render(self, mode="text"):
        return None


def test_a_render_that_is_not_a_frame_is_named():
    with pytest.raises(TypeError, match="rendered NoneType, not an \\(height, width, 3\\)"):
        run(RandomPolicy(seed=0), _BlankEnv(), StopAfterEpisode(1), RecordFrames())


def test_bad_fps_and_empty_episodes(tmp_path):
    with pytest.raises(ValueError, match="fps must be a positive int, got 0"):
        save_episodes([[np.zeros((4, 4, 3), np.uint8)]], tmp_path, fps=0)
    with pytest.raises(ValueError, match="episode 0 has no frames"):
        save_episodes([[]], tmp_path)

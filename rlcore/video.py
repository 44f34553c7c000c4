"""Videos of a policy acting: a hook that keeps the rendered frames, and Gymnasium's recorder.

:class:`RecordFrames` asks the environment for an ``"rgb_array"`` frame when each episode begins
and after every step; :func:`save_episodes` writes the frames of each episode to a video file
with Gymnasium's ``gymnasium.utils.save_video`` (which needs ``moviepy``: the ``video`` extra).

Example (an evaluation episode of a random policy, recorded)::

    from rlcore import RandomPolicy, StopAfterEpisode, run
    from rlcore.video import RecordFrames, save_episodes
    from rlenvs import CartPoleEnv

    frames = run(RandomPolicy(seed=0), CartPoleEnv(render_mode="rgb_array", seed=0),
                 StopAfterEpisode(1), RecordFrames())
    save_episodes(frames.episodes, "videos", fps=50)   # videos/eval-episode-0.mp4
"""

import pathlib

import attrs
import numpy as np

from rlcore.dispatch import dispatch
from rlcore.hooks import AbstractHook, on_stage
from rlcore.stages import PostActStage, PreEpisodeStage

__all__ = ["RecordFrames", "save_episodes"]


@attrs.define
class RecordFrames(AbstractHook):
    """Keeps ``env.render("rgb_array")`` at the start of each episode and after every step:
    ``episodes[i]`` is the list of frames (``(height, width, 3)`` uint8 arrays) of episode ``i``.

    The environment must render ``"rgb_array"`` frames (a Gymnasium environment made with
    ``render_mode="rgb_array"``); the first frame that is not such an array raises ``TypeError``
    naming the environment.
    """

    episodes: list = attrs.field(factory=list, repr=False)

    def record(self, env):
        frame = env.render("rgb_array")
        if not (isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3):
            raise TypeError(f"{env!r} rendered {type(frame).__name__}, not an (height, width, 3) "
                            "rgb_array frame: make it with render_mode='rgb_array'")
        self.episodes[-1].append(frame)


@dispatch(RecordFrames, PreEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.episodes.append([])
    hook.record(env)


@dispatch(RecordFrames, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.record(env)


def save_episodes(episodes, directory, *, fps=30, name_prefix="eval"):
    """Write each episode's frames to ``directory/{name_prefix}-episode-{i}.mp4`` with
    Gymnasium's ``save_video``; return the paths written."""
    if not isinstance(fps, int) or isinstance(fps, bool) or fps < 1:
        raise ValueError(f"fps must be a positive int, got {fps!r}")
    from gymnasium.utils.save_video import save_video

    directory = pathlib.Path(directory)
    paths = []
    for i, frames in enumerate(episodes):
        if not frames:
            raise ValueError(f"episode {i} has no frames to save")
        save_video(list(frames), str(directory), fps=fps, name_prefix=name_prefix,
                   episode_index=i, episode_trigger=lambda _: True)
        paths.append(directory / f"{name_prefix}-episode-{i}.mp4")
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise RuntimeError(f"gymnasium's save_video did not write {missing}")
    return paths

"""Atari 2600 games through Gymnasium's ALE and its preprocessing wrappers, after RL.jl's
``AtariEnv``."""

import gymnasium
import numpy as np
from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

from rlenvs.gym_env import GymEnv

__all__ = ["AtariEnv", "atari_id"]

_REGISTERED = False


def _register_ale():
    global _REGISTERED
    if not _REGISTERED:
        try:
            import ale_py
        except ImportError as error:  # pragma: no cover - depends on the installation
            raise ImportError("AtariEnv needs the ale-py package (it ships the ROMs): "
                              "pip install 'reinforcementlearning[atari]'") from error
        gymnasium.register_envs(ale_py)
        _REGISTERED = True


def atari_id(game):
    """The Gymnasium id of ``game``: ``"pong"``, ``"Pong"`` and ``"ALE/Pong-v5"`` all give
    ``"ALE/Pong-v5"``; ``"space_invaders"`` gives ``"ALE/SpaceInvaders-v5"``."""
    if not isinstance(game, str) or not game:
        raise ValueError(f"game must be a game name such as 'pong', got {game!r}")
    if "/" in game:
        return game
    name = "".join(part[:1].upper() + part[1:] for part in game.split("_"))
    return f"ALE/{name}-v5"


def AtariEnv(game="pong", *, frame_skip=4, noop_max=30, terminal_on_life_loss=False,
             repeat_action_probability=0.0, grayscale=True, screen_size=84, frame_stack=4,
             max_steps=None, full_action_space=False, render_mode=None, rng=None, seed=None):
    """An Atari game with the DQN preprocessing (Mnih et al. 2015; Machado et al. 2018 for sticky
    actions), built from Gymnasium's ALE environment (``ALE/<Game>-v5`` with ``frameskip=1``),
    ``AtariPreprocessing`` and ``FrameStackObservation``, and seen through :class:`GymEnv`.

    The state is a uint8 array of shape ``(frame_stack, screen_size, screen_size)`` (grayscale)
    or ``(frame_stack, screen_size, screen_size, 3)``; each step repeats the action
    ``frame_skip`` times and max-pools the last two frames; each episode starts with up to
    ``noop_max`` no-op actions. With ``terminal_on_life_loss=True`` losing a life terminates the
    episode. ``max_steps`` (agent steps) truncates it.

    Keyword arguments: ``game="pong"``, ``frame_skip=4``, ``noop_max=30``,
    ``terminal_on_life_loss=False``, ``repeat_action_probability=0.0`` (sticky actions; 0.25 in
    Machado et al.), ``grayscale=True``, ``screen_size=84``, ``frame_stack=4`` (1 for no
    stacking), ``max_steps=None``, ``full_action_space=False``, ``render_mode=None``,
    ``rng``/``seed``.

    Example::

        >>> env = AtariEnv("pong", seed=0)
        >>> env.reset(); env.state().shape
        (4, 84, 84)
    """
    for name, value in (("frame_skip", frame_skip), ("screen_size", screen_size),
                        ("frame_stack", frame_stack)):
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {name}={value!r}")
    if not isinstance(noop_max, (int, np.integer)) or noop_max < 0:
        raise ValueError(f"noop_max must be an int >= 0, got noop_max={noop_max!r}")
    if not 0.0 <= repeat_action_probability <= 1.0:
        raise ValueError(f"repeat_action_probability must be in [0, 1], got "
                         f"{repeat_action_probability!r}")
    if max_steps is not None and (not isinstance(max_steps, (int, np.integer)) or max_steps < 1):
        raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")
    _register_ale()
    env = gymnasium.make(atari_id(game), frameskip=1,
                         repeat_action_probability=float(repeat_action_probability),
                         full_action_space=full_action_space, render_mode=render_mode)
    env = AtariPreprocessing(env, noop_max=int(noop_max), frame_skip=int(frame_skip),
                             screen_size=int(screen_size),
                             terminal_on_life_loss=terminal_on_life_loss,
                             grayscale_obs=grayscale)
    if frame_stack > 1:
        env = FrameStackObservation(env, int(frame_stack))
    if max_steps is not None:
        env = gymnasium.wrappers.TimeLimit(env, int(max_steps))
    return GymEnv(env, rng=rng, seed=seed)

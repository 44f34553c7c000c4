"""Our environments seen as Gymnasium environments: ``to_gymnasium(env)``.

The other direction of :class:`rlenvs.GymEnv`: a single-agent environment written to the rlcore
interface becomes a ``gymnasium.Env`` that passes ``gymnasium.utils.env_checker.check_env``, so
Gymnasium's wrappers and vector environments (and other libraries built on Gymnasium) can use it.

Example::

    >>> from gymnasium.utils.env_checker import check_env
    >>> from rlenvs import TigerProblemEnv, to_gymnasium
    >>> gym_env = to_gymnasium(TigerProblemEnv())
    >>> observation, info = gym_env.reset(seed=0)
    >>> check_env(gym_env)
"""

import gymnasium
import numpy as np

from rlcore.envs import AbstractEnv, FullActionSet, SingleAgent
from rlenvs.gym_env import GymEnv
from rlenvs.wrappers import AbstractEnvWrapper

__all__ = ["GymnasiumEnv", "to_gymnasium", "reseed"]

_RENDER_MODES = ("ansi", "rgb_array")


def _layers(env):
    while True:
        yield env
        if not isinstance(env, AbstractEnvWrapper):
            return
        env = env.inner


def reseed(env, seed):
    """Give every layer of ``env`` (wrappers included) a fresh ``rng`` derived from ``seed``.

    Each layer that keeps a ``numpy.random.Generator`` in ``rng`` gets an independent child of
    ``numpy.random.SeedSequence(seed)``; a :class:`GymEnv` is reseeded through
    :meth:`GymEnv.seed`. Randomness an environment drew at construction (e.g. a random graph)
    stays as it was.
    """
    children = iter(np.random.SeedSequence(seed).spawn(64))
    for layer in _layers(env):
        if isinstance(layer, GymEnv):
            layer.seed(rng=np.random.default_rng(next(children)))
        elif isinstance(vars(layer).get("rng"), np.random.Generator):
            layer.rng = np.random.default_rng(next(children))


class GymnasiumEnv(gymnasium.Env):
    """A ``gymnasium.Env`` that drives a single-agent rlcore environment ``env``.

    ``observation_space``/``action_space`` are the env's ``state_space()``/``action_space()``;
    ``step`` returns ``(state(), reward(), is_terminated(), is_truncated(), info)``; the info dict
    of a FULL_ACTION_SET environment holds ``"action_mask"`` (the legal-action mask).
    ``reset(seed=s)`` reseeds the env (see :func:`reseed`) so that the same seed gives the same
    episode. ``render_mode="ansi"`` renders ``env.render("text")``, ``"rgb_array"``
    ``env.render("rgb_array")``. ``env`` is kept in ``rl_env``.

    Illegal actions of a FULL_ACTION_SET environment: with ``illegal_action="raise"`` (default)
    the env's ``ValueError`` propagates; with ``"penalize"`` the step leaves the env unchanged and
    returns reward ``illegal_action_reward`` and ``info["illegal_action"] = True`` (what
    Gymnasium tools that sample unmasked actions, such as ``check_env``, need).
    """

    metadata = {"render_modes": list(_RENDER_MODES), "render_fps": 4}

    def __init__(self, env, render_mode=None, illegal_action="raise",
                 illegal_action_reward=-1.0):
        if not isinstance(env, AbstractEnv):
            raise TypeError(f"to_gymnasium needs an rlcore AbstractEnv, got {env!r}")
        if not isinstance(env.NumAgentStyle, SingleAgent):
            raise ValueError(f"to_gymnasium needs a single-agent environment; {env!r} has "
                             f"NumAgentStyle {env.NumAgentStyle!r}: use rlenvs.to_pettingzoo")
        if render_mode is not None and render_mode not in _RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {_RENDER_MODES}, got "
                             f"{render_mode!r}")
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalize', got "
                             f"{illegal_action!r}")
        self.rl_env = env
        self.illegal_action = illegal_action
        self.illegal_action_reward = float(illegal_action_reward)
        self.render_mode = render_mode
        self.observation_space = env.state_space()
        self.action_space = env.action_space()
        self._full_action_set = isinstance(env.ActionStyle, FullActionSet)

    def _info(self):
        if self._full_action_set:
            return {"action_mask": np.asarray(self.rl_env.legal_action_space_mask())}
        return {}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            reseed(self.rl_env, seed)
            self.action_space.seed(seed)
        self.rl_env.reset()
        return self.rl_env.state(), self._info()

    def step(self, action):
        env = self.rl_env
        if self._full_action_set and self.illegal_action == "penalize":
            try:
                env.check_action(action)
            except ValueError:
                info = self._info()
                info["illegal_action"] = True
                return env.state(), self.illegal_action_reward, False, False, info
        env(action)
        return (env.state(), float(env.reward()), bool(env.is_terminated()),
                bool(env.is_truncated()), self._info())

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode to "
                                  "to_gymnasium")
            return None
        return self.rl_env.render("text" if self.render_mode == "ansi" else "rgb_array")

    def close(self):
        close = getattr(self.rl_env, "close", None)
        if close is not None:
            close()

    def __repr__(self):
        return f"to_gymnasium({self.rl_env!r})"


def to_gymnasium(env, render_mode=None, illegal_action="raise", illegal_action_reward=-1.0):
    """``env`` (a single-agent rlcore environment) as a ``gymnasium.Env``: a
    :class:`GymnasiumEnv`. Keyword arguments: ``render_mode=None`` (``"ansi"`` or
    ``"rgb_array"``), ``illegal_action="raise"`` (or ``"penalize"``),
    ``illegal_action_reward=-1.0``."""
    return GymnasiumEnv(env, render_mode=render_mode, illegal_action=illegal_action,
                        illegal_action_reward=illegal_action_reward)

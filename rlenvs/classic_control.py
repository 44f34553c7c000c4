"""Classic control environments: thin constructors over Gymnasium's implementations.

After ReinforcementLearning.jl's ``CartPoleEnv``, ``MountainCarEnv``, ``PendulumEnv`` and
``AcrobotEnv``, with their keyword names (``max_steps``, ``continuous``, the physical constants),
but the dynamics are Gymnasium's (``CartPole-v1``, ``MountainCar-v0``,
``MountainCarContinuous-v0``, ``Pendulum-v1``, ``Acrobot-v1``): each function returns a
:class:`rlenvs.GymEnv` (wrapped in :class:`rlenvs.wrappers.ActionTransformedEnv` where RL.jl's
keywords change the action space). ``max_steps`` is Gymnasium's ``max_episode_steps``: reaching it
*truncates* the episode.

Example::

    >>> env = CartPoleEnv(seed=0, max_steps=200)
    >>> env.reset(); env(1); env.reward()
    1.0
"""

import math

import gymnasium
import numpy as np
from gymnasium import spaces

from rlenvs.gym_env import GymEnv
from rlenvs.wrappers import ActionTransformedEnv

__all__ = ["CartPoleEnv", "ContinuousCartPoleAction", "MountainCarEnv", "ContinuousMountainCarEnv", "PendulumEnv",
           "AcrobotEnv"]


def _check_max_steps(max_steps):
    if not isinstance(max_steps, (int, np.integer)) or isinstance(max_steps, bool) \
            or max_steps < 1:
        raise ValueError(f"max_steps must be a positive int, got max_steps={max_steps!r}")
    return int(max_steps)


def _check_positive(**values):
    for name, value in values.items():
        if not (isinstance(value, (int, float)) and value > 0):
            raise ValueError(f"{name} must be a positive number, got {name}={value!r}")


class ContinuousCartPoleAction(gymnasium.ActionWrapper):
    """Gives Gymnasium's CartPole RL.jl's continuous action: a force scale ``a`` in
    ``Box(-1, 1, (1,))``, the force being ``a * forcemag``.

    Gymnasium's CartPole pushes with ``+force_mag`` for action 1 and ``-force_mag`` for action 0;
    this wrapper sets ``force_mag = |a| * forcemag`` before each step and passes action 1 when
    ``a >= 0``, 0 otherwise, so the dynamics see exactly the force ``a * forcemag``.
    """

    def __init__(self, env, forcemag):
        super().__init__(env)
        self.forcemag = float(forcemag)
        self.action_space = spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)

    def action(self, action):
        scale = float(np.asarray(action, dtype=np.float64).reshape(-1)[0])
        self.env.unwrapped.force_mag = abs(scale) * self.forcemag
        return int(scale >= 0.0)


def CartPoleEnv(*, continuous=False, max_steps=200, gravity=9.8, masscart=1.0, masspole=0.1,
                halflength=0.5, forcemag=10.0, dt=0.02, thetathreshold=12.0, xthreshold=2.4,
                render_mode=None, rng=None, seed=None):
    """The cart-pole balancing task (Barto, Sutton & Anderson 1983) as Gymnasium's
    ``CartPole-v1``, with RL.jl's keywords.

    Reward 1 per step; the episode terminates when the pole leans more than ``thetathreshold``
    degrees or the cart leaves ``[-xthreshold, xthreshold]``, and is truncated after
    ``max_steps`` steps (RL.jl's default 200; Gymnasium's ``CartPole-v1`` uses 500). Actions:
    0 pushes left, 1 right, with force ``forcemag``. With ``continuous=True`` (RL.jl's continuous
    variant) the action is a force scale in ``Box(-1, 1, (1,))`` (RL.jl: a scalar in [-1, 1])
    and the cart is pushed with ``a * forcemag``: Gymnasium's CartPole wrapped in
    :class:`ContinuousCartPoleAction`, which sets the force magnitude for each step.

    Keyword arguments: ``continuous=False``, ``max_steps=200``, ``gravity=9.8``,
    ``masscart=1.0``, ``masspole=0.1``, ``halflength=0.5``, ``forcemag=10.0``, ``dt=0.02``,
    ``thetathreshold=12.0`` (degrees), ``xthreshold=2.4``, ``render_mode=None``,
    ``rng``/``seed``.

    >>> env = CartPoleEnv(continuous=True, seed=0)
    >>> env.reset(); env(np.array([0.5], dtype=np.float32)); env.action_space()
    Box(-1.0, 1.0, (1,), float32)
    """
    _check_positive(gravity=gravity, masscart=masscart, masspole=masspole,
                    halflength=halflength, forcemag=forcemag, dt=dt,
                    thetathreshold=thetathreshold, xthreshold=xthreshold)
    gym_env = gymnasium.make("CartPole-v1", max_episode_steps=_check_max_steps(max_steps),
                             render_mode=render_mode)
    if continuous:
        gym_env = ContinuousCartPoleAction(gym_env, forcemag)
    env = GymEnv(gym_env, rng=rng, seed=seed)
    physics = env.gym_env.unwrapped
    physics.gravity, physics.masscart, physics.masspole = gravity, masscart, masspole
    physics.total_mass = masspole + masscart
    physics.length = halflength
    physics.polemass_length = masspole * halflength
    physics.force_mag, physics.tau = forcemag, dt
    physics.theta_threshold_radians = thetathreshold * 2 * math.pi / 360
    physics.x_threshold = xthreshold
    # The observation bounds are twice the termination thresholds, as in Gymnasium.
    high = np.array([xthreshold * 2, np.finfo(np.float32).max,
                     physics.theta_threshold_radians * 2, np.finfo(np.float32).max],
                    dtype=np.float32)
    physics.observation_space = spaces.Box(-high, high, dtype=np.float32)
    env.gym_env.observation_space = physics.observation_space
    env._state_space = physics.observation_space
    return env


def MountainCarEnv(*, continuous=False, max_steps=200, goal_velocity=0.0, render_mode=None,
                   rng=None, seed=None):
    """The mountain car task (Moore 1990) as Gymnasium's ``MountainCar-v0`` (three discrete
    accelerations) or, with ``continuous=True``, ``MountainCarContinuous-v0`` (a force in
    [-1, 1]).

    Reward -1 per step (discrete) or ``100`` at the goal minus ``0.1 * force**2`` per step
    (continuous); the episode terminates at the flag and is truncated after ``max_steps`` steps.

    Keyword arguments: ``continuous=False``, ``max_steps=200`` (999 is Gymnasium's default for
    the continuous task), ``goal_velocity=0.0``, ``render_mode=None``, ``rng``/``seed``.
    """
    env_id = "MountainCarContinuous-v0" if continuous else "MountainCar-v0"
    return GymEnv(env_id, max_episode_steps=_check_max_steps(max_steps),
                  goal_velocity=goal_velocity, render_mode=render_mode, rng=rng, seed=seed)


def ContinuousMountainCarEnv(*, max_steps=999, goal_velocity=0.0, render_mode=None, rng=None,
                             seed=None):
    """``MountainCarEnv(continuous=True)``: Gymnasium's ``MountainCarContinuous-v0``.

    Keyword arguments: ``max_steps=999``, ``goal_velocity=0.0``, ``render_mode=None``,
    ``rng``/``seed``.
    """
    return MountainCarEnv(continuous=True, max_steps=max_steps, goal_velocity=goal_velocity,
                          render_mode=render_mode, rng=rng, seed=seed)


def PendulumEnv(*, continuous=True, n_actions=3, max_steps=200, g=10.0, render_mode=None,
                rng=None, seed=None):
    """The inverted pendulum swing-up as Gymnasium's ``Pendulum-v1``.

    With ``continuous=True`` the action is a torque in a ``Box([-2], [2])``. With
    ``continuous=False`` (RL.jl's discrete variant) the action is an index into ``n_actions``
    torques evenly spaced over [-2, 2] (an :class:`ActionTransformedEnv`). Reward
    ``-(θ² + 0.1 θ̇² + 0.001 u²)``; the episode never terminates and is truncated after
    ``max_steps`` steps.

    Keyword arguments: ``continuous=True``, ``n_actions=3`` (at least 2, used when
    ``continuous=False``), ``max_steps=200``, ``g=10.0``, ``render_mode=None``,
    ``rng``/``seed``.
    """
    env = GymEnv("Pendulum-v1", max_episode_steps=_check_max_steps(max_steps), g=g,
                 render_mode=render_mode, rng=rng, seed=seed)
    if continuous:
        return env
    if not isinstance(n_actions, (int, np.integer)) or n_actions < 2:
        raise ValueError(f"n_actions must be an int >= 2, got n_actions={n_actions!r}")
    space = env.action_space()
    torques = np.linspace(space.low[0], space.high[0], int(n_actions)).astype(space.dtype)
    torques = torques.reshape(-1, 1)
    discrete = spaces.Discrete(int(n_actions))
    return ActionTransformedEnv(env, action_mapping=torques.__getitem__,
                                action_space_mapping=lambda _: discrete)


def AcrobotEnv(*, max_steps=200, render_mode=None, rng=None, seed=None):
    """The acrobot swing-up (Sutton 1996) as Gymnasium's ``Acrobot-v1``: three torques
    (-1, 0, +1), reward -1 per step, terminates when the tip swings above the bar, truncated
    after ``max_steps`` steps.

    ``max_steps=200`` is RL.jl's default (``AcrobotEnv(; max_steps = 200)``); Gymnasium's
    ``Acrobot-v1`` uses 500. The reward is Gymnasium's (-1 every step until the goal, 0 on
    reaching it), not RL.jl's (-1 only on the last step).

    Keyword arguments: ``max_steps=200``, ``render_mode=None``, ``rng``/``seed``.
    """
    return GymEnv("Acrobot-v1", max_episode_steps=_check_max_steps(max_steps),
                  render_mode=render_mode, rng=rng, seed=seed)

"""The cooperative speaker-listener task of the multi-agent particle environments, after RL.jl's
``SpeakerListenerEnv``."""

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    IDENTICAL_UTILITY,
    IMPERFECT_INFORMATION,
    MINIMAL_ACTION_SET,
    OBSERVATION,
    SIMULTANEOUS,
    STEP_REWARD,
    STOCHASTIC,
    AbstractEnv,
    MultiAgent,
)
from rlcore.utils.random import make_rng
from rlenvs.games.common import (
    SIMULTANEOUS_PLAYER,
    check_joint_action,
    joint_action_space,
)

__all__ = ["SpeakerListenerEnv"]

PLAYERS = ("speaker", "listener")


class SpeakerListenerEnv(AbstractEnv):
    """A speaker who sees which of ``N`` landmarks is the goal, and a listener who can move but
    only hears the speaker: both are rewarded for the listener reaching the goal.

    Lowe et al., *Multi-agent actor-critic for mixed cooperative-competitive environments*,
    NeurIPS 2017 (the ``simple_speaker_listener`` scenario). Landmarks and the listener start
    uniformly in [-1, 1]². Every step both act at once (SIMULTANEOUS): the speaker utters a
    message in ``Box(0, 1, (N,))``, the listener applies a force in ``Box(-1, 1, (2,))``; the
    listener moves with damped point-mass dynamics (``velocity = (1 - damping) * velocity +
    sensitivity * force * dt``, ``position += velocity * dt``). Both receive the same reward, the
    negative squared distance from the listener to the goal landmark (IDENTICAL_UTILITY). The
    episode never terminates and is truncated after ``max_steps`` steps.

    States: the speaker sees the goal as a one-hot vector (``Box(0, 1, (N,))``); the listener sees
    its velocity, the landmarks relative to itself and the last message
    (``Box(-inf, inf, (2 + 2N + N,))``), all float32. ``state()`` without a player is what all
    the players see together, as for :class:`rlenvs.RockPaperScissorsEnv`: here the tuple of
    both states in the order of ``players()`` (like the joint action), in the ``spaces.Tuple``
    of ``state_space()``. Renders as text and ``rgb_array``.

    Deliberate differences from RL.jl: RL.jl's version is EXPLICIT_STOCHASTIC, a chance player
    placing each landmark and the listener with continuous actions and then choosing the goal;
    it defines no ``prob()`` for those continuous actions, so nothing (not
    :class:`rlenvs.StochasticEnv`, not a CFR-style learner) could play that chance player from
    the interface. Here the start is drawn from ``rng`` at ``reset()`` (STOCHASTIC). The
    dynamics and spaces follow the multi-agent particle environment's
    ``simple_speaker_listener`` (a message vector and a 2-D force) rather than RL.jl's rounded
    message index and four-direction push.

    Keyword arguments: ``N=3`` landmarks (at least 2), ``max_steps=25``, ``damping=0.25``,
    ``sensitivity=5.0``, ``dt=0.1``, ``rng``/``seed``.

    Example::

        >>> env = SpeakerListenerEnv(seed=0)
        >>> env.reset()
        >>> message = env.state("speaker")  # say the goal out loud
        >>> env((message, np.zeros(2, dtype=np.float32)))
        >>> env.reward("speaker") == env.reward("listener") < 0
        True
    """

    NumAgentStyle = MultiAgent(2)
    DynamicStyle = SIMULTANEOUS
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = STOCHASTIC  # RL.jl: EXPLICIT_STOCHASTIC (see the docstring)
    RewardStyle = STEP_REWARD
    UtilityStyle = IDENTICAL_UTILITY
    ActionStyle = MINIMAL_ACTION_SET
    StateStyle = (OBSERVATION,)

    def __init__(self, N=3, *, max_steps=25, damping=0.25, sensitivity=5.0, dt=0.1, rng=None,
                 seed=None):
        if not isinstance(N, (int, np.integer)) or N < 2:
            raise ValueError(f"SpeakerListenerEnv needs N >= 2 landmarks, got N={N!r}")
        if not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, got max_steps={max_steps!r}")
        if not 0.0 <= damping < 1.0:
            raise ValueError(f"damping must be in [0, 1), got damping={damping!r}")
        self.N, self.max_steps = int(N), int(max_steps)
        self.damping, self.sensitivity, self.dt = float(damping), float(sensitivity), float(dt)
        self.rng = make_rng(rng, seed)
        self._action_spaces = {
            "speaker": spaces.Box(0.0, 1.0, shape=(self.N,), dtype=np.float32),
            "listener": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32),
        }
        self._joint_space = joint_action_space(self)
        self._state_spaces = {
            "speaker": spaces.Box(0.0, 1.0, shape=(self.N,), dtype=np.float32),
            "listener": spaces.Box(-np.inf, np.inf, shape=(2 + 3 * self.N,), dtype=np.float32),
        }
        self._joint_state_space = spaces.Tuple(tuple(self._state_spaces[p] for p in PLAYERS))
        self.landmarks = np.zeros((self.N, 2))
        self.goal = 0
        self.position = np.zeros(2)
        self.velocity = np.zeros(2)
        self.message = np.zeros(self.N, dtype=np.float32)
        self.t = 0
        self._stepped = False

    def reset(self):
        self.landmarks = self.rng.uniform(-1.0, 1.0, size=(self.N, 2))
        self.goal = int(self.rng.integers(self.N))
        self.position = self.rng.uniform(-1.0, 1.0, size=2)
        self.velocity = np.zeros(2)
        self.message = np.zeros(self.N, dtype=np.float32)
        self.t = 0
        self._stepped = False

    def players(self):
        return PLAYERS

    def current_player(self):
        return SIMULTANEOUS_PLAYER

    def _check_player(self, player):
        if player not in PLAYERS:
            raise ValueError(f"player {player!r} is not one of {PLAYERS}")

    def action_space(self, player=None):
        if player is None or player is SIMULTANEOUS_PLAYER:
            return self._joint_space
        self._check_player(player)
        return self._action_spaces[player]

    def __call__(self, action):
        if self.is_truncated():
            raise RuntimeError(f"{self!r} was truncated after {self.t} steps; call reset()")
        check_joint_action(self, action)
        message, force = action
        self.message = np.asarray(message, dtype=np.float32).copy()
        force = np.asarray(force, dtype=np.float64)
        self.velocity = (1.0 - self.damping) * self.velocity + self.sensitivity * force * self.dt
        self.position = self.position + self.velocity * self.dt
        self.t += 1
        self._stepped = True

    def state(self, player=None):
        if player is None or player is SIMULTANEOUS_PLAYER:
            return tuple(self.state(p) for p in PLAYERS)
        self._check_player(player)
        if player == "speaker":
            one_hot = np.zeros(self.N, dtype=np.float32)
            one_hot[self.goal] = 1.0
            return one_hot
        relative = (self.landmarks - self.position).ravel()
        return np.concatenate([self.velocity, relative, self.message]).astype(np.float32)

    def state_space(self, player=None):
        if player is None or player is SIMULTANEOUS_PLAYER:
            return self._joint_state_space
        self._check_player(player)
        return self._state_spaces[player]

    def reward(self, player=None):
        self._check_player(player)
        if not self._stepped:
            return 0.0
        return -float(np.sum((self.position - self.landmarks[self.goal]) ** 2))

    def is_terminated(self):
        return False

    def is_truncated(self):
        return self.t >= self.max_steps

    def render(self, mode="text"):
        if mode == "text":
            return (f"step {self.t}: listener at {np.round(self.position, 2)}, goal landmark "
                    f"{self.goal} at {np.round(self.landmarks[self.goal], 2)}")
        if mode == "rgb_array":
            size = 64
            image = np.full((size, size, 3), 255, dtype=np.uint8)

            def dot(xy, colour, radius):
                i, j = np.clip(((np.asarray(xy) + 2.0) / 4.0 * size).astype(int), 0, size - 1)
                image[max(j - radius, 0):j + radius + 1, max(i - radius, 0):i + radius + 1] = \
                    colour
            for k, landmark in enumerate(self.landmarks):
                dot(landmark, (40, 160, 40) if k == self.goal else (160, 160, 160), 2)
            dot(self.position, (40, 40, 200), 1)
            return image
        raise ValueError(f"SpeakerListenerEnv renders mode='text' or 'rgb_array', "
                         f"got mode={mode!r}")

    def __repr__(self):
        return f"SpeakerListenerEnv(N={self.N}, max_steps={self.max_steps})"

"""The environment interface (docs/architecture.md §2), after RLBase's ``AbstractEnv``.

An environment is callable: ``env(action)`` applies an action. Spaces are Gymnasium spaces.
Traits are class attributes (see :mod:`rlcore.envs.traits`).

Example, a two-step corridor::

    import gymnasium.spaces as spaces
    from rlcore.envs import AbstractEnv

    class Corridor(AbstractEnv):
        def __init__(self):
            self.position = 0
        def reset(self):
            self.position = 0
        def __call__(self, action):
            self.check_action(action)
            self.position += 1
        def state(self, player=None):
            return self.position
        def reward(self, player=None):
            return 1.0 if self.position == 2 else 0.0
        def is_terminated(self):
            return self.position == 2
        def action_space(self, player=None):
            return spaces.Discrete(1)
        def state_space(self, player=None):
            return spaces.Discrete(3)
"""

import abc

import numpy as np
from gymnasium import spaces

from rlcore.dispatch import dispatch, generic
from rlcore.envs.traits import (
    GENERAL_SUM,
    IMPERFECT_INFORMATION,
    MINIMAL_ACTION_SET,
    OBSERVATION,
    SEQUENTIAL,
    SINGLE_AGENT,
    STEP_REWARD,
    STOCHASTIC,
    ExplicitStochastic,
    FullActionSet,
)

__all__ = ["AbstractEnv", "DEFAULT_PLAYER", "CHANCE_PLAYER", "SIMULTANEOUS_PLAYER",
           "check_action_in_space", "n_envs"]


class _Player:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


DEFAULT_PLAYER = _Player("DEFAULT_PLAYER")
CHANCE_PLAYER = _Player("CHANCE_PLAYER")
# ``current_player()`` of a SIMULTANEOUS game: every player acts at once (RL.jl's
# ``SIMULTANEOUS_PLAYER``).
SIMULTANEOUS_PLAYER = _Player("SIMULTANEOUS_PLAYER")


def check_action_in_space(action, space):
    """Raise ``ValueError`` naming ``action`` and ``space`` unless ``space`` contains ``action``."""
    if type(space) is spaces.Discrete:
        # Fast path: the run loop checks every action.
        if (type(action) is int or isinstance(action, np.integer)) \
                and space.start <= action < space.start + space.n:
            return
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu" \
                and space.start <= int(action) < space.start + space.n:
            return
    elif isinstance(space, spaces.Box):
        arr = np.asarray(action)
        if arr.shape == space.shape and arr.dtype.kind in "biuf" \
                and np.can_cast(arr.dtype, space.dtype, "same_kind") \
                and space.contains(arr.astype(space.dtype, copy=False)):
            return
    elif space.contains(action):
        return
    raise ValueError(f"action {action!r} is not in the action space {space}")


class AbstractEnv(abc.ABC):
    """Base class of environments; subclasses implement the abstract methods below.

    ``player`` arguments default to ``current_player()``. ``is_truncated()`` (a time limit cut the
    episode) is not in RL.jl; learners need it to bootstrap past a time limit.
    """

    NumAgentStyle = SINGLE_AGENT
    DynamicStyle = SEQUENTIAL
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = STEP_REWARD
    UtilityStyle = GENERAL_SUM
    ActionStyle = MINIMAL_ACTION_SET
    StateStyle = (OBSERVATION,)

    @property
    def DefaultStateStyle(self):
        """The first of ``StateStyle``: what ``state()`` returns by default."""
        style = self.StateStyle
        return style[0] if isinstance(style, tuple) else style

    # --- required
    @abc.abstractmethod
    def reset(self):
        """Start a new episode."""

    @abc.abstractmethod
    def __call__(self, action):
        """Apply ``action``; raise ``ValueError`` if it is not legal."""

    @abc.abstractmethod
    def state(self, player=None):
        """What ``player`` observes now."""

    @abc.abstractmethod
    def reward(self, player=None):
        """The reward ``player`` received from the last transition."""

    @abc.abstractmethod
    def is_terminated(self):
        """Whether the episode reached a terminal state (no bootstrapping past it)."""

    @abc.abstractmethod
    def action_space(self, player=None):
        """The Gymnasium space of ``player``'s actions."""

    @abc.abstractmethod
    def state_space(self, player=None):
        """The Gymnasium space of ``player``'s states."""

    # --- optional, with defaults
    def is_truncated(self):
        """Whether the episode was cut short, e.g. by a time limit (default ``False``)."""
        return False

    def is_done(self):
        """``is_terminated() or is_truncated()``: the episode is over."""
        return self.is_terminated() or self.is_truncated()

    def legal_action_space(self, player=None):
        """The actions legal now; the whole action space under MINIMAL_ACTION_SET."""
        if isinstance(self.ActionStyle, FullActionSet):
            raise NotImplementedError(
                f"{type(self).__name__} has ActionStyle FULL_ACTION_SET and must implement "
                "legal_action_space (abstract for such environments)")
        return self.action_space(player)

    def legal_action_space_mask(self, player=None):
        """Boolean mask over a Discrete action space: True where the action is legal now."""
        space = self.action_space(player)
        if not isinstance(space, spaces.Discrete):
            raise TypeError(f"legal_action_space_mask needs a Discrete action space, got {space}")
        if not isinstance(self.ActionStyle, FullActionSet):
            return np.ones(space.n, dtype=bool)
        legal = self.legal_action_space(player)
        if isinstance(legal, spaces.Discrete):
            legal = range(legal.start, legal.start + legal.n)
        try:
            index = np.fromiter((int(a) for a in legal), dtype=np.int64) - space.start
        except TypeError as error:
            raise TypeError(f"{type(self).__name__}.legal_action_space() must be a Discrete space "
                            f"or an iterable of actions, got {legal!r}") from error
        bad = (index < 0) | (index >= space.n)
        if bad.any():
            raise ValueError(f"{type(self).__name__}.legal_action_space() has actions "
                             f"{(index[bad] + space.start).tolist()} outside the action space "
                             f"{space}")
        mask = np.zeros(space.n, dtype=bool)
        mask[index] = True
        return mask

    def current_player(self):
        """The player to act now (``DEFAULT_PLAYER`` for single-agent envs)."""
        return DEFAULT_PLAYER

    def players(self):
        """All players, chance excluded."""
        return (DEFAULT_PLAYER,)

    def chance_player(self):
        """The player that stands for chance."""
        return CHANCE_PLAYER

    def prob(self, player=None):
        """The distribution of the chance player's actions (EXPLICIT_STOCHASTIC envs only)."""
        if isinstance(self.ChanceStyle, ExplicitStochastic):
            raise NotImplementedError(
                f"{type(self).__name__} is EXPLICIT_STOCHASTIC and must implement prob "
                "(abstract for such environments)")
        raise TypeError(f"{type(self).__name__} has no chance player (ChanceStyle "
                        f"{self.ChanceStyle!r}); prob() is defined for EXPLICIT_STOCHASTIC envs")

    def check_action(self, action, player=None):
        """Raise ``ValueError`` naming the action and the space unless ``action`` is legal now."""
        space = self.legal_action_space(player) if isinstance(self.ActionStyle, FullActionSet) \
            else self.action_space(player)
        if isinstance(space, spaces.Space):
            check_action_in_space(action, space)
        elif action not in space:
            raise ValueError(f"action {action!r} is not in the legal actions {space}")

    def render(self, mode="text"):
        """A text picture of the environment (``mode="text"``); subclasses may add ``"rgb_array"``."""
        if mode != "text":
            raise ValueError(f"{type(self).__name__} renders only mode='text', got mode={mode!r}")
        return repr(self)

    def __repr__(self):
        return f"{type(self).__name__}()"


n_envs = generic("n_envs", doc="""``n_envs(env)``: how many environments ``env`` steps at once.

    1 for an ordinary environment; a vectorised environment (``rlenvs.MultiThreadEnv``) adds its
    own rule giving its number of sub-environments. A learner that counts env steps (its
    :class:`~rlcore.ReplaySchedule`) counts ``n_envs(env)`` of them per ``PreActStage``.""")


@dispatch(AbstractEnv)
def n_envs(env):  # noqa: F811
    return 1

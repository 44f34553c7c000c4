"""Rock-paper-scissors, a one-shot simultaneous zero-sum game, after RL.jl's
``RockPaperScissorsEnv``."""

from gymnasium import spaces

from rlcore.envs import (
    DETERMINISTIC,
    IMPERFECT_INFORMATION,
    MINIMAL_ACTION_SET,
    OBSERVATION,
    SIMULTANEOUS,
    TERMINAL_REWARD,
    ZERO_SUM,
    AbstractEnv,
    MultiAgent,
)
from rlcore.utils.random import make_rng
from rlenvs.games.common import (
    SIMULTANEOUS_PLAYER,
    check_joint_action,
    joint_action_space,
)

__all__ = ["RockPaperScissorsEnv"]

ROCK, PAPER, SCISSORS = 0, 1, 2
NAMES = ("rock", "paper", "scissors")


class RockPaperScissorsEnv(AbstractEnv):
    """Two players show rock (0), paper (1) or scissors (2) at once; paper beats rock, scissors
    beat paper, rock beats scissors. The winner gets +1, the loser -1, a draw 0 each; one round is
    one episode.

    ``players()`` is ``("player_0", "player_1")``; the action is the tuple of both choices and
    ``action_space(player)`` is ``Discrete(3)``. The state is always 0 (``Discrete(1)``): nothing
    is observed before choosing. As in every simultaneous game here, ``state()`` without a player
    is what all the players see together: here the one state they share (compare
    :class:`rlenvs.SpeakerListenerEnv`, whose players see different things). ``last_actions``
    holds the round just played.

    Keyword arguments: ``rng``/``seed`` (kept for a uniform interface; the game is
    deterministic).

    Example::

        >>> env = RockPaperScissorsEnv()
        >>> env.reset(); env((PAPER, ROCK))
        >>> env.reward("player_0"), env.reward("player_1"), env.is_terminated()
        (1.0, -1.0, True)
    """

    NumAgentStyle = MultiAgent(2)
    DynamicStyle = SIMULTANEOUS
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = DETERMINISTIC
    RewardStyle = TERMINAL_REWARD
    UtilityStyle = ZERO_SUM
    ActionStyle = MINIMAL_ACTION_SET
    StateStyle = (OBSERVATION,)

    PLAYERS = ("player_0", "player_1")

    def __init__(self, *, rng=None, seed=None):
        self.rng = make_rng(rng, seed)
        self._player_space = spaces.Discrete(3)
        self._joint_space = joint_action_space(self)
        self._state_space = spaces.Discrete(1)
        self.last_actions = None

    def reset(self):
        self.last_actions = None

    def __call__(self, action):
        if self.last_actions is not None:
            raise RuntimeError(f"{self!r}: the round was played; call reset() before acting")
        check_joint_action(self, action)
        self.last_actions = tuple(int(a) for a in action)

    def players(self):
        return self.PLAYERS

    def current_player(self):
        return SIMULTANEOUS_PLAYER

    def _check_player(self, player):
        if player not in self.PLAYERS:
            raise ValueError(f"player {player!r} is not one of {self.PLAYERS}")

    def action_space(self, player=None):
        if player is None or player is SIMULTANEOUS_PLAYER:
            return self._joint_space
        self._check_player(player)
        return self._player_space

    def state(self, player=None):
        return 0

    def state_space(self, player=None):
        return self._state_space

    def reward(self, player=None):
        self._check_player(player)
        if self.last_actions is None:
            return 0.0
        mine, theirs = self.last_actions if player == self.PLAYERS[0] \
            else self.last_actions[::-1]
        return float(beats(mine, theirs)) - float(beats(theirs, mine))

    def is_terminated(self):
        return self.last_actions is not None

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"RockPaperScissorsEnv renders only mode='text', got mode={mode!r}")
        if self.last_actions is None:
            return "waiting for both players"
        a, b = self.last_actions
        return f"player_0 {NAMES[a]} vs player_1 {NAMES[b]}"

    def __repr__(self):
        return "RockPaperScissorsEnv()"


def beats(a, b):
    """Whether choice ``a`` beats choice ``b``."""
    return (a - b) % 3 == 1

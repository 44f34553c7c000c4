"""Tiny Hanabi, a two-player cooperative card game with private information, after RL.jl's
``TinyHanabiEnv`` (OpenSpiel's ``tiny_hanabi`` default game)."""

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    CHANCE_PLAYER,
    EXPLICIT_STOCHASTIC,
    IDENTICAL_UTILITY,
    IMPERFECT_INFORMATION,
    INFORMATION_SET,
    MINIMAL_ACTION_SET,
    SEQUENTIAL,
    TERMINAL_REWARD,
    AbstractEnv,
    MultiAgent,
)
from rlcore.utils.random import make_rng
from rlenvs.games.common import player_or_current

__all__ = ["TinyHanabiEnv", "PAYOFF"]

PLAYERS = ("player_0", "player_1")
# PAYOFF[card_0, card_1, action_0, action_1]: the common reward (OpenSpiel's default table,
# Foerster et al. 2019). The best joint policy earns 10 in expectation.
PAYOFF = np.array([
    [[[10, 0, 0], [4, 8, 4], [10, 0, 0]], [[0, 0, 10], [4, 8, 4], [0, 0, 10]]],
    [[[0, 0, 10], [4, 8, 4], [0, 0, 0]], [[10, 0, 0], [4, 8, 4], [10, 0, 0]]],
], dtype=np.float64)


class TinyHanabiEnv(AbstractEnv):
    """Chance deals each player one of two cards (uniformly, independently); ``player_0``, who sees
    only its own card, plays one of three actions; ``player_1``, who sees its own card and
    ``player_0``'s action, plays one of three actions. Both receive ``PAYOFF[c0, c1, a0, a1]``.

    Foerster et al., *Bayesian action decoder for deep multi-agent reinforcement learning*, ICML
    2019. Identical utility, imperfect information, explicit chance (``prob()`` is [0.5, 0.5]).
    A player's state is its information set, encoded in ``Discrete(12)`` as
    ``4 * (card + 1) + (a0 + 1)`` with 0 for "not yet known".

    Deliberate difference from RL.jl: RL.jl deals without replacement (its ``prob`` gives the
    second card zero weight on the first one), so the two cards always differ and the half of
    the payoff table where they are equal is never reached. We deal each card independently, as
    OpenSpiel's ``tiny_hanabi`` and the paper do, so the whole table (and its known optimum) is
    the game being played.

    Keyword arguments: ``rng``/``seed`` (kept for a uniform interface).

    Example::

        >>> env = TinyHanabiEnv()
        >>> env.reset(); env(0); env(0); env(0); env(0)
        >>> env.reward("player_0"), env.reward("player_1")
        (10.0, 10.0)
    """

    NumAgentStyle = MultiAgent(2)
    DynamicStyle = SEQUENTIAL
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = EXPLICIT_STOCHASTIC
    RewardStyle = TERMINAL_REWARD
    UtilityStyle = IDENTICAL_UTILITY
    ActionStyle = MINIMAL_ACTION_SET
    StateStyle = (INFORMATION_SET,)

    def __init__(self, *, rng=None, seed=None):
        self.rng = make_rng(rng, seed)
        self._card_space = spaces.Discrete(2)
        self._play_space = spaces.Discrete(3)
        self._state_space = spaces.Discrete(12)
        self.cards = []
        self.actions = []

    def reset(self):
        self.cards = []
        self.actions = []

    def players(self):
        return PLAYERS

    def current_player(self):
        if len(self.cards) < 2:
            return CHANCE_PLAYER
        return PLAYERS[min(len(self.actions), 1)]


    def action_space(self, player=None):
        player = player_or_current(self, player)
        return self._card_space if player is CHANCE_PLAYER else self._play_space

    def prob(self, player=None):
        """The chance player deals each card with probability 1/2."""
        return np.array([0.5, 0.5])

    def __call__(self, action):
        if self.is_terminated():
            raise RuntimeError(f"{self!r}: the game is over; call reset() before acting")
        self.check_action(action)
        if self.current_player() is CHANCE_PLAYER:
            self.cards.append(int(action))
        else:
            self.actions.append(int(action))

    def state(self, player=None):
        player = player_or_current(self, player)
        index = 0 if player is CHANCE_PLAYER else PLAYERS.index(player)
        card = self.cards[index] + 1 if player is not CHANCE_PLAYER and index < len(self.cards) \
            else 0
        a0 = self.actions[0] + 1 if self.actions else 0
        return 4 * card + a0

    def state_space(self, player=None):
        return self._state_space

    def reward(self, player=None):
        player_or_current(self, player)
        if not self.is_terminated():
            return 0.0
        return float(PAYOFF[self.cards[0], self.cards[1], self.actions[0], self.actions[1]])

    def is_terminated(self):
        return len(self.actions) == 2

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"TinyHanabiEnv renders only mode='text', got mode={mode!r}")
        return f"cards {self.cards}, actions {self.actions}"

    def __repr__(self):
        return "TinyHanabiEnv()"

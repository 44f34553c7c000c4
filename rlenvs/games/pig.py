"""Pig, the dice game, with an explicit chance player, after RL.jl's ``PigEnv``."""

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    CHANCE_PLAYER,
    CONSTANT_SUM,
    EXPLICIT_STOCHASTIC,
    MINIMAL_ACTION_SET,
    OBSERVATION,
    PERFECT_INFORMATION,
    SEQUENTIAL,
    TERMINAL_REWARD,
    AbstractEnv,
    MultiAgent,
)
from rlcore.utils.random import make_rng
from rlenvs.games.common import player_or_current

__all__ = ["PigEnv"]

ROLL, HOLD = 0, 1


class PigEnv(AbstractEnv):
    """The dice game Pig for ``n_players`` players.

    Neller & Presser, *Optimal play of the dice game Pig*, UMAP Journal 25 (2004). On its turn a
    player rolls (action 0) or holds (action 1). After a roll the chance player (``prob()``:
    uniform over the six faces; chance action ``k`` is face ``k + 1``) throws the die: a 1 loses
    the turn total and ends the turn, any other face adds to the turn total. Holding banks the
    turn total and passes the turn. The first player whose banked score reaches ``target_score``
    wins: reward 1 for the winner and -1 for each of the others at the end, as in RL.jl's
    ``PigEnv`` (constant sum ``2 - n_players``).

    The state, the same for every player, is the int64 array ``[score_0, ..., score_{n-1},
    turn_total, current_player_index]``.

    Keyword arguments: ``n_players=2`` (at least 2), ``target_score=100`` (positive),
    ``rng``/``seed`` (kept for a uniform interface).

    Example::

        >>> env = PigEnv(target_score=5)
        >>> env.reset(); env(ROLL); env(5); env(HOLD)  # rolled a 6 and banked it
        >>> env.is_terminated(), env.reward("player_0"), env.reward("player_1")
        (True, 1.0, -1.0)
    """

    DynamicStyle = SEQUENTIAL
    InformationStyle = PERFECT_INFORMATION
    ChanceStyle = EXPLICIT_STOCHASTIC
    RewardStyle = TERMINAL_REWARD
    UtilityStyle = CONSTANT_SUM
    ActionStyle = MINIMAL_ACTION_SET
    StateStyle = (OBSERVATION,)

    def __init__(self, n_players=2, *, target_score=100, rng=None, seed=None):
        if not isinstance(n_players, (int, np.integer)) or n_players < 2:
            raise ValueError(f"PigEnv needs n_players >= 2, got n_players={n_players!r}")
        if not isinstance(target_score, (int, np.integer)) or target_score < 1:
            raise ValueError(f"target_score must be a positive int, got "
                             f"target_score={target_score!r}")
        self.n_players = int(n_players)
        self.target_score = int(target_score)
        self.NumAgentStyle = MultiAgent(self.n_players)
        self.rng = make_rng(rng, seed)
        self._players = tuple(f"player_{i}" for i in range(self.n_players))
        self._play_space = spaces.Discrete(2)
        self._die_space = spaces.Discrete(6)
        self._state_space = spaces.Box(0, np.iinfo(np.int64).max, shape=(self.n_players + 2,),
                                       dtype=np.int64)
        self.scores = np.zeros(self.n_players, dtype=np.int64)
        self.turn_total = 0
        self.player_index = 0
        self.rolling = False

    def reset(self):
        self.scores[:] = 0
        self.turn_total = 0
        self.player_index = 0
        self.rolling = False

    def players(self):
        return self._players

    def current_player(self):
        return CHANCE_PLAYER if self.rolling else self._players[self.player_index]


    def action_space(self, player=None):
        player = player_or_current(self, player)
        return self._die_space if player is CHANCE_PLAYER else self._play_space

    def prob(self, player=None):
        """The die is fair: each face has probability 1/6."""
        return np.full(6, 1 / 6)

    def _next_turn(self):
        self.turn_total = 0
        self.player_index = (self.player_index + 1) % self.n_players

    def __call__(self, action):
        if self.is_terminated():
            raise RuntimeError(f"{self!r}: the game is over; call reset() before acting")
        self.check_action(action)
        action = int(action)
        if self.rolling:
            self.rolling = False
            face = action + 1
            if face == 1:
                self._next_turn()
            else:
                self.turn_total += face
        elif action == ROLL:
            self.rolling = True
        else:
            self.scores[self.player_index] += self.turn_total
            if not self.is_terminated():
                self._next_turn()

    def state(self, player=None):
        player_or_current(self, player)
        return np.concatenate([self.scores, [self.turn_total, self.player_index]])

    def state_space(self, player=None):
        return self._state_space

    def reward(self, player=None):
        player = player_or_current(self, player)
        if not self.is_terminated() or player is CHANCE_PLAYER:
            return 0.0
        return 1.0 if self.scores[self._players.index(player)] >= self.target_score else -1.0

    def is_terminated(self):
        return bool((self.scores >= self.target_score).any())

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"PigEnv renders only mode='text', got mode={mode!r}")
        scores = ", ".join(f"{p}: {s}" for p, s in zip(self._players, self.scores))
        return f"{scores}; turn total {self.turn_total}; to act: {self.current_player()}"

    def __repr__(self):
        return f"PigEnv({self.n_players}, target_score={self.target_score})"

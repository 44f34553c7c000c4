"""Tic-tac-toe, after RL.jl's ``TicTacToeEnv``."""

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    DETERMINISTIC,
    FULL_ACTION_SET,
    OBSERVATION,
    PERFECT_INFORMATION,
    SEQUENTIAL,
    TERMINAL_REWARD,
    ZERO_SUM,
    AbstractEnv,
    MultiAgent,
)
from rlcore.utils.random import make_rng

__all__ = ["TicTacToeEnv", "winner", "LINES"]

EMPTY, CROSS, NOUGHT = 0, 1, 2
PLAYERS = ("cross", "nought")
SYMBOLS = (".", "x", "o")
# The eight lines of three cells (rows, columns, diagonals) as flat indices 0..8.
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def winner(board):
    """``"cross"`` or ``"nought"`` if that player has three in a line on ``board`` (nine cells,
    0 empty, 1 cross, 2 nought, in any shape), else ``None``."""
    cells = np.asarray(board).ravel()
    for a, b, c in LINES:
        if cells[a] != EMPTY and cells[a] == cells[b] == cells[c]:
            return PLAYERS[int(cells[a]) - 1]
    return None


class TicTacToeEnv(AbstractEnv):
    """Two players, ``"cross"`` (moves first) and ``"nought"``, take turns marking an empty cell of
    a 3x3 board; three in a row, column or diagonal wins (+1 for the winner, -1 for the loser), a
    full board without a line is a draw (0 each).

    Actions are cell indices 0..8 (row-major); only empty cells are legal (FULL_ACTION_SET). The
    state, the same for both players, is the board one-hot in an int8 array of shape (3, 3, 3):
    ``state[k, i, j] == 1`` when cell (i, j) holds k (0 empty, 1 cross, 2 nought). ``board`` is
    the 3x3 array of 0/1/2. Renders as text and ``rgb_array``.

    Deliberate difference from RL.jl: RL.jl offers three state styles, ``Observation{String}``,
    ``Observation{Int}`` (an index over the 5478 reachable boards) and
    ``Observation{BitArray{3}}``. Our ``StateStyle`` values carry no type parameter, so there is
    one OBSERVATION: the one-hot array, RL.jl's ``BitArray{3}`` style. The string view is
    ``render()`` (the same 3x3 layout of ``x``, ``o`` and ``.``), and a tabular learner can key on
    ``board.tobytes()``.

    Keyword arguments: ``rng``/``seed`` (kept for a uniform interface; the game is
    deterministic).

    Example::

        >>> env = TicTacToeEnv()
        >>> env.reset()
        >>> for cell in (0, 3, 1, 4, 2):
        ...     env(cell)
        >>> env.is_terminated(), env.reward("cross"), env.reward("nought")
        (True, 1.0, -1.0)
        >>> print(env.render())
        x x x
        o o .
        . . .
    """

    NumAgentStyle = MultiAgent(2)
    DynamicStyle = SEQUENTIAL
    InformationStyle = PERFECT_INFORMATION
    ChanceStyle = DETERMINISTIC
    RewardStyle = TERMINAL_REWARD
    UtilityStyle = ZERO_SUM
    ActionStyle = FULL_ACTION_SET
    StateStyle = (OBSERVATION,)

    def __init__(self, *, rng=None, seed=None):
        self.rng = make_rng(rng, seed)
        self._action_space = spaces.Discrete(9)
        self._state_space = spaces.Box(0, 1, shape=(3, 3, 3), dtype=np.int8)
        self.board = np.zeros((3, 3), dtype=np.int8)
        self.player_index = 0
        self._winner = None

    def reset(self):
        self.board[:] = EMPTY
        self.player_index = 0
        self._winner = None

    def players(self):
        return PLAYERS

    def current_player(self):
        return PLAYERS[self.player_index]

    def legal_action_space(self, player=None):
        if self.is_terminated():
            return []
        return [int(i) for i in np.flatnonzero(self.board.ravel() == EMPTY)]

    def legal_action_space_mask(self, player=None):
        if self.is_terminated():
            return np.zeros(9, dtype=bool)
        return self.board.ravel() == EMPTY

    def __call__(self, action):
        if self.is_terminated():
            raise RuntimeError(f"{self!r}: the game is over; call reset() before acting")
        self.check_action(action)
        self.board.flat[int(action)] = CROSS + self.player_index
        self._winner = winner(self.board)
        self.player_index = 1 - self.player_index

    def state(self, player=None):
        return (np.arange(3)[:, None, None] == self.board[None]).astype(np.int8)

    def state_space(self, player=None):
        return self._state_space

    def action_space(self, player=None):
        return self._action_space

    def _check_player(self, player):
        if player not in PLAYERS:
            raise ValueError(f"player {player!r} is not one of {PLAYERS}")

    def reward(self, player=None):
        player = self.current_player() if player is None else player
        self._check_player(player)
        if self._winner is None:
            return 0.0
        return 1.0 if player == self._winner else -1.0

    def is_terminated(self):
        return self._winner is not None or not (self.board == EMPTY).any()

    def render(self, mode="text"):
        if mode == "text":
            return "\n".join(" ".join(SYMBOLS[c] for c in row) for row in self.board)
        if mode == "rgb_array":
            cell = 16
            image = np.full((3 * cell, 3 * cell, 3), 255, dtype=np.uint8)
            colours = {CROSS: (200, 40, 40), NOUGHT: (40, 40, 200)}
            for (i, j), value in np.ndenumerate(self.board):
                if value != EMPTY:
                    image[i * cell + 3:(i + 1) * cell - 3, j * cell + 3:(j + 1) * cell - 3] = \
                        colours[int(value)]
            image[::cell, :] = image[:, ::cell] = 0
            return image
        raise ValueError(f"TicTacToeEnv renders mode='text' or 'rgb_array', got mode={mode!r}")

    def __repr__(self):
        return "TicTacToeEnv()"

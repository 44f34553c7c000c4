"""A generic tabular grid world and the grid worlds of Sutton & Barto's chapters 3, 4 and 6.

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018): Example 3.5
(Figure 3.2, the 5×5 grid with A→A′ and B→B′), Example 4.1 (the 4×4 grid), Example 6.5 (windy
gridworld, Exercises 6.9 and 6.10: king's moves and stochastic wind), Example 6.6 (cliff walking).

Cells are ``(row, col)`` with row 0 at the top; the state is ``row * n_cols + col``. Actions are
0 up, 1 right, 2 down, 3 left and, with ``king_moves``, 4 up-right, 5 down-right, 6 down-left,
7 up-left. One step, in this order:

1. in a terminal cell nothing happens (the episode is over);
2. in a teleport cell every action moves to the teleport's target with its reward;
3. otherwise the move is applied, then the wind of the *starting* column pushes up (with
   ``stochastic_wind`` the push is wind−1, wind or wind+1 with probability 1/3 each where the
   wind is not 0); the result is clipped to the grid. A move whose unclipped target is off the
   grid gives ``off_grid_reward`` (when it is not ``None``) and leaves the agent in place;
   a move into a wall leaves the agent in place; landing on a cliff cell gives
   ``cliff_reward`` and sends the agent back to ``start``; else the reward is ``step_reward``.

The grid world is also an :class:`~rlcore.envs.tabular_model.AbstractTabularModel`, so the
dynamic-programming functions of :mod:`rlzoo.tabular.dynamic_programming` solve it exactly.
"""

from gymnasium import spaces

from rlcore.envs import (
    DETERMINISTIC, MINIMAL_ACTION_SET, PERFECT_INFORMATION, SINGLE_AGENT, STEP_REWARD, STOCHASTIC,
    AbstractEnv,
)
from rlcore.envs.tabular_model import AbstractTabularModel
from rlcore.utils.random import make_rng

__all__ = ["GridWorldEnv", "example_3_5_grid", "example_4_1_grid", "windy_grid_world",
           "cliff_walking", "MOVES", "ACTION_NAMES"]

# (d_row, d_col) of each action; rows grow downwards.
MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1), (-1, 1), (1, 1), (1, -1), (-1, -1))
ACTION_NAMES = ("up", "right", "down", "left", "up-right", "down-right", "down-left", "up-left")


def _cell(value, shape, name):
    try:
        r, c = (int(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a (row, col) pair, got {value!r}") from None
    if not (0 <= r < shape[0] and 0 <= c < shape[1]):
        raise ValueError(f"{name} {value!r} is outside the {shape[0]}×{shape[1]} grid")
    return r, c


class GridWorldEnv(AbstractEnv, AbstractTabularModel):
    """A grid world with terminal cells, teleports, wind, cliffs and walls.

    Keyword arguments:

    * ``shape=(5, 5)``: ``(n_rows, n_cols)``.
    * ``start=(0, 0)``: the start cell, or ``None`` for a uniformly random non-terminal cell.
    * ``terminals=()``: terminal cells (reaching one ends the episode).
    * ``teleports={}``: ``{cell: (target_cell, reward)}``; any action in ``cell`` jumps.
    * ``wind=None``: upward wind strength of each column (a sequence of ``n_cols`` ints).
    * ``stochastic_wind=False``: vary a non-zero wind by −1, 0, +1 (Exercise 6.10).
    * ``king_moves=False``: eight actions instead of four (Exercise 6.9).
    * ``cliffs=()``: cliff cells; ``cliff_reward=-100.0``.
    * ``walls=()``: cells that cannot be entered.
    * ``step_reward=0.0``: reward of an ordinary step.
    * ``off_grid_reward=None``: reward of a move off the grid (``None``: ``step_reward``).
    * ``max_steps=None``: truncate episodes after this many steps.
    * ``rng``/``seed``: randomness of the stochastic wind and of a random start.

    Example (the 4×4 grid of Example 4.1)::

        >>> env = example_4_1_grid(seed=0)
        >>> env.reset(); env.state() in range(16)
        True
        >>> env = GridWorldEnv(shape=(1, 3), start=(0, 0), terminals=[(0, 2)], step_reward=-1.0)
        >>> env.reset(); env(1); env(1)
        >>> env.state(), env.reward(), env.is_terminated()
        (2, -1.0, True)
    """

    NumAgentStyle = SINGLE_AGENT
    InformationStyle = PERFECT_INFORMATION
    RewardStyle = STEP_REWARD
    ActionStyle = MINIMAL_ACTION_SET

    def __init__(self, shape=(5, 5), start=(0, 0), terminals=(), teleports=None, wind=None,
                 stochastic_wind=False, king_moves=False, cliffs=(), cliff_reward=-100.0,
                 walls=(), step_reward=0.0, off_grid_reward=None, max_steps=None, rng=None,
                 seed=None):
        try:
            n_rows, n_cols = (int(v) for v in shape)
        except (TypeError, ValueError):
            raise ValueError(f"shape must be (n_rows, n_cols), got {shape!r}") from None
        if n_rows < 1 or n_cols < 1:
            raise ValueError(f"shape must be positive, got {shape!r}")
        self.shape = (n_rows, n_cols)
        self.terminals = frozenset(_cell(t, self.shape, "terminal cell") for t in terminals)
        self.teleports = {_cell(k, self.shape, "teleport cell"):
                          (_cell(v[0], self.shape, "teleport target"), float(v[1]))
                          for k, v in (teleports or {}).items()}
        self.cliffs = frozenset(_cell(c, self.shape, "cliff cell") for c in cliffs)
        self.walls = frozenset(_cell(w, self.shape, "wall cell") for w in walls)
        if wind is None:
            wind = (0,) * n_cols
        wind = tuple(int(w) for w in wind)
        if len(wind) != n_cols:
            raise ValueError(f"wind must give one strength per column ({n_cols}), got {wind!r}")
        self.wind = wind
        self.stochastic_wind = bool(stochastic_wind)
        self.king_moves = bool(king_moves)
        self.cliff_reward = float(cliff_reward)
        self.step_reward = float(step_reward)
        self.off_grid_reward = None if off_grid_reward is None else float(off_grid_reward)
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")
        self.max_steps = max_steps
        self.start = None if start is None else _cell(start, self.shape, "start")
        if self.start is not None and (self.start in self.walls or self.start in self.cliffs):
            raise ValueError(f"start {self.start} is a wall or a cliff cell")
        self.rng = make_rng(rng, seed)
        self.ChanceStyle = STOCHASTIC if (self.stochastic_wind or start is None) \
            else DETERMINISTIC
        self.n_states = n_rows * n_cols
        self.n_actions = 8 if self.king_moves else 4
        self._action_space = spaces.Discrete(self.n_actions)
        self._state_space = spaces.Discrete(self.n_states)
        self._starts = [(r, c) for r in range(n_rows) for c in range(n_cols)
                        if (r, c) not in self.terminals | self.walls | self.cliffs]
        self.reset()

    # --- cells and states
    def to_state(self, cell):
        """The state index of ``cell``."""
        r, c = cell
        return r * self.shape[1] + c

    def to_cell(self, state):
        """The ``(row, col)`` of state index ``state``."""
        return divmod(int(state), self.shape[1])

    # --- dynamics
    def _outcomes(self, cell, action):
        """``[(p, next_cell, reward)]`` of ``action`` in non-terminal ``cell``."""
        if cell in self.teleports:
            target, reward = self.teleports[cell]
            return [(1.0, target, reward)]
        d_row, d_col = MOVES[action]
        strength = self.wind[cell[1]]
        if self.stochastic_wind and strength != 0:
            pushes = [(1 / 3, strength - 1), (1 / 3, strength), (1 / 3, strength + 1)]
        else:
            pushes = [(1.0, strength)]
        outcomes = []
        for p, push in pushes:
            outcomes.append((p, *self._move(cell, d_row - push, d_col)))
        return outcomes

    def _move(self, cell, d_row, d_col):
        n_rows, n_cols = self.shape
        row, col = cell[0] + d_row, cell[1] + d_col
        if self.off_grid_reward is not None and not (0 <= row < n_rows and 0 <= col < n_cols):
            return cell, self.off_grid_reward
        target = (min(max(row, 0), n_rows - 1), min(max(col, 0), n_cols - 1))
        if target in self.walls:
            return cell, self.step_reward
        if target in self.cliffs:
            return self._start_cell_for_model(), self.cliff_reward
        return target, self.step_reward

    def _start_cell_for_model(self):
        if self.start is None:
            raise ValueError("cliffs send the agent back to start: give a fixed start cell")
        return self.start

    # --- AbstractTabularModel
    def transitions(self, s, a):
        return [(p, self.to_state(cell), r) for p, cell, r in self._outcomes(self.to_cell(s), a)]

    def is_terminal_state(self, s):
        return self.to_cell(s) in self.terminals

    # --- AbstractEnv
    def reset(self):
        if self.start is None:
            self.position = self._starts[int(self.rng.integers(len(self._starts)))]
        else:
            self.position = self.start
        self._reward = 0.0
        self.steps = 0

    def __call__(self, action):
        if not (type(action) is int and 0 <= action < self.n_actions):
            self.check_action(action)
        if self.is_terminated() or self.is_truncated():
            raise RuntimeError(f"the episode is over at cell {self.position}; call reset() first")
        outcomes = self._outcomes(self.position, int(action))
        if len(outcomes) == 1:
            _, self.position, self._reward = outcomes[0]
        else:
            _, self.position, self._reward = outcomes[int(self.rng.integers(len(outcomes)))]
        self.steps += 1

    def state(self, player=None):
        return self.to_state(self.position)

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        return self.position in self.terminals

    def is_truncated(self):
        return self.max_steps is not None and self.steps >= self.max_steps \
            and not self.is_terminated()

    def action_space(self, player=None):
        return self._action_space

    def state_space(self, player=None):
        return self._state_space

    def render(self, mode="text"):
        """The grid as text: ``x`` agent, ``T`` terminal, ``C`` cliff, ``#`` wall, ``.`` other."""
        if mode != "text":
            raise ValueError(f"GridWorldEnv renders only mode='text', got mode={mode!r}")
        rows = []
        for r in range(self.shape[0]):
            row = []
            for c in range(self.shape[1]):
                cell = (r, c)
                row.append("x" if cell == self.position else "T" if cell in self.terminals
                           else "C" if cell in self.cliffs else "#" if cell in self.walls else ".")
            rows.append(" ".join(row))
        return "\n".join(rows)

    def __repr__(self):
        return (f"GridWorldEnv(shape={self.shape}, start={self.start}, "
                f"terminals={sorted(self.terminals)}, king_moves={self.king_moves}, "
                f"stochastic_wind={self.stochastic_wind})")


def example_3_5_grid(**kwargs):
    """The 5×5 grid of Example 3.5 / Figure 3.2: off-grid moves cost −1, A→A′ gives +10, B→B′ +5.

    A = (0, 1) jumps to A′ = (4, 1), B = (0, 3) to B′ = (2, 3). Continuing (no terminal); use
    γ = 0.9 as in the book. ``kwargs`` go to :class:`GridWorldEnv` (e.g. ``seed``, ``max_steps``).
    """
    kwargs.setdefault("start", (2, 2))
    return GridWorldEnv(shape=(5, 5), teleports={(0, 1): ((4, 1), 10.0), (0, 3): ((2, 3), 5.0)},
                        step_reward=0.0, off_grid_reward=-1.0, **kwargs)


def example_4_1_grid(**kwargs):
    """The 4×4 grid of Example 4.1: terminal corners (0, 0) and (3, 3), reward −1 per step.

    Off-grid moves leave the state unchanged (and cost −1). Episodes start in a random
    non-terminal cell unless ``start`` is given.
    """
    kwargs.setdefault("start", None)
    return GridWorldEnv(shape=(4, 4), terminals=[(0, 0), (3, 3)], step_reward=-1.0, **kwargs)


def windy_grid_world(king_moves=False, stochastic_wind=False, **kwargs):
    """The 7×10 windy gridworld of Example 6.5 (start (3, 0), goal (3, 7), −1 per step).

    Column winds 0 0 0 1 1 1 2 2 1 0. ``king_moves`` (Exercise 6.9) and ``stochastic_wind``
    (Exercise 6.10) as in :class:`GridWorldEnv`.
    """
    return GridWorldEnv(shape=(7, 10), start=(3, 0), terminals=[(3, 7)],
                        wind=(0, 0, 0, 1, 1, 1, 2, 2, 1, 0), king_moves=king_moves,
                        stochastic_wind=stochastic_wind, step_reward=-1.0, **kwargs)


def cliff_walking(**kwargs):
    """The 4×12 cliff walking task of Example 6.6 (start (3, 0), goal (3, 11)).

    −1 per step; stepping into the cliff (3, 1)…(3, 10) gives −100 and returns to the start.
    """
    return GridWorldEnv(shape=(4, 12), start=(3, 0), terminals=[(3, 11)],
                        cliffs=[(3, c) for c in range(1, 11)], step_reward=-1.0, **kwargs)

"""Minimax search with alpha-beta pruning for two-player zero-sum games of perfect information.

References: von Neumann, *Zur Theorie der Gesellschaftsspiele*, Math. Annalen 100 (1928)
(minimax); Knuth & Moore, *An analysis of alpha-beta pruning*, Artificial Intelligence 6 (1975)
(alpha-beta, in the negamax form used here); Russell & Norvig, *Artificial Intelligence: A
Modern Approach*, ch. 5 (depth-limited search with an evaluation function, transposition
tables); RL.jl's ``MinimaxPolicy`` and OpenSpiel's ``minimax``.

Values are from the view of the player to move (negamax): the value of a position for the
player ``p`` to move is ``max_a [r_p(a) + v_p(child)]``, where ``r_p(a)`` is ``p``'s reward
from the move and ``v_p(child)`` is the child's value if ``p`` moves again there and minus the
opponent's value otherwise (zero-sum). Terminal positions are worth 0 (no reward is left to
come), so with terminal rewards the value of a move is the game's outcome under best play.
Children are ``copy.deepcopy(env)`` after the move; nothing is undone.

Shape convention: none (scalar values; ``action_values`` is an array over the action space).
"""

import copy
import math

import attrs
import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    DETERMINISTIC, PERFECT_INFORMATION, SEQUENTIAL, ZERO_SUM, FullActionSet, MultiAgent,
)
from rlcore.policies.base import AbstractPolicy
from rlcore.utils.random import make_rng
from rlzoo.multi_agent.game_tree import default_info_key

__all__ = ["MinimaxPolicy", "check_minimax_game"]


def check_minimax_game(env):
    """Raise ``ValueError`` naming the trait unless ``env`` is a two-player zero-sum SEQUENTIAL
    game of perfect information without chance (what minimax search can solve)."""
    needs = [("NumAgentStyle", env.NumAgentStyle, MultiAgent(2), "two players"),
             ("DynamicStyle", env.DynamicStyle, SEQUENTIAL, "one player moves at a time"),
             ("InformationStyle", env.InformationStyle, PERFECT_INFORMATION,
              "the searcher must see the whole state"),
             ("ChanceStyle", env.ChanceStyle, DETERMINISTIC,
              "chance nodes need expectiminimax"),
             ("UtilityStyle", env.UtilityStyle, ZERO_SUM,
              "one player's gain must be the other's loss")]
    for trait, value, expected, why in needs:
        if value != expected:
            raise ValueError(f"MinimaxPolicy cannot play {env!r}: its {trait} is {value!r}, "
                             f"minimax needs {expected!r} ({why})")
    space = env.action_space()
    if not isinstance(space, spaces.Discrete):
        raise ValueError(f"MinimaxPolicy needs a Discrete action space, {env!r} has {space}")


def _legal_actions(env):
    space = env.action_space()
    if isinstance(env.ActionStyle, FullActionSet):
        return (np.flatnonzero(env.legal_action_space_mask()) + space.start).tolist()
    return list(range(space.start, space.start + space.n))


def _zero(env, player):
    return 0.0


@attrs.define(eq=False)
class MinimaxPolicy(AbstractPolicy):
    """Plays the move of best minimax value, found by alpha-beta search over copies of the
    environment, for two-player zero-sum games of perfect information without chance (see the
    module docstring for the value convention and the references).

    Keyword arguments:

    * ``depth=None``: search to the end of the game; an int ``d >= 1`` searches ``d`` moves
      ahead and scores the positions reached at that depth (if the game is not over there)
      with ``evaluate``.
    * ``evaluate=None``: ``evaluate(env, player) -> float``, the estimated return still to come
      for ``player``, the player to move at the cut-off (default: 0 for every position, a
      draw). Only with a ``depth``.
    * ``transposition_table=True``: remember the tightest bounds found on the value of each
      position searched (and the depth searched), keyed by the player to move and its
      ``state`` (made hashable), across calls, so positions reached by different move orders,
      later moves and later games are not searched again. The state must then determine the
      future of the game, as it does in a game of perfect information; ``clear()`` forgets the
      table (needed if ``evaluate`` or the game changes).
    * ``rng``/``seed``: draws among equally good moves.

    ``policy(env)`` is a random best move; ``value(env)`` the minimax value for the player to
    move; ``best_actions(env)`` the equally good moves; ``action_values(env)`` every legal
    move's value (a full-width search of each, ``-inf`` for illegal moves);
    ``action_probabilities(env)`` the uniform distribution over the best moves.
    ``nodes_searched`` counts the positions the last call expanded.

    Deliberate differences from RL.jl's ``MinimaxPolicy(maximum_depth=30, value_function)``:
    ``depth=None`` searches to the end instead of stopping at 30 moves; the evaluation takes
    the player whose value it estimates; ties are drawn at random instead of taking the first
    best move (a deterministic player is easy to exploit, and the random draw makes self-play
    vary); the transposition table is new.

    >>> from rlenvs import TicTacToeEnv
    >>> env = TicTacToeEnv()
    >>> env.reset()
    >>> for cell in (0, 4, 1):  # x x . / . o . / . . .
    ...     env(cell)
    >>> policy = MinimaxPolicy(seed=0)
    >>> policy(env), policy.value(env)  # nought must block at 2; the game is then a draw
    (2, 0.0)
    """

    depth: object = attrs.field(default=None)
    evaluate: object = attrs.field(default=None)
    transposition_table: bool = attrs.field(default=True)
    rng: object = attrs.field(default=None, repr=False)
    seed: object = attrs.field(default=None)
    nodes_searched: int = attrs.field(default=0, init=False, repr=False)
    _table: dict = attrs.field(factory=dict, init=False, repr=False)

    @depth.validator
    def _check_depth(self, attribute, depth):
        if depth is not None and (not isinstance(depth, (int, np.integer))
                                  or isinstance(depth, bool) or depth < 1):
            raise ValueError(f"depth must be None (to the end of the game) or an int >= 1, got "
                             f"{depth!r}")

    @evaluate.validator
    def _check_evaluate(self, attribute, evaluate):
        if evaluate is not None and not callable(evaluate):
            raise TypeError(f"evaluate must be callable as evaluate(env, player), got "
                            f"{evaluate!r}")
        if evaluate is not None and self.depth is None:
            raise ValueError("evaluate scores the positions at the depth limit; with depth=None "
                             "the search reaches the end of the game and would never call it; "
                             "give a depth")

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def clear(self):
        """Forget the transposition table."""
        self._table.clear()

    def __call__(self, env):
        return int(self.rng.choice(self.best_actions(env)))

    def value(self, env):
        """The minimax value of ``env``'s position for the player to move."""
        check_minimax_game(env)
        self.nodes_searched = 0
        return self._negamax(env, self._depth(), -math.inf, math.inf)

    def best_actions(self, env):
        """The legal moves of best minimax value for the player to move."""
        check_minimax_game(env)
        self.nodes_searched = 0
        player, best, actions = env.current_player(), -math.inf, []
        for action in self._moves(env):
            # a window open just below the best value so far: a move as good as it gets its
            # exact value (a tie), a worse one only a bound below the best (cut off)
            alpha = math.inf if best == math.inf else math.nextafter(best, -math.inf)
            v = self._move_value(env, player, action, self._depth(), alpha, math.inf)
            if v > best:
                best, actions = v, [action]
            elif v == best:
                actions.append(action)
        return actions

    def action_values(self, env):
        """Each legal move's minimax value for the player to move, over the action space
        (``-inf`` for illegal moves)."""
        check_minimax_game(env)
        self.nodes_searched = 0
        space, player = env.action_space(), env.current_player()
        values = np.full(space.n, -np.inf)
        for action in self._moves(env):
            values[action - space.start] = self._move_value(env, player, action, self._depth(),
                                                            -math.inf, math.inf)
        return values

    def action_probabilities(self, env, player=None):
        """The uniform distribution over the best moves, over the action space."""
        if player is not None and player != env.current_player():
            raise ValueError(f"MinimaxPolicy gives the probabilities of the player to move, "
                             f"{env.current_player()!r}; got player={player!r}")
        space = env.action_space()
        probs = np.zeros(space.n)
        best = np.asarray(self.best_actions(env)) - space.start
        probs[best] = 1.0 / len(best)
        return probs

    def prob(self, env):
        return self.action_probabilities(env)

    # ------------------------------------------------------------------------------- search
    def _depth(self):
        return math.inf if self.depth is None else self.depth

    def _moves(self, env):
        actions = _legal_actions(env)
        if not actions:
            raise ValueError(f"{env!r} has no legal move for {env.current_player()!r}; the "
                             "game is over")
        return actions

    def _move_value(self, env, player, action, depth, alpha, beta):
        """``player``'s value of ``action``: its reward plus the value of the child for it,
        searched with the window ``(alpha, beta)`` shifted by that reward."""
        child = copy.deepcopy(env)
        child(action)
        reward = float(child.reward(player))
        if child.is_terminated() or child.is_truncated():
            return reward
        if child.current_player() == player:  # the same player moves again
            return reward + self._negamax(child, depth - 1, alpha - reward, beta - reward)
        return reward - self._negamax(child, depth - 1, reward - beta, reward - alpha)

    def _negamax(self, env, depth, alpha, beta):
        """The value for the player to move, exact if it lies in ``(alpha, beta)``; otherwise
        a bound beyond the window (at most ``alpha``, at least ``beta``)."""
        if env.is_terminated() or env.is_truncated():
            return 0.0
        player = env.current_player()
        if player not in env.players():
            raise ValueError(f"{env!r}: current_player() {player!r} is not one of "
                             f"{env.players()}; MinimaxPolicy searches games without chance")
        if depth == 0:
            return float((self.evaluate or _zero)(env, player))
        key = entry = None
        if self.transposition_table:
            key = (type(getattr(env, "innermost", env)), player, default_info_key(env, player))
            entry = self._table.get(key)
            if entry is not None and entry[0] >= depth:  # searched at least as deep before
                _, lower, upper = entry
                if lower >= beta or lower == upper:
                    return lower
                if upper <= alpha:
                    return upper
                alpha, beta = max(alpha, lower), min(beta, upper)
        self.nodes_searched += 1
        alpha_in, best = alpha, -math.inf
        for action in self._moves(env):
            best = max(best, self._move_value(env, player, action, depth, alpha, beta))
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        if key is not None:
            # what this search proved: value <= best (all moves failed low), value >= best
            # (a cut-off) or value == best; kept with the bounds known from an equal depth
            lower = -math.inf if best <= alpha_in else best
            upper = math.inf if best >= beta else best
            if entry is not None and entry[0] == depth \
                    and max(lower, entry[1]) <= min(upper, entry[2]):  # (rounding may not)
                lower, upper = max(lower, entry[1]), min(upper, entry[2])
            if entry is None or depth >= entry[0]:
                self._table[key] = (depth, lower, upper)
        return best

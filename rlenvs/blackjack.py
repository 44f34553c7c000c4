"""Blackjack with the rules of Sutton & Barto, Example 5.1.

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), Example 5.1
(Figures 5.1, 5.2, 5.3). Cards come from an infinite deck (with replacement); face cards count 10,
an ace 1 or 11. The player sees its sum (12..21), the dealer's showing card (1..10, ace = 1) and
whether it holds a usable ace; below 12 it always hits, so those sums are dealt automatically. The
player hits (1) or sticks (0); going over 21 loses (−1). The dealer then hits until its sum is 17
or more and sticks on any sum of 17 or greater, a soft 17 (with a usable ace) included; over 21
the player wins (+1), otherwise "the outcome—win, lose, or draw—is determined by whose final sum is
closer to 21" (+1, −1, 0). So a player's 21 made of three or more cards draws against a dealer's
natural. A player's natural (21 with two cards) wins (+1) unless the dealer also has a natural
(draw, 0). Rewards are 0 until the end; γ = 1.

A natural ends the game at once in the book. :func:`rlcore.run` needs at least one decision per
episode (it raises if the env is over right after ``reset()``), so here a natural is shown as the
state (21, showing, usable ace) and is settled on the first step *whichever* action is taken:
the player cannot hit a natural, and the episode always has exactly one step.

State: ``(sum − 12) * 20 + (showing − 1) * 2 + usable_ace`` (0..199) and 200 once the episode is
over; :meth:`BlackjackEnv.decode` and :meth:`BlackjackEnv.encode` convert.
"""

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    IMPERFECT_INFORMATION, MINIMAL_ACTION_SET, SINGLE_AGENT, STOCHASTIC, TERMINAL_REWARD,
    AbstractEnv,
)
from rlcore.utils.random import make_rng

__all__ = ["BlackjackEnv", "STICK", "HIT", "N_STATES", "TERMINAL_STATE"]

STICK, HIT = 0, 1
N_STATES = 200
TERMINAL_STATE = 200


def _add(total, usable, card):
    """Add ``card`` to a hand of ``total`` with ``usable`` ace; return the new pair."""
    total += card
    if card == 1 and total + 10 <= 21:
        total, usable = total + 10, True
    if total > 21 and usable:
        total, usable = total - 10, False
    return total, usable


class BlackjackEnv(AbstractEnv):
    """Blackjack as in Example 5.1.

    Keyword arguments:

    * ``initial_state=None``: ``(player_sum, showing, usable_ace)`` to start every episode from
      (Figure 5.3 uses ``(13, 2, True)``), or ``None`` for a normal deal.
    * ``exploring_starts=False``: start each episode in a uniformly random state (Figure 5.2).
    * ``rng``/``seed``.

    Example::

        >>> env = BlackjackEnv(initial_state=(20, 10, False), seed=0)
        >>> env.reset(); BlackjackEnv.decode(env.state())
        (20, 10, False)
        >>> env(STICK); env.is_terminated(), env.reward() in (-1.0, 0.0, 1.0)
        (True, True)
    """

    NumAgentStyle = SINGLE_AGENT
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = TERMINAL_REWARD
    ActionStyle = MINIMAL_ACTION_SET

    def __init__(self, initial_state=None, exploring_starts=False, rng=None, seed=None):
        if initial_state is not None:
            if exploring_starts:
                raise ValueError("give initial_state or exploring_starts, not both")
            initial_state = self._check_initial_state(initial_state)
        self.initial_state = initial_state
        self.exploring_starts = bool(exploring_starts)
        self.rng = make_rng(rng, seed)
        self._action_space = spaces.Discrete(2)
        self._state_space = spaces.Discrete(N_STATES + 1)
        self.reset()

    @staticmethod
    def _check_initial_state(initial_state):
        expected = ("initial_state must be a tuple (player_sum in 12..21, showing in 1..10, "
                    "usable_ace bool)")
        try:
            total, showing, usable = initial_state
        except (TypeError, ValueError):
            raise ValueError(f"{expected}, got {initial_state!r}") from None
        ints = all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
                   for x in (total, showing))
        if not (ints and 12 <= total <= 21 and 1 <= showing <= 10
                and isinstance(usable, (bool, np.bool_))):
            raise ValueError(f"{expected}, got {initial_state!r}")
        return int(total), int(showing), bool(usable)

    @staticmethod
    def encode(player_sum, showing, usable_ace):
        """The state index of ``(player_sum, showing, usable_ace)``."""
        return (player_sum - 12) * 20 + (showing - 1) * 2 + int(bool(usable_ace))

    @staticmethod
    def decode(state):
        """``(player_sum, showing, usable_ace)`` of state index ``state`` (< 200)."""
        if not 0 <= state < N_STATES:
            raise ValueError(f"state {state!r} is not a decision state (0..{N_STATES - 1})")
        rest, usable = divmod(int(state), 2)
        player_sum, showing = divmod(rest, 10)
        return player_sum + 12, showing + 1, bool(usable)

    def _card(self):
        return min(int(self.rng.integers(1, 14)), 10)

    def reset(self):
        self.done, self._reward = False, 0.0
        self.natural = False
        self.dealer_final = None
        if self.initial_state is not None or self.exploring_starts:
            if self.exploring_starts:
                start = self.decode(int(self.rng.integers(N_STATES)))
            else:
                start = self.initial_state
            self.player_sum, self.showing, self.usable = start[0], start[1], bool(start[2])
        else:
            total, usable = 0, False
            total, usable = _add(*_add(total, usable, self._card()), self._card())
            self.natural = total == 21
            while total < 12:
                total, usable = _add(total, usable, self._card())
            self.player_sum, self.usable = total, usable
            self.showing = self._card()
        self.dealer_sum, self.dealer_usable = _add(0, False, self.showing)
        self.dealer_sum, self.dealer_usable = _add(self.dealer_sum, self.dealer_usable,
                                                   self._card())
        self.dealer_natural = self.dealer_sum == 21

    def __call__(self, action):
        if not (type(action) is int and 0 <= action < 2):
            self.check_action(action)
        if self.done:
            raise RuntimeError("the episode is over; call reset() first")
        if self.natural:  # settled at once, whatever the action (see the module docstring)
            self.done = True
            self._reward = 0.0 if self.dealer_natural else 1.0
            return
        if action == HIT:
            self.player_sum, self.usable = _add(self.player_sum, self.usable, self._card())
            if self.player_sum > 21:
                self.done, self._reward = True, -1.0
            return
        self.done = True
        total, usable = self.dealer_sum, self.dealer_usable
        while total < 17:  # sticks on any sum >= 17, soft 17 included
            total, usable = _add(total, usable, self._card())
        self.dealer_final = total
        if total > 21 or self.player_sum > total:
            self._reward = 1.0
        elif self.player_sum < total:
            self._reward = -1.0
        else:
            self._reward = 0.0

    def state(self, player=None):
        if self.done:
            return TERMINAL_STATE
        return self.encode(self.player_sum, self.showing, self.usable)

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        return self.done

    def action_space(self, player=None):
        return self._action_space

    def state_space(self, player=None):
        return self._state_space

    def __repr__(self):
        return (f"BlackjackEnv(initial_state={self.initial_state}, "
                f"exploring_starts={self.exploring_starts})")

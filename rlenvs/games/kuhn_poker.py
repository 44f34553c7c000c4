"""Kuhn poker with an explicit chance player, after RL.jl's ``KuhnPokerEnv``."""

import itertools

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    CHANCE_PLAYER,
    EXPLICIT_STOCHASTIC,
    FULL_ACTION_SET,
    IMPERFECT_INFORMATION,
    INFORMATION_SET,
    SEQUENTIAL,
    TERMINAL_REWARD,
    ZERO_SUM,
    AbstractEnv,
    MultiAgent,
)
from rlcore.utils.random import make_rng
from rlenvs.games.common import player_or_current

__all__ = ["KuhnPokerEnv", "PAYOFFS"]

JACK, QUEEN, KING = 0, 1, 2
PASS, BET = 0, 1
CARD_NAMES = ("J", "Q", "K")
PLAYERS = ("player_0", "player_1")
# Public action histories ("p" pass, "b" bet) and the terminal ones.
HISTORIES = ("", "p", "b", "pp", "pb", "bp", "bb", "pbp", "pbb")
TERMINAL = {"pp", "bp", "bb", "pbp", "pbb"}
# The payoff of player_0 in each terminal history, as a function of who holds the higher card
# (+1 when player_0 does): a fold pays 1 whatever the cards, a showdown pays 1 (no bet) or 2.
PAYOFFS = {"pp": lambda higher: 1 * higher, "bp": lambda higher: 1, "pbp": lambda higher: -1,
           "bb": lambda higher: 2 * higher, "pbb": lambda higher: 2 * higher}
INFO_SETS = tuple(itertools.product((None, JACK, QUEEN, KING), HISTORIES))
_INFO_INDEX = {info: i for i, info in enumerate(INFO_SETS)}


class KuhnPokerEnv(AbstractEnv):
    """Kuhn poker: a three-card deck (J < Q < K), two players, one card each, one betting round.

    Kuhn, *A simplified two-person poker*, Contributions to the Theory of Games I (1950). Both
    players have put an ante of 1. The chance player (``CHANCE_PLAYER``) deals a card to
    ``player_0`` and then one of the two left to ``player_1`` (``prob()`` gives the uniform
    distribution over the cards not yet dealt, zero on the dealt ones). Then the players pass
    (0) or bet (1) in turn: pass-pass and bet-bet go to a showdown (the higher card wins 1 and 2),
    bet-pass and pass-bet-pass are folds (the bettor wins 1). Rewards come at the end
    (``PAYOFFS``), zero-sum.

    The state of a player is its information set, its own card and the public history, as an
    index into ``INFO_SETS`` (``Discrete(36)``); ``information_set(player)`` gives the pair
    itself. ``action_space()`` is the current player's: ``Discrete(3)`` (cards) for chance,
    ``Discrete(2)`` for the players; only undealt cards are legal to deal (FULL_ACTION_SET).

    Deliberate difference from RL.jl: RL.jl declares ``MINIMAL_ACTION_SET`` yet gives the chance
    player a ``legal_action_space`` (the undealt cards) smaller than its action space. In this
    interface a MINIMAL_ACTION_SET env's legal actions are its whole action space, so a policy
    (``RandomPolicy``, a CFR learner) could deal a card twice; FULL_ACTION_SET states what the
    game is. For the two players every action is always legal, so nothing changes for them.

    Keyword arguments: ``rng``/``seed`` (kept for a uniform interface; chance acts through its
    own actions, e.g. sampled by :class:`rlenvs.StochasticEnv`).

    Example::

        >>> env = KuhnPokerEnv()
        >>> env.reset(); env(KING); env(JACK); env(BET); env(PASS)
        >>> env.reward("player_0"), env.reward("player_1")
        (1.0, -1.0)
    """

    NumAgentStyle = MultiAgent(2)
    DynamicStyle = SEQUENTIAL
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = EXPLICIT_STOCHASTIC
    RewardStyle = TERMINAL_REWARD
    UtilityStyle = ZERO_SUM
    ActionStyle = FULL_ACTION_SET
    StateStyle = (INFORMATION_SET,)

    def __init__(self, *, rng=None, seed=None):
        self.rng = make_rng(rng, seed)
        self._card_space = spaces.Discrete(3)
        self._bet_space = spaces.Discrete(2)
        self._state_space = spaces.Discrete(len(INFO_SETS))
        self.cards = []
        self.history = ""

    def reset(self):
        self.cards = []
        self.history = ""

    def players(self):
        return PLAYERS

    def current_player(self):
        if len(self.cards) < 2:
            return CHANCE_PLAYER
        return PLAYERS[len(self.history) % 2]


    def action_space(self, player=None):
        player = player_or_current(self, player)
        return self._card_space if player is CHANCE_PLAYER else self._bet_space

    def legal_action_space(self, player=None):
        player = player_or_current(self, player)
        if self.is_terminated():
            return []
        if player is CHANCE_PLAYER:
            return [c for c in range(3) if c not in self.cards]
        return [PASS, BET]

    def legal_action_space_mask(self, player=None):
        player = player_or_current(self, player)
        mask = np.zeros(self.action_space(player).n, dtype=bool)
        mask[self.legal_action_space(player)] = True
        return mask

    def prob(self, player=None):
        """The chance player's distribution over the three cards (zero for dealt cards)."""
        p = np.array([0.0 if c in self.cards else 1.0 for c in range(3)])
        return p / p.sum()

    def __call__(self, action):
        if self.is_terminated():
            raise RuntimeError(f"{self!r}: the hand is over; call reset() before acting")
        self.check_action(action)
        if self.current_player() is CHANCE_PLAYER:
            self.cards.append(int(action))
        else:
            self.history += "pb"[int(action)]

    def information_set(self, player):
        """``(card, history)`` as ``player`` sees it (``card`` is None before the deal)."""
        player = player_or_current(self, player)
        index = -1 if player is CHANCE_PLAYER else PLAYERS.index(player)
        card = self.cards[index] if 0 <= index < len(self.cards) else None
        return card, self.history

    def state(self, player=None):
        return _INFO_INDEX[self.information_set(player)]

    def state_space(self, player=None):
        return self._state_space

    def reward(self, player=None):
        player = player_or_current(self, player)
        if not self.is_terminated() or player is CHANCE_PLAYER:
            return 0.0
        higher = 1 if self.cards[0] > self.cards[1] else -1
        payoff = float(PAYOFFS[self.history](higher))
        return payoff if player == PLAYERS[0] else -payoff

    def is_terminated(self):
        return self.history in TERMINAL

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"KuhnPokerEnv renders only mode='text', got mode={mode!r}")
        cards = " ".join(f"{p}:{CARD_NAMES[c]}" for p, c in zip(PLAYERS, self.cards))
        return f"cards {cards or '(not dealt)'}; history '{self.history}'"

    def __repr__(self):
        return "KuhnPokerEnv()"

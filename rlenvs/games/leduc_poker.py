"""Leduc hold'em with an explicit chance player, after OpenSpiel's ``leduc_poker``."""

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

__all__ = ["LeducPokerEnv", "INFO_SETS", "ROUND_HISTORIES", "hand_strength"]

FOLD, CALL, RAISE = 0, 1, 2
MOVES = "fcr"  # a betting history spells the actions: f fold, c call (or check), r raise
N_CARDS = 6
# Card c has rank c // 2 (0 jack, 1 queen, 2 king) and suit c % 2 (spades, hearts), as OpenSpiel.
CARD_NAMES = ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")
ANTE = 1
RAISE_SIZES = (2, 4)  # the raise of the first and of the second betting round
MAX_RAISES = 2        # per round
PLAYERS = ("player_0", "player_1")
INFORMATION_STATE_TENSOR_SIZE = 2 + 2 * N_CARDS + 2 * 4 * 2


def hand_strength(card, public_card):
    """The showdown strength of ``card`` with ``public_card``: a pair (same rank) beats every
    other hand, else the higher rank wins (``3 + rank`` for a pair, ``rank`` otherwise)."""
    rank = card // 2
    return 3 + rank if rank == public_card // 2 else rank


def _round_over(history):
    """Whether a round's betting is over: a fold, two checks, or a call of a raise."""
    return history.endswith("f") or history == "cc" or (history.endswith("c") and "r" in history)


def _legal_bets(history):
    """The actions legal after the betting ``history`` of the current round: fold only when
    facing a raise, call (check) always, raise while the round has had fewer than two."""
    if _round_over(history):
        return []
    bets = [FOLD] if history.endswith("r") else []
    bets.append(CALL)
    if history.count("r") < MAX_RAISES:
        bets.append(RAISE)
    return bets


def _round_histories(history=""):
    yield history
    for action in _legal_bets(history):
        yield from _round_histories(history + MOVES[action])


# The 15 betting sequences of one round, every prefix included: 6 where a player is to act,
# 4 that end in a fold and 5 that end in a call and go on (to round 2, or to the showdown).
ROUND_HISTORIES = tuple(_round_histories())
_CALLED = tuple(h for h in ROUND_HISTORIES if _round_over(h) and not h.endswith("f"))
# Every information state ``(card, public_card, round_1, round_2)`` (``None`` for a card not yet
# dealt, or for the chance player's own card: it sees the public information only).
INFO_SETS = tuple(
    info
    for card in (None, *range(N_CARDS))
    for info in (
        *((card, None, h1, "") for h1 in ROUND_HISTORIES),
        *((card, public, h1, h2) for h1 in _CALLED for public in range(N_CARDS)
          if public != card for h2 in ROUND_HISTORIES),
    )
)
_INFO_INDEX = {info: i for i, info in enumerate(INFO_SETS)}


class LeducPokerEnv(AbstractEnv):
    """Leduc hold'em: a six-card deck (J, Q, K in two suits), two players, one private card
    each, two betting rounds around one public card.

    Southey et al., *Bayes' Bluff: Opponent Modelling in Poker*, UAI 2005
    (https://arxiv.org/abs/1207.1411); the rules and the numbering are OpenSpiel's
    ``leduc_poker``. Both players ante 1. The chance player (``CHANCE_PLAYER``) deals a card
    to ``player_0``, then one to ``player_1``; card ``c`` is ``CARD_NAMES[c]``, rank ``c // 2``
    (``prob()``: uniform over the cards not yet dealt, zero on the dealt ones). In each betting
    round ``player_0`` acts first; the actions are 0 fold, 1 call (a check when not facing a
    raise), 2 raise (match the stake, then raise it by 2 in the first round and 4 in the
    second). Fold is legal only when facing a raise (as OpenSpiel); a round has at most two
    raises; it ends with two checks or a call of a raise. After the first round chance deals
    the public card. A fold ends the hand: the other player wins the folder's stake. At the
    showdown a private card that pairs the public card wins, otherwise the higher rank;
    equal ranks split the pot (0 each). Rewards come at the end, zero-sum, in chips won.

    The state of a player is its information state, ``(card, public_card, round_1, round_2)``
    (cards as numbers, ``None`` when not dealt; the betting of each round as a string of
    ``"f"``, ``"c"``, ``"r"``), as an index into ``INFO_SETS`` (``Discrete(2805)``);
    ``information_set(player)`` gives the tuple itself, and ``information_state_tensor(player)``
    OpenSpiel's 30-float encoding of it (for neural networks). The player to act is known from
    the betting, so the key needs no player. ``action_space()`` is the current player's:
    ``Discrete(6)`` (cards) for chance, ``Discrete(3)`` for the players; only undealt cards are
    legal to deal and only the bets above to bet (FULL_ACTION_SET). The game tree has 9,457
    histories and 936 information sets where a player acts (468 each).

    Keyword arguments: ``rng``/``seed`` (kept for a uniform interface; chance acts through its
    own actions, e.g. sampled by :class:`rlenvs.StochasticEnv`).

    Example, player_0 holds a king and player_1 a queen; player_0 raises and player_1 calls
    (stakes 3 each), the public card is a queen, so player_1's pair wins after check, check::

        >>> env = LeducPokerEnv()
        >>> env.reset(); env(4); env(2); env(RAISE); env(CALL); env(3); env(CALL); env(CALL)
        >>> env.reward("player_0"), env.reward("player_1")
        (-3.0, 3.0)
        >>> env.render()
        "cards player_0:Ks player_1:Qs public:Qh; betting 'rc' 'cc'; stakes 3 3"
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
        self._card_space = spaces.Discrete(N_CARDS)
        self._bet_space = spaces.Discrete(3)
        self._state_space = spaces.Discrete(len(INFO_SETS))
        self.reset()

    def reset(self):
        self.cards = []               # player_0's, player_1's, then the public card
        self.histories = ["", ""]     # the betting of each round
        self.stakes = [ANTE, ANTE]    # what each player has put in the pot

    @property
    def round(self):
        """The betting round, 0 or 1 (1 once the public card is dealt)."""
        return 1 if len(self.cards) == 3 else 0

    def players(self):
        return PLAYERS

    def current_player(self):
        history = self.histories[self.round]
        if len(self.cards) < 2 or (_round_over(history) and not self.is_terminated()):
            return CHANCE_PLAYER
        return PLAYERS[len(history) % 2]

    def action_space(self, player=None):
        player = player_or_current(self, player)
        return self._card_space if player is CHANCE_PLAYER else self._bet_space

    def legal_action_space(self, player=None):
        """Chance: the undealt cards at a chance node. A player: the bets legal now (the same
        for both; none at chance nodes or at the end)."""
        player = player_or_current(self, player)
        mover = self.current_player()
        if self.is_terminated() or (player is CHANCE_PLAYER) != (mover is CHANCE_PLAYER):
            return []
        if player is CHANCE_PLAYER:
            return [c for c in range(N_CARDS) if c not in self.cards]
        return _legal_bets(self.histories[self.round])

    def legal_action_space_mask(self, player=None):
        player = player_or_current(self, player)
        mask = np.zeros(self.action_space(player).n, dtype=bool)
        mask[self.legal_action_space(player)] = True
        return mask

    def prob(self, player=None):
        """The chance player's distribution over the six cards (zero for dealt cards)."""
        p = np.array([0.0 if c in self.cards else 1.0 for c in range(N_CARDS)])
        return p / p.sum()

    def __call__(self, action):
        if self.is_terminated():
            raise RuntimeError(f"{self!r}: the hand is over; call reset() before acting")
        self.check_action(action)
        action = int(action)
        mover = self.current_player()
        if mover is CHANCE_PLAYER:
            self.cards.append(action)
            return
        r, i = self.round, PLAYERS.index(mover)
        if action == CALL:
            self.stakes[i] = max(self.stakes)
        elif action == RAISE:
            self.stakes[i] = max(self.stakes) + RAISE_SIZES[r]
        self.histories[r] += MOVES[action]

    def information_set(self, player=None):
        """``(card, public_card, round_1, round_2)`` as ``player`` sees it (``None`` for a card
        not yet dealt; the chance player has no card)."""
        player = player_or_current(self, player)
        index = -1 if player is CHANCE_PLAYER else PLAYERS.index(player)
        card = self.cards[index] if 0 <= index < len(self.cards) else None
        public = self.cards[2] if len(self.cards) == 3 else None
        return card, public, self.histories[0], self.histories[1]

    def state(self, player=None):
        return _INFO_INDEX[self.information_set(player)]

    def state_space(self, player=None):
        return self._state_space

    def information_state_tensor(self, player=None):
        """OpenSpiel's information-state tensor of ``player`` (float32, 30): the player one-hot
        (2), its card one-hot (6), the public card one-hot (6), then for each round four
        actions of two bits (call ``10``, raise ``01``; a fold ends the hand and sets none)."""
        player = player_or_current(self, player)
        if player is CHANCE_PLAYER:
            raise ValueError("the chance player has no information-state tensor")
        card, public, *histories = self.information_set(player)
        x = np.zeros(INFORMATION_STATE_TENSOR_SIZE, dtype=np.float32)
        x[PLAYERS.index(player)] = 1.0
        if card is not None:
            x[2 + card] = 1.0
        if public is not None:
            x[2 + N_CARDS + public] = 1.0
        for r, history in enumerate(histories):
            for k, move in enumerate(history):
                if move != "f":
                    x[2 + 2 * N_CARDS + 8 * r + 2 * k + (move == "r")] = 1.0
        return x

    def reward(self, player=None):
        player = player_or_current(self, player)
        if not self.is_terminated() or player is CHANCE_PLAYER:
            return 0.0
        i = PLAYERS.index(player)
        for history in self.histories:
            if history.endswith("f"):
                folder = (len(history) - 1) % 2
                return float(-self.stakes[i] if i == folder else self.stakes[1 - i])
        mine = hand_strength(self.cards[i], self.cards[2])
        theirs = hand_strength(self.cards[1 - i], self.cards[2])
        return float(np.sign(mine - theirs) * self.stakes[1 - i])

    def is_terminated(self):
        first, second = self.histories
        return first.endswith("f") or (len(self.cards) == 3 and _round_over(second))

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"LeducPokerEnv renders only mode='text', got mode={mode!r}")
        names = [*PLAYERS, "public"]
        cards = " ".join(f"{p}:{CARD_NAMES[c]}" for p, c in zip(names, self.cards))
        betting = " ".join(repr(h) for h in self.histories[:self.round + 1])
        return (f"cards {cards or '(not dealt)'}; betting {betting}; "
                f"stakes {self.stakes[0]} {self.stakes[1]}")

    def __repr__(self):
        return "LeducPokerEnv()"

"""Blackjack with the book's rules."""

import numpy as np
import pytest

from rlcore import test_interfaces, test_runnable
from rlenvs.blackjack import HIT, STICK, TERMINAL_STATE, BlackjackEnv


@pytest.mark.parametrize("kwargs", [{}, {"exploring_starts": True},
                                    {"initial_state": (13, 2, True)}])
def test_interface_checks(kwargs):
    test_interfaces(BlackjackEnv(seed=0, **kwargs))
    test_runnable(BlackjackEnv(seed=0, **kwargs), n_steps=2000, seed=0)


def test_encode_decode_round_trip():
    for s in range(200):
        assert BlackjackEnv.encode(*BlackjackEnv.decode(s)) == s
    with pytest.raises(ValueError, match="200"):
        BlackjackEnv.decode(200)


def test_deals_start_at_twelve_or_more():
    env = BlackjackEnv(seed=0)
    for _ in range(500):
        env.reset()
        total, showing, usable = env.decode(env.state())
        assert 12 <= total <= 21 and 1 <= showing <= 10
        assert env.dealer_sum >= 2


def test_sticking_on_20_against_the_dealer():
    rng = np.random.default_rng(0)
    env = BlackjackEnv(initial_state=(20, 10, False), rng=rng)
    returns = []
    for _ in range(4000):
        env.reset()
        env(STICK)
        assert env.state() == TERMINAL_STATE
        returns.append(env.reward())
    # Sticking on 20 against a 10 wins about 0.44 on average (exact: ≈ 0.4377 for an infinite
    # deck); the std of a return is ≤ 1, so the mean of 4,000 is within 0.06 at 3.8σ.
    assert np.mean(returns) == pytest.approx(0.44, abs=0.06)


def test_hitting_busts():
    env = BlackjackEnv(initial_state=(21, 5, False), seed=0)
    env.reset()
    env(HIT)  # any card busts 21 without a usable ace
    assert env.is_terminated() and env.reward() == -1.0
    with pytest.raises(RuntimeError, match="reset"):
        env(HIT)


class ScriptedBlackjack(BlackjackEnv):
    """Blackjack dealing from a fixed list of cards (1 = ace, 10 = ten or face card)."""

    def __init__(self, cards, **kwargs):
        self.deck = list(cards)
        super().__init__(seed=0, **kwargs)

    def _card(self):
        return self.deck.pop(0)


# Deal order: the player's two cards (and more while below 12), the dealer's showing card, the
# dealer's hidden card, then the dealer's draws after the player sticks.

def test_natural_against_natural_draws_at_once():
    env = ScriptedBlackjack([1, 10, 1, 10])
    assert env.decode(env.state()) == (21, 1, True) and env.natural and env.dealer_natural
    env(HIT)  # a natural is settled on the first step whatever the action
    assert env.is_terminated() and env.reward() == 0.0 and env.deck == []


def test_natural_wins_at_once():
    env = ScriptedBlackjack([10, 1, 9, 10])
    env(HIT)
    assert env.is_terminated() and env.reward() == 1.0


def test_three_card_21_draws_against_dealer_natural():
    # player 10 + 2 = 12, hits a 9 → 21 (not a natural); dealer 1 + 10 is a natural.
    env = ScriptedBlackjack([10, 2, 1, 10, 9])
    assert env.dealer_natural and not env.natural
    env(HIT)
    assert env.decode(env.state()) == (21, 1, False)
    env(STICK)
    assert env.is_terminated() and env.reward() == 0.0  # "closer to 21" decides: equal


def test_dealer_sticks_on_soft_17():
    # player 10 + 8 = 18; dealer ace + 6 = soft 17: sticks (book: "any sum of 17 or greater").
    env = ScriptedBlackjack([10, 8, 1, 6])
    env(STICK)
    assert env.dealer_final == 17 and env.reward() == 1.0 and env.deck == []


def test_dealer_hits_16_and_busts():
    env = ScriptedBlackjack([10, 8, 10, 6, 10])
    env(STICK)
    assert env.dealer_final == 26 and env.reward() == 1.0


def test_dealer_wins_closer_to_21():
    env = ScriptedBlackjack([10, 7, 10, 9])
    env(STICK)
    assert env.dealer_final == 19 and env.reward() == -1.0


def test_usable_ace_arithmetic():
    # ace + 2 = soft 13; +5 = soft 18; +10 would be 28 → the ace counts 1: hard 18; +4 = 22 bust.
    env = ScriptedBlackjack([1, 2, 5, 9, 5, 10, 4])
    assert env.decode(env.state()) == (13, 5, True)
    env(HIT)
    assert env.decode(env.state()) == (18, 5, True)
    env(HIT)
    assert env.decode(env.state()) == (18, 5, False)
    env(HIT)
    assert env.is_terminated() and env.reward() == -1.0


def test_low_hands_are_dealt_up_to_twelve():
    # 2 + 3 = 5 < 12: dealt 4 → 9, ace → 20 soft (11 + 9).
    env = ScriptedBlackjack([2, 3, 4, 1, 7, 10])
    assert env.decode(env.state()) == (20, 7, True) and not env.natural


def test_bad_initial_state_is_a_clear_error():
    with pytest.raises(ValueError, match="not both"):
        BlackjackEnv(initial_state=(13, 2, True), exploring_starts=True)
    for bad in [(13, 2), 13, (22, 2, True), (13, 0, True), (13, 2, "yes"), (13.5, 2, True),
                ("13", 2, True)]:
        with pytest.raises(ValueError, match="initial_state must be a tuple"):
            BlackjackEnv(initial_state=bad)

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

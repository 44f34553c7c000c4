"""The tabular model interface: ``model_arrays`` builds P, R, legal and terminal correctly."""

import numpy as np
import pytest

from rlcore.envs.tabular_model import AbstractTabularModel, model_arrays


class Coin(AbstractTabularModel):
    """State 0: action 0 flips a fair coin (heads: state 1 with +1, tails: stay with −1);
    action 1 is illegal in state 0. State 1 is terminal."""

    n_states, n_actions = 2, 2

    def transitions(self, s, a):
        return [(0.5, 1, 1.0), (0.5, 0, -1.0)]

    def legal_actions(self, s):
        return [0]

    def is_terminal_state(self, s):
        return s == 1


def test_model_arrays():
    m = model_arrays(Coin())
    np.testing.assert_allclose(m.P[0, 0], [0.5, 0.5])
    assert m.R[0, 0] == 0.0  # 0.5 · 1 + 0.5 · (−1)
    assert m.legal.tolist() == [[True, False], [False, False]]
    assert m.terminal.tolist() == [False, True]
    assert not m.P[1].any() and not m.P[0, 1].any()


def test_model_arrays_validates():
    class Bad(Coin):
        def transitions(self, s, a):
            return [(0.7, 1, 0.0)]

    with pytest.raises(ValueError, match="sum to"):
        model_arrays(Bad())

    class Outside(Coin):
        def transitions(self, s, a):
            return [(1.0, 5, 0.0)]

    with pytest.raises(ValueError, match="next state 5"):
        model_arrays(Outside())
    with pytest.raises(TypeError, match="AbstractTabularModel"):
        model_arrays(object())

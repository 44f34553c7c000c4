"""Tests of rlenvs/games/tic_tac_toe.py."""

import numpy as np
import pytest

from rlcore.envs import FULL_ACTION_SET, PERFECT_INFORMATION, ZERO_SUM, test_interfaces
from rlenvs import TicTacToeEnv
from rlenvs.games.tic_tac_toe import LINES, winner

X, O, _ = 1, 2, 0  # noqa: E741 (the marks of the game)


@pytest.mark.parametrize("board, expected", [
    ([[X, X, X], [O, O, _], [_, _, _]], "cross"),
    ([[O, X, X], [O, X, _], [O, _, _]], "nought"),
    ([[X, O, O], [_, X, O], [_, _, X]], "cross"),
    ([[X, X, O], [X, O, _], [O, _, _]], "nought"),
    ([[X, O, X], [X, O, O], [O, X, X]], None),  # a full board without a line: draw
    ([[_, _, _], [_, _, _], [_, _, _]], None),
    ([[X, X, _], [O, O, _], [_, _, _]], None),
])
def test_winner_on_hand_built_boards(board, expected):
    assert winner(board) == expected


def test_every_line_wins_for_both_players():
    for line in LINES:
        for mark, name in ((X, "cross"), (O, "nought")):
            board = np.zeros(9, dtype=np.int8)
            board[list(line)] = mark
            assert winner(board) == name
    assert len(LINES) == 8


def play(cells):
    env = TicTacToeEnv()
    env.reset()
    for cell in cells:
        env(cell)
    return env


def test_win_loss_and_turns():
    env = play([4, 0, 2, 1])
    assert not env.is_terminated() and env.current_player() == "cross"
    assert env.reward("cross") == env.reward("nought") == 0.0
    env(6)  # cross completes the diagonal 2-4-6
    assert env.is_terminated() and env.reward("cross") == 1.0 and env.reward("nought") == -1.0
    nought_wins = play([0, 4, 1, 2, 8, 6])
    assert nought_wins.is_terminated() and nought_wins.reward("nought") == 1.0
    assert nought_wins.reward("cross") == -1.0
    assert nought_wins.legal_action_space() == []


def test_draw_gives_zero_and_ends_the_game():
    env = play([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert winner(env.board) is None and env.is_terminated()
    assert env.reward("cross") == env.reward("nought") == 0.0
    with pytest.raises(RuntimeError, match="reset"):
        env(0)


def test_occupied_cells_are_illegal_and_state_is_one_hot():
    env = play([4])
    assert env.ActionStyle is FULL_ACTION_SET and env.InformationStyle is PERFECT_INFORMATION
    assert env.UtilityStyle is ZERO_SUM
    assert env.legal_action_space_mask().tolist() == [i != 4 for i in range(9)]
    with pytest.raises(ValueError, match="legal"):
        env(4)
    state = env.state("nought")
    assert state.shape == (3, 3, 3) and state.sum() == 9 and state[1, 1, 1] == 1
    assert state[0].sum() == 8 and env.current_player() == "nought"
    assert env.render() == ". . .\n. x .\n. . ."
    assert env.render("rgb_array").shape == (48, 48, 3)


def test_passes_interface_checks():
    test_interfaces(TicTacToeEnv(), n_episodes=10)

"""Tests of rlzoo/multi_agent/minimax.py and the Minimax_TicTacToe experiment."""

import copy

import numpy as np
import pytest

from rlcore import MultiAgentHook, MultiAgentPolicy, RandomPolicy, StopAfterEpisode, \
    TotalRewardPerEpisode, run
from rlcore.envs import GENERAL_SUM
from rlenvs import KuhnPokerEnv, PigEnv, RandomWalk1D, RockPaperScissorsEnv, TicTacToeEnv
from rlenvs.games.leduc_poker import LeducPokerEnv
from rlenvs.games.tic_tac_toe import LINES
from rlzoo.experiments.minimax import Minimax_TicTacToe, outcomes
from rlzoo.multi_agent.minimax import MinimaxPolicy

PLAYERS = ("cross", "nought")


@pytest.fixture(scope="module")
def solved():
    """One full-depth MinimaxPolicy shared by the tests of this module: its transposition
    table, filled by the first search from the empty board, serves the later ones."""
    return MinimaxPolicy(seed=0)


def board(cells_x, cells_o):
    """A tic-tac-toe position with cross on ``cells_x`` and nought on ``cells_o``, reached by
    alternate moves (cross first)."""
    env = TicTacToeEnv()
    env.reset()
    for i in range(max(len(cells_x), len(cells_o))):
        for cells in (cells_x, cells_o):
            if i < len(cells):
                env(cells[i])
    return env


def plain_minimax(env):
    """The value for the player to move, by plain recursion over every move (no pruning,
    no table): the reference the alpha-beta search must agree with."""
    if env.is_terminated():
        return 0.0
    player = env.current_player()
    values = []
    for action in env.legal_action_space():
        child = copy.deepcopy(env)
        child(action)
        values.append(child.reward(player) if child.is_terminated() else -plain_minimax(child))
    return max(values)


def test_self_play_from_the_empty_board_is_a_draw(solved):
    env = TicTacToeEnv()
    env.reset()
    # tic-tac-toe is a draw, and so is every opening move under best play
    assert solved.value(env) == 0.0
    assert solved.action_values(env).tolist() == [0.0] * 9
    assert sorted(solved.best_actions(env)) == list(range(9))
    policy = MultiAgentPolicy({"cross": solved, "nought": solved})
    hook = run(policy, env, StopAfterEpisode(10),
               MultiAgentHook({p: TotalRewardPerEpisode() for p in PLAYERS}))
    assert hook["cross"].rewards == hook["nought"].rewards == [0.0] * 10


@pytest.mark.parametrize("moves", [3, 4, 5])
def test_alpha_beta_and_the_table_agree_with_plain_minimax(moves):
    rng = np.random.default_rng(moves)
    with_table, without = MinimaxPolicy(seed=0), MinimaxPolicy(transposition_table=False, seed=0)
    for _ in range(8):
        env = TicTacToeEnv()
        env.reset()
        for _ in range(moves):
            env(int(rng.choice(env.legal_action_space())))
        if env.is_terminated():
            continue
        expected = plain_minimax(env)
        assert with_table.value(env) == without.value(env) == expected
        values = with_table.action_values(env)
        assert values.max() == expected
        assert set(with_table.best_actions(env)) == set(np.flatnonzero(values == expected))
        assert np.all(np.isinf(values[~env.legal_action_space_mask()]))


def test_the_table_saves_work():
    env = TicTacToeEnv()
    env.reset()
    env(4)
    with_table, without = MinimaxPolicy(), MinimaxPolicy(transposition_table=False)
    assert with_table.value(env) == without.value(env) == 0.0
    # the 8! orders of the moves lead to far fewer distinct positions
    assert with_table.nodes_searched < without.nodes_searched / 2
    with_table.value(env)
    assert with_table.nodes_searched == 0  # the value is in the table now


@pytest.mark.parametrize("minimax_player", PLAYERS)
def test_never_loses_to_a_random_player_and_wins_most_games(solved, minimax_player):
    # Measured (200 games, minimax draws ties with seed s, the random player seed 100 + s),
    # s = 0: as cross (moves first) 196 wins, 4 draws; as nought 153 wins, 47 draws.
    # s = 0..4: 192-196 wins as cross, 145-164 as nought, no losses.
    solved.rng = np.random.default_rng(0)  # the table only saves time; the rng picks the ties
    other = PLAYERS[1 - PLAYERS.index(minimax_player)]
    policy = MultiAgentPolicy({minimax_player: solved, other: RandomPolicy(seed=100)})
    hook = run(policy, TicTacToeEnv(), StopAfterEpisode(200),
               MultiAgentHook({p: TotalRewardPerEpisode() for p in PLAYERS}))
    wins, draws, losses = outcomes(hook, minimax_player)
    assert wins + draws + losses == 200 and losses == 0
    assert wins >= (180 if minimax_player == "cross" else 130)
    assert hook[other].rewards == [-r for r in hook[minimax_player].rewards]


def test_depth_one_takes_the_immediate_win():
    env = board([0, 1], [3, 4])  # x x . / o o . / . . . , cross to move; nought threatens 5
    policy = MinimaxPolicy(depth=1, seed=0)
    # the win at 2 is worth 1; the other moves reach the cut-off, scored 0 by default
    assert policy.action_values(env).tolist() == [-np.inf, -np.inf, 1, -np.inf, -np.inf,
                                                  0, 0, 0, 0]
    assert policy.best_actions(env) == [2] and policy(env) == 2


def threats(env, player):
    """An evaluation: 1 if ``player`` (to move) can complete a line now, else 0."""
    cells = env.board.ravel()
    mark = 1 + PLAYERS.index(player)
    return float(any(sorted(cells[list(line)]) == sorted([0, mark, mark]) for line in LINES))


def test_depth_one_blocks_with_an_evaluation_function():
    env = board([0, 1], [4])  # x x . / . o . / . . . , nought to move must block at 2
    calls = []

    def evaluate(env, player):
        calls.append(player)
        return threats(env, player)

    blocker = MinimaxPolicy(depth=1, evaluate=evaluate, seed=0)
    # after any move but 2, cross (to move at the cut-off) has a win: worth -1 to nought
    assert blocker.action_values(env).tolist() == [-np.inf, -np.inf, 0, -1, -np.inf, -1, -1,
                                                   -1, -1]
    assert blocker(env) == 2
    assert calls and set(calls) == {"cross"}  # scored for the player to move at the cut-off
    # without the evaluation, depth 1 sees no difference between the moves; depth 2 does
    assert sorted(MinimaxPolicy(depth=1).best_actions(env)) == [2, 3, 5, 6, 7, 8]
    assert MinimaxPolicy(depth=2).best_actions(env) == [2]


def test_ties_are_broken_at_random_with_its_own_seed():
    env = TicTacToeEnv()
    env.reset()
    first = [MinimaxPolicy(depth=1, seed=s)(env) for s in range(20)]
    assert len(set(first)) > 3  # all nine openings score 0 at depth 1
    assert first == [MinimaxPolicy(depth=1, seed=s)(env) for s in range(20)]
    probs = MinimaxPolicy(depth=1).action_probabilities(env)
    assert probs.tolist() == [1 / 9] * 9


@pytest.mark.parametrize("env, trait", [
    (RockPaperScissorsEnv(), "DynamicStyle is SIMULTANEOUS"),
    (KuhnPokerEnv(), "InformationStyle is IMPERFECT_INFORMATION"),
    (LeducPokerEnv(), "InformationStyle is IMPERFECT_INFORMATION"),
    (PigEnv(), "ChanceStyle is EXPLICIT_STOCHASTIC"),
    (RandomWalk1D(), "NumAgentStyle is SINGLE_AGENT"),
    (type("GeneralSumTicTacToe", (TicTacToeEnv,), {"UtilityStyle": GENERAL_SUM})(),
     "UtilityStyle is GENERAL_SUM"),
])
def test_games_it_cannot_play_are_refused_naming_the_trait(env, trait):
    env.reset()
    with pytest.raises(ValueError, match=trait):
        MinimaxPolicy()(env)


def test_bad_arguments():
    for depth in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="depth"):
            MinimaxPolicy(depth=depth)
    with pytest.raises(ValueError, match="depth"):
        MinimaxPolicy(evaluate=threats)  # never called without a depth limit
    with pytest.raises(TypeError, match="evaluate"):
        MinimaxPolicy(depth=2, evaluate=0.5)
    env = board([0, 1, 2], [3, 4])  # cross has won
    with pytest.raises(ValueError, match="no legal move"):
        MinimaxPolicy()(env)
    with pytest.raises(ValueError, match="player to move"):
        MinimaxPolicy().action_probabilities(board([0], []), "cross")


def test_minimax_tictactoe_experiment():
    experiment = Minimax_TicTacToe(0, games=10, minimax_player="nought", depth=2)
    assert "depth-2 minimax as nought" in experiment.description
    hook = run(experiment)
    wins, draws, losses = outcomes(hook, "nought")
    assert wins + draws + losses == 10 and len(hook["cross"].rewards) == 10
    with pytest.raises(ValueError, match="minimax_player"):
        Minimax_TicTacToe(0, minimax_player="x")
    with pytest.raises(ValueError, match="games"):
        Minimax_TicTacToe(0, games=0)

"""Tests of rlzoo/multi_agent/independent.py and the experiments of
rlzoo/experiments/independent.py (independent PPO and DQN learners on tic-tac-toe)."""

import numpy as np
import pytest

from rlcore import (
    AbstractPolicy, Agent, CircularArraySARTSTrajectory, CircularArraySLARTTrajectory,
    MultiAgentHook, PlayerView, RandomPolicy, StepsPerEpisode,
    StopAfterEpisode, StopAfterStep, TotalRewardPerEpisode, run,
)
from rlenvs import RockPaperScissorsEnv, TicTacToeEnv
from rlzoo.experiments.independent import (
    IndependentDQN_TicTacToe, IndependentPPO_TicTacToe, pettingzoo_tictactoe,
)
from rlzoo.multi_agent.independent import (
    EvaluateAgainstEveryNStep, Outcomes, independent_agents, play_against,
)


class Scripted(AbstractPolicy):
    """Plays the given moves in order."""

    def __init__(self, moves):
        self.moves = list(moves)

    def __call__(self, env):
        return self.moves.pop(0)


def one_hot(board):
    """Our TicTacToeEnv's state of a board written as three rows of x, o and '.'."""
    cells = np.array([".xo".index(c) for c in board.replace(" ", "")]).reshape(3, 3)
    return (np.arange(3)[:, None, None] == cells[None]).astype(np.int8)


def legal(*taken):
    mask = np.ones(9, dtype=bool)
    mask[list(taken)] = False
    return mask


# The hand-checked game: cross plays 0, 1, 2 (the top row) and wins on its third move; nought
# plays 3 and 4. Boards at each turn:
B0, B1, B2 = "... ... ...", "x.. ... ...", "x.. o.. ..."
B3, B4, B5 = "xx. o.. ...", "xx. oo. ...", "xxx oo. ..."
MOVES = {"cross": [0, 1, 2], "nought": [3, 4]}


def scripted_game(make_trajectory):
    env = TicTacToeEnv()
    agents = independent_agents(
        env, lambda view: Agent(Scripted(MOVES[view.player]), make_trajectory()))
    hook = run(agents, env, StopAfterEpisode(1),
               MultiAgentHook({p: TotalRewardPerEpisode() for p in env.players()}))
    return agents, hook


def test_each_player_records_its_own_transitions_in_the_sart_layout():
    """DQN's layout (a state/action row per own turn, rewards between): cross's transitions
    run B0 -> B2 -> B4 -> B5 (its turns), nought's B1 -> B3 -> B5; nought's last transition
    carries the -1 of cross's winning move, which came after nought's last action."""
    agents, hook = scripted_game(lambda: CircularArraySLARTTrajectory(
        10, state=((3, 3, 3), np.int8), legal_actions_mask=((9,), bool)))
    cross, nought = (agents[p].trajectory.traces for p in ("cross", "nought"))
    # cross: three own moves, then the final state and a dummy action (PostEpisode)
    assert np.array_equal(cross["state"][:], [one_hot(b) for b in (B0, B2, B4, B5)])
    assert cross["action"][:].tolist() == [0, 1, 2, 0]
    assert cross["reward"][:].tolist() == [0.0, 0.0, 1.0]
    assert cross["terminal"][:].tolist() == [False, False, True]
    assert np.array_equal(cross["legal_actions_mask"][:],
                          [legal(), legal(0, 3), legal(0, 1, 3, 4), legal()])  # all True at
    # the end: a terminal state has no legal actions to bootstrap from
    assert np.array_equal(nought["state"][:], [one_hot(b) for b in (B1, B3, B5)])
    assert nought["action"][:].tolist() == [3, 4, 0]
    assert nought["reward"][:].tolist() == [0.0, -1.0]
    assert nought["terminal"][:].tolist() == [False, True]
    assert np.array_equal(nought["legal_actions_mask"][:],
                          [legal(0), legal(0, 1, 3), legal()])
    # the per-player hooks see each player's own return
    assert hook["cross"].rewards == [1.0] and hook["nought"].rewards == [-1.0]


def test_each_player_records_its_own_transitions_in_the_sarts_layout():
    """PPO's layout (one row per transition with its next state): the same transitions."""
    agents, _ = scripted_game(lambda: CircularArraySARTSTrajectory(
        10, state=((3, 3, 3), np.int8), action=((), np.int64),
        legal_actions_mask=((9,), bool)))
    cross, nought = (agents[p].trajectory.traces for p in ("cross", "nought"))
    assert np.array_equal(cross["state"][:], [one_hot(b) for b in (B0, B2, B4)])
    assert np.array_equal(cross["next_state"][:], [one_hot(b) for b in (B2, B4, B5)])
    assert cross["action"][:].tolist() == [0, 1, 2]
    assert cross["reward"][:].tolist() == [0.0, 0.0, 1.0]
    assert cross["terminal"][:].tolist() == [False, False, True]
    assert np.array_equal(cross["legal_actions_mask"][:],
                          [legal(), legal(0, 3), legal(0, 1, 3, 4)])
    assert np.array_equal(nought["state"][:], [one_hot(b) for b in (B1, B3)])
    assert np.array_equal(nought["next_state"][:], [one_hot(b) for b in (B3, B5)])
    assert nought["reward"][:].tolist() == [0.0, -1.0]
    assert nought["terminal"][:].tolist() == [False, True]
    assert np.array_equal(nought["legal_actions_mask"][:], [legal(0), legal(0, 1, 3)])


def test_pettingzoo_masks_and_rewards_reach_each_players_trajectory():
    """The same moves on PettingZoo's tictactoe-v3 (player_1 takes cells 0, 1, 2: a line of
    PettingZoo's board too). Masks are PettingZoo's ``action_mask`` at the player's turns;
    states are the player's own view, flat: cell a's own mark at index 2a, the opponent's at
    2a + 1."""
    env = pettingzoo_tictactoe(seed=0)
    moves = {"player_1": [0, 1, 2], "player_2": [3, 4]}
    agents = independent_agents(env, lambda view: Agent(
        Scripted(moves[view.player]), CircularArraySARTSTrajectory(
            10, state=((18,), np.float32), action=((), np.int64),
            legal_actions_mask=((9,), bool))))
    run(agents, env, StopAfterEpisode(1))
    first, second = (agents[p].trajectory.traces for p in ("player_1", "player_2"))
    assert np.array_equal(first["legal_actions_mask"][:],
                          [legal(), legal(0, 3), legal(0, 1, 3, 4)])
    assert np.array_equal(second["legal_actions_mask"][:], [legal(0), legal(0, 1, 3)])
    assert first["reward"][:].tolist() == [0.0, 0.0, 1.0]
    assert second["reward"][:].tolist() == [0.0, -1.0]
    assert first["terminal"][:].tolist() == [False, False, True]
    assert second["terminal"][:].tolist() == [False, True]
    # player_1 at its second turn (after its 0 and player_2's 3): own mark at 0, the
    # opponent's at 2·3 + 1 = 7
    assert np.flatnonzero(first["state"][1]).tolist() == [0, 7]
    # player_2's view of the same board, one move later (player_1 took 1 too): own 3 -> 6,
    # opponent's 0, 1 -> 1, 3
    assert np.flatnonzero(second["state"][1]).tolist() == [1, 3, 6]


def test_a_run_cut_mid_game_closes_every_players_open_transition():
    """Stopped after 3 moves (cross 0, nought 3, cross 1): cross's second transition and
    nought's first are still open; the end of the run closes them, truncated (the learners
    bootstrap from their next states)."""
    env = TicTacToeEnv()
    agents = independent_agents(env, lambda view: Agent(
        Scripted(MOVES[view.player]), CircularArraySARTSTrajectory(
            10, state=((3, 3, 3), np.int8), action=((), np.int64))))
    run(agents, env, StopAfterStep(3))
    cross, nought = (agents[p].trajectory.traces for p in ("cross", "nought"))
    assert cross["truncated"][:].tolist() == [False, True]
    assert np.array_equal(cross["next_state"][-1], one_hot(B3))
    assert nought["truncated"][:].tolist() == [True]
    assert np.array_equal(nought["next_state"][-1], one_hot(B3))
    assert not cross["terminal"][:].any() and not nought["terminal"][:].any()


def test_each_learner_counts_only_its_own_moves(one_thread):
    """Cross makes ceil(n/2) of an n-move game's moves, nought floor(n/2): each DQN player's
    ε schedule and replay schedule, and each PPO player's rollouts, count their own moves."""
    experiment = IndependentDQN_TicTacToe(0, steps=10**6, batch_size=8, min_replay_history=10,
                                          eval_episodes=1)
    steps = StepsPerEpisode()
    run(experiment.policy, experiment.env, StopAfterEpisode(12), steps)
    own = {"cross": sum((n + 1) // 2 for n in steps.steps),
           "nought": sum(n // 2 for n in steps.steps)}
    for player, agent in experiment.policy.policies.items():
        assert agent.policy.explorer.step == own[player] + 1  # the explorer counts from 1
        assert agent.policy.learner.schedule.env_steps == own[player]

    experiment = IndependentPPO_TicTacToe(0, steps=10**6, n_steps=8, n_epochs=1,
                                          n_minibatches=1, eval_episodes=1)
    steps = StepsPerEpisode()
    run(experiment.policy, experiment.env, StopAfterEpisode(12), steps)
    own = {"player_1": sum((n + 1) // 2 for n in steps.steps),
           "player_2": sum(n // 2 for n in steps.steps)}
    for player, agent in experiment.policy.policies.items():
        rollouts = agent.policy.learner.schedule.rollouts
        assert rollouts == own[player] // 8 > 0
        assert rollouts * 8 + len(agent.trajectory) == own[player]


def test_independent_agents_keeps_fixed_players_and_checks_its_arguments():
    env = TicTacToeEnv()
    opponent = RandomPolicy(seed=0)
    seen = []

    def make_agent(view):
        seen.append(view)
        return RandomPolicy(seed=1)

    policy = independent_agents(env, make_agent, fixed={"nought": opponent})
    assert policy["nought"] is opponent
    assert [v.player for v in seen] == ["cross"] and isinstance(seen[0], PlayerView)
    with pytest.raises(TypeError, match="make_agent must be callable"):
        independent_agents(env, None)
    with pytest.raises(ValueError, match=r"fixed names players \['circle'\]"):
        independent_agents(env, make_agent, fixed={"circle": opponent})
    with pytest.raises(TypeError, match="make_agent gave 3 for player 'cross'"):
        independent_agents(env, lambda view: 3)


def test_outcomes_classify_returns():
    outcomes = Outcomes.of_returns([1.0, 0.0, -1.0, 1.0])
    assert (outcomes.wins, outcomes.draws, outcomes.losses, outcomes.n) == (2, 1, 1, 4)
    assert (outcomes.win_rate, outcomes.draw_rate, outcomes.loss_rate) == (0.5, 0.25, 0.25)
    assert str(outcomes) == "win 50% draw 25% loss 25% of 4"


def test_play_against_neither_records_nor_learns():
    """An Agent plays through its inner policy: its trajectory is untouched. A player who
    always takes the first legal cell, as cross, against one who always takes the last:
    cross takes 0, 1, 2 while nought takes 8, 7; cross wins every game."""
    class First(AbstractPolicy):
        def __call__(self, env):
            return int(np.flatnonzero(env.legal_action_space_mask())[0])

    class Last(AbstractPolicy):
        def __call__(self, env):
            return int(np.flatnonzero(env.legal_action_space_mask())[-1])

    trajectory = CircularArraySLARTTrajectory(10, state=((3, 3, 3), np.int8),
                                              legal_actions_mask=((9,), bool))
    outcomes = play_against(TicTacToeEnv(), "cross", Agent(First(), trajectory), Last(),
                            n_episodes=3)
    assert (outcomes.wins, outcomes.draws, outcomes.losses) == (3, 0, 0)
    assert len(trajectory) == 0
    assert play_against(TicTacToeEnv(), "nought", Last(), First(), n_episodes=2).losses == 2
    with pytest.raises(ValueError, match="player 'circle' is not one of"):
        play_against(TicTacToeEnv(), "circle", First(), Last())
    with pytest.raises(ValueError, match="n_episodes must be a positive int, got 0"):
        play_against(TicTacToeEnv(), "cross", First(), Last(), n_episodes=0)


def test_evaluation_hook_evaluates_the_learners_before_and_during_training(capsys):
    env = TicTacToeEnv()
    agent = Agent(RandomPolicy(seed=0), CircularArraySLARTTrajectory(
        100, state=((3, 3, 3), np.int8), legal_actions_mask=((9,), bool)))
    policy = independent_agents(env, lambda view: agent, fixed={"nought": RandomPolicy(seed=1)})
    hook = run(policy, env, StopAfterStep(20),
               EvaluateAgainstEveryNStep(TicTacToeEnv(), n=8, n_episodes=4, verbose=True,
                                         seed=0))
    assert hook.steps == [0, 8, 16]
    assert list(hook.outcomes) == ["cross"]  # only the Agent is evaluated by default
    assert [o.n for o in hook.outcomes["cross"]] == [4, 4, 4]
    assert capsys.readouterr().out.startswith("step 0: cross win ")
    with pytest.raises(ValueError, match="plays SEQUENTIAL games"):
        EvaluateAgainstEveryNStep(RockPaperScissorsEnv())
    with pytest.raises(ValueError, match="needs its own env"):  # it would reset training games
        run(policy, env, StopAfterStep(5), EvaluateAgainstEveryNStep(env, n=2, n_episodes=1))


def test_random_players_are_checked(one_thread):
    assert isinstance(IndependentPPO_TicTacToe(0, random_players="player_2")
                      .policy["player_2"], RandomPolicy)
    with pytest.raises(ValueError, match=r"random_players names \['nobody'\]"):
        IndependentDQN_TicTacToe(0, random_players="nobody")
    with pytest.raises(ValueError, match="leaves no player to learn"):
        IndependentDQN_TicTacToe(0, random_players="cross,nought")


def test_same_seed_same_run(one_thread):
    def returns(seed):
        experiment = IndependentPPO_TicTacToe(seed, steps=300, n_steps=16, eval_every=150,
                                              eval_episodes=5)
        hook = run(experiment)
        return hook[0]["player_1"].rewards, [str(o) for o in hook[1].outcomes["player_1"]]

    assert returns(3) == returns(3)
    assert returns(3) != returns(4)


def untrained_and_trained(hook, player):
    """The player's outcomes against the random policy before training and at its end."""
    evaluation = hook[1]
    before, after = evaluation.outcomes[player][0], evaluation.outcomes[player][-1]
    return before, after


def score(outcomes):
    """Wins minus losses, as a share of the games: the mean return of ±1 games."""
    return outcomes.win_rate - outcomes.loss_rate


@pytest.mark.slow
def test_independent_ppo_players_beat_random_more_often_than_untrained(one_thread):
    """Self-play of two PPO learners on PettingZoo's tic-tac-toe, seed 0, 15,000 env steps
    (moves of both players: about 2,000 games, 7,500 moves and 29 rollouts of 256 per player;
    16 s on one thread), each player evaluated greedily in 200 games against the random
    policy before training and after it.

    Measured (seed 0): player_1 wins 50 % -> 85 % and loses 26 % -> 2 %; player_2, whose
    opponent learns to beat it, wins 34 % -> 50 % and loses 59 % -> 42 %, its score (wins
    minus losses) -0.25 -> +0.08. Seeds 1 and 2: player_1 wins 61 -> 87 % and 74 -> 87 %,
    player_2 22 -> 52 % and 28 -> 54 %."""
    hook = run(IndependentPPO_TicTacToe(0, steps=15_000, eval_every=15_000))
    assert hook[1].steps == [0, 15_000]
    first_before, first_after = untrained_and_trained(hook, "player_1")
    second_before, second_after = untrained_and_trained(hook, "player_2")
    assert first_after.n == first_before.n == second_after.n == second_before.n == 200
    assert first_after.win_rate >= first_before.win_rate + 0.25, (first_before, first_after)
    assert first_after.loss_rate <= 0.1, first_after
    assert score(second_after) >= score(second_before) + 0.2, (second_before, second_after)


@pytest.mark.slow
def test_independent_dqn_players_beat_random_more_often_than_untrained(one_thread):
    """Self-play of two double-DQN learners on our tic-tac-toe, seed 0, 10,000 env steps
    (about 5,000 moves and 4,500 gradient steps per player; 30 s on one thread), each player
    evaluated greedily in 200 games against the random policy before training and after it.

    It needs DQN's target to bootstrap from the next state's legal actions only (the batch's
    ``next_legal_actions_mask``): maximising over occupied cells, whose values are never
    trained, it does not learn (seed 0: cross 47 % -> 47 % after 20,000 steps).

    Measured (seed 0, with the masked target): cross wins 47 % -> 88 % and loses 48 % -> 8 %;
    nought wins 35 % -> 70 % and loses 62 % -> 27 %. Seeds 1 and 2: cross wins 70 -> 90 % and
    65 -> 90 %, nought 30 -> 82 % and 38 -> 74 %."""
    hook = run(IndependentDQN_TicTacToe(0, steps=10_000, eval_every=10_000))
    assert hook[1].steps == [0, 10_000]
    for player in ("cross", "nought"):
        before, after = untrained_and_trained(hook, player)
        assert after.n == before.n == 200
        assert after.win_rate >= before.win_rate + 0.25, (player, str(before), str(after))
        assert after.loss_rate <= before.loss_rate - 0.2, (player, str(before), str(after))

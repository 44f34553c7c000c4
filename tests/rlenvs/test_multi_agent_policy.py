"""Tests of rlenvs/multi_agent_policy.py."""

import numpy as np
import pytest

from rlcore import (
    Agent, DoEveryNEpisode, RandomPolicy, StepsPerEpisode, StopAfterEpisode, StopAfterStep,
    VectorSARTTrajectory, run,
)
from rlcore.dispatch import check_ambiguities
from rlenvs import (
    KuhnPokerEnv, MultiAgentPolicy, PlayerView, RockPaperScissorsEnv, SpeakerListenerEnv,
    StochasticEnv, TicTacToeEnv,
)
from rlenvs.games.kuhn_poker import INFO_SETS


def random_players(env, seed=0):
    return MultiAgentPolicy({p: RandomPolicy(seed=seed + i) for i, p in enumerate(env.players())})


def test_sequential_game_asks_the_current_player():
    class Fixed(RandomPolicy):
        def __init__(self, cell):
            super().__init__(seed=0)
            self.cell = cell

        def __call__(self, env):
            return self.cell if env.legal_action_space_mask()[self.cell] else \
                int(np.flatnonzero(env.legal_action_space_mask())[0])

    env = TicTacToeEnv()
    policy = MultiAgentPolicy({"cross": Fixed(4), "nought": Fixed(0)})
    env.reset()
    assert policy(env) == 4
    env(4)
    assert policy(env) == 0


def test_simultaneous_game_returns_the_joint_action():
    env = SpeakerListenerEnv(seed=0)
    env.reset()
    message, force = random_players(env)(env)
    assert message.shape == (3,) and force.shape == (2,)
    hook = run(random_players(env), env, StopAfterEpisode(2), StepsPerEpisode())
    assert hook.steps == [25, 25]
    rps = run(random_players(RockPaperScissorsEnv()), RockPaperScissorsEnv(),
              StopAfterEpisode(4), StepsPerEpisode())
    assert rps.steps == [1, 1, 1, 1]


def test_agents_record_their_own_transitions():
    env = StochasticEnv(KuhnPokerEnv(), seed=0)
    agents = {p: Agent(RandomPolicy(seed=i), VectorSARTTrajectory())
              for i, p in enumerate(env.players())}
    run(MultiAgentPolicy(agents), env, StopAfterEpisode(50))
    for player, agent in agents.items():
        traces = agent.trajectory.traces
        assert len(traces["reward"]) > 0 and len(traces["state"]) >= len(traces["reward"])
        # Each player's states are its own information sets: its own card is known.
        assert all(INFO_SETS[int(s)][0] is not None for s in traces["state"][:])


def test_sequential_transitions_collect_the_rewards_of_the_other_players_turns():
    """Each player's recorded rewards are its payoffs: the loser records its -1 although the
    winner made the last move, every episode ends with one terminal transition per player, and
    states and actions stay aligned with rewards."""
    env = TicTacToeEnv()
    agents = {p: Agent(RandomPolicy(seed=i), VectorSARTTrajectory())
              for i, p in enumerate(env.players())}
    outcomes = []

    def record(t, policy, env):
        outcomes.append((env.reward("cross"), env.reward("nought")))

    run(MultiAgentPolicy(agents), env, StopAfterEpisode(40), DoEveryNEpisode(record))
    for index, player in enumerate(env.players()):
        traces = agents[player].trajectory.traces
        rewards, terminal = traces["reward"][:], traces["terminal"][:]
        assert sum(terminal) == 40
        assert sum(rewards) == sum(outcome[index] for outcome in outcomes)
        assert len(traces["state"]) == len(traces["action"]) == len(rewards) + 1
        # Only terminal transitions carry a reward in tic-tac-toe.
        assert all(r == 0 for r, done in zip(rewards, terminal) if not done)
    assert any(o == (-1.0, 1.0) for o in outcomes) and any(o == (1.0, -1.0) for o in outcomes)


def test_a_run_stopped_mid_episode_closes_the_open_transitions():
    env = TicTacToeEnv()
    agents = {p: Agent(RandomPolicy(seed=i), VectorSARTTrajectory())
              for i, p in enumerate(env.players())}
    run(MultiAgentPolicy(agents), env, StopAfterStep(3))  # cross moved twice, nought once
    cross = agents["cross"].trajectory.traces
    nought = agents["nought"].trajectory.traces
    assert len(cross["reward"]) == 2 and len(nought["reward"]) == 1
    assert cross["truncated"][-1] and nought["truncated"][-1]


def test_chance_needs_a_policy_or_stochastic_env():
    env = KuhnPokerEnv()
    env.reset()
    with pytest.raises(ValueError, match="StochasticEnv"):
        random_players(env)(env)
    with_chance = MultiAgentPolicy({**random_players(env).policies,
                                    env.chance_player(): RandomPolicy(seed=9)})
    hook = run(with_chance, KuhnPokerEnv(), StopAfterEpisode(5), StepsPerEpisode())
    assert all(4 <= s <= 5 for s in hook.steps)


def test_player_view_and_errors():
    env = TicTacToeEnv()
    view = PlayerView(env, "nought")
    env.reset()
    env(0)
    env(3)
    env(1)
    env(4)
    env(2)
    assert view.reward() == -1.0 and view.state().shape == (3, 3, 3)
    with pytest.raises(ValueError, match="player"):
        PlayerView(env, "triangle")
    with pytest.raises(ValueError, match="no policy"):
        MultiAgentPolicy({"cross": RandomPolicy()})(TicTacToeEnv())
    with pytest.raises(TypeError):
        MultiAgentPolicy({})
    check_ambiguities()

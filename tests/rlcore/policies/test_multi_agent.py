"""Tests of rlcore/policies/multi_agent.py."""

import numpy as np
import pytest

from rlcore import (
    Agent, ChancePolicy, DoEveryNEpisode, MultiAgentHook, MultiAgentPolicy, PlayerView,
    RandomPolicy, StepsPerEpisode, StopAfterEpisode, StopAfterStep, TotalRewardPerEpisode,
    VectorSARTTrajectory, run,
)
from rlcore.dispatch import check_ambiguities
from rlenvs import (
    KuhnPokerEnv, RockPaperScissorsEnv, SpeakerListenerEnv, StochasticEnv, TicTacToeEnv,
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


def test_chance_policy_samples_prob():
    # Kuhn poker deals 3 cards uniformly, then 2 of the remaining: each first card ~ 1/3.
    env = KuhnPokerEnv()
    chance = ChancePolicy(seed=0)
    first = []
    for _ in range(3000):
        env.reset()
        first.append(chance(env))
        env(first[-1])
        second = chance(env)
        assert second != first[-1]  # a dealt card has probability 0
    assert np.allclose(np.bincount(first, minlength=3) / 3000, 1 / 3, atol=0.03)
    assert np.allclose(chance.action_probabilities(env), [0.5 if c != first[-1] else 0.0
                                                          for c in range(3)])
    assert ChancePolicy(seed=1)(env) == ChancePolicy(seed=1)(env)


def test_multi_agent_hook_keeps_each_players_record():
    # Tic-tac-toe is zero-sum: each episode's returns are opposite, and both hooks see every
    # episode; PRE_ACT reaches only the mover's hook, so the acting counts add up to the steps.
    env = TicTacToeEnv()
    acts = {p: 0 for p in env.players()}

    class CountActs(TotalRewardPerEpisode):
        pass

    from rlcore.dispatch import dispatch
    from rlcore.hooks import on_stage
    from rlcore.stages import PreActStage

    @dispatch(CountActs, PreActStage, object, object, object)
    def on_stage(hook, stage, policy, view, action):  # noqa: F811
        acts[view.player] += 1
        assert view.legal_action_space_mask()[action]

    hooks = {p: CountActs() for p in env.players()}
    policy = MultiAgentPolicy({p: RandomPolicy(seed=i) for i, p in enumerate(env.players())})
    steps = StepsPerEpisode()
    run(policy, env, StopAfterEpisode(30), MultiAgentHook(hooks) + steps)
    cross, nought = (hooks[p].rewards for p in env.players())
    assert len(cross) == len(nought) == 30
    assert np.allclose(np.add(cross, nought), 0.0) and set(cross) <= {-1.0, 0.0, 1.0}
    assert sum(acts.values()) == sum(steps.steps)
    with pytest.raises(TypeError, match="AbstractHook"):
        MultiAgentHook({"cross": print})
    with pytest.raises(TypeError, match="MultiAgentPolicy"):
        run(RandomPolicy(seed=0), env, StopAfterEpisode(1), MultiAgentHook(hooks))


def test_a_players_transition_closes_before_it_acts_again():
    # A learner that learns at POST_ACT (PPO) must learn before choosing its next action, as in
    # a single-agent run: for each player the events alternate act, post_act, act, ...
    from rlcore.dispatch import dispatch, update
    from rlcore.envs import AbstractEnv
    from rlcore.stages import PostActStage

    events = []

    class Spy(RandomPolicy):
        def __init__(self, name, seed):
            super().__init__(seed=seed)
            self.name = name

        def __call__(self, env):
            events.append((self.name, "act"))
            return super().__call__(env)

    @dispatch(Spy, AbstractEnv, PostActStage)
    def update(policy, env, stage):  # noqa: F811
        events.append((policy.name, "post_act"))

    env = TicTacToeEnv()
    run(MultiAgentPolicy({p: Spy(p, i) for i, p in enumerate(env.players())}), env,
        StopAfterEpisode(5))
    for player in env.players():
        mine = [e for p, e in events if p == player]
        assert mine == ["act", "post_act"] * (len(mine) // 2), mine

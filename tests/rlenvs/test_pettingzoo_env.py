"""Tests of rlenvs/pettingzoo_env.py: both directions, checked by PettingZoo's own tests."""

import warnings

import pytest

with warnings.catch_warnings():  # pettingzoo.test imports a classic game the deprecated way
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, parallel_api_test

from rlcore import RandomPolicy, StepsPerEpisode, StopAfterEpisode, run
from rlcore.envs import (
    FULL_ACTION_SET,
    SEQUENTIAL,
    SIMULTANEOUS,
    MultiAgent,
    test_interfaces,
    test_runnable,
)
from rlcore import MultiAgentPolicy
from rlenvs import (
    KuhnPokerEnv,
    LeducPokerEnv,
    PettingZooEnv,
    PigEnv,
    RockPaperScissorsEnv,
    SpeakerListenerEnv,
    TicTacToeEnv,
    TinyHanabiEnv,
    to_pettingzoo,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # PettingZoo's style advice

SEQUENTIAL_GAMES = [TicTacToeEnv, KuhnPokerEnv, LeducPokerEnv, TinyHanabiEnv, lambda seed: PigEnv(
    3, target_score=20, seed=seed)]
SIMULTANEOUS_GAMES = [RockPaperScissorsEnv, SpeakerListenerEnv]


@pytest.mark.parametrize("make", SEQUENTIAL_GAMES + SIMULTANEOUS_GAMES)
def test_api_test_passes(make):
    api_test(to_pettingzoo(make(seed=0), parallel=False, seed=0), num_cycles=200)


@pytest.mark.parametrize("make", SIMULTANEOUS_GAMES)
def test_parallel_api_test_passes(make):
    parallel_api_test(to_pettingzoo(make(seed=0), seed=0), num_cycles=200)


def test_aec_adapter_plays_tic_tac_toe_by_the_rules():
    aec = to_pettingzoo(TicTacToeEnv())
    aec.reset(seed=0)
    assert aec.agent_selection == "cross"
    for cell in (0, 3, 1, 4):
        observation, *_ = aec.last()
        assert observation["action_mask"][cell] == 1
        aec.step(cell)
    observation, *_ = aec.last()
    assert observation["action_mask"].tolist() == [0, 0, 1, 0, 0, 1, 1, 1, 1]
    aec.step(2)  # cross wins
    assert all(aec.terminations.values())
    assert aec.rewards == {"cross": 1.0, "nought": -1.0}
    _, reward, terminated, _, _ = aec.last()  # nought's view of the end
    assert terminated and reward == -1.0


def test_parallel_adapter_plays_rock_paper_scissors():
    env = to_pettingzoo(RockPaperScissorsEnv())
    observations, infos = env.reset(seed=0)
    assert set(observations) == {"player_0", "player_1"}
    _, rewards, terminations, _, _ = env.step({"player_0": 1, "player_1": 0})
    assert rewards == {"player_0": 1.0, "player_1": -1.0} and all(terminations.values())
    assert env.agents == []


def test_chance_is_sampled_and_reset_seed_is_reproducible():
    def deals(seed):
        aec = to_pettingzoo(KuhnPokerEnv())
        out = []
        for _ in range(20):
            aec.reset(seed=seed)
            out.append(tuple(aec.rl_env.innermost.cards))
        return out
    assert deals(3) == deals(3) and len(set(deals(3))) == 1
    aec = to_pettingzoo(KuhnPokerEnv(), seed=0)
    seen = set()
    for _ in range(60):
        aec.reset()
        seen.add(tuple(aec.rl_env.innermost.cards))
    assert len(seen) == 6


def test_bad_arguments():
    from rlenvs import RandomWalk1D
    with pytest.raises(ValueError, match="to_gymnasium"):
        to_pettingzoo(RandomWalk1D())
    with pytest.raises(ValueError, match="SEQUENTIAL"):
        to_pettingzoo(TicTacToeEnv(), parallel=True)
    with pytest.raises(TypeError, match="AECEnv or ParallelEnv"):
        PettingZooEnv(TicTacToeEnv())


# ----------------------------------------------------------------------------- PettingZoo -> ours
def pettingzoo_make(env_type, env_id):
    import pettingzoo
    return pettingzoo.make(env_type, env_id)


def test_pettingzoo_tic_tac_toe_through_our_interface():
    env = PettingZooEnv(pettingzoo_make("aec", "classic/tictactoe-v3"), seed=0)
    assert env.DynamicStyle is SEQUENTIAL and env.ActionStyle is FULL_ACTION_SET
    assert env.NumAgentStyle == MultiAgent(2) and env.players() == ("player_1", "player_2")
    env.reset()
    assert env.current_player() == "player_1"
    env(4)
    assert not env.legal_action_space_mask("player_2")[4]
    with pytest.raises(ValueError, match="legal"):
        env(4)
    assert env.current_player() == "player_2"
    test_interfaces(env)
    assert test_runnable(env, n_steps=300) > 10


def test_a_pettingzoo_classic_game_runs_through_our_run_with_random_policies():
    env = PettingZooEnv(pettingzoo_make("aec", "classic/connect_four-v3"), seed=0)
    policy = MultiAgentPolicy({p: RandomPolicy(seed=i) for i, p in enumerate(env.players())})
    hook = run(policy, env, StopAfterEpisode(10), StepsPerEpisode())
    assert len(hook.steps) == 10 and all(7 <= s <= 42 for s in hook.steps)
    assert env.is_terminated()
    winners = [p for p in env.players() if env.reward(p) == 1]
    assert len(winners) <= 1


def test_pettingzoo_parallel_game_is_simultaneous():
    env = PettingZooEnv(pettingzoo_make("parallel", "classic/rps-v2"), seed=0)
    assert env.DynamicStyle is SIMULTANEOUS
    test_interfaces(env)
    policy = MultiAgentPolicy({p: RandomPolicy(seed=i) for i, p in enumerate(env.players())})
    hook = run(policy, env, StopAfterEpisode(3), StepsPerEpisode())
    assert hook.steps == [15, 15, 15] and env.is_truncated()


def test_round_trip_keeps_the_rules():
    env = PettingZooEnv(to_pettingzoo(TicTacToeEnv()), seed=0)
    env.reset()
    for cell in (0, 3, 1, 4, 2):
        env(cell)
    assert env.is_terminated() and env.reward("cross") == 1.0 and env.reward("nought") == -1.0
    test_interfaces(PettingZooEnv(to_pettingzoo(KuhnPokerEnv()), seed=0))
    test_interfaces(PettingZooEnv(to_pettingzoo(SpeakerListenerEnv(seed=0)), seed=0))

"""Tests of rlenvs/gymnasium_env.py: our environments pass Gymnasium's own checker."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from rlcore.envs import FullActionSet, SingleAgent, test_interfaces
from rlenvs import (
    ENVS, BitFlippingEnv, CartPoleEnv, GymEnv, MontyHallEnv, TicTacToeEnv, TigerProblemEnv,
    make, to_gymnasium,
)

# Gymnasium's checker advises on spaces and specs; the checks themselves must pass.
pytestmark = [pytest.mark.filterwarnings("ignore:.*not having a spec"),
              pytest.mark.filterwarnings("ignore:.*probably too (low|high)")]

SINGLE_AGENT_ENVS = [name for name in sorted(ENVS)
                     if isinstance(make(name, seed=0).NumAgentStyle, SingleAgent)
                     and name != "AtariEnv"]  # Atari is checked once, in test_atari.py


@pytest.mark.filterwarnings("ignore:.*symmetric and normalized space")
@pytest.mark.parametrize("name", SINGLE_AGENT_ENVS)
def test_check_env_passes_for_every_single_agent_env(name):
    env = make(name, seed=0)
    illegal = "penalize" if isinstance(env.ActionStyle, FullActionSet) else "raise"
    check_env(to_gymnasium(env, render_mode="ansi", illegal_action=illegal),
              skip_render_check=False)


def test_step_reset_and_seeding():
    gym_env = to_gymnasium(TigerProblemEnv())
    first = [gym_env.reset(seed=5)[0] for _ in range(1)]
    listens = [gym_env.step(0)[0] for _ in range(30)]
    gym_env.reset(seed=5)
    assert [gym_env.step(0)[0] for _ in range(30)] == listens and first == [0]
    observation, reward, terminated, truncated, info = gym_env.step(1)
    assert reward in (-100.0, 10.0) and terminated is True and truncated is False
    assert info == {}


def test_full_action_set_masks_and_illegal_actions():
    gym_env = to_gymnasium(MontyHallEnv(seed=0))
    _, info = gym_env.reset(seed=1)
    assert info["action_mask"].tolist() == [True, True, True]
    _, _, _, _, info = gym_env.step(0)
    opened = int(np.flatnonzero(~info["action_mask"])[0])
    with pytest.raises(ValueError, match="legal"):
        gym_env.step(opened)
    lenient = to_gymnasium(MontyHallEnv(seed=0), illegal_action="penalize",
                           illegal_action_reward=-5.0)
    lenient.reset(seed=1)
    lenient.step(0)
    state, reward, terminated, _, info = lenient.step(lenient.rl_env.opened)
    assert reward == -5.0 and not terminated and info["illegal_action"] is True


def test_round_trip_through_gym_env_passes_our_checks():
    test_interfaces(GymEnv(to_gymnasium(BitFlippingEnv(N=4)), seed=0))
    check_env(to_gymnasium(GymEnv("CartPole-v1", seed=0)))
    check_env(to_gymnasium(CartPoleEnv(seed=0)))


def test_gymnasium_wrappers_and_vector_envs_accept_it():
    env = gymnasium.wrappers.TimeLimit(to_gymnasium(TigerProblemEnv()), max_episode_steps=3)
    env.reset(seed=0)
    for _ in range(3):
        *_, truncated, _ = env.step(0)
    assert truncated
    vector = gymnasium.vector.SyncVectorEnv([lambda: to_gymnasium(TigerProblemEnv())] * 3)
    observations, _ = vector.reset(seed=0)
    assert observations.shape == (3,)
    vector.close()


def test_multi_agent_envs_and_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="to_pettingzoo"):
        to_gymnasium(TicTacToeEnv())
    with pytest.raises(TypeError):
        to_gymnasium(gymnasium.make("CartPole-v1"))
    with pytest.raises(ValueError, match="render_mode"):
        to_gymnasium(TigerProblemEnv(), render_mode="human")
    gym_env = to_gymnasium(TigerProblemEnv(seed=0), render_mode="ansi")
    gym_env.reset(seed=1)
    for _ in range(3):
        gym_env.step(0)  # listen: the render shows what was heard
        assert gym_env.render() == gym_env.rl_env.render("text")
    assert "heard: tiger on the" in gym_env.render()

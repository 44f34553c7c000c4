"""Tests of rlenvs/games/speaker_listener.py."""

import numpy as np
import pytest

from rlcore.envs import IDENTICAL_UTILITY, SIMULTANEOUS, test_interfaces
from rlenvs import SpeakerListenerEnv


def test_dynamics_and_shared_reward():
    env = SpeakerListenerEnv(seed=0, damping=0.25, sensitivity=5.0, dt=0.1)
    env.reset()
    start = env.position.copy()
    force = np.array([1.0, -0.5], dtype=np.float32)
    env((np.zeros(3, dtype=np.float32), force))
    velocity = 5.0 * force * 0.1
    np.testing.assert_allclose(env.velocity, velocity, rtol=1e-6)
    np.testing.assert_allclose(env.position, start + velocity * 0.1, rtol=1e-6)
    expected = -np.sum((env.position - env.landmarks[env.goal]) ** 2)
    assert env.reward("speaker") == env.reward("listener") == pytest.approx(expected)


def test_observations():
    env = SpeakerListenerEnv(N=4, seed=1)
    env.reset()
    speaker = env.state("speaker")
    assert speaker.tolist() == np.eye(4)[env.goal].tolist()
    message = np.full(4, 0.5, dtype=np.float32)
    env((message, np.zeros(2, dtype=np.float32)))
    listener = env.state("listener")
    assert listener.shape == (2 + 8 + 4,) and listener.dtype == np.float32
    np.testing.assert_allclose(listener[2:10], (env.landmarks - env.position).ravel(), rtol=1e-5)
    np.testing.assert_array_equal(listener[10:], message)


def test_listener_that_moves_to_the_goal_earns_more():
    def run(steer):
        env = SpeakerListenerEnv(seed=3, max_steps=25)
        env.reset()
        total = 0.0
        while not env.is_truncated():
            direction = env.landmarks[env.goal] - env.position
            force = np.clip(direction * 2 - env.velocity, -1, 1) if steer else np.zeros(2)
            env((env.state("speaker"), force.astype(np.float32)))
            total += env.reward("listener")
        return total

    assert run(steer=True) > run(steer=False)


def test_traits_truncation_and_render():
    env = SpeakerListenerEnv(seed=0, max_steps=2)
    assert env.DynamicStyle is SIMULTANEOUS and env.UtilityStyle is IDENTICAL_UTILITY
    env.reset()
    for _ in range(2):
        env((np.zeros(3, np.float32), np.zeros(2, np.float32)))
    assert env.is_truncated() and not env.is_terminated()
    with pytest.raises(RuntimeError, match="reset"):
        env((np.zeros(3, np.float32), np.zeros(2, np.float32)))
    assert env.render("rgb_array").shape == (64, 64, 3) and "listener" in env.render()
    with pytest.raises(ValueError, match="listener"):
        env.reset()
        env((np.zeros(3, np.float32), np.full(2, 3.0, np.float32)))


def test_passes_interface_checks():
    test_interfaces(SpeakerListenerEnv(seed=0))


def test_state_without_a_player_is_the_joint_state_like_rock_paper_scissors():
    from rlenvs import RockPaperScissorsEnv

    env = SpeakerListenerEnv(seed=0)
    env.reset()
    joint = env.state()
    assert len(joint) == 2
    for player, state in zip(env.players(), joint):
        np.testing.assert_array_equal(state, env.state(player))
    assert env.state_space().contains(joint)
    assert env.state_space()[1] == env.state_space("listener")
    rps = RockPaperScissorsEnv()
    rps.reset()
    # Both: what the players see together; rock-paper-scissors' players share their one state.
    assert rps.state() == rps.state("player_0") == rps.state("player_1")
    with pytest.raises(ValueError, match="player"):
        env.state("referee")

"""Tests of rlenvs/gym_env.py."""

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from rlcore.envs import (
    IMPERFECT_INFORMATION, MINIMAL_ACTION_SET, SINGLE_AGENT, STEP_REWARD, STOCHASTIC,
    test_interfaces, test_runnable,
)
from rlenvs import GymEnv


def trajectory(env, actions, episodes=3):
    """States, rewards and flags of ``episodes`` episodes, cycling through ``actions``."""
    record = []
    for _ in range(episodes):
        env.reset()
        record.append(env.state().copy())
        step = 0
        while not (env.is_terminated() or env.is_truncated()):
            env(actions[step % len(actions)])
            record.append((env.state().copy(), env.reward(), env.is_terminated(),
                           env.is_truncated()))
            step += 1
    return record


def same(a, b):
    return len(a) == len(b) and all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else
        np.array_equal(x[0], y[0]) and x[1:] == y[1:] for x, y in zip(a, b))


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "FrozenLake-v1",
                                    "MountainCarContinuous-v0"])
def test_passes_interface_checks(env_id):
    env = GymEnv(env_id, seed=0)
    test_interfaces(env)
    test_runnable(env, n_steps=1000, seed=0)


def test_traits_are_those_of_rl_jl():
    env = GymEnv("CartPole-v1")
    assert env.NumAgentStyle is SINGLE_AGENT
    assert env.ActionStyle is MINIMAL_ACTION_SET
    assert env.ChanceStyle is STOCHASTIC
    assert env.InformationStyle is IMPERFECT_INFORMATION
    assert env.RewardStyle is STEP_REWARD


def test_state_reward_and_spaces():
    env = GymEnv("CartPole-v1", seed=0)
    assert env.action_space() is env.gym_env.action_space
    assert env.state_space() is env.gym_env.observation_space
    env.reset()
    assert env.state() in env.state_space() and env.reward() == 0.0
    env(np.int64(1))
    assert env.reward() == 1.0 and env.state().shape == (4,)
    assert env.is_terminated() is False and env.is_truncated() is False
    assert isinstance(env.info, dict)


def test_truncation_and_termination_kept_apart():
    env = GymEnv("CartPole-v1", seed=0, max_episode_steps=5)
    env.reset()
    for action in (0, 1, 0, 1, 0):  # keeps the pole up for 5 steps
        env(action)
    assert env.is_truncated() is True and env.is_terminated() is False

    env = GymEnv("CartPole-v1", seed=0)
    env.reset()
    steps = 0
    while not (env.is_terminated() or env.is_truncated()):
        env(1)  # always push right: the pole falls within a few dozen steps
        steps += 1
    assert env.is_terminated() is True and env.is_truncated() is False and steps < 100


def test_acting_after_the_end_or_before_reset_raises():
    env = GymEnv("CartPole-v1", seed=0, max_episode_steps=1)
    with pytest.raises(RuntimeError, match="reset"):
        env(0)
    env.reset()
    env(0)
    with pytest.raises(RuntimeError, match="truncated.*reset"):
        env(0)
    env.reset()
    env(0)  # a fresh episode


def test_same_seed_same_episodes_and_different_seeds_differ():
    actions = [0, 0, 1, 1, 1, 0, 1]
    a = trajectory(GymEnv("CartPole-v1", seed=3), actions)
    b = trajectory(GymEnv("CartPole-v1", seed=3), actions)
    c = trajectory(GymEnv("CartPole-v1", seed=4), actions)
    assert same(a, b)
    assert not same(a, c)
    d = trajectory(GymEnv("CartPole-v1", rng=np.random.default_rng(3)), actions)
    e = trajectory(GymEnv("CartPole-v1", rng=np.random.default_rng(3)), actions)
    assert same(d, e)


def test_episodes_after_the_first_differ():
    env = GymEnv("CartPole-v1", seed=0)
    starts = []
    for _ in range(3):
        env.reset()
        starts.append(env.state().copy())
    assert not np.array_equal(starts[0], starts[1]) and not np.array_equal(starts[1], starts[2])


def test_action_space_seeded_by_first_reset():
    samples = []
    for _ in range(2):
        env = GymEnv("CartPole-v1", seed=11)
        env.reset()
        samples.append([env.action_space().sample() for _ in range(20)])
    assert samples[0] == samples[1]


@pytest.mark.parametrize("action", [2, -1, 1.0, "left", np.array([0, 1]), None])
def test_bad_action_raises_value_error_and_leaves_the_env_unchanged(action):
    env = GymEnv("CartPole-v1", seed=0)
    env.reset()
    env(0)
    state, reward = env.state().copy(), env.reward()
    gym_state = np.array(env.gym_env.unwrapped.state)
    with pytest.raises(ValueError) as error:
        env(action)
    assert repr(action) in str(error.value) and "Discrete(2)" in str(error.value)
    assert np.array_equal(env.state(), state) and env.reward() == reward
    assert np.array_equal(np.array(env.gym_env.unwrapped.state), gym_state)
    assert not (env.is_terminated() or env.is_truncated())
    env(1)  # still usable


@pytest.mark.parametrize("action", [2, -1, True, 1.0, "left", np.array([0, 1]), None])
def test_check_action_names_a_bad_action_and_passes_good_ones(action):
    env = GymEnv("CartPole-v1", seed=0)
    env.reset()
    for good in (0, 1, np.int64(1), np.uint8(0), np.array(1)):
        env.check_action(good)
    with pytest.raises(ValueError) as error:
        env.check_action(action)
    assert repr(action) in str(error.value) and "Discrete(2)" in str(error.value)
    box = GymEnv("Pendulum-v1", seed=0)
    box.check_action(np.zeros(1, np.float32))
    with pytest.raises(ValueError, match="Box"):
        box.check_action(0)


def test_a_subclass_with_legal_actions_has_them_checked():
    from rlcore.envs import FULL_ACTION_SET

    class OnlyZero(GymEnv):  # a GymEnv whose legal actions are a subset of its space's
        ActionStyle = FULL_ACTION_SET

        def legal_action_space(self, player=None):
            return [0]

        def legal_action_space_mask(self, player=None):
            return np.array([True, False])

    env = OnlyZero("CartPole-v1", seed=0)
    env.reset()
    env.check_action(0)
    with pytest.raises(ValueError, match="legal actions"):
        env.check_action(1)


# Gymnasium's Box.contains warns when given a Python float (the 0.5 below).
@pytest.mark.filterwarnings("ignore:.*Casting input x to numpy array")
def test_box_actions_on_pendulum():
    env = GymEnv("Pendulum-v1", seed=0)
    env.reset()
    env(np.array([0.5], dtype=np.float32))
    env(np.array([-1.5]))  # float64 is accepted for a float32 Box
    assert isinstance(env.reward(), float) and env.state() in env.state_space()
    state = env.state().copy()
    for bad in (np.array([3.0], dtype=np.float32), np.zeros(2, dtype=np.float32), 0.5):
        with pytest.raises(ValueError, match="Box"):
            env(bad)
    assert np.array_equal(env.state(), state)
    steps = 2
    while not env.is_truncated():
        env(np.zeros(1, dtype=np.float32))
        steps += 1
    assert steps == 200 and env.is_terminated() is False


def test_wraps_an_instance():
    gym_env = gymnasium.make("CartPole-v1")
    env = GymEnv(gym_env, seed=0)
    assert env.gym_env is gym_env and repr(env) == "GymEnv('CartPole-v1')"
    with pytest.raises(TypeError, match="max_episode_steps"):
        GymEnv(gym_env, max_episode_steps=3)
    with pytest.raises(TypeError):
        GymEnv(42)
    with pytest.raises(ValueError, match="give rng or seed, not both"):
        GymEnv("CartPole-v1", seed=0, rng=np.random.default_rng(1))
    rng = np.random.default_rng(0)  # made from that seed (as attrs.evolve passes): accepted
    assert GymEnv("CartPole-v1", seed=0, rng=rng).rng is rng


class Painted(gymnasium.Env):
    """A one-step Gymnasium env that renders a 2x3 RGB picture."""

    metadata = {"render_modes": ["rgb_array"]}
    observation_space = spaces.Discrete(2)
    action_space = spaces.Discrete(2)

    def __init__(self, render_mode=None):
        self.render_mode = render_mode

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        return 0, {}

    def step(self, action):
        return 1, 1.0, True, False, {}

    def render(self):
        return np.zeros((2, 3, 3), dtype=np.uint8)


def test_render():
    env = GymEnv("CartPole-v1", seed=0)
    env.reset()
    text = env.render()
    assert "CartPole-v1" in text and "terminated False" in text
    with pytest.raises(ValueError, match="render_mode"):
        env.render("rgb_array")
    painted = GymEnv(Painted(render_mode="rgb_array"), seed=0)
    painted.reset()
    assert painted.render("rgb_array").shape == (2, 3, 3)
    assert "Painted" in painted.render("text")


def test_gymnasium_numpy_bools_become_python_bools():
    class NumpyFlags(Painted):
        def step(self, action):
            return 1, 1.0, np.bool_(True), np.bool_(False), {}

    env = GymEnv(NumpyFlags(), seed=0)
    env.reset()
    env(0)
    assert env.is_terminated() is True and env.is_truncated() is False
    test_interfaces(env)


def test_seed_replaces_the_generator_and_reseeds_the_next_reset():
    env = GymEnv("CartPole-v1", seed=0)
    env.reset()
    env.seed(21)
    env.reset()
    first = env.state().copy()
    again = GymEnv("CartPole-v1", seed=21)
    again.reset()
    assert np.array_equal(first, again.state())
    env.seed(rng=np.random.default_rng(21))
    env.reset()
    assert np.array_equal(first, env.state())

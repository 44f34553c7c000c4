"""Tests of rlenvs/vector_env.py."""

import multiprocessing
import os
import time

import attrs
import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from rlcore import (
    ComposedStopCondition, DoEveryNEpisode, DoEveryNStep, RandomPolicy, StepsPerEpisode, StopAfterEpisode,
    StopAfterStep, TotalRewardPerEpisode, run,
)
from rlcore.dispatch import check_ambiguities, dispatch
from rlcore.hooks import AbstractHook
from rlcore.stages import PostEpisodeStage
from rlenvs import MultiThreadEnv, RandomWalk1D, SubEnv, SubEnvError

SEED_BOUND = 2**31 - 1


def lean_policy(env):
    """Push the cart towards the side the pole leans to: episodes of varied lengths."""
    return (env.state()[:, 2] > 0).astype(np.int64)


def hand_episodes(seed, n_envs, n_steps):
    """Returns and lengths of the episodes each sub-env finishes within ``n_steps`` steps, from
    plain Gymnasium environments reset with ``seed + i`` and then without a seed."""
    returns, lengths = [], []
    for i in range(n_envs):
        env = gymnasium.make("CartPole-v1")
        observation, _ = env.reset(seed=seed + i)
        total, steps = 0.0, 0
        for _ in range(n_steps):
            observation, reward, terminated, truncated, _ = env.step(int(observation[2] > 0))
            total += reward
            steps += 1
            if terminated or truncated:
                returns.append(total)
                lengths.append(steps)
                total, steps = 0.0, 0
                observation, _ = env.reset()
    return sorted(returns), sorted(lengths)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_episode_hooks_record_every_sub_env_exactly(mode):
    n_envs, n_batches = 4, 300
    with MultiThreadEnv(["CartPole-v1"] * n_envs, mode=mode, seed=7) as env:
        hook = TotalRewardPerEpisode() + StepsPerEpisode()
        stop = StopAfterStep(n_envs * n_batches)
        run(lean_policy, env, stop, hook)
    seed = int(np.random.default_rng(7).integers(SEED_BOUND))
    returns, lengths = hand_episodes(seed, n_envs, n_batches)
    assert len(returns) > 20
    assert sorted(hook[0].rewards) == returns and sorted(hook[1].steps) == lengths
    assert stop.steps == n_envs * n_batches
    assert sum(hook[1].steps) + int(hook[1].count.sum()) == n_envs * n_batches


def test_stop_conditions_count_sub_env_steps_and_episodes():
    env = MultiThreadEnv(["CartPole-v1"] * 4, seed=0)
    stop = StopAfterStep(10)
    hook = StepsPerEpisode()
    run(RandomPolicy(seed=0), env, stop, hook)
    assert stop.steps == 10 and int(hook.count.sum()) + sum(hook.steps) == 12  # 3 batches
    episodes = StopAfterEpisode(6)
    ends = []  # how many sub-env episodes each batched step ended
    hook = TotalRewardPerEpisode() + DoEveryNStep(lambda t, policy, env: ends.append(
        int((env.is_terminated() | env.is_truncated()).sum())))
    run(RandomPolicy(seed=0), env, ComposedStopCondition(episodes, StopAfterStep(10**6)), hook)
    # The run stops after the batch with the 6th episode end; every episode that batch ended
    # is recorded too, and nothing else.
    assert episodes.episodes == 6 and sum(ends) >= 6 and ends[-1] > 0
    assert len(hook[0].rewards) == sum(ends)
    env.close()


@attrs.define
class Finals(AbstractHook):
    """Records what each sub-env shows at the end of its episodes."""

    finals: list = attrs.field(factory=list)


@dispatch(Finals, PostEpisodeStage, object, SubEnv)
def on_stage(hook, stage, policy, env):
    hook.finals.append((env.index, env.state().copy(), env.is_terminated(), env.is_truncated(),
                        env.reward()))


def test_post_episode_shows_the_final_state_and_soft_reset_continues():
    hook = Finals()
    with MultiThreadEnv(["CartPole-v1"] * 3, seed=1) as env:
        run(RandomPolicy(seed=1), env, StopAfterEpisode(9), hook)
        assert env.state().shape == (3, 4)
    assert len(hook.finals) >= 9
    for index, state, terminated, truncated, reward in hook.finals:
        assert terminated and not truncated and reward == 1.0
        assert abs(state[0]) > 2.4 or abs(state[2]) > 12 * 2 * np.pi / 360
    check_ambiguities()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_our_envs_join_through_to_gymnasium(mode):
    env = MultiThreadEnv([lambda: RandomWalk1D()] * 3, mode=mode, seed=0)
    assert env.single_action_space() == spaces.Discrete(2) and env.action_space().shape == (3,)
    counted = []
    hook = TotalRewardPerEpisode() + StepsPerEpisode() + DoEveryNEpisode(
        lambda t, policy, env: counted.append(t))
    run(RandomPolicy(seed=0), env, StopAfterEpisode(30), hook)
    assert set(hook[0].rewards) <= {-1.0, 1.0} and len(hook[0].rewards) >= 30
    assert all(s >= 3 and s % 2 == 1 for s in hook[1].steps)  # odd walks from the middle
    assert counted[-1] == len(hook[0].rewards)
    env.close()


def test_bad_actions_and_arguments():
    env = MultiThreadEnv(["CartPole-v1"] * 2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env([0, 0])
    env.reset()
    with pytest.raises(ValueError, match="sub-env 1"):
        env([0, 2])
    with pytest.raises(ValueError, match="one action per sub-env"):
        env([0, 1, 0])
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()
    with pytest.raises(ValueError, match="mode"):
        MultiThreadEnv(["CartPole-v1"], mode="threads")
    with pytest.raises(TypeError, match="sub-env 0"):
        MultiThreadEnv([lambda: 42])
    with pytest.raises(TypeError, match="vector env"):
        MultiThreadEnv(["CartPole-v1"])[0](0)
    assert len(MultiThreadEnv("CartPole-v1", 3)) == len(MultiThreadEnv(RandomWalk1D, n=2)) + 1
    with pytest.raises(ValueError, match="number of copies"):
        MultiThreadEnv("CartPole-v1")
    with pytest.raises(ValueError, match="is a list"):
        MultiThreadEnv(["CartPole-v1"], n=2)


class Faulty(gymnasium.Env):
    """Raises (or kills its process) on its 10th step, unless ``healthy``."""

    observation_space = spaces.Box(-1.0, 1.0, (2,), np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self, crash=False, healthy=False):
        self.crash = crash
        self.healthy = healthy
        self.t = 0

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(2, np.float32), {}

    def step(self, action):
        self.t += 1
        if self.t == 10 and not self.healthy:
            if self.crash:
                os._exit(3)
            raise ArithmeticError("the tenth step")
        return np.zeros(2, np.float32), 0.0, False, False, {}


@pytest.mark.filterwarnings("ignore::UserWarning")  # Gymnasium logs the worker's error too
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_sub_env_that_raises_is_named_and_nothing_hangs(mode):
    factories = [lambda: Faulty(healthy=True)] * 2 + [Faulty]
    env = MultiThreadEnv(factories, mode=mode, seed=0)
    start = time.perf_counter()
    with pytest.raises(SubEnvError, match=r"sub-env 2 \(Faulty\) raised ArithmeticError in "
                                          r"step\(\): the tenth step"):
        run(RandomPolicy(seed=0), env, StopAfterStep(10**6))
    assert time.perf_counter() - start < 30
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_sub_process_that_dies_is_named():
    env = MultiThreadEnv([lambda: Faulty(healthy=True), lambda: Faulty(crash=True)],
                         mode="async", seed=0)
    start = time.perf_counter()
    with pytest.raises(SubEnvError, match=r"sub-env 1 \(exit code 3\)"):
        run(RandomPolicy(seed=0), env, StopAfterStep(10**6))
    assert time.perf_counter() - start < 30


def gone(env):
    """Whether every worker process of ``env`` has ended."""
    return all(not p.is_alive() for p in getattr(env.vector_env, "processes", ()))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_after_a_crash_every_worker_process_is_gone():
    env = MultiThreadEnv([lambda: Faulty(healthy=True)] * 2 + [Faulty], mode="async", seed=0)
    processes = list(env.vector_env.processes)
    assert len(processes) == 3 and all(p.is_alive() for p in processes)
    with pytest.raises(SubEnvError, match="sub-env 2"):
        run(RandomPolicy(seed=0), env, StopAfterStep(10**6))
    assert all(not p.is_alive() for p in processes)
    env = MultiThreadEnv([lambda: Faulty(healthy=True), lambda: Faulty(crash=True)],
                         mode="async", seed=0)
    with pytest.raises(SubEnvError, match="exit code 3"):
        run(RandomPolicy(seed=0), env, StopAfterStep(10**6))
    assert gone(env)


def broken_factory():
    raise OSError("no such simulator")


def worker_names():
    return {p.name for p in multiprocessing.active_children() if p.name.startswith("Worker<")}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_factory_that_raises_is_named(mode):
    # Sub-env 1: in async mode its factory runs only in its worker (Gymnasium builds sub-env 0
    # in the parent too, to read the spaces), so the worker dies during construction.
    before = worker_names()
    with pytest.raises(SubEnvError, match=r"sub-env 1") as caught:
        MultiThreadEnv(["CartPole-v1", broken_factory, "CartPole-v1"], mode=mode, seed=0)
    if mode == "sync":
        assert "OSError: no such simulator" in str(caught.value)
    assert worker_names() <= before  # no worker of the failed vector env is left
    with pytest.raises(SubEnvError, match=r"factory of sub-env 0 .* OSError: no such simulator"):
        MultiThreadEnv([broken_factory, "CartPole-v1"], mode=mode, seed=0)


class Sleepy(Faulty):
    """Sleeps ``seconds`` in its 3rd step (a hung simulator)."""

    def __init__(self, seconds=0.0):
        super().__init__(healthy=True)
        self.seconds = seconds

    def step(self, action):
        if self.t == 2:
            time.sleep(self.seconds)
        return super().step(action)


def test_a_hung_sub_env_is_named_after_step_timeout():
    assert MultiThreadEnv(["CartPole-v1"]).step_timeout == 60.0  # finite by default
    factories = [Sleepy, lambda: Sleepy(30.0), Sleepy, lambda: Sleepy(30.0)]
    env = MultiThreadEnv(factories, mode="async", step_timeout=0.5, seed=0)
    processes = list(env.vector_env.processes)
    start = time.perf_counter()
    with pytest.raises(SubEnvError, match=r"sub-env 1, sub-env 3 did not answer within 0.5 s"):
        run(RandomPolicy(seed=0), env, StopAfterStep(10**6))
    assert time.perf_counter() - start < 10
    assert all(not p.is_alive() for p in processes)
    with pytest.raises(ValueError, match="step_timeout"):
        MultiThreadEnv(["CartPole-v1"], step_timeout=0)

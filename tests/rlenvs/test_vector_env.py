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
    Agent, CircularArraySARTSTrajectory, CircularArraySARTTrajectory, ComposedStopCondition,
    DoEveryNEpisode, DoEveryNStep, NStepBatchSampler, RandomPolicy, StepsPerEpisode,
    StopAfterEpisode, StopAfterStep, TotalRewardPerEpisode, n_envs, run,
)
from rlcore.dispatch import check_ambiguities, dispatch, update
from rlcore.hooks import AbstractHook
from rlcore.policies.base import AbstractPolicy
from rlcore.stages import PRE_ACT_STAGE, PRE_EPISODE_STAGE, PostEpisodeStage
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


# --- recording a vectorised run into a SARTS trajectory --------------------------------------

@attrs.define
class LeanPolicy(AbstractPolicy):
    """``lean_policy`` as a policy an ``Agent`` can hold."""

    def __call__(self, env):
        return lean_policy(env)


def short_cart_pole():
    """CartPole cut at 40 steps: the lean policy's episodes end both ways (about 1 in 5
    terminates first)."""
    return gymnasium.make("CartPole-v1", max_episode_steps=40)


SARTS = ("state", "action", "reward", "terminal", "truncated", "next_state")


def hand_transitions(seed, n_envs, n_steps):
    """``(n_steps, n_envs)`` arrays of each SARTS field, from plain environments stepped by
    hand (reset with ``seed + i``, then without a seed): at an episode's end the next state is
    its final state, and the next step starts from the reset state."""
    columns = []
    for i in range(n_envs):
        env = short_cart_pole()
        state, _ = env.reset(seed=seed + i)
        rows = []
        for _ in range(n_steps):
            action = int(state[2] > 0)
            next_state, reward, terminated, truncated, _ = env.step(action)
            rows.append((state, action, reward, terminated, truncated and not terminated,
                         next_state))
            state = next_state
            if terminated or truncated:
                state, _ = env.reset()
        columns.append(rows)
    return {name: np.array([[columns[i][step][k] for i in range(n_envs)]
                            for step in range(n_steps)])
            for k, name in enumerate(SARTS)}


def test_a_vector_run_records_the_transitions_plain_envs_give():
    n, n_steps = 3, 120
    t = CircularArraySARTSTrajectory(1000, n_envs=n, prioritized=True)
    with MultiThreadEnv(short_cart_pole, n, seed=7) as env:
        assert n_envs(env) == 3
        hook = run(Agent(LeanPolicy(), t), env, StopAfterStep(n * n_steps), StepsPerEpisode())
    expected = hand_transitions(int(np.random.default_rng(7).integers(SEED_BOUND)), n, n_steps)
    episode_ends = expected["terminal"] | expected["truncated"]
    assert expected["terminal"].sum() >= 3 and expected["truncated"].sum() >= 3
    assert len(hook.steps) == episode_ends.sum()
    # the end of the run cut every sub-env's last step that did not terminate
    expected["truncated"][-1] |= ~expected["terminal"][-1]
    assert len(t) == n * n_steps  # one row per env step: episode stages recorded nothing
    for name in SARTS:  # row step * n + i is sub-env i's step
        np.testing.assert_array_equal(
            t[name].to_array(),
            expected[name].reshape(n * n_steps, *expected[name].shape[2:]).astype(t[name].dtype),
            err_msg=name)
    ended = expected["terminal"] | expected["truncated"]
    assert t["priority"].to_array().tolist() == [1.0] * (n * n_steps)

    # n-step windows stay in their sub-env's column and stop at its episode ends
    gamma, steps = 0.5, 3
    batch = NStepBatchSampler(n=steps, gamma=gamma, batch_size=200, rng=0)(t)
    for row, reward, next_state in zip(batch.indices, batch.reward, batch.next_state):
        step, i = divmod(int(row), n)
        total, k = 0.0, 0
        while k < steps and step + k < n_steps:
            total += gamma ** k * expected["reward"][step + k, i]
            k += 1
            if ended[step + k - 1, i]:
                break
        assert float(reward) == pytest.approx(total)
        np.testing.assert_array_equal(next_state, expected["next_state"][step + k - 1, i])


def test_a_sart_trajectory_or_another_n_envs_is_refused():
    with MultiThreadEnv("CartPole-v1", 3, seed=0) as env:
        with pytest.raises(TypeError, match=r"CircularArraySARTTrajectory records one "
                                            r"environment .* use CircularArraySARTSTrajectory"
                                            r"\(capacity, n_envs=3, \.\.\.\)"):
            run(Agent(LeanPolicy(), CircularArraySARTTrajectory(100)), env, StopAfterStep(30))
    with MultiThreadEnv("CartPole-v1", 3, seed=0) as env:
        t = CircularArraySARTSTrajectory(100, n_envs=2)
        with pytest.raises(ValueError, match=r"built with n_envs=2 but n_envs\(MultiThreadEnv"
                                             r"\(n=3, mode='sync'\)\) is 3"):
            run(Agent(LeanPolicy(), t), env, StopAfterStep(30))
        assert len(t["state"]) == 0
    check_ambiguities()


def test_a_bad_batch_of_actions_records_nothing():
    t = CircularArraySARTSTrajectory(100, n_envs=3)
    with MultiThreadEnv("CartPole-v1", 3, seed=0) as env:
        env.reset()
        update(t, LeanPolicy(), env[0], PRE_EPISODE_STAGE)  # an episode stage: nothing
        with pytest.raises(ValueError, match="sub-env 1"):
            update(t, LeanPolicy(), env, PRE_ACT_STAGE, np.array([0, 5, 1]))
        with pytest.raises(ValueError, match="one action per sub-env"):
            update(t, LeanPolicy(), env, PRE_ACT_STAGE, np.array([0, 1]))
        assert all(len(trace) == 0 for trace in t.traces.values())
        assert env.ended().tolist() == []


def test_closing_after_a_failure_does_not_hang_when_the_parent_catches_sigterm():
    # pygame (SDL) catches SIGTERM once it has rendered; forked workers inherit the handler, and
    # terminate() would not stop them: the workers restore the default first.
    import subprocess
    import sys

    code = (
        "import signal\n"
        "signal.signal(signal.SIGTERM, lambda *a: None)  # as SDL does\n"
        "from rlenvs import MultiThreadEnv, SubEnvError\n"
        "def bad(): raise RuntimeError('boom')\n"
        "try:\n"
        "    MultiThreadEnv(['CartPole-v1', bad, 'CartPole-v1'], mode='async')\n"
        "except SubEnvError as error:\n"
        "    print('named:', 'sub-env 1' in str(error))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "named: True", result.stderr

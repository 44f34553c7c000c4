"""Steps per second of the vectorised run loop against Gymnasium's vector environments stepped by
hand, in the same process.

(a) ``run(RandomPolicy, MultiThreadEnv(8 x CartPole-v1, mode="async"), StopAfterStep,
TotalRewardPerEpisode)`` against (b) ``AsyncVectorEnv`` (shared memory) stepped by hand with
random actions, the per-episode returns summed by hand (target ratio >= 0.8); (c) and (d) the
same with ``mode="sync"`` against ``SyncVectorEnv``. Both sides use Gymnasium's same-step
autoreset (what ``MultiThreadEnv`` uses). The clocks cover stepping only: the reference is reset
before its clock starts, and ours starts its clock at the policy's first call, after the reset
``run`` does. Repeats are interleaved; medians are printed, with the number of episodes each side
finished as a sanity check (random play on the same task: the counts must be close).

    python benchmarks/vector_env.py --steps 40000 --repeats 5
"""

import argparse
import os
import statistics
import time

import gymnasium
import numpy as np
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

from rlcore import RandomPolicy, StopAfterStep, TotalRewardPerEpisode, run
from rlenvs import MultiThreadEnv

ENV_ID = "CartPole-v1"


class ClockedRandomPolicy(RandomPolicy):
    """``RandomPolicy`` that notes the time of its first call: the clock starts after ``run``
    has reset the vector env (the reference is reset before its clock starts too)."""

    start = None

    def __call__(self, env):
        if self.start is None:
            self.start = time.perf_counter()
        return super().__call__(env)


def ours(mode, n_envs, n_steps):
    env = MultiThreadEnv([ENV_ID] * n_envs, mode=mode, seed=0)
    hook = TotalRewardPerEpisode()
    policy = ClockedRandomPolicy(seed=0)
    run(policy, env, StopAfterStep(n_steps), hook)
    elapsed = time.perf_counter() - policy.start
    env.close()
    return n_steps / elapsed, len(hook.rewards)


def by_hand(mode, n_envs, n_steps):
    make = [lambda: gymnasium.make(ENV_ID)] * n_envs
    if mode == "async":
        env = AsyncVectorEnv(make, shared_memory=True, autoreset_mode=AutoresetMode.SAME_STEP)
    else:
        env = SyncVectorEnv(make, autoreset_mode=AutoresetMode.SAME_STEP)
    rng = np.random.default_rng(0)
    returns, running = [], np.zeros(n_envs)
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(n_steps // n_envs):
        actions = rng.integers(2, size=n_envs)
        _, reward, terminated, truncated, _ = env.step(actions)
        running += reward
        for i in np.flatnonzero(terminated | truncated):
            returns.append(running[i])
            running[i] = 0.0
    elapsed = time.perf_counter() - start
    env.close()
    return n_steps / elapsed, len(returns)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40_000, help="env steps per measurement")
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    modes = {"ours async": "async", "AsyncVectorEnv": "async", "ours sync": "sync",
             "SyncVectorEnv": "sync"}
    keys = tuple(modes)
    results = {key: [] for key in keys}
    episodes = {key: [] for key in keys}
    for _ in range(args.repeats):
        for key in keys:
            measure = ours if key.startswith("ours") else by_hand
            steps_per_s, n_episodes = measure(modes[key], args.envs, args.steps)
            results[key].append(steps_per_s)
            episodes[key].append(n_episodes)
    median = {key: statistics.median(values) for key, values in results.items()}
    median_episodes = {key: statistics.median(values) for key, values in episodes.items()}
    print(f"{args.envs} x {ENV_ID}, {args.steps} env steps per measurement, median of "
          f"{args.repeats}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'what':<48}{'steps/s':>12}{'ratio':>8}{'episodes':>10}")
    rows = (("(a) run(RandomPolicy, MultiThreadEnv async)", "ours async", "AsyncVectorEnv"),
            ("(b) AsyncVectorEnv stepped by hand", "AsyncVectorEnv", "AsyncVectorEnv"),
            ("(c) run(RandomPolicy, MultiThreadEnv sync)", "ours sync", "SyncVectorEnv"),
            ("(d) SyncVectorEnv stepped by hand", "SyncVectorEnv", "SyncVectorEnv"))
    for label, key, reference in rows:
        print(f"{label:<48}{median[key]:>12,.0f}{median[key] / median[reference]:>8.2f}"
              f"{median_episodes[key]:>10,.0f}")
    counts = list(median_episodes.values())
    spread = (max(counts) - min(counts)) / max(counts)
    print(f"episode counts within {100 * spread:.1f}% of each other: "
          f"{'ok' if spread <= 0.1 else 'MISMATCH (the sides do not run the same task)'}")
    ratio = median["ours async"] / median["AsyncVectorEnv"]
    print(f"async ratio {ratio:.2f} (target >= 0.8): {'met' if ratio >= 0.8 else 'NOT met'}")


if __name__ == "__main__":
    main()

"""Steps per second of the vectorised run loop against Gymnasium's vector environments stepped by
hand, in the same process.

(a) ``run(RandomPolicy, MultiThreadEnv(8 x CartPole-v1, mode="async"), StopAfterStep,
TotalRewardPerEpisode)`` against (b) ``AsyncVectorEnv`` (shared memory) stepped by hand with
random actions, the per-episode returns summed by hand (target ratio >= 0.8); (c) and (d) the
same with ``mode="sync"`` against ``SyncVectorEnv``. Both sides use Gymnasium's same-step
autoreset (what ``MultiThreadEnv`` uses). Repeats are interleaved; medians are printed.

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


def ours(mode, n_envs, n_steps):
    env = MultiThreadEnv([ENV_ID] * n_envs, mode=mode, seed=0)
    hook = TotalRewardPerEpisode()
    env.reset()  # start the workers before the clock, as for the reference
    start = time.perf_counter()
    run(RandomPolicy(seed=0), env, StopAfterStep(n_steps), hook)
    elapsed = time.perf_counter() - start
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
    results = {key: [] for key in ("ours async", "AsyncVectorEnv", "ours sync", "SyncVectorEnv")}
    for _ in range(args.repeats):
        results["ours async"].append(ours("async", args.envs, args.steps)[0])
        results["AsyncVectorEnv"].append(by_hand("async", args.envs, args.steps)[0])
        results["ours sync"].append(ours("sync", args.envs, args.steps)[0])
        results["SyncVectorEnv"].append(by_hand("sync", args.envs, args.steps)[0])
    median = {key: statistics.median(values) for key, values in results.items()}
    print(f"{args.envs} x {ENV_ID}, {args.steps} env steps per measurement, median of "
          f"{args.repeats}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'what':<48}{'steps/s':>12}{'ratio':>8}")
    rows = (("(a) run(RandomPolicy, MultiThreadEnv async)", "ours async", "AsyncVectorEnv"),
            ("(b) AsyncVectorEnv stepped by hand", "AsyncVectorEnv", "AsyncVectorEnv"),
            ("(c) run(RandomPolicy, MultiThreadEnv sync)", "ours sync", "SyncVectorEnv"),
            ("(d) SyncVectorEnv stepped by hand", "SyncVectorEnv", "SyncVectorEnv"))
    for label, key, reference in rows:
        print(f"{label:<48}{median[key]:>12,.0f}{median[key] / median[reference]:>8.2f}")
    ratio = median["ours async"] / median["AsyncVectorEnv"]
    print(f"async ratio {ratio:.2f} (target >= 0.8): {'met' if ratio >= 0.8 else 'NOT met'}")


if __name__ == "__main__":
    main()

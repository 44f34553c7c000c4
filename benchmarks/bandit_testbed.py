"""Figure 2.2 of Sutton & Barto at full size, timed: batched versus one-run-at-a-time.

    python benchmarks/bandit_testbed.py [--runs 2000] [--steps 1000] [--workers 2]
                                        [--sample-runs 20]

Figure 2.2 is ε-greedy (ε = 0, 0.01, 0.1, sample averages) on the 10-armed testbed, averaged over
2,000 runs of 1,000 steps each: 3 × 2,000 × 1,000 = 6 million agent steps. The issue asks for it
in under a minute on 2 cores.

In one process this script times

  (a) the batched path: ``run_many`` with ``BatchMultiArmBanditsEnv`` chunks of 1,000 bandits,
      ``BatchQBasedPolicy`` and ``BatchEpsilonGreedyExplorer``, ``--workers`` processes: the full
      figure (3 × ``--runs`` runs);
  (b) the unbatched path: ``run_many`` with one ``MultiArmBanditsEnv`` per run, ``QBasedPolicy``
      and rlcore's ``EpsilonGreedyExplorer``, on ``--sample-runs`` runs per ε in this process;
      its full-size time is extrapolated linearly in the number of runs;

and prints both times, the steps per second of each path (per process for (b)) and the ratio.
It also prints the figure's summary (average reward and % optimal action over steps 500–1000)
so a run can be checked against the book (≈ 1.05/1.3/1.4 and ≈ 35%/55%/80%). Note ``uptime``
next to any figure you quote: the machine may be shared.
"""

import argparse
import os
import time

import numpy as np

from rlcore import (
    Agent, EpsilonGreedyExplorer, Experiment, QBasedPolicy, RewardsPerEpisode, StopAfterStep,
)
from rlenvs.multi_arm_bandits import BatchMultiArmBanditsEnv, MultiArmBanditsEnv
from rlzoo.tabular.bandits import (
    BanditLearner, BatchEpsilonGreedyExplorer, BatchQBasedPolicy, OptimalActionRate,
    bandit_trajectory,
)
from rlzoo.tabular.runner import run_many

EPSILONS = (0.0, 0.01, 0.1)


def batched(epsilon, steps):
    def make(n, rng):
        env = BatchMultiArmBanditsEnv(n_envs=n, seed=int(rng.integers(2 ** 31)))
        policy = BatchQBasedPolicy(BanditLearner(n_actions=10, n_envs=n),
                                   BatchEpsilonGreedyExplorer(epsilon, rng=rng))
        return Experiment(Agent(policy, bandit_trajectory(n, batched=True)), env,
                          StopAfterStep(steps), RewardsPerEpisode() + OptimalActionRate())
    return make


def unbatched(epsilon, steps):
    def make(n, rng):
        assert n == 1
        env = MultiArmBanditsEnv(seed=int(rng.integers(2 ** 31)))
        explorer = EpsilonGreedyExplorer(epsilon_stable=epsilon, rng=rng)
        policy = QBasedPolicy(BanditLearner(n_actions=10), explorer)
        return Experiment(Agent(policy, bandit_trajectory()), env, StopAfterStep(steps),
                          RewardsPerEpisode() + OptimalActionRate())
    return make


def curve(hook):
    return np.r_[hook[0].rewards[0], hook[1].rates]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sample-runs", type=int, default=20)
    args = parser.parse_args()
    steps = args.steps
    print(f"load average before: {os.getloadavg()}")

    start = time.perf_counter()
    results = {eps: run_many(batched(eps, steps), args.runs, curve=curve, seed=0,
                             chunk_size=1000, n_workers=args.workers) for eps in EPSILONS}
    t_batched = time.perf_counter() - start
    total_steps = len(EPSILONS) * args.runs * steps
    print(f"(a) batched, Figure 2.2 at {len(EPSILONS)} × {args.runs} runs × {steps} steps, "
          f"{args.workers} workers: {t_batched:.1f} s ({total_steps / t_batched:,.0f} steps/s)")
    for eps, c in results.items():
        reward, optimal = c[:steps], c[steps:]
        half = steps // 2
        print(f"    ε = {eps:<4}: average reward (steps {half}–{steps}) "
              f"{reward[half:].mean():.3f}, % optimal {100 * optimal[half:].mean():.1f}")

    start = time.perf_counter()
    for eps in EPSILONS:
        run_many(unbatched(eps, steps), args.sample_runs, curve=curve, seed=0)
    t_sample = time.perf_counter() - start
    sample_steps = len(EPSILONS) * args.sample_runs * steps
    t_unbatched = t_sample * args.runs / args.sample_runs
    print(f"(b) unbatched, {len(EPSILONS)} × {args.sample_runs} runs in 1 process: "
          f"{t_sample:.1f} s ({sample_steps / t_sample:,.0f} steps/s); extrapolated to "
          f"{args.runs} runs: {t_unbatched:.0f} s in 1 process")
    per_process = (total_steps / t_batched) / args.workers
    print(f"ratio (b)/(a) in wall time: {t_unbatched / t_batched:.0f}× "
          f"(per process: {per_process / (sample_steps / t_sample):.0f}×)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

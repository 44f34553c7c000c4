"""DQN from vectorised environments: env steps per second with 1, 4 and 8 CartPoles, and time
to a greedy 475 with each.

    python benchmarks/dqn_vector_env.py [--steps 10000] [--repeats 3] [--envs 1,4,8]
                                        [--seeds 0,...,9]

Throughput: ``DQN_CartPole`` at its registered settings with ``n_envs`` sub-environments
(``MultiThreadEnv``, sync mode: one batched forward for all of them per step, one replay column
each), ``--steps`` env steps through ``run``, no evaluation; every repeat runs each ``n_envs``
in turn and the table shows medians. ``update_freq`` counts env steps of all sub-envs, so every
setting takes the same number of gradient steps: what changes is the acting side. Time to
solve: training time (evaluation excluded) to the first greedy evaluation >= 475 (10 episodes
every 1,000 env steps), median over ``--seeds``, as ``benchmarks/dqn_cartpole.py``.
One torch thread.
"""

import argparse
import statistics
import time

import torch

from dqn_cartpole import one_run
from rlcore import EmptyHook, run
from rlzoo.experiments import registry


def steps_per_second(n_envs, steps, seed):
    experiment = registry.make("DQN_CartPole", seed, steps=steps, n_envs=n_envs,
                               eval_every=10 * steps)
    start = time.perf_counter()
    run(experiment.policy, experiment.env, experiment.stop_condition, EmptyHook())
    seconds = time.perf_counter() - start
    if n_envs > 1:
        experiment.env.close()
    return steps / seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--envs", default="1,4,8")
    parser.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8,9")
    parser.add_argument("--solve-steps", type=int, default=50_000)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    counts = [int(n) for n in args.envs.split(",")]
    rates = {n: [] for n in counts}
    for repeat in range(args.repeats):
        for n in counts:
            rates[n].append(steps_per_second(n, args.steps, repeat))
            print(f"repeat {repeat}: {n} envs {rates[n][-1]:.0f} env steps/s", flush=True)
    solved = {n: [] for n in counts}
    for seed in [int(s) for s in args.seeds.split(",")]:
        for n in counts:
            reached = one_run("DQN_CartPole", seed, args.solve_steps, n_envs=n)
            solved[n].append(reached.get(475))
            print(f"seed {seed}, {n} envs: 475 at {reached.get(475)}", flush=True)
    base = statistics.median(rates[counts[0]])
    print(f"\n{args.steps} env steps, median of {args.repeats} repeats; time to 475 over "
          f"seeds {args.seeds}")
    print("| sub-envs | env steps/s | ratio | reached 475 | median s to 475 | median steps |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in counts:
        hits = [h for h in solved[n] if h is not None]
        seconds = f"{statistics.median(h[0] for h in hits):.1f}" if hits else "-"
        steps = f"{statistics.median(h[1] for h in hits):,.0f}" if hits else "-"
        rate = statistics.median(rates[n])
        print(f"| {n} | {rate:,.0f} | {rate / base:.2f} | {len(hits)}/{len(solved[n])} | "
              f"{seconds} | {steps} |")


if __name__ == "__main__":
    main()

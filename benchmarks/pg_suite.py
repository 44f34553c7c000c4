"""The policy-gradient family's named experiments over ten seeds: success rate, and the median
training wall time and env steps to the threshold.

    python benchmarks/pg_suite.py [--seeds 0,...,9] [--only PPO_CartPole,SAC_Pendulum,...]
                                  [--jobs 1]

Each experiment runs as registered (``rlzoo show NAME``) with ``stop_at`` set to its threshold
(CartPole 475, VPG 195; Pendulum −250), so a run stops at the first evaluation that reaches it
(10 episodes of the policy's mode every ``eval_every`` env steps) or at its budget of env steps.
A seed succeeds when an evaluation reached the threshold. The time is the run's wall time minus
the time spent evaluating (``EvaluateEveryNStep.seconds``). One torch thread per run; ``--jobs``
runs that many seeds at once in separate processes (times then include the contention). The
issue's bar: at least 8 of 10 seeds succeed.
"""

import argparse
import concurrent.futures
import statistics
import time

import torch

THRESHOLDS = {
    "VPG_CartPole": 195, "A2C_CartPole": 475, "A2CGAE_CartPole": 475, "MAC_CartPole": 475,
    "PPO_CartPole": 475, "TRPO_CartPole": 475, "DiscreteSAC_CartPole": 475,
    "PPO_Pendulum": -250, "DDPG_Pendulum": -250, "TD3_Pendulum": -250, "SAC_Pendulum": -250,
}


def one_run(name, seed):
    """``(reached, env steps at the stop, training seconds)`` of one seeded run of ``name``."""
    torch.set_num_threads(1)
    from rlcore import EvaluateEveryNStep, run
    from rlzoo.experiments import registry
    from rlzoo.experiments.common import find_hook

    threshold = THRESHOLDS[name]
    experiment = registry.make(name, seed, stop_at=threshold)
    start = time.perf_counter()
    hook = run(experiment)
    seconds = time.perf_counter() - start
    evaluation = find_hook(hook, EvaluateEveryNStep)
    reached = bool(evaluation.returns) and max(evaluation.returns) >= threshold
    return reached, evaluation.t, seconds - evaluation.seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8,9")
    parser.add_argument("--only", default=",".join(THRESHOLDS))
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    names = args.only.split(",")
    unknown = [n for n in names if n not in THRESHOLDS]
    if unknown:
        parser.error(f"unknown experiments {unknown}; valid: {sorted(THRESHOLDS)}")
    runs = [(name, seed) for seed in seeds for name in names]  # seeds interleaved
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        results = dict(zip(runs, pool.map(one_run, *zip(*runs))))
    for name in names:
        for seed in seeds:
            reached, steps, seconds = results[name, seed]
            print(f"{name} seed {seed}: {'reached' if reached else 'missed'} at {steps} env "
                  f"steps, {seconds:.1f} s")
    print(f"\nseeds {seeds}")
    print("| experiment | threshold | succeeded | median s to threshold | "
          "median env steps to threshold |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        hits = [results[name, s] for s in seeds if results[name, s][0]]
        cells = [name, str(THRESHOLDS[name]), f"{len(hits)}/{len(seeds)}",
                 f"{statistics.median(h[2] for h in hits):.1f}" if hits else "-",
                 f"{statistics.median(h[1] for h in hits):.0f}" if hits else "-"]
        print("| " + " | ".join(cells) + " |", flush=True)

if __name__ == "__main__":
    main()

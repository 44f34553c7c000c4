"""The DQN family on CartPole-v1: success rate, time and env steps to a greedy evaluation of 195
and 475, 5 seeds per algorithm.

    python benchmarks/dqn_cartpole.py [--seeds 0,1,2,3,4] [--only DQN_CartPole,...]
                                      [--steps 50000] [--budget 30000]

Each run is the registered experiment (``rlzoo show NAME``) with its own hyper-parameters,
evaluated every 1,000 steps by 10 greedy episodes on a separate env, and stopped at the first
evaluation >= 475 or after ``--steps`` env steps. Wall time is training time: the time spent in
evaluations is subtracted. Success: an evaluation >= 195 within ``--budget`` steps (the CI
criterion). Medians are over the seeds that reached the threshold. One torch thread.
"""

import argparse
import statistics
import time

import torch

from rlcore import DoEveryNStep, EvaluateEveryNStep, run
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook

ALGORITHMS = ["BasicDQN_CartPole", "DQN_CartPole", "PrioritizedDQN_CartPole", "C51_CartPole",
              "QRDQN_CartPole", "IQN_CartPole", "REMDQN_CartPole", "Rainbow_CartPole"]


def one_run(name, seed, steps, **overrides):
    """``{threshold: (training seconds, env steps)}`` of the first evaluations >= 195 and 475."""
    experiment = registry.make(name, seed, steps=steps, stop_at=475, **overrides)
    evaluation = find_hook(experiment.hook, EvaluateEveryNStep)
    reached, start = {}, time.perf_counter()

    def record(t, policy, env):
        if len(evaluation.returns) == len(reached.setdefault("seen", [])):
            return  # no new evaluation in this (batched) step
        reached["seen"].append(evaluation.returns[-1])
        for threshold in (195, 475):
            if evaluation.returns[-1] >= threshold and threshold not in reached:
                reached[threshold] = (time.perf_counter() - start - evaluation.seconds,
                                      evaluation.steps[-1])

    run(experiment.policy, experiment.env, experiment.stop_condition,
        experiment.hook + DoEveryNStep(record))
    reached.pop("seen", None)
    return reached


def _median(values, fmt):
    return format(statistics.median(values), fmt) if values else "-"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--only", default=",".join(ALGORITHMS))
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--budget", type=int, default=30_000)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    for name in args.only.split(","):
        results = []
        for seed in seeds:
            reached = one_run(name, seed, args.steps)
            results.append(reached)
            print(f"{name} seed {seed}: " + ", ".join(
                f">= {k}: {v[0]:.1f} s, {v[1]} steps" for k, v in sorted(reached.items()))
                or f"{name} seed {seed}: no evaluation >= 195", flush=True)
        success = sum(1 for r in results if 195 in r and r[195][1] <= args.budget)
        cells = [name, f"{success}/{len(seeds)}"]
        for threshold in (195, 475):
            hits = [r[threshold] for r in results if threshold in r]
            cells += [f"{len(hits)}/{len(seeds)}", _median([h[0] for h in hits], ".1f"),
                      _median([h[1] for h in hits], ".0f")]
        rows.append(cells)
    print(f"\nseeds {seeds}; success: evaluation >= 195 within {args.budget} steps")
    print("| experiment | success | reached 195 | median s to 195 | median steps to 195 "
          "| reached 475 | median s to 475 | median steps to 475 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for cells in rows:
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

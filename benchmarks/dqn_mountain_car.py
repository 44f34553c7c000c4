"""The MountainCar experiments: best greedy evaluation within their step budget, per seed.

    python benchmarks/dqn_mountain_car.py [--seeds 0,1,2,3,4] [--only DQN_MountainCar,...]

Each run is the registered experiment with its defaults, evaluated every 5,000 steps by 10 greedy
episodes of at most 200 steps (Gymnasium's limit, whatever the training episodes' limit:
BasicDQN_MountainCar trains on episodes of up to 5,000 steps), and stopped at the first
evaluation >= -150 (the goal) or at its step budget. Prints a Markdown table, one "reached -150:
k/n" line per experiment and the total wall time. One torch thread.
"""

import argparse
import time

import torch

from rlcore import EvaluateEveryNStep, run
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook

EXPERIMENTS = ["DQN_MountainCar", "BasicDQN_MountainCar"]
GOAL = -150


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--only", default=",".join(EXPERIMENTS))
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    names = args.only.split(",")
    unknown = sorted(set(names) - set(registry.names()))
    if unknown:
        parser.error(f"--only: unknown experiment(s) {', '.join(unknown)}; expected names from "
                     f"{', '.join(EXPERIMENTS)}")
    torch.set_num_threads(1)
    total = time.perf_counter()
    summary = []
    print(f"| experiment | seed | best evaluation | at step | reached {GOAL} | wall s |")
    print("|---|---:|---:|---:|---|---:|")
    for name in names:
        reached = 0
        for seed in seeds:
            start = time.perf_counter()
            hook = run(registry.make(name, seed, stop_at=GOAL))
            evaluation = find_hook(hook, EvaluateEveryNStep)
            best = max(range(len(evaluation.returns)), key=evaluation.returns.__getitem__)
            ok = evaluation.returns[best] >= GOAL
            reached += ok
            print(f"| {name} | {seed} | {evaluation.returns[best]:.1f} | "
                  f"{evaluation.steps[best]} | {ok} | {time.perf_counter() - start:.0f} |",
                  flush=True)
        summary.append(f"{name}: reached {GOAL}: {reached}/{len(seeds)}")
    print()
    for line in summary:
        print(line)
    print(f"total wall time: {time.perf_counter() - total:.0f} s")


if __name__ == "__main__":
    main()

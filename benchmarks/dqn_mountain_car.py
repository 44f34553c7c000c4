"""The MountainCar experiments: best greedy evaluation within their step budget, per seed.

    python benchmarks/dqn_mountain_car.py [--seeds 0,1,2] [--only DQN_MountainCar,...]

Each run is the registered experiment, evaluated every 5,000 steps by 10 greedy episodes, and
stopped at the first evaluation >= -150 (the goal) or at its step budget. One torch thread.
"""

import argparse
import time

import torch

from rlcore import EvaluateEveryNStep, run
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook

EXPERIMENTS = ["DQN_MountainCar", "BasicDQN_MountainCar"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--only", default=",".join(EXPERIMENTS))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print("| experiment | seed | best evaluation | at step | reached -150 | wall s |")
    print("|---|---:|---:|---:|---|---:|")
    for name in args.only.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            start = time.perf_counter()
            hook = run(registry.make(name, seed, stop_at=-150))
            evaluation = find_hook(hook, EvaluateEveryNStep)
            best = max(range(len(evaluation.returns)), key=evaluation.returns.__getitem__)
            print(f"| {name} | {seed} | {evaluation.returns[best]:.1f} | "
                  f"{evaluation.steps[best]} | {evaluation.returns[best] >= -150} | "
                  f"{time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()

"""Framework cost of tabular Q-learning: our Agent through ``run`` against a bare loop.

    python benchmarks/tabular_framework_cost.py [--steps 200000] [--repeats 5]

The work: Q-learning (α = 0.5, γ = 1, ε-greedy with ε = 0.1 and random tie-breaking) on the
4×12 cliff walking grid of Sutton & Barto's Example 6.6 (``rlenvs`` ``cliff_walking``), the same
env class on both sides. Ours is what the library's users write: ``Agent(QBasedPolicy(
TDLearner(TabularQApproximator(...), method="Q"), EpsilonGreedyExplorer(...)),
VectorSARTTrajectory())`` through ``run`` with ``StopAfterStep``. The bare loop steps the same
env, keeps the Q-table in a numpy array and does the ε-greedy choice and the update inline. Both
draw their random numbers the same way, so the two runs take the same actions and end with the
same Q-table (checked). Each repeat runs both in turn; the table shows the median env steps per
second. The guide's target for every algorithm family: ours >= 0.9 x the bare loop.
"""

import argparse
import statistics
import time

import numpy as np

from rlcore import (
    Agent, EpsilonGreedyExplorer, QBasedPolicy, StopAfterStep, TabularQApproximator,
    VectorSARTTrajectory, run,
)
from rlenvs import cliff_walking
from rlzoo.tabular import TDLearner

ALPHA, GAMMA, EPSILON = 0.5, 1.0, 0.1


def ours(n_steps, seed):
    """``(steps per second, Q-table)`` of the library's Q-learning agent through ``run``."""
    env = cliff_walking()
    n_state, n_action = 48, 4
    learner = TDLearner(TabularQApproximator(n_state=n_state, n_action=n_action, alpha=ALPHA),
                        method="Q", gamma=GAMMA)
    agent = Agent(QBasedPolicy(learner, EpsilonGreedyExplorer(epsilon_stable=EPSILON,
                                                              seed=seed)),
                  VectorSARTTrajectory())
    start = time.perf_counter()
    run(agent, env, StopAfterStep(n_steps))
    return n_steps / (time.perf_counter() - start), learner.approximator.table


def bare(n_steps, seed):
    """The same Q-learning as one hand-written loop over the same env class."""
    env = cliff_walking()
    q = np.zeros((48, 4))
    rng = np.random.default_rng(seed)  # as EpsilonGreedyExplorer(seed=seed) draws
    env.reset()
    s = env.state()
    start = time.perf_counter()
    for _ in range(n_steps):
        if rng.random() >= EPSILON:  # greedy, a random one among equal maxima
            row = q[s].tolist()
            best = max(row)
            count = row.count(best)
            a = row.index(best) if count == 1 else \
                [i for i, v in enumerate(row) if v == best][int(rng.random() * count)]
        else:
            a = int(rng.random() * 4)
        env(a)
        r, s2 = env.reward(), env.state()
        terminated = env.is_terminated()
        target = r if terminated else r + GAMMA * q[s2].max()
        q[s, a] += ALPHA * (target - q[s, a])
        if terminated or env.is_truncated():
            env.reset()
            s = env.state()
        else:
            s = s2
    return n_steps / (time.perf_counter() - start), q


CONTENDERS = {"bare": bare, "ours": ours}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    speeds = {name: [] for name in CONTENDERS}
    for repeat in range(args.repeats):  # interleaved: drift hits both alike
        tables = {}
        for name, contender in CONTENDERS.items():
            speed, tables[name] = contender(args.steps, args.seed + repeat)
            speeds[name].append(speed)
            print(f"repeat {repeat}: {name} {speed:,.0f} steps/s", flush=True)
        same = np.allclose(tables["bare"], tables["ours"])
        print(f"repeat {repeat}: same Q-table: {same}", flush=True)
    base = statistics.median(speeds["bare"])
    print(f"\n{args.steps} env steps, median of {args.repeats} repeats")
    print("| contender | env steps/s | ratio to bare loop |\n|---|---:|---:|")
    for name in CONTENDERS:
        median = statistics.median(speeds[name])
        print(f"| {name} | {median:,.0f} | {median / base:.2f} |")


if __name__ == "__main__":
    main()

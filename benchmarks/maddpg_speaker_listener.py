"""MADDPG on the speaker-listener game: ten seeds against a random team and against what any
silent team can score.

    python benchmarks/maddpg_speaker_listener.py [--seeds 0,...,9] [--steps 20000]
                                                 [--eval-every 5000] [--eval-episodes 100]
                                                 [--jobs 1] [KEY=VALUE ...]

Each seed trains ``MADDPG_SpeakerListener`` (``rlzoo show MADDPG_SpeakerListener``; the
``KEY=VALUE`` pairs override its settings) for ``--steps`` env steps and evaluates the greedy
team every ``--eval-every`` steps over ``--eval-episodes`` episodes. Two references, measured
here:

* a random team's mean return over 1,000 episodes (about −38);
* the silent bound: a listener that does not hear the goal can do no better in expectation
  than sit at the centroid of the three landmarks from the first step, which costs 25 times
  the landmarks' mean squared distance to their centroid, 25 · 4/9 ≈ −11.1 (estimated here
  over 100,000 draws); a team scoring above it communicates.

Targets (20,000 steps, the default): the mean over the seeds of the last evaluation beats the
random team by at least 20, and every seed by at least 15 (the CI test asks 20 of seed 0 after
10,000 steps). Reported besides: how many seeds beat it by 20, and how many score above the
silent bound (the speaker and the listener agree on a code; that takes longer, give
``--steps``). The report lists, per seed, the evaluations, the first step reaching each mark
and the wall time (one torch thread per run; ``--jobs`` runs seeds in parallel processes).

Measured 2026-11-24 on the 2-core development machine (load average about 5 from other work,
``--jobs 2``), random team −37.67, silent bound −11.11:

| steps (eval every) | mean of last evaluations | min | ≥ random + 20 | > silent bound (last/any) |
|---:|---:|---:|---:|---:|
| 20,000 (5,000) | −14.57 (random + 23.1) | −17.82 (random + 19.9) | 9/10 | 1/10 / 1/10 |
| 50,000 (10,000) | −12.85 (random + 24.8) | −16.62 (random + 21.1) | 10/10 | 3/10 / 4/10 |

Both meet the target. An evaluation of 100 episodes is noisy (the same policy, seed 1 after
10,000 steps, scored −15.0 and −18.7 on the evaluation episodes of the two runs).
"""

import argparse
import multiprocessing
import statistics
import time

import numpy as np
import torch

STEPS_PER_EPISODE = 25


def silent_bound(n_draws=100_000, seed=0):
    """``−25 · E[mean_k |l_k − centroid|²]`` for three landmarks uniform in [−1, 1]²."""
    landmarks = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(n_draws, 3, 2))
    spread = ((landmarks - landmarks.mean(axis=1, keepdims=True)) ** 2).sum(-1).mean(-1)
    return -STEPS_PER_EPISODE * float(spread.mean())


def random_return(n_episodes=1000):
    from rlzoo.experiments.maddpg import random_team, team_return, team_view

    return team_return(random_team(0), team_view(1), n_episodes)


def train(args):
    seed, steps, eval_every, eval_episodes, overrides = args
    torch.set_num_threads(1)
    from rlcore import EvaluateEveryNStep
    from rlzoo.experiments.common import find_hook
    from rlzoo.experiments.maddpg import MADDPG_SpeakerListener

    start = time.perf_counter()
    experiment = MADDPG_SpeakerListener(seed, steps=steps, eval_every=eval_every,
                                        eval_episodes=eval_episodes, **overrides)
    evaluation = find_hook(experiment.run(), EvaluateEveryNStep)
    seconds = time.perf_counter() - start
    return seed, list(evaluation.steps), list(evaluation.returns), seconds, evaluation.seconds


def first_step(steps, returns, threshold):
    return next((s for s, r in zip(steps, returns) if r >= threshold), None)


def parse_overrides(pairs):
    overrides = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            overrides[key] = int(value)
        except ValueError:
            try:
                overrides[key] = float(value)
            except ValueError:
                overrides[key] = {"True": True, "False": False}.get(value, value)
    return overrides


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default=",".join(map(str, range(10))))
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--eval-every", type=int, default=5000)
    parser.add_argument("--eval-episodes", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("overrides", nargs="*", help="KEY=VALUE settings of the experiment")
    args = parser.parse_args()
    torch.set_num_threads(1)
    overrides = parse_overrides(args.overrides)
    seeds = [int(s) for s in args.seeds.split(",")]

    random_mean, bound = random_return(), silent_bound()
    margin_target = random_mean + 20
    print(f"random team {random_mean:.2f} (1,000 episodes); margin target >= "
          f"{margin_target:.2f}; silent bound {bound:.2f}; settings {overrides or 'as registered'}",
          flush=True)
    jobs = [(seed, args.steps, args.eval_every, args.eval_episodes, overrides) for seed in seeds]
    if args.jobs > 1:
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            results = pool.map(train, jobs)
    else:
        results = []
        for job in jobs:
            results.append(train(job))
            seed, steps, returns, seconds, _ = results[-1]
            print(f"seed {seed}: {[round(r, 1) for r in returns]} ({seconds:.0f} s)", flush=True)

    print(f"\n| seed | returns at steps {results[0][1]} | first step >= random + 20 | first "
          f"step > silent bound | wall s (eval s) |\n|---:|---|---:|---:|---:|")
    finals = []
    for seed, steps, returns, seconds, eval_seconds in results:
        finals.append(returns[-1])
        print(f"| {seed} | {', '.join(f'{r:.1f}' for r in returns)} | "
              f"{first_step(steps, returns, margin_target)} | "
              f"{first_step(steps, returns, bound + 1e-9)} | {seconds:.0f} ({eval_seconds:.0f}) |")
    beat = sum(r >= margin_target for r in finals)
    mean = statistics.mean(finals)
    met = mean >= random_mean + 20 and min(finals) >= random_mean + 15
    print(f"\nlast evaluation: mean {mean:.2f} (random + {mean - random_mean:.2f}), median "
          f"{statistics.median(finals):.2f}, min {min(finals):.2f} (random + "
          f"{min(finals) - random_mean:.2f}) over {len(finals)} seeds: target (mean >= random "
          f"+ 20, every seed >= random + 15) {'met' if met else 'NOT met'}; {beat}/{len(finals)} "
          f"seeds beat the random team by 20; {sum(r > bound for r in finals)}/{len(finals)} "
          f"above the silent bound ({bound:.2f})")


if __name__ == "__main__":
    main()

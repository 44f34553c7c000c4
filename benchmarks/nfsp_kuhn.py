"""NFSP on Kuhn poker, ten seeds: the NashConv of the average policies against the moves played.

    python benchmarks/nfsp_kuhn.py [--seeds 0,1,...,9] [--steps N] [--every N] [--target 0.1]
                                   [--set key=value ...]

Each run is the registered ``NFSP_KuhnPoker`` experiment (``rlzoo show NFSP_KuhnPoker``; its
defaults unless ``--set`` overrides them) for ``--steps`` moves of the players (a hand of Kuhn
poker has 2 or 3 moves; the deals are sampled by ``StochasticEnv``), with NashConv measured
exactly on the game tree every ``--every`` moves. Per seed: the first measurement below
``--target``, the last measurement, the smallest, and the wall time (one torch thread, the
measurements included; each takes about 1 ms). The issue's criterion: NashConv < 0.1 within the
budget.
"""

import argparse
import statistics
import time

import torch

from rlcore import run
from rlzoo.experiments.nfsp import NFSP_KuhnPoker


def one_run(seed, steps, every, **overrides):
    """``(hook.steps, hook.values, seconds)`` of one seed."""
    experiment = NFSP_KuhnPoker(seed, steps=steps, every=every, **overrides)
    start = time.perf_counter()
    hook = run(experiment)
    return hook.steps, hook.values, time.perf_counter() - start


def _value(text):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"True": True, "False": False, "None": None}.get(text, text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default=",".join(map(str, range(10))))
    parser.add_argument("--steps", type=int, default=None,
                        help="moves per run (default: the experiment's steps)")
    parser.add_argument("--every", type=int, default=20_000)
    parser.add_argument("--target", type=float, default=0.1)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an experiment keyword (repeatable)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    overrides = {k: _value(v) for k, v in (s.split("=", 1) for s in args.set)}
    if args.steps is not None:
        overrides["steps"] = args.steps
    steps = overrides.pop("steps", 1_000_000)
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    for seed in seeds:
        measured, values, seconds = one_run(seed, steps, args.every, **overrides)
        first = next((s for s, v in zip(measured, values) if v < args.target), None)
        rows.append((seed, first, values[-1], min(values), seconds))
        print(f"seed {seed}: first < {args.target} at {first or '-'} moves; last "
              f"{values[-1]:.4f}; min {min(values):.4f}; {seconds:.0f} s; curve "
              + " ".join(f"{s // 1000}k:{v:.3f}" for s, v in zip(measured, values)),
              flush=True)
    reached = [r for r in rows if r[1] is not None]
    print(f"\nNFSP_KuhnPoker, {steps} moves, NashConv every {args.every}, {overrides or ''}")
    print("| seed | first NashConv < target (moves) | last NashConv | min NashConv | wall s |")
    print("|---|---|---|---|---|")
    for seed, first, last, least, seconds in rows:
        print(f"| {seed} | {first or '-'} | {last:.3f} | {least:.3f} | {seconds:.0f} |")
    print(f"\nbelow {args.target} within the budget: {len(reached)}/{len(rows)}; last below: "
          f"{sum(r[2] < args.target for r in rows)}/{len(rows)}; median last "
          f"{statistics.median(r[2] for r in rows):.3f}; median first "
          f"{statistics.median(r[1] for r in reached) if reached else '-'}; total wall "
          f"{sum(r[4] for r in rows):.0f} s")


if __name__ == "__main__":
    main()

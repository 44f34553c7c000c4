"""Deep CFR on Leduc hold'em (or Kuhn poker): the NashConv of the average-policy network over
the iterations, per seed.

    nohup python benchmarks/deep_cfr_leduc.py [--seeds 0,1,2] [--game leduc|kuhn]
                                              [--set steps=200 --set every=20 ...] &

Each seed runs ``DeepCFR_LeducHoldem`` (``DeepCFR_KuhnPoker`` with ``--game kuhn``) as
registered, with the ``--set`` overrides, on one torch thread. Printed per seed: the NashConv
at each measurement of the run's :class:`~rlzoo.multi_agent.hooks.NashConvHook` (each one a
policy-network fit), the NashConv of the exact ``t``-weighted average of the strategy memory at
the end (what a perfect fit of the average-policy network would give: it separates the
network's fitting error from the error of the sampled regrets), the players' expected values,
and the wall time (iterations, fits and measurements together).
"""

import argparse
import ast
import time

import numpy as np
import torch


def memory_average(solver):
    """The exact average policy of the strategy memory: each information set's stored strategies
    weighted by their iterations (uniform where the memory holds none)."""
    tree, memory = solver.tree, solver.strategy_memory
    n = len(memory)
    table = np.zeros((tree.n_infosets, tree.n_actions))
    np.add.at(table, memory.columns["infoset"][:n],
              memory.columns["iteration"][:n, None] * memory.columns["strategy"][:n])
    total = table.sum(axis=1, keepdims=True)
    return np.where(total > 0, table / np.maximum(total, 1e-300), tree.uniform_table())


def one_run(game, seed, overrides):
    from rlcore import DoEveryNStep, run
    from rlzoo.experiments.deep_cfr import DeepCFR_KuhnPoker, DeepCFR_LeducHoldem
    from rlzoo.multi_agent.exploitability import expected_policy_values, nash_conv_of_table

    make = DeepCFR_LeducHoldem if game == "leduc" else DeepCFR_KuhnPoker
    experiment = make(seed, **overrides)
    every = experiment.hook.every
    start = time.perf_counter()

    def report(t, solver, env):  # after the NashConvHook's measurement of the same step
        print(f"  seed {seed}, iteration {t}: {time.perf_counter() - start:.0f} s", flush=True)

    experiment.hook = experiment.hook + DoEveryNStep(report, n=every)
    hook = run(experiment)[0]
    seconds = time.perf_counter() - start
    solver = experiment.policy
    exact = nash_conv_of_table(solver.tree, memory_average(solver))
    values = expected_policy_values(solver.tree, solver)
    return hook.steps, hook.values, exact, values, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--game", choices=("leduc", "kuhn"), default="leduc")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    overrides = {}
    for item in args.set:
        key, _, value = item.partition("=")
        try:
            overrides[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            overrides[key] = value
    print(f"Deep CFR on {args.game}, overrides {overrides}", flush=True)
    finals = []
    for seed in (int(s) for s in args.seeds.split(",")):
        steps, values, exact, expected, seconds = one_run(args.game, seed, overrides)
        finals.append(values[-1])
        curve = ", ".join(f"{s}: {v:.4f}" for s, v in zip(steps, values))
        print(f"seed {seed}: NashConv {curve}; memory average {exact:.4f}; values "
              f"{np.round(expected, 4).tolist()}; {seconds:.0f} s", flush=True)
    print(f"final NashConv: median {np.median(finals):.4f}, min {min(finals):.4f}, "
          f"max {max(finals):.4f} over {len(finals)} seeds", flush=True)


if __name__ == "__main__":
    main()

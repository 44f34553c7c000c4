"""Many independent seeded runs of an experiment, averaging a curve read from each run's hook.

Reference: Sutton & Barto (2018) average their learning curves over many runs (2,000 for the
10-armed testbed, §2.3; 100 for the random walk, Example 6.2). :func:`run_many` runs an
experiment factory once per *chunk* of runs and averages the curves, each chunk through the
library's own ``run`` (so policies, agents, hooks and dispatch are exactly those of a single
run). A chunk is one run for an ordinary environment, or a batch of runs when the experiment
uses a vectorised environment such as
:class:`~rlenvs.multi_arm_bandits.BatchMultiArmBanditsEnv`; chunks can run in parallel
processes.

Seeds: chunk ``i`` gets ``numpy.random.default_rng(SeedSequence(seed).spawn(n_chunks)[i])``, so
results depend on ``seed`` and the chunk size, not on the number of worker processes.

Example, Figure 2.2's ε = 0.1 curve over 200 runs in two chunks of 100::

    >>> from rlcore import Agent, Experiment, RewardsPerEpisode, StopAfterStep
    >>> from rlenvs.multi_arm_bandits import BatchMultiArmBanditsEnv
    >>> from rlzoo.tabular.bandits import (BanditLearner, BatchEpsilonGreedyExplorer,
    ...                                    BatchQBasedPolicy, bandit_trajectory)
    >>> def make(n, rng):
    ...     policy = BatchQBasedPolicy(BanditLearner(n_actions=10, n_envs=n),
    ...                                BatchEpsilonGreedyExplorer(0.1, rng=rng))
    ...     return Experiment(Agent(policy, bandit_trajectory(n)),
    ...                       BatchMultiArmBanditsEnv(n_envs=n, rng=rng), StopAfterStep(100),
    ...                       RewardsPerEpisode())
    >>> curve = run_many(make, n_runs=200, chunk_size=100, curve=lambda hook: hook.rewards[0])
    >>> curve.shape
    (100,)
"""

import concurrent.futures
import multiprocessing

import numpy as np

from rlcore.experiment import Experiment
from rlcore.run import run

__all__ = ["run_many"]

_WORKER_TASK = None  # (make, curve), set only inside worker processes by _init_worker


def _init_worker(make, curve):
    """Pool initializer: the forked worker keeps this call's ``make`` and ``curve``.

    Under ``fork`` the initializer's arguments are inherited, not pickled, so ``make`` may be a
    closure or a notebook function. The parent process never sets ``_WORKER_TASK``.
    """
    global _WORKER_TASK
    _WORKER_TASK = (make, curve)


def _worker_chunk(task):
    return _run_chunk(*_WORKER_TASK, task)


def _run_chunk(make, curve, task):
    index, n, seed_sequence = task
    rng = np.random.default_rng(seed_sequence)
    experiment = make(n, rng)
    if not isinstance(experiment, Experiment):
        raise TypeError(f"make(n, rng) must return an rlcore Experiment, got "
                        f"{type(experiment).__name__}")
    hook = run(experiment)
    return index, np.asarray(curve(hook), dtype=np.float64)


def run_many(make, n_runs, curve, seed=0, chunk_size=1, n_workers=1, return_all=False):
    """Average ``curve(hook)`` over ``n_runs`` independent runs of ``make``.

    Args:
        make: ``make(n, rng) -> Experiment`` building ``n`` runs at once (``n`` is 1 unless the
            experiment batches runs in a vectorised environment) from one ``numpy`` Generator,
            which seeds every random component.
        n_runs: the number of runs.
        curve: ``curve(hook) -> sequence``, the curve of one chunk (already the mean over its
            ``n`` runs for a batched chunk); every chunk must give the same length.
        seed: the root seed.
        chunk_size: runs per call of ``make`` (the last chunk may be smaller).
        n_workers: processes to run chunks in parallel (``1``: in this process). Uses ``fork``,
            so ``make`` may be a closure or a notebook function.
        return_all: also return the array of chunk curves (``(n_chunks, length)``) and sizes.

    Returns the run-weighted mean curve (a numpy array), or ``(mean, curves, sizes)``.
    """
    if not isinstance(n_runs, int) or n_runs < 1:
        raise ValueError(f"n_runs must be a positive int, got {n_runs!r}")
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
    if not isinstance(n_workers, int) or n_workers < 1:
        raise ValueError(f"n_workers must be a positive int, got {n_workers!r}")
    sizes = [min(chunk_size, n_runs - start) for start in range(0, n_runs, chunk_size)]
    seeds = np.random.SeedSequence(seed).spawn(len(sizes))
    tasks = list(zip(range(len(sizes)), sizes, seeds))
    if n_workers == 1 or len(tasks) == 1:
        results = [_run_chunk(make, curve, t) for t in tasks]
    else:
        context = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(
                n_workers, mp_context=context, initializer=_init_worker,
                initargs=(make, curve)) as pool:
            results = list(pool.map(_worker_chunk, tasks))
    results.sort(key=lambda pair: pair[0])
    lengths = {len(c) for _, c in results}
    if len(lengths) != 1:
        raise ValueError(f"curve(hook) gave curves of different lengths {sorted(lengths)}")
    curves = np.stack([c for _, c in results])
    weights = np.asarray(sizes, dtype=np.float64)
    mean = weights @ curves / weights.sum()
    if return_all:
        return mean, curves, np.asarray(sizes)
    return mean

"""Frames per second of the Dopamine Atari experiments, acting alone and training.

    python benchmarks/atari_fps.py [--device cuda] [--only Dopamine_DQN_Atari,...]
                                   [--game pong] [--warmup 20000] [--train-steps 20000]
                                   [--decay-steps 1000] [--repeats 1] [--json results.json]

Each run is the registered experiment (``rlzoo show NAME``) with Dopamine's settings, on
``--device``, run through ``run`` for ``--warmup + --train-steps`` agent steps with
``min_replay_history=--warmup`` (Dopamine's 20,000 by default). A timer records the wall
clock every 1,000 agent steps. Two rates come out of one run:

- acting: the warm-up steps, ε = 1 (Dopamine's warm-up), so random actions, the emulator, the
  preprocessing, recording into the replay and the online network's forward pass (``QBasedPolicy``
  computes the action values on every step; the explorer then picks);
- training: the steps after the warm-up, less their first 1,000 (CUDA kernels load and the
  allocator warms up there): ε-greedy acting with a forward pass of the online network, a
  gradient step of batch 32 every 4 agent steps, a target sync every 8,000.
  ε decays to its final 0.01 over ``--decay-steps`` (default 1,000, so the timed steps act as
  the last 49.7M steps of a 50M-step run do, greedy on 99% of steps; Dopamine's 250,000 would
  time mostly random acting).

Frames are 4 per agent step (frame skip 4), the unit Dopamine reports. No evaluation runs
(``eval_every`` is 250,000 steps). The medians over ``--repeats`` runs are printed; ``--json``
also writes every run's figures.
"""

import argparse
import json
import os
import platform
import statistics
import time

import torch

from rlcore import DoEveryNStep, run
from rlzoo.experiments import registry

ATARI = ["Dopamine_DQN_Atari", "Dopamine_Rainbow_Atari", "Dopamine_IQN_Atari"]
FRAME_SKIP = 4
EVERY = 1000


def one_run(name, game, device, warmup, train_steps, decay_steps, seed=0):
    """``(acting steps/s, training steps/s)`` of one run (agent steps; see the module doc)."""
    if warmup % EVERY or train_steps % EVERY or warmup < EVERY or train_steps < 2 * EVERY:
        raise ValueError(f"--warmup and --train-steps must be multiples of {EVERY}, at least "
                         f"{EVERY} and {2 * EVERY}; got {warmup} and {train_steps}")
    experiment = registry.make(name, seed, game=game, device=device,
                               steps=warmup + train_steps, min_replay_history=warmup,
                               epsilon_decay_steps=decay_steps)
    cuda = torch.device(device).type == "cuda"
    stamps = {0: time.perf_counter()}

    def stamp(t, policy, env):
        if cuda:
            torch.cuda.synchronize()
        stamps[t] = time.perf_counter()

    run(experiment.policy, experiment.env, experiment.stop_condition,
        experiment.hook + DoEveryNStep(stamp, n=EVERY))
    end = warmup + train_steps
    acting = warmup / (stamps[warmup] - stamps[0])
    first = warmup + EVERY
    training = (end - first) / (stamps[end] - stamps[first])
    return acting, training


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--only", default=",".join(ATARI))
    parser.add_argument("--game", default="pong")
    parser.add_argument("--warmup", type=int, default=20_000)
    parser.add_argument("--train-steps", type=int, default=20_000)
    parser.add_argument("--decay-steps", type=int, default=EVERY)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda needs a CUDA device; none is available")
    where = (torch.cuda.get_device_name(device) if device.type == "cuda"
             else f"{os.cpu_count()} cores, {platform.machine()}")
    print(f"device {args.device} ({where}), torch {torch.__version__}, "
          f"{torch.get_num_threads()} CPU threads, game {args.game}, warm-up {args.warmup}, "
          f"training {args.train_steps} agent steps, ε decay {args.decay_steps} steps, "
          f"{args.repeats} run(s) each", flush=True)
    print(f"{'experiment':<24}{'acting frames/s':>16}{'training frames/s':>19}"
          f"{'training steps/s':>18}", flush=True)
    results = {}
    for name in args.only.split(","):
        runs = [one_run(name, args.game, args.device, args.warmup, args.train_steps,
                        args.decay_steps)
                for _ in range(args.repeats)]
        acting = statistics.median(r[0] for r in runs)
        training = statistics.median(r[1] for r in runs)
        results[name] = {"acting_steps_per_s": [r[0] for r in runs],
                         "training_steps_per_s": [r[1] for r in runs]}
        print(f"{name:<24}{acting * FRAME_SKIP:>16,.0f}{training * FRAME_SKIP:>19,.0f}"
              f"{training:>18,.0f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": args.device, "device_name": where, "game": args.game,
                       "torch": torch.__version__, "warmup": args.warmup,
                       "train_steps": args.train_steps, "decay_steps": args.decay_steps,
                       "results": results}, f, indent=2)


if __name__ == "__main__":
    main()

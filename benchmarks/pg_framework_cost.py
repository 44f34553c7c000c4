"""Framework cost of the policy-gradient family at fixed work: our PPO and SAC through ``run``
against the same work written as one bare loop by hand (CleanRL style, ``pg_bare.py``), in one
process.

    python benchmarks/pg_framework_cost.py [--ppo-steps 32768] [--sac-steps 6000]
                                           [--repeats 3] [--only ppo,sac]

* PPO: CartPole-v1, 8 environments (ours: a ``MultiThreadEnv`` in this process; bare:
  Gymnasium's ``SyncVectorEnv``), rollouts of 128 steps, 4 epochs of 4 minibatches, separate
  64-64 tanh actor and critic, Adam (lr 2.5e-4 annealed linearly, eps 1e-5), GAE (γ 0.99,
  λ 0.95), clip 0.2, no entropy bonus, gradient norm 0.5. Ours is ``PPO_CartPole`` with those
  settings (``rlzoo run PPO_CartPole n_envs=8 n_steps=128 n_epochs=4 n_minibatches=4
  lr=2.5e-4``), evaluation off.
* SAC: Pendulum-v1, one environment, 256-256 actor and twin critics, batch 256, one gradient
  step of the critics and one of the actor and of α per env step after 1,000 steps of uniformly
  random actions (bare: ``bare_sac(policy_frequency=1)``); ours is ``SAC_Pendulum`` with those
  settings, evaluation off.
Each repeat runs both sides in turn (drift on a shared machine hits both alike); the table shows
the median env steps per second and the ratio ours / bare. One torch thread. Target: ≥ 0.9.
"""

import argparse
import statistics
import time

import torch

from pg_bare import bare_ppo, bare_sac

NO_EVAL = 10**9


def ours_ppo(steps, seed):
    from rlcore import run
    from rlzoo.experiments import registry

    experiment = registry.make("PPO_CartPole", seed, steps=steps, n_envs=8, n_steps=128,
                               n_epochs=4, n_minibatches=4, lr=2.5e-4, entropy_coef=0.0,
                               eval_every=NO_EVAL)
    start = time.perf_counter()
    run(experiment)
    return steps / (time.perf_counter() - start)


def bare_ppo_rate(steps, seed):
    return bare_ppo(steps, seed)["steps_per_second"]


# SAC_Pendulum at the bare loop's sizes (its own defaults are 64-64 and batch 128)
SAC_SETTINGS = dict(hidden=256, batch_size=256, min_replay_history=1000)


def ours_sac(steps, seed):
    from rlcore import run
    from rlzoo.experiments import registry

    experiment = registry.make("SAC_Pendulum", seed, steps=steps, eval_every=NO_EVAL,
                               **SAC_SETTINGS)
    start = time.perf_counter()
    run(experiment)
    return steps / (time.perf_counter() - start)


def bare_sac_rate(steps, seed):
    return bare_sac(steps, seed, policy_frequency=1)["steps_per_second"]


PAIRS = {"ppo": (ours_ppo, bare_ppo_rate), "sac": (ours_sac, bare_sac_rate)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ppo-steps", type=int, default=32_768)
    parser.add_argument("--sac-steps", type=int, default=6000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="ppo,sac")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    steps = {"ppo": args.ppo_steps, "sac": args.sac_steps}
    names = args.only.split(",")
    rates = {(n, side): [] for n in names for side in ("ours", "bare")}
    for repeat in range(args.repeats):
        for name in names:
            ours, bare = PAIRS[name]
            rates[name, "ours"].append(ours(steps[name], repeat))
            rates[name, "bare"].append(bare(steps[name], repeat))
            print(f"repeat {repeat} {name}: ours {rates[name, 'ours'][-1]:,.0f}, bare "
                  f"{rates[name, 'bare'][-1]:,.0f} env steps/s", flush=True)
    print(f"\nmedian of {args.repeats} repeats, one torch thread")
    print("| work | env steps | ours (steps/s) | bare loop (steps/s) | ours / bare |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        ours, bare = (statistics.median(rates[name, side]) for side in ("ours", "bare"))
        print(f"| {name.upper()} | {steps[name]:,} | {ours:,.0f} | {bare:,.0f} | "
              f"{ours / bare:.2f} |")


if __name__ == "__main__":
    main()

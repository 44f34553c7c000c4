"""Time to threshold of the policy-gradient family: rlzoo against Stable-Baselines3 and
Tianshou, in one process, seeds interleaved.

    python benchmarks/pg_speed.py [--seeds 0,...,9] [--rows ppo-cartpole,a2c-cartpole,...]
                                  [--only ours,sb3,tianshou] [--eval-every 2000]

Rows (issue #17): PPO and A2C on CartPole-v1 to a greedy mean of 475; PPO, DDPG, TD3 and SAC
on Pendulum-v1 to −250. Every contender trains with its own settings (ours: the named
experiment as registered, ``rlzoo show NAME``; the peers: ``pg_peers.py``, rl-baselines3-zoo's
hyper-parameters and Tianshou's own tests) and is evaluated alike: every ``--eval-every`` env
steps, 10 episodes of the deterministic policy on a separate env; the run stops at the first
evaluation reaching the threshold or at ``--max-steps``. The time is training wall time to that
evaluation, evaluation excluded; medians over the seeds that reached it, with how many did.
One torch thread for all. Target: our median ≤ 0.5 × the fastest peer's median on each row.
The peers are the optional ``bench`` extra (``pip install '.[bench]'``).
"""

import argparse
import statistics
import time

import torch

from pg_peers import sb3_time_to_threshold, tianshou_time_to_threshold

ROWS = {  # name: (algorithm, env id, threshold, our experiment)
    "ppo-cartpole": ("PPO", "CartPole-v1", 475, "PPO_CartPole"),
    "a2c-cartpole": ("A2C", "CartPole-v1", 475, "A2C_CartPole"),
    "ppo-pendulum": ("PPO", "Pendulum-v1", -250, "PPO_Pendulum"),
    "ddpg-pendulum": ("DDPG", "Pendulum-v1", -250, "DDPG_Pendulum"),
    "td3-pendulum": ("TD3", "Pendulum-v1", -250, "TD3_Pendulum"),
    "sac-pendulum": ("SAC", "Pendulum-v1", -250, "SAC_Pendulum"),
}


def ours(algo, env_id, seed, *, threshold, max_steps, eval_every, experiment):
    """Our named experiment with ``stop_at=threshold``: ``reached``, ``env_steps`` and
    ``train_seconds`` (the run's wall time less its evaluations')."""
    from rlcore import EvaluateEveryNStep, run
    from rlzoo.experiments import registry
    from rlzoo.experiments.common import find_hook

    ex = registry.make(experiment, seed, stop_at=threshold, eval_every=eval_every,
                       steps=max_steps)
    start = time.perf_counter()
    hook = run(ex)
    seconds = time.perf_counter() - start
    evaluation = find_hook(hook, EvaluateEveryNStep)
    reached = bool(evaluation.returns) and max(evaluation.returns) >= threshold
    return {"reached": reached, "env_steps": evaluation.t,
            "train_seconds": seconds - evaluation.seconds}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8,9")
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--only", default="ours,sb3,tianshou")
    parser.add_argument("--eval-every", type=int, default=2000)
    parser.add_argument("--max-steps", type=int, default=100_000)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    seeds = [int(s) for s in args.seeds.split(",")]
    rows, contenders = args.rows.split(","), args.only.split(",")
    results = {(row, c): [] for row in rows for c in contenders}
    for seed in seeds:  # interleaved: drift on a shared machine hits all alike
        for row in rows:
            algo, env_id, threshold, experiment = ROWS[row]
            for name in contenders:
                common = dict(threshold=threshold, max_steps=args.max_steps,
                              eval_every=args.eval_every)
                try:
                    if name == "ours":
                        r = ours(algo, env_id, seed, experiment=experiment, **common)
                    elif name == "sb3":
                        r = sb3_time_to_threshold(algo, env_id, seed, **common)
                    else:
                        r = tianshou_time_to_threshold(algo, env_id, seed, **common)
                except ValueError as error:  # no published settings for this row
                    print(f"{row} {name}: skipped ({error})")
                    continue
                results[row, name].append(r)
                print(f"seed {seed} {row} {name}: "
                      + (f"{r['train_seconds']:.1f} s, {r['env_steps']} steps" if r["reached"]
                         else f"not reached in {r['env_steps']} steps"), flush=True)
    print(f"\nseeds {seeds}, at most {args.max_steps} env steps, evaluation every "
          f"{args.eval_every}")
    print("| row | contender | reached | median s | median env steps | ours / fastest peer |")
    print("|---|---|---:|---:|---:|---:|")
    for row in rows:
        medians = {}
        for name in contenders:
            hits = [r for r in results[row, name] if r["reached"]]
            if hits:
                medians[name] = statistics.median(r["train_seconds"] for r in hits)
        peers = [m for n, m in medians.items() if n != "ours"]
        for name in contenders:
            runs = results[row, name]
            if not runs:
                continue
            hits = [r for r in runs if r["reached"]]
            ratio = (f"{medians['ours'] / min(peers):.2f}" if name == "ours" and peers
                     and "ours" in medians else "")
            print(f"| {row} | {name} | {len(hits)}/{len(runs)} | "
                  + (f"{medians[name]:.1f} | "
                     f"{statistics.median(r['env_steps'] for r in hits):.0f}" if hits
                     else "- | -") + f" | {ratio} |")


if __name__ == "__main__":
    main()

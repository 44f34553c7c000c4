"""SAC on HalfCheetah-v5: env steps per second of training, ours against Stable-Baselines3 at
the same settings, in one process.

    python benchmarks/pg_mujoco_speed.py [--steps 3000] [--learning-starts 1000] [--repeats 3]

The work, both sides: Gymnasium's ``HalfCheetah-v5`` (one env), SAC with 256-256 ReLU actor
and twin critics, Adam 3e-4 for every network and for α (learned, target entropy −6), batch
256, replay 1,000,000, γ 0.99, τ 0.005, one gradient step per env step once
``--learning-starts`` steps are held (ours: the registered ``SAC_HalfCheetah``, whose settings
these are; SB3: ``SAC("MlpPolicy", ...)`` with them). Before learning starts ours acts with its
initial policy and SB3 uniformly at random (its ``learning_starts``); both take one forward per
step then. The rate reported is env steps per second over the whole run, no evaluation. One
torch thread; repeats interleaved. Needs the ``mujoco`` and ``bench`` extras.
"""

import argparse
import statistics
import time

import torch


def ours(steps, learning_starts, seed):
    from rlcore import run
    from rlzoo.experiments import registry

    experiment = registry.make("SAC_HalfCheetah", seed, steps=steps,
                               min_replay_history=learning_starts, eval_every=10**9)
    start = time.perf_counter()
    run(experiment)
    return steps / (time.perf_counter() - start)


def sb3(steps, learning_starts, seed):
    import gymnasium as gym
    from stable_baselines3 import SAC

    model = SAC("MlpPolicy", gym.make("HalfCheetah-v5"), learning_rate=3e-4, buffer_size=1_000_000,
                learning_starts=learning_starts, batch_size=256, tau=0.005, gamma=0.99,
                train_freq=1, gradient_steps=1, ent_coef="auto",
                policy_kwargs={"net_arch": [256, 256]}, device="cpu", seed=seed, verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return steps / (time.perf_counter() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--learning-starts", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rates = {"ours": [], "sb3": []}
    for repeat in range(args.repeats):
        for name, fn in (("ours", ours), ("sb3", sb3)):
            rates[name].append(fn(args.steps, args.learning_starts, repeat))
            print(f"repeat {repeat} {name}: {rates[name][-1]:.0f} env steps/s", flush=True)
    o, s = statistics.median(rates["ours"]), statistics.median(rates["sb3"])
    print(f"\n| SAC HalfCheetah-v5, {args.steps:,} steps ({args.learning_starts:,} before "
          f"learning) | ours {o:.0f} steps/s | SB3 {s:.0f} steps/s | ours / SB3 {o / s:.2f} |")


if __name__ == "__main__":
    main()

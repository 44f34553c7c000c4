"""Framework overhead of the run loop on CartPole-v1, measured against a hand-written loop.

    python benchmarks/loop_overhead.py [--steps 100000] [--repeats 5]

In one process, for each repeat (in turn, so machine drift hits all three alike):
  (a) a hand-written Gymnasium loop with random actions that sums the reward of each episode,
  (b) run(RandomPolicy, GymEnv, StopAfterStep, TotalRewardPerEpisode),
  (c) the same with an Agent recording into a CircularArraySARTTrajectory of capacity 10,000.
Prints steps per second and the ratios (b)/(a) and (c)/(a), median over the repeats. Targets:
(b)/(a) >= 0.5 and (c)/(a) >= 0.35. It also times BatchSampler drawing 64 transitions from a full
1,000,000-transition trajectory.
"""

import argparse
import statistics
import time
import timeit

import gymnasium as gym
import numpy as np

from rlcore import (
    Agent, BatchSampler, CircularArraySARTTrajectory, RandomPolicy, StopAfterStep,
    TotalRewardPerEpisode, run,
)
from rlenvs import GymEnv


def hand_written(n_steps, seed):
    env = gym.make("CartPole-v1")
    env.action_space.seed(seed)
    env.reset(seed=seed)
    rewards, total = [], 0.0
    start = time.perf_counter()
    for _ in range(n_steps):
        _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        total += reward
        if terminated or truncated:
            rewards.append(total)
            total = 0.0
            env.reset()
    return n_steps / (time.perf_counter() - start)


def through_run(n_steps, seed, with_agent):
    env = GymEnv("CartPole-v1", seed=seed)
    policy = RandomPolicy(seed=seed)
    if with_agent:
        # A capacity well below n_steps: the ring wraps and the overwrite path is measured.
        policy = Agent(policy, CircularArraySARTTrajectory(capacity=10_000,
                                                           state=((4,), np.float32)))
    start = time.perf_counter()
    run(policy, env, StopAfterStep(n_steps), TotalRewardPerEpisode())
    return n_steps / (time.perf_counter() - start)


def sampling(capacity=1_000_000, batch_size=64, number=2000):
    trajectory = CircularArraySARTTrajectory(capacity=capacity, state=((4,), np.float32))
    rng = np.random.default_rng(0)
    states = rng.standard_normal((capacity + 1, 4)).astype(np.float32)
    push_state, push_action = trajectory["state"].push, trajectory["action"].push
    push_reward, push_terminal = trajectory["reward"].push, trajectory["terminal"].push
    push_truncated = trajectory["truncated"].push
    for i in range(capacity):
        push_state(states[i])
        push_action(i % 2)
        push_reward(1.0)
        push_terminal(i % 200 == 199)
        push_truncated(False)
    push_state(states[capacity])
    push_action(0)
    assert trajectory.isfull and len(trajectory) == capacity
    sampler = BatchSampler(batch_size, seed=0)
    seconds = min(timeit.repeat(lambda: sampler.sample(trajectory), number=number, repeat=5))
    torch_sampler = BatchSampler(batch_size, device="cpu", seed=0)
    torch_seconds = min(timeit.repeat(lambda: torch_sampler.sample(trajectory), number=number,
                                      repeat=5))
    return seconds / number, torch_seconds / number


def main(argv=None):
    parser = argparse.ArgumentParser(description="run-loop overhead on CartPole-v1")
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-sampling", action="store_true")
    args = parser.parse_args(argv)

    results = {"a": [], "b": [], "c": []}
    for r in range(args.repeats):
        results["a"].append(hand_written(args.steps, r))
        results["b"].append(through_run(args.steps, r, with_agent=False))
        results["c"].append(through_run(args.steps, r, with_agent=True))
    ratio_b = [b / a for a, b in zip(results["a"], results["b"])]
    ratio_c = [c / a for a, c in zip(results["a"], results["c"])]
    print(f"CartPole-v1, {args.steps} steps, median of {args.repeats} repeats")
    labels = {"a": "(a) hand-written Gymnasium loop",
              "b": "(b) run(RandomPolicy, GymEnv, ...)",
              "c": "(c) run(Agent(RandomPolicy, CircularArraySARTTrajectory), ...)"}
    for k, label in labels.items():
        print(f"  {label:64s} {statistics.median(results[k]):>9,.0f} steps/s")
    print(f"  (b)/(a) = {statistics.median(ratio_b):.2f}   (target >= 0.5)")
    print(f"  (c)/(a) = {statistics.median(ratio_c):.2f}   (target >= 0.35)")
    if not args.no_sampling:
        numpy_s, torch_s = sampling()
        print(f"BatchSampler, 64 transitions from a full 1,000,000-transition trajectory: "
              f"{numpy_s * 1e6:.1f} µs (numpy batch), {torch_s * 1e6:.1f} µs (torch, cpu)")


if __name__ == "__main__":
    main()

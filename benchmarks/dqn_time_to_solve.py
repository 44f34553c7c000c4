"""Time to solve CartPole-v1 with DQN: rlzoo against Stable-Baselines3 and Tianshou.

    python benchmarks/dqn_time_to_solve.py [--seeds 0,...,9] [--only ours,sb3,tianshou]
                                           [--steps 50000] [--ours KEY=VALUE ...]

Each contender trains with its own tuned settings and is evaluated the same way: every 1,000 env
steps, 10 greedy episodes on a separate CartPole-v1; the run stops at the first evaluation
>= 475 or after ``--steps`` env steps. The time reported is training wall time to the first
evaluation >= 195 and >= 475 (evaluation time excluded); medians over the seeds that reached
the threshold, with how many did. One torch thread for all. Target: our median <= 0.5 x the
fastest peer's median at 475 over ten seeds (195 is reported as a figure: one early evaluation
decides it).

* ours: ``DQN_CartPole`` as registered (``rlzoo show DQN_CartPole``), or with the overrides
  given after ``--ours`` (``--ours n_envs=8``).
* SB3: the rl-baselines3-zoo hyper-parameters for CartPole-v1 (lr 2.3e-3, batch 64, buffer
  100,000, learning_starts 1,000, γ 0.99, target_update_interval 10, train_freq 256,
  gradient_steps 128, exploration_fraction 0.16, final ε 0.04, net [256, 256]).
* Tianshou: the settings of its own DQN CartPole test (``test/discrete/test_dqn.py``: lr 1e-3,
  γ 0.9, 3-step returns, target_update_freq 320, buffer 20,000, batch 64, 10 training envs,
  10 env steps per collect, 0.1 gradient steps per env step, net 4 x 128, ε 0.1 then decaying to
  0.01 between 10,000 and 50,000 steps).
SB3 and Tianshou are the optional ``bench`` extra; missing ones are skipped.
"""

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np
import torch

EVAL_EVERY, EVAL_EPISODES = 1000, 10


def greedy_return(act, seed):
    """Mean return of 10 episodes of ``act(obs) -> action`` on a fresh CartPole-v1."""
    env = gym.make("CartPole-v1")
    total = 0.0
    for episode in range(EVAL_EPISODES):
        obs, _ = env.reset(seed=seed + episode)
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(act(obs))
            total += reward
            done = terminated or truncated
    return total / EVAL_EPISODES


class Recorder:
    """Training time (evaluations excluded) and env steps to the first evaluation >= 195/475."""

    def __init__(self):
        self.start, self.eval_seconds, self.reached = time.perf_counter(), 0.0, {}

    def evaluate(self, act, steps, seed):
        t0 = time.perf_counter()
        mean = greedy_return(act, 10_000 + seed * 100 + steps // EVAL_EVERY)
        self.eval_seconds += time.perf_counter() - t0
        for threshold in (195, 475):
            if mean >= threshold and threshold not in self.reached:
                self.reached[threshold] = (time.perf_counter() - self.start - self.eval_seconds,
                                           steps)
        return mean >= 475  # solved: stop


OURS_OVERRIDES = {}  # --ours key=value ...: DQN_CartPole's parameters changed for this run


def ours(seed, max_steps):
    from dqn_cartpole import one_run

    return one_run("DQN_CartPole", seed, max_steps, **OURS_OVERRIDES)


def sb3(seed, max_steps):
    from stable_baselines3 import DQN
    from stable_baselines3.common.callbacks import BaseCallback

    recorder = Recorder()

    class Evaluate(BaseCallback):
        def _on_step(self):
            if self.num_timesteps % EVAL_EVERY:
                return True
            act = lambda obs: int(self.model.predict(obs, deterministic=True)[0])  # noqa: E731
            return not recorder.evaluate(act, self.num_timesteps, seed)

    model = DQN("MlpPolicy", gym.make("CartPole-v1"), learning_rate=2.3e-3, batch_size=64,
                buffer_size=100_000, learning_starts=1000, gamma=0.99,
                target_update_interval=10, train_freq=256, gradient_steps=128,
                exploration_fraction=0.16, exploration_final_eps=0.04,
                policy_kwargs={"net_arch": [256, 256]}, device="cpu", seed=seed, verbose=0)
    recorder.start = time.perf_counter()
    model.learn(total_timesteps=max_steps, callback=Evaluate())
    return recorder.reached


def tianshou(seed, max_steps):
    from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.net.common import Net
    from tianshou.utils.torch_utils import policy_within_training_step, torch_train_mode

    training_num, eps_train, batch_size = 10, 0.1, 64
    torch.manual_seed(seed)
    np.random.seed(seed)
    envs = DummyVectorEnv([lambda: gym.make("CartPole-v1") for _ in range(training_num)])
    envs.seed(seed)
    net = Net(state_shape=4, action_shape=2, hidden_sizes=[128, 128, 128, 128])
    policy = DiscreteQLearningPolicy(model=net, action_space=gym.spaces.Discrete(2),
                                     eps_training=eps_train, eps_inference=0.0)
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9,
                    n_step_return_horizon=3, target_update_freq=320)
    buffer = VectorReplayBuffer(20_000, training_num)
    collector = Collector(algorithm, envs, buffer, exploration_noise=True)
    collector.reset()

    def act(obs):
        with torch.no_grad():
            return int(net(obs[None])[0].argmax())

    recorder = Recorder()
    with policy_within_training_step(policy), torch_train_mode(policy, False):
        collector.collect(n_step=batch_size * training_num)
    steps, next_eval = 0, EVAL_EVERY
    while steps < max_steps:
        if steps <= 10_000:
            policy.set_eps_training(eps_train)
        elif steps <= 50_000:
            policy.set_eps_training(eps_train - (steps - 10_000) / 40_000 * 0.9 * eps_train)
        else:
            policy.set_eps_training(0.1 * eps_train)
        with policy_within_training_step(policy), torch_train_mode(policy, False):
            steps += collector.collect(n_step=training_num).n_collected_steps
        with policy_within_training_step(policy), torch_train_mode(policy):
            algorithm.update(buffer=buffer, sample_size=batch_size)  # 10 steps x 0.1
        if steps >= next_eval:
            next_eval += EVAL_EVERY
            with torch_train_mode(policy, False):
                if recorder.evaluate(act, steps, seed):
                    break
    return recorder.reached


CONTENDERS = {"ours": ours, "sb3": sb3, "tianshou": tianshou}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8,9")
    parser.add_argument("--only", default="ours,sb3,tianshou")
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--ours", nargs="*", default=[], metavar="KEY=VALUE",
                        help="overrides of DQN_CartPole (e.g. n_envs=8), as rlzoo run takes")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    from rlzoo.cli import parse_overrides

    OURS_OVERRIDES.update(parse_overrides("DQN_CartPole", args.ours))
    seeds = [int(s) for s in args.seeds.split(",")]
    names = args.only.split(",")
    results = {n: [] for n in names}
    for seed in seeds:  # interleaved: drift on a shared machine hits all alike
        for name in list(names):
            try:
                reached = CONTENDERS[name](seed, args.steps)
            except ImportError as error:
                print(f"skipping {name}: {error} (pip install '.[bench]')")
                names.remove(name)
                continue
            results[name].append(reached)
            print(f"seed {seed} {name}: " + (", ".join(
                f">= {k}: {v[0]:.1f} s, {v[1]} steps" for k, v in sorted(reached.items()))
                or "never >= 195"), flush=True)
    medians = {}
    print(f"\nseeds {seeds}, at most {args.steps} env steps each")
    print("| contender | reached 195 | median s to 195 | median steps to 195 | reached 475 "
          "| median s to 475 | median steps to 475 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in names:
        cells = [name]
        for threshold in (195, 475):
            hits = [r[threshold] for r in results[name] if threshold in r]
            times = [h[0] for h in hits]
            medians[name, threshold] = statistics.median(times) if times else None
            cells += [f"{len(hits)}/{len(seeds)}",
                      f"{statistics.median(times):.1f}" if times else "-",
                      f"{statistics.median([h[1] for h in hits]):.0f}" if hits else "-"]
        print("| " + " | ".join(cells) + " |")
    for threshold in (195, 475):
        peers = [medians[n, threshold] for n in names if n != "ours"
                 and medians.get((n, threshold)) is not None]
        if "ours" in names and peers and medians["ours", threshold] is not None:
            print(f"ours / fastest peer at {threshold}: "
                  f"{medians['ours', threshold] / min(peers):.2f} (target <= 0.5)")


if __name__ == "__main__":
    main()

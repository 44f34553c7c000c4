"""Framework cost of DQN at fixed work: our DQN through ``run`` against a bare hand-written loop,
Stable-Baselines3 and Tianshou, all configured identically, in one process.

    python benchmarks/dqn_framework_cost.py [--steps 20000] [--repeats 3] [--only ours,bare]

The work: CartPole-v1, one environment, an MLP 4-64-64-2 (ReLU), Adam (lr 1e-3), Huber loss,
γ = 0.99, a replay of 20,000 transitions, batch 64, one gradient step per env step after 1,000
warm-up steps, a hard target sync every 500 env steps, no double DQN, ε decaying linearly from 1
to 0.05 over 10,000 steps, 20,000 env steps, one torch thread, no evaluation. Each repeat runs
every contender in turn (so drift on a shared machine hits all alike); the table shows the
median env steps per second and its ratio to the bare loop. Target: ours >= 0.9 x bare.
The bare loop is what a competent user writes by hand: a numpy ring buffer, a ``torch.nn``
MLP acting and learning through torch (autograd), ``torch.optim.Adam``; ours is
``DQN_CartPole`` through ``run``. Both take Adam with ``fused=True``, as the experiments do
(``ReplaySetup``: the same parameters as the default Adam, a cheaper step on the CPU).
SB3 and Tianshou use their own networks and Adam. SB3 and Tianshou are optional (the ``bench``
extra); missing ones are skipped.
"""

import argparse
import copy
import statistics
import time

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F

STEPS, WARMUP, CAPACITY, BATCH, TARGET_EVERY, LR, GAMMA = 20_000, 1_000, 20_000, 64, 500, 1e-3, 0.99
EPS_END, EPS_STEPS = 0.05, 10_000


def epsilon(t):
    return max(EPS_END, 1.0 - (1.0 - EPS_END) * t / EPS_STEPS)


def mlp(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64),
                               torch.nn.ReLU(), torch.nn.Linear(64, 2))


def bare(n_steps, seed):
    """One hand-written loop: numpy ring buffer, ``nn.Sequential`` MLP, ``torch.optim.Adam``,
    autograd, a target copy."""
    rng = np.random.default_rng(seed)
    env = gym.make("CartPole-v1")
    obs, _ = env.reset(seed=seed)
    q = mlp(seed)
    optimizer = torch.optim.Adam(q.parameters(), lr=LR, fused=True)
    target = copy.deepcopy(q)
    states = np.zeros((CAPACITY, 4), np.float32)
    next_states = np.zeros((CAPACITY, 4), np.float32)
    actions = np.zeros(CAPACITY, np.int64)
    rewards = np.zeros(CAPACITY, np.float32)
    terminals = np.zeros(CAPACITY, np.float32)
    size = 0
    start = time.perf_counter()
    for t in range(n_steps):
        if rng.random() < epsilon(t):
            action = int(rng.integers(2))
        else:
            with torch.no_grad():
                action = int(q(torch.as_tensor(obs).unsqueeze(0)).argmax())
        next_obs, reward, terminated, truncated, _ = env.step(action)
        i = t % CAPACITY
        states[i], actions[i], rewards[i] = obs, action, reward
        next_states[i], terminals[i] = next_obs, terminated
        size = min(size + 1, CAPACITY)
        obs = next_obs
        if terminated or truncated:
            obs, _ = env.reset()
        if t >= WARMUP:
            idx = rng.integers(size, size=BATCH)
            s, a = torch.from_numpy(states[idx]), torch.from_numpy(actions[idx])
            r, d = torch.from_numpy(rewards[idx]), torch.from_numpy(terminals[idx])
            s2 = torch.from_numpy(next_states[idx])
            with torch.no_grad():
                y = r + GAMMA * (1 - d) * target(s2).max(dim=1).values
            q_sa = q(s).gather(1, a.unsqueeze(1)).squeeze(1)
            loss = F.smooth_l1_loss(q_sa, y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if (t + 1) % TARGET_EVERY == 0:
            target.load_state_dict(q.state_dict())
    return n_steps / (time.perf_counter() - start)


def _dqn_experiment(n_steps, seed):
    from rlzoo.experiments import registry

    return registry.make(
        "DQN_CartPole", seed, steps=n_steps, is_double=False, capacity=CAPACITY,
        batch_size=BATCH, min_replay_history=WARMUP, update_freq=1,
        target_update_freq=TARGET_EVERY, lr=LR,
        gamma=GAMMA, epsilon_stable=EPS_END, epsilon_decay_steps=EPS_STEPS,
        epsilon_warmup_steps=0, eval_every=10 * n_steps)  # ε decays from step 0, as the bare loop


def ours(n_steps, seed):
    """``DQN_CartPole``'s agent, env and stop condition through ``run`` with no hook: the same
    work as the bare loop, which keeps no statistics."""
    from rlcore import EmptyHook, run

    experiment = _dqn_experiment(n_steps, seed)
    start = time.perf_counter()
    run(experiment.policy, experiment.env, experiment.stop_condition, EmptyHook())
    return n_steps / (time.perf_counter() - start)


def ours_with_hooks(n_steps, seed):
    """As ``ours`` with the experiment's own hooks (per-episode returns and an evaluation hook
    that never fires here): the cost of that bookkeeping."""
    from rlcore import run

    experiment = _dqn_experiment(n_steps, seed)
    start = time.perf_counter()
    run(experiment)
    return n_steps / (time.perf_counter() - start)


def sb3(n_steps, seed):
    from stable_baselines3 import DQN

    model = DQN("MlpPolicy", gym.make("CartPole-v1"), learning_rate=LR, buffer_size=CAPACITY,
                learning_starts=WARMUP, batch_size=BATCH, gamma=GAMMA, train_freq=1,
                gradient_steps=1, target_update_interval=TARGET_EVERY,
                exploration_fraction=EPS_STEPS / n_steps, exploration_initial_eps=1.0,
                exploration_final_eps=EPS_END, policy_kwargs={"net_arch": [64, 64]},
                device="cpu", seed=seed, verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=n_steps)
    return n_steps / (time.perf_counter() - start)


def tianshou(n_steps, seed):
    from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, ReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.torch_utils import policy_within_training_step, torch_train_mode

    env = DummyVectorEnv([lambda: gym.make("CartPole-v1")])
    env.seed(seed)
    space = gym.make("CartPole-v1").action_space
    policy = DiscreteQLearningPolicy(model=_TianshouNet(mlp(seed)), action_space=space,
                                     eps_training=1.0, eps_inference=0.0)
    # Tianshou counts target syncs in gradient steps: one per env step after the warm-up
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=LR), gamma=GAMMA,
                    n_step_return_horizon=1, target_update_freq=TARGET_EVERY, is_double=False,
                    huber_loss_delta=1.0)
    buffer = ReplayBuffer(CAPACITY)
    collector = Collector(algorithm, env, buffer, exploration_noise=True)
    collector.reset()
    start = time.perf_counter()
    for t in range(n_steps):
        policy.set_eps_training(epsilon(t))
        with policy_within_training_step(policy), torch_train_mode(policy, False):
            collector.collect(n_step=1)
        if t >= WARMUP:
            with policy_within_training_step(policy), torch_train_mode(policy):
                algorithm.update(buffer=buffer, sample_size=BATCH)
    return n_steps / (time.perf_counter() - start)


class _TianshouNet(torch.nn.Module):
    """Tianshou's model protocol: ``model(obs, state=None, info=None) -> (values, state)``."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, obs, state=None, info=None):
        return self.net(torch.as_tensor(obs, dtype=torch.float32)), state


CONTENDERS = {"bare": bare, "ours": ours,
              "ours_with_hooks": ours_with_hooks, "sb3": sb3, "tianshou": tianshou}
LABELS = {"bare": "bare hand-written loop (numpy ring buffer, nn.Sequential, torch.optim.Adam)",
          "ours": "rlzoo DQN_CartPole through run (no hook)",
          "ours_with_hooks": "the same with the experiment's hooks",
          "sb3": "Stable-Baselines3 DQN", "tianshou": "Tianshou DQN (Collector + update)"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=",".join(CONTENDERS))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    names = [n for n in args.only.split(",") if n]
    for name in list(names):
        try:
            if name == "sb3":
                import stable_baselines3  # noqa: F401
            elif name == "tianshou":
                import tianshou  # noqa: F401
        except ImportError:
            print(f"skipping {name}: not installed (pip install '.[bench]')")
            names.remove(name)
    results = {n: [] for n in names}
    for repeat in range(args.repeats):
        for name in names:
            results[name].append(CONTENDERS[name](args.steps, seed=repeat))
            print(f"repeat {repeat}: {name} {results[name][-1]:.0f} steps/s", flush=True)
    medians = {n: statistics.median(v) for n, v in results.items()}
    reference = medians.get("bare")
    print(f"\n{args.steps} env steps, median of {args.repeats} repeats, 1 torch thread")
    print("| contender | env steps/s | ratio to bare loop |")
    print("|---|---:|---:|")
    for name in names:
        ratio = f"{medians[name] / reference:.2f}" if reference else "n/a"
        print(f"| {LABELS[name]} | {medians[name]:,.0f} | {ratio} |")


if __name__ == "__main__":
    main()

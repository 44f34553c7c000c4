"""DQN on MountainCar (Gymnasium's ``MountainCar-v0`` dynamics, 200-step limit).

Reward −1 per step until the flag; a run that never reaches it scores −200. ε-greedy exploration
finds the flag only occasionally, so these runs need tens of thousands of steps; the benchmark
goal is a greedy evaluation mean ≥ −150 (not asserted in CI).
"""

from rlcore import BatchSampler, NStepBatchSampler
from rlenvs import MountainCarEnv
from rlzoo.dqns import BasicDQNLearner, DQNLearner, QNetwork
from rlzoo.experiments.common import (
    approximator, dqn_experiment, epsilon_greedy, replay_for, spawn_seeds,
)
from rlzoo.experiments.registry import register

__all__ = ["BasicDQN_MountainCar", "DQN_MountainCar"]


def _envs(seed):
    s = spawn_seeds(seed, 8)
    return s, MountainCarEnv(max_steps=200, seed=s[0]), MountainCarEnv(max_steps=200, seed=s[1])


@register("Basic DQN (no target network) on MountainCar")
def BasicDQN_MountainCar(seed=0, *, steps=100_000, device="cpu", lr=1e-3, batch_size=64,
                         hidden=64, gamma=0.9, capacity=100_000, min_replay_history=1000,
                         update_freq=1, epsilon_stable=0.05, epsilon_decay_steps=20_000,
                         eval_every=5000, eval_episodes=10, stop_at=None, progress=False,
                         verbose=False):
    # γ = 0.9 for the reason given in BasicDQN_CartPole: without a target network larger γ
    # diverged in our runs.
    s, env, eval_env = _envs(seed)
    net = QNetwork(2, 3, hidden=(hidden, hidden), seed=s[2])
    learner = BasicDQNLearner(
        approximator=approximator(net, lr, device), sampler=BatchSampler(batch_size, seed=s[4]),
        gamma=gamma, min_replay_history=min_replay_history, update_freq=update_freq)
    return dqn_experiment(learner, epsilon_greedy(s[3], epsilon_stable, epsilon_decay_steps),
                          replay_for(env, capacity), env, eval_env, steps=steps,
                          eval_every=eval_every, eval_episodes=eval_episodes, stop_at=stop_at,
                          progress=progress, verbose=verbose,
                          description=f"BasicDQN on MountainCar, seed {seed}")


@register("DQN (double, n-step) on MountainCar")
def DQN_MountainCar(seed=0, *, steps=100_000, device="cpu", lr=1e-3, batch_size=64, hidden=64,
                    gamma=0.99, n_step=3, is_double=True, capacity=100_000,
                    min_replay_history=1000, update_freq=1, target_update_freq=500,
                    epsilon_stable=0.05, epsilon_decay_steps=20_000, eval_every=5000,
                    eval_episodes=10, stop_at=None, progress=False, verbose=False):
    s, env, eval_env = _envs(seed)
    net = QNetwork(2, 3, hidden=(hidden, hidden), seed=s[2])
    sampler = (BatchSampler(batch_size, seed=s[4]) if n_step == 1
               else NStepBatchSampler(n_step, gamma, batch_size, seed=s[4]))
    learner = DQNLearner(
        approximator=approximator(net, lr, device), sampler=sampler, gamma=gamma,
        min_replay_history=min_replay_history, update_freq=update_freq,
        target_update_freq=target_update_freq, is_double=is_double)
    return dqn_experiment(learner, epsilon_greedy(s[3], epsilon_stable, epsilon_decay_steps),
                          replay_for(env, capacity), env, eval_env, steps=steps,
                          eval_every=eval_every, eval_episodes=eval_episodes, stop_at=stop_at,
                          progress=progress, verbose=verbose,
                          description=f"DQN on MountainCar, seed {seed}")

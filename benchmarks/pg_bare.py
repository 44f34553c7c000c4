"""Bare hand-written PPO and SAC loops (CleanRL style): the reference for the framework cost of
the policy-gradient family.

    python benchmarks/pg_bare.py [--steps 4096] [--seed 0] [--threads 1]

Each function runs a fixed number of env steps, no evaluation, and returns a dict:
``env_steps``, ``seconds`` (wall time of the loop, setup excluded), ``steps_per_second`` and
``episode_returns`` (the returns of the training episodes completed, in order: a sanity check
that it learns, e.g. their last ten against the first ten). Seeded (``random``, ``numpy``,
``torch.manual_seed``, env resets and action spaces), CPU, ``torch.set_num_threads(threads)``
(default 1). Import with ``from benchmarks.pg_bare import bare_ppo, bare_sac`` (or ``from
pg_bare import ...`` from a script in ``benchmarks/``).

* ``bare_ppo``: CleanRL's ``cleanrl/ppo.py`` (vwxyzjn/cleanrl) on CartPole-v1, what a competent
  user writes by hand: separate actor and critic MLPs (obs-64-64 tanh, orthogonal init with gain
  sqrt 2, 0.01 for the policy head, 1 for the value head), ``torch.distributions.Categorical``,
  one Adam (eps 1e-5) over both, linearly annealed learning rate, ``n_envs`` x ``n_steps``
  rollouts in preallocated torch tensors, GAE(gamma, lambda), ``epochs`` passes of
  ``minibatches`` shuffled minibatches, advantages normalised per minibatch, clipped surrogate,
  plain (unclipped) value loss, entropy bonus, gradient norm clipped. Defaults are CleanRL's
  except 8 envs (CleanRL 4), ``ent_coef`` 0 (CleanRL 0.01) and the value loss unclipped
  (CleanRL clips it by default). Gymnasium 1.x: ``SyncVectorEnv`` with
  ``autoreset_mode=SAME_STEP`` (the observation returned at an episode's end is already the
  next episode's first; the final one is in ``infos["final_obs"]``), so every stored step is a
  real transition, as in CleanRL on gymnasium 0.29. A terminated episode is not bootstrapped;
  a truncated one (the 500-step limit) is bootstrapped with the value of its final observation
  added to the last reward (``bootstrap_truncation=True``; CleanRL treats truncation as
  termination: ``bootstrap_truncation=False``). The value of the final observation costs one
  extra forward pass, and only at truncations.
* ``bare_sac``: CleanRL's ``cleanrl/sac_continuous_action.py`` on Pendulum-v1 with one env:
  actor obs-256-256 with mean and log-std heads (log std squashed into [-5, 2]), tanh-squashed
  Gaussian scaled to the action bounds, twin Q networks (obs+act)-256-256-1 with Polyak-averaged
  targets (tau 0.005, every step), Adam (actor 3e-4, Q 1e-3, alpha 1e-3 as CleanRL: alpha's lr
  is the Q lr), automatic entropy tuning with target entropy -|A|. Uniform random actions for
  the first ``learning_starts`` steps, then one gradient step per env step (batch 256 from a
  numpy ring buffer, uniform with replacement, as CleanRL's SB3 buffer); the policy is updated
  every ``policy_frequency`` = 2 steps, twice (CleanRL's TD3-style delay, "compensate for the
  delay by doing policy_frequency updates"), each followed by an alpha update. Transitions keep
  ``terminated`` as the done flag and the true final observation, so time-limit truncations
  are bootstrapped (as CleanRL with ``handle_timeout_termination=False`` and
  ``final_observation``). CleanRL's ``learning_starts`` is 5,000 for MuJoCo; here 1,000.
"""

from __future__ import annotations

import argparse
import random
import time

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def _seed_everything(seed, threads):
    torch.set_num_threads(threads)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


# --------------------------------------------------------------------------------------------
# PPO on CartPole-v1 (cleanrl/ppo.py)
# --------------------------------------------------------------------------------------------

_SQRT2 = float(np.sqrt(2))


def _layer_init(layer, std=_SQRT2, bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class _PPOAgent(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden):
        super().__init__()
        self.critic = nn.Sequential(
            _layer_init(nn.Linear(obs_dim, hidden)), nn.Tanh(),
            _layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            _layer_init(nn.Linear(hidden, 1), std=1.0))
        self.actor = nn.Sequential(
            _layer_init(nn.Linear(obs_dim, hidden)), nn.Tanh(),
            _layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            _layer_init(nn.Linear(hidden, n_actions), std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        probs = torch.distributions.Categorical(logits=self.actor(x))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def bare_ppo(total_steps, seed, *, n_envs=8, n_steps=128, epochs=4, minibatches=4, hidden=64,
             lr=2.5e-4, gamma=0.99, lam=0.95, clip=0.2, ent_coef=0.0, vf_coef=0.5,
             max_grad_norm=0.5, anneal_lr=True, bootstrap_truncation=True, threads=1):
    """CleanRL-style PPO on CartPole-v1 for ``total_steps // (n_envs * n_steps)`` whole rollouts
    (see the module docstring); returns env steps per second and the training returns."""
    _seed_everything(seed, threads)
    envs = gym.vector.SyncVectorEnv(
        [lambda: gym.make("CartPole-v1") for _ in range(n_envs)],
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    envs.action_space.seed(seed)
    obs_dim = envs.single_observation_space.shape[0]
    agent = _PPOAgent(obs_dim, envs.single_action_space.n, hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5)

    obs = torch.zeros((n_steps, n_envs, obs_dim))
    actions = torch.zeros((n_steps, n_envs), dtype=torch.long)
    logprobs = torch.zeros((n_steps, n_envs))
    rewards = torch.zeros((n_steps, n_envs))
    dones = torch.zeros((n_steps, n_envs))
    values = torch.zeros((n_steps, n_envs))
    batch_size = n_envs * n_steps
    minibatch_size = batch_size // minibatches
    num_updates = total_steps // batch_size
    episode_return = np.zeros(n_envs)
    episode_returns = []

    next_obs_np, _ = envs.reset(seed=seed)
    next_obs = torch.as_tensor(next_obs_np, dtype=torch.float32)
    next_done = torch.zeros(n_envs)
    start = time.perf_counter()
    for update in range(num_updates):
        if anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - update / num_updates) * lr
        for step in range(n_steps):
            obs[step] = next_obs
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob
            next_obs_np, reward, terminated, truncated, infos = envs.step(action.numpy())
            done = np.logical_or(terminated, truncated)
            episode_return += reward
            for i in np.flatnonzero(done):
                episode_returns.append(float(episode_return[i]))
                episode_return[i] = 0.0
            if bootstrap_truncation and truncated.any():
                final = np.stack([infos["final_obs"][i] for i in np.flatnonzero(truncated)])
                with torch.no_grad():
                    final_values = agent.get_value(torch.as_tensor(final)).flatten().numpy()
                reward = reward.astype(np.float32)  # a copy: the env's array stays as it is
                reward[truncated] += gamma * final_values
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs_np, dtype=torch.float32)
            next_done = torch.as_tensor(done, dtype=torch.float32)

        with torch.no_grad():  # GAE, as CleanRL
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(n_steps)):
                if t == n_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + gamma * lam * nextnonterminal * lastgaelam
            returns = advantages + values

        b_obs = obs.reshape((-1, obs_dim))
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_inds = np.arange(batch_size)
        for _ in range(epochs):
            np.random.shuffle(b_inds)
            for begin in range(0, batch_size, minibatch_size):
                mb_inds = b_inds[begin:begin + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb_inds], b_actions[mb_inds])
                ratio = (newlogprob - b_logprobs[mb_inds]).exp()
                mb_advantages = b_advantages[mb_inds]
                mb_advantages = ((mb_advantages - mb_advantages.mean())
                                 / (mb_advantages.std() + 1e-8))
                pg_loss = torch.max(-mb_advantages * ratio,
                                    -mb_advantages * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb_inds]) ** 2).mean()
                loss = pg_loss - ent_coef * entropy.mean() + vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), max_grad_norm)
                optimizer.step()
    seconds = time.perf_counter() - start
    envs.close()
    steps = num_updates * batch_size
    return {"env_steps": steps, "seconds": seconds, "steps_per_second": steps / seconds,
            "episode_returns": episode_returns}


# --------------------------------------------------------------------------------------------
# SAC on Pendulum-v1 (cleanrl/sac_continuous_action.py)
# --------------------------------------------------------------------------------------------

LOG_STD_MAX, LOG_STD_MIN = 2, -5


class _SoftQNetwork(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(obs_dim + act_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 1)

    def forward(self, x, a):
        x = torch.cat([x, a], 1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class _Actor(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden, low, high):
        super().__init__()
        self.fc1 = nn.Linear(obs_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc_mean = nn.Linear(hidden, act_dim)
        self.fc_logstd = nn.Linear(hidden, act_dim)
        self.register_buffer("action_scale", torch.tensor((high - low) / 2.0, dtype=torch.float32))
        self.register_buffer("action_bias", torch.tensor((high + low) / 2.0, dtype=torch.float32))

    def forward(self, x):
        x = F.relu(self.fc2(F.relu(self.fc1(x))))
        log_std = torch.tanh(self.fc_logstd(x))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (log_std + 1)
        return self.fc_mean(x), log_std

    def get_action(self, x):
        mean, log_std = self(x)
        normal = torch.distributions.Normal(mean, log_std.exp())
        x_t = normal.rsample()
        y_t = torch.tanh(x_t)
        action = y_t * self.action_scale + self.action_bias
        log_prob = normal.log_prob(x_t) - torch.log(self.action_scale * (1 - y_t.pow(2)) + 1e-6)
        log_prob = log_prob.sum(1, keepdim=True)
        mean = torch.tanh(mean) * self.action_scale + self.action_bias
        return action, log_prob, mean


def bare_sac(total_steps, seed, *, batch_size=256, learning_starts=1000, hidden=256,
             policy_lr=3e-4, q_lr=1e-3, gamma=0.99, tau=0.005, autotune=True, alpha=0.2,
             policy_frequency=2, buffer_size=1_000_000, threads=1):
    """CleanRL-style SAC on Pendulum-v1 for ``total_steps`` env steps (see the module docstring);
    returns env steps per second and the training returns."""
    _seed_everything(seed, threads)
    env = gym.make("Pendulum-v1")
    env.action_space.seed(seed)
    obs_dim, act_dim = env.observation_space.shape[0], env.action_space.shape[0]
    low, high = env.action_space.low, env.action_space.high
    actor = _Actor(obs_dim, act_dim, hidden, low, high)
    qf1, qf2 = _SoftQNetwork(obs_dim, act_dim, hidden), _SoftQNetwork(obs_dim, act_dim, hidden)
    qf1_target = _SoftQNetwork(obs_dim, act_dim, hidden)
    qf2_target = _SoftQNetwork(obs_dim, act_dim, hidden)
    qf1_target.load_state_dict(qf1.state_dict())
    qf2_target.load_state_dict(qf2.state_dict())
    q_optimizer = torch.optim.Adam(list(qf1.parameters()) + list(qf2.parameters()), lr=q_lr)
    actor_optimizer = torch.optim.Adam(actor.parameters(), lr=policy_lr)
    if autotune:
        target_entropy = -float(act_dim)
        log_alpha = torch.zeros(1, requires_grad=True)
        alpha = log_alpha.exp().item()
        a_optimizer = torch.optim.Adam([log_alpha], lr=q_lr)
    q_params = list(qf1.parameters()) + list(qf2.parameters())
    target_params = list(qf1_target.parameters()) + list(qf2_target.parameters())

    capacity = min(buffer_size, total_steps)
    b_obs = np.zeros((capacity, obs_dim), np.float32)
    b_next_obs = np.zeros((capacity, obs_dim), np.float32)
    b_actions = np.zeros((capacity, act_dim), np.float32)
    b_rewards = np.zeros(capacity, np.float32)
    b_dones = np.zeros(capacity, np.float32)
    size = 0
    rng = np.random.default_rng(seed)
    episode_return, episode_returns = 0.0, []

    obs, _ = env.reset(seed=seed)
    start = time.perf_counter()
    for global_step in range(total_steps):
        if global_step < learning_starts:
            action = env.action_space.sample()
        else:
            with torch.no_grad():
                action, _, _ = actor.get_action(torch.as_tensor(obs).unsqueeze(0))
            action = action[0].numpy()
        next_obs, reward, terminated, truncated, _ = env.step(action)
        i = global_step % capacity
        b_obs[i], b_next_obs[i], b_actions[i] = obs, next_obs, action
        b_rewards[i], b_dones[i] = reward, terminated
        size = min(size + 1, capacity)
        episode_return += float(reward)
        if terminated or truncated:
            episode_returns.append(episode_return)
            episode_return = 0.0
            obs, _ = env.reset()
        else:
            obs = next_obs

        if global_step > learning_starts:
            idx = rng.integers(size, size=batch_size)
            s = torch.from_numpy(b_obs[idx])
            s2 = torch.from_numpy(b_next_obs[idx])
            a = torch.from_numpy(b_actions[idx])
            r = torch.from_numpy(b_rewards[idx])
            d = torch.from_numpy(b_dones[idx])
            with torch.no_grad():
                next_actions, next_log_pi, _ = actor.get_action(s2)
                min_q_next = torch.min(qf1_target(s2, next_actions),
                                       qf2_target(s2, next_actions)) - alpha * next_log_pi
                next_q_value = r + (1 - d) * gamma * min_q_next.view(-1)
            qf_loss = (F.mse_loss(qf1(s, a).view(-1), next_q_value)
                       + F.mse_loss(qf2(s, a).view(-1), next_q_value))
            q_optimizer.zero_grad()
            qf_loss.backward()
            q_optimizer.step()

            if global_step % policy_frequency == 0:  # delayed, compensated policy updates
                for _ in range(policy_frequency):
                    pi, log_pi, _ = actor.get_action(s)
                    actor_loss = (alpha * log_pi - torch.min(qf1(s, pi), qf2(s, pi))).mean()
                    actor_optimizer.zero_grad()
                    actor_loss.backward()
                    actor_optimizer.step()
                    if autotune:
                        with torch.no_grad():
                            _, log_pi, _ = actor.get_action(s)
                        alpha_loss = (-log_alpha.exp() * (log_pi + target_entropy)).mean()
                        a_optimizer.zero_grad()
                        alpha_loss.backward()
                        a_optimizer.step()
                        alpha = log_alpha.exp().item()

            with torch.no_grad():  # target networks, every step
                for param, target_param in zip(q_params, target_params):
                    target_param.mul_(1 - tau).add_(param, alpha=tau)
    seconds = time.perf_counter() - start
    env.close()
    return {"env_steps": total_steps, "seconds": seconds,
            "steps_per_second": total_steps / seconds, "episode_returns": episode_returns}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    for name, fn in (("bare_ppo (CartPole-v1)", bare_ppo), ("bare_sac (Pendulum-v1)", bare_sac)):
        result = fn(args.steps, args.seed, threads=args.threads)
        returns = result["episode_returns"]
        first, last = returns[:10], returns[-10:]
        print(f"{name}: {result['env_steps']} env steps in {result['seconds']:.2f} s = "
              f"{result['steps_per_second']:,.0f} steps/s; {len(returns)} training episodes, "
              f"mean return first 10 {np.mean(first):.1f}, last 10 {np.mean(last):.1f}")


if __name__ == "__main__":
    main()

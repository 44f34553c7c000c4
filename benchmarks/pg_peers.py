"""Policy-gradient peers trained to a threshold: Stable-Baselines3 and Tianshou.

The peer side of the policy-gradient time-to-threshold benchmarks (PPO, A2C, DDPG, TD3, SAC on
CartPole-v1 and Pendulum-v1). Nothing here depends on rlzoo; a benchmark script imports these
functions and interleaves them with ours, seed by seed, in one process::

    from benchmarks.pg_peers import sb3_time_to_threshold, tianshou_time_to_threshold
    # (or, from a script in benchmarks/, ``from pg_peers import ...``)

    r = sb3_time_to_threshold("PPO", "CartPole-v1", seed=0, threshold=475,
                              max_steps=100_000, eval_every=1000)
    # e.g. {"reached": True, "env_steps": 31000, "train_seconds": 21.4, "eval_seconds": 3.2,
    #       "evaluations": [(1000, 22.1), ...], "steps_done": 31000}

or, for a quick look at one run from the command line::

    python benchmarks/pg_peers.py --peer sb3 --algo SAC --env Pendulum-v1 --seed 0 \
        --threshold -200 --max-steps 20000 --eval-every 1000

What is measured, for both peers alike: the peer trains with its own published settings; every
``eval_every`` env steps (counted over all sub-envs) the deterministic policy (argmax for
CartPole, the mean / the actor's output for Pendulum) plays ``eval_episodes`` episodes on a
separate gymnasium env (episode seeds ``eval_seed(seed, i, k)``, the same for every contender);
the run stops at the first evaluation whose mean return is >= ``threshold`` or once ``max_steps``
env steps are done. The result: ``reached``; ``env_steps`` (at that evaluation, else
``max_steps``); ``train_seconds``, the wall time from the start of training to that evaluation
(else to the end) with all evaluation time taken out (``time.perf_counter`` is read around every
evaluation); ``eval_seconds``; the list of ``(env_steps, mean return)`` evaluations; and
``steps_done``, the env steps actually taken (a peer collecting in chunks can pass ``max_steps``
by one chunk). The construction of the model and its envs happens before the clock starts.
``threads`` (default 1) sets ``torch.set_num_threads`` for the whole process, so every side runs
with the same threads.
``ThresholdRecorder`` and ``greedy_return`` are public so that our side can be evaluated by
exactly the same code.

Settings' sources
-----------------
* Stable-Baselines3 2.9: the rl-baselines3-zoo hyper-parameters (``SB3_ZOO`` below, each entry
  naming its yml file; read from DLR-RM/rl-baselines3-zoo ``hyperparams/*.yml``), applied as the
  zoo's ``exp_manager`` applies them: ``n_envs`` sub-envs from ``make_vec_env`` (DummyVecEnv,
  Monitor, sub-env ``i`` seeded ``seed + i``), ``lin_X`` = ``X * progress_remaining``,
  ``normalize`` = ``VecNormalize`` with the algorithm's gamma, ``noise_type``/``noise_std`` =
  the action noise, everything else passed to the algorithm (SB3 defaults for the rest).
  ``learn`` is given ``max(max_steps, zoo n_timesteps)`` steps so that the linear schedules decay
  over the zoo's horizon, as in the zoo, whenever ``max_steps`` is within it. Evaluation calls
  ``model.predict(obs, deterministic=True)``; with ``VecNormalize`` the observation is first
  normalised with the training statistics (``normalize_obs``: no update, no reward
  normalisation). The periodic evaluation is an SB3 callback whose ``_on_step`` returns False to
  stop training (at the threshold or at ``max_steps``). Env steps are ``model.num_timesteps``.
* Tianshou 2.0.1: the settings of Tianshou's own tests (``TIANSHOU_TESTS`` below, each entry
  naming its test file in thu-ml/tianshou), with the test's networks, initialisation, optimiser
  factories, number of training envs, collection size and update schedule. The loop is driven by
  hand, as Tianshou's ``OnPolicyTrainer``/``OffPolicyTrainer`` do it (collect inside
  ``policy_within_training_step``; on-policy: ``algorithm.update(buffer, batch_size, repeat)``
  then ``reset_buffer(keep_statistics=True)``; off-policy: ``round(update_per_step x
  n_collected)`` calls of ``algorithm.update(buffer, sample_size=batch_size)``), without the
  trainer's logging, test collector and epochs, so that the evaluation can be timed out exactly;
  an evaluation happens after the first collect+update that passes a multiple of
  ``eval_every``, so Tianshou's env steps at an evaluation are rounded up to its collection size
  (2,000 steps for PPO on CartPole, 16 episodes for A2C on CartPole and PPO on Pendulum, 8 or 10
  steps for the off-policy tests). Greedy evaluation: ``policy.compute_action`` with
  ``deterministic_eval=True`` (the mode of the distribution; SAC's tanh of the mean; DDPG's and
  TD3's actor without exploration noise). Versions read: the 2.0-API files of
  ``test_ddpg.py``, ``test_sac_with_il.py`` and ``test_a2c_with_il.py``; for ``test_ppo.py``
  (both) and ``test_td3.py`` the stored copies were of the 1.x API (``PPOPolicy``,
  ``TD3Policy``, ``OnpolicyTrainer``) and a 2.0 development version (continuous PPO); their
  hyper-parameters are carried over unchanged, the constructors translated to the 2.0 API.

Not available: DDPG, TD3 and SAC on CartPole-v1 (continuous-action algorithms; neither the zoo
nor Tianshou's tests have them), and Tianshou's A2C on Pendulum-v1 (Tianshou has no A2C test
for a continuous task, so there are no published settings to run); these raise ``ValueError``.
"""

from __future__ import annotations

import argparse
import copy
import time

import gymnasium as gym
import numpy as np
import torch

ALGOS = ("PPO", "A2C", "DDPG", "TD3", "SAC")
ENV_IDS = ("CartPole-v1", "Pendulum-v1")


# --------------------------------------------------------------------------------------------
# Evaluation and timing, shared by every contender
# --------------------------------------------------------------------------------------------

def eval_seed(seed, evaluation, episode, episodes=10):
    """Seed of episode ``episode`` of the ``evaluation``-th evaluation (0-based) of run ``seed``:
    every contender plays the same evaluation episodes."""
    return 1_000_000 + 10_000 * seed + episodes * evaluation + episode


def greedy_return(act, env, episodes, seeds):
    """Mean undiscounted return of ``episodes`` episodes of ``act(obs) -> action`` on ``env``,
    episode ``k`` reset with ``seeds[k]``."""
    total = 0.0
    for k in range(episodes):
        obs, _ = env.reset(seed=int(seeds[k]))
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(act(obs))
            total += float(reward)
            done = terminated or truncated
    return total / episodes


class ThresholdRecorder:
    """Evaluates every ``eval_every`` env steps and keeps the training clock.

    ``start()`` just before training; ``due(steps)`` says whether an evaluation is due;
    ``evaluate(act, steps)`` plays the greedy episodes (its time goes to ``eval_seconds``, not to
    the training time) and returns True when the mean return reached ``threshold``;
    ``result()`` gives the dictionary the peer functions return.
    """

    def __init__(self, env_id, seed, *, threshold, max_steps, eval_every, eval_episodes=10):
        self.env_id, self.seed = env_id, seed
        self.threshold, self.max_steps = threshold, max_steps
        self.eval_every, self.eval_episodes = eval_every, eval_episodes
        self.env = gym.make(env_id)
        self.next_eval = eval_every
        self.evaluations = []
        self.eval_seconds = 0.0
        self.reached = False
        self.env_steps = max_steps
        self.train_seconds = None
        self.t_start = None

    def start(self):
        self.t_start = time.perf_counter()

    def due(self, steps):
        return steps >= self.next_eval

    def evaluate(self, act, steps):
        t0 = time.perf_counter()
        k = len(self.evaluations)
        seeds = [eval_seed(self.seed, k, e, self.eval_episodes) for e in range(self.eval_episodes)]
        mean = greedy_return(act, self.env, self.eval_episodes, seeds)
        t1 = time.perf_counter()
        self.evaluations.append((int(steps), mean))
        while self.next_eval <= steps:
            self.next_eval += self.eval_every
        if mean >= self.threshold and not self.reached:
            self.reached, self.env_steps = True, int(steps)
            self.train_seconds = t0 - self.t_start - self.eval_seconds  # evaluations before
        self.eval_seconds += t1 - t0
        return self.reached

    def result(self, steps_done):
        """``steps_done``: the env steps the peer actually took (a peer that collects in chunks
        may pass ``max_steps``, or the threshold evaluation, by up to one chunk)."""
        if not self.reached:
            self.train_seconds = time.perf_counter() - self.t_start - self.eval_seconds
        self.env.close()
        return {"reached": self.reached, "env_steps": self.env_steps,
                "train_seconds": self.train_seconds, "eval_seconds": self.eval_seconds,
                "evaluations": self.evaluations, "steps_done": int(steps_done)}


def _check(algo, env_id):
    if algo not in ALGOS or env_id not in ENV_IDS:
        raise ValueError(f"algo must be one of {ALGOS}, env_id one of {ENV_IDS}")
    if algo in ("DDPG", "TD3", "SAC") and env_id == "CartPole-v1":
        raise ValueError(f"{algo} is a continuous-action algorithm: no settings for CartPole-v1")


# --------------------------------------------------------------------------------------------
# Stable-Baselines3 with the rl-baselines3-zoo hyper-parameters
# --------------------------------------------------------------------------------------------

_DDPG_TD3_PENDULUM = {
    "n_timesteps": 20_000, "gamma": 0.98, "buffer_size": 200_000, "learning_starts": 10_000,
    "noise_type": "normal", "noise_std": 0.1, "gradient_steps": 1, "train_freq": 1,
    "learning_rate": 1e-3, "policy_kwargs": {"net_arch": [400, 300]}}

SB3_ZOO = {
    # hyperparams/ppo.yml ("# Tuned" CartPole-v1); net: SB3 default MlpPolicy 64x64 tanh
    ("PPO", "CartPole-v1"): {
        "n_timesteps": 100_000, "n_envs": 8, "n_steps": 32, "batch_size": 256,
        "gae_lambda": 0.8, "gamma": 0.98, "n_epochs": 20, "ent_coef": 0.0,
        "learning_rate": "lin_0.001", "clip_range": "lin_0.2"},
    # hyperparams/ppo.yml ("# Tuned" Pendulum-v1): gSDE, batch_size SB3's default 64
    ("PPO", "Pendulum-v1"): {
        "n_timesteps": 100_000, "n_envs": 4, "n_steps": 1024, "gae_lambda": 0.95, "gamma": 0.9,
        "n_epochs": 10, "ent_coef": 0.0, "learning_rate": 1e-3, "clip_range": 0.2,
        "use_sde": True, "sde_sample_freq": 4},
    # hyperparams/a2c.yml (CartPole-v1): SB3's A2C defaults otherwise (n_steps 5, lr 7e-4,
    # RMSprop, gamma 0.99, gae_lambda 1)
    ("A2C", "CartPole-v1"): {"n_timesteps": 500_000, "n_envs": 8, "ent_coef": 0.0},
    # hyperparams/a2c.yml ("# Tuned" Pendulum-v1)
    ("A2C", "Pendulum-v1"): {
        "normalize": True, "n_envs": 8, "n_timesteps": 1_000_000, "ent_coef": 0.0,
        "max_grad_norm": 0.5, "n_steps": 8, "gae_lambda": 0.9, "vf_coef": 0.4, "gamma": 0.9,
        "use_rms_prop": True, "normalize_advantage": False, "learning_rate": "lin_7e-4",
        "use_sde": True, "policy_kwargs": {"log_std_init": -2, "ortho_init": False}},
    # hyperparams/ddpg.yml (Pendulum-v1). The zoo's current file has train_freq 1 and
    # gradient_steps 1; releases before SB3 2.0 had train_freq [1, "episode"] with
    # gradient_steps -1 (one gradient step per env step too, batched at episode ends).
    ("DDPG", "Pendulum-v1"): _DDPG_TD3_PENDULUM,
    # hyperparams/td3.yml (Pendulum-v1): as DDPG; SB3 TD3 defaults policy_delay 2,
    # target_policy_noise 0.2, target_noise_clip 0.5, batch 256, tau 0.005
    ("TD3", "Pendulum-v1"): _DDPG_TD3_PENDULUM,
    # hyperparams/sac.yml (Pendulum-v1): lr 1e-3, SB3's SAC defaults otherwise (net 256x256,
    # buffer 1e6, learning_starts 100, batch 256, tau 0.005, gamma 0.99, ent_coef "auto",
    # train_freq 1, gradient_steps 1, no gSDE)
    ("SAC", "Pendulum-v1"): {"n_timesteps": 20_000, "learning_rate": 1e-3},
}


def _lin(initial):
    """The zoo's ``lin_X``: X times the remaining progress (1 at the start, 0 at the end)."""
    return lambda progress_remaining: progress_remaining * initial


def sb3_time_to_threshold(algo, env_id, seed, *, threshold, max_steps, eval_every,
                          eval_episodes=10, threads=1):
    """Stable-Baselines3 ``algo`` on ``env_id`` with the rl-baselines3-zoo settings, trained to the
    first greedy evaluation >= ``threshold`` (see the module docstring)."""
    _check(algo, env_id)
    import stable_baselines3
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.noise import (
        NormalActionNoise,
        OrnsteinUhlenbeckActionNoise,
    )
    from stable_baselines3.common.vec_env import VecNormalize

    torch.set_num_threads(threads)
    hp = copy.deepcopy(SB3_ZOO[algo, env_id])  # SB3 writes into policy_kwargs (n_critics)
    n_timesteps = int(hp.pop("n_timesteps"))
    n_envs = hp.pop("n_envs", 1)
    normalize = hp.pop("normalize", False)
    env = make_vec_env(env_id, n_envs=n_envs, seed=seed)
    if normalize:  # the zoo: VecNormalize(norm_obs, norm_reward) with the algorithm's gamma
        env = VecNormalize(env, **({"gamma": hp["gamma"]} if "gamma" in hp else {}))
    if "noise_type" in hp:
        n_actions = env.action_space.shape[0]
        noise = {"normal": NormalActionNoise, "ornstein-uhlenbeck": OrnsteinUhlenbeckActionNoise}
        hp["action_noise"] = noise[hp.pop("noise_type")](
            mean=np.zeros(n_actions), sigma=hp.pop("noise_std") * np.ones(n_actions))
    for key in ("learning_rate", "clip_range"):
        if isinstance(hp.get(key), str):
            hp[key] = _lin(float(hp[key].split("_")[1]))
    model = getattr(stable_baselines3, algo)("MlpPolicy", env, seed=seed, device="cpu",
                                             verbose=0, **hp)
    vec_normalize = model.get_vec_normalize_env()
    discrete = isinstance(env.action_space, gym.spaces.Discrete)

    def act(obs):
        if vec_normalize is not None:  # training statistics, not updated, reward left alone
            obs = vec_normalize.normalize_obs(obs)
        action, _ = model.predict(obs, deterministic=True)
        return int(action) if discrete else action

    recorder = ThresholdRecorder(env_id, seed, threshold=threshold, max_steps=max_steps,
                                 eval_every=eval_every, eval_episodes=eval_episodes)

    class Evaluate(BaseCallback):
        def _on_step(self):
            steps = self.num_timesteps
            if recorder.due(steps) and recorder.evaluate(act, steps):
                return False
            return steps < max_steps

    recorder.start()
    model.learn(total_timesteps=max(max_steps, n_timesteps), callback=Evaluate())
    result = recorder.result(model.num_timesteps)
    env.close()
    return result


# --------------------------------------------------------------------------------------------
# Tianshou 2.0 with the settings of its own tests
# --------------------------------------------------------------------------------------------

TIANSHOU_TESTS = {
    # test/discrete/test_ppo.py: shared 64x64 ReLU body for actor and critic, orthogonal init,
    # Categorical over the actor's softmax, deterministic_eval
    ("PPO", "CartPole-v1"): {
        "on_policy": True, "lr": 3e-4, "gamma": 0.99, "num_train_envs": 20,
        "collect_env_steps": 2000, "repeat": 10, "batch_size": 64, "hidden_sizes": [64, 64],
        "buffer_size": 20_000, "vf_coef": 0.5, "ent_coef": 0.0, "eps_clip": 0.2,
        "max_grad_norm": 0.5, "gae_lambda": 0.95, "return_scaling": False,
        "advantage_normalization": False, "recompute_advantage": False, "dual_clip": None,
        "value_clip": False},
    # test/continuous/test_ppo.py: separate 64x64 bodies, unbounded Gaussian actor
    # (Independent(Normal)), orthogonal init, actions clipped to [-1, 1] then scaled
    ("PPO", "Pendulum-v1"): {
        "on_policy": True, "lr": 1e-3, "gamma": 0.95, "num_train_envs": 16,
        "collect_episodes": 16, "repeat": 2, "batch_size": 128, "hidden_sizes": [64, 64],
        "buffer_size": 20_000, "vf_coef": 0.25, "ent_coef": 0.0, "eps_clip": 0.2,
        "max_grad_norm": 0.5, "gae_lambda": 0.95, "return_scaling": True,
        "advantage_normalization": True, "recompute_advantage": False, "dual_clip": None,
        "value_clip": True},
    # test/discrete/test_a2c_with_il.py (the A2C part): shared 64x64 body, Categorical
    ("A2C", "CartPole-v1"): {
        "on_policy": True, "lr": 1e-3, "gamma": 0.9, "num_train_envs": 16,
        "collect_episodes": 16, "repeat": 1, "batch_size": 64, "hidden_sizes": [64, 64],
        "buffer_size": 20_000, "vf_coef": 0.5, "ent_coef": 0.0, "max_grad_norm": None,
        "gae_lambda": 1.0, "return_scaling": False},
    # test/continuous/test_ddpg.py
    ("DDPG", "Pendulum-v1"): {
        "on_policy": False, "actor_lr": 1e-4, "critic_lr": 1e-3, "gamma": 0.99, "tau": 0.005,
        "exploration_noise": 0.1, "num_train_envs": 8, "collect_env_steps": 8,
        "update_per_step": 0.125, "batch_size": 128, "hidden_sizes": [128, 128], "n_step": 3,
        "buffer_size": 20_000},
    # test/continuous/test_td3.py
    ("TD3", "Pendulum-v1"): {
        "on_policy": False, "actor_lr": 1e-4, "critic_lr": 1e-3, "gamma": 0.99, "tau": 0.005,
        "exploration_noise": 0.1, "policy_noise": 0.2, "noise_clip": 0.5,
        "update_actor_freq": 2, "num_train_envs": 8, "collect_env_steps": 8,
        "update_per_step": 0.125, "batch_size": 128, "hidden_sizes": [128, 128], "n_step": 3,
        "buffer_size": 20_000},
    # test/continuous/test_sac_with_il.py (the SAC part): unbounded Gaussian actor, tanh
    # squashing, twin critics, automatic alpha (target entropy -1, log alpha 0, lr 3e-4)
    ("SAC", "Pendulum-v1"): {
        "on_policy": False, "actor_lr": 1e-3, "critic_lr": 1e-3, "gamma": 0.99, "tau": 0.005,
        "alpha_lr": 3e-4, "num_train_envs": 10, "collect_env_steps": 10,
        "update_per_step": 0.1, "batch_size": 128, "hidden_sizes": [128, 128], "n_step": 3,
        "buffer_size": 20_000},
}


def _tianshou_algorithm(algo, env_id, s, env):
    """The test's networks, policy and algorithm; returns (algorithm, policy)."""
    from tianshou.algorithm import A2C, DDPG, PPO, SAC, TD3
    from tianshou.algorithm.modelfree.ddpg import ContinuousDeterministicPolicy
    from tianshou.algorithm.modelfree.reinforce import ProbabilisticActorPolicy
    from tianshou.algorithm.modelfree.sac import AutoAlpha, SACPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.exploration import GaussianNoise
    from tianshou.utils.net.common import ActorCritic, Net
    from tianshou.utils.net.continuous import (
        ContinuousActorDeterministic,
        ContinuousActorProbabilistic,
        ContinuousCritic,
    )
    from tianshou.utils.net.discrete import DiscreteActor, DiscreteCritic
    from tianshou.utils.space_info import SpaceInfo

    info = SpaceInfo.from_env(env)
    state_shape = info.observation_info.obs_shape
    action_shape = info.action_info.action_shape
    hidden = s["hidden_sizes"]

    def critic_net():
        return Net(state_shape=state_shape, action_shape=action_shape, hidden_sizes=hidden,
                   concat=True)

    if algo in ("PPO", "A2C"):
        if env_id == "CartPole-v1":
            net = Net(state_shape=state_shape, hidden_sizes=hidden)  # shared body
            actor = DiscreteActor(preprocess_net=net, action_shape=action_shape)
            critic = DiscreteCritic(preprocess_net=net)
            dist = torch.distributions.Categorical  # over the actor's softmax output
        else:
            actor = ContinuousActorProbabilistic(
                preprocess_net=Net(state_shape=state_shape, hidden_sizes=hidden),
                action_shape=action_shape, unbounded=True)
            critic = ContinuousCritic(
                preprocess_net=Net(state_shape=state_shape, hidden_sizes=hidden))

            def dist(loc_scale):
                loc, scale = loc_scale
                return torch.distributions.Independent(torch.distributions.Normal(loc, scale), 1)
        if algo == "PPO":  # both PPO tests initialise orthogonally; the A2C test does not
            for m in ActorCritic(actor, critic).modules():
                if isinstance(m, torch.nn.Linear):
                    torch.nn.init.orthogonal_(m.weight)
                    torch.nn.init.zeros_(m.bias)
        policy = ProbabilisticActorPolicy(
            actor=actor, dist_fn=dist, action_space=env.action_space,
            action_scaling=isinstance(env.action_space, gym.spaces.Box),
            deterministic_eval=True)  # greedy evaluation (training still samples)
        common = {"policy": policy, "critic": critic, "optim": AdamOptimizerFactory(lr=s["lr"]),
                  "gamma": s["gamma"], "gae_lambda": s["gae_lambda"], "vf_coef": s["vf_coef"],
                  "ent_coef": s["ent_coef"], "max_grad_norm": s["max_grad_norm"],
                  "return_scaling": s["return_scaling"]}
        if algo == "A2C":
            return A2C(**common), policy
        return PPO(**common, eps_clip=s["eps_clip"], dual_clip=s["dual_clip"],
                   value_clip=s["value_clip"], advantage_normalization=s["advantage_normalization"],
                   recompute_advantage=s["recompute_advantage"]), policy

    if algo in ("DDPG", "TD3"):
        # as the tests: a tanh actor bounded by max_action (2 for Pendulum) under the policy's
        # default action scaling, which Tianshou warns about (outputs beyond +-1 are clipped)
        actor = ContinuousActorDeterministic(
            preprocess_net=Net(state_shape=state_shape, hidden_sizes=hidden),
            action_shape=action_shape, max_action=info.action_info.max_action)
        policy = ContinuousDeterministicPolicy(
            actor=actor, exploration_noise=GaussianNoise(sigma=s["exploration_noise"]),
            action_space=env.action_space)
        common = {"policy": policy, "policy_optim": AdamOptimizerFactory(lr=s["actor_lr"]),
                  "critic": ContinuousCritic(preprocess_net=critic_net()),
                  "critic_optim": AdamOptimizerFactory(lr=s["critic_lr"]), "tau": s["tau"],
                  "gamma": s["gamma"], "n_step_return_horizon": s["n_step"]}
        if algo == "DDPG":
            return DDPG(**common), policy
        return TD3(**common, critic2=ContinuousCritic(preprocess_net=critic_net()),
                   critic2_optim=AdamOptimizerFactory(lr=s["critic_lr"]),
                   policy_noise=s["policy_noise"], update_actor_freq=s["update_actor_freq"],
                   noise_clip=s["noise_clip"]), policy

    # SAC
    actor = ContinuousActorProbabilistic(
        preprocess_net=Net(state_shape=state_shape, hidden_sizes=hidden),
        action_shape=action_shape, unbounded=True)
    policy = SACPolicy(actor=actor, action_space=env.action_space)
    alpha = AutoAlpha(-info.action_info.action_dim, 0.0, AdamOptimizerFactory(lr=s["alpha_lr"]))
    return SAC(policy=policy, policy_optim=AdamOptimizerFactory(lr=s["actor_lr"]),
               critic=ContinuousCritic(preprocess_net=critic_net()),
               critic_optim=AdamOptimizerFactory(lr=s["critic_lr"]),
               critic2=ContinuousCritic(preprocess_net=critic_net()),
               critic2_optim=AdamOptimizerFactory(lr=s["critic_lr"]), tau=s["tau"],
               gamma=s["gamma"], alpha=alpha, n_step_return_horizon=s["n_step"]), policy


def tianshou_time_to_threshold(algo, env_id, seed, *, threshold, max_steps, eval_every,
                               eval_episodes=10, threads=1):
    """Tianshou 2.0 ``algo`` on ``env_id`` with the settings of Tianshou's own test, trained to the
    first greedy evaluation >= ``threshold``. The collect/update loop is driven by hand exactly as
    Tianshou's trainers drive it (see the module docstring), so that evaluations can be timed
    out; an evaluation follows the first collect+update that passes a multiple of
    ``eval_every``."""
    _check(algo, env_id)
    if (algo, env_id) not in TIANSHOU_TESTS:
        raise ValueError(f"Tianshou has no test (no published settings) for {algo} on {env_id}")
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.torch_utils import policy_within_training_step, torch_train_mode

    torch.set_num_threads(threads)
    s = copy.deepcopy(TIANSHOU_TESTS[algo, env_id])
    np.random.seed(seed)  # the tests' seeding
    torch.manual_seed(seed)
    env = gym.make(env_id)
    train_envs = DummyVectorEnv([lambda: gym.make(env_id) for _ in range(s["num_train_envs"])])
    train_envs.seed(seed)
    algorithm, policy = _tianshou_algorithm(algo, env_id, s, env)
    on_policy = s["on_policy"]
    collector = Collector(algorithm, train_envs,
                          VectorReplayBuffer(s["buffer_size"], s["num_train_envs"]),
                          exploration_noise=not on_policy)
    collector.reset()
    shape = env.action_space.shape

    def act(obs):
        with torch.no_grad(), torch_train_mode(algorithm, False):
            action = policy.compute_action(obs)
        return action if shape == () else np.asarray(action, dtype=np.float32).reshape(shape)

    recorder = ThresholdRecorder(env_id, seed, threshold=threshold, max_steps=max_steps,
                                 eval_every=eval_every, eval_episodes=eval_episodes)
    steps = 0
    recorder.start()
    while steps < max_steps:
        with policy_within_training_step(policy):
            stats = collector.collect(n_step=s.get("collect_env_steps"),
                                      n_episode=s.get("collect_episodes"))
            steps += stats.n_collected_steps
            if on_policy:  # OnPolicyTrainer: the whole buffer, then a fresh one
                algorithm.update(buffer=collector.buffer, batch_size=s["batch_size"],
                                 repeat=s["repeat"])
                collector.reset_buffer(keep_statistics=True)
            else:  # OffPolicyTrainer
                for _ in range(round(s["update_per_step"] * stats.n_collected_steps)):
                    algorithm.update(buffer=collector.buffer, sample_size=s["batch_size"])
        if recorder.due(steps) and recorder.evaluate(act, steps):
            break
    result = recorder.result(steps)
    train_envs.close()
    env.close()
    return result


PEERS = {"sb3": sb3_time_to_threshold, "tianshou": tianshou_time_to_threshold}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", choices=sorted(PEERS), default="sb3")
    parser.add_argument("--algo", choices=ALGOS, default="PPO")
    parser.add_argument("--env", choices=ENV_IDS, default="CartPole-v1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threshold", type=float, default=475.0)
    parser.add_argument("--max-steps", type=int, default=100_000)
    parser.add_argument("--eval-every", type=int, default=1000)
    parser.add_argument("--eval-episodes", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    result = PEERS[args.peer](args.algo, args.env, args.seed, threshold=args.threshold,
                              max_steps=args.max_steps, eval_every=args.eval_every,
                              eval_episodes=args.eval_episodes, threads=args.threads)
    evaluations = result.pop("evaluations")
    print(f"{args.peer} {args.algo} {args.env} seed {args.seed}: {result}")
    print("evaluations (env steps, mean return):",
          ", ".join(f"({s}, {m:.1f})" for s, m in evaluations))
    steps = result["env_steps"]
    print(f"env steps per training second: {steps / result['train_seconds']:.0f}")


if __name__ == "__main__":
    main()

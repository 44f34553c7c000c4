"""The DQN family on CartPole-v1: one named experiment per algorithm.

Each takes ``seed`` and keyword overrides (``rlzoo show NAME`` lists them). Hyper-parameters are
tuned for sample and wall-clock efficiency on a CPU: a 64×64 MLP, Adam, batch 64, one gradient
step per env step after ``min_replay_history`` steps, ε decaying linearly to ``epsilon_stable``
(``DQN_CartPole``: batch 128 every 2 env steps and a 5,000-transition replay, tuned for wall time
to 475, and ε held at 1 until learning starts, ``epsilon_warmup_steps``). The others take
``epsilon_warmup_steps`` too, 0 by default: a warm-up of ``min_replay_history`` steps gave
mixed results on seeds 0-19 (benchmarks/README.md): BasicDQN slower to 195, IQN reaching 475
less often, the others faster at one threshold and slower or less reliable at the other.
Evaluation: every ``eval_every`` steps, ``eval_episodes`` greedy episodes on a separate env;
``stop_at`` (e.g. 195) ends the run at the first evaluation reaching it.
"""

from rlcore import NStepBatchSampler
from rlenvs import CartPoleEnv
from rlzoo.dqns import (
    BasicDQNLearner, C51Learner, DistributionalNetwork, DQNLearner, EnsembleQNetwork,
    ImplicitQuantileNetwork, IQNLearner, PrioritizedDQNLearner, QNetwork, QRDQNLearner,
    RainbowLearner, REMDQNLearner,
)
from rlzoo.experiments.common import (
    approximator, dqn_experiment, epsilon_greedy, replay_for, replay_sampler, spawn_seeds,
    uniform_sampler,
)
from rlzoo.experiments.registry import register

__all__ = ["BasicDQN_CartPole", "DQN_CartPole", "PrioritizedDQN_CartPole", "C51_CartPole",
           "QRDQN_CartPole", "IQN_CartPole", "REMDQN_CartPole", "Rainbow_CartPole",
           "cartpole_env"]

N_STATE, N_ACTIONS = 4, 2


def cartpole_env(seed):
    """CartPole with Gymnasium's CartPole-v1 limit of 500 steps (a truncation: learners
    bootstrap past it)."""
    return CartPoleEnv(max_steps=500, seed=seed)


def _setup(seed, capacity, prioritized=False):
    s = spawn_seeds(seed, 8)
    env, eval_env = cartpole_env(s[0]), cartpole_env(s[1])
    return s, env, eval_env, replay_for(env, capacity, prioritized=prioritized)


def _finish(learner, s, env, eval_env, trajectory, *, epsilon_stable, epsilon_decay_steps,
            steps, eval_every, eval_episodes, stop_at, progress, verbose, description,
            epsilon_warmup_steps=0):
    explorer = epsilon_greedy(s[3], epsilon_stable, epsilon_decay_steps,
                              warmup_steps=epsilon_warmup_steps)
    return dqn_experiment(learner, explorer, trajectory, env, eval_env, steps=steps,
                          eval_every=eval_every, eval_episodes=eval_episodes, stop_at=stop_at,
                          progress=progress, verbose=verbose, description=description)


@register("Basic DQN (no target network) on CartPole-v1")
def BasicDQN_CartPole(seed=0, *, steps=30_000, device="cpu", lr=1e-3, batch_size=64,
                      hidden=64, gamma=0.85, capacity=50_000, min_replay_history=1000,
                      update_freq=1, epsilon_stable=0.01, epsilon_decay_steps=5000,
                      epsilon_warmup_steps=0, eval_every=1000, eval_episodes=10, stop_at=None,
                      progress=False, verbose=False):
    # Without a target network, bootstrapping from the online network diverged (Q-values in
    # the thousands after 2,000 updates) for every γ >= 0.9 we tried, Adam lr 1e-3 to 5e-5;
    # γ = 0.85 (a horizon of about 7 steps, enough to see the pole falling) learns reliably.
    s, env, eval_env, trajectory = _setup(seed, capacity)
    net = QNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), seed=s[2])
    learner = BasicDQNLearner(
        approximator=approximator(net, lr, device), sampler=uniform_sampler(batch_size, s[4]),
        gamma=gamma, min_replay_history=min_replay_history, update_freq=update_freq)
    return _finish(learner, s, env, eval_env, trajectory, epsilon_stable=epsilon_stable,
                   epsilon_decay_steps=epsilon_decay_steps, steps=steps, eval_every=eval_every,
                   eval_episodes=eval_episodes, stop_at=stop_at, progress=progress,
                   verbose=verbose, description=f"BasicDQN on CartPole-v1, seed {seed}",
                   epsilon_warmup_steps=epsilon_warmup_steps)


@register("DQN (target network, double DQN, n-step, dueling optional) on CartPole-v1")
def DQN_CartPole(seed=0, *, steps=30_000, device="cpu", lr=2.3e-3, batch_size=128, hidden=64,
                 gamma=0.99, n_step=1, is_double=True, dueling=False, loss="huber",
                 capacity=5000, min_replay_history=500, update_freq=2, gradient_steps=1,
                 target_update_freq=100, rho=0.0, max_grad_norm=None, epsilon_stable=0.01,
                 epsilon_decay_steps=1000, epsilon_warmup_steps=None, eval_every=1000,
                 eval_episodes=10, stop_at=None, progress=False, verbose=False):
    # Tuned for wall time to a greedy 475 (benchmarks/dqn_time_to_solve.py): a gradient step
    # costs about the same for batch 64 and 128 on a CPU (fixed per-call overhead), so one step
    # of 128 every 2 env steps; a small replay (5,000) keeps the data recent, which CartPole
    # rewards; lr 2.3e-3 as rl-zoo. Seeds 0-4 reach 475 in 8,000-12,000 env steps (the earlier
    # defaults, one step of 64 per env step, a 50,000 replay: 12,000-23,000).
    # ε stays at 1 for epsilon_warmup_steps (None: min_replay_history, acting at random until
    # learning starts, as Dopamine and SB3), then decays over epsilon_decay_steps. On seeds
    # 0-19 that took the median env steps to 195 from 5,000 / 3,500 (seeds 0-9 / 10-19) to
    # 3,000 / 3,000 and to 475 from 12,000 / 16,000 to 11,000 / 15,000, 20/20 reaching 475
    # (18/20 before).
    if epsilon_warmup_steps is None:
        epsilon_warmup_steps = min_replay_history
    s, env, eval_env, trajectory = _setup(seed, capacity)
    net = QNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), dueling=dueling, seed=s[2])
    sampler = replay_sampler(n_step, gamma, batch_size, s[4])
    learner = DQNLearner(
        approximator=approximator(net, lr, device, max_grad_norm=max_grad_norm),
        sampler=sampler, gamma=gamma, loss=loss,
        min_replay_history=min_replay_history, update_freq=update_freq,
        gradient_steps=gradient_steps, target_update_freq=target_update_freq, rho=rho,
        is_double=is_double)
    return _finish(learner, s, env, eval_env, trajectory, epsilon_stable=epsilon_stable,
                   epsilon_decay_steps=epsilon_decay_steps, steps=steps, eval_every=eval_every,
                   eval_episodes=eval_episodes, stop_at=stop_at, progress=progress,
                   verbose=verbose, description=f"DQN on CartPole-v1, seed {seed}",
                   epsilon_warmup_steps=epsilon_warmup_steps)


@register("DQN with proportional prioritized replay on CartPole-v1")
def PrioritizedDQN_CartPole(seed=0, *, steps=30_000, device="cpu", lr=1e-3, batch_size=64,
                            hidden=64, gamma=0.99, is_double=True, capacity=50_000,
                            min_replay_history=1000, update_freq=1, target_update_freq=200,
                            alpha=0.6, beta_init=0.4, beta_steps=20_000, epsilon_stable=0.01,
                            epsilon_decay_steps=5000, epsilon_warmup_steps=0, eval_every=1000,
                            eval_episodes=10, stop_at=None, progress=False, verbose=False):
    s, env, eval_env, trajectory = _setup(seed, capacity, prioritized=True)
    net = QNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), seed=s[2])
    learner = PrioritizedDQNLearner(
        approximator=approximator(net, lr, device), sampler=uniform_sampler(batch_size, s[4]),
        gamma=gamma, is_double=is_double, min_replay_history=min_replay_history,
        update_freq=update_freq, target_update_freq=target_update_freq, alpha=alpha,
        beta_init=beta_init, beta_steps=beta_steps)
    return _finish(learner, s, env, eval_env, trajectory, epsilon_stable=epsilon_stable,
                   epsilon_decay_steps=epsilon_decay_steps, steps=steps, eval_every=eval_every,
                   eval_episodes=eval_episodes, stop_at=stop_at, progress=progress,
                   verbose=verbose, description=f"PrioritizedDQN on CartPole-v1, seed {seed}",
                   epsilon_warmup_steps=epsilon_warmup_steps)


@register("C51 (categorical distributional DQN) on CartPole-v1")
def C51_CartPole(seed=0, *, steps=30_000, device="cpu", lr=1e-3, batch_size=64, hidden=64,
                 gamma=0.99, n_atoms=51, v_min=0.0, v_max=200.0, capacity=50_000,
                 min_replay_history=1000, update_freq=1, target_update_freq=200,
                 epsilon_stable=0.01, epsilon_decay_steps=5000, epsilon_warmup_steps=0,
                 eval_every=1000, eval_episodes=10, stop_at=None, progress=False,
                 verbose=False):
    s, env, eval_env, trajectory = _setup(seed, capacity)
    net = DistributionalNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), n_atoms=n_atoms,
                                seed=s[2])
    learner = C51Learner(
        approximator=approximator(net, lr, device), sampler=uniform_sampler(batch_size, s[4]),
        gamma=gamma, n_atoms=n_atoms, v_min=v_min, v_max=v_max,
        min_replay_history=min_replay_history, update_freq=update_freq,
        target_update_freq=target_update_freq)
    return _finish(learner, s, env, eval_env, trajectory, epsilon_stable=epsilon_stable,
                   epsilon_decay_steps=epsilon_decay_steps, steps=steps, eval_every=eval_every,
                   eval_episodes=eval_episodes, stop_at=stop_at, progress=progress,
                   verbose=verbose, description=f"C51 on CartPole-v1, seed {seed}",
                   epsilon_warmup_steps=epsilon_warmup_steps)


@register("QR-DQN (quantile regression DQN) on CartPole-v1")
def QRDQN_CartPole(seed=0, *, steps=30_000, device="cpu", lr=1e-3, batch_size=64, hidden=64,
                   gamma=0.99, n_quantiles=32, kappa=1.0, capacity=50_000,
                   min_replay_history=1000, update_freq=1, target_update_freq=200,
                   epsilon_stable=0.01, epsilon_decay_steps=5000, epsilon_warmup_steps=0,
                   eval_every=1000, eval_episodes=10, stop_at=None, progress=False,
                   verbose=False):
    s, env, eval_env, trajectory = _setup(seed, capacity)
    net = DistributionalNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden),
                                n_atoms=n_quantiles, seed=s[2])
    learner = QRDQNLearner(
        approximator=approximator(net, lr, device), sampler=uniform_sampler(batch_size, s[4]),
        gamma=gamma, n_quantiles=n_quantiles, kappa=kappa,
        min_replay_history=min_replay_history, update_freq=update_freq,
        target_update_freq=target_update_freq)
    return _finish(learner, s, env, eval_env, trajectory, epsilon_stable=epsilon_stable,
                   epsilon_decay_steps=epsilon_decay_steps, steps=steps, eval_every=eval_every,
                   eval_episodes=eval_episodes, stop_at=stop_at, progress=progress,
                   verbose=verbose, description=f"QRDQN on CartPole-v1, seed {seed}",
                   epsilon_warmup_steps=epsilon_warmup_steps)


@register("IQN (implicit quantile networks) on CartPole-v1")
def IQN_CartPole(seed=0, *, steps=30_000, device="cpu", lr=1e-3, batch_size=64, hidden=64,
                 gamma=0.99, n_tau=16, n_tau_prime=16, n_tau_act=16, n_cos=32, kappa=1.0,
                 capacity=50_000, min_replay_history=1000, update_freq=1,
                 target_update_freq=200, epsilon_stable=0.01, epsilon_decay_steps=5000,
                 epsilon_warmup_steps=0, eval_every=1000, eval_episodes=10, stop_at=None,
                 progress=False, verbose=False):
    s, env, eval_env, trajectory = _setup(seed, capacity)
    net = ImplicitQuantileNetwork(N_STATE, N_ACTIONS, hidden=(hidden,), n_cos=n_cos,
                                  head_hidden=hidden, seed=s[2])
    learner = IQNLearner(
        approximator=approximator(net, lr, device), sampler=uniform_sampler(batch_size, s[4]),
        gamma=gamma, n_tau=n_tau, n_tau_prime=n_tau_prime, n_tau_act=n_tau_act, kappa=kappa,
        min_replay_history=min_replay_history, update_freq=update_freq,
        target_update_freq=target_update_freq, seed=s[5])
    return _finish(learner, s, env, eval_env, trajectory, epsilon_stable=epsilon_stable,
                   epsilon_decay_steps=epsilon_decay_steps, steps=steps, eval_every=eval_every,
                   eval_episodes=eval_episodes, stop_at=stop_at, progress=progress,
                   verbose=verbose, description=f"IQN on CartPole-v1, seed {seed}",
                   epsilon_warmup_steps=epsilon_warmup_steps)


@register("REM-DQN (random ensemble mixture) on CartPole-v1")
def REMDQN_CartPole(seed=0, *, steps=30_000, device="cpu", lr=1e-3, batch_size=64, hidden=64,
                    gamma=0.99, n_heads=4, capacity=50_000, min_replay_history=1000,
                    update_freq=1, target_update_freq=200, epsilon_stable=0.01,
                    epsilon_decay_steps=5000, epsilon_warmup_steps=0, eval_every=1000,
                    eval_episodes=10, stop_at=None, progress=False, verbose=False):
    s, env, eval_env, trajectory = _setup(seed, capacity)
    net = EnsembleQNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), n_heads=n_heads,
                           seed=s[2])
    learner = REMDQNLearner(
        approximator=approximator(net, lr, device), sampler=uniform_sampler(batch_size, s[4]),
        gamma=gamma, min_replay_history=min_replay_history, update_freq=update_freq,
        target_update_freq=target_update_freq, seed=s[5])
    return _finish(learner, s, env, eval_env, trajectory, epsilon_stable=epsilon_stable,
                   epsilon_decay_steps=epsilon_decay_steps, steps=steps, eval_every=eval_every,
                   eval_episodes=eval_episodes, stop_at=stop_at, progress=progress,
                   verbose=verbose, description=f"REMDQN on CartPole-v1, seed {seed}",
                   epsilon_warmup_steps=epsilon_warmup_steps)


@register("Rainbow (C51 + PER + n-step + dueling + noisy nets) on CartPole-v1")
def Rainbow_CartPole(seed=0, *, steps=30_000, device="cpu", lr=1e-3, batch_size=64, hidden=64,
                     gamma=0.99, n_step=3, n_atoms=51, v_min=0.0, v_max=200.0, noisy=True,
                     capacity=50_000, min_replay_history=1000, update_freq=1,
                     target_update_freq=200, alpha=0.5, beta_init=0.4, beta_steps=20_000,
                     epsilon_stable=0.0, epsilon_decay_steps=2000, epsilon_warmup_steps=0,
                     eval_every=1000, eval_episodes=10, stop_at=None, progress=False,
                     verbose=False):
    s, env, eval_env, trajectory = _setup(seed, capacity, prioritized=True)
    net = DistributionalNetwork(N_STATE, N_ACTIONS, hidden=(hidden,), n_atoms=n_atoms,
                                dueling=True, noisy=noisy, seed=s[2])
    learner = RainbowLearner(
        approximator=approximator(net, lr, device),
        sampler=NStepBatchSampler(n_step, gamma, batch_size, seed=s[4]), gamma=gamma,
        n_atoms=n_atoms, v_min=v_min, v_max=v_max, min_replay_history=min_replay_history,
        update_freq=update_freq, target_update_freq=target_update_freq, alpha=alpha,
        beta_init=beta_init, beta_steps=beta_steps)
    return _finish(learner, s, env, eval_env, trajectory, epsilon_stable=epsilon_stable,
                   epsilon_decay_steps=epsilon_decay_steps, steps=steps, eval_every=eval_every,
                   eval_episodes=eval_episodes, stop_at=stop_at, progress=progress,
                   verbose=verbose, description=f"Rainbow on CartPole-v1, seed {seed}",
                   epsilon_warmup_steps=epsilon_warmup_steps)

"""The DQN family on CartPole-v1: one named experiment per algorithm.

Each takes ``seed`` and keyword overrides (``rlzoo show NAME`` lists them); what they share is
built by :class:`~rlzoo.experiments.common.ReplaySetup`, so each keeps only its network and its
learner. Hyper-parameters are tuned for sample and wall-clock efficiency on a CPU: a 64×64 MLP,
Adam, batch 64, one gradient step per env step after ``min_replay_history`` steps, ε decaying
linearly to ``epsilon_stable`` (``DQN_CartPole``: batch 128 every 2 env steps and a
5,000-transition replay, tuned for wall time to 475, and ε held at 1 until learning starts,
``epsilon_warmup_steps``). The others take ``epsilon_warmup_steps`` too, 0 by default: a warm-up
of ``min_replay_history`` steps gave mixed results on seeds 0-19 (benchmarks/README.md).
``n_envs > 1`` trains from a ``MultiThreadEnv`` of that many CartPoles (one batched forward for
all of them per step; ``update_freq`` and ``target_update_freq`` count env steps of all of
them). Evaluation: every ``eval_every`` env steps, ``eval_episodes`` greedy episodes on a
separate env; ``stop_at`` (e.g. 195) ends the run at the first evaluation reaching it.
"""

from rlenvs import CartPoleEnv
from rlzoo.dqns import (
    BasicDQNLearner, C51Learner, DistributionalNetwork, DQNLearner, EnsembleQNetwork,
    ImplicitQuantileNetwork, IQNLearner, PrioritizedDQNLearner, QNetwork, QRDQNLearner,
    RainbowLearner, REMDQNLearner,
)
from rlzoo.experiments.common import ReplaySetup
from rlzoo.experiments.registry import register

__all__ = ["BasicDQN_CartPole", "DQN_CartPole", "PrioritizedDQN_CartPole", "C51_CartPole",
           "QRDQN_CartPole", "IQN_CartPole", "REMDQN_CartPole", "Rainbow_CartPole",
           "cartpole_env"]

N_STATE, N_ACTIONS = 4, 2


def cartpole_env(seed):
    """CartPole with Gymnasium's CartPole-v1 limit of 500 steps (a truncation: learners
    bootstrap past it)."""
    return CartPoleEnv(max_steps=500, seed=seed)


@register("Basic DQN (no target network) on CartPole-v1")
def BasicDQN_CartPole(seed=0, *, steps=30_000, device="cpu", n_envs=1, lr=1e-3, batch_size=64,
                      hidden=64, gamma=0.85, capacity=50_000, min_replay_history=1000,
                      update_freq=1, epsilon_stable=0.01, epsilon_decay_steps=5000,
                      epsilon_warmup_steps=0, eval_every=1000, eval_episodes=10, stop_at=None,
                      progress=False, verbose=False):
    # Without a target network, bootstrapping from the online network diverged (Q-values in
    # the thousands after 2,000 updates) for every γ >= 0.9 we tried, Adam lr 1e-3 to 5e-5;
    # γ = 0.85 (a horizon of about 7 steps, enough to see the pole falling) learns reliably.
    setup = ReplaySetup(locals(), cartpole_env)
    net = QNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), seed=setup.seeds[2])
    learner = BasicDQNLearner(setup.approximator(net), schedule=setup.schedule, gamma=gamma)
    return setup.experiment(learner, f"BasicDQN on CartPole-v1, seed {seed}")


@register("DQN (target network, double DQN, n-step, dueling optional) on CartPole-v1")
def DQN_CartPole(seed=0, *, steps=30_000, device="cpu", n_envs=1, lr=2.3e-3, batch_size=128,
                 hidden=64, gamma=0.99, n_step=1, is_double=True, dueling=False, loss=None,
                 capacity=5000, min_replay_history=500, update_freq=2, gradient_steps=1,
                 target_update_freq=100, rho=0.0, max_grad_norm=None, epsilon_stable=0.01,
                 epsilon_decay_steps=1000, epsilon_warmup_steps=None, eval_every=1000,
                 eval_episodes=10, stop_at=None, progress=False, verbose=False):
    # Tuned for wall time to a greedy 475 (benchmarks/dqn_time_to_solve.py): a gradient step
    # costs about the same for batch 64 and 128 on a CPU (fixed per-call overhead), so one step
    # of 128 every 2 env steps; a small replay (5,000) keeps the data recent, which CartPole
    # rewards; lr 2.3e-3 as rl-zoo. ε stays at 1 for epsilon_warmup_steps (None:
    # min_replay_history, acting at random until learning starts, as Dopamine and SB3), then
    # decays over epsilon_decay_steps. loss=None is "huber" for n_step=1 and "mse" for
    # n_step > 1: Huber (δ = 1) caps each sample's gradient far below CartPole's value scale
    # (Q up to 1/(1 − γ) = 100), and with n_step=3
    # the Q-values diverged (to 1e4-5e4 by 20,000 steps on seeds 0-4 at lr=5e-4, a greedy
    # return of 9) where MSE kept them below 101 and reached 475 on seeds 0-4 within 25,000
    # steps (lr 2.3e-3). At n_step=1 Huber reaches 475 sooner (10,000-22,000 steps against
    # 17,000-26,000, seeds 0-4), so it stays the default there.
    if epsilon_warmup_steps is None:
        epsilon_warmup_steps = min_replay_history
    if loss is None:
        loss = "huber" if n_step == 1 else "mse"
    setup = ReplaySetup(locals(), cartpole_env)
    net = QNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), dueling=dueling,
                   seed=setup.seeds[2])
    learner = DQNLearner(setup.target_network(net), schedule=setup.schedule, gamma=gamma,
                         loss=loss, is_double=is_double)
    return setup.experiment(learner, f"DQN on CartPole-v1, seed {seed}")


@register("DQN with proportional prioritized replay on CartPole-v1")
def PrioritizedDQN_CartPole(seed=0, *, steps=30_000, device="cpu", n_envs=1, lr=1e-3,
                            batch_size=64, hidden=64, gamma=0.99, is_double=True,
                            capacity=50_000, min_replay_history=1000, update_freq=1,
                            target_update_freq=200, alpha=0.6, beta_init=0.4, beta_steps=20_000,
                            epsilon_stable=0.01, epsilon_decay_steps=5000,
                            epsilon_warmup_steps=0, eval_every=1000, eval_episodes=10,
                            stop_at=None, progress=False, verbose=False):
    setup = ReplaySetup(locals(), cartpole_env, prioritized=True)
    net = QNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), seed=setup.seeds[2])
    learner = PrioritizedDQNLearner(
        setup.target_network(net), schedule=setup.schedule, gamma=gamma, is_double=is_double,
        alpha=alpha, beta_init=beta_init, beta_steps=beta_steps)
    return setup.experiment(learner, f"PrioritizedDQN on CartPole-v1, seed {seed}")


@register("C51 (categorical distributional DQN) on CartPole-v1")
def C51_CartPole(seed=0, *, steps=30_000, device="cpu", n_envs=1, lr=1e-3, batch_size=64,
                 hidden=64, gamma=0.99, n_atoms=51, v_min=0.0, v_max=200.0, capacity=50_000,
                 min_replay_history=1000, update_freq=1, target_update_freq=200,
                 epsilon_stable=0.01, epsilon_decay_steps=5000, epsilon_warmup_steps=0,
                 eval_every=1000, eval_episodes=10, stop_at=None, progress=False,
                 verbose=False):
    setup = ReplaySetup(locals(), cartpole_env)
    net = DistributionalNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), n_atoms=n_atoms,
                                seed=setup.seeds[2])
    learner = C51Learner(setup.target_network(net), schedule=setup.schedule, gamma=gamma,
                         n_atoms=n_atoms, v_min=v_min, v_max=v_max)
    return setup.experiment(learner, f"C51 on CartPole-v1, seed {seed}")


@register("QR-DQN (quantile regression DQN) on CartPole-v1")
def QRDQN_CartPole(seed=0, *, steps=30_000, device="cpu", n_envs=1, lr=1e-3, batch_size=64,
                   hidden=64, gamma=0.99, n_quantiles=32, kappa=1.0, capacity=50_000,
                   min_replay_history=1000, update_freq=1, target_update_freq=200,
                   epsilon_stable=0.01, epsilon_decay_steps=5000, epsilon_warmup_steps=0,
                   eval_every=1000, eval_episodes=10, stop_at=None, progress=False,
                   verbose=False):
    setup = ReplaySetup(locals(), cartpole_env)
    net = DistributionalNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden),
                                n_atoms=n_quantiles, seed=setup.seeds[2])
    learner = QRDQNLearner(setup.target_network(net), schedule=setup.schedule, gamma=gamma,
                           n_quantiles=n_quantiles, kappa=kappa)
    return setup.experiment(learner, f"QRDQN on CartPole-v1, seed {seed}")


@register("IQN (implicit quantile networks) on CartPole-v1")
def IQN_CartPole(seed=0, *, steps=30_000, device="cpu", n_envs=1, lr=1e-3, batch_size=64,
                 hidden=64, gamma=0.99, n_tau=16, n_tau_prime=16, n_tau_act=16, n_cos=32,
                 kappa=1.0, capacity=50_000, min_replay_history=1000, update_freq=1,
                 target_update_freq=200, epsilon_stable=0.01, epsilon_decay_steps=5000,
                 epsilon_warmup_steps=0, eval_every=1000, eval_episodes=10, stop_at=None,
                 progress=False, verbose=False):
    setup = ReplaySetup(locals(), cartpole_env)
    net = ImplicitQuantileNetwork(N_STATE, N_ACTIONS, hidden=(hidden,), n_cos=n_cos,
                                  head_hidden=hidden, seed=setup.seeds[2])
    learner = IQNLearner(setup.target_network(net), schedule=setup.schedule, gamma=gamma,
                         n_tau=n_tau, n_tau_prime=n_tau_prime, n_tau_act=n_tau_act, kappa=kappa,
                         seed=setup.seeds[5])
    return setup.experiment(learner, f"IQN on CartPole-v1, seed {seed}")


@register("REM-DQN (random ensemble mixture) on CartPole-v1")
def REMDQN_CartPole(seed=0, *, steps=30_000, device="cpu", n_envs=1, lr=1e-3, batch_size=64,
                    hidden=64, gamma=0.99, n_heads=4, capacity=50_000, min_replay_history=1000,
                    update_freq=1, target_update_freq=200, epsilon_stable=0.01,
                    epsilon_decay_steps=5000, epsilon_warmup_steps=0, eval_every=1000,
                    eval_episodes=10, stop_at=None, progress=False, verbose=False):
    setup = ReplaySetup(locals(), cartpole_env)
    net = EnsembleQNetwork(N_STATE, N_ACTIONS, hidden=(hidden, hidden), n_heads=n_heads,
                           seed=setup.seeds[2])
    learner = REMDQNLearner(setup.target_network(net), schedule=setup.schedule, gamma=gamma,
                            seed=setup.seeds[5])
    return setup.experiment(learner, f"REMDQN on CartPole-v1, seed {seed}")


@register("Rainbow (C51 + PER + n-step + dueling + noisy nets) on CartPole-v1")
def Rainbow_CartPole(seed=0, *, steps=30_000, device="cpu", n_envs=1, lr=1e-3, batch_size=64,
                     hidden=64, gamma=0.99, n_step=3, n_atoms=51, v_min=0.0, v_max=200.0,
                     noisy=True, capacity=50_000, min_replay_history=1000, update_freq=1,
                     target_update_freq=200, alpha=0.5, beta_init=0.4, beta_steps=20_000,
                     epsilon_stable=0.0, epsilon_decay_steps=2000, epsilon_warmup_steps=0,
                     eval_every=1000, eval_episodes=10, stop_at=None, progress=False,
                     verbose=False):
    setup = ReplaySetup(locals(), cartpole_env, prioritized=True)
    net = DistributionalNetwork(N_STATE, N_ACTIONS, hidden=(hidden,), n_atoms=n_atoms,
                                dueling=True, noisy=noisy, seed=setup.seeds[2])
    learner = RainbowLearner(
        setup.target_network(net), schedule=setup.schedule, gamma=gamma, n_atoms=n_atoms,
        v_min=v_min, v_max=v_max, alpha=alpha, beta_init=beta_init, beta_steps=beta_steps)
    return setup.experiment(learner, f"Rainbow on CartPole-v1, seed {seed}")

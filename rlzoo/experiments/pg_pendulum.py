"""The policy-gradient family on Pendulum-v1 (a continuous torque in [−2, 2]).

Gymnasium's ``Pendulum-v1`` dynamics, 200 steps per episode (truncated, so learners bootstrap
past it), reward ``−(θ² + 0.1 θ̇² + 0.001 u²)`` per step: about −1,200 to −1,600 for a random
policy, −150 to −200 for a good swing-up. Each experiment takes ``seed`` and keyword overrides
(``rlzoo show NAME``). PPO samples an unbounded Gaussian and the env clips the torque
(:class:`~rlenvs.ClipActionEnv`); the off-policy learners squash their actions into the bounds.
"""

from rlcore import DistributionExplorer, GaussianNoiseExplorer
from rlenvs import ClipActionEnv, PendulumEnv
from rlzoo.dqns.networks import child_seed, target_network
from rlzoo.experiments.common import ReplaySetup, RolloutSetup
from rlzoo.experiments.registry import register
from rlzoo.policy_gradient import (
    ActorCritic, DDPGLearner, DeterministicActor, GaussianActor, ObservationNormalizer,
    PPOLearner, QCritic, RewardNormalizer, SACLearner, TanhGaussianActor, TD3Learner,
    ValueCritic,
)

__all__ = ["PPO_Pendulum", "DDPG_Pendulum", "TD3_Pendulum", "SAC_Pendulum", "td3_experiment",
           "sac_experiment", "pendulum_env",
           "clipped_pendulum_env"]

N_STATE, N_ACTION = 3, 1


def pendulum_env(seed):
    """Gymnasium's ``Pendulum-v1`` (200 steps, truncated)."""
    return PendulumEnv(seed=seed)


def clipped_pendulum_env(seed):
    """:func:`pendulum_env` taking any real torque, clipped into [−2, 2] (for Gaussian
    policies)."""
    return ClipActionEnv(PendulumEnv(seed=seed))


@register("PPO (clipped objective, GAE, Gaussian policy) on Pendulum-v1")
def PPO_Pendulum(seed=0, *, steps=60_000, device="cpu", n_envs=4, n_steps=512, lr=1e-3,
                 hidden=64, gamma=0.9, lam=0.95, clip_range=0.2, n_epochs=10, n_minibatches=32,
                 value_coef=0.5, entropy_coef=0.0, log_std_init=0.0, max_grad_norm=0.5,
                 anneal=False, normalize=True, eval_every=2048, eval_episodes=10, stop_at=None,
                 progress=False, verbose=False):
    # After rl-zoo's PPO Pendulum-v1 (4 envs, γ 0.9, 10 epochs, lr 1e-3, normalised states and
    # rewards; lr and ε constant), with 512-step rollouts and no gSDE. anneal=True (lr and ε
    # decayed linearly to 0 over the run) reached −250 on 4 of seeds 0-9 within 60,000 steps,
    # and on none of seeds 1-6 with evaluations every 2,048 steps; without it, 5 of seeds 1-6.
    setup = RolloutSetup(locals(), clipped_pendulum_env)
    normalizer = ObservationNormalizer((N_STATE,)) if normalize else None
    model = ActorCritic(
        GaussianActor(N_STATE, N_ACTION, hidden=(hidden, hidden), log_std_init=log_std_init,
                      seed=setup.seeds[2]),
        ValueCritic(N_STATE, hidden=(hidden, hidden), seed=setup.seeds[5]), body=normalizer)
    learner = PPOLearner(
        setup.approximator(model), schedule=setup.schedule, gamma=gamma, lam=lam,
        clip_range=clip_range, n_epochs=n_epochs, n_minibatches=n_minibatches,
        value_coef=value_coef, entropy_coef=entropy_coef,
        anneal_rollouts=setup.n_rollouts if anneal else None, state_normalizer=normalizer,
        reward_normalizer=RewardNormalizer(n_envs, gamma) if normalize else None,
        seed=setup.seeds[4])
    return setup.experiment(learner, f"PPO on Pendulum-v1, seed {seed}")


@register("DDPG (deterministic actor, Polyak-averaged targets) on Pendulum-v1")
def DDPG_Pendulum(seed=0, *, steps=60_000, device="cpu", lr=1e-3, batch_size=256, hidden=64,
                  gamma=0.98, tau=0.005, capacity=200_000, min_replay_history=1000,
                  update_freq=1, gradient_steps=1, noise_std=0.1, eval_every=2000,
                  eval_episodes=10, stop_at=None, progress=False, verbose=False):
    # After rl-zoo's ddpg.yml Pendulum-v1 (γ 0.98, lr 1e-3 for both networks, Gaussian noise
    # 0.1, a 200k replay; SB3's batch 256 and τ 0.005), tuned for CPU wall time: 64-unit
    # layers (not 400-300; about a quarter of the time per update), learning from step 1,000
    # (rl-zoo's Pendulum-v0 TD3 entry; not 10,000) and one gradient step per env step (rl-zoo:
    # 200 after each 200-step episode, the same ratio). Uniform random actions until then.
    setup = ReplaySetup(locals(), pendulum_env)
    low, high = setup.action_space.low, setup.action_space.high
    actor = DeterministicActor(N_STATE, low, high, hidden=(hidden, hidden), seed=setup.seeds[2])
    critic = QCritic(N_STATE, N_ACTION, hidden=(hidden, hidden), seed=setup.seeds[5])
    learner = DDPGLearner(target_network(setup.approximator(actor), rho=1 - tau),
                          target_network(setup.approximator(critic), rho=1 - tau),
                          schedule=setup.schedule, gamma=gamma)
    explorer = GaussianNoiseExplorer(low=low, high=high, std=noise_std,
                                     warmup_steps=min_replay_history, seed=setup.seeds[3])
    return setup.actor_experiment(learner, explorer, f"DDPG on Pendulum-v1, seed {seed}")


@register("TD3 (twin critics, target smoothing, delayed actor) on Pendulum-v1")
def TD3_Pendulum(seed=0, *, steps=60_000, device="cpu", lr=1e-3, batch_size=256, hidden=64,
                 gamma=0.98, tau=0.005, policy_delay=2, target_noise=0.2, noise_clip=0.5,
                 capacity=200_000, min_replay_history=1000, update_freq=1, gradient_steps=1,
                 noise_std=0.1, eval_every=2000, eval_episodes=10, stop_at=None,
                 progress=False, verbose=False):
    # After rl-zoo's td3.yml Pendulum-v1 (the values of DDPG_Pendulum; SB3's policy delay 2,
    # target noise 0.2 clipped at 0.5), tuned for CPU wall time as DDPG_Pendulum is
    setup = ReplaySetup(locals(), pendulum_env)
    return td3_experiment(setup, hidden, tau, gamma, policy_delay, target_noise, noise_clip,
                          noise_std, min_replay_history, f"TD3 on Pendulum-v1, seed {seed}")


@register("SAC (twin soft Q-critics, tanh-Gaussian actor, learned temperature) on Pendulum-v1")
def SAC_Pendulum(seed=0, *, steps=60_000, device="cpu", lr=1e-3, batch_size=128, hidden=64,
                 gamma=0.99, tau=0.005, alpha=None, alpha_init=1.0, capacity=100_000,
                 min_replay_history=256, update_freq=1, gradient_steps=1, eval_every=1000,
                 eval_episodes=10, stop_at=None, progress=False, verbose=False):
    # After rl-zoo's sac.yml Pendulum-v1 (SB3's SAC defaults with lr 1e-3 for the actor, the
    # critics and log α; γ 0.99, τ 0.005, α learned from 1 with the target entropy −dim(A)),
    # tuned for CPU wall time: 64×64 networks and batch 128 in place of 256×256 and 256 (a gradient step
    # costs about a quarter as much on one thread; seeds 0-4 reach −250 in 3,000-5,000 steps,
    # 16-24 s each)
    setup = ReplaySetup(locals(), pendulum_env)
    return sac_experiment(setup, hidden, tau, gamma, lr, f"SAC on Pendulum-v1, seed {seed}",
                          alpha=alpha, alpha_init=alpha_init)


def td3_experiment(setup, hidden, tau, gamma, policy_delay, target_noise, noise_clip, noise_std,
                   warmup_steps, description):
    """A TD3 agent for ``setup``'s Box-action env: a ``DeterministicActor`` and two
    ``QCritic``\\ s of ``hidden``-``hidden`` units with Polyak targets (ρ = 1 − τ; the critics'
    targets move every ``policy_delay`` steps, with the actor), acting with Gaussian noise
    after ``warmup_steps`` uniformly random steps (also ``TD3_HalfCheetah``'s)."""
    n_state, n_action = setup.state_space.shape[0], setup.action_space.shape[0]
    low, high = setup.action_space.low, setup.action_space.high
    s = setup.seeds

    def critic(seed):
        model = QCritic(n_state, n_action, hidden=(hidden, hidden), seed=seed)
        return target_network(setup.approximator(model), sync_every=policy_delay, rho=1 - tau)

    actor = DeterministicActor(n_state, low, high, hidden=(hidden, hidden), seed=s[2])
    learner = TD3Learner(target_network(setup.approximator(actor), rho=1 - tau),
                         critic(child_seed(s[5], 1)), critic(child_seed(s[5], 2)),
                         schedule=setup.schedule, gamma=gamma, policy_delay=policy_delay,
                         target_noise=target_noise, noise_clip=noise_clip, seed=s[7])
    explorer = GaussianNoiseExplorer(low=low, high=high, std=noise_std,
                                     warmup_steps=warmup_steps, seed=s[3])
    return setup.actor_experiment(learner, explorer, description)


def sac_experiment(setup, hidden, tau, gamma, lr, description, alpha=None, alpha_init=1.0):
    """A SAC agent for ``setup``'s Box-action env: a ``TanhGaussianActor`` and two ``QCritic``\\ s
    of ``hidden``-``hidden`` units with Polyak targets (ρ = 1 − τ), α learned with Adam at
    ``lr`` (or fixed at ``alpha``), acting by sampling the policy (also ``SAC_HalfCheetah``'s
    and ``SAC_Hopper``'s)."""
    n_state, n_action = setup.state_space.shape[0], setup.action_space.shape[0]
    low, high = setup.action_space.low, setup.action_space.high
    s = setup.seeds

    def critic(seed):
        model = QCritic(n_state, n_action, hidden=(hidden, hidden), seed=seed)
        return target_network(setup.approximator(model), rho=1 - tau)

    actor = TanhGaussianActor(n_state, low, high, hidden=(hidden, hidden), seed=s[2])
    learner = SACLearner(setup.approximator(actor), critic(child_seed(s[5], 1)),
                         critic(child_seed(s[5], 2)), schedule=setup.schedule, gamma=gamma,
                         alpha=alpha, alpha_init=alpha_init, alpha_lr=lr, seed=s[7])
    return setup.actor_experiment(learner, DistributionExplorer(seed=s[3]), description)

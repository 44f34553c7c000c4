"""The policy-gradient family on MuJoCo (Gymnasium's ``HalfCheetah-v5`` and ``Hopper-v5``), with
the settings of the papers' own benchmarks (each experiment names its source).

Needs the ``mujoco`` extra: ``pip install "reinforcementlearning[mujoco]"``
(``gymnasium[mujoco]``). Episodes are 1,000 steps, truncated (learners bootstrap past the time
limit); Hopper also terminates when it falls. The runs take hours on a CPU at 1,000,000 steps;
``steps=`` shortens them.
"""

from rlcore import DistributionExplorer, GaussianNoiseExplorer
from rlenvs import ClipActionEnv, GymEnv
from rlzoo.dqns.networks import child_seed, target_network
from rlzoo.experiments.common import ReplaySetup, RolloutSetup
from rlzoo.experiments.registry import register
from rlzoo.policy_gradient import (
    ActorCritic, DeterministicActor, GaussianActor, ObservationNormalizer, PPOLearner, QCritic,
    RewardNormalizer, TanhGaussianActor, TD3Learner, ValueCritic,
)
from rlzoo.policy_gradient.sac import SACLearner

__all__ = ["PPO_HalfCheetah", "SAC_HalfCheetah", "SAC_Hopper", "TD3_HalfCheetah", "mujoco_env"]


def mujoco_env(env_id, seed):
    """Gymnasium's ``env_id`` (MuJoCo; 1,000 steps per episode)."""
    return GymEnv(env_id, seed=seed)


def _clipped(env_id):
    return lambda seed: ClipActionEnv(mujoco_env(env_id, seed))


@register("PPO on HalfCheetah-v5 (the PPO paper's MuJoCo settings)")
def PPO_HalfCheetah(seed=0, *, steps=1_000_000, device="cpu", n_envs=1, n_steps=2048,
                    lr=3e-4, hidden=64, gamma=0.99, lam=0.95, clip_range=0.2, n_epochs=10,
                    n_minibatches=32, value_coef=0.5, entropy_coef=0.0, max_grad_norm=0.5,
                    anneal=True, normalize=True, eval_every=50_000, eval_episodes=10,
                    stop_at=None, progress=False, verbose=False):
    # Schulman et al. (2017), Table 3 (MuJoCo, 1M steps): horizon 2,048, Adam 3e-4, 10 epochs,
    # minibatch 64 (2,048 / 32), γ 0.99, λ 0.95, ε 0.2, a 64-64 tanh MLP; with the
    # observation and reward normalisation and the learning-rate annealing of OpenAI
    # baselines' ppo2 MuJoCo runs (and CleanRL's ppo_continuous_action.py).
    setup = RolloutSetup(locals(), _clipped("HalfCheetah-v5"))
    n_state, n_action = setup.state_space.shape[0], setup.action_space.shape[0]
    normalizer = ObservationNormalizer((n_state,)) if normalize else None
    model = ActorCritic(
        GaussianActor(n_state, n_action, hidden=(hidden, hidden), seed=setup.seeds[2]),
        ValueCritic(n_state, hidden=(hidden, hidden), seed=setup.seeds[5]), body=normalizer)
    learner = PPOLearner(
        setup.approximator(model), schedule=setup.schedule, gamma=gamma, lam=lam,
        clip_range=clip_range, n_epochs=n_epochs, n_minibatches=n_minibatches,
        value_coef=value_coef, entropy_coef=entropy_coef,
        anneal_rollouts=setup.n_rollouts if anneal else None, state_normalizer=normalizer,
        reward_normalizer=RewardNormalizer(n_envs, gamma) if normalize else None,
        seed=setup.seeds[4])
    return setup.experiment(learner, f"PPO on HalfCheetah-v5, seed {seed}")


@register("TD3 on HalfCheetah-v5 (the TD3 authors' settings)")
def TD3_HalfCheetah(seed=0, *, steps=1_000_000, device="cpu", lr=3e-4, batch_size=256,
                    hidden=256, gamma=0.99, tau=0.005, policy_delay=2, target_noise=0.2,
                    noise_clip=0.5, capacity=1_000_000, min_replay_history=25_000,
                    update_freq=1, gradient_steps=1, noise_std=0.1, eval_every=5000,
                    eval_episodes=10, stop_at=None, progress=False, verbose=False):
    # Fujimoto et al. (2018) as in the authors' reference implementation (sfujim/TD3, the
    # settings of its updated results): 256-256 ReLU actor and critics, Adam 3e-4, batch 256,
    # τ 0.005, γ 0.99, 25,000 steps of uniformly random actions first, exploration noise 0.1
    # and target noise 0.2 clipped at 0.5 (of the half-range: HalfCheetah's is 1), the actor
    # and the targets updated every 2 critic steps; an evaluation every 5,000 steps.
    setup = ReplaySetup(locals(), lambda s: mujoco_env("HalfCheetah-v5", s))
    return _td3(setup, hidden, tau, gamma, policy_delay, target_noise, noise_clip, noise_std,
                min_replay_history, f"TD3 on HalfCheetah-v5, seed {seed}")


def _td3(setup, hidden, tau, gamma, policy_delay, target_noise, noise_clip, noise_std,
         warmup_steps, description):
    """A TD3 agent for ``setup``'s Box-action env (as ``TD3_Pendulum`` builds it)."""
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


def _sac(setup, hidden, tau, gamma, lr, description):
    """A SAC agent for ``setup``'s Box-action env (as ``SAC_Pendulum`` builds it)."""
    n_state, n_action = setup.state_space.shape[0], setup.action_space.shape[0]
    low, high = setup.action_space.low, setup.action_space.high
    s = setup.seeds

    def critic(seed):
        model = QCritic(n_state, n_action, hidden=(hidden, hidden), seed=seed)
        return target_network(setup.approximator(model), rho=1 - tau)

    actor = TanhGaussianActor(n_state, low, high, hidden=(hidden, hidden), seed=s[2])
    learner = SACLearner(setup.approximator(actor), critic(child_seed(s[5], 1)),
                         critic(child_seed(s[5], 2)), schedule=setup.schedule, gamma=gamma,
                         alpha_lr=lr, seed=s[7])
    return setup.actor_experiment(learner, DistributionExplorer(seed=s[3]), description)


# Haarnoja et al. (2018), "Soft Actor-Critic Algorithms and Applications", Table 1: Adam 3e-4
# for every network and for α, 256-256 ReLU networks, batch 256, replay 1,000,000, γ 0.99,
# τ 0.005, one gradient step and one target update per env step, target entropy −dim(A);
# learning starts after 10,000 steps (softlearning's initial exploration for MuJoCo), acting
# with the initial policy until then; an evaluation every 5,000 steps.

@register("SAC on HalfCheetah-v5 (the SAC paper's settings)")
def SAC_HalfCheetah(seed=0, *, steps=1_000_000, device="cpu", lr=3e-4, batch_size=256,
                    hidden=256, gamma=0.99, tau=0.005, capacity=1_000_000,
                    min_replay_history=10_000, update_freq=1, gradient_steps=1,
                    eval_every=5000, eval_episodes=10, stop_at=None, progress=False,
                    verbose=False):
    setup = ReplaySetup(locals(), lambda s: mujoco_env("HalfCheetah-v5", s))
    return _sac(setup, hidden, tau, gamma, lr, f"SAC on HalfCheetah-v5, seed {seed}")


@register("SAC on Hopper-v5 (the SAC paper's settings)")
def SAC_Hopper(seed=0, *, steps=1_000_000, device="cpu", lr=3e-4, batch_size=256, hidden=256,
               gamma=0.99, tau=0.005, capacity=1_000_000, min_replay_history=10_000,
               update_freq=1, gradient_steps=1, eval_every=5000, eval_episodes=10,
               stop_at=None, progress=False, verbose=False):
    setup = ReplaySetup(locals(), lambda s: mujoco_env("Hopper-v5", s))
    return _sac(setup, hidden, tau, gamma, lr, f"SAC on Hopper-v5, seed {seed}")

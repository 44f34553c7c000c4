"""The policy-gradient family on MuJoCo (Gymnasium's ``HalfCheetah-v5`` and ``Hopper-v5``), with
the settings of the papers' own benchmarks (each experiment names its source).

Needs the ``mujoco`` extra: ``pip install "reinforcementlearning[mujoco]"``
(``gymnasium[mujoco]``). Episodes are 1,000 steps, truncated (learners bootstrap past the time
limit); Hopper also terminates when it falls. The runs take hours on a CPU at 1,000,000 steps;
``steps=`` shortens them.
"""

from rlenvs import ClipActionEnv, GymEnv
from rlzoo.experiments.common import ReplaySetup, RolloutSetup
from rlzoo.experiments.pg_pendulum import sac_experiment, td3_experiment
from rlzoo.experiments.registry import register
from rlzoo.policy_gradient import (
    ActorCritic, GaussianActor, ObservationNormalizer, PPOLearner, RewardNormalizer, ValueCritic,
)

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
    # observation and reward normalisation and the learning-rate annealing (ε constant) of
    # OpenAI baselines' ppo2 MuJoCo runs and CleanRL's ppo_continuous_action.py.
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
        anneal_rollouts=setup.n_rollouts if anneal else None, anneal_clip_range=False,
        state_normalizer=normalizer,
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
    return td3_experiment(setup, hidden, tau, gamma, policy_delay, target_noise, noise_clip,
                          noise_std, min_replay_history, f"TD3 on HalfCheetah-v5, seed {seed}")


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
    return sac_experiment(setup, hidden, tau, gamma, lr, f"SAC on HalfCheetah-v5, seed {seed}")


@register("SAC on Hopper-v5 (the SAC paper's settings)")
def SAC_Hopper(seed=0, *, steps=1_000_000, device="cpu", lr=3e-4, batch_size=256, hidden=256,
               gamma=0.99, tau=0.005, capacity=1_000_000, min_replay_history=10_000,
               update_freq=1, gradient_steps=1, eval_every=5000, eval_episodes=10,
               stop_at=None, progress=False, verbose=False):
    setup = ReplaySetup(locals(), lambda s: mujoco_env("Hopper-v5", s))
    return sac_experiment(setup, hidden, tau, gamma, lr, f"SAC on Hopper-v5, seed {seed}")

"""The policy-gradient family on MuJoCo (Gymnasium's ``HalfCheetah-v5`` and ``Hopper-v5``), with
the settings of the papers' own benchmarks (each experiment names its source).

Needs the ``mujoco`` extra: ``pip install "reinforcementlearning[mujoco]"``
(``gymnasium[mujoco]``). Episodes are 1,000 steps, truncated (learners bootstrap past the time
limit); Hopper also terminates when it falls. The runs take hours on a CPU at 1,000,000 steps;
``steps=`` shortens them.
"""

from rlenvs import ClipActionEnv, GymEnv
from rlzoo.experiments.common import RolloutSetup
from rlzoo.experiments.registry import register
from rlzoo.policy_gradient import (
    ActorCritic, GaussianActor, ObservationNormalizer, PPOLearner, RewardNormalizer, ValueCritic,
)

__all__ = ["PPO_HalfCheetah", "mujoco_env"]


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

"""The policy-gradient family on Pendulum-v1 (a continuous torque in [−2, 2]).

Gymnasium's ``Pendulum-v1`` dynamics, 200 steps per episode (truncated, so learners bootstrap
past it), reward ``−(θ² + 0.1 θ̇² + 0.001 u²)`` per step: about −1,200 to −1,600 for a random
policy, −150 to −200 for a good swing-up. Each experiment takes ``seed`` and keyword overrides
(``rlzoo show NAME``). PPO samples an unbounded Gaussian and the env clips the torque
(:class:`~rlenvs.ClipActionEnv`); the off-policy learners squash their actions into the bounds.
"""

from rlenvs import ClipActionEnv, PendulumEnv
from rlzoo.experiments.common import RolloutSetup
from rlzoo.experiments.registry import register
from rlzoo.policy_gradient import (
    ActorCritic, GaussianActor, ObservationNormalizer, PPOLearner, RewardNormalizer, ValueCritic,
)

__all__ = ["PPO_Pendulum", "pendulum_env", "clipped_pendulum_env"]

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
                 anneal=True, normalize=True, eval_every=4096, eval_episodes=10, stop_at=None,
                 progress=False, verbose=False):
    # After rl-zoo's PPO Pendulum-v1 (4 envs, γ 0.9, 10 epochs, lr 1e-3, normalised states and
    # rewards), with 512-step rollouts
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

"""The policy-gradient family on CartPole-v1: one named experiment per algorithm.

Each takes ``seed`` and keyword overrides (``rlzoo show NAME`` lists them). The on-policy ones
are built by :class:`~rlzoo.experiments.common.RolloutSetup` (``n_envs`` CartPoles in a
``MultiThreadEnv``, one batched forward for all of them per step, a rollout of ``n_steps`` steps
of each), so each keeps only its networks and its learner. Evaluation: every ``eval_every`` env
steps, ``eval_episodes`` episodes of the policy's mode (the most likely action) on a separate
env; ``stop_at`` (e.g. 475) ends the run at the first evaluation reaching it.
"""

from rlzoo.experiments.cartpole import cartpole_env
from rlzoo.experiments.common import RolloutSetup
from rlzoo.experiments.registry import register
from rlzoo.policy_gradient import ActorCritic, CategoricalActor, PPOLearner, ValueCritic

__all__ = ["PPO_CartPole"]

N_STATE, N_ACTIONS = 4, 2


def actor_critic(setup, hidden):
    """Separate 2-layer tanh MLPs for the categorical actor and the value critic, orthogonal
    initialisation (seeded from the experiment's seed)."""
    return ActorCritic(
        CategoricalActor(N_STATE, N_ACTIONS, hidden=(hidden, hidden), seed=setup.seeds[2]),
        ValueCritic(N_STATE, hidden=(hidden, hidden), seed=setup.seeds[5]))


@register("PPO (clipped objective, GAE) on CartPole-v1")
def PPO_CartPole(seed=0, *, steps=100_000, device="cpu", n_envs=8, n_steps=32, lr=2.5e-3,
                 hidden=64, gamma=0.99, lam=0.95, clip_range=0.2, n_epochs=10, n_minibatches=4,
                 value_coef=0.5, entropy_coef=0.0, max_grad_norm=0.5, anneal=True,
                 eval_every=5000, eval_episodes=10, stop_at=None, progress=False,
                 verbose=False):
    setup = RolloutSetup(locals(), cartpole_env)
    learner = PPOLearner(
        setup.approximator(actor_critic(setup, hidden)), schedule=setup.schedule, gamma=gamma,
        lam=lam, clip_range=clip_range, n_epochs=n_epochs, n_minibatches=n_minibatches,
        value_coef=value_coef, entropy_coef=entropy_coef,
        anneal_rollouts=setup.n_rollouts if anneal else None, seed=setup.seeds[4])
    return setup.experiment(learner, f"PPO on CartPole-v1, seed {seed}")

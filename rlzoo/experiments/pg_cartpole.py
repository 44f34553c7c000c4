"""The policy-gradient family on CartPole-v1: one named experiment per algorithm.

Each takes ``seed`` and keyword overrides (``rlzoo show NAME`` lists them). The on-policy ones
are built by :class:`~rlzoo.experiments.common.RolloutSetup` (``n_envs`` CartPoles in a
``MultiThreadEnv``, one batched forward for all of them per step, a rollout of ``n_steps`` steps
of each), so each keeps only its networks and its learner. Evaluation: every ``eval_every`` env
steps, ``eval_episodes`` episodes of the policy's mode (the most likely action) on a separate
env; ``stop_at`` (e.g. 475) ends the run at the first evaluation reaching it.
"""

import torch

from rlcore import DistributionExplorer, NeuralNetworkApproximator
from rlzoo.dqns.networks import child_seed, target_network
from rlzoo.experiments.cartpole import cartpole_env
from rlzoo.experiments.common import ReplaySetup, RolloutSetup
from rlzoo.experiments.registry import register
from rlzoo.policy_gradient import (
    A2CGAELearner, A2CLearner, ActorCritic, CategoricalActor, DiscreteSACLearner, MACLearner,
    PPOLearner, QValues, TRPOLearner, ValueCritic, VPGLearner,
)

__all__ = ["PPO_CartPole", "TRPO_CartPole", "VPG_CartPole", "A2C_CartPole", "A2CGAE_CartPole",
           "MAC_CartPole", "DiscreteSAC_CartPole"]

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
    # After rl-zoo's ppo.yml CartPole-v1 (8 envs, γ 0.98 → here 0.99, λ 0.8 → 0.95, lr and ε
    # decayed linearly, 20 epochs → 10, n_steps 32) with CleanRL's networks (separate 64-64
    # tanh actor and critic, orthogonal init, Adam eps 1e-5), lr 2.5e-3 and 4 minibatches of
    # 64 chosen for wall time to 475 on a CPU (no sweep; seeds 0-4 reached it within 4,000-
    # 12,000 steps in benchmarks/pg_speed.py).
    setup = RolloutSetup(locals(), cartpole_env)
    learner = PPOLearner(
        setup.approximator(actor_critic(setup, hidden)), schedule=setup.schedule, gamma=gamma,
        lam=lam, clip_range=clip_range, n_epochs=n_epochs, n_minibatches=n_minibatches,
        value_coef=value_coef, entropy_coef=entropy_coef,
        anneal_rollouts=setup.n_rollouts if anneal else None, seed=setup.seeds[4])
    return setup.experiment(learner, f"PPO on CartPole-v1, seed {seed}")


@register("TRPO (natural gradient in a KL trust region, GAE) on CartPole-v1")
def TRPO_CartPole(seed=0, *, steps=100_000, device="cpu", n_envs=2, n_steps=512, lr=1e-3,
                  hidden=64, gamma=0.99, lam=0.98, max_kl=0.01, cg_iters=15, cg_damping=1e-3,
                  value_epochs=20, value_minibatches=2, eval_every=5000, eval_episodes=10,
                  stop_at=None, progress=False, verbose=False):
    # rl-baselines3-zoo hyperparams/trpo.yml, CartPole-v1 (SB3-contrib TRPO): n_envs 2,
    # n_steps 512, batch_size 512 (2 critic minibatches), n_critic_updates 20, cg_damping 1e-3,
    # gae_lambda 0.98, gamma 0.99, learning_rate 1e-3; SB3-contrib's defaults target_kl 0.01,
    # cg_max_steps 15, 10 line-search steps shrinking by 0.8, no gradient clipping.
    setup = RolloutSetup(locals(), cartpole_env)
    model = actor_critic(setup, hidden)
    # The optimiser holds only the critic: the actor moves by the trust-region step alone.
    approximator = NeuralNetworkApproximator(
        model, torch.optim.Adam(model.critic.parameters(), lr=lr, eps=setup.settings.adam_eps),
        device=device)
    learner = TRPOLearner(
        approximator, schedule=setup.schedule, gamma=gamma, lam=lam, max_kl=max_kl,
        cg_iters=cg_iters, cg_damping=cg_damping, value_epochs=value_epochs,
        value_minibatches=value_minibatches, seed=setup.seeds[4])
    return setup.experiment(learner, f"TRPO on CartPole-v1, seed {seed}")


def rmsprop(parameters, lr):
    """Stable-Baselines3's A2C optimiser: RMSprop with α = 0.99 and ε = 1e-5."""
    return torch.optim.RMSprop(parameters, lr=lr, alpha=0.99, eps=1e-5)


@register("VPG (REINFORCE with a learned baseline) on CartPole-v1")
def VPG_CartPole(seed=0, *, steps=100_000, device="cpu", n_envs=4, lr=3e-3, hidden=64,
                 gamma=0.99, baseline=True, normalize_advantages=True, value_coef=1.0,
                 entropy_coef=0.0, max_grad_norm=None, eval_every=5000, eval_episodes=10,
                 stop_at=None, progress=False, verbose=False):
    # REINFORCE with a baseline (Sutton & Barto §13.4), one update per finished episode, Adam;
    # advantages normalised per episode. lr 1e-2 made the policy deterministic (returns of 9)
    # for one seed of three with 4 envs and one of three with 1 env; 3e-3 learned for seeds 0-4
    # with either. RolloutSetup's trajectory holds n_steps steps of every env: VPG's must hold
    # a whole episode (up to CartPole-v1's 500 steps) and the last step of the one before it.
    setup = RolloutSetup(dict(locals(), n_steps=501), cartpole_env)
    learner = VPGLearner(
        setup.approximator(actor_critic(setup, hidden)), gamma=gamma, baseline=baseline,
        normalize_advantages=normalize_advantages, value_coef=value_coef,
        entropy_coef=entropy_coef)
    return setup.experiment(learner, f"VPG on CartPole-v1, seed {seed}")


@register("A2C (n-step returns) on CartPole-v1")
def A2C_CartPole(seed=0, *, steps=100_000, device="cpu", n_envs=8, n_steps=5, lr=7e-4,
                 hidden=64, gamma=0.99, value_coef=0.5, entropy_coef=0.0,
                 normalize_advantages=False, max_grad_norm=0.5, eval_every=5000,
                 eval_episodes=10, stop_at=None, progress=False, verbose=False):
    # rl-baselines3-zoo hyperparams/a2c.yml, CartPole-v1: 8 envs, ent_coef 0, and SB3 A2C's
    # defaults: n_steps 5, RMSprop (α 0.99, ε 1e-5) at 7e-4, γ 0.99, n-step returns
    # (gae_lambda 1), vf_coef 0.5, max_grad_norm 0.5, no advantage normalisation, separate
    # 64-64 tanh actor and critic with orthogonal initialisation. Untuned: it reaches 475
    # within 40,000 steps for seeds 0-2 (rl-zoo trains for 500,000).
    setup = RolloutSetup(locals(), cartpole_env, optimizer=rmsprop)
    learner = A2CLearner(
        setup.approximator(actor_critic(setup, hidden)), schedule=setup.schedule, gamma=gamma,
        value_coef=value_coef, entropy_coef=entropy_coef,
        normalize_advantages=normalize_advantages)
    return setup.experiment(learner, f"A2C on CartPole-v1, seed {seed}")


@register("A2C with GAE advantages on CartPole-v1")
def A2CGAE_CartPole(seed=0, *, steps=100_000, device="cpu", n_envs=8, n_steps=5, lr=7e-4,
                    hidden=64, gamma=0.99, lam=0.95, value_coef=0.5, entropy_coef=0.0,
                    normalize_advantages=False, max_grad_norm=0.5, eval_every=5000,
                    eval_episodes=10, stop_at=None, progress=False, verbose=False):
    # A2C_CartPole's settings (rl-baselines3-zoo's a2c.yml with SB3's defaults) with GAE
    # λ = 0.95 (PPO_CartPole's) instead of n-step returns.
    setup = RolloutSetup(locals(), cartpole_env, optimizer=rmsprop)
    learner = A2CGAELearner(
        setup.approximator(actor_critic(setup, hidden)), schedule=setup.schedule, gamma=gamma,
        lam=lam, value_coef=value_coef, entropy_coef=entropy_coef,
        normalize_advantages=normalize_advantages)
    return setup.experiment(learner, f"A2C-GAE on CartPole-v1, seed {seed}")


@register("Mean Actor-Critic on CartPole-v1")
def MAC_CartPole(seed=0, *, steps=100_000, device="cpu", n_envs=8, n_steps=10, lr=3e-3,
                 actor_lr=1e-4, hidden=64, gamma=0.99, lam=1.0, entropy_coef=0.0,
                 max_grad_norm=None, adam_eps=1e-8, eval_every=5000, eval_episodes=10,
                 stop_at=None, progress=False, verbose=False):
    # After RL.jl's JuliaRL_MAC_CartPole: separate actor and critic networks and Adam
    # optimisers, the critic's at 3e-3 (RL.jl: actor 1e-2, 16 envs, 20-step rollouts, 30-30
    # relu networks, n-step critic targets). Every actor learning rate at or above the
    # critic's that we tried, with 8 or 16 envs, RMSprop or Adam, made the policy deterministic
    # within 5,000 steps (mac.py's doc says why); 1e-4 learns. Of the rollouts of 5, 10 and 20
    # steps and λ 0.9 and 1 tried, 10 steps of n-step returns (λ 1) reached 475 for seeds 0-2.
    setup = RolloutSetup(locals(), cartpole_env)
    actor = CategoricalActor(N_STATE, N_ACTIONS, hidden=(hidden, hidden), seed=setup.seeds[2])
    critic = QValues(N_STATE, N_ACTIONS, hidden=(hidden, hidden), seed=setup.seeds[5])
    actor_approximator = NeuralNetworkApproximator(
        actor, torch.optim.Adam(actor.parameters(), lr=actor_lr, eps=adam_eps), device=device,
        max_grad_norm=max_grad_norm)
    learner = MACLearner(actor_approximator, setup.approximator(critic),
                         schedule=setup.schedule, gamma=gamma, lam=lam,
                         entropy_coef=entropy_coef)
    return setup.experiment(learner, f"MAC on CartPole-v1, seed {seed}")


@register("Discrete SAC (twin soft Q-critics, exact expectations over actions) on CartPole-v1")
def DiscreteSAC_CartPole(seed=0, *, steps=100_000, device="cpu", actor_lr=1e-3, critic_lr=2e-3,
                         alpha_lr=3e-4, batch_size=128, hidden=64, gamma=0.99, n_step=3,
                         tau=0.01, alpha=None, alpha_init=0.01, target_entropy_scale=0.1,
                         capacity=5000, min_replay_history=500, update_freq=2, gradient_steps=1,
                         eval_every=2000, eval_episodes=10, stop_at=None, progress=False,
                         verbose=False):
    # Tuned for wall time to a greedy 475 (seeds 0-4: 8,000-20,000 steps, 18-49 s on one
    # thread). The replay, batch and cadence are DQN_CartPole's (5,000 recent transitions,
    # batch 128 every 2 env steps). CleanRL's target entropy 0.89 log |A| kept the policy near
    # 70/30 and α grew without bound (2,500 by 30,000 steps); Tianshou fixes α = 0.05 on
    # CartPole instead. With 1-step targets α = 0.05 or 0.01 and 0.5 log |A| all plateaued near
    # a greedy 200-250 for 20,000 steps (18,000-30,000 steps to 475); 3-step targets
    # (Tianshou's n_step 3) took 8,000-18,000. A learned α with a low target (0.1 log |A|, α
    # from 0.01) did as well as the best fixed α (0.01), so α is learned.
    setup = ReplaySetup(locals(), cartpole_env)
    s = setup.seeds

    def adam(model, lr):
        return NeuralNetworkApproximator(
            model, torch.optim.Adam(model.parameters(), lr=lr, fused=True), device=device)

    def critic(seed):
        model = QValues(N_STATE, N_ACTIONS, hidden=(hidden, hidden), seed=seed)
        return target_network(adam(model, critic_lr), rho=1 - tau)

    actor = CategoricalActor(N_STATE, N_ACTIONS, hidden=(hidden, hidden), seed=s[2])
    learner = DiscreteSACLearner(
        adam(actor, actor_lr), critic(child_seed(s[5], 1)), critic(child_seed(s[5], 2)),
        schedule=setup.schedule, gamma=gamma, alpha=alpha, alpha_init=alpha_init,
        alpha_lr=alpha_lr, target_entropy_scale=target_entropy_scale)
    return setup.actor_experiment(learner, DistributionExplorer(seed=s[3]),
                                  f"Discrete SAC on CartPole-v1, seed {seed}")

"""Actor-critic Atari configurations after rlpyt's defaults (Stooke & Abbeel 2019,
https://arxiv.org/abs/1909.01500; ``rlpyt/experiments/configs/atari/pg/atari_ff_{a2c,ppo}.py``,
``rlpyt/algos/pg/{a2c,ppo}.py``, ``rlpyt/models/pg/atari_ff_model.py``).

Common: ``AtariEnv(game)`` with 4-frame stacks, frame skip 4, up to 30 no-ops at reset, no
sticky actions, rewards clipped to their sign, at most 27,000 agent steps per episode; rlpyt's
feed-forward model (:class:`~rlzoo.policy_gradient.networks.AtariBody`: convolutions of 16 and
32 channels, 512 hidden units, linear policy and value heads); Adam, gradient norm clipped to
1, γ = 0.99, entropy bonus 0.01; 32 environments in a ``MultiThreadEnv`` (``n_envs``; rlpyt's
``batch_B``). Differences from rlpyt, stated: frames are 84×84 (rlpyt's are 80×104), a lost
life does not end the episode (rlpyt's ``episodic_lives=True`` marks it done without a reset,
which Gymnasium's preprocessing cannot express), and the rollout's environments are stepped
in this process (a synchronous ``MultiThreadEnv``; rlpyt samples in parallel workers).
"""

import numpy as np

from rlenvs import AtariEnv, RewardTransformedEnv
from rlzoo.dqns.networks import child_seed
from rlzoo.experiments.common import RolloutSetup
from rlzoo.experiments.registry import register
from rlzoo.policy_gradient import (
    A2CLearner, ActorCritic, CategoricalActor, PPOLearner, ValueCritic,
)
from rlzoo.policy_gradient.networks import AtariBody

__all__ = ["rlpyt_A2C_Atari", "rlpyt_PPO_Atari", "rlpyt_atari_env", "rlpyt_model"]


def rlpyt_atari_env(game, seed, max_episode_steps=27_000):
    """rlpyt's Atari preprocessing on ``AtariEnv``, rewards clipped to their sign."""
    env = AtariEnv(game, frame_skip=4, noop_max=30, terminal_on_life_loss=False,
                   repeat_action_probability=0.0, grayscale=True, screen_size=84, frame_stack=4,
                   max_steps=max_episode_steps, seed=seed)
    return RewardTransformedEnv(env, reward_mapping=np.sign)


def rlpyt_model(setup):
    """rlpyt's ``AtariFfModel``: the shared body, a linear policy head and a linear value head."""
    n_actions = int(setup.action_space.n)
    return ActorCritic(CategoricalActor(512, n_actions, hidden=(), orthogonal=False,
                                        seed=setup.seeds[5]),
                       ValueCritic(512, hidden=(), orthogonal=False,
                                   seed=child_seed(setup.seeds[5], 1)),
                       body=AtariBody(seed=setup.seeds[2]))


@register("PPO on an Atari game after rlpyt's defaults (atari_ff_ppo)")
def rlpyt_PPO_Atari(seed=0, *, game="pong", steps=50_000_000, device="cpu", n_envs=32,
                    n_steps=64, lr=1e-3, gamma=0.99, lam=0.98, clip_range=0.1, n_epochs=4,
                    n_minibatches=4, value_coef=1.0, entropy_coef=0.01, max_grad_norm=1.0,
                    max_episode_steps=27_000, eval_every=1_000_000, eval_episodes=10,
                    progress=False, verbose=False):
    # rlpyt: batch_T 64, batch_B 32, lr 1e-3 decayed linearly, λ 0.98, ratio clip 0.1 decayed
    # linearly, 4 epochs of 4 minibatches, value coefficient 1; rlpyt's PPO does not
    # normalise the advantages by default.
    setup = RolloutSetup(locals(), lambda s: rlpyt_atari_env(game, s, max_episode_steps))
    learner = PPOLearner(
        setup.approximator(rlpyt_model(setup)), schedule=setup.schedule, gamma=gamma, lam=lam,
        clip_range=clip_range, n_epochs=n_epochs, n_minibatches=n_minibatches,
        value_coef=value_coef, entropy_coef=entropy_coef, normalize_advantages=False,
        anneal_rollouts=setup.n_rollouts, seed=setup.seeds[4])
    return setup.experiment(learner, f"PPO on Atari {game} (rlpyt's settings), seed {seed}")


@register("A2C on an Atari game after rlpyt's defaults (atari_ff_a2c)")
def rlpyt_A2C_Atari(seed=0, *, game="pong", steps=50_000_000, device="cpu", n_envs=32,
                    n_steps=5, lr=7e-4, gamma=0.99, value_coef=0.5, entropy_coef=0.01,
                    max_grad_norm=1.0, max_episode_steps=27_000, eval_every=1_000_000,
                    eval_episodes=10, progress=False, verbose=False):
    # rlpyt: batch_T 5, batch_B 32, Adam at 7e-4 (rlpyt's A2C default optimiser), n-step
    # returns (gae_lambda 1), value coefficient 0.5, entropy 0.01, gradient norm 1.
    setup = RolloutSetup(locals(), lambda s: rlpyt_atari_env(game, s, max_episode_steps))
    learner = A2CLearner(setup.approximator(rlpyt_model(setup)), schedule=setup.schedule,
                         gamma=gamma, value_coef=value_coef, entropy_coef=entropy_coef)
    return setup.experiment(learner, f"A2C on Atari {game} (rlpyt's settings), seed {seed}")

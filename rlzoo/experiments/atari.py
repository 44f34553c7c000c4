"""Atari configurations after Dopamine's published settings (Castro et al. 2018,
https://arxiv.org/abs/1812.06110; ``dopamine/agents/*/configs/*.gin``).

Common to all three: ``AtariEnv(game)`` with 4-frame stacks of 84×84 grayscale frames, frame
skip 4 (max-pooled), up to 30 no-ops at reset, sticky actions (repeat probability 0.25), no
termination on life loss, at most 27,000 agent steps (108,000 frames) per episode; γ = 0.99,
20,000 steps of replay before learning, a gradient step every 4 env steps, a target sync every
8,000 env steps, batch 32, replay capacity 1,000,000, ε at 1 until learning starts, then
decaying linearly to 0.01 over 250,000 steps (Dopamine's ``linearly_decaying_epsilon`` with the
warm-up of ``min_replay_history`` steps); 200 iterations of 250,000 training steps (50M agent
steps, 200M frames), each followed by an evaluation.

The replay stores each 84×84 frame once, as Dopamine's does (``frame_stack=True``, a
``FrameStackBuffer`` state trace): a full 1,000,000-step buffer holds about 7.2 GB of frames
instead of 28 GB of stacks, and samples the same batches; ``frame_stack_replay=False`` stores the
stacks. The evaluation is Dopamine's: after every ``eval_every=250_000`` training steps, ε-greedy
episodes with ``eval_epsilon=0.001`` are run to their end until at least ``eval_steps=125_000``
steps are taken, and their mean return is recorded (``EvaluateEveryNStep(n_steps=...,
epsilon=...)``); ``eval_steps=None, eval_episodes=k`` runs ``k`` episodes instead (giving
both is an error; ``eval_steps=None`` alone runs 10).

Difference from Dopamine, stated: ``Dopamine_Rainbow_Atari`` uses Dopamine's Rainbow (C51 +
prioritized replay + 3-step returns, no dueling or noisy layers) by default; ``dueling=True,
noisy=True`` adds the dueling head and noisy output layers of Hessel et al.'s Rainbow. Two
differences from that paper remain: the next action is chosen by the target network (no double
Q-learning, as in Dopamine's Rainbow), and the 512-unit hidden layer of the body is a plain
``Linear`` (the paper makes every fully connected layer noisy).
"""

import torch

from rlenvs import AtariEnv
from rlzoo.dqns import (
    DistributionalNetwork, DQNLearner, ImplicitQuantileNetwork, IQNLearner, NatureCNN, QNetwork,
    RainbowLearner,
)
from rlzoo.experiments.common import ReplaySetup
from rlzoo.experiments.registry import register

__all__ = ["Dopamine_DQN_Atari", "Dopamine_Rainbow_Atari", "Dopamine_IQN_Atari", "atari_env"]


def atari_env(game, seed, max_episode_steps, sticky_action_probability):
    """Dopamine's Atari preprocessing on ``AtariEnv``."""
    return AtariEnv(game, frame_skip=4, noop_max=30, terminal_on_life_loss=False,
                    repeat_action_probability=sticky_action_probability, grayscale=True,
                    screen_size=84, frame_stack=4, max_steps=max_episode_steps, seed=seed)


def _setup(settings, prioritized=False, optimizer=None):
    """The experiments' :class:`ReplaySetup`: Dopamine's Atari env, ε at 1 until learning starts
    (Dopamine's ``linearly_decaying_epsilon``), the frames of the replay stored once."""
    p = settings
    settings = dict(settings, epsilon_warmup_steps=p["min_replay_history"])
    return ReplaySetup(
        settings, lambda seed: atari_env(p["game"], seed, p["max_episode_steps"],
                                         p["sticky_action_probability"]),
        prioritized=prioritized, frame_stack=p["frame_stack_replay"], optimizer=optimizer)


@register("DQN on an Atari game, Dopamine's settings (RMSProp, 1-step, target every 8k steps)")
def Dopamine_DQN_Atari(seed=0, *, game="pong", steps=50_000_000, device="cpu", lr=2.5e-4,
                       batch_size=32, gamma=0.99, capacity=1_000_000,
                       min_replay_history=20_000, update_freq=4, target_update_freq=8_000,
                       epsilon_stable=0.01, epsilon_decay_steps=250_000,
                       sticky_action_probability=0.25, max_episode_steps=27_000,
                       eval_every=250_000, eval_steps=125_000, eval_epsilon=0.001,
                       eval_episodes=None, frame_stack_replay=True, progress=False, verbose=False):
    # Dopamine: RMSProp(lr 0.00025, decay 0.95, momentum 0, epsilon 1e-5, centered)
    setup = _setup(locals(), optimizer=lambda parameters, lr: torch.optim.RMSprop(
        parameters, lr=lr, alpha=0.95, eps=1e-5, centered=True))
    net = QNetwork(None, setup.eval_env.action_space().n, body=NatureCNN(), seed=setup.seeds[2])
    learner = DQNLearner(setup.target_network(net), schedule=setup.schedule, gamma=gamma,
                         loss="huber")
    return setup.experiment(learner, f"Dopamine DQN on Atari {game}, seed {seed}")


@register("Rainbow on an Atari game, Dopamine's settings (C51 + PER + 3-step, Adam)")
def Dopamine_Rainbow_Atari(seed=0, *, game="pong", steps=50_000_000, device="cpu", lr=6.25e-5,
                           adam_eps=1.5e-4, batch_size=32, gamma=0.99, n_step=3, n_atoms=51,
                           v_max=10.0, dueling=False, noisy=False, capacity=1_000_000,
                           min_replay_history=20_000, update_freq=4, target_update_freq=8_000,
                           epsilon_stable=0.01, epsilon_decay_steps=250_000,
                           sticky_action_probability=0.25, max_episode_steps=27_000,
                           eval_every=250_000, eval_steps=125_000, eval_epsilon=0.001,
                           eval_episodes=None, frame_stack_replay=True, progress=False,
                           verbose=False):
    setup = _setup(locals(), prioritized=True)
    net = DistributionalNetwork(None, setup.eval_env.action_space().n, body=NatureCNN(),
                                n_atoms=n_atoms, dueling=dueling, noisy=noisy,
                                seed=setup.seeds[2])
    # Dopamine's Rainbow: priorities sqrt(loss) (α = 0.5), weights 1/sqrt(P) (constant β = 0.5)
    learner = RainbowLearner(setup.target_network(net), schedule=setup.schedule, gamma=gamma,
                             n_atoms=n_atoms, v_min=-v_max, v_max=v_max, alpha=0.5,
                             beta_init=0.5, beta_steps=0)
    return setup.experiment(learner, f"Dopamine Rainbow on Atari {game}, seed {seed}")


@register("IQN on an Atari game, Dopamine's settings (N = N' = 64, K = 32, 3-step, Adam)")
def Dopamine_IQN_Atari(seed=0, *, game="pong", steps=50_000_000, device="cpu", lr=5e-5,
                       adam_eps=3.125e-4, batch_size=32, gamma=0.99, n_step=3, n_tau=64,
                       n_tau_prime=64, n_tau_act=32, n_cos=64, kappa=1.0, capacity=1_000_000,
                       min_replay_history=20_000, update_freq=4, target_update_freq=8_000,
                       epsilon_stable=0.01, epsilon_decay_steps=250_000,
                       sticky_action_probability=0.25, max_episode_steps=27_000,
                       eval_every=250_000, eval_steps=125_000, eval_epsilon=0.001,
                       eval_episodes=None, frame_stack_replay=True, progress=False, verbose=False):
    setup = _setup(locals())
    # Dopamine multiplies the 3136 convolutional features by the τ embedding, then 512 -> A
    net = ImplicitQuantileNetwork(None, setup.eval_env.action_space().n,
                                  body=NatureCNN(hidden=None), n_cos=n_cos, head_hidden=512,
                                  seed=setup.seeds[2])
    learner = IQNLearner(setup.target_network(net), schedule=setup.schedule, gamma=gamma,
                         n_tau=n_tau, n_tau_prime=n_tau_prime, n_tau_act=n_tau_act, kappa=kappa,
                         seed=setup.seeds[5])
    return setup.experiment(learner, f"Dopamine IQN on Atari {game}, seed {seed}")

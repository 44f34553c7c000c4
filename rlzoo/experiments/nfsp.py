"""Neural Fictitious Self-Play on Kuhn poker.

* ``NFSP_KuhnPoker``: two :class:`~rlzoo.multi_agent.nfsp.NFSPAgent` (a double DQN best
  response and a supervised average policy each) in self-play through a
  :class:`~rlcore.MultiAgentPolicy` on :class:`~rlenvs.KuhnPokerEnv`, whose deals are sampled by
  :class:`~rlenvs.StochasticEnv`, so ``steps`` counts the players' moves (2 or 3 a hand). The
  hook is a :class:`~rlzoo.multi_agent.hooks.NashConvHook`: the NashConv of the two average
  policies, exactly on the game tree, every ``every`` moves (``hook.steps``, ``hook.values``;
  printed when ``verbose``).

Each network sees a player's information state (its card and the public history, Kuhn's
``Discrete(36)`` state) through an embedding, i.e. a one-hot input layer, then one hidden ReLU
layer of 128. Hyper-parameters start from OpenSpiel's ``kuhn_nfsp.py`` (128 hidden units,
batch 128, undiscounted returns, ε from 0.06 to 0.001, an MSE TD loss) and were tuned for a
short CPU budget on seeds 0 and 1: Adam at 1e-3 for both networks, one batch every 16 moves of
a player (OpenSpiel: SGD at 0.01 every 64), a replay of 20,000 (200,000) with the target synced
every 256 moves, ε decayed over 50,000 best-response moves, and η = 0.3 (0.1; with 0.1
NashConv was 0.15 after 280,000 moves, with 0.3 below 0.1 after 160,000-180,000, with 0.5 it
fell faster but swung between 0.07 and 0.12 after 150,000). The reservoirs hold 200,000 rows
(OpenSpiel: 2,000,000): one does not fill within 1,000,000 moves, where a player makes fewer
than 170,000 best-response moves. ``benchmarks/nfsp_kuhn.py`` runs ten seeds.

The TD loss must be the squared error: with Huber's (δ = 1, the DQN default) the Q-values of
Kuhn's returns of ±1 and ±2 are pulled towards a median instead of the mean (calling at 60 %
to win 2 and 40 % to lose 2 is worth 0.4; Huber's fit settles at 4/3), the best responses are
wrong where the decision is close: on seed 0 (η = 0.2, ε still about 0.05) NashConv stayed
at 0.18-0.19 from 160,000 to 200,000 moves where with the squared error it went from 0.14 to
0.10, and on to 0.07 at 320,000.

    python -m rlzoo run NFSP_KuhnPoker --set steps=200000 --set verbose=True
"""

import numpy as np
import torch
from torch import nn

from rlcore import (
    Agent, BatchSampler, CircularArraySARTTrajectory, EpsilonGreedyExplorer, Experiment,
    MultiAgentPolicy, NeuralNetworkApproximator, PlayerView, QBasedPolicy, ReplaySchedule,
    StopAfterStep,
)
from rlenvs import KuhnPokerEnv, StochasticEnv
from rlzoo.dqns import DQNLearner, target_network
from rlzoo.dqns.networks import child_seed, seeded_init
from rlzoo.experiments.common import spawn_seeds
from rlzoo.experiments.registry import register
from rlzoo.multi_agent.game_tree import GameTree
from rlzoo.multi_agent.hooks import NashConvHook
from rlzoo.multi_agent.nfsp import (
    AveragePolicyLearner, NFSPAgent, ReservoirBuffer, ReservoirSampler,
)

__all__ = ["NFSP_KuhnPoker", "information_state_network", "nfsp_agent"]


def information_state_network(n_states, n_actions, *, hidden=128, seed=0):
    """``Discrete(n_states)`` states ``(batch,)`` to ``(batch, n_actions)`` outputs: an
    embedding (a one-hot input layer) of width ``hidden``, ReLU, a linear head."""
    with seeded_init(seed):
        return nn.Sequential(nn.Embedding(n_states, hidden), nn.ReLU(),
                             nn.Linear(hidden, n_actions))


def nfsp_agent(view, *, seed, hidden=128, eta=0.3, rl_lr=1e-3, sl_lr=1e-3, optimizer="adam",
               batch_size=128, update_freq=16, min_replay_history=1000, replay_capacity=20_000,
               reservoir_capacity=200_000, target_update_freq=256, gamma=1.0, loss="mse",
               epsilon_init=0.06, epsilon_stable=0.001, epsilon_decay_steps=50_000,
               device="cpu", network=None):
    """An :class:`~rlzoo.multi_agent.nfsp.NFSPAgent` for the player of ``view`` (a
    :class:`~rlcore.PlayerView` of a game with ``Discrete`` actions). ``network(seed)`` builds
    each of its two networks, states ``(batch, *state_shape)`` to ``(batch, n_actions)``
    (default: :func:`information_state_network` of width ``hidden``, for ``Discrete``
    states). The agent: a double DQN
    best response (replay ``replay_capacity``, target synced every ``target_update_freq`` env
    steps of the player, ε linear from ``epsilon_init`` to ``epsilon_stable`` over
    ``epsilon_decay_steps`` of its best-response moves) and an average policy on a reservoir of
    ``reservoir_capacity``; both networks learn one batch of ``batch_size`` every
    ``update_freq`` moves of the player once they hold ``min_replay_history`` rows, with
    ``optimizer`` (``"sgd"`` or ``"adam"``) at ``rl_lr`` and ``sl_lr``. Every random component
    is seeded from ``seed``."""
    seeds = spawn_seeds(seed, 8)
    state_space, n_actions = view.state_space(), view.action_space().n
    state = (state_space.shape, state_space.dtype)
    if network is None:
        def network(seed):
            return information_state_network(state_space.n, n_actions, hidden=hidden, seed=seed)
    make_optimizer = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}.get(optimizer)
    if make_optimizer is None:
        raise ValueError(f"optimizer must be 'sgd' or 'adam', got {optimizer!r}")

    def approximator(seed, lr):
        net = network(seed)
        return NeuralNetworkApproximator(net, make_optimizer(net.parameters(), lr=lr),
                                         device=device)

    sync_every, remainder = divmod(target_update_freq, update_freq)
    if remainder or sync_every < 1:
        raise ValueError(f"target_update_freq ({target_update_freq}) must be a positive "
                         f"multiple of update_freq ({update_freq})")
    schedule = ReplaySchedule(sampler=BatchSampler(batch_size, seed=seeds[0]),
                              min_replay_history=min_replay_history, update_freq=update_freq)
    dqn = DQNLearner(target_network(approximator(seeds[1], rl_lr), sync_every=sync_every),
                     schedule=schedule, gamma=gamma, loss=loss, is_double=True)
    explorer = EpsilonGreedyExplorer(epsilon_stable=epsilon_stable, epsilon_init=epsilon_init,
                                     decay_steps=epsilon_decay_steps, seed=seeds[2])
    best_response = Agent(QBasedPolicy(dqn, explorer), CircularArraySARTTrajectory(
        replay_capacity, state=state, action=((), np.int64)))
    average_policy = AveragePolicyLearner(approximator(seeds[3], sl_lr), schedule=ReplaySchedule(
        sampler=ReservoirSampler(batch_size, seed=seeds[4]),
        min_replay_history=min_replay_history, update_freq=update_freq))
    reservoir = ReservoirBuffer(reservoir_capacity, n_actions=n_actions, state=state,
                                seed=seeds[5])
    return NFSPAgent(best_response, average_policy, reservoir, eta=eta, seed=seeds[6])


@register("NFSP (DQN best responses, supervised average policies) self-play on Kuhn poker")
def NFSP_KuhnPoker(seed=0, *, steps=400_000, every=20_000, hidden=128, eta=0.3, rl_lr=1e-3,
                   sl_lr=1e-3, optimizer="adam", batch_size=128, update_freq=16,
                   min_replay_history=1000, replay_capacity=20_000,
                   reservoir_capacity=200_000, target_update_freq=256, loss="mse",
                   epsilon_init=0.06, epsilon_stable=0.001, epsilon_decay_steps=50_000,
                   device="cpu", progress=False, verbose=False):
    settings = dict(locals())
    for name in ("seed", "steps", "every", "progress", "verbose"):
        settings.pop(name)
    seeds = spawn_seeds(seed, 4)
    env = StochasticEnv(KuhnPokerEnv(), seed=seeds[0])
    policy = MultiAgentPolicy({
        player: nfsp_agent(PlayerView(env, player), seed=child_seed(seeds[1], i), **settings)
        for i, player in enumerate(env.players())})
    hook = NashConvHook(GameTree(KuhnPokerEnv()), every=every, verbose=verbose)
    return Experiment(policy, env, StopAfterStep(steps, progress=progress), hook,
                      f"NFSP self-play on Kuhn poker, {steps} moves, seed {seed}")


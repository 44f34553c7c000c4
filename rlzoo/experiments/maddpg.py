"""MADDPG on the cooperative speaker-listener game (:class:`rlenvs.SpeakerListenerEnv`).

A speaker sees which of three landmarks is the goal and speaks; a listener hears it, sees the
landmarks relative to itself and pushes itself with a force in ``Box(-1, 1, (2,))``. Both
receive the negative squared distance from the listener to the goal at every one of the 25
steps of an episode (IDENTICAL_UTILITY), so the team's return is either player's. Reference
points: a random team scores about −38 (1,000 episodes); a listener that cannot hear the goal
scores at best about −11 in expectation (sitting at the landmarks' centroid from the first
step; −14 for one that steers there), so a team above −11 communicates.

As in the particle environment of the paper, the speaker names one of three symbols
(``Discrete(3)``, sent as its one-hot message, through an
:class:`~rlenvs.ActionTransformedEnv`) and learns through the Gumbel-softmax, while the
listener's force is continuous (a deterministic actor with Gaussian noise): one team, both of
MADDPG's action paths. ``discrete_message=False`` lets the speaker send any message in ``Box(0,
1, (3,))`` with a deterministic actor; its tanh output then saturates at one corner for every
goal within 10,000 steps, and the team stays near the silent −14 through 100,000 steps (seed
0). With the discrete speaker, 4 of 10 seeds pass the silent bound within 50,000 steps
(``benchmarks/maddpg_speaker_listener.py``).

The team's return is what a :class:`~rlcore.PlayerView` of the speaker reports as its reward:
the training env and the evaluation env are such views, so ``TotalRewardPerEpisode`` and
``EvaluateEveryNStep`` record the team's return unchanged (acting and recording go to the
whole game).
"""

import numpy as np
import torch
from gymnasium import spaces

from rlcore import (
    Agent, BatchSampler, ComposedStopCondition, DistributionExplorer, EvaluateEveryNStep,
    Experiment, GaussianNoiseExplorer, MultiAgentPolicy, NeuralNetworkApproximator, PlayerView,
    RandomPolicy, ReplaySchedule, StopAfterEpisode, StopAfterStep, TotalRewardPerEpisode, run,
)
from rlenvs import ActionTransformedEnv, SpeakerListenerEnv
from rlzoo.dqns.networks import child_seed, target_network
from rlzoo.experiments.common import StopWhenEvaluated, spawn_seeds
from rlzoo.experiments.registry import register
from rlzoo.multi_agent.maddpg import (
    JointSARTSTrajectory, JointSpaces, MADDPGLearner, MADDPGPolicy,
)
from rlzoo.policy_gradient import CategoricalActor, DeterministicActor, QCritic

__all__ = ["MADDPG_SpeakerListener", "team_view", "random_team", "team_return"]


def team_view(seed, discrete_message=False):
    """A :class:`~rlenvs.SpeakerListenerEnv` seeded with ``seed`` as the speaker sees it: its
    ``reward()`` is the team's. With ``discrete_message`` the speaker names one of three
    symbols, ``Discrete(3)``, sent as the one-hot message."""
    env = SpeakerListenerEnv(seed=seed)
    if discrete_message:
        env = ActionTransformedEnv(env, action_mapping=_one_hot_message,
                                   action_space_mapping=_symbol_space)
    return PlayerView(env, "speaker")


_MESSAGE = SpeakerListenerEnv().action_space("speaker")
_SYMBOLS = np.eye(_MESSAGE.shape[0], dtype=np.float32)


def _one_hot_message(action):
    symbol, force = action
    return _SYMBOLS[symbol], force


def _symbol_space(space):
    if isinstance(space, spaces.Tuple):
        return spaces.Tuple((spaces.Discrete(len(_SYMBOLS)), space[1]))
    return spaces.Discrete(len(_SYMBOLS)) if space == _MESSAGE else space


def random_team(seed):
    """Both players acting uniformly at random (a ``MultiAgentPolicy`` of ``RandomPolicy``)."""
    return MultiAgentPolicy({"speaker": RandomPolicy(seed=child_seed(seed, 1)),
                             "listener": RandomPolicy(seed=child_seed(seed, 2))})


def team_return(policy, env, n_episodes):
    """The mean team return of ``policy`` over ``n_episodes`` episodes of ``env`` (a
    :func:`team_view`)."""
    totals = run(policy, env, StopAfterEpisode(n_episodes), TotalRewardPerEpisode()).rewards
    return sum(totals) / len(totals)


@register("MADDPG (centralised critics, decentralised actors) on the speaker-listener game")
def MADDPG_SpeakerListener(seed=0, *, steps=50_000, device="cpu", lr=1e-2, batch_size=256,
                           hidden=64, gamma=0.95, tau=0.01, capacity=100_000,
                           min_replay_history=1000, update_freq=25, gradient_steps=5,
                           noise_std=0.1, max_grad_norm=0.5, eval_every=5000, eval_episodes=100,
                           discrete_message=True, stop_at=None, progress=False,
                           verbose=False):
    # The paper's Appendix: Adam with lr 0.01, τ = 0.01, γ = 0.95, two hidden layers of 64
    # ReLU units, gradients clipped at norm 0.5 (the authors' code); here batches of 256 (not
    # 1,024) and 5 gradient steps after every 25-step episode (not one every 100 steps). The
    # listener explores with Gaussian noise of 0.1 of the half-range after uniformly random
    # warm-up steps, the speaker by sampling its softmax.
    s = spawn_seeds(seed, 8)
    env = team_view(s[0], discrete_message)
    eval_env = team_view(s[1], discrete_message)
    joint = JointSpaces.of(env)

    def polyak(model):
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        return target_network(NeuralNetworkApproximator(
            model, optimizer, device=device, max_grad_norm=max_grad_norm), rho=1 - tau)

    actors, critics, explorers = {}, {}, {}
    for i, (player, state_size, space) in enumerate(
            zip(joint.players, joint.state_sizes, joint.action_spaces)):
        if joint.is_discrete(i):
            actors[player] = polyak(CategoricalActor(
                state_size, space.n, hidden=(hidden, hidden), activation="relu",
                seed=child_seed(s[2], i)))
            explorers[player] = DistributionExplorer(seed=child_seed(s[3], i))
        else:
            actors[player] = polyak(DeterministicActor(
                state_size, space.low, space.high, hidden=(hidden, hidden),
                seed=child_seed(s[2], i)))
            explorers[player] = GaussianNoiseExplorer(
                low=space.low, high=space.high, std=noise_std, warmup_steps=min_replay_history,
                seed=child_seed(s[3], i))
        critics[player] = polyak(QCritic(joint.state_size, joint.action_size,
                                         hidden=(hidden, hidden), seed=child_seed(s[5], i)))
    schedule = ReplaySchedule(sampler=BatchSampler(batch_size, seed=s[4]),
                              min_replay_history=min_replay_history, update_freq=update_freq,
                              gradient_steps=gradient_steps)
    learner = MADDPGLearner(joint, actors=actors, critics=critics, schedule=schedule,
                            gamma=gamma, seed=s[7])
    evaluation = EvaluateEveryNStep(eval_env, n=eval_every, n_episodes=eval_episodes,
                                    seed=s[6], verbose=verbose, progress=progress)
    stop = StopAfterStep(steps, progress=progress)
    if stop_at is not None:
        stop = ComposedStopCondition(stop, StopWhenEvaluated(evaluation, stop_at))
    agent = Agent(MADDPGPolicy(learner, explorers), JointSARTSTrajectory(capacity, joint))
    return Experiment(agent, env, stop, TotalRewardPerEpisode() + evaluation,
                      f"MADDPG on SpeakerListener, seed {seed}")

"""Independent learners on tic-tac-toe: one PPO or DQN learner per player, in self-play
(:func:`rlzoo.multi_agent.independent.independent_agents`), evaluated against the random policy.

* ``IndependentPPO_TicTacToe``: PettingZoo's ``classic/tictactoe-v3`` through the PettingZoo
  adapter (:class:`rlenvs.PettingZooEnv`), each player a PPO learner whose trajectory records
  the legal-action masks of PettingZoo's ``action_mask`` (FULL_ACTION_SET);
* ``IndependentDQN_TicTacToe``: our :class:`rlenvs.TicTacToeEnv`, each player a double DQN
  with ε-greedy exploration over its legal actions and a replay that records the masks.

Each learner sees the board as a flat float vector (PettingZoo's ``(3, 3, 2)`` planes of the
player's own and the opponent's marks, or our ``(3, 3, 3)`` one-hot board) and its own
transitions only: from its move to its next turn, with the rewards in between (see
:mod:`rlzoo.multi_agent.independent`). ``random_players`` (comma-separated player names) hands
those players to a ``RandomPolicy`` that does not learn, for training against a fixed random
opponent instead of in self-play.

Hooks: ``hook[0]`` is a :class:`~rlcore.MultiAgentHook` of each player's
``TotalRewardPerEpisode`` (``hook[0][player].rewards``); ``hook[1]`` an
:class:`~rlzoo.multi_agent.independent.EvaluateAgainstEveryNStep` that plays each learner
greedily against ``RandomPolicy`` for ``eval_episodes`` games before training and every
``eval_every`` env steps (env steps count the moves of both players), printing the win, draw
and loss rates when ``verbose``.
"""

import numpy as np
import pettingzoo
import torch
from gymnasium import spaces

from rlcore import (
    Agent, BatchSampler, CircularArraySARTSTrajectory, CircularArraySLARTTrajectory,
    DistributionExplorer, EpsilonGreedyExplorer, Experiment, MultiAgentHook,
    NeuralNetworkApproximator, QBasedPolicy, RandomPolicy, ReplaySchedule, RolloutSchedule,
    StopAfterStep, TotalRewardPerEpisode,
)
from rlenvs import PettingZooEnv, StateTransformedEnv, TicTacToeEnv
from rlzoo.dqns import DQNLearner, QNetwork
from rlzoo.dqns.networks import child_seed, target_network
from rlzoo.experiments.common import spawn_seeds
from rlzoo.experiments.registry import register
from rlzoo.multi_agent.independent import EvaluateAgainstEveryNStep, independent_agents
from rlzoo.policy_gradient import (
    ActorCritic, ActorPolicy, CategoricalActor, PPOLearner, ValueCritic,
)

__all__ = ["IndependentPPO_TicTacToe", "IndependentDQN_TicTacToe", "pettingzoo_tictactoe",
           "tictactoe", "flat_state", "flat_state_space"]

N_ACTIONS = 9


def flat_state(state):
    """A board observation as a flat ``float32`` vector (of a PettingZoo dict observation, its
    ``"observation"`` planes)."""
    if isinstance(state, dict):
        state = state["observation"]
    return np.asarray(state, dtype=np.float32).reshape(-1)


def flat_state_space(space):
    """The space of :func:`flat_state`'s vectors."""
    if isinstance(space, spaces.Dict):
        space = space["observation"]
    return spaces.Box(0.0, 1.0, shape=(int(np.prod(space.shape)),), dtype=np.float32)


def pettingzoo_tictactoe(seed):
    """PettingZoo's ``classic/tictactoe-v3`` (``player_1`` moves first, then ``player_2``)
    through :class:`~rlenvs.PettingZooEnv`, with flat ``(18,)`` states: cell ``a``'s own mark
    at index ``2a``, the opponent's at ``2a + 1``."""
    env = PettingZooEnv(pettingzoo.make("aec", "classic/tictactoe-v3"), seed=seed)
    return StateTransformedEnv(env, state_mapping=flat_state, state_space_mapping=flat_state_space)


def tictactoe(seed):
    """Our :class:`~rlenvs.TicTacToeEnv` (``cross`` moves first, then ``nought``), with flat
    ``(27,)`` one-hot states."""
    return StateTransformedEnv(TicTacToeEnv(seed=seed), state_mapping=flat_state,
                               state_space_mapping=flat_state_space)


def random_opponents(env, random_players, seed):
    """``{player: RandomPolicy}`` for the players named in ``random_players`` (a comma-separated
    string, as the command line gives it, or a sequence of names)."""
    names = [n.strip() for n in random_players.split(",") if n.strip()] \
        if isinstance(random_players, str) else list(random_players)
    unknown = [n for n in names if n not in env.players()]
    if unknown:
        raise ValueError(f"random_players names {unknown}, which are not players of {env!r}; "
                         f"its players are {env.players()}")
    if len(set(names)) == len(env.players()):
        raise ValueError(f"random_players={random_players!r} leaves no player to learn")
    return {name: RandomPolicy(seed=child_seed(seed, i)) for i, name in enumerate(names)}


def independent_experiment(make_agent, env, eval_env, settings, seeds, description):
    """The experiment of one learner per player (``make_agent``, but the ``random_players``)
    trained for ``steps`` env steps, with the hooks of the module doc."""
    p = settings
    policy = independent_agents(env, make_agent,
                                fixed=random_opponents(env, p["random_players"], seeds[7]))
    hook = MultiAgentHook({player: TotalRewardPerEpisode() for player in env.players()}) \
        + EvaluateAgainstEveryNStep(eval_env, n=p["eval_every"], n_episodes=p["eval_episodes"],
                                    verbose=p["verbose"], seed=seeds[6])
    return Experiment(policy, env, StopAfterStep(p["steps"], progress=p["progress"]), hook,
                      description)


@register("Independent PPO self-play on PettingZoo's tic-tac-toe (classic/tictactoe-v3)")
def IndependentPPO_TicTacToe(seed=0, *, steps=30_000, device="cpu", n_steps=256, lr=1e-3,
                             hidden=64, gamma=0.99, lam=0.95, clip_range=0.2, n_epochs=4,
                             n_minibatches=4, value_coef=0.5, entropy_coef=0.01,
                             max_grad_norm=0.5, random_players="", eval_every=5000,
                             eval_episodes=200, progress=False, verbose=False):
    # CleanRL-style PPO (separate 64-64 tanh actor and critic, orthogonal init, Adam eps 1e-5,
    # clipping 0.5) with an entropy bonus of 0.01 to keep each player's opponent varied.
    # A rollout is n_steps of the player's own moves (about 60 games at 256). Against the
    # random policy the first player improves steadily in self-play; the second gains less
    # and not monotonically (its opponent is a first player that learns to beat it), seeds
    # 0-2: 22-34 % wins untrained, 52-60 % after 30,000 steps, 49-61 % after 7,500.
    settings = dict(locals())
    seeds = spawn_seeds(seed, 8)
    env, eval_env = pettingzoo_tictactoe(seeds[0]), pettingzoo_tictactoe(seeds[1])

    def make_agent(view):
        i = env.players().index(view.player)
        n_state = view.state_space().shape[0]
        model = ActorCritic(
            CategoricalActor(n_state, N_ACTIONS, hidden=(hidden, hidden),
                             seed=child_seed(seeds[2], i)),
            ValueCritic(n_state, hidden=(hidden, hidden), seed=child_seed(seeds[5], i)))
        approximator = NeuralNetworkApproximator(
            model, torch.optim.Adam(model.parameters(), lr=lr, eps=1e-5), device=device,
            max_grad_norm=max_grad_norm)
        learner = PPOLearner(
            approximator, schedule=RolloutSchedule(n_steps), gamma=gamma, lam=lam,
            clip_range=clip_range, n_epochs=n_epochs, n_minibatches=n_minibatches,
            value_coef=value_coef, entropy_coef=entropy_coef, seed=child_seed(seeds[4], i))
        trajectory = CircularArraySARTSTrajectory(
            n_steps, state=((n_state,), np.float32), action=((), np.int64),
            legal_actions_mask=((N_ACTIONS,), bool))
        explorer = DistributionExplorer(seed=child_seed(seeds[3], i))
        return Agent(ActorPolicy(learner, explorer), trajectory)

    return independent_experiment(make_agent, env, eval_env, settings, seeds,
                                  f"independent PPO on PettingZoo tictactoe-v3, seed {seed}")


@register("Independent double DQN self-play on tic-tac-toe")
def IndependentDQN_TicTacToe(seed=0, *, steps=20_000, device="cpu", lr=1e-3, batch_size=64,
                             hidden=64, gamma=0.99, is_double=True, capacity=20_000,
                             min_replay_history=500, update_freq=1, target_update_freq=250,
                             epsilon_stable=0.1, epsilon_decay_steps=10_000, random_players="",
                             eval_every=5000, eval_episodes=200, progress=False,
                             verbose=False):
    # DQN_CartPole's network and optimiser; one gradient step per own move, the target synced
    # every 250 of them; ε from 1 to 0.1 over a player's first 10,000 moves. The replay records
    # the legal-action masks (CircularArraySLARTTrajectory), so the explorer picks legal cells
    # and the sampled batches carry the next state's mask.
    settings = dict(locals())
    seeds = spawn_seeds(seed, 8)
    env, eval_env = tictactoe(seeds[0]), tictactoe(seeds[1])

    def make_agent(view):
        i = env.players().index(view.player)
        n_state = view.state_space().shape[0]
        net = QNetwork(n_state, N_ACTIONS, hidden=(hidden, hidden), seed=child_seed(seeds[2], i))
        approximator = NeuralNetworkApproximator(
            net, torch.optim.Adam(net.parameters(), lr=lr), device=device)
        schedule = ReplaySchedule(
            sampler=BatchSampler(batch_size, seed=child_seed(seeds[4], i)),
            min_replay_history=min_replay_history, update_freq=update_freq)
        learner = DQNLearner(target_network(approximator, sync_every=target_update_freq),
                             schedule=schedule, gamma=gamma, is_double=is_double)
        explorer = EpsilonGreedyExplorer(epsilon_stable=epsilon_stable,
                                         decay_steps=epsilon_decay_steps,
                                         seed=child_seed(seeds[3], i))
        trajectory = CircularArraySLARTTrajectory(
            capacity, state=((n_state,), np.float32), action=((), np.int64),
            legal_actions_mask=((N_ACTIONS,), bool))
        return Agent(QBasedPolicy(learner, explorer), trajectory)

    return independent_experiment(make_agent, env, eval_env, settings, seeds,
                                  f"independent double DQN on tic-tac-toe, seed {seed}")

"""Neural Fictitious Self-Play (NFSP): a DQN best response and a supervised average policy.

Reference: Heinrich & Silver (2016), "Deep Reinforcement Learning from Self-Play in
Imperfect-Information Games" (https://arxiv.org/abs/1603.01121), Algorithm 1; reservoir
sampling: Vitter (1985), "Random Sampling with a Reservoir", Algorithm R. OpenSpiel's
``nfsp.py`` (Lanctot et al. 2019, https://arxiv.org/abs/1908.09453) gives the usual Kuhn poker
hyper-parameters; RL.jl's ``NFSPAgent`` (an ``rl_agent`` and an ``sl_agent``) the composition.

Each player is an :class:`NFSPAgent` inside a :class:`rlcore.MultiAgentPolicy`, playing the
game through its :class:`rlcore.PlayerView` in the ordinary ``run`` loop. The agent holds

* a best response β, an ``Agent`` (usually ``QBasedPolicy(DQNLearner, ε-greedy)`` with its
  replay ``M_RL``) that records every transition of the agent and learns on its own schedule;
* an average policy Π, an :class:`AveragePolicyLearner` (a network of logits) fitted by
  cross-entropy to the reservoir ``M_SL`` (a :class:`ReservoirBuffer`) of the agent's own
  best-response actions, ``L(θ) = E_{(s, a) ~ M_SL}[−log Π(a | s; θ)]``, so Π approximates the
  average of its past best responses (fictitious play);
* the anticipatory parameter η: at the start of each episode the agent plays β with probability
  η (and stores its actions in ``M_SL``), else Π.

What the agent is measured by is Π: ``action_probabilities(env, player)`` is the softmax of the
average network's logits over the legal actions, so :func:`rlzoo.multi_agent.nash_conv` and
:class:`rlzoo.multi_agent.hooks.NashConvHook` evaluate the average policy whatever the mode.

Shape convention: states ``(batch, *state_shape)``, logits and Q-values ``(batch, n_actions)``,
legal-action masks ``(batch, n_actions)`` (all True under a MINIMAL_ACTION_SET).
"""

import attrs
import numpy as np
import torch
import torch.nn.functional as F

from rlcore import Agent, NeuralNetworkApproximator, ReplaySchedule
from rlcore.checks import EnvMismatchError, check_discrete_actions, check_network_input
from rlcore.dispatch import dispatch, update
from rlcore.envs import AbstractEnv, FullActionSet
from rlcore.policies.base import AbstractLearner, AbstractPolicy
from rlcore.stages import AbstractStage, PreActStage, PreEpisodeStage, PreExperimentStage
from rlcore.trajectories.samplers import Batch
from rlcore.utils.random import make_rng
from rlcore.utils.validators import real_in
from rlzoo.inputs import batch_on, state_values

__all__ = ["NFSPAgent", "AveragePolicyLearner", "ReservoirBuffer", "ReservoirSampler",
           "BEST_RESPONSE", "AVERAGE_POLICY"]

BEST_RESPONSE, AVERAGE_POLICY = "best_response", "average_policy"


def _legal_mask(env, player=None):
    """``player``'s legal-action mask at ``env`` (default: the current player): the env's mask
    under FULL_ACTION_SET, all True otherwise."""
    if isinstance(env.ActionStyle, FullActionSet):
        return np.asarray(env.legal_action_space_mask(player), dtype=bool)
    return np.ones(env.action_space(player).n, dtype=bool)


class ReservoirBuffer:
    """A uniform sample of at most ``capacity`` of all the ``(state, action,
    legal_actions_mask)`` rows pushed so far: reservoir sampling (Vitter's Algorithm R).

    Row ``t`` (0-based) is stored while the buffer is not full; after that it replaces a stored
    row chosen uniformly with probability ``capacity / (t + 1)``, so at any time every row seen
    is held with the same probability ``min(1, capacity / n_seen)``. ``len(buffer)`` is the
    number held, ``n_seen`` the number pushed. ``sample(batch_size, rng)`` draws a
    :class:`~rlcore.trajectories.samplers.Batch` uniformly with replacement.

    Keyword arguments: ``capacity`` (required), ``n_actions`` (required: the mask's width),
    ``state=((), np.int64)`` (shape and dtype of a state), ``rng``/``seed`` (for replacement).

    >>> buffer = ReservoirBuffer(2, n_actions=2, seed=0)
    >>> for s in range(5):
    ...     buffer.push(s, 0, [True, True])
    >>> len(buffer), buffer.n_seen
    (2, 5)
    >>> buffer.sample(3, np.random.default_rng(0)).state.shape
    (3,)
    """

    def __init__(self, capacity, *, n_actions, state=((), np.int64), rng=None, seed=None):
        for name, value in (("capacity", capacity), ("n_actions", n_actions)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"ReservoirBuffer: {name} must be a positive int, got "
                                 f"{value!r}")
        shape, dtype = state
        self.capacity, self.n_actions = int(capacity), int(n_actions)
        self.state = np.zeros((self.capacity, *tuple(shape)), dtype=dtype)
        self.action = np.zeros(self.capacity, dtype=np.int64)
        self.legal_actions_mask = np.zeros((self.capacity, self.n_actions), dtype=bool)
        self.n_seen = 0
        self.rng = make_rng(rng, seed)

    def __len__(self):
        return min(self.n_seen, self.capacity)

    def push(self, state, action, legal_actions_mask):
        """Offer one row; it is kept as Algorithm R says (see the class doc)."""
        mask = np.asarray(legal_actions_mask, dtype=bool)
        if mask.shape != (self.n_actions,):
            raise ValueError(f"ReservoirBuffer: legal_actions_mask must have shape "
                             f"({self.n_actions},), got {mask.shape}")
        if not 0 <= action < self.n_actions or not mask[action]:
            raise ValueError(f"ReservoirBuffer: action {action!r} is not a legal action of the "
                             f"mask {mask.astype(int).tolist()}")
        t = self.n_seen
        i = t if t < self.capacity else int(self.rng.integers(t + 1))
        if i < self.capacity:
            self.state[i] = state
            self.action[i] = action
            self.legal_actions_mask[i] = mask
        self.n_seen = t + 1

    def sample(self, batch_size, rng):
        """``batch_size`` held rows drawn uniformly with replacement by ``rng``."""
        n = len(self)
        if n == 0:
            raise ValueError("ReservoirBuffer: cannot sample an empty buffer")
        index = rng.integers(n, size=batch_size)
        return Batch(state=self.state[index], action=self.action[index],
                     legal_actions_mask=self.legal_actions_mask[index])

    def __repr__(self):
        return (f"ReservoirBuffer(capacity={self.capacity}, len={len(self)}, "
                f"n_seen={self.n_seen})")


class ReservoirSampler:
    """Draws ``batch_size`` rows of a :class:`ReservoirBuffer` with its own ``rng`` (or
    ``seed``): the sampler of an average policy's :class:`~rlcore.ReplaySchedule`."""

    def __init__(self, batch_size, *, rng=None, seed=None):
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
                or batch_size < 1:
            raise ValueError(f"ReservoirSampler: batch_size must be a positive int, got "
                             f"{batch_size!r}")
        self.batch_size = int(batch_size)
        self.rng = make_rng(rng, seed)

    def __call__(self, buffer):
        return buffer.sample(self.batch_size, self.rng)

    def __repr__(self):
        return f"ReservoirSampler(batch_size={self.batch_size})"


def _check_reservoir_schedule(instance, attribute, schedule):
    if not isinstance(schedule, ReplaySchedule) or not isinstance(schedule.sampler,
                                                                  ReservoirSampler):
        raise TypeError(f"schedule must be a ReplaySchedule whose sampler is a "
                        f"ReservoirSampler, got {schedule!r}")


@attrs.define(eq=False)
class AveragePolicyLearner(AbstractLearner):
    """The average policy Π of NFSP: a network of logits fitted by cross-entropy to the actions
    of a reservoir, ``L = −mean_i log softmax_{legal_i}(logits(s_i))[a_i]`` (illegal actions'
    logits are masked out, as when acting).

    Keyword arguments: ``approximator`` (a ``NeuralNetworkApproximator`` of a network
    ``(batch, *state) -> (batch, n_actions)``; required), ``schedule`` (a
    :class:`~rlcore.ReplaySchedule` whose sampler is a :class:`ReservoirSampler`: when and how
    many batches; default batch 128 every 64 steps from 1,000 rows, OpenSpiel's).
    ``learner(env)`` is the logits at ``env``'s state; ``loss_value`` the last loss.

    >>> import torch
    >>> from rlcore import NeuralNetworkApproximator
    >>> net = torch.nn.Linear(3, 2)
    >>> learner = AveragePolicyLearner(NeuralNetworkApproximator(
    ...     net, torch.optim.SGD(net.parameters(), lr=0.01)))
    >>> learner.schedule.update_freq
    64
    """

    approximator: NeuralNetworkApproximator = attrs.field(
        validator=attrs.validators.instance_of(NeuralNetworkApproximator))
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, validator=_check_reservoir_schedule,
        factory=lambda: ReplaySchedule(sampler=ReservoirSampler(128, seed=0),
                                       min_replay_history=1000, update_freq=64))
    loss_value: object = attrs.field(default=None, init=False, repr=False)

    def __call__(self, env):
        return state_values(self.approximator, env)

    def probabilities(self, state, mask):
        """Π(· | state) over the actions, zero outside ``mask``: one state, no gradient."""
        with torch.no_grad():
            logits = self.approximator(np.asarray(state)[None])[0]
            logits = logits.masked_fill(~torch.as_tensor(mask, device=logits.device), -torch.inf)
            p = torch.softmax(logits, dim=0).cpu().numpy().astype(np.float64)
        return p / p.sum()


@dispatch(AveragePolicyLearner, object)
def update(learner, batch):  # noqa: F811
    """One cross-entropy step on ``batch`` (``state``, ``action``, ``legal_actions_mask``);
    returns the loss tensor."""
    batch = batch_on(batch, learner.approximator.device)
    logits = learner.approximator(batch["state"])
    logits = logits.masked_fill(~batch["legal_actions_mask"], -torch.inf)
    loss = F.cross_entropy(logits, batch["action"].long())
    update(learner.approximator, loss)
    learner.loss_value = loss.detach()
    return loss


@dispatch(AveragePolicyLearner, ReservoirBuffer, AbstractEnv, PreActStage)
def update(learner, reservoir, env, stage):  # noqa: F811
    """Learn from each batch the schedule draws for this step."""
    for batch in learner.schedule.batches(reservoir):
        update(learner, batch)


@attrs.define(eq=False)
class NFSPAgent(AbstractPolicy):
    """One player of Neural Fictitious Self-Play (see the module doc): a best response, an
    average policy, its reservoir and the anticipatory parameter η.

    Keyword arguments: ``best_response`` (an ``Agent``, usually ``Agent(QBasedPolicy(DQNLearner,
    EpsilonGreedyExplorer), CircularArraySARTTrajectory)``; required), ``average_policy`` (an
    :class:`AveragePolicyLearner`; required), ``reservoir`` (a :class:`ReservoirBuffer`;
    required), ``eta=0.1``, ``rng``/``seed`` (the per-episode mode and the average policy's
    action samples). ``mode`` is :data:`BEST_RESPONSE` or :data:`AVERAGE_POLICY`, drawn at
    every ``PreEpisodeStage``.

    Stages (each seen through the player's view of the game, from ``MultiAgentPolicy``): every
    stage reaches the best response ``Agent``, so its replay records all of the player's
    transitions and it learns on its own schedule in both modes (NFSP learns β off-policy);
    ``PreEpisodeStage`` first draws the mode; ``PreActStage`` also pushes ``(state, action,
    legal mask)`` to the reservoir in best-response mode and lets the average policy learn on
    its schedule (in both modes).

    >>> import numpy as np, torch
    >>> from rlcore import (Agent, CircularArraySARTTrajectory, EpsilonGreedyExplorer,
    ...                     NeuralNetworkApproximator, QBasedPolicy)
    >>> from rlenvs import KuhnPokerEnv
    >>> from rlzoo.dqns import DQNLearner, target_network
    >>> def net():
    ...     return torch.nn.Sequential(torch.nn.Embedding(36, 8), torch.nn.Linear(8, 2))
    >>> q, pi = net(), net()
    >>> agent = NFSPAgent(
    ...     Agent(QBasedPolicy(DQNLearner(target_network(NeuralNetworkApproximator(
    ...         q, torch.optim.SGD(q.parameters(), lr=0.01)))),
    ...         EpsilonGreedyExplorer(epsilon_stable=0.06, seed=0)),
    ...         CircularArraySARTTrajectory(1000, state=((), np.int64))),
    ...     AveragePolicyLearner(NeuralNetworkApproximator(
    ...         pi, torch.optim.SGD(pi.parameters(), lr=0.01))),
    ...     ReservoirBuffer(1000, n_actions=2, seed=0), eta=0.1, seed=0)
    >>> env = KuhnPokerEnv(); env.reset(); env(0); env(1)
    >>> agent.action_probabilities(env, "player_0").shape
    (2,)
    """

    best_response: Agent = attrs.field(validator=attrs.validators.instance_of(Agent))
    average_policy: AveragePolicyLearner = attrs.field(
        validator=attrs.validators.instance_of(AveragePolicyLearner))
    reservoir: ReservoirBuffer = attrs.field(
        validator=attrs.validators.instance_of(ReservoirBuffer), repr=False)
    eta: float = attrs.field(default=0.1, kw_only=True, validator=real_in(0, 1))
    rng: object = attrs.field(default=None, kw_only=True, repr=False)
    seed: object = attrs.field(default=None, kw_only=True)
    mode: str = attrs.field(default=AVERAGE_POLICY, init=False)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def action_probabilities(self, env, player=None):
        """The average policy Π at ``player``'s (default: the current player's) state of
        ``env``: the softmax of its logits over the legal actions."""
        return self.average_policy.probabilities(env.state(player), _legal_mask(env, player))

    def __call__(self, env):
        if self.mode == BEST_RESPONSE:
            return self.best_response(env)
        p = self.action_probabilities(env)
        # inverse transform sampling: the first action whose cumulative probability exceeds u
        return min(int(np.searchsorted(np.cumsum(p), self.rng.random(), side="right")),
                   int(np.flatnonzero(p)[-1]))


def _check_average_policy(agent, env):
    """Raise unless the average network takes ``env``'s states and gives one logit per action
    and the reservoir stores them (shape and mask width)."""
    state_space, action_space = env.state_space(), env.action_space()
    learner = agent.average_policy
    check_discrete_actions(action_space, env, learner)
    output = check_network_input(learner.approximator.model, learner.approximator, state_space,
                                 env, learner)
    if tuple(output.shape) != (1, action_space.n):
        raise EnvMismatchError(f"AveragePolicyLearner's network gives outputs of shape "
                               f"{tuple(output.shape)} for a batch of one state of {env!r}; "
                               f"expected (1, {action_space.n}), one logit per action")
    if agent.reservoir.n_actions != action_space.n or \
            agent.reservoir.state.shape[1:] != tuple(state_space.shape):
        raise EnvMismatchError(f"the reservoir stores states of shape "
                               f"{agent.reservoir.state.shape[1:]} and masks of "
                               f"{agent.reservoir.n_actions} actions; {env!r} has states of "
                               f"shape {tuple(state_space.shape)} and {action_space.n} actions")


@dispatch(NFSPAgent, AbstractEnv, AbstractStage)
def update(agent, env, stage):  # noqa: F811
    update(agent.best_response, env, stage)


@dispatch(NFSPAgent, AbstractEnv, PreExperimentStage)
def update(agent, env, stage):  # noqa: F811
    _check_average_policy(agent, env)
    update(agent.best_response, env, stage)


@dispatch(NFSPAgent, AbstractEnv, PreEpisodeStage)
def update(agent, env, stage):  # noqa: F811
    # σ ← β with probability η, else Π, for the whole episode (Algorithm 1)
    agent.mode = BEST_RESPONSE if agent.rng.random() < agent.eta else AVERAGE_POLICY
    update(agent.best_response, env, stage)


@dispatch(NFSPAgent, AbstractEnv, PreActStage, object)
def update(agent, env, stage, action):  # noqa: F811
    update(agent.best_response, env, stage, action)  # M_RL and β's step
    if agent.mode == BEST_RESPONSE:
        agent.reservoir.push(env.state(), action, _legal_mask(env))  # M_SL
    update(agent.average_policy, agent.reservoir, env, stage)  # Π's step

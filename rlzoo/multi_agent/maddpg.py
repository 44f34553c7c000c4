"""MADDPG: multi-agent deep deterministic policy gradient, with centralised critics and
decentralised actors.

Reference: Lowe et al. (2017), "Multi-Agent Actor-Critic for Mixed Cooperative-Competitive
Environments" (NeurIPS, https://arxiv.org/abs/1706.02275), Algorithm 1 and Appendix; DDPG
(:mod:`rlzoo.policy_gradient.ddpg`) for each player's deterministic policy gradient; RL.jl's
``MADDPGManager``; the Gumbel-softmax estimator of Jang et al. (2017,
https://arxiv.org/abs/1611.01144) and Maddison et al. (2017) for discrete actions.

The players ``1..N`` of a SIMULTANEOUS game act at once, each on its own state ``o_i``
(decentralised actors ``μ_i(o_i)``), and each has a centralised critic ``Q_i(x, a_1, ..., a_N)``
of the joint state ``x = (o_1, ..., o_N)`` and the joint action. The replay holds joint
transitions ``(x, a, r, x')``, a reward per player. For a batch of them, with the targets ``μ'``
and ``Q'`` (no gradient; a truncated step bootstraps, a terminal one does not)::

    y_i = r_i + γ (1 − terminal) Q'_i(x', μ'_1(o'_1), ..., μ'_N(o'_N))
    critic loss of player i:  mean((Q_i(x, a_1, ..., a_N) − y_i)²)
    actor loss of player i:   −mean(Q_i(x, a_1, ..., μ_i(o_i), ..., a_N))

the other players' actions in the actor loss being the replay's. Every ``y_i`` is computed
before any network steps (Algorithm 1 moves the targets after all players' updates); then
each player takes a critic step and an actor step on its updated critic, as DDPG. Each network
is a :class:`~rlcore.TargetNetwork` whose every optimiser step moves its target by Polyak
averaging, ``θ' ← (1 − τ) θ' + τ θ`` (``rho = 1 − τ``; the paper's τ = 0.01).

Actions. A player with a ``Box`` action space has a deterministic actor
(:class:`~rlzoo.policy_gradient.networks.DeterministicActor`, actions within the bounds) and
explores with Gaussian noise (:class:`~rlcore.GaussianNoiseExplorer`), as DDPG. A player with a
``Discrete(n)`` space (the paper's choice for the particle environments) has an actor of logits
(:class:`~rlzoo.policy_gradient.networks.CategoricalActor`): it acts by sampling
``softmax(logits)`` (the distribution of the Gumbel-max trick; a
:class:`~rlcore.DistributionExplorer`, whose test mode takes the most likely action), and its
action enters the critics one-hot. Where the learner needs ``μ_i(o_i)`` of such a player (the
actor loss, and ``μ'_i(o'_i)`` in the targets) it draws a straight-through Gumbel-softmax sample,
:func:`gumbel_softmax`. Its actor loss also carries ``logit_penalty · mean(log π_i(o_i)²)``
(the authors' code adds ``10⁻³ · mean(logits²)``): it keeps the softmax from saturating, where
both the exploration and the Gumbel-softmax gradient vanish.

Shape convention: batch axis first. A joint state is the players' states side by side,
``(batch, Σ_i dim o_i)``; a joint action their actions side by side, ``(batch, Σ_i d_i)`` with
``d_i`` the dimension of a ``Box`` action or ``n`` for a one-hot ``Discrete(n)`` one; rewards
``(batch, N)``, one column per player in the order of ``players()``; Q-values and targets of
one player ``(batch,)``. :class:`JointSpaces` says which columns are whose;
:class:`JointSARTSTrajectory` records joint transitions in this layout.

Deliberate differences from the paper: one minibatch per update serves every player (RL.jl's
``MADDPGManager``; Algorithm 1 draws one per player), and a discrete player acts with a sampled
action (the authors' code hands the environment a relaxed, soft sample).
"""

import attrs
import numpy as np
import torch
import torch.nn.functional as F
from gymnasium import spaces

from rlcore import (
    AbstractEnv, AbstractExplorer, AbstractPolicy, AbstractReplayLearner, AbstractTrajectory,
    ReplaySchedule, TargetNetwork,
)
from rlcore.approximators.neural_network_approximator import to_device
from rlcore.checks import EnvMismatchError, check_finite_reward, check_network_input
from rlcore.dispatch import dispatch, update
from rlcore.envs import SIMULTANEOUS, check_action_in_space
from rlcore.logger import scalars
from rlcore.stages import (
    AbstractStage, PostActStage, PostEpisodeStage, PostExperimentStage, PreActStage,
    PreEpisodeStage, PreExperimentStage,
)
from rlcore.trajectories.buffers import CircularArrayBuffer, as_capacity
from rlcore.utils.random import torch_generator
from rlcore.utils.validators import non_negative_int, real_in
from rlenvs import MultiThreadEnv
from rlzoo.dqns.losses import bootstrap_factor
from rlzoo.dqns.replay import check_sampler_gamma
from rlzoo.inputs import batch_on
from rlzoo.policy_gradient.rollout import rollout_scalars

__all__ = ["JointSpaces", "MADDPGLearner", "MADDPGPolicy", "JointSARTSTrajectory",
           "maddpg_targets", "gumbel_softmax"]


def _flat_box(space):
    return isinstance(space, spaces.Box) and len(space.shape) == 1


def _check_player_spaces(player, state_space, action_space):
    if not _flat_box(state_space):
        raise EnvMismatchError(
            f"MADDPG stores each player's state as a flat vector, but {player!r} has the state "
            f"space {state_space}: expected a Box of one axis (flatten the observations)")
    if type(action_space) is spaces.Discrete:
        if action_space.start != 0:
            raise EnvMismatchError(
                f"{player!r} has the action space {action_space}: a Discrete space must start "
                f"at 0 (action i is the i-th logit)")
        return
    if not _flat_box(action_space) or not (
            np.isfinite(action_space.low).all() and np.isfinite(action_space.high).all()):
        raise EnvMismatchError(
            f"MADDPG acts in a Box of one axis with finite bounds or in a Discrete space, but "
            f"{player!r} has the action space {action_space}")


@attrs.frozen
class JointSpaces:
    """The players of a simultaneous game, their state and action spaces, and where each
    player's part lies in a joint state and a joint action (the module doc's layout).

    ``JointSpaces.of(env)`` reads them from ``env`` (SIMULTANEOUS; each state space a ``Box``
    of one axis, each action space a ``Box`` of one axis with finite bounds or a
    ``Discrete(n)`` from 0; otherwise :class:`~rlcore.EnvMismatchError`).
    ``state_slices[i]`` and ``action_slices[i]`` are player ``i``'s columns;
    :meth:`joint_state` and :meth:`joint_action` lay out one step.

    >>> from rlenvs import SpeakerListenerEnv
    >>> joint = JointSpaces.of(SpeakerListenerEnv())
    >>> joint.players, joint.state_size, joint.action_size
    (('speaker', 'listener'), 14, 5)
    >>> joint.action_slices
    (slice(0, 3, None), slice(3, 5, None))
    """

    players: tuple = attrs.field(converter=tuple)
    state_spaces: tuple = attrs.field(converter=tuple)
    action_spaces: tuple = attrs.field(converter=tuple)

    def __attrs_post_init__(self):
        if not (len(self.players) == len(self.state_spaces) == len(self.action_spaces) >= 1):
            raise ValueError(f"JointSpaces needs one state space and one action space per "
                             f"player, got {len(self.players)} players, "
                             f"{len(self.state_spaces)} state spaces and "
                             f"{len(self.action_spaces)} action spaces")
        for player, state_space, action_space in zip(self.players, self.state_spaces,
                                                     self.action_spaces):
            _check_player_spaces(player, state_space, action_space)

    @classmethod
    def of(cls, env):
        """The joint spaces of ``env``, a SIMULTANEOUS game."""
        if env.DynamicStyle is not SIMULTANEOUS:
            raise EnvMismatchError(f"MADDPG plays a SIMULTANEOUS game (all players act at once), "
                                   f"but {env!r} is {env.DynamicStyle}: wrap a sequential game "
                                   f"or use independent learners")
        players = tuple(env.players())
        return cls(players, [env.state_space(p) for p in players],
                   [env.action_space(p) for p in players])

    @property
    def state_sizes(self):
        return tuple(int(space.shape[0]) for space in self.state_spaces)

    @property
    def action_sizes(self):
        """``n`` for a ``Discrete(n)`` player (its one-hot), ``d`` for a ``Box`` of ``d``."""
        return tuple(int(space.n) if type(space) is spaces.Discrete else int(space.shape[0])
                     for space in self.action_spaces)

    @property
    def state_size(self):
        return sum(self.state_sizes)

    @property
    def action_size(self):
        return sum(self.action_sizes)

    @property
    def state_slices(self):
        return _slices(self.state_sizes)

    @property
    def action_slices(self):
        return _slices(self.action_sizes)

    def is_discrete(self, i):
        """Whether player ``i`` (an index into ``players``) acts in a ``Discrete`` space."""
        return type(self.action_spaces[i]) is spaces.Discrete

    def joint_state(self, env):
        """The players' states in ``env`` side by side, float32 ``(state_size,)``."""
        return np.concatenate([np.asarray(env.state(p), np.float32) for p in self.players])

    def joint_action(self, action):
        """A joint action (one action per player, in order) as float32 ``(action_size,)``: a
        ``Box`` action as it is, a ``Discrete`` one one-hot. ``ValueError`` naming the player
        for an action outside its space."""
        if not isinstance(action, (tuple, list)) or len(action) != len(self.players):
            raise ValueError(f"a joint action holds one action per player of {self.players}, "
                             f"got {action!r}")
        parts = []
        for player, a, space, n in zip(self.players, action, self.action_spaces,
                                       self.action_sizes):
            try:
                check_action_in_space(a, space)
            except ValueError as error:
                raise ValueError(f"{player!r}'s {error}") from None
            if type(space) is spaces.Discrete:
                parts.append(np.eye(n, dtype=np.float32)[int(a)])
            else:
                parts.append(np.asarray(a, np.float32))
        return np.concatenate(parts)


def _slices(sizes):
    ends = np.cumsum(sizes)
    return tuple(slice(int(end - size), int(end)) for size, end in zip(sizes, ends))


def gumbel_softmax(logits, temperature, generator):
    """A straight-through Gumbel-softmax sample of ``logits`` ``(batch, n)``: forward the
    one-hot of ``argmax(logits + g)``, backward the gradient of ``softmax((logits + g) / τ)``,
    ``g ~ Gumbel(0, 1)`` drawn from ``generator`` (Jang et al. 2017; what
    ``torch.nn.functional.gumbel_softmax(hard=True)`` computes, which takes no generator).

    >>> sample = gumbel_softmax(torch.tensor([[0.0, 30.0]]), 1.0, torch_generator(0))
    >>> sample.tolist()
    [[0.0, 1.0]]
    """
    gumbel = -torch.empty_like(logits).exponential_(generator=generator).log()
    soft = torch.softmax((logits + gumbel) / temperature, dim=-1)
    hard = F.one_hot(soft.argmax(dim=-1), logits.shape[-1]).to(soft.dtype)
    return hard - soft.detach() + soft


def _by_player(name, networks, players):
    if not isinstance(networks, dict) or set(networks) != set(players):
        got = list(networks) if isinstance(networks, dict) else networks
        raise ValueError(f"MADDPGLearner: {name} must be a dict with one TargetNetwork per "
                         f"player of {players}, got {got!r}")
    for player, network in networks.items():
        if not isinstance(network, TargetNetwork):
            raise TypeError(f"MADDPGLearner: the {name[:-1]} of {player!r} must be a "
                            f"TargetNetwork, got {type(network).__name__}")
    return {player: networks[player] for player in players}  # in the order of the players


@attrs.define(eq=False)
class MADDPGLearner(AbstractReplayLearner):
    """MADDPG's actors and centralised critics, one of each per player (see the module doc).

    Keyword arguments: ``spaces`` (the game's :class:`JointSpaces`; required), ``actors`` and
    ``critics`` (dicts mapping each player to a :class:`~rlcore.TargetNetwork` with its own
    optimiser; required): a ``Box`` player's actor a
    :class:`~rlzoo.policy_gradient.networks.DeterministicActor` within that player's bounds, a
    ``Discrete`` player's a :class:`~rlzoo.policy_gradient.networks.CategoricalActor`, each
    critic a :class:`~rlzoo.policy_gradient.networks.QCritic` of ``spaces.state_size`` states
    and ``spaces.action_size`` actions; ``schedule=ReplaySchedule()``, ``gamma=0.95``,
    ``temperature=1.0`` (of the Gumbel-softmax), ``logit_penalty=1e-3`` (added times
    ``mean(log π_i²)`` to a discrete player's actor loss), ``seed=0`` (the Gumbel noise). After
    each update ``critic_loss`` and ``actor_loss`` map each player to its last loss.

    >>> from rlcore import NeuralNetworkApproximator
    >>> from rlenvs import SpeakerListenerEnv
    >>> from rlzoo.dqns.networks import target_network
    >>> from rlzoo.policy_gradient import DeterministicActor, QCritic
    >>> joint = JointSpaces.of(SpeakerListenerEnv())
    >>> def polyak(model):
    ...     return target_network(NeuralNetworkApproximator(model, torch.optim.Adam(
    ...         model.parameters(), lr=1e-2)), rho=0.99)
    >>> learner = MADDPGLearner(joint, actors={
    ...     "speaker": polyak(DeterministicActor(3, [0.0] * 3, [1.0] * 3, hidden=(16,), seed=0)),
    ...     "listener": polyak(DeterministicActor(11, [-1.0] * 2, [1.0] * 2, hidden=(16,),
    ...                                           seed=1))},
    ...     critics={p: polyak(QCritic(14, 5, hidden=(16,), seed=2 + i))
    ...              for i, p in enumerate(joint.players)})
    >>> [output.shape for output in learner(SpeakerListenerEnv(seed=0))]
    [torch.Size([1, 3]), torch.Size([1, 2])]
    """

    spaces: JointSpaces = attrs.field(validator=attrs.validators.instance_of(JointSpaces))
    actors: dict = attrs.field(kw_only=True)
    critics: dict = attrs.field(kw_only=True)
    schedule: ReplaySchedule = attrs.field(
        kw_only=True, factory=ReplaySchedule,
        validator=attrs.validators.instance_of(ReplaySchedule))
    gamma: float = attrs.field(kw_only=True, default=0.95, validator=real_in(0, 1))
    temperature: float = attrs.field(kw_only=True, default=1.0,
                                     validator=real_in(0, float("inf"), low_open=True,
                                                       high_open=True))
    logit_penalty: float = attrs.field(kw_only=True, default=1e-3,
                                       validator=real_in(0, float("inf"), high_open=True))
    seed: int = attrs.field(kw_only=True, default=0, validator=non_negative_int)
    generator: torch.Generator = attrs.field(init=False, repr=False)
    critic_loss: dict = attrs.field(init=False, factory=dict, repr=False)
    actor_loss: dict = attrs.field(init=False, factory=dict, repr=False)

    def __attrs_post_init__(self):
        players = self.spaces.players
        self.actors = _by_player("actors", self.actors, players)
        self.critics = _by_player("critics", self.critics, players)
        for i, (player, actor) in enumerate(self.actors.items()):
            if not self.spaces.is_discrete(i):
                _check_bounds(player, actor.model, self.spaces.action_spaces[i])
        check_sampler_gamma(self)
        self.generator = torch_generator(self.seed, self.device)

    @property
    def device(self):
        return next(iter(self.critics.values())).device

    def __call__(self, env):
        """Each player's actor output for its own state in ``env`` (a batch of one), in the
        order of the players, without gradient: actions ``(1, d)`` of a ``Box`` player, a
        :class:`~rlzoo.policy_gradient.distributions.Categorical` of a ``Discrete`` one."""
        with torch.no_grad():
            return tuple(actor(to_device(env.state(player), actor.device).unsqueeze(0))
                         for player, actor in self.actors.items())


def _check_bounds(player, model, space):
    low, high = getattr(model, "low", None), getattr(model, "high", None)
    if not isinstance(low, torch.Tensor) or not isinstance(high, torch.Tensor) or not (
            np.array_equal(low.detach().cpu().numpy(), np.asarray(space.low, np.float32))
            and np.array_equal(high.detach().cpu().numpy(), np.asarray(space.high, np.float32))):
        raise ValueError(f"MADDPGLearner: the actor of {player!r} must act in its action space "
                         f"{space} (a DeterministicActor built with its low and high), got "
                         f"{type(model).__name__} with low={low!r}, high={high!r}")


def critic_action(learner, i, output):
    """Player ``i``'s actor ``output`` as it enters the critics, ``(batch, d_i)``: a ``Box``
    player's actions as they are, a straight-through :func:`gumbel_softmax` sample of a
    ``Discrete`` player's logits (its ``Categorical``'s)."""
    if learner.spaces.is_discrete(i):
        return gumbel_softmax(output.logits, learner.temperature, learner.generator)
    return output


def maddpg_targets(learner, batch):
    """``y_i = r_i + γ (1 − terminal) Q'_i(x', μ'_1(o'_1), ..., μ'_N(o'_N))`` for every player,
    ``(batch, N)``, without gradient (an n-step sampler's ``discount = γ^k`` in place of γ)."""
    with torch.no_grad():
        next_state = batch["next_state"]
        next_action = torch.cat([
            critic_action(learner, i, actor.target(next_state[:, columns]))
            for i, (actor, columns) in enumerate(zip(learner.actors.values(),
                                                     learner.spaces.state_slices))], dim=-1)
        next_values = torch.stack([critic.target(next_state, next_action)
                                   for critic in learner.critics.values()], dim=-1)
        return batch["reward"] + bootstrap_factor(batch, learner.gamma)[:, None] * next_values


@dispatch(MADDPGLearner, object)
def update(learner, batch):  # noqa: F811
    """Every player's target first; then for each player a critic step on
    ``mean((Q_i(x, a) − y_i)²)`` and an actor step on ``−mean(Q_i(x, a_1, ..., μ_i(o_i), ...,
    a_N))`` with the updated critic (plus ``logit_penalty · mean(log π_i²)`` for a discrete
    player); each step moves its target."""
    batch = batch_on(batch, learner.device)
    state, action = batch["state"], batch["action"]
    targets = maddpg_targets(learner, batch)
    own_states = [state[:, columns] for columns in learner.spaces.state_slices]
    replay_actions = [action[:, columns] for columns in learner.spaces.action_slices]
    for i, player in enumerate(learner.spaces.players):
        critic = learner.critics[player]
        critic_loss = F.mse_loss(critic(state, action), targets[:, i])
        update(critic, critic_loss)
        # the gradient also reaches the critic's parameters; its next step zeroes them first
        actor = learner.actors[player]
        output = actor(own_states[i])
        actions = list(replay_actions)
        actions[i] = critic_action(learner, i, output)
        actor_loss = -critic(state, torch.cat(actions, dim=-1)).mean()
        if learner.spaces.is_discrete(i):
            actor_loss = actor_loss + learner.logit_penalty * output.logits.pow(2).mean()
        update(actor, actor_loss)
        learner.critic_loss[player] = critic_loss.detach()
        learner.actor_loss[player] = actor_loss.detach()


@dispatch(MADDPGLearner, AbstractTrajectory, AbstractEnv, PreExperimentStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Before the first step: the env is the learner's game (its :class:`JointSpaces`), the
    trajectory records it (a :class:`JointSARTSTrajectory` of the same spaces), each actor
    takes its player's states and each critic joint states and actions; each mismatch raises
    :class:`~rlcore.EnvMismatchError` naming it."""
    joint = learner.spaces
    if JointSpaces.of(env) != joint:
        raise EnvMismatchError(f"MADDPGLearner was built for {joint}, but {env!r} has "
                               f"{JointSpaces.of(env)}")
    if not isinstance(trajectory, JointSARTSTrajectory) or trajectory.spaces != joint:
        raise EnvMismatchError(f"MADDPGLearner learns from a JointSARTSTrajectory of its "
                               f"spaces {joint}, got {trajectory!r}")
    for i, (player, actor) in enumerate(learner.actors.items()):
        output = check_network_input(actor.model, actor, env.state_space(player), env, learner)
        kind = "logits" if joint.is_discrete(i) else "actions"
        given = getattr(output, "logits", None) if joint.is_discrete(i) else output
        if not isinstance(given, torch.Tensor) or given.shape != (1, joint.action_sizes[i]):
            shape = tuple(given.shape) if isinstance(given, torch.Tensor) else None
            raise EnvMismatchError(
                f"MADDPGLearner: the actor of {player!r} must give {kind} of width "
                f"{joint.action_sizes[i]} for its action space {joint.action_spaces[i]} (a "
                f"{'CategoricalActor' if joint.is_discrete(i) else 'DeterministicActor'}), "
                f"got {type(output).__name__} with {kind} of shape {shape} for one state")
    joint_state = spaces.Box(-np.inf, np.inf, (joint.state_size,), np.float32)
    actions = torch.zeros(1, joint.action_size)
    for critic in learner.critics.values():
        check_network_input(critic.model, lambda states, q=critic: q(states, actions),
                            joint_state, env, learner)


@dispatch(MADDPGLearner)
def scalars(learner):  # noqa: F811
    values = rollout_scalars(learner, ())
    for name in ("critic_loss", "actor_loss"):
        for player, loss in getattr(learner, name).items():
            values[f"train/{name}/{player}"] = float(loss)
    return values


@attrs.define
class MADDPGPolicy(AbstractPolicy):
    """Plays a simultaneous game with MADDPG's decentralised actors: ``policy(env)`` is the
    tuple of the players' actions, each player's ``explorer`` applied to its actor's output
    for its own state (one forward per actor and step; a ``Discrete`` player's action an
    ``int``). ``update(policy, trajectory, env, stage)`` is forwarded to the learner.

    Keyword arguments: ``learner`` (a :class:`MADDPGLearner`), ``explorers`` (a dict mapping
    each player to an explorer: a :class:`~rlcore.GaussianNoiseExplorer` of a ``Box``
    player's bounds, a :class:`~rlcore.DistributionExplorer` for a ``Discrete`` player).

    >>> from rlcore import (Agent, DistributionExplorer, GaussianNoiseExplorer,
    ...                     NeuralNetworkApproximator, StopAfterStep, run)
    >>> from rlenvs import SpeakerListenerEnv
    >>> from rlzoo.dqns.networks import target_network
    >>> from rlzoo.policy_gradient import DeterministicActor, QCritic
    >>> env = SpeakerListenerEnv(seed=0)
    >>> joint = JointSpaces.of(env)
    >>> def polyak(model):
    ...     return target_network(NeuralNetworkApproximator(model, torch.optim.Adam(
    ...         model.parameters(), lr=1e-2)), rho=0.99)
    >>> learner = MADDPGLearner(joint, actors={
    ...     "speaker": polyak(DeterministicActor(3, [0.0] * 3, [1.0] * 3, hidden=(16,), seed=0)),
    ...     "listener": polyak(DeterministicActor(11, [-1.0] * 2, [1.0] * 2, hidden=(16,),
    ...                                           seed=1))},
    ...     critics={p: polyak(QCritic(14, 5, hidden=(16,), seed=2 + i))
    ...              for i, p in enumerate(joint.players)},
    ...     schedule=ReplaySchedule(min_replay_history=32))
    >>> policy = MADDPGPolicy(learner, {
    ...     "speaker": GaussianNoiseExplorer(low=[0.0] * 3, high=[1.0] * 3, seed=0),
    ...     "listener": GaussianNoiseExplorer(low=[-1.0] * 2, high=[1.0] * 2, seed=1)})
    >>> agent = Agent(policy, JointSARTSTrajectory(1000, joint))
    >>> _ = run(agent, env, StopAfterStep(50))
    >>> len(agent.trajectory), sorted(learner.critic_loss)
    (50, ['listener', 'speaker'])
    """

    learner: MADDPGLearner = attrs.field(validator=attrs.validators.instance_of(MADDPGLearner))
    explorers: dict = attrs.field()

    def __attrs_post_init__(self):
        players = self.learner.spaces.players
        if not isinstance(self.explorers, dict) or set(self.explorers) != set(players):
            raise ValueError(f"MADDPGPolicy: explorers must be a dict with one explorer per "
                             f"player of {players}, got {self.explorers!r}")
        for player, explorer in self.explorers.items():
            if not isinstance(explorer, AbstractExplorer):
                raise TypeError(f"MADDPGPolicy: the explorer of {player!r} must be an "
                                f"AbstractExplorer, got {explorer!r}")
        self.explorers = {player: self.explorers[player] for player in players}

    def __call__(self, env):
        actions = []
        for i, (explorer, output) in enumerate(zip(self.explorers.values(), self.learner(env))):
            action = explorer(output)[0]
            actions.append(int(action) if self.learner.spaces.is_discrete(i) else action)
        return tuple(actions)


@dispatch(MADDPGPolicy, AbstractTrajectory, AbstractEnv, AbstractStage)
def update(policy, trajectory, env, stage):  # noqa: F811
    update(policy.learner, trajectory, env, stage)


@dispatch(MADDPGPolicy)
def scalars(policy):  # noqa: F811
    return scalars(policy.learner)


class JointSARTSTrajectory(AbstractTrajectory):
    """A replay of the joint transitions ``(x, a, r, x')`` of one simultaneous game, in the
    layout of ``spaces`` (a :class:`JointSpaces`; the module doc): traces ``state``
    (``(spaces.state_size,)`` float32), ``action`` (``(spaces.action_size,)`` float32,
    discrete actions one-hot), ``reward`` (``(N,)`` float32, one per player), ``terminal``,
    ``truncated``, ``next_state``, each of ``capacity`` rows, one per step: the SARTS layout
    of :class:`~rlcore.CircularArraySARTSTrajectory`, which ``BatchSampler`` samples. A type of
    its own because what it records differs: that trajectory's rules push ``env.state()`` and
    ``env.reward()``, which a simultaneous game gives per player.

    Recording (one environment; a vectorised one raises ``TypeError``): ``PreActStage``
    pushes the joint state and the joint action (each player's action checked against its
    space first), ``PostActStage`` every player's reward (finite), the flags and the next
    joint state; ``PostExperimentStage`` marks a last step cut by the end of the run truncated.

    >>> from rlenvs import SpeakerListenerEnv
    >>> trajectory = JointSARTSTrajectory(100, JointSpaces.of(SpeakerListenerEnv()))
    >>> trajectory["state"].shape, trajectory["action"].shape, trajectory["reward"].shape
    ((14,), (5,), (2,))
    """

    def __init__(self, capacity, spaces):
        if not isinstance(spaces, JointSpaces):
            raise TypeError(f"spaces must be a JointSpaces, got {spaces!r}")
        self.capacity = as_capacity(capacity)
        self.spaces = spaces
        state, action = (spaces.state_size,), (spaces.action_size,)
        super().__init__(
            state=CircularArrayBuffer(self.capacity, state, np.float32),
            action=CircularArrayBuffer(self.capacity, action, np.float32),
            reward=CircularArrayBuffer(self.capacity, (len(spaces.players),), np.float32),
            terminal=CircularArrayBuffer(self.capacity, (), bool),
            truncated=CircularArrayBuffer(self.capacity, (), bool),
            next_state=CircularArrayBuffer(self.capacity, state, np.float32))

    def __repr__(self):
        return (f"JointSARTSTrajectory(capacity={self.capacity}, players={self.spaces.players}, "
                f"len={len(self)})")


@dispatch(JointSARTSTrajectory, AbstractPolicy, AbstractEnv, PreEpisodeStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Nothing: every row holds its own next state."""


@dispatch(JointSARTSTrajectory, AbstractPolicy, AbstractEnv, PreActStage, object)
def update(trajectory, policy, env, stage, action):  # noqa: F811
    """Push the joint state and the joint action (checked first)."""
    joint = trajectory.spaces
    trajectory.push(state=joint.joint_state(env), action=joint.joint_action(action))


@dispatch(JointSARTSTrajectory, AbstractPolicy, AbstractEnv, PostActStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Push every player's reward, the flags and the next joint state of the step."""
    rewards = [env.reward(player) for player in trajectory.spaces.players]
    check_finite_reward(np.asarray(rewards, np.float64), env,
                        trajectory.traces["reward"].end_index + 1)
    terminal = bool(env.is_terminated())
    trajectory.push(reward=np.asarray(rewards, np.float32), terminal=terminal,
                    truncated=not terminal and bool(env.is_truncated()),
                    next_state=trajectory.spaces.joint_state(env))


@dispatch(JointSARTSTrajectory, AbstractPolicy, AbstractEnv, PostEpisodeStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Nothing: the final state was recorded as the last row's ``next_state``."""


@dispatch(JointSARTSTrajectory, AbstractPolicy, AbstractEnv, PostExperimentStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Mark the last step truncated unless it terminated: the run cut its episode."""
    traces = trajectory.traces
    terminal, truncated = traces["terminal"], traces["truncated"]
    if len(terminal) and traces["next_state"].end_index == traces["state"].end_index \
            and not terminal[-1]:
        truncated[-1] = True


@dispatch(JointSARTSTrajectory, AbstractPolicy, MultiThreadEnv, PreActStage, object)
def update(trajectory, policy, env, stage, action):  # noqa: F811
    """A joint trajectory records one game: refuse a vectorised environment."""
    raise TypeError(f"JointSARTSTrajectory records one simultaneous game; {env!r} steps "
                    f"{env.n} sub-environments")

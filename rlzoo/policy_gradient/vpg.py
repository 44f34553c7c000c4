"""VPG: the vanilla policy gradient (REINFORCE), with an optional learned state-value baseline.

Reference: Williams (1992), "Simple Statistical Gradient-Following Algorithms for
Connectionist Reinforcement Learning" (https://doi.org/10.1007/BF00992696); Sutton & Barto
(2018), "Reinforcement Learning: An Introduction", §13.3 (REINFORCE) and §13.4 (REINFORCE with
baseline); RL.jl ``VPG`` (``policy_gradient/vpg.jl``), which also learns once per episode.

When an episode ends (``PostEpisodeStage``) the learner takes that episode's ``T`` rows from its
trajectory and takes one optimiser step on

``−mean_t(log π(a_t | s_t) · Â_t) + c_v · ½ mean_t((G_t − V(s_t))²) − c_e · mean_t(H[π(· | s_t)])``

with the returns ``G_t = Σ_k γ^k r_{t+k}`` to the episode's end
(:func:`~rlzoo.policy_gradient.advantages.discounted_returns`) and ``Â_t = G_t − V(s_t)``
(``V`` detached) with a baseline, ``Â_t = G_t`` without (then the critic term is absent),
optionally normalised over the episode. The mean over the episode's steps replaces Sutton &
Barto's sum, and their factor ``γ^t`` is dropped, as in common practice (the "undiscounted state
distribution" gradient; Thomas 2014, "Bias in Natural Actor-Critic Algorithms"). An episode cut
by a time limit (truncated) bootstraps ``G_{T−1} = r_{T−1} + γ V(s_T)`` from its true final
state when there is a baseline; without one nothing estimates ``V(s_T)``, so the return is the
discounted sum of the rewards seen (a bootstrap from 0, as if the episode had terminated).

Trajectory layout and shape convention: a :class:`~rlcore.CircularArraySARTSTrajectory` of
``capacity`` rows recording ``n = n_envs`` environments (one env: ``n = 1``), never cleared, so
it holds the newest ``capacity`` rows. Rows are appended ``n`` per step, one per environment in
order, so the row at *stream position* ``p`` (its count since the trajectory was created, the
buffers' ``first_index``/``end_index``) belongs to environment ``p mod n`` whether or not the
ring has wrapped; logical row ``p − first_index``. :func:`episode_rows` walks back through one
environment's rows from its newest to the previous row flagged terminal or truncated. The
trajectory must hold the longest episode and the row before it: ``capacity ≥ (T_max + 1) · n``;
otherwise the episode's start is lost and a ``ValueError`` says so. The episode's tensors are
``(T, ...)``, ``(T, 1)`` for the return recursion.
"""

import attrs
import numpy as np
import torch

from rlcore import AbstractLearner, AbstractTrajectory, NeuralNetworkApproximator
from rlcore.checks import check_n_envs, check_storable_states
from rlcore.dispatch import dispatch, update
from rlcore.envs import AbstractEnv
from rlcore.logger import scalars
from rlcore.policies.replay_learner import check_env
from rlcore.stages import PostEpisodeStage, PreExperimentStage
from rlcore.utils.validators import boolean, real_in
from rlenvs.vector_env import SubEnv
from rlzoo.policy_gradient.advantages import discounted_returns, normalize
from rlzoo.policy_gradient.checks import check_actor_critic_env, policy_of
from rlzoo.policy_gradient.rollout import actor_output, rollout_scalars

__all__ = ["VPGLearner", "episode_rows", "env_column"]


@attrs.define(eq=False)
class VPGLearner(AbstractLearner):
    """REINFORCE, learning from each finished episode (see the module doc).

    Keyword arguments: ``approximator`` (a ``NeuralNetworkApproximator`` over an
    :class:`~rlzoo.policy_gradient.networks.ActorCritic`, or over an actor alone when
    ``baseline=False``; required), ``gamma=0.99``, ``baseline=True`` (subtract the critic's
    ``V(s_t)`` and train it on ``½(G_t − V(s_t))²``), ``value_coef=1.0`` (``c_v``),
    ``entropy_coef=0.0`` (``c_e``), ``normalize_advantages=False`` (centre and scale each
    episode's ``Â_t``, the advantages with a baseline or the returns without). Gradient
    clipping is the approximator's ``max_grad_norm``.

    After each update: ``loss_value``, ``policy_loss``, ``value_loss`` (``None`` without a
    baseline), ``entropy``, ``episode_length``.

    >>> from rlzoo.policy_gradient import ActorCritic, CategoricalActor, ValueCritic
    >>> model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    >>> learner = VPGLearner(NeuralNetworkApproximator(model, torch.optim.Adam(
    ...     model.parameters(), lr=1e-2)), gamma=0.99)
    """

    approximator: NeuralNetworkApproximator = attrs.field(
        validator=attrs.validators.instance_of(NeuralNetworkApproximator))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    baseline: bool = attrs.field(kw_only=True, default=True, validator=boolean)
    value_coef: float = attrs.field(kw_only=True, default=1.0, validator=real_in(0, float("inf")))
    entropy_coef: float = attrs.field(kw_only=True, default=0.0,
                                      validator=real_in(0, float("inf")))
    normalize_advantages: bool = attrs.field(kw_only=True, default=False, validator=boolean)
    loss_value: object = attrs.field(init=False, default=None, repr=False)
    policy_loss: object = attrs.field(init=False, default=None, repr=False)
    value_loss: object = attrs.field(init=False, default=None, repr=False)
    entropy: object = attrs.field(init=False, default=None, repr=False)
    episode_length: object = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self):
        model = self.approximator.model
        if self.baseline and not (hasattr(model, "forward_both") and hasattr(model, "value")):
            raise TypeError(f"VPGLearner(baseline=True) needs an ActorCritic model (with "
                            f"forward_both and value), got {type(model).__name__}: pass an "
                            f"ActorCritic or baseline=False")

    def __call__(self, env):
        return actor_output(self.approximator, env)


def episode_rows(trajectory, column):
    """The logical rows of the episode environment ``column`` has just ended, oldest first (an
    int array), found by walking back from that environment's newest row to the previous row
    flagged terminal or truncated (see the module doc for the layout). Raises ``ValueError`` if
    the newest row does not end an episode, or if the walk reaches the environment's oldest
    row held while older rows of it have been overwritten (the episode does not fit)."""
    traces, n = trajectory.traces, trajectory.n_envs
    reward = traces["reward"]
    first, end = reward.first_index, reward.end_index
    if end == first:
        raise ValueError("the trajectory holds no step: nothing to learn from")
    newest = end - 1 - (end - 1 - column) % n          # stream positions of env `column`
    oldest = first + (column - first) % n
    rows = np.arange(oldest, newest + 1, n) - first    # logical rows, oldest first
    done = traces["terminal"][rows] | traces["truncated"][rows]
    if not done[-1]:
        raise ValueError(f"env {column}'s newest row (logical row {rows[-1]}) is neither terminal "
                         f"nor truncated: no episode has just ended there")
    previous = np.flatnonzero(done[:-1])
    if len(previous):
        return rows[previous[-1] + 1:]
    if oldest >= n:  # the row at stream position oldest − n, of this env, was overwritten
        low, high = trajectory.capacity // n, -(-trajectory.capacity // n)
        per_env = f"{low}" if low == high else f"{low} to {high}"
        raise ValueError(
            f"the episode env {column} just ended has at least {len(rows)} steps, every row of "
            f"env {column} the trajectory holds (capacity {trajectory.capacity} for {n} envs: "
            f"{per_env} rows per env): its start was overwritten; build the trajectory with a "
            f"capacity of at least (longest episode + 1) · n_envs")
    return rows


@dispatch(AbstractEnv)
def env_column(env):
    """The trajectory column of ``env``: 0 for one environment, ``env.index`` for a sub-env of
    a vectorised one (:class:`rlenvs.vector_env.SubEnv`, as ``PostEpisodeStage`` shows it)."""
    return 0


@dispatch(SubEnv)
def env_column(env):  # noqa: F811
    return env.index


def vpg_loss(learner, episode):
    """The loss of the module doc and its parts ``(loss, policy_loss, value_loss, entropy)``
    for ``episode``, a dict of the episode's tensors: ``state``, ``action``, ``reward`` (T,),
    ``terminal`` and ``truncated`` (of its last step) and ``final_state`` (the next state of its
    last step, batch of 1). ``value_loss`` is ``None`` without a baseline."""
    model = learner.approximator.model
    rewards = episode["reward"].unsqueeze(1)                      # (T, 1)
    last_value = rewards.new_zeros(1)
    if learner.baseline:
        dist, values = model.forward_both(episode["state"], episode.get("legal_actions_mask"))
        if episode["truncated"]:
            with torch.no_grad():
                last_value = model.value(episode["final_state"])
    else:
        dist, values = policy_of(model, episode), None
    terminal = torch.zeros_like(rewards)
    terminal[-1] = float(episode["terminal"])   # the one boundary, at the last step
    returns = discounted_returns(rewards, terminal, learner.gamma, last_value).squeeze(1)
    advantages = returns if values is None else returns - values.detach()
    if learner.normalize_advantages:
        advantages = normalize(advantages)
    policy_loss = -(dist.log_prob(episode["action"]) * advantages).mean()
    entropy = dist.entropy().mean()
    loss = policy_loss - learner.entropy_coef * entropy
    value_loss = None
    if values is not None:
        value_loss = 0.5 * ((returns - values) ** 2).mean()
        loss = loss + learner.value_coef * value_loss
    return loss, policy_loss, value_loss, entropy


@dispatch(VPGLearner, AbstractTrajectory, AbstractEnv, PreExperimentStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Before the first step: a trajectory with one row per environment and step
    (``CircularArraySARTSTrajectory``) recording ``n_envs(env)`` environments, storable
    states, then ``check_env``."""
    if getattr(trajectory, "n_envs", None) is None or "next_state" not in trajectory:
        raise TypeError(f"VPGLearner finds its episodes in a CircularArraySARTSTrajectory (one "
                        f"row per environment and step, with its next state), got "
                        f"{type(trajectory).__name__}")
    check_storable_states(env.state_space(), env)
    check_n_envs(trajectory, env)
    check_env(learner, trajectory, env)


@dispatch(VPGLearner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """The actor-critic check of :func:`rlzoo.policy_gradient.checks.check_actor_critic_env`."""
    check_actor_critic_env(learner, trajectory, env)


@dispatch(VPGLearner, AbstractTrajectory, AbstractEnv, PostEpisodeStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    """Learn from the episode ``env`` (one env, or a sub-env of a vectorised one) just ended."""
    rows = episode_rows(trajectory, env_column(env))
    app, traces = learner.approximator, trajectory.traces
    last = rows[-1:]
    episode = {"state": app.to_device(traces["state"][rows]),
               "action": app.to_device(traces["action"][rows]),
               "reward": app.to_device(traces["reward"][rows]),
               "terminal": bool(traces["terminal"][last][0]),
               "truncated": bool(traces["truncated"][last][0]),
               "final_state": app.to_device(traces["next_state"][last])}
    if "legal_actions_mask" in traces:
        episode["legal_actions_mask"] = app.to_device(traces["legal_actions_mask"][rows])
    update(learner, episode)


@dispatch(VPGLearner, dict)
def update(learner, episode):  # noqa: F811
    """One optimiser step on one episode's loss (:func:`vpg_loss`)."""
    loss, policy_loss, value_loss, entropy = vpg_loss(learner, episode)
    update(learner.approximator, loss)
    learner.loss_value, learner.policy_loss = loss.detach(), policy_loss.detach()
    learner.value_loss = None if value_loss is None else value_loss.detach()
    learner.entropy = entropy.detach()
    learner.episode_length = len(episode["reward"])


@dispatch(VPGLearner)
def scalars(learner):  # noqa: F811
    return rollout_scalars(learner, ("policy_loss", "value_loss", "entropy", "episode_length"))

"""Bandit methods of Sutton & Barto chapter 2, for one bandit or a batch of independent ones.

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018):

* action-value methods (§2.4–2.6): ``Q(A) ← Q(A) + α (R − Q(A))`` with ``α = 1/N(A)`` (sample
  average, ``alpha=None``) or a constant ``α``; optimistic initial values are ``init > 0``;
  actions chosen ε-greedily or by UCB (§2.7, eq. 2.10);
* the gradient bandit (§2.8, eq. 2.12): preferences ``H``, ``π = softmax(H)``,
  ``H(a) ← H(a) + α (R − R̄)(1{a = A} − π(a))`` with the average reward ``R̄`` as baseline
  (``baseline=False``: ``R̄ = 0``). ``R̄_t`` here includes ``R_t`` (the average of the rewards
  up through and including time t). Source: our reading of the 2nd edition's (2018) sentence
  after eq. 2.12; the printings differ (earlier drafts say "up to but not including time t,
  with R̄_1 = R_1") and this could not be checked against the book's text in the reference
  corpora available to us, so the behaviour is kept as first implemented. The two choices differ
  only by a factor ``(t − 1)/t`` on ``R − R̄`` and give the same Figure 2.5 up to noise.

Shape convention: tables are ``(n_envs, k)``. With ``n_envs=1`` a learner works on
:class:`~rlenvs.multi_arm_bandits.MultiArmBanditsEnv` with the ordinary ``QBasedPolicy`` and the
explorers of :mod:`rlcore.explorers`; with ``n_envs > 1`` it works on
:class:`~rlenvs.multi_arm_bandits.BatchMultiArmBanditsEnv` with :class:`BatchQBasedPolicy` and the
vectorised explorers below, so one ``run`` advances thousands of testbed runs at once (the rules
are the same; only the arrays are wider).

Example, Figure 2.2's ε = 0.1 on 100 runs of 200 steps::

    >>> from rlcore import Agent, RewardsPerEpisode, StopAfterStep, run
    >>> from rlenvs.multi_arm_bandits import BatchMultiArmBanditsEnv
    >>> env = BatchMultiArmBanditsEnv(n_envs=100, seed=0)
    >>> learner = BanditLearner(n_actions=10, n_envs=100)
    >>> agent = Agent(BatchQBasedPolicy(learner, BatchEpsilonGreedyExplorer(0.1, seed=0)),
    ...               bandit_trajectory(100))
    >>> hook = run(agent, env, StopAfterStep(200), RewardsPerEpisode())
    >>> 0.5 < sum(hook.rewards[0][-50:]) / 50 < 1.6
    True
"""

import attrs
import numpy as np

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.explorers._utils import softmax
from rlcore.explorers.base import AbstractExplorer
from rlcore.hooks import AbstractHook, on_stage
from rlcore.policies.base import AbstractLearner, AbstractPolicy
from rlcore.stages import AbstractStage, PostActStage, PreActStage
from rlcore.trajectories import CircularArraySARTTrajectory
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.utils.random import make_rng
from rlcore.utils.validators import positive_int, real_in
from rlenvs.multi_arm_bandits import BatchMultiArmBanditsEnv

__all__ = ["BanditLearner", "GradientBanditLearner", "BatchQBasedPolicy",
           "BatchEpsilonGreedyExplorer", "BatchUCBExplorer", "BatchSoftmaxExplorer",
           "OptimalActionRate", "bandit_trajectory"]


_step_size = attrs.validators.optional(real_in(0, 1, low_open=True))  # None: 1/N
_positive_real = real_in(0, float("inf"), low_open=True, high_open=True)


def _rewards(env):
    """The rewards of the last step, one per bandit (shape ``(n_envs,)``)."""
    if isinstance(env, BatchMultiArmBanditsEnv):
        return env.rewards()
    return np.array([env.reward()])


def _rows(values, env):
    """A learner's table as the policy sees it: the whole ``(n_envs, k)`` table for a batched
    env (even with one bandit in it), else the row of the single bandit."""
    return values if isinstance(env, BatchMultiArmBanditsEnv) else values[0].copy()


def bandit_trajectory(n_envs=1, batched=None):
    """A one-step trajectory for bandit learners (they learn from the last step only).

    ``batched`` (default: ``n_envs > 1``) stores arrays of ``n_envs`` states and actions, as a
    :class:`~rlenvs.multi_arm_bandits.BatchMultiArmBanditsEnv` gives; pass ``batched=True`` for
    a batched env of one bandit (e.g. the last, smaller chunk of :func:`run_many`).
    """
    batched = n_envs > 1 if batched is None else bool(batched)
    shape = (n_envs,) if batched else ()
    return CircularArraySARTTrajectory(1, state=(shape, np.int64), action=(shape, np.int64),
                                       reward=((), np.float64))


@attrs.define
class BanditLearner(AbstractLearner):
    """Action-value estimates of ``n_envs`` k-armed bandits (§2.4–2.6).

    Keyword arguments: ``n_actions`` (k, required); ``n_envs=1``; ``alpha=None`` (sample
    averages, ``1/N(a)``) or a constant step size in (0, 1]; ``init=0.0`` (``5.0`` for Figure
    2.3's optimistic values).
    """

    n_actions: int = attrs.field(validator=positive_int)
    n_envs: int = attrs.field(default=1, validator=positive_int)
    alpha: object = attrs.field(default=None, validator=_step_size)
    init: float = attrs.field(default=0.0)
    Q: np.ndarray = attrs.field(init=False, repr=False)
    N: np.ndarray = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self):
        self.Q = np.full((self.n_envs, self.n_actions), float(self.init))
        self.N = np.zeros((self.n_envs, self.n_actions), dtype=np.int64)

    def __call__(self, env):
        return _rows(self.Q, env)


@dispatch(BanditLearner, AbstractTrajectory, AbstractEnv, PostActStage)
def update(learner, trajectory, env, stage):
    actions = np.atleast_1d(np.asarray(trajectory["action"][-1]))
    rows = np.arange(learner.n_envs)
    learner.N[rows, actions] += 1
    step = 1.0 / learner.N[rows, actions] if learner.alpha is None else learner.alpha
    learner.Q[rows, actions] += step * (_rewards(env) - learner.Q[rows, actions])


@attrs.define
class GradientBanditLearner(AbstractLearner):
    """Action preferences of the gradient bandit algorithm (§2.8).

    Keyword arguments: ``n_actions`` (required); ``n_envs=1``; ``alpha=0.1`` (any α > 0: Figure
    2.6 goes up to α = 2); ``baseline=True`` (the running average reward, this step's included,
    see the module docstring; ``False``: no baseline). ``learner(env)`` returns the preferences
    ``H``: act with a softmax explorer.
    """

    n_actions: int = attrs.field(validator=positive_int)
    n_envs: int = attrs.field(default=1, validator=positive_int)
    alpha: float = attrs.field(default=0.1, validator=_positive_real)
    baseline: bool = True
    H: np.ndarray = attrs.field(init=False, repr=False)
    average_reward: np.ndarray = attrs.field(init=False, repr=False)
    t: int = attrs.field(init=False, default=0)

    def __attrs_post_init__(self):
        self.H = np.zeros((self.n_envs, self.n_actions))
        self.average_reward = np.zeros(self.n_envs)

    def __call__(self, env):
        return _rows(self.H, env)


@dispatch(GradientBanditLearner, AbstractTrajectory, AbstractEnv, PostActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    actions = np.atleast_1d(np.asarray(trajectory["action"][-1]))
    rewards = _rewards(env)
    learner.t += 1
    if learner.baseline:
        learner.average_reward += (rewards - learner.average_reward) / learner.t
    pi = _softmax(learner.H)
    one_hot = np.zeros_like(pi)
    one_hot[np.arange(learner.n_envs), actions] = 1.0
    learner.H += learner.alpha * (rewards - learner.average_reward)[:, None] * (one_hot - pi)


def _softmax(H):
    """Row-wise softmax of a ``(batch, k)`` table.

    One row goes through :func:`rlcore.explorers._utils.softmax`; that function is 1-D only (it
    normalises over the whole array), so a batch of rows is done here in one vectorised pass —
    a per-row call would cost 2 million Python calls for one Figure 2.5 curve.
    """
    if H.shape[0] == 1:
        return softmax(H[0])[None, :]
    z = np.exp(H - H.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


@attrs.define
class BatchQBasedPolicy(AbstractPolicy):
    """``explorer(learner(env))`` for a batch of environments: returns an int array of actions.

    The batched counterpart of :class:`rlcore.QBasedPolicy` (which returns one ``int``);
    ``update(policy, trajectory, env, stage)`` is forwarded to the learner.
    """

    learner: AbstractLearner = attrs.field(validator=attrs.validators.instance_of(AbstractLearner))
    explorer: AbstractExplorer = attrs.field(
        validator=attrs.validators.instance_of(AbstractExplorer))

    def __call__(self, env):
        return self.explorer(self.learner(env))

    def prob(self, env):
        return self.explorer.prob(self.learner(env))


@dispatch(BatchQBasedPolicy, AbstractTrajectory, AbstractEnv, AbstractStage)
def update(policy, trajectory, env, stage):  # noqa: F811
    update(policy.learner, trajectory, env, stage)


def _random_argmax(values, rng):
    """Row-wise argmax of a 2-D array, ties broken uniformly at random."""
    noise = rng.random(values.shape)
    return np.argmax(np.where(values == values.max(axis=1, keepdims=True), noise, -1.0), axis=1)


def _no_mask(explorer, mask):
    if mask is not None:
        raise ValueError(f"{type(explorer).__name__} does not support action masks (the bandit "
                         f"testbed has no illegal actions), got mask={mask!r}")


def _check_2d(values):
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"batch explorers take values of shape (batch, n_actions), "
                         f"got shape {values.shape}")
    return values


@attrs.define
class BatchEpsilonGreedyExplorer(AbstractExplorer):
    """ε-greedy on each row of ``values`` (shape ``(batch, n_actions)``), vectorised.

    Each row takes a uniformly random action with probability ``epsilon``, else a greedy one
    (ties broken at random). Test mode is greedy. Keyword arguments: ``epsilon`` (in [0, 1]),
    ``rng``/``seed``.
    """

    epsilon: float = attrs.field(validator=real_in(0, 1))
    is_training: bool = True
    rng: object = attrs.field(default=None, repr=False)
    seed: object = None

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def __call__(self, values, mask=None):
        _no_mask(self, mask)
        values = _check_2d(values)
        greedy = _random_argmax(values, self.rng)
        if not self.is_training or self.epsilon == 0:
            return greedy
        explore = self.rng.random(len(values)) < self.epsilon
        random = self.rng.integers(values.shape[1], size=len(values))
        return np.where(explore, random, greedy)

    def prob(self, values, mask=None):
        _no_mask(self, mask)
        values = _check_2d(values)
        ties = values == values.max(axis=1, keepdims=True)
        eps = self.epsilon if self.is_training else 0.0
        return eps / values.shape[1] + (1 - eps) * ties / ties.sum(axis=1, keepdims=True)


@attrs.define
class BatchUCBExplorer(AbstractExplorer):
    """Upper-confidence-bound selection (eq. 2.10) on each row, vectorised.

    ``argmax_a [Q(a) + c sqrt(ln t / N_t(a))]`` as in the book: ``t`` counts time steps from 1
    (this step included: ``ln 1 = 0`` at the first step) and ``N_t(a)`` is the number of times
    ``a`` was chosen *before* step ``t`` (the explorer's own count); untried actions come first
    (ties at random). Test mode is greedy on the values. Keyword arguments: ``c=2.0`` (>= 0),
    ``rng``/``seed``. The attribute ``t`` is the number of steps taken so far (``t + 1`` is the
    book's ``t`` of the next step).

    Note: :class:`rlcore.UCBExplorer` follows ReinforcementLearning.jl instead and uses
    ``ln(t + 1)`` with its ``step`` starting at 1, i.e. ``ln 2`` at the first step; the bonuses
    differ by ``ln(t + 1)`` versus ``ln t``, which matters only in the first few steps.

    Example (one bandit, both arms tried once, third step: ``t = 3``)::

        >>> explorer = BatchUCBExplorer(c=1.0, counts=np.array([[1, 1]]), t=2)
        >>> scores = explorer._scores(np.array([[0.0, 0.5]]))
        >>> bool(np.allclose(scores, [[np.sqrt(np.log(3)), 0.5 + np.sqrt(np.log(3))]]))
        True
    """

    c: float = attrs.field(default=2.0, validator=real_in(0, float("inf"), high_open=True))
    is_training: bool = True
    rng: object = attrs.field(default=None, repr=False)
    seed: object = None
    counts: object = attrs.field(default=None, repr=False)
    t: int = 0

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def _scores(self, values):
        if self.counts is None:
            self.counts = np.zeros(values.shape, dtype=np.int64)
        with np.errstate(divide="ignore", invalid="ignore"):
            bonus = self.c * np.sqrt(np.log(self.t + 1) / self.counts)  # book t = self.t + 1
        return np.where(self.counts == 0, np.inf, values + bonus)

    def __call__(self, values, mask=None):
        _no_mask(self, mask)
        values = _check_2d(values)
        if not self.is_training:
            return _random_argmax(values, self.rng)
        actions = _random_argmax(self._scores(values), self.rng)
        self.counts[np.arange(len(values)), actions] += 1
        self.t += 1
        return actions

    def prob(self, values, mask=None):
        _no_mask(self, mask)
        values = _check_2d(values)
        scores = self._scores(values) if self.is_training else values
        ties = scores == scores.max(axis=1, keepdims=True)
        return ties / ties.sum(axis=1, keepdims=True)


@attrs.define
class BatchSoftmaxExplorer(AbstractExplorer):
    """Samples each row's action from ``softmax(values)`` (the gradient bandit's policy).

    The softmax is the policy, so test mode keeps sampling. Keyword arguments: ``rng``/``seed``.
    """

    is_training: bool = True
    rng: object = attrs.field(default=None, repr=False)
    seed: object = None

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def __call__(self, values, mask=None):
        _no_mask(self, mask)
        cumulative = np.cumsum(_softmax(_check_2d(values)), axis=1)
        u = self.rng.random((len(cumulative), 1)) * cumulative[:, -1:]
        return np.minimum((cumulative <= u).sum(axis=1), cumulative.shape[1] - 1)

    def prob(self, values, mask=None):
        _no_mask(self, mask)
        return _softmax(_check_2d(values))


@attrs.define
class OptimalActionRate(AbstractHook):
    """Records, at every step, the fraction of bandits whose chosen arm is optimal (``rates``).

    Works with :class:`~rlenvs.multi_arm_bandits.MultiArmBanditsEnv` (0 or 1 per step) and the
    batched env (the fraction over its bandits): Figure 2.2's "% optimal action".
    """

    rates: list = attrs.field(factory=list)


@dispatch(OptimalActionRate, PreActStage, object, object, object)
def on_stage(hook, stage, policy, env, action):
    hook.rates.append(float(np.mean(np.asarray(action) == env.optimal_action())))

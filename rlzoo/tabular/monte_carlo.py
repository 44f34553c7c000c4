"""Tabular Monte Carlo prediction and control, on- and off-policy.

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), chapter 5:
first-visit and every-visit prediction (§5.1), Monte Carlo ES (§5.3), on-policy control with an
ε-soft policy (§5.4), off-policy prediction by ordinary and weighted importance sampling (§5.5,
§5.6, incremental form of the box on p. 110) and off-policy control (§5.7).

The learner learns at ``PostEpisodeStage`` from the episode just finished. Going backwards from
``T − 1`` with ``G ← γ G + R_{t+1}``:

* no sampling (on-policy): ``X(S_t[, A_t]) ← X + α (G − X)``;
* ordinary importance sampling: ``X ← X + α (ρ G − X)`` with ``α = 1/n`` (``InvDecay``) the
  sample average of ``ρ G`` over all ``n`` visits;
* weighted importance sampling: ``C ← C + ρ``, ``X ← X + (ρ / C)(G − X)``.

For state values ``ρ = ρ_{t:T−1} = Π_{k=t}^{T−1} π(A_k|S_k) / b(A_k|S_k)``; for action values
the first action is given, so ``ρ = ρ_{t+1:T−1}``. With ``target_policy=None`` and a behaviour
policy the target is greedy with respect to Q (off-policy control, §5.7): the backward pass stops
at the first action the greedy policy would not take. Under ``FULL_ACTION_SET`` the greedy target
takes the argmax over the *legal* actions of each state only (as :class:`TDLearner` does); the
legal-action masks are read from the trajectory's ``legal_actions_mask`` trace, so record one
(e.g. ``Trajectory(state=VectorBuffer(), ..., legal_actions_mask=VectorBuffer())``).

The step size of the no-sampling and ordinary cases lives in the approximator:
``alpha=InvDecay()`` gives sample averages.

After learning from an episode the learner empties the trajectory (as ReinforcementLearning.jl's
Monte Carlo learner does), so memory stays bounded over millions of episodes; use a
``VectorSARTTrajectory()``.

Example, first-visit prediction of Figure 5.1's policy (stick on 20 or 21)::

    >>> from rlcore import (Agent, InvDecay, StopAfterEpisode, VBasedPolicy,
    ...                     VectorSARTTrajectory, run)
    >>> from rlenvs.blackjack import BlackjackEnv
    >>> learner = MonteCarloLearner(TabularVApproximator(n_state=201, alpha=InvDecay()))
    >>> stick_on_20 = lambda env, learner: int(BlackjackEnv.decode(env.state())[0] < 20)
    >>> _ = run(Agent(VBasedPolicy(learner, stick_on_20), VectorSARTTrajectory()),
    ...         BlackjackEnv(seed=0), StopAfterEpisode(1000))
    >>> learner.approximator(BlackjackEnv.encode(21, 5, False)) > 0.5
    True
"""

import attrs
import numpy as np

from rlcore.approximators import TabularQApproximator, TabularVApproximator
from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.envs.traits import FullActionSet
from rlcore.policies.base import AbstractLearner
from rlcore.stages import PostEpisodeStage, PreEpisodeStage
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.utils.validators import one_of, real_in

__all__ = ["MonteCarloLearner"]

_KINDS = ("FIRST_VISIT", "EVERY_VISIT")
_SAMPLINGS = ("NO_SAMPLING", "ORDINARY", "WEIGHTED")


def _probs(policy, s):
    """``π(· | s)`` of a ``TabularPolicy``-like object or a ``(n_states, n_actions)`` array."""
    if hasattr(policy, "probs"):
        return policy.probs(s)
    return np.asarray(policy)[s]


@attrs.define
class MonteCarloLearner(AbstractLearner):
    """Tabular Monte Carlo learner (chapter 5).

    Keyword arguments:
        approximator: ``TabularVApproximator`` (prediction of ``v``) or
            ``TabularQApproximator`` (prediction or control of ``q``); use
            ``alpha=InvDecay()`` for sample averages.
        kind: ``"FIRST_VISIT"`` (default) or ``"EVERY_VISIT"``.
        sampling: ``"NO_SAMPLING"`` (on-policy, default), ``"ORDINARY"`` or ``"WEIGHTED"``
            importance sampling.
        gamma: discount factor in [0, 1], default 1.0.
        target_policy: π for off-policy learning (``TabularPolicy`` or array of
            probabilities); ``None`` with importance sampling means greedy in Q (control).
        behavior_policy: b, required with importance sampling.

    ``learner(env)`` returns V(s) or the row Q(s, ·). ``C`` holds the cumulative weights of
    weighted importance sampling.
    """

    approximator: object
    kind: str = attrs.field(default="FIRST_VISIT", validator=one_of(*_KINDS))
    sampling: str = attrs.field(default="NO_SAMPLING", validator=one_of(*_SAMPLINGS))
    gamma: float = attrs.field(default=1.0, validator=real_in(0, 1))
    target_policy: object = None
    behavior_policy: object = None
    C: np.ndarray = attrs.field(init=False, repr=False, default=None)
    episode_start: int = attrs.field(init=False, default=0)

    def __attrs_post_init__(self):
        if not isinstance(self.approximator, (TabularVApproximator, TabularQApproximator)):
            raise TypeError(f"approximator must be a TabularVApproximator or "
                            f"TabularQApproximator, got {type(self.approximator).__name__}")
        if self.sampling != "NO_SAMPLING" and self.behavior_policy is None:
            raise ValueError(f"sampling={self.sampling!r} needs behavior_policy")
        if self.sampling == "NO_SAMPLING" and (self.target_policy is not None
                                               or self.behavior_policy is not None):
            raise ValueError("target_policy and behavior_policy are used only with importance "
                             "sampling (sampling='ORDINARY' or 'WEIGHTED'); with "
                             "sampling='NO_SAMPLING' the learner evaluates the policy that acts")
        for name in ("target_policy", "behavior_policy"):
            self._check_policy(name, getattr(self, name))
        if self.target_policy is None and self.sampling != "NO_SAMPLING" and not self.is_q:
            raise ValueError("off-policy control (target_policy=None) needs a "
                             "TabularQApproximator")
        self.C = np.zeros(self.approximator.table.shape)

    def _check_policy(self, name, policy):
        """A probability array must be ``(n_states, n_actions)`` with rows summing to 1 (or all
        zero: a terminal state, where no action is taken)."""
        if policy is None or hasattr(policy, "probs"):
            return
        array = np.asarray(policy, dtype=np.float64)
        n_states = self.approximator.table.shape[0]
        ok = array.ndim == 2 and array.shape[0] == n_states
        if ok and self.is_q:
            ok = array.shape[1] == self.approximator.table.shape[1]
        if not ok:
            want = (f"({n_states}, {self.approximator.table.shape[1]})" if self.is_q
                    else f"({n_states}, n_actions)")
            raise ValueError(f"{name} must be a TabularPolicy or an array of shape {want} "
                             f"(n_states, n_actions), got shape {array.shape}")
        sums = array.sum(axis=1)
        if (array < 0).any() or not np.all(np.isclose(sums, 1.0) | (sums == 0.0)):
            raise ValueError(f"{name} rows must be probability distributions (>= 0, sum 1; "
                             f"all zero for a terminal state)")

    @property
    def is_q(self):
        return isinstance(self.approximator, TabularQApproximator)

    def __call__(self, env):
        return self.approximator(env.state())

    def _target_prob(self, s, a, mask=None):
        if self.target_policy is not None:
            return float(_probs(self.target_policy, s)[a])
        row = self.approximator.table[s]  # greedy in Q, ties to the first maximum
        if mask is not None:  # FULL_ACTION_SET: the argmax runs over the legal actions only
            row = np.where(mask, row, -np.inf)
        return 1.0 if a == int(np.argmax(row)) else 0.0

    def _learn(self, index, ratio_weight, G):
        app = self.approximator
        value = float(app.table[index])
        if self.sampling == "WEIGHTED":
            if ratio_weight == 0.0:
                return
            self.C[index] += ratio_weight
            app.table[index] += ratio_weight / self.C[index] * (G - value)
        elif self.sampling == "ORDINARY":
            update(app, (*index, ratio_weight * G - value))
        else:
            update(app, (*index, G - value))


@dispatch(MonteCarloLearner, AbstractTrajectory, AbstractEnv, PreEpisodeStage)
def update(learner, trajectory, env, stage):
    # The recording rule ran first: the episode's steps start after what is stored now.
    learner.episode_start = len(trajectory["reward"])


@dispatch(MonteCarloLearner, AbstractTrajectory, AbstractEnv, PostEpisodeStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    n = len(trajectory["reward"]) - learner.episode_start
    if n <= 0:
        return
    states = [trajectory["state"][-n - 1 + i] for i in range(n)]  # the final state is last
    actions = [trajectory["action"][-n - 1 + i] for i in range(n)]
    rewards = [trajectory["reward"][-n + i] for i in range(n)]
    keys = [(int(s), int(a)) if learner.is_q else (int(s),) for s, a in zip(states, actions)]
    first = {}
    for t, key in enumerate(keys):
        first.setdefault(key, t)
    off_policy = learner.sampling != "NO_SAMPLING"
    control = off_policy and learner.target_policy is None
    masks = [None] * n
    if control and isinstance(env.ActionStyle, FullActionSet):
        if "legal_actions_mask" not in trajectory.traces:
            raise ValueError("off-policy Monte Carlo control on a FULL_ACTION_SET env needs the "
                             "legal actions of each state: record a 'legal_actions_mask' trace "
                             "in the trajectory")
        masks = [np.asarray(trajectory["legal_actions_mask"][-n - 1 + i], dtype=bool)
                 for i in range(n)]
    G, W = 0.0, 1.0  # W = ρ_{t+1:T−1}
    for t in range(n - 1, -1, -1):
        G = learner.gamma * G + float(rewards[t])
        s, a = int(states[t]), int(actions[t])
        ratio = 1.0
        if off_policy and not control:
            b = float(_probs(learner.behavior_policy, s)[a])
            ratio = learner._target_prob(s, a) / b
        weight = W if learner.is_q else W * ratio
        if learner.kind == "EVERY_VISIT" or first[keys[t]] == t:
            learner._learn(keys[t], weight, G)
        if control:
            if learner._target_prob(s, a, masks[t]) == 0.0:
                break  # the greedy target would not take A_t: earlier weights are 0
            ratio = 1.0 / float(_probs(learner.behavior_policy, s)[a])
        W *= ratio
        if W == 0.0 and learner.sampling == "WEIGHTED":
            break  # every earlier weight is 0 too
    trajectory.clear()
    learner.episode_start = 0

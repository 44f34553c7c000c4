"""One-step tabular temporal-difference learning: TD(0), Sarsa, Q-learning and Expected Sarsa.

Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), §6.1 (TD(0)), §6.4
(Sarsa), §6.5 (Q-learning), §6.6 (Expected Sarsa). With step size α and discount γ:

* TD(0):          V(S) ← V(S) + α [R + γ V(S') − V(S)]
* Sarsa:          Q(S,A) ← Q(S,A) + α [R + γ Q(S',A') − Q(S,A)]
* Q-learning:     Q(S,A) ← Q(S,A) + α [R + γ max_a Q(S',a) − Q(S,A)]
* Expected Sarsa: Q(S,A) ← Q(S,A) + α [R + γ Σ_a π(a|S') Q(S',a) − Q(S,A)], with π given by
  ``target_explorer.prob`` (pass the behaviour policy's explorer for on-policy Expected Sarsa)

Under ``FULL_ACTION_SET`` the max and the expectation run over the legal actions of S'.

The bootstrap term is dropped when S' is terminal and kept when the episode was only truncated
(a time limit), so the estimates stay those of the untruncated task. The step size lives in the
approximator (``TabularVApproximator(alpha=...)`` / ``TabularQApproximator(alpha=...)``).

TD(0) and Q-learning learn at ``PostActStage`` from the last recorded step and ``env.state()``;
Sarsa needs A', so it learns the previous step at ``PreActStage`` (and a terminal step at once).
States are integers, so use a trajectory that keeps them, e.g. ``VectorSARTTrajectory()``.
Sarsa has no A' after a truncated step, so it leaves that step unlearned.
"""

import attrs
import numpy as np

from rlcore.approximators import TabularQApproximator, TabularVApproximator
from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.envs.traits import FullActionSet
from rlcore.policies.base import AbstractLearner
from rlcore.stages import PostActStage, PreActStage
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.utils.validators import one_of, real_in

__all__ = ["TDLearner"]

_METHODS = {"TD0": TabularVApproximator, "SARSA": TabularQApproximator,
            "Q": TabularQApproximator, "EXPECTED_SARSA": TabularQApproximator}


@attrs.define
class TDLearner(AbstractLearner):
    """Tabular one-step TD learner.

    Keyword arguments:
        approximator: a ``TabularVApproximator`` for ``method="TD0"``, a
            ``TabularQApproximator`` for ``"SARSA"``, ``"Q"`` and ``"EXPECTED_SARSA"``.
        method: ``"TD0"`` (state values), ``"SARSA"``, ``"Q"`` (Q-learning) or
            ``"EXPECTED_SARSA"``. Default "SARSA".
        gamma: discount factor in [0, 1], default 1.0.
        target_explorer: for ``"EXPECTED_SARSA"``, the explorer whose ``prob(values[, mask])``
            is the target policy π (e.g. the ``EpsilonGreedyExplorer`` the agent acts with).

    ``learner(env)`` returns V(s) or the row Q(s, ·) for the current state.
    """

    approximator: object
    method: str = attrs.field(default="SARSA", validator=one_of(*_METHODS))
    gamma: float = attrs.field(default=1.0, validator=real_in(0, 1))
    target_explorer: object = None

    def __attrs_post_init__(self):
        expected = _METHODS[self.method]
        if not isinstance(self.approximator, expected):
            raise TypeError(f"method {self.method!r} needs a {expected.__name__}, "
                            f"got {type(self.approximator).__name__}")
        if self.method == "EXPECTED_SARSA" and not hasattr(self.target_explorer, "prob"):
            raise ValueError(f"method 'EXPECTED_SARSA' needs target_explorer (an explorer with "
                             f"prob), got {self.target_explorer!r}")

    def __call__(self, env):
        return self.approximator(env.state())


def _bootstrap(learner, next_state, next_action=None, mask=None):
    """γ times the value of ``next_state`` under the learner's method.

    ``mask``: the legal actions of ``next_state`` (``FULL_ACTION_SET``), else ``None``.
    """
    q = learner.approximator
    if learner.method == "TD0":
        return learner.gamma * q(next_state)
    if learner.method == "Q":
        values = q(next_state)
        return learner.gamma * float(values.max() if mask is None else values[mask].max())
    if learner.method == "EXPECTED_SARSA":
        values = q(next_state)
        probs = learner.target_explorer.prob(values) if mask is None \
            else learner.target_explorer.prob(values, mask)
        return learner.gamma * float(np.dot(probs, values))
    return learner.gamma * float(q(next_state, next_action))


def next_mask(env):
    """The legal actions of the env's current state under ``FULL_ACTION_SET``, else ``None``."""
    if isinstance(env.ActionStyle, FullActionSet):
        mask = np.asarray(env.legal_action_space_mask(), dtype=bool)
        return mask if mask.any() else None
    return None


@dispatch(TDLearner, AbstractTrajectory, AbstractEnv, PostActStage)
def update(learner, trajectory, env, stage):
    if learner.method == "SARSA" and not env.is_terminated():
        return  # Sarsa waits for A' (next PreActStage)
    s = trajectory["state"][-1]
    r = trajectory["reward"][-1]
    target = r if env.is_terminated() else r + _bootstrap(learner, env.state(),
                                                          mask=next_mask(env))
    if learner.method == "TD0":
        update(learner.approximator, (s, target - learner.approximator(s)))
    else:
        a = trajectory["action"][-1]
        update(learner.approximator, (s, a, target - learner.approximator(s, a)))


@dispatch(TDLearner, AbstractTrajectory, AbstractEnv, PreActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    if learner.method != "SARSA":
        return
    states, rewards = trajectory["state"], trajectory["reward"]
    # After this step's (S', A') is recorded the previous step of the same episode is complete;
    # at an episode's first step the last recorded step is terminal (or a padding step).
    if len(rewards) == 0 or len(states) != len(rewards) + 1 or trajectory["terminal"][-1]:
        return
    s, a, r = states[-2], trajectory["action"][-2], rewards[-1]
    target = r + _bootstrap(learner, states[-1], trajectory["action"][-1])
    update(learner.approximator, (s, a, target - learner.approximator(s, a)))

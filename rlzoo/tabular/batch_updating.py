"""Batch updating of TD(0) and constant-α Monte Carlo prediction (Sutton & Barto §6.3).

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), §6.3 and
Figure 6.2. After each episode, all the experience seen so far is presented again and again:
the increments ``α [target − V(S_t)]`` of every step are summed over the whole batch and applied
together, until the summed errors ``Σ_t [target − V(S_t)]`` of every state are at most ``theta``
(so the stopping point does not depend on ``alpha``). TD(0) targets are
``R_{t+1} + γ V(S_{t+1})`` (0 past a terminal step); Monte Carlo targets are the returns ``G_t``.
Batch TD converges to the certainty-equivalence estimate, batch MC to the sample averages.

The learner reads all episodes from the trajectory (use ``VectorSARTTrajectory()``), so it keeps
the whole history, as batch updating requires.
"""

import attrs
import numpy as np

from rlcore.approximators import TabularVApproximator
from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.policies.base import AbstractLearner
from rlcore.stages import PostEpisodeStage
from rlcore.trajectories.base import AbstractTrajectory

__all__ = ["BatchUpdatingLearner"]


@attrs.define
class BatchUpdatingLearner(AbstractLearner):
    """Batch TD(0) or batch constant-α MC prediction of state values.

    Keyword arguments: ``approximator`` (a ``TabularVApproximator``; the step size is
    ``alpha`` here, not the approximator's), ``method="TD0"`` or ``"MC"``, ``alpha=0.001``,
    ``gamma=1.0``, ``theta=1e-3`` (bound on each state's summed error at convergence),
    ``max_passes=100_000``.
    """

    approximator: TabularVApproximator = attrs.field(
        validator=attrs.validators.instance_of(TabularVApproximator))
    method: str = "TD0"
    alpha: float = 0.001
    gamma: float = 1.0
    theta: float = 1e-3
    max_passes: int = 100_000

    def __attrs_post_init__(self):
        if self.method not in ("TD0", "MC"):
            raise ValueError(f"method must be 'TD0' or 'MC', got {self.method!r}")
        if not 0 < self.alpha <= 1:
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha!r}")
        if not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1], got {self.gamma!r}")

    def __call__(self, env):
        return self.approximator(env.state())


def _steps(trajectory, final_state):
    """Arrays ``(s, r, s_next, terminal)`` of every recorded step (the episode just ended last)."""
    n = len(trajectory["reward"])
    states = [int(trajectory["state"][i]) for i in range(n)]
    rewards = np.array([float(trajectory["reward"][i]) for i in range(n)])
    terminal = np.array([bool(trajectory["terminal"][i]) for i in range(n)])
    next_states = states[1:] + [int(final_state)]
    return np.array(states), rewards, np.array(next_states), terminal


def _returns(rewards, terminal, gamma):
    G, out = 0.0, np.zeros(len(rewards))
    for i in range(len(rewards) - 1, -1, -1):
        G = rewards[i] + (0.0 if terminal[i] else gamma * G)
        out[i] = G
    return out


@dispatch(BatchUpdatingLearner, AbstractTrajectory, AbstractEnv, PostEpisodeStage)
def update(learner, trajectory, env, stage):
    s, r, s_next, terminal = _steps(trajectory, env.state())
    V = learner.approximator.table
    returns = _returns(r, terminal, learner.gamma) if learner.method == "MC" else None
    for _ in range(learner.max_passes):
        if learner.method == "TD0":
            target = r + learner.gamma * np.where(terminal, 0.0, V[s_next])
        else:
            target = returns
        increments = np.zeros_like(V)
        np.add.at(increments, s, learner.alpha * (target - V[s]))
        V += increments
        if np.abs(increments).max() <= learner.theta * learner.alpha:
            return
    raise RuntimeError(f"batch updating did not converge in {learner.max_passes} passes")

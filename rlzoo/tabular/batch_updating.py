"""Batch updating of TD(0) and constant-α Monte Carlo prediction (Sutton & Barto §6.3).

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), §6.3 and
Figure 6.2. After each episode, all the experience seen so far is presented again and again:
the increments ``α [target − V(S_t)]`` of every step are summed over the whole batch and applied
together, until the summed errors ``Σ_t [target − V(S_t)]`` of every state are at most ``theta``
(so the stopping point does not depend on ``alpha``). TD(0) targets are
``R_{t+1} + γ V(S_{t+1})`` (0 past a terminal step); Monte Carlo targets are the returns ``G_t``.
Batch TD converges to the certainty-equivalence estimate, batch MC to the sample averages.

Padding steps (``terminal`` and ``truncated`` both set: the trajectory's closing of an episode cut
by a time limit, see :mod:`rlcore.trajectories.recording`) are not experience and are skipped;
the truncated step before one bootstraps from its true final state.

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
from rlcore.utils.validators import one_of, positive_int, real_in

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
    method: str = attrs.field(default="TD0", validator=one_of("TD0", "MC"))
    alpha: float = attrs.field(default=0.001, validator=real_in(0, 1, low_open=True))
    gamma: float = attrs.field(default=1.0, validator=real_in(0, 1))
    theta: float = attrs.field(default=1e-3, validator=real_in(0, float("inf"), low_open=True,
                                                                 high_open=True))
    max_passes: int = attrs.field(default=100_000, validator=positive_int)

    def __call__(self, env):
        return self.approximator(env.state())


def _steps(trajectory, final_state):
    """Arrays ``(s, r, s_next, terminal, padding)`` of every recorded step (the episode just
    ended last); ``padding`` marks the padding steps."""
    n = len(trajectory["reward"])
    states = [int(trajectory["state"][i]) for i in range(n)]
    rewards = np.array([float(trajectory["reward"][i]) for i in range(n)])
    terminal = np.array([bool(trajectory["terminal"][i]) for i in range(n)])
    next_states = states[1:] + [int(final_state)]
    if "truncated" in trajectory.traces:
        truncated = np.array([bool(trajectory["truncated"][i]) for i in range(n)], dtype=bool)
    else:
        truncated = np.zeros(n, dtype=bool)
    return (np.array(states, dtype=np.int64), rewards, np.array(next_states, dtype=np.int64),
            terminal, terminal & truncated)


def _returns(rewards, terminal, gamma):
    G, out = 0.0, np.zeros(len(rewards))
    for i in range(len(rewards) - 1, -1, -1):
        G = rewards[i] + (0.0 if terminal[i] else gamma * G)
        out[i] = G
    return out


@dispatch(BatchUpdatingLearner, AbstractTrajectory, AbstractEnv, PostEpisodeStage)
def update(learner, trajectory, env, stage):
    s, r, s_next, terminal, padding = _steps(trajectory, env.state())
    V = learner.approximator.table
    # Returns are computed over all steps (a padding step has reward 0 and ends its episode, so
    # a truncated episode's returns stop at the time limit), then padding is dropped.
    returns = _returns(r, terminal, learner.gamma)[~padding] if learner.method == "MC" else None
    s, r, s_next, terminal = s[~padding], r[~padding], s_next[~padding], terminal[~padding]
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

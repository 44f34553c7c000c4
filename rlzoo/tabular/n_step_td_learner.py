"""n-step TD prediction of state values.

Reference: Sutton & Barto, *Reinforcement Learning: An Introduction* (2nd ed., 2018), §7.1, the
box on p. 144, and Figure 7.2. With the n-step return

    G_{τ:τ+n} = R_{τ+1} + γ R_{τ+2} + … + γ^{n−1} R_{τ+n} + γ^n V(S_{τ+n})

(the last term dropped when the episode terminated before τ + n),
``V(S_τ) ← V(S_τ) + α [G_{τ:τ+n} − V(S_τ)]`` is applied once ``τ + n`` steps are known, at
``PostActStage``; at the end of an episode the remaining states are updated with the shorter
returns. A truncated episode bootstraps from the value of its last state.
"""

import attrs

from rlcore.approximators import TabularVApproximator
from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.policies.base import AbstractLearner
from rlcore.stages import PostActStage, PreEpisodeStage
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.utils.validators import positive_int, real_in

__all__ = ["NStepTDLearner"]


@attrs.define
class NStepTDLearner(AbstractLearner):
    """n-step TD prediction (§7.1).

    Keyword arguments: ``approximator`` (a ``TabularVApproximator``; its ``alpha`` is the step
    size), ``n=1`` (n = 1 is TD(0); a large n is Monte Carlo), ``gamma=1.0``.

    >>> learner = NStepTDLearner(TabularVApproximator(n_state=21, alpha=0.1), n=4)
    """

    approximator: TabularVApproximator = attrs.field(
        validator=attrs.validators.instance_of(TabularVApproximator))
    n: int = attrs.field(default=1, validator=positive_int)
    gamma: float = attrs.field(default=1.0, validator=real_in(0, 1))
    t: int = attrs.field(init=False, default=0)  # steps taken in the current episode

    def __call__(self, env):
        return self.approximator(env.state())

    def _update_last(self, trajectory, m, next_state, bootstrap):
        """Update S_{t−m}, …, S_{t−1} with their returns up to now (R_t the newest reward).

        ``bootstrap``: add the discounted V(S_t) (``next_state``). The returns are accumulated
        backwards, ``G_τ = R_{τ+1} + γ G_{τ+1}``, in O(m); S_{t−m} is updated with the full
        ``m``-step return, the later states (at an episode's end) with shorter ones.
        """
        V = self.approximator
        rewards = trajectory["reward"][-m:]
        states = trajectory["state"][-m:]
        G = V(next_state) if bootstrap else 0.0
        returns = []
        for r in reversed(rewards):
            G = r + self.gamma * G
            returns.append(G)
        returns.reverse()
        for s, G in zip(states, returns):
            update(V, (s, G - V(s)))


@dispatch(NStepTDLearner, AbstractTrajectory, AbstractEnv, PreEpisodeStage)
def update(learner, trajectory, env, stage):
    learner.t = 0


@dispatch(NStepTDLearner, AbstractTrajectory, AbstractEnv, PostActStage)
def update(learner, trajectory, env, stage):  # noqa: F811
    learner.t += 1
    t, n = learner.t, learner.n
    next_state = env.state()
    if env.is_terminated() or env.is_truncated():
        # every state not yet updated gets the return up to the end (bootstrapped if truncated)
        learner._update_last(trajectory, min(n, t), next_state, not env.is_terminated())
    elif t >= n:
        # only S_{t−n} has its n-step return: window of length n, the full-length return first
        _update_first(learner, trajectory, n, next_state)


def _update_first(learner, trajectory, n, next_state):
    """``V(S_{t−n}) ← V + α [G_{t−n:t} − V]`` with ``G = Σ γ^k R_{t−n+k+1} + γ^n V(S_t)``."""
    V = learner.approximator
    G = V(next_state)
    for r in reversed(trajectory["reward"][-n:]):
        G = r + learner.gamma * G
    s = trajectory["state"][-n]
    update(V, (s, G - V(s)))

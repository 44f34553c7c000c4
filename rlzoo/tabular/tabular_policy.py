"""A fixed stochastic policy given by a table of action probabilities, and exploring starts.

Reference: Sutton & Barto (2018), §5.3 (exploring starts), §5.5 (target and behaviour policies
``π(a|s)``, ``b(a|s)`` of off-policy prediction). States and actions are 0-based integers.
"""

import attrs
import numpy as np

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.envs.traits import FullActionSet
from rlcore.policies.base import AbstractPolicy
from rlcore.stages import AbstractStage, PreEpisodeStage
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.utils.random import make_rng

__all__ = ["TabularPolicy", "ExploringStartsPolicy"]


@attrs.define
class TabularPolicy(AbstractPolicy):
    """Acts by sampling ``a`` with probability ``table[s, a]`` in state ``s = env.state()``.

    ``prob(env)`` is the row of the current state; ``probs(s)`` the row of ``s``. Rows of
    states where the policy never acts (terminal states) may be zero. Keyword arguments:
    ``table`` (shape ``(n_states, n_actions)``), ``rng``/``seed``.

    >>> pi = TabularPolicy(np.array([[0.0, 1.0], [0.5, 0.5]]), seed=0)
    >>> pi.probs(0).tolist()
    [0.0, 1.0]
    """

    table: np.ndarray = attrs.field(converter=lambda t: np.array(t, dtype=np.float64))
    rng: object = attrs.field(default=None, repr=False)
    seed: object = None

    @table.validator
    def _check(self, attribute, value):
        sums = value.sum(axis=1) if value.ndim == 2 else None
        if value.ndim != 2 or (value < 0).any() or \
                not np.all(np.isclose(sums, 1.0) | np.isclose(sums, 0.0)):
            raise ValueError("table must be (n_states, n_actions) with rows of probabilities "
                             "(or all-zero rows for states never acted in)")

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)
        self._cumulative = np.cumsum(self.table, axis=1)

    def probs(self, s):
        """``π(· | s)``."""
        return self.table[s]

    def prob(self, env):
        return self.table[env.state()]

    def __call__(self, env):
        s = env.state()
        row = self._cumulative[s]
        if row[-1] <= 0:
            raise ValueError(f"TabularPolicy has no action probabilities for state {s!r}")
        return int(min(np.searchsorted(row, self.rng.random() * row[-1], side="right"),
                       len(row) - 1))


@attrs.define
class ExploringStartsPolicy(AbstractPolicy):
    """Takes a uniformly random (legal) first action in every episode, then acts as ``policy``.

    With an environment that starts episodes in random states (e.g.
    ``BlackjackEnv(exploring_starts=True)``) this gives the exploring starts of Monte Carlo ES
    (§5.3). Learning rules are forwarded to ``policy``. Keyword arguments: ``policy``,
    ``rng``/``seed``.
    """

    policy: AbstractPolicy = attrs.field(validator=attrs.validators.instance_of(AbstractPolicy))
    rng: object = attrs.field(default=None, repr=False)
    seed: object = None
    is_first: bool = True

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def __call__(self, env):
        if not self.is_first:
            return self.policy(env)
        self.is_first = False
        if isinstance(env.ActionStyle, FullActionSet):
            legal = np.flatnonzero(env.legal_action_space_mask())
            return int(legal[self.rng.integers(len(legal))])
        return int(self.rng.integers(env.action_space().n))


@dispatch(ExploringStartsPolicy, AbstractTrajectory, AbstractEnv, AbstractStage)
def update(policy, trajectory, env, stage):
    update(policy.policy, trajectory, env, stage)


@dispatch(ExploringStartsPolicy, AbstractTrajectory, AbstractEnv, PreEpisodeStage)
def update(policy, trajectory, env, stage):  # noqa: F811
    policy.is_first = True
    update(policy.policy, trajectory, env, stage)


@dispatch(ExploringStartsPolicy, AbstractEnv, PreEpisodeStage)
def update(policy, env, stage):  # noqa: F811
    """Without an ``Agent`` the run loop calls this rule: a new episode starts exploring."""
    policy.is_first = True

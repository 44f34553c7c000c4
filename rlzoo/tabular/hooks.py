"""A hook for learning curves of tabular experiments.

Reference: the learning curves of Sutton & Barto (2018), e.g. Example 6.2's RMS error after each
episode, Figure 5.3's squared error, Figure 5.4's estimate per episode.
"""

import attrs

from rlcore.dispatch import dispatch
from rlcore.hooks import AbstractHook, on_stage
from rlcore.stages import PostEpisodeStage

__all__ = ["RecordPerEpisode"]


@attrs.define
class RecordPerEpisode(AbstractHook):
    """Appends ``f(policy, env)`` to ``values`` at the end of every episode.

    Keyword arguments: ``f`` (a function of the policy and the environment). Unlike
    ``DoEveryNEpisode`` it keeps the results, so a runner can read the curve from the hook.

    >>> from rlcore import RandomPolicy, run, StopAfterEpisode
    >>> from rlenvs import RandomWalk1D
    >>> hook = run(RandomPolicy(seed=0), RandomWalk1D(), StopAfterEpisode(3),
    ...            RecordPerEpisode(lambda policy, env: env.state()))
    >>> all(v in (0, 6) for v in hook.values), len(hook.values)
    (True, 3)
    """

    f: object = attrs.field()
    values: list = attrs.field(factory=list)

    @f.validator
    def _check(self, attribute, value):
        if not callable(value):
            raise TypeError(f"f must be callable as f(policy, env), got {value!r}")


@dispatch(RecordPerEpisode, PostEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):
    hook.values.append(hook.f(policy, env))

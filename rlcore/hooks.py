"""Hooks: small objects that observe the stages of a run (docs/architecture.md §3).

A hook is called by the run loop as ``hook(stage, policy, env)`` (``hook(stage, policy, env,
action)`` at ``PreActStage``). What it does at a stage is a rule of the generic ``on_stage``::

    @attrs.define
    class CountEpisodes(AbstractHook):
        n: int = 0

    @dispatch(CountEpisodes, PostEpisodeStage, object, object)
    def on_stage(hook, stage, policy, env):
        hook.n += 1

Hooks compose: ``hook_a + hook_b`` is a :class:`ComposedHook` that calls both in order.
Functions given to :class:`DoEveryNStep` and :class:`DoEveryNEpisode` receive ``(t, policy, env)``
as in ReinforcementLearning.jl, where ``t`` counts steps or episodes from 1.
"""

import time

import attrs

from rlcore.dispatch import dispatch, generic
from rlcore.stages import (
    POST_EPISODE_STAGE, AbstractStage, PostActStage, PostEpisodeStage, PostExperimentStage,
    PreActStage, PreEpisodeStage,
)

__all__ = [
    "AbstractHook", "on_stage", "EmptyHook", "ComposedHook", "StepsPerEpisode",
    "RewardsPerEpisode", "TotalRewardPerEpisode", "TimePerStep", "DoEveryNStep",
    "DoEveryNEpisode", "DoOnExit",
]

on_stage = generic("on_stage", doc="``on_stage(hook, stage, policy, env[, action])``: what a hook "
                                   "does at a stage; the default does nothing.")


class AbstractHook:
    """Base class of hooks; ``hook(stage, policy, env[, action])`` calls ``on_stage``."""

    def __call__(self, stage, policy, env, *action):
        on_stage(self, stage, policy, env, *action)

    def __add__(self, other):
        if not isinstance(other, AbstractHook):
            return NotImplemented
        return ComposedHook(self, other)


@dispatch(AbstractHook, AbstractStage, object, object)
def on_stage(hook, stage, policy, env):
    """Default: a hook ignores the stages it has no rule for."""


@dispatch(AbstractHook, PreActStage, object, object, object)
def on_stage(hook, stage, policy, env, action):  # noqa: F811
    """Default: a hook ignores ``PreActStage``."""


@attrs.define
class EmptyHook(AbstractHook):
    """A hook that does nothing (the default of ``run``)."""

    def __call__(self, stage, policy, env, *action):
        pass


class ComposedHook(AbstractHook):
    """Calls each of ``hooks`` in order: ``ComposedHook(a, b)`` or ``a + b``.

    >>> hook = StepsPerEpisode() + TotalRewardPerEpisode()
    >>> hook[1]
    TotalRewardPerEpisode(rewards=[], reward=0.0, display_on_exit=False)
    """

    def __init__(self, *hooks):
        for h in hooks:
            if not callable(h):
                raise TypeError(f"ComposedHook takes hooks, got {h!r}")
        flat = []
        for h in hooks:
            flat.extend(h.hooks if isinstance(h, ComposedHook) else (h,))
        self.hooks = tuple(flat)

    def __call__(self, stage, policy, env, *action):
        for h in self.hooks:
            h(stage, policy, env, *action)

    def __getitem__(self, i):
        return self.hooks[i]

    def __len__(self):
        return len(self.hooks)

    def __repr__(self):
        return "ComposedHook(" + ", ".join(map(repr, self.hooks)) + ")"


@attrs.define
class StepsPerEpisode(AbstractHook):
    """Records the number of steps of each finished episode in ``steps``; ``count`` is the
    number of steps of the current episode so far."""

    steps: list = attrs.field(factory=list)
    count: int = 0


@dispatch(StepsPerEpisode, PreEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.count = 0  # an episode cut by the end of an earlier run is not continued


@dispatch(StepsPerEpisode, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.count += 1


@dispatch(StepsPerEpisode, PostEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.steps.append(hook.count)
    hook.count = 0


@attrs.define
class RewardsPerEpisode(AbstractHook):
    """Records every reward of each episode: ``rewards[i]`` is the list of episode ``i``'s rewards.

    The current (possibly unfinished) episode is the last list.
    """

    rewards: list = attrs.field(factory=list)


@dispatch(RewardsPerEpisode, PreEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.rewards.append([])


@dispatch(RewardsPerEpisode, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.rewards[-1].append(env.reward())


@attrs.define
class TotalRewardPerEpisode(AbstractHook):
    """Records the undiscounted return of each finished episode in ``rewards``; ``reward`` is the
    return of the current episode so far (complete when a stop condition sees the episode end).

    With ``display_on_exit=True`` it prints a one-line summary when the experiment ends.
    """

    rewards: list = attrs.field(factory=list)
    reward: float = 0.0
    display_on_exit: bool = False


@dispatch(TotalRewardPerEpisode, PreEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.reward = 0.0  # an episode cut by the end of an earlier run is not continued


@dispatch(TotalRewardPerEpisode, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.reward += env.reward()


@dispatch(TotalRewardPerEpisode, PostEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.rewards.append(hook.reward)
    hook.reward = 0.0


@dispatch(TotalRewardPerEpisode, PostExperimentStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    if hook.display_on_exit and hook.rewards:
        n = len(hook.rewards)
        last = hook.rewards[-100:]
        print(f"{n} episodes; mean return {sum(hook.rewards) / n:.3f}; "
              f"mean of the last {len(last)}: {sum(last) / len(last):.3f}")


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated at construction; counters are hot
class TimePerStep(AbstractHook):
    """Keeps the wall time in seconds between consecutive ``PostActStage``\\ s (the last
    ``max_steps`` of them) in ``times``; ``mean()`` is their average."""

    max_steps: int = attrs.field(default=100)
    times: list = attrs.field(factory=list)
    t: float = attrs.field(factory=time.perf_counter, repr=False)

    @max_steps.validator
    def _check(self, attribute, value):
        if value < 1:
            raise ValueError(f"max_steps must be >= 1, got {value}")

    def mean(self):
        """The mean time per step over the recorded window (``nan`` if empty)."""
        return sum(self.times) / len(self.times) if self.times else float("nan")


@dispatch(TimePerStep, PreEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.t = time.perf_counter()


@dispatch(TimePerStep, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    now = time.perf_counter()
    hook.times.append(now - hook.t)
    if len(hook.times) > hook.max_steps:
        del hook.times[0]
    hook.t = now


def _positive(instance, attribute, value):
    if not isinstance(value, int) or value < 1:
        raise ValueError(f"{attribute.name} must be a positive int, got {value!r}")


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated at construction; counters are hot
class DoEveryNStep(AbstractHook):
    """Calls ``f(t, policy, env)`` after every ``n``-th step; ``t`` is the total step count."""

    f: object
    n: int = attrs.field(default=1, validator=_positive)
    t: int = 0


@dispatch(DoEveryNStep, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.t += 1
    if hook.t % hook.n == 0:
        hook.f(hook.t, policy, env)


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated at construction; counters are hot
class DoEveryNEpisode(AbstractHook):
    """Calls ``f(t, policy, env)`` at ``stage`` of every ``n``-th episode; ``t`` counts episodes.

    ``stage`` is ``POST_EPISODE_STAGE`` (default) or ``PRE_EPISODE_STAGE``.
    """

    f: object
    n: int = attrs.field(default=1, validator=_positive)
    stage: AbstractStage = attrs.field(default=POST_EPISODE_STAGE)
    t: int = 0

    @stage.validator
    def _check_stage(self, attribute, value):
        if not isinstance(value, (PreEpisodeStage, PostEpisodeStage)):
            raise ValueError(f"stage must be PRE_EPISODE_STAGE or POST_EPISODE_STAGE, got {value!r}")


@dispatch(DoEveryNEpisode, PreEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    if isinstance(hook.stage, PreEpisodeStage):
        _do_episode(hook, policy, env)


@dispatch(DoEveryNEpisode, PostEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    if isinstance(hook.stage, PostEpisodeStage):
        _do_episode(hook, policy, env)


def _do_episode(hook, policy, env):
    hook.t += 1
    if hook.t % hook.n == 0:
        hook.f(hook.t, policy, env)


@attrs.define
class DoOnExit(AbstractHook):
    """Calls ``f(policy, env)`` once, when the experiment ends."""

    f: object


@dispatch(DoOnExit, PostExperimentStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.f(policy, env)

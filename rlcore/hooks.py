"""Hooks: small objects that observe the stages of a run (DESIGN.md §3, STYLE.md 5).

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

import numbers
import sys
import time

import attrs

from rlcore.dispatch import dispatch, generic
from rlcore.stages import (
    POST_EPISODE_STAGE, AbstractStage, PostActStage, PostEpisodeStage, PostExperimentStage,
    PreActStage, PreEpisodeStage, PreExperimentStage,
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


def _int_count(value):
    """A numpy int as a Python int (the stop conditions take Python ints); anything else as is."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return value


def _optional_count(instance, attribute, value):
    """``None`` or an int >= 1 (numpy ints too; a bool is not a count)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{attribute.name} must be a positive int or None, got {value!r} "
                         f"({type(value).__name__})")


def _probability(instance, attribute, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{attribute.name} must be a number in [0, 1], got {value!r}")


@attrs.define
class EvaluateEveryNStep(AbstractHook):
    """Every ``n`` training steps, runs the policy in test mode on its own ``env`` with its own
    ``run`` and records the mean return of the evaluation episodes.

    The RL.jl way of evaluating: ``DoEveryNStep((t, agent, env) -> run(agent.policy, test_env,
    StopAfterEpisode(n), TotalRewardPerEpisode()))`` inside ``testmode``. An ``Agent``'s inner
    policy is run, so evaluation never writes into the agent's trajectory; explorers are greedy
    and torch modules in eval mode during it. ``steps[i]`` is the training step of the ``i``-th
    evaluation, ``returns[i]`` its mean return, ``episodes[i]`` the number of episodes it
    averaged, ``seconds`` the wall time spent evaluating (so callers can subtract it from
    training time); ``verbose=True`` prints each result.

    Dopamine's protocol (Castro et al. 2018, https://arxiv.org/abs/1812.06110; the convention of
    Machado et al. 2018) is ``n_steps=125_000, epsilon=0.001``: with ``n_steps`` set, an
    evaluation starts episodes while fewer than ``n_steps`` steps have been taken and runs each
    to its end (so at least one episode, and at least ``n_steps`` steps), and averages all of
    them. Give ``n_episodes`` or ``n_steps``, not both (a ``ValueError`` otherwise); with neither,
    ``n_episodes`` becomes 10. With ``epsilon > 0`` the policy acts ε-greedily: it must have an
    ``explorer`` (e.g. a ``QBasedPolicy``; checked when the experiment starts, before any
    training step), which is replaced, in a copy of the policy used only for evaluation, by the
    hook's own constant-ε ``EpsilonGreedyExplorer`` drawing from the hook's ``rng``; the training
    explorer's step, schedule and random numbers are untouched, so a training run is the same
    with and without evaluations (for learners whose action values draw no random numbers, or
    draw them in test mode from a generator of their own, as ``IQNLearner`` does). With
    ``epsilon=0`` the policy's own explorers act greedily in test mode, as in RL.jl.

    Keyword arguments: ``env`` (required, not the training env), ``n=1000``,
    ``n_episodes=None`` (an int >= 1; 10 when ``n_steps`` is not given), ``verbose=False``;
    keyword only: ``n_steps=None`` (an int >= 1 for a step budget), ``epsilon=0.0`` (in
    [0, 1]), ``rng`` (a ``numpy.random.Generator``) or ``seed`` for the evaluation explorer.

    >>> from rlcore import RandomPolicy, StopAfterStep, run
    >>> from rlenvs import RandomWalk1D
    >>> hook = run(RandomPolicy(seed=0), RandomWalk1D(), StopAfterStep(20),
    ...            EvaluateEveryNStep(RandomWalk1D(), n=10, n_episodes=2))
    >>> hook.steps, hook.episodes
    ([10, 20], [2, 2])
    """

    env: object
    n: int = attrs.field(default=1000, validator=_positive)
    n_episodes: object = attrs.field(default=None, converter=_int_count,
                                     validator=_optional_count)
    verbose: bool = False
    steps: list = attrs.field(factory=list)
    returns: list = attrs.field(factory=list)
    seconds: float = 0.0
    t: int = 0
    n_steps: object = attrs.field(default=None, converter=_int_count,
                                  validator=_optional_count, kw_only=True)
    epsilon: float = attrs.field(default=0.0, validator=_probability, kw_only=True)
    rng: object = attrs.field(default=None, repr=False, kw_only=True)
    seed: object = attrs.field(default=None, kw_only=True)
    episodes: list = attrs.field(factory=list, kw_only=True)

    def __attrs_post_init__(self):
        from rlcore.utils.random import make_rng

        if self.n_episodes is not None and self.n_steps is not None:
            raise ValueError(f"EvaluateEveryNStep: give n_episodes (a number of episodes) or "
                             f"n_steps (a step budget of whole episodes), not both; got "
                             f"n_episodes={self.n_episodes!r}, n_steps={self.n_steps!r}")
        if self.n_steps is None and self.n_episodes is None:
            self.n_episodes = 10
        self.rng = make_rng(self.rng, self.seed)

    def evaluate(self, policy):
        """Run ``policy`` (an ``Agent``'s inner policy) in test mode; return the mean return
        (the number of episodes it averaged is appended to ``episodes``)."""
        from rlcore.policies.agent import Agent
        from rlcore.policies.mode import testmode
        from rlcore.run import run
        from rlcore.stop_conditions import (
            ComposedStopCondition, StopAfterEpisode, StopAfterStep, StopWhenDone,
        )

        inner = policy.policy if isinstance(policy, Agent) else policy
        if self.n_steps is None:
            stop = StopAfterEpisode(self.n_episodes)
        else:  # the first episode end at or after n_steps steps
            stop = ComposedStopCondition(StopAfterStep(self.n_steps), StopWhenDone(),
                                         reducer=all)
        start = time.perf_counter()
        with testmode(inner):
            acting = inner if self.epsilon == 0.0 else self._epsilon_greedy(inner)
            totals = run(acting, self.env, stop, TotalRewardPerEpisode()).rewards
        self.seconds += time.perf_counter() - start
        self.episodes.append(len(totals))
        return sum(totals) / len(totals)

    def check_policy(self, policy):
        """Raise a ``ValueError`` if ``policy`` (or an ``Agent``'s inner policy) cannot be
        evaluated: with ``epsilon > 0`` it needs an ``explorer`` field."""
        from rlcore.policies.agent import Agent

        inner = policy.policy if isinstance(policy, Agent) else policy
        if self.epsilon != 0.0 and (getattr(inner, "explorer", None) is None
                                    or not attrs.has(type(inner))):
            raise ValueError(f"EvaluateEveryNStep with epsilon={self.epsilon} needs a policy with "
                             f"an explorer field (e.g. QBasedPolicy), got "
                             f"{type(inner).__name__}")
        return inner

    def _epsilon_greedy(self, inner):
        """A copy of ``inner`` acting through a constant-ε explorer of the hook's ``rng``."""
        from rlcore.explorers.epsilon_greedy_explorer import EpsilonGreedyExplorer

        explorer = self.check_policy(inner).explorer
        evaluation_explorer = EpsilonGreedyExplorer(
            epsilon_stable=self.epsilon, epsilon_init=self.epsilon,
            is_break_tie=getattr(explorer, "is_break_tie", True), rng=self.rng)
        return attrs.evolve(inner, explorer=evaluation_explorer)


@dispatch(EvaluateEveryNStep, PreExperimentStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    """Check the policy before any training step, not at the first evaluation."""
    hook.check_policy(policy)


@dispatch(EvaluateEveryNStep, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.t += 1
    if hook.t % hook.n == 0:
        mean = hook.evaluate(policy)
        hook.steps.append(hook.t)
        hook.returns.append(mean)
        if hook.verbose:  # above a progress bar, which tqdm redraws below it
            from tqdm.auto import tqdm

            tqdm.write(f"step {hook.t}: mean return {mean:.2f} over {hook.episodes[-1]} test "
                       f"episodes")
            sys.stdout.flush()  # tqdm.write does not: a log file gets each line at once


__all__.append("EvaluateEveryNStep")

"""``EvaluateEveryNStep``: evaluate the policy in test mode every ``n`` env steps of training.

The RL.jl way of evaluating, as a hook around ``run`` (docs/architecture.md §3: evaluation is
a hook, not code inside the loop): ``DoEveryNStep((t, agent, env) -> run(agent.policy, test_env,
StopAfterEpisode(n), TotalRewardPerEpisode()))`` inside ``testmode``. The steps are env steps:
a vectorised environment of ``n_envs(env)`` sub-environments advances the count by that many
per batched step.
"""

import numbers
import sys
import time

import attrs
from tqdm.auto import tqdm

from rlcore.dispatch import dispatch
from rlcore.envs.base import n_envs
from rlcore.explorers.epsilon_greedy_explorer import EpsilonGreedyExplorer
from rlcore.hooks import AbstractHook, TotalRewardPerEpisode, on_stage
from rlcore.policies.agent import Agent
from rlcore.policies.mode import testmode
from rlcore.run import run
from rlcore.stages import PostActStage, PreExperimentStage
from rlcore.stop_conditions import (
    ComposedStopCondition, StopAfterEpisode, StopAfterStep, StopWhenDone,
)
from rlcore.utils.random import make_rng

__all__ = ["EvaluateEveryNStep"]


def _positive(instance, attribute, value):
    if not isinstance(value, int) or value < 1:
        raise ValueError(f"{attribute.name} must be a positive int, got {value!r}")


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
    """Every ``n`` env steps of training, runs the policy in test mode on its own ``env`` with
    its own ``run`` and records the mean return of the evaluation episodes.

    The RL.jl way of evaluating: ``DoEveryNStep((t, agent, env) -> run(agent.policy, test_env,
    StopAfterEpisode(n), TotalRewardPerEpisode()))`` inside ``testmode``. An ``Agent``'s inner
    policy is run, so evaluation never writes into the agent's trajectory; explorers are greedy
    and torch modules in eval mode during it. ``steps[i]`` is the env step count at the ``i``-th
    evaluation (a vector env of ``k`` sub-envs counts ``k`` per batched step, and evaluates
    after the batched step whose count passed a multiple of ``n``: 12 for ``n=10``, ``k=4``),
    ``returns[i]`` its mean return, ``episodes[i]`` the number of episodes it averaged,
    ``seconds`` the wall time spent evaluating (so callers can subtract it from training time);
    ``verbose=True`` prints each result.

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
    [0, 1]), ``rng`` (a ``numpy.random.Generator``) or ``seed`` for the evaluation explorer,
    ``progress=False`` (``True``: a progress bar over each evaluation's episodes or steps, for
    long evaluations).

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
    progress: bool = attrs.field(default=False, kw_only=True)

    def __attrs_post_init__(self):
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
        inner = policy.policy if isinstance(policy, Agent) else policy
        if self.n_steps is None:
            stop = StopAfterEpisode(self.n_episodes, progress=self.progress)
        else:  # the first episode end at or after n_steps steps
            stop = ComposedStopCondition(StopAfterStep(self.n_steps, progress=self.progress),
                                         StopWhenDone(), reducer=all)
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
        inner = policy.policy if isinstance(policy, Agent) else policy
        if self.epsilon != 0.0 and (getattr(inner, "explorer", None) is None
                                    or not attrs.has(type(inner))):
            raise ValueError(f"EvaluateEveryNStep with epsilon={self.epsilon} needs a policy with "
                             f"an explorer field (e.g. QBasedPolicy), got "
                             f"{type(inner).__name__}")
        return inner

    def _epsilon_greedy(self, inner):
        """A copy of ``inner`` acting through a constant-ε explorer of the hook's ``rng``."""
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
    before = hook.t
    hook.t += n_envs(env)
    if hook.t // hook.n > before // hook.n:  # the count passed a multiple of n
        mean = hook.evaluate(policy)
        hook.steps.append(hook.t)
        hook.returns.append(mean)
        if hook.verbose:  # above a progress bar, which tqdm redraws below it
            tqdm.write(f"step {hook.t}: mean return {mean:.2f} over {hook.episodes[-1]} test "
                       f"episodes")
            sys.stdout.flush()  # tqdm.write does not: a log file gets each line at once


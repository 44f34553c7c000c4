"""Stop conditions: ``stop_condition(policy, env) -> bool``, asked after every step.

The run loop asks after each ``PostActStage``; when the answer is ``True`` the run ends (the
episode's ``PostEpisodeStage`` still fires if that step ended the episode).

>>> from rlcore.stop_conditions import StopAfterStep, StopAfterEpisode, ComposedStopCondition
>>> stop = ComposedStopCondition(StopAfterStep(10_000), StopAfterEpisode(100), reducer=any)
"""

import threading
import time

import attrs

__all__ = [
    "AbstractStopCondition", "StopAfterStep", "StopAfterEpisode", "StopWhenDone",
    "ComposedStopCondition", "StopSignal", "StopAfterNoImprovement", "StopAfterNSeconds",
]


class AbstractStopCondition:
    """Base class of stop conditions."""

    def __call__(self, policy, env):
        raise NotImplementedError  # abstract: subclasses decide


def _positive_int(instance, attribute, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{type(instance).__name__}: {attribute.name} must be a positive int, "
                         f"got {value!r}")


def _progress_bar(total, unit, initial):
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, unit=unit, dynamic_ncols=True)


def _state_without_bar(self):
    """The fields to pickle (``rlcore.save``, ``copy``): all but the progress bar, which belongs
    to the terminal of the process that drew it; a restored condition draws a new one that starts
    at its count so far."""
    state = {a.name: getattr(self, a.name) for a in attrs.fields(type(self))}
    state["_bar"] = None
    return state


def _set_state(self, state):
    for name, value in state.items():
        object.__setattr__(self, name, value)


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated at construction; counters are hot
class StopAfterStep(AbstractStopCondition):
    """Stop after exactly ``n`` steps; ``progress=True`` shows a tqdm progress bar."""

    n: int = attrs.field(validator=_positive_int)
    progress: bool = False
    steps: int = 0
    _bar: object = attrs.field(default=None, repr=False, eq=False)

    def __call__(self, policy, env):
        self.steps += 1
        if self.progress:
            if self._bar is None:
                self._bar = _progress_bar(self.n, "step", self.steps - 1)
            self._bar.update(1)
        if self.steps >= self.n:
            self._close()
            return True
        return False

    def _close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    __getstate__, __setstate__ = _state_without_bar, _set_state


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated at construction; counters are hot
class StopAfterEpisode(AbstractStopCondition):
    """Stop when exactly ``n`` episodes have ended (terminated or truncated)."""

    n: int = attrs.field(validator=_positive_int)
    progress: bool = False
    episodes: int = 0
    _bar: object = attrs.field(default=None, repr=False, eq=False)

    def __call__(self, policy, env):
        if not (env.is_terminated() or env.is_truncated()):
            return False
        self.episodes += 1
        if self.progress:
            if self._bar is None:
                self._bar = _progress_bar(self.n, "episode", self.episodes - 1)
            self._bar.update(1)
        if self.episodes >= self.n:
            if self._bar is not None:
                self._bar.close()
                self._bar = None
            return True
        return False

    __getstate__, __setstate__ = _state_without_bar, _set_state


@attrs.define
class StopWhenDone(AbstractStopCondition):
    """Stop when the current episode ends (one episode)."""

    def __call__(self, policy, env):
        return env.is_terminated() or env.is_truncated()


class ComposedStopCondition(AbstractStopCondition):
    """Combine conditions with ``reducer`` (``any``, the default, or ``all``).

    Every condition is asked at every step, so counters inside them stay exact.
    """

    def __init__(self, *conditions, reducer=any):
        if not conditions:
            raise ValueError("ComposedStopCondition needs at least one condition")
        for c in conditions:
            if not callable(c):
                raise TypeError(f"ComposedStopCondition takes stop conditions, got {c!r}")
        if reducer not in (any, all):
            raise ValueError(f"reducer must be any or all, got {reducer!r}")
        self.conditions = conditions
        self.reducer = reducer

    def __call__(self, policy, env):
        return self.reducer([c(policy, env) for c in self.conditions])

    def __repr__(self):
        inner = ", ".join(map(repr, self.conditions))
        return f"ComposedStopCondition({inner}, reducer={self.reducer.__name__})"


class StopSignal(AbstractStopCondition):
    """Stop as soon as ``set()`` has been called (from a hook, another thread, a signal handler).

    A request to stop belongs to the process that made it: a signal is saved (``rlcore.save``,
    pickled) unset, so a run interrupted by it and resumed from its checkpoint goes on.

    >>> signal = StopSignal()
    >>> signal.set()
    >>> signal(None, None)
    True
    """

    def __init__(self):
        self._event = threading.Event()

    def set(self):
        """Ask the run to stop after the current step."""
        self._event.set()

    def clear(self):
        """Withdraw the request, so the condition can be reused."""
        self._event.clear()

    def __call__(self, policy, env):
        return self._event.is_set()

    def __repr__(self):
        return f"StopSignal(set={self._event.is_set()})"

    def __getstate__(self):
        return {}  # a threading.Event cannot be pickled, and the request is not the run's state

    def __setstate__(self, state):
        self._event = threading.Event()


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated at construction; counters are hot
class StopAfterNoImprovement(AbstractStopCondition):
    """Stop when ``fn()`` has not improved on its best value by more than ``delta`` for
    ``patience`` consecutive episodes.

    ``fn`` (no arguments, higher is better) is evaluated at the end of every episode. To stop on
    the episode return, close over a :class:`TotalRewardPerEpisode` hook's running ``reward``,
    which is complete when the stop condition sees the episode end (its ``rewards`` list gets
    the episode only afterwards, at ``PostEpisodeStage``)::

        total = TotalRewardPerEpisode()
        run(policy, env, StopAfterNoImprovement(lambda: total.reward, patience=10), total)
    """

    fn: object
    patience: int = attrs.field(validator=_positive_int)
    delta: float = 0.0
    best: float = attrs.field(default=float("-inf"))
    stale: int = 0

    def __attrs_post_init__(self):
        if not callable(self.fn):
            raise TypeError(f"fn must be callable with no arguments, got {self.fn!r}")
        if self.delta < 0:
            raise ValueError(f"delta must be >= 0, got {self.delta}")

    def __call__(self, policy, env):
        if not (env.is_terminated() or env.is_truncated()):
            return False
        value = self.fn()
        if value > self.best + self.delta:
            self.best = value
            self.stale = 0
            return False
        self.stale += 1
        return self.stale >= self.patience


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated at construction; counters are hot
class StopAfterNSeconds(AbstractStopCondition):
    """Stop once ``seconds`` of wall time have passed since the first step.

    Saved and restored (``rlcore.save``/``load``, pickled), it counts on from the time already
    spent, not from the saved process's clock.
    """

    seconds: float
    start: float = attrs.field(default=None, repr=False)

    def __attrs_post_init__(self):
        if not self.seconds > 0:
            raise ValueError(f"seconds must be > 0, got {self.seconds}")

    def __call__(self, policy, env):
        now = time.perf_counter()
        if self.start is None:
            self.start = now
        return now - self.start >= self.seconds

    def __getstate__(self):
        elapsed = None if self.start is None else time.perf_counter() - self.start
        return {"seconds": self.seconds, "elapsed": elapsed}

    def __setstate__(self, state):
        self.seconds = state["seconds"]
        elapsed = state["elapsed"]
        self.start = None if elapsed is None else time.perf_counter() - elapsed

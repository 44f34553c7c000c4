"""Logging: a hook that writes what a run does to pluggable sinks (TensorBoard, CSV, stdout).

docs/architecture.md §8: logging is a hook around ``run``, never code inside it.
:class:`LogHook` writes, with the number of env steps so far as ``step`` (a vectorised
environment of ``n`` sub-envs counts ``n`` per batched step):

* ``episode/return`` and ``episode/length``: each finished episode, at the step it ended (every
  sub-environment's episodes in a vectorised run, as ``TotalRewardPerEpisode`` records them);
* ``eval/return``: each new result of the :class:`~rlcore.EvaluateEveryNStep` given as
  ``evaluation``, at the step it was taken;
* what :func:`scalars` reads from the policy (``train/loss``, ``train/epsilon``,
  ``train/learning_rate``, ...), every ``every`` env steps or episodes.

:func:`scalars` is a generic function: an algorithm that wants more in the logs (an entropy, a
KL divergence) adds one rule for its learner::

    @dispatch(MyLearner)
    def scalars(learner):
        return {"train/loss": float(learner.loss_value), "train/entropy": learner.entropy}

A sink is a small subclass of :class:`AbstractSink` with ``write(tag, value, step)`` and
``close()``: :class:`TensorBoardSink` (``torch.utils.tensorboard``, imported only when the sink
is built; ``pip install reinforcementlearning[log]``), :class:`CSVSink`, :class:`StdoutSink` and
:class:`MemorySink`. The hook closes its sinks when the experiment ends; a closed sink reopens
(appending) if a later run writes to it again.

CSV format (:class:`CSVSink`, read back by :func:`read_csv_log` and ``rlcore.plotting``): one
long-format file, the header ``step,tag,value`` then one row per scalar, e.g.
``2000,episode/return,187.0``, in the order written; ``value`` is Python's shortest round-trip
``repr`` of the float (``nan`` and ``inf`` included), so a value reads back exactly. New tags
need no new columns, and every line is flushed when written, so a crash loses at most a line.
"""

import abc
import csv
import math
import numbers
import os
import pathlib
import sys

import attrs
import numpy as np
from tqdm.auto import tqdm

from rlcore.approximators.neural_network_approximator import NeuralNetworkApproximator
from rlcore.approximators.target_network import TargetNetwork
from rlcore.dispatch import dispatch, generic
from rlcore.envs.base import n_envs
from rlcore.evaluation import EvaluateEveryNStep
from rlcore.explorers.batch_explorer import BatchExplorer
from rlcore.explorers.epsilon_greedy_explorer import EpsilonGreedyExplorer
from rlcore.hooks import AbstractHook, on_stage
from rlcore.policies.agent import Agent
from rlcore.policies.base import AbstractLearner
from rlcore.policies.q_based import QBasedPolicy, VBasedPolicy
from rlcore.stages import (
    PostActStage, PostEpisodeStage, PostExperimentStage, PreEpisodeStage, PreExperimentStage,
)
from rlcore.utils.validators import boolean, one_of, positive_int, real_in

__all__ = ["scalars", "LogHook", "AbstractSink", "TensorBoardSink", "CSVSink", "StdoutSink",
           "MemorySink", "read_csv_log"]

CSV_HEADER = ("step", "tag", "value")

# --- what a policy exposes -------------------------------------------------------------------

scalars = generic("scalars", doc="""``scalars(obj) -> dict[str, float]``: the scalars ``obj``
    (a policy, learner, explorer or approximator) exposes to the logs, by tag.

    Rules: an ``Agent`` gives its policy's; a ``QBasedPolicy`` its learner's and explorer's; a
    learner ``train/loss`` (its ``loss_value``, once it has one) and its ``approximator``'s; an
    ``EpsilonGreedyExplorer`` ``train/epsilon``; a ``NeuralNetworkApproximator`` (or a
    ``TargetNetwork`` around one) ``train/learning_rate``, the ``lr`` of its optimiser's first
    parameter group; anything else nothing. A new algorithm adds a rule for its learner.""")


@dispatch(object)
def scalars(obj):
    """Default: nothing to log."""
    return {}


@dispatch(Agent)
def scalars(agent):  # noqa: F811
    return scalars(agent.policy)


@dispatch(QBasedPolicy)
def scalars(policy):  # noqa: F811
    return {**scalars(policy.learner), **scalars(policy.explorer)}


@dispatch(VBasedPolicy)
def scalars(policy):  # noqa: F811
    return scalars(policy.learner)


@dispatch(AbstractLearner)
def scalars(learner):  # noqa: F811
    """``train/loss`` from ``loss_value`` (when the learner keeps one and has learned), and the
    scalars of its ``approximator`` (when it has one)."""
    values = {}
    loss = getattr(learner, "loss_value", None)
    if loss is not None:
        values["train/loss"] = float(loss)
    approximator = getattr(learner, "approximator", None)
    if approximator is not None:
        values.update(scalars(approximator))
    return values


@dispatch(EpsilonGreedyExplorer)
def scalars(explorer):  # noqa: F811
    return {"train/epsilon": float(explorer.epsilon)}


@dispatch(BatchExplorer)
def scalars(explorer):  # noqa: F811
    return scalars(explorer.explorer)


@dispatch(NeuralNetworkApproximator)
def scalars(approximator):  # noqa: F811
    groups = approximator.optimizer.param_groups
    return {"train/learning_rate": float(groups[0]["lr"])} if groups else {}


@dispatch(TargetNetwork)
def scalars(approximator):  # noqa: F811
    return scalars(approximator.approximator)


# --- sinks -----------------------------------------------------------------------------------

def _checked(sink, tag, value, step):
    """``(tag, value, step)`` as ``(str, float, int)``, else a ``ValueError`` naming them."""
    if not isinstance(tag, str) or not tag:
        raise ValueError(f"{type(sink).__name__}: tag must be a non-empty str, got {tag!r}")
    if isinstance(value, (bool, np.bool_, str, bytes)) or getattr(value, "ndim", 0) != 0:
        raise ValueError(f"{type(sink).__name__}: the value of {tag!r} must be a real number, "
                         f"got {value!r}")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{type(sink).__name__}: the value of {tag!r} must be a real number, "
                         f"got {value!r}") from None
    if isinstance(step, (bool, np.bool_)) or not isinstance(step, numbers.Integral) or step < 0:
        raise ValueError(f"{type(sink).__name__}: step must be an int >= 0, got {step!r}")
    return tag, value, int(step)


class AbstractSink(abc.ABC):
    """Base class of sinks: where a :class:`LogHook` writes its scalars.

    A sink defines ``write(tag, value, step)`` (one scalar) and, if it holds a resource,
    ``close()`` (flush and release it; a later write may reopen it). ``write_scalars`` writes
    the scalars of one log event; a sink that prints may show them as one line.
    """

    @abc.abstractmethod
    def write(self, tag, value, step):
        """Record scalar ``value`` (a float) of ``tag`` (a str) at env step ``step``."""

    def write_scalars(self, values, step):
        """Record each ``tag: value`` of the dict ``values`` at ``step``."""
        for tag, value in values.items():
            self.write(tag, value, step)

    def close(self):
        """Flush what was written and release files (nothing to do by default)."""

    def rewind(self, step):
        """Forget what was written at steps after ``step``: a run resumed from a checkpoint of
        step ``step`` writes those steps again (nothing to forget by default)."""


def _summary_writer_class():
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError as error:  # tensorboard is an optional extra
        raise ImportError(f"TensorBoardSink needs the tensorboard package ({error}); install "
                          f"it with pip install 'reinforcementlearning[log]'") from error
    return SummaryWriter


@attrs.define(eq=False)
class TensorBoardSink(AbstractSink):
    """Writes scalars to TensorBoard event files in ``log_dir`` (``tensorboard --logdir``).

    A ``torch.utils.tensorboard.SummaryWriter``, created when the sink is built (TensorBoard is
    imported then, not before); it writes to disk every ``flush_secs`` seconds and on
    ``close()``. After ``close()`` a write opens a new event file in the same directory (which
    TensorBoard reads as the same run). A pickled or copied sink reopens the same way.

    Keyword arguments: ``log_dir`` (required, a str or path; created if missing),
    ``flush_secs=10`` (> 0).
    """

    log_dir: str = attrs.field(converter=os.fspath)
    flush_secs: float = attrs.field(default=10, kw_only=True,
                                    validator=real_in(0, math.inf, low_open=True, high_open=True))
    writer: object = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self):
        self._open()

    def _open(self):
        self.writer = _summary_writer_class()(log_dir=self.log_dir, flush_secs=self.flush_secs)

    def write(self, tag, value, step):
        tag, value, step = _checked(self, tag, value, step)
        if self.writer is None:
            self._open()
        self.writer.add_scalar(tag, value, global_step=step)

    def close(self):
        if self.writer is not None:
            self.writer.close()  # flushes; the writer reopens a file if written to again

    def rewind(self, step):
        """A new event file that tells TensorBoard to drop the events after ``step``
        (``SummaryWriter(purge_step=step + 1)``)."""
        self.close()
        self.writer = _summary_writer_class()(log_dir=self.log_dir, flush_secs=self.flush_secs,
                                              purge_step=int(step) + 1)

    def __getstate__(self):
        return {"log_dir": self.log_dir, "flush_secs": self.flush_secs}

    def __setstate__(self, state):
        self.log_dir, self.flush_secs, self.writer = state["log_dir"], state["flush_secs"], None


def _csv_path(path):
    """A path ending in ``.csv`` is the file; any other is a directory holding ``log.csv``."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"CSVSink: path must be a str or path (a .csv file or a directory), "
                        f"got {path!r}")
    path = pathlib.Path(path)
    return path if path.suffix.lower() == ".csv" else path / "log.csv"


def _prefixes(value):
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    value = tuple(value)
    if not all(isinstance(v, str) for v in value):
        raise TypeError(f"tags must be None or tag prefixes (str), got {value!r}")
    return value


@attrs.define(eq=False)
class CSVSink(AbstractSink):
    """Writes scalars to one long-format CSV file, ``step,tag,value`` (see the module doc).

    ``path`` ending in ``.csv`` is the file; any other path is a directory (created if missing)
    holding ``log.csv``. The file is started afresh (header only) when the sink is built, or
    appended to with ``append=True`` (a header is written only to an empty file). Lines are
    flushed as they are written; ``close()`` closes the file and a later write reopens it to
    append. A pickled or copied sink reopens the same way. Read the file back with
    :func:`read_csv_log`.

    Keyword arguments: ``path`` (required), ``append=False``, ``tags=None`` (all; else a prefix
    or a tuple of prefixes, e.g. ``("eval/",)``).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     sink = CSVSink(directory)
    ...     sink.write("episode/return", 21.0, 21)
    ...     sink.close()
    ...     print(sink.path.read_text(), end="")
    step,tag,value
    21,episode/return,21.0
    """

    path: pathlib.Path = attrs.field(converter=_csv_path)
    append: bool = attrs.field(default=False, kw_only=True, validator=boolean)
    tags: object = attrs.field(default=None, kw_only=True, converter=_prefixes)
    file: object = attrs.field(init=False, default=None, repr=False)
    writer: object = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.append:
            self.path.write_text("")
        self._open()

    def _open(self):
        self.file = open(self.path, "a", newline="", encoding="utf-8", buffering=1)  # noqa: SIM115
        self.writer = csv.writer(self.file, lineterminator="\n")  # line buffered: one flush a row
        if self.file.tell() == 0:
            self.writer.writerow(CSV_HEADER)

    def write(self, tag, value, step):
        tag, value, step = _checked(self, tag, value, step)
        if self.tags is not None and not tag.startswith(self.tags):
            return
        if self.file is None:
            self._open()
        self.writer.writerow((step, tag, repr(value)))

    def close(self):
        if self.file is not None:
            self.file.close()
            self.file = self.writer = None

    def rewind(self, step):
        """Drop the rows of steps after ``step`` (the file is rewritten atomically)."""
        self.close()
        if not self.path.exists():
            return
        with open(self.path, newline="", encoding="utf-8") as file:
            rows = list(csv.reader(file))
        kept = [row for row in rows[1:] if int(row[0]) <= step]
        temporary = self.path.with_name(f".{self.path.name}.tmp")
        with open(temporary, "w", newline="", encoding="utf-8") as file:
            csv.writer(file, lineterminator="\n").writerows([CSV_HEADER] + kept)
        os.replace(temporary, self.path)

    def __getstate__(self):
        return {"path": self.path, "append": self.append, "tags": self.tags}

    def __setstate__(self, state):
        self.path, self.append = state["path"], state["append"]
        self.tags = state.get("tags")
        self.file = self.writer = None


def read_csv_log(path):
    """The scalars of a :class:`CSVSink` file: a dict ``tag -> (steps, values)``, numpy arrays
    (``int64`` and ``float64``) in the order written.

    ``path`` is the file or, as for ``CSVSink``, a directory holding ``log.csv``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     sink = CSVSink(directory)
    ...     sink.write_scalars({"train/loss": 0.5, "train/epsilon": 0.1}, 100)
    ...     sink.write("train/loss", 0.25, 200)
    ...     sink.close()
    ...     log = read_csv_log(directory)
    >>> log["train/loss"]
    (array([100, 200]), array([0.5 , 0.25]))
    """
    path = _csv_path(path)
    if not path.is_file():
        raise FileNotFoundError(f"read_csv_log: no CSV log at {str(path)!r}")
    columns = {}
    with open(path, newline="", encoding="utf-8") as file:
        rows = csv.reader(file)
        header = next(rows, None)
        if tuple(header or ()) != CSV_HEADER:
            raise ValueError(f"read_csv_log: {str(path)!r} starts with {header!r}, not the "
                             f"header {','.join(CSV_HEADER)!r} of a CSVSink log")
        for line, row in enumerate(rows, start=2):
            if len(row) != 3:
                raise ValueError(f"read_csv_log: line {line} of {str(path)!r} is {row!r}, not "
                                 f"step,tag,value")
            steps, values = columns.setdefault(row[1], ([], []))
            steps.append(int(row[0]))
            values.append(float(row[2]))
    return {tag: (np.array(steps, dtype=np.int64), np.array(values, dtype=np.float64))
            for tag, (steps, values) in columns.items()}


@attrs.define
class StdoutSink(AbstractSink):
    """Prints one compact line per log event: ``step 2000: episode/return 187, episode/length
    187``.

    Lines go through ``tqdm.write`` (a progress bar is redrawn below them) and are flushed at
    once. With ``tags`` only the tags that start with one of these prefixes are printed.

    Keyword arguments: ``tags=None`` (all; else a prefix or a tuple of prefixes, e.g.
    ``("eval/",)``).

    >>> StdoutSink().write_scalars({"episode/return": 187.0, "episode/length": 187.0}, 2000)
    step 2000: episode/return 187, episode/length 187
    >>> StdoutSink(tags="eval/").write("episode/return", 9.0, 9)   # not shown
    """

    tags: object = attrs.field(default=None, converter=_prefixes)

    def write(self, tag, value, step):
        self.write_scalars({tag: value}, step)

    def write_scalars(self, values, step):
        shown = []
        for tag, value in values.items():
            tag, value, step = _checked(self, tag, value, step)
            if self.tags is None or tag.startswith(self.tags):
                shown.append(f"{tag} {value:.6g}")
        if shown:
            tqdm.write(f"step {step}: " + ", ".join(shown))
            sys.stdout.flush()  # tqdm.write does not: a log file gets each line at once


@attrs.define
class MemorySink(AbstractSink):
    """Keeps the scalars in memory: ``data[tag]`` is ``(steps, values)``, two lists.

    For notebooks and tests, and for ``rlcore.plotting`` (a :class:`LogHook` with a
    ``MemorySink`` can be plotted directly).

    >>> sink = MemorySink()
    >>> sink.write("train/loss", 0.5, 100)
    >>> sink.data
    {'train/loss': ([100], [0.5])}
    """

    data: dict = attrs.field(factory=dict)

    def write(self, tag, value, step):
        tag, value, step = _checked(self, tag, value, step)
        steps, values = self.data.setdefault(tag, ([], []))
        steps.append(step)
        values.append(value)

    def rewind(self, step):
        for tag, (steps, values) in self.data.items():
            kept = [i for i, s in enumerate(steps) if s <= step]
            self.data[tag] = ([steps[i] for i in kept], [values[i] for i in kept])


# --- the hook --------------------------------------------------------------------------------

def _as_sinks(value):
    if isinstance(value, (AbstractSink, str, bytes, os.PathLike)):
        sinks = (value,)
    else:
        try:
            sinks = tuple(value)
        except TypeError:
            sinks = (value,)
    for sink in sinks:
        if not isinstance(sink, AbstractSink):
            raise TypeError(f"LogHook: sinks must be a sink (an AbstractSink such as "
                            f"TensorBoardSink, CSVSink, StdoutSink, MemorySink) or a list of "
                            f"them, got {sink!r}")
    if not sinks:
        raise ValueError("LogHook needs at least one sink, got none")
    return sinks


def _evaluation(instance, attribute, value):
    if value is not None and not isinstance(value, EvaluateEveryNStep):
        raise TypeError(f"LogHook: evaluation must be None or the EvaluateEveryNStep hook of "
                        f"the run, got {value!r}")


@attrs.define(on_setattr=attrs.setters.NO_OP)  # validated at construction; counters are hot
class LogHook(AbstractHook):
    """Writes episode returns and lengths, evaluations and the policy's scalars to ``sinks``.

    Every scalar is written with ``step``, the number of env steps so far (``n`` per batched
    step of a vectorised environment of ``n`` sub-envs, as ``n_envs(env)`` says); the tags are
    listed in the module doc. Episodes are logged as they end, each sub-environment's on its
    own. The policy's :func:`scalars` are logged every ``every`` env steps (after the batched
    step whose count passed a multiple of ``every``) or, with ``cadence="episode"``, every
    ``every`` finished episodes. Give the run's :class:`~rlcore.EvaluateEveryNStep` (the same
    object, composed into the run's hook) as ``evaluation`` to log its results as
    ``eval/return``. The sinks are closed when the experiment ends. ``step`` and ``episode``
    keep counting over several runs with the same hook.

    Keyword arguments: ``sinks`` (required: a sink or a list of sinks); keyword only:
    ``every=1000`` (>= 1), ``cadence="step"`` or ``"episode"``, ``evaluation=None``.

    >>> from rlcore import RandomPolicy, StopAfterEpisode, run
    >>> from rlenvs import RandomWalk1D
    >>> hook = run(RandomPolicy(seed=0), RandomWalk1D(), StopAfterEpisode(2),
    ...            LogHook([StdoutSink(), MemorySink()]))
    step 9: episode/return 1, episode/length 9
    step 18: episode/return 1, episode/length 9
    >>> hook.sinks[1].data["episode/length"]
    ([9, 18], [9.0, 9.0])
    """

    sinks: tuple = attrs.field(converter=_as_sinks)
    every: int = attrs.field(default=1000, kw_only=True, validator=positive_int)
    cadence: str = attrs.field(default="step", kw_only=True, validator=one_of("step", "episode"))
    evaluation: object = attrs.field(default=None, kw_only=True, validator=_evaluation)
    step: int = attrs.field(default=0, kw_only=True)
    episode: int = attrs.field(default=0, kw_only=True)
    n_evaluations: int = attrs.field(init=False, default=0, repr=False)  # results logged
    returns: object = attrs.field(init=False, default=None, repr=False)  # one per sub-env
    starts: object = attrs.field(init=False, default=None, repr=False)  # batched step at reset
    t: int = attrs.field(init=False, default=0, repr=False)  # batched steps of this run
    n: int = attrs.field(init=False, default=1, repr=False)  # n_envs(env)

    def log(self, values, step):
        """Write the dict ``values`` (tag -> number) at ``step`` to every sink."""
        if values:
            for sink in self.sinks:
                sink.write_scalars(values, step)

    def log_evaluations(self):
        """Write the evaluation results not written yet."""
        evaluation = self.evaluation
        if evaluation is not None:
            while self.n_evaluations < len(evaluation.returns):
                i = self.n_evaluations
                self.log({"eval/return": evaluation.returns[i]}, evaluation.steps[i])
                self.n_evaluations += 1

    def rewind(self, step):
        """Make every sink forget the steps after ``step``: before resuming a checkpoint of
        step ``step``, whose later steps (logged before the run was killed) come again."""
        for sink in self.sinks:
            sink.rewind(step)

    def close(self):
        """Close every sink."""
        for sink in self.sinks:
            sink.close()

    def _sub_env(self, env):
        # a vectorised run shows episode stages a view of sub-env env.index (rlenvs.SubEnv)
        return env.index if self.n > 1 else 0


@dispatch(LogHook, PreExperimentStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.n = n_envs(env)
    hook.returns = np.zeros(hook.n)
    hook.starts = np.zeros(hook.n, dtype=np.int64)
    hook.t = 0


@dispatch(LogHook, PreEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    i = hook._sub_env(env)
    hook.returns[i] = 0.0
    hook.starts[i] = hook.t


@dispatch(LogHook, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.t += 1
    before = hook.step
    hook.step += hook.n
    hook.returns += env.reward()  # one reward, or one per sub-env
    if hook.cadence == "step" and hook.step // hook.every > before // hook.every:
        hook.log(scalars(policy), hook.step)
    if hook.evaluation is not None:
        hook.log_evaluations()


@dispatch(LogHook, PostEpisodeStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    i = hook._sub_env(env)
    hook.episode += 1
    hook.log({"episode/return": float(hook.returns[i]),
              "episode/length": float(hook.t - hook.starts[i])}, hook.step)
    hook.returns[i] = 0.0
    hook.starts[i] = hook.t
    if hook.cadence == "episode" and hook.episode % hook.every == 0:
        hook.log(scalars(policy), hook.step)


@dispatch(LogHook, PostExperimentStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.log_evaluations()
    hook.close()

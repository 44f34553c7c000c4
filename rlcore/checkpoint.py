"""Save, load and exact resume (docs/architecture.md §8): ``save``, ``load``, ``resume``, the
``Checkpoint`` hook and ``latest_checkpoint``, all around ``run``, none inside it.

``save(path, obj)`` writes an agent, a policy or a whole :class:`~rlcore.experiment.Experiment`
with everything it holds: network weights, optimiser states, target networks, the trajectory
(replay buffers with their priorities; ``trajectory=False`` saves every trace empty, of the same
type and capacity, for a small policy-only file), explorer schedules, learner counters, every
random generator in the object graph (numpy ``Generator``\\ s, ``torch.Generator``\\ s, the env's),
hook and stop-condition state, and where the run stands in its current episode (the env itself).
It also stores the global random states (Python's ``random``, numpy's legacy global, torch's CPU
and, where initialised, CUDA generators); ``load`` restores them, so code that draws from them
continues as it would have. Progress bars and stop requests (``StopSignal``) are not saved.

``resume(experiment)`` continues a run saved inside it by a :class:`Checkpoint` hook exactly as
if it had never stopped: ``N`` steps straight and ``k`` steps + save + load in a fresh process +
``N - k`` steps give bit-identical parameters and returns on the CPU. It runs the loop of
:mod:`rlcore.run` from where the snapshot was taken, with no second ``PRE_EXPERIMENT_STAGE`` and
no ``env.reset()`` inside an episode.

File format (``FORMAT = "rlcore-checkpoint"``, ``VERSION = 1``): one ``torch.save`` file holding a
dict of plain values, so ``torch.load(path, weights_only=True)`` reads all of it safely:

* ``"format"``: ``"rlcore-checkpoint"``; ``"version"``: ``1``; ``"library"``: the writer
  (``"reinforcementlearning 0.1.0"``); ``"torch"``: torch's version; ``"type"``: the saved
  object's class (``"rlcore.experiment.Experiment"``).
* ``"saved_at"``: ``{"stage": "POST_ACT_STAGE" | "POST_EXPERIMENT_STAGE" | None, "step": int |
  None}``, where in a run it was written (``None`` outside one); ``"trajectory"``: the flag.
* ``"weights"``: ``{path: state_dict}`` of every ``torch.nn.Module`` in the object graph, by
  attribute path (``"policy.policy.learner.approximator.approximator.model"``; ``""`` when the
  object is a module), and ``"optimizers"``: ``{path: state_dict}`` of every torch optimiser.
  These are copies, for ``weights_only`` readers: ``load`` does not use them.
* ``"payload"``: ``bytes``, a pickle (highest protocol) of ``{"object": obj, "global_rng":
  {"python", "numpy", "torch"[, "cuda"]}, "position": stage or None}``: what ``load`` returns.
  Unpickling runs code, as any pickle does: load checkpoints you trust.

Writes are atomic: the file is written beside its destination under a temporary name, flushed,
``fsync``\\ ed and renamed over it, so a save killed half-way leaves the previous file whole (the
temporary file, ``.NAME.PID-XXXXXXXX.tmp``, may be left behind). Reading a corrupt or foreign
file, or one of another format version, raises :class:`CheckpointError` naming the file and what
is wrong with it.

>>> import os, tempfile
>>> from rlcore import Experiment, RandomPolicy, StopAfterStep, TotalRewardPerEpisode, run
>>> from rlenvs import RandomWalk1D
>>> directory = tempfile.mkdtemp()
>>> experiment = Experiment(RandomPolicy(seed=0), RandomWalk1D(seed=0), StopAfterStep(25),
...                         TotalRewardPerEpisode() + Checkpoint(directory, every=10, keep=2))
>>> _ = run(experiment)
>>> sorted(os.listdir(directory))
['checkpoint-000000020.pt', 'checkpoint-000000025.pt']
>>> saved = load(latest_checkpoint(directory))  # as the run stood after step 25
>>> saved.stop_condition.n = 40  # raise its budget: the run goes on to step 40
>>> len(resume(saved)[0].rewards) >= len(experiment.hook[0].rewards)
True
"""

import contextlib
import io
import os
import pickle
import random
import re
import types
import uuid

import attrs
import numpy as np
import torch

from rlcore.dispatch import dispatch
from rlcore.envs.base import AbstractEnv, n_envs
from rlcore.experiment import Experiment
from rlcore.hooks import AbstractHook, ComposedHook, on_stage
from rlcore.run import run_episode, run_episodes, run_loop
from rlcore.stages import (
    POST_ACT_STAGE, POST_EXPERIMENT_STAGE, PostActStage, PostExperimentStage,
)
from rlcore.trajectories.buffers import AbstractBuffer

__all__ = ["save", "load", "resume", "latest_checkpoint", "Checkpoint", "CheckpointError"]

FORMAT = "rlcore-checkpoint"
VERSION = 1
_NAME = re.compile(r"checkpoint-(\d+)\.pt")


class CheckpointError(ValueError):
    """A file is not a checkpoint this rlcore can read: corrupt, foreign or of another version."""


def save(path, obj, *, trajectory=True, at=None, step=None):
    """Write ``obj`` (an agent, a policy, an experiment, ...) to ``path`` atomically; return the
    path. See the module docstring for what is saved and the file format.

    Keyword arguments: ``trajectory=True`` (``False``: every trace saved empty, the caller's
    object untouched); ``at`` and ``step`` say where in a run an experiment is saved, for
    ``resume``: ``at=POST_ACT_STAGE`` (after every hook has seen a step, before the stop condition
    is asked) or ``POST_EXPERIMENT_STAGE`` (after the hooks' end of run, before the policy's),
    ``None`` (default) outside a run; ``step`` is recorded in the file. The :class:`Checkpoint`
    hook sets both.

    >>> import tempfile
    >>> from rlcore import RandomPolicy
    >>> path = save(tempfile.mkdtemp() + "/policy.pt", RandomPolicy(seed=0))
    >>> type(load(path)).__name__
    'RandomPolicy'
    """
    path = _file_path(path)
    if at is not None and not isinstance(at, (PostActStage, PostExperimentStage)):
        raise ValueError(f"at must be None, POST_ACT_STAGE or POST_EXPERIMENT_STAGE, got {at!r}")
    if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step < 0):
        raise ValueError(f"step must be None or an int >= 0, got {step!r}")
    content = {"object": obj, "global_rng": _global_rng_state(),
               "position": at if trajectory else None}  # an empty replay cannot go on exactly
    modules, optimizers = _torch_parts(obj)
    from rlcore import __version__

    record = {
        "format": FORMAT, "version": VERSION, "library": f"reinforcementlearning {__version__}",
        "torch": str(torch.__version__),
        "type": f"{type(obj).__module__}.{type(obj).__qualname__}",
        "saved_at": {"stage": None if at is None else repr(at), "step": step},
        "trajectory": bool(trajectory),
        "weights": {name: m.state_dict() for name, m in modules.items()},
        "optimizers": {name: o.state_dict() for name, o in optimizers.items()},
        "payload": _pickle(content, trajectory, path),
    }
    _atomic_write(path, lambda file: torch.save(record, file))
    return path


def load(path, *, restore_global_rng=True):
    """Read the object saved at ``path``; restore the global random states saved with it
    (unless ``restore_global_rng=False``). An :class:`~rlcore.experiment.Experiment` saved
    inside a run comes back with ``position`` set, for :func:`resume`.

    Raises ``FileNotFoundError`` for a missing file, ``IsADirectoryError`` for a directory and
    :class:`CheckpointError` for a file that is corrupt, not a checkpoint or of another version.

    >>> import tempfile
    >>> from rlcore import EpsilonGreedyExplorer
    >>> explorer = EpsilonGreedyExplorer(epsilon_stable=0.1, seed=0)
    >>> path = save(tempfile.mkdtemp() + "/explorer.pt", explorer)
    >>> load(path).rng.random() == explorer.rng.random()  # the same generator state
    True
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"cannot load {path!r}: it is a directory (latest_checkpoint("
                                f"directory) finds the newest checkpoint in one)")
    if not os.path.exists(path):
        raise FileNotFoundError(f"no checkpoint at {path!r}")
    record = _read_record(path)
    try:
        content = pickle.loads(record["payload"])
    except Exception as err:
        raise CheckpointError(
            f"{path}: the saved object cannot be rebuilt ({type(err).__name__}: {err}); it was "
            f"written by {record.get('library')}: its classes may have changed since") from err
    if restore_global_rng:
        _set_global_rng_state(content["global_rng"])
    obj = content["object"]
    if isinstance(obj, Experiment):
        obj.position = content["position"]
    return obj


def resume(experiment):
    """Continue the run of ``experiment`` (as ``load`` returns it) exactly where it was saved;
    return its hook.

    Saved at a step (``POST_ACT_STAGE``), the run asks the stop condition about that step and
    goes on; saved at the run's end (``POST_EXPERIMENT_STAGE``: a stop condition said stop, a
    ``StopSignal`` was set), it goes on as if the stop condition had said no, inside the
    episode or from the next one: raise the stop condition's budget first
    (``experiment.stop_condition.n = ...``), or a spent ``StopAfterStep`` stops after one more
    step. Runs of the single-environment loop only: a vectorised env's sub-environments live in
    its workers and are not saved (``TypeError``).

    >>> import tempfile
    >>> from rlcore import RandomPolicy, StopAfterStep, StepsPerEpisode, run
    >>> from rlenvs import RandomWalk1D
    >>> directory = tempfile.mkdtemp()
    >>> run(Experiment(RandomPolicy(seed=0), RandomWalk1D(seed=0), StopAfterStep(30),
    ...                StepsPerEpisode() + Checkpoint(directory, every=20)))[0].steps
    [9, 9, 3, 7]
    >>> resume(load(directory + "/checkpoint-000000020.pt"))[0].steps  # the same run
    [9, 9, 3, 7]
    """
    if not isinstance(experiment, Experiment):
        raise TypeError(f"resume takes an Experiment (as load returns it), got "
                        f"{type(experiment).__name__}")
    at = experiment.position
    if at is None:
        raise ValueError("this experiment was not saved inside a run (its position is None): "
                         "resume continues a checkpoint written by a Checkpoint hook (with "
                         "trajectory=True); run(experiment) starts a new run")
    _check_single_env_loop(experiment)
    policy, env, stop_condition, hook = (experiment.policy, experiment.env,
                                         experiment.stop_condition, experiment.hook)
    experiment.position = None  # the run goes on from here
    episode_over = env.is_terminated() or env.is_truncated()
    if isinstance(at, PostActStage):
        is_stop = run_episode(policy, env, stop_condition, hook, stop_condition(policy, env))
    else:  # saved at the end of the run, whose last episode had its POST_EPISODE if it ended
        is_stop = False if episode_over else run_episode(policy, env, stop_condition, hook)
    return run_episodes(policy, env, stop_condition, hook, is_stop)


def latest_checkpoint(directory):
    """The path of the newest ``checkpoint-STEP.pt`` in ``directory`` (the highest step), or
    ``None`` when it holds none or does not exist yet.

    >>> latest_checkpoint("/nonexistent/run") is None
    True
    """
    directory = os.fspath(directory)
    if not os.path.exists(directory):
        return None
    if not os.path.isdir(directory):
        raise NotADirectoryError(f"latest_checkpoint needs a directory, got the file "
                                 f"{directory!r}")
    steps = {int(m.group(1)): name for name in os.listdir(directory)
             if (m := _NAME.fullmatch(name))}
    return os.path.join(directory, steps[max(steps)]) if steps else None


def _directory(instance, attribute, value):
    if os.path.exists(value) and not os.path.isdir(value):
        raise ValueError(f"Checkpoint directory {value!r} is a file, not a directory")


def _positive(instance, attribute, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"Checkpoint: {attribute.name} must be an int >= 1, got {value!r}")


@attrs.define(eq=False)
class Checkpoint(AbstractHook):
    """Saves the run into ``directory`` every ``every`` env steps and at its end, keeping the
    last ``keep`` files: ``checkpoint-000002000.pt`` (the step count, 9 digits).

    An :class:`~rlcore.experiment.Experiment` binds itself into the ``Checkpoint`` of its hook
    (``experiment``), which then saves the whole experiment, for :func:`resume`; used outside one
    (``run(policy, env, stop, hook)``), or with a vectorised env, it saves the policy it sees.
    It must be the experiment's last hook, so that every other hook has seen the step it saves.
    Steps are env steps: a vectorised env of ``k`` sub-environments counts ``k`` per batched
    step, and saves after the batched step whose count passed a multiple of ``every``. The save
    at the end of the run (``POST_EXPERIMENT_STAGE``) leaves a checkpoint after an interrupted
    run (a ``StopSignal`` set by Ctrl-C). ``files`` lists the kept files, oldest first; ``t`` is
    the step count.

    Keyword arguments: ``directory`` (created when needed), ``every=10_000``, ``keep=3``,
    ``trajectory=True`` (``False``: the replay is saved empty: small files, not resumable).

    >>> Checkpoint("runs/dqn", every=500, keep=2)
    Checkpoint(directory='runs/dqn', every=500, keep=2, trajectory=True, t=0, files=[])
    """

    directory: str = attrs.field(converter=os.fspath, validator=_directory)
    every: int = attrs.field(default=10_000, validator=_positive)
    keep: int = attrs.field(default=3, validator=_positive)
    trajectory: bool = True
    t: int = 0
    files: list = attrs.field(factory=list)
    experiment: object = attrs.field(default=None, repr=False)

    def write(self, policy, stage):
        """Write ``checkpoint-{t}.pt`` (the bound experiment, else ``policy``) and remove the
        oldest files past ``keep``."""
        name = f"checkpoint-{self.t:09d}.pt"
        kept = [f for f in self.files if f != name] + [name]
        before, self.files = self.files, kept[-self.keep:]  # saved with the file it is in
        experiment = self.experiment
        target = experiment if experiment is not None and _runs_single_env_loop(experiment) \
            else policy
        os.makedirs(self.directory, exist_ok=True)
        try:
            save(os.path.join(self.directory, name), target, trajectory=self.trajectory, at=stage,
                 step=self.t)
        except BaseException:
            self.files = before
            raise
        for old in kept[:-self.keep]:
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(self.directory, old))


@dispatch(Checkpoint, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    before = hook.t
    hook.t += n_envs(env)
    if hook.t // hook.every > before // hook.every:  # the count passed a multiple of every
        hook.write(policy, POST_ACT_STAGE)


@dispatch(Checkpoint, PostExperimentStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.write(policy, POST_EXPERIMENT_STAGE)


def bind_checkpoints(experiment, hook):
    """Bind ``experiment`` into the :class:`Checkpoint` hooks of ``hook`` (a single or composed
    hook, the experiment's); raise ``ValueError`` if one is not the last hook. ``Experiment``
    calls it."""
    hooks = hook.hooks if isinstance(hook, ComposedHook) else (hook,)
    for i, h in enumerate(hooks):
        if isinstance(h, Checkpoint):
            if i != len(hooks) - 1:
                raise ValueError(f"a Checkpoint hook must be the experiment's last hook, so that "
                                 f"every other hook has seen the step it saves; got "
                                 f"{' + '.join(type(x).__name__ for x in hooks)}")
            h.experiment = experiment


# --- the single-environment loop only

def _loop(experiment):
    return run_loop.dispatch(*map(type, (experiment.policy, experiment.env,
                                         experiment.stop_condition, experiment.hook)))


def _runs_single_env_loop(experiment):
    return _loop(experiment) is run_loop.funcs[(object, AbstractEnv, object, object)]


def _check_single_env_loop(experiment):
    if not _runs_single_env_loop(experiment):
        loop = _loop(experiment)
        raise TypeError(f"resume continues runs of the single-environment loop, but "
                        f"{type(experiment.env).__name__} runs through its own run_loop "
                        f"({loop.__module__}.{loop.__qualname__}), whose episodes live in "
                        f"sub-environments that are not saved: load the experiment and start a "
                        f"new run with run(experiment)")


# --- files

def _file_path(path):
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError(f"path must be a str or os.PathLike, got {path!r}") from None
    if os.path.isdir(path):
        raise IsADirectoryError(f"cannot save to {path!r}: it is a directory; give a file path "
                                f"such as {os.path.join(path, 'checkpoint.pt')!r}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"cannot save to {path!r}: its directory {parent!r} does not "
                                f"exist")
    return path


def _atomic_write(path, write):
    """``write(file)`` into a temporary file beside ``path``, fsync it, rename it over ``path``."""
    directory, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(directory, f".{name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "xb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    if hasattr(os, "O_DIRECTORY"):  # the rename itself survives a crash once its directory is
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _read_record(path):
    try:
        record = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:
        lines = [line.strip() for line in str(err).splitlines() if line.strip()] or [""]
        # torch's weights-only refusal is many lines; its reason is the WeightsUnpickler one
        reason = next((line for line in lines if line.startswith("WeightsUnpickler")), lines[0])
        raise CheckpointError(f"{path} is not a readable rlcore checkpoint (corrupt, truncated "
                              f"or another kind of file): {type(err).__name__}: "
                              f"{reason}") from err
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not an rlcore checkpoint: it has no 'format': "
                              f"{FORMAT!r} entry")
    if record.get("version") != VERSION or not isinstance(record.get("payload"), bytes):
        from rlcore import __version__

        raise CheckpointError(f"{path} is an rlcore checkpoint of format version "
                              f"{record.get('version')!r}, written by {record.get('library')}; "
                              f"this rlcore ({__version__}) reads version {VERSION}")
    return record


# --- the object graph

def _pickle(content, trajectory, path):
    pickler = pickle.dumps if trajectory else _dumps_with_empty_traces
    try:
        return pickler(content, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as err:
        where, part = _unpicklable_part(content["object"])
        raise TypeError(f"cannot save {type(content['object']).__name__} to {path}: "
                        f"{where or 'the object'} ({type(part).__name__}) cannot be pickled "
                        f"({err}); give hooks and stop conditions module-level functions, not "
                        f"lambdas or local ones, or a __getstate__ that leaves the part "
                        f"out") from err


class _EmptyTracesPickler(pickle.Pickler):
    """Pickles every trace (an rlcore buffer) empty: the same type, shapes and capacity."""

    def reducer_override(self, obj):
        if isinstance(obj, AbstractBuffer):
            state = obj.__reduce_ex__(2)[2]
            dict_state, slot_state = state if isinstance(state, tuple) else (state, None)
            return _empty_buffer, (type(obj), _shapes_only(dict_state), _shapes_only(slot_state))
        return NotImplemented


def _dumps_with_empty_traces(obj, protocol):
    buffer = io.BytesIO()
    _EmptyTracesPickler(buffer, protocol=protocol).dump(obj)
    return buffer.getvalue()


@attrs.frozen
class _Zeros:
    shape: tuple
    dtype: object


def _shapes_only(state):
    """A buffer's state with its arrays as their shapes and its lists empty (the storage)."""
    if state is None:
        return None
    return {k: _Zeros(v.shape, v.dtype) if isinstance(v, np.ndarray)
            else [] if isinstance(v, list) else v for k, v in state.items()}


def _empty_buffer(cls, dict_state, slot_state):
    """Rebuild a buffer from :func:`_shapes_only` state, with zeroed storage, and clear it."""
    buffer = cls.__new__(cls)
    for state in (dict_state, slot_state):
        for k, v in (state or {}).items():
            setattr(buffer, k, np.zeros(v.shape, v.dtype) if isinstance(v, _Zeros) else v)
    buffer.clear()
    return buffer


_ATOMS = (str, bytes, int, float, complex, bool, type(None), np.ndarray, np.generic,
          np.random.Generator, torch.Tensor, torch.Generator, torch.device, torch.dtype, type,
          types.FunctionType, types.BuiltinFunctionType, types.ModuleType)


def _parts(obj):
    """``(name, value)`` of the attributes, items and slots of ``obj``, for the walks below."""
    if isinstance(obj, _ATOMS):
        return []
    if isinstance(obj, dict):
        return [(f"[{k!r}]", v) for k, v in obj.items()]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [(f"[{i}]", v) for i, v in enumerate(obj)]
    attributes = getattr(obj, "__dict__", None)
    parts = [(f".{k}", v) for k, v in attributes.items()] if isinstance(attributes, dict) else []
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in [slots] if isinstance(slots, str) else slots:
            try:
                parts.append((f".{name}", getattr(obj, name)))
            except AttributeError:  # an empty slot, or __dict__
                pass
    return parts


def _torch_parts(obj):
    """``({path: module}, {path: optimizer})`` of the torch modules and optimisers in ``obj``."""
    modules, optimizers, seen, stack = {}, {}, set(), [("", obj)]
    while stack:
        path, value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, torch.nn.Module):
            modules[path.lstrip(".")] = value
        elif isinstance(value, torch.optim.Optimizer):
            optimizers[path.lstrip(".")] = value
        else:
            stack.extend((path + name, v) for name, v in reversed(_parts(value)))
    return modules, optimizers


def _unpicklable_part(obj, path="", on_path=()):
    """The attribute path and value of the deepest part of ``obj`` that cannot be pickled."""
    on_path += (id(obj),)
    for name, value in _parts(obj):
        if id(value) in on_path:
            continue
        try:
            pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            return _unpicklable_part(value, path + name, on_path)
    return path.lstrip("."), obj


# --- the global random states

def _global_rng_state():
    state = {"python": random.getstate(), "numpy": np.random.get_state(),
             "torch": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_global_rng_state(state):
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    cuda = state.get("cuda")
    if cuda is not None and torch.cuda.is_available() and torch.cuda.device_count() == len(cuda):
        torch.cuda.set_rng_state_all(cuda)

"""Vectorised environments: ``n`` copies of an environment stepped as one batch, after RL.jl's
``MultiThreadEnv``, built on Gymnasium's vector machinery.

:class:`MultiThreadEnv` runs its sub-environments in this process (``mode="sync"``, Gymnasium's
``SyncVectorEnv``) or one subprocess each (``mode="async"``, ``AsyncVectorEnv`` with shared
memory). Sub-environments are Gymnasium ids, ``gymnasium.Env`` factories or factories of our
own single-agent environments (which join through :func:`rlenvs.to_gymnasium`). Each
sub-environment resets itself when its episode ends (Gymnasium's same-step autoreset).

``run(policy, vector_env, stop_condition, hook)`` selects the vectorised loop of this module by
dispatch (docs/architecture.md §3):

* ``PRE_ACT``/``POST_ACT`` are batched: ``policy(vector_env)`` returns one action per
  sub-environment; ``state()``, ``reward()``, ``is_terminated()``, ``is_truncated()`` are arrays.
* ``PRE_EPISODE``/``POST_EPISODE`` fire for each sub-environment whose episode begins or ends,
  with ``vector_env[i]`` (a :class:`SubEnv` view) as the environment: at ``POST_EPISODE`` it shows
  the episode's final state, reward and flags. ``TotalRewardPerEpisode`` and ``StepsPerEpisode``
  keep one running sum per sub-environment (rules below), so they record every sub-environment's
  episodes exactly as with one environment. Hooks without such rules see batches:
  ``DoEveryNStep`` counts batched steps, ``DoEveryNEpisode`` counts every sub-environment's
  episodes.
* Recording: a replay ``Agent`` records into a
  :class:`~rlcore.trajectories.trajectory.CircularArraySARTSTrajectory` built with ``n_envs=n``
  (rules below): ``PRE_ACT`` pushes the ``n`` states and actions, ``POST_ACT`` the ``n`` rewards,
  flags (``truncated`` only where not terminated) and next states, where the rows of the
  sub-environments that just ended hold their episodes' final states (``final_state(i)``;
  ``state()`` already shows their next episodes' first states); episode stages record nothing;
  ``POST_EXPERIMENT`` marks the last ``n`` rows truncated where not terminal. A SART trajectory
  (one environment's layout) raises ``TypeError`` at ``PRE_ACT``; a SARTS trajectory with another
  ``n_envs`` raises ``ValueError``. ``n_envs(vector_env)`` is ``n``.
* The stop condition is asked once per sub-environment step, with ``vector_env[i]``: so
  ``StopAfterStep(n)`` counts environment steps across sub-environments and
  ``StopAfterEpisode(n)`` counts episodes of all sub-environments. The run ends after the batch
  in which it first says stop.

A sub-environment whose factory raises, that raises in ``step``/``reset``, or whose process dies,
gives :class:`SubEnvError` naming the sub-environment; the vector environment is then closed
(its worker processes are terminated), so nothing hangs. In async mode ``step_timeout`` (60 s by
default) bounds a step or reset: past it, :class:`SubEnvError` names the sub-environments that
did not answer.

Example::

    >>> from rlcore import RandomPolicy, StopAfterStep, TotalRewardPerEpisode, run
    >>> env = MultiThreadEnv("CartPole-v1", 4, mode="sync", seed=0)
    >>> hook = run(RandomPolicy(seed=0), env, StopAfterStep(1000), TotalRewardPerEpisode())
    >>> len(hook.rewards) > 20
    True
"""

import functools
import multiprocessing
import signal
import time

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

from rlcore.checks import check_finite_rewards
from rlcore.dispatch import dispatch, update
from rlcore.envs import AbstractEnv, check_action_in_space, n_envs
from rlcore.hooks import StepsPerEpisode, TotalRewardPerEpisode, on_stage
from rlcore.policies.base import AbstractPolicy
from rlcore.run import run_loop
from rlcore.stages import (
    POST_ACT_STAGE, POST_EPISODE_STAGE, POST_EXPERIMENT_STAGE, PRE_ACT_STAGE, PRE_EPISODE_STAGE,
    PRE_EXPERIMENT_STAGE, PostActStage, PostEpisodeStage, PreActStage, PreEpisodeStage,
    PreExperimentStage,
)
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.trajectories.recording import check_n_envs
from rlcore.trajectories.trajectory import CircularArraySARTSTrajectory
from rlcore.utils.random import make_rng
from rlenvs.gymnasium_env import to_gymnasium

__all__ = ["MultiThreadEnv", "VectorEnv", "SubEnv", "SubEnvError"]

_SEED_BOUND = 2**31 - 1
_NONE = np.zeros(0, dtype=np.intp)
_MODES = ("sync", "async")


class SubEnvError(RuntimeError):
    """A sub-environment of a vectorised environment failed; the message names it."""


class _GuardedEnv(gymnasium.Wrapper):
    """Turns any exception of the sub-environment into a :class:`SubEnvError` naming it (async
    mode: it runs in the worker process, which sends the error to the parent)."""

    def __init__(self, env, index):
        super().__init__(env)
        self.label = _label(env, index)

    def step(self, action):
        try:
            return self.env.step(action)
        except Exception as error:
            raise SubEnvError(f"{self.label} raised {type(error).__name__} in step(): "
                              f"{error}") from error

    def reset(self, **kwargs):
        try:
            return self.env.reset(**kwargs)
        except Exception as error:
            raise SubEnvError(f"{self.label} raised {type(error).__name__} in reset(): "
                              f"{error}") from error


def _label(env, index):
    spec = env.spec
    name = spec.id if spec is not None else type(env.unwrapped).__name__
    return f"sub-env {index} ({name})"


def _build(factory, index, guard):
    """Make sub-environment ``index`` (runs in the worker process in async mode); ``guard`` wraps
    it in :class:`_GuardedEnv`."""
    if guard:  # in the worker process
        # A forked worker inherits its parent's signal handlers; one that catches SIGTERM (SDL
        # installs one when pygame renders in the parent) would make terminate() a no-op and
        # closing the vector env hang.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        env = gymnasium.make(factory) if isinstance(factory, str) else factory()
    except Exception as error:
        raise SubEnvError(f"the factory of sub-env {index} ({factory!r}) raised "
                          f"{type(error).__name__}: {error}") from error
    if isinstance(env, AbstractEnv):
        env = to_gymnasium(env)
    elif not isinstance(env, gymnasium.Env):
        raise TypeError(f"the factory of sub-env {index} returned {env!r}; it must return a "
                        "gymnasium.Env or a single-agent rlcore AbstractEnv")
    return _GuardedEnv(env, index) if guard else env


class _AsyncVectorEnv(AsyncVectorEnv):
    """Gymnasium's ``AsyncVectorEnv``, except that a worker which dies while the vector env is
    being built (its factory raised) gives a :class:`SubEnvError` naming it, with every worker
    terminated, instead of a bare ``ConnectionResetError`` or ``EOFError``."""

    def _check_spaces(self):
        try:
            super()._check_spaces()
        except (EOFError, BrokenPipeError, ConnectionError) as error:
            dead = _dead_workers(self.processes)
            for process in self.processes:
                if process.is_alive():
                    process.terminate()
            for process in self.processes:
                process.join()
            for pipe in self.parent_pipes:
                if pipe is not None:
                    pipe.close()
            self.closed = True
            raise SubEnvError(f"the process of {dead or 'a sub-env'} died while the vector env "
                              f"was being built ({type(error).__name__}: its factory raised, "
                              "see the worker's traceback on stderr); all workers were "
                              "terminated") from error


def _dead_workers(processes, wait=2.0):
    """Which worker processes have died (waiting up to ``wait`` s for the OS to tell)."""
    deadline = time.monotonic() + wait
    while True:
        dead = [(i, p) for i, p in enumerate(processes) if not p.is_alive()]
        if dead or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    return ", ".join(f"sub-env {i} (exit code {p.exitcode})" for i, p in dead)


def _failing_sub_env(error):
    """``(index, "step" or "reset")`` of the sub-environment whose ``step``/``reset`` raised
    ``error`` inside ``SyncVectorEnv.step``/``reset``, read from the traceback (so sync mode pays
    nothing for naming it until something fails), or ``None``."""
    codes = (SyncVectorEnv.step.__code__, SyncVectorEnv.reset.__code__)
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code in codes and tb.tb_next is not None \
                and tb.tb_next.tb_frame.f_code.co_name in ("step", "reset"):
            index = tb.tb_frame.f_locals.get("i")
            return (index, tb.tb_next.tb_frame.f_code.co_name) if isinstance(index, int) \
                else None
        tb = tb.tb_next
    return None


class MultiThreadEnv(AbstractEnv):
    """``n`` sub-environments stepped together (RL.jl's ``MultiThreadEnv``; also ``VectorEnv``).

    ``envs`` is a list of Gymnasium ids (``"CartPole-v1"``) or of zero-argument factories that
    return a ``gymnasium.Env`` or one of our single-agent environments; or one id or factory
    with ``n``, the number of copies. ``state()`` is the batch
    of current states (after the automatic reset of finished sub-environments), ``reward()``,
    ``is_terminated()`` and ``is_truncated()`` are arrays over the sub-environments for the last
    step; ``action_space()`` is the batched space and ``single_action_space()`` one
    sub-environment's. ``env[i]`` is the :class:`SubEnv` view of sub-environment ``i``;
    ``ended()`` the sub-environments whose episodes the last step ended and ``final_state(i)``
    the last state of such an episode.

    Keyword arguments: ``mode="sync"`` (in this process) or ``"async"`` (a process each),
    ``shared_memory=True`` (async: observations through shared memory), ``context=None``
    (async: the multiprocessing start method), ``step_timeout=60.0`` (async: seconds a step or
    reset may take; past it :class:`SubEnvError` names the sub-environments that did not
    answer and the workers are terminated; ``None`` waits forever; a sync sub-environment runs
    in this process and cannot be timed out), ``rng``/``seed`` (the first ``reset()`` seeds
    sub-environment ``i`` with ``s + i``, ``s`` drawn from ``rng``).

    A sub-environment whose factory raises, or which raises in ``step``/``reset``, or whose
    process dies, gives :class:`SubEnvError` naming it; the vector env is then closed and its
    worker processes are gone.
    """

    def __init__(self, envs, n=None, *, mode="sync", shared_memory=True, context=None,
                 step_timeout=60.0, rng=None, seed=None):
        if isinstance(envs, str) or callable(envs):
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
                raise ValueError(f"with one environment {envs!r}, n must be the number of "
                                 f"copies (a positive int), got n={n!r}")
            envs = [envs] * int(n)
        elif n is not None:
            raise ValueError(f"n={n!r} is for one environment id or factory; {envs!r} is a list")
        envs = list(envs)
        if not envs:
            raise ValueError("MultiThreadEnv needs at least one sub-environment")
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {_MODES}, got mode={mode!r}")
        if step_timeout is not None and not step_timeout > 0:
            raise ValueError(f"step_timeout must be positive seconds or None, got {step_timeout!r}")
        self.mode = mode
        self.step_timeout = step_timeout
        self.rng = make_rng(rng, seed)
        # Sync mode names a failing sub-env from the traceback (_failing_sub_env) rather than
        # through a wrapper around every sub-env, which would cost a call per sub-env step.
        factories = [functools.partial(_build, factory, i, mode == "async")
                     for i, factory in enumerate(envs)]
        if mode == "sync":
            self.vector_env = SyncVectorEnv(factories, autoreset_mode=AutoresetMode.SAME_STEP)
        else:
            self.vector_env = _AsyncVectorEnv(factories, shared_memory=shared_memory,
                                              context=context,
                                              autoreset_mode=AutoresetMode.SAME_STEP)
        self.n = self.vector_env.num_envs
        self._single_action_space = self.vector_env.single_action_space
        self._action_space = self.vector_env.action_space
        self._discrete = type(self._single_action_space) is spaces.Discrete
        self._batch_shape = (self.n,)
        self._stepper = self.vector_env.step if mode == "sync" else self._step_async
        self._views = [SubEnv(self, i) for i in range(self.n)]
        self._seeded = False
        self._closed = False
        self._state = None
        self._reward = np.zeros(self.n)
        self._terminated = np.zeros(self.n, dtype=bool)
        self._truncated = np.zeros(self.n, dtype=bool)
        self._final_states = {}
        self._ended = _NONE  # the sub-envs whose episodes the last step ended
        self._fresh = np.ones(self.n, dtype=bool)
        self._any_fresh = True

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self._views[i]

    # --- the batch
    def reset(self):
        """Reset every sub-environment (the run loop does this once; afterwards sub-environments
        reset themselves when their episodes end)."""
        self._check_open()
        seed = None
        if not self._seeded:
            seed = int(self.rng.integers(_SEED_BOUND))
            self._action_space.seed(seed)
            self._seeded = True
        self._state, _ = self._call(self._reset, seed)
        self._reward = np.zeros(self.n)
        self._terminated = np.zeros(self.n, dtype=bool)
        self._truncated = np.zeros(self.n, dtype=bool)
        self._final_states = {}
        self._ended = _NONE
        self._fresh[:] = True
        self._any_fresh = True

    def __call__(self, actions):
        if self._state is None or self._closed:
            self._check_open()
            raise RuntimeError(f"{self!r} has not been reset; call reset() before acting")
        actions = self._check_actions(actions)
        try:
            state, reward, terminated, truncated, info = self._stepper(actions)
        except Exception as error:
            self._raise_sub_env_error(error)
        self._state, self._reward = state, reward
        self._terminated, self._truncated = terminated, truncated
        if self._any_fresh:
            self._fresh[:] = False
            self._any_fresh = False
        # Same-step autoreset: the sub-envs that ended (terminated or truncated) are exactly
        # those with a final observation.
        if "_final_obs" in info:
            finals = info["final_obs"]
            self._ended = np.flatnonzero(info["_final_obs"])
            self._final_states = {int(i): finals[i] for i in self._ended}
        elif self._ended is not _NONE:
            self._ended = _NONE
            self._final_states = {}

    def _reset(self, seed):
        if self.mode == "async":
            self.vector_env.reset_async(seed=seed)
            return self.vector_env.reset_wait(timeout=self.step_timeout)
        return self.vector_env.reset(seed=seed)

    def _step_async(self, actions):
        self.vector_env.step_async(actions)
        return self.vector_env.step_wait(timeout=self.step_timeout)

    def _check_actions(self, actions):
        actions = np.asarray(actions)
        if self._discrete and actions.shape == self._batch_shape and actions.dtype.kind in "iu":
            # One reduction: below start wraps around to a huge unsigned value.
            offsets = actions.astype(np.int64, copy=False)
            low = int(self._single_action_space.start)
            if low:
                offsets = offsets - low
            if offsets.view(np.uint64).max() < self._single_action_space.n:
                return actions
        if actions.ndim == 0 or len(actions) != self.n:
            raise ValueError(f"actions {actions!r} must hold one action per sub-env "
                             f"({self.n}) from {self._single_action_space}")
        if self._action_space.contains(actions):  # one check of the whole batch
            return actions
        for i, action in enumerate(actions):  # find the culprit for the message
            try:
                check_action_in_space(action, self._single_action_space)
            except ValueError as error:
                raise ValueError(f"sub-env {i}: {error}") from None
        return actions

    def _call(self, method, *args, **kwargs):
        try:
            return method(*args, **kwargs)
        except Exception as error:
            self._raise_sub_env_error(error)

    def _raise_sub_env_error(self, error):
        """Close the vector env and raise :class:`SubEnvError` naming the failing sub-env(s), or
        re-raise ``error`` when no sub-env is to blame."""
        if isinstance(error, SubEnvError):
            self.close(terminate=True)
            raise error
        if isinstance(error, multiprocessing.TimeoutError):
            silent = self._silent_workers()
            self.close(terminate=True)
            raise SubEnvError(f"{self!r}: {silent or 'a sub-env'} did not answer within "
                              f"{self.step_timeout} s; the vector env was closed and its workers "
                              "terminated") from error
        if isinstance(error, (EOFError, BrokenPipeError, ConnectionError)):
            dead = _dead_workers(getattr(self.vector_env, "processes", ()))
            self.close(terminate=True)
            raise SubEnvError(f"{self!r}: the process of {dead or 'a sub-env'} died "
                              f"({type(error).__name__}); the vector env was closed") from error
        failing = _failing_sub_env(error) if self.mode == "sync" else None
        if failing is None:
            raise error
        index, method_name = failing
        label = _label(self.vector_env.envs[index], index)
        self.close()
        raise SubEnvError(f"{label} raised {type(error).__name__} in {method_name}(): "
                          f"{error}") from error

    def _silent_workers(self):
        """The sub-environments whose workers have not answered the pending call."""
        pipes = getattr(self.vector_env, "parent_pipes", ())
        silent = [i for i, pipe in enumerate(pipes)
                  if pipe is not None and not pipe.closed and not pipe.poll(0)]
        return ", ".join(f"sub-env {i}" for i in silent)

    def _check_open(self):
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")

    def state(self, player=None):
        return self._state

    def reward(self, player=None):
        return self._reward

    def is_terminated(self):
        """Array of bools: which sub-environments' last step terminated their episode."""
        return self._terminated

    def is_truncated(self):
        """Array of bools: which sub-environments' last step truncated their episode."""
        return self._truncated

    def ended(self):
        """The indices (an int array, ascending) of the sub-environments whose episodes the last
        step ended, terminated or truncated; they have already been reset."""
        return self._ended

    def final_state(self, i):
        """The last state of the episode sub-environment ``i`` ended with the last step."""
        return self._final_states[i]

    def check_action(self, actions, player=None):
        """Raise ``ValueError`` naming the culprit unless ``actions`` holds one legal action
        per sub-environment."""
        self._check_actions(actions)

    def action_space(self, player=None):
        return self._action_space

    def single_action_space(self):
        """One sub-environment's action space."""
        return self._single_action_space

    def state_space(self, player=None):
        return self.vector_env.observation_space

    def single_state_space(self):
        """One sub-environment's state space."""
        return self.vector_env.single_observation_space

    def close(self, terminate=False):
        """Close the sub-environments (``terminate=True`` kills worker processes at once)."""
        if self._closed:
            return
        self._closed = True
        if self.mode == "async":
            self.vector_env.close(terminate=terminate)
        else:
            self.vector_env.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close(terminate=any(exc))

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"MultiThreadEnv renders only mode='text', got mode={mode!r}")
        return f"{self!r}: rewards {self._reward}, terminated {self._terminated}"

    def __repr__(self):
        return f"MultiThreadEnv(n={self.n}, mode={self.mode!r})"


VectorEnv = MultiThreadEnv


class SubEnv(AbstractEnv):
    """Sub-environment ``index`` of a :class:`MultiThreadEnv`, as the vectorised run loop shows
    it to episode stages, hooks and stop conditions.

    Right after the step that ended its episode, ``state()`` is the episode's final state and
    ``reward()``, ``is_terminated()``, ``is_truncated()`` those of that step; once its next
    episode has begun (``PRE_EPISODE_STAGE``), the new first state, reward 0 and no flags. It
    cannot be stepped on its own.
    """

    def __init__(self, vector_env, index):
        self.vector_env = vector_env
        self.index = index

    def reset(self):
        raise TypeError(f"{self!r} resets itself when its episode ends; reset the vector env")

    def __call__(self, action):
        raise TypeError(f"{self!r} is stepped through its vector env, with one action per "
                        "sub-env")

    def state(self, player=None):
        env, i = self.vector_env, self.index
        if not env._fresh[i] and i in env._final_states:
            return env._final_states[i]
        return env._state[i]

    def reward(self, player=None):
        env = self.vector_env
        return 0.0 if env._fresh[self.index] else float(env._reward[self.index])

    def is_terminated(self):
        env = self.vector_env
        return not env._fresh[self.index] and bool(env._terminated[self.index])

    def is_truncated(self):
        env = self.vector_env
        return not env._fresh[self.index] and bool(env._truncated[self.index])

    def action_space(self, player=None):
        return self.vector_env.single_action_space()

    def state_space(self, player=None):
        return self.vector_env.single_state_space()

    def __repr__(self):
        return f"SubEnv({self.vector_env!r}, {self.index})"


@dispatch(object, MultiThreadEnv, object, object)
def run_loop(policy, env, stop_condition, hook):  # noqa: F811
    """The vectorised loop: batched act stages, episode stages per sub-environment, stop
    conditions asked per sub-environment step (see the module docstring)."""
    hook(PRE_EXPERIMENT_STAGE, policy, env)
    update(policy, env, PRE_EXPERIMENT_STAGE)
    env.reset()
    views = [env[i] for i in range(env.n)]
    for view in views:
        update(policy, view, PRE_EPISODE_STAGE)
        hook(PRE_EPISODE_STAGE, policy, view)
    is_stop = False
    while not is_stop:
        action = policy(env)
        update(policy, env, PRE_ACT_STAGE, action)
        hook(PRE_ACT_STAGE, policy, env, action)
        env(action)
        update(policy, env, POST_ACT_STAGE)
        hook(POST_ACT_STAGE, policy, env)
        for view in views:
            if stop_condition(policy, view):
                is_stop = True
                break
        ended = env._ended
        for i in ended:
            update(policy, views[i], POST_EPISODE_STAGE)
            hook(POST_EPISODE_STAGE, policy, views[i])
        if not is_stop and len(ended):
            env._any_fresh = True
            for i in ended:
                env._fresh[i] = True
                update(policy, views[i], PRE_EPISODE_STAGE)
                hook(PRE_EPISODE_STAGE, policy, views[i])
    hook(POST_EXPERIMENT_STAGE, policy, env)
    update(policy, env, POST_EXPERIMENT_STAGE)
    return hook


# --- per-sub-environment bookkeeping of the episode hooks: the running sums become arrays with
# one entry per sub-environment; the generic POST_ACT rules (``+= env.reward()``, ``+= 1``) then
# add the whole batch, and the rules below close one sub-environment's episode.
@dispatch(TotalRewardPerEpisode, PreExperimentStage, object, MultiThreadEnv)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.reward = np.zeros(env.n)


@dispatch(TotalRewardPerEpisode, PreEpisodeStage, object, SubEnv)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.reward[env.index] = 0.0


@dispatch(TotalRewardPerEpisode, PostEpisodeStage, object, SubEnv)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.rewards.append(float(hook.reward[env.index]))
    hook.reward[env.index] = 0.0


@dispatch(StepsPerEpisode, PreExperimentStage, object, MultiThreadEnv)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.count = np.zeros(env.n, dtype=np.int64)


@dispatch(StepsPerEpisode, PreEpisodeStage, object, SubEnv)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.count[env.index] = 0


@dispatch(StepsPerEpisode, PostEpisodeStage, object, SubEnv)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.steps.append(int(hook.count[env.index]))
    hook.count[env.index] = 0


@dispatch(MultiThreadEnv)
def n_envs(env):  # noqa: F811
    return env.n


# --- recording a vectorised run: the SARTS layout, n rows per step (episode stages and
# POST_EXPERIMENT are rlcore.trajectories.recording's rules, which serve n sub-envs as one env)
@dispatch(CircularArraySARTSTrajectory, AbstractPolicy, MultiThreadEnv, PreActStage, object)
def update(trajectory, policy, env, stage, actions):  # noqa: F811
    """Push the ``n`` states and the ``n`` actions (checked first)."""
    check_n_envs(trajectory, env)
    if "legal_actions_mask" in trajectory:
        raise TypeError(f"{env!r} does not report its sub-environments' legal actions: record "
                        f"legal_actions_mask from one environment")
    env.check_action(actions)
    trajectory.extend(state=env.state(), action=actions)


@dispatch(CircularArraySARTSTrajectory, AbstractPolicy, MultiThreadEnv, PostActStage)
def update(trajectory, policy, env, stage):  # noqa: F811
    """Push the ``n`` rewards, flags and next states; a sub-environment that just ended (and
    was reset) gets its episode's final state as next state. A NaN or infinite reward raises
    ``EnvMismatchError`` naming the sub-environments and the step (the count of batched steps
    the trajectory has recorded, this one included)."""
    rewards = env.reward()
    check_finite_rewards(rewards, env, trajectory.traces["reward"].end_index // env.n + 1)
    terminal = np.asarray(env.is_terminated(), bool)
    next_state = env.state()
    ended = env.ended()
    if len(ended):
        next_state = np.array(next_state)  # not the env's own array
        for i in ended:
            next_state[i] = env.final_state(int(i))
    values = {"reward": rewards, "terminal": terminal,
              "truncated": np.asarray(env.is_truncated(), bool) & ~terminal,
              "next_state": next_state}
    priority = trajectory.traces.get("priority")
    if priority is not None:
        values["priority"] = np.full(env.n, priority.max_priority)
    trajectory.extend(**values)


@dispatch(AbstractTrajectory, AbstractPolicy, MultiThreadEnv, PreActStage, object)
def update(trajectory, policy, env, stage, actions):  # noqa: F811
    """A SART trajectory records one environment: refuse a vectorised one."""
    raise TypeError(f"{type(trajectory).__name__} records one environment (SART layout); "
                    f"{env!r} steps {env.n} sub-environments that reset themselves: use "
                    f"CircularArraySARTSTrajectory(capacity, n_envs={env.n}, ...)")

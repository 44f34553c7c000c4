"""Trajectories: the generic ``Trajectory`` and the named SART constructors of RL.jl v0.10.

Reference: ReinforcementLearningCore.jl v0.10, ``src/policies/agents/trajectories/trajectory.jl``.

SART layout (shape convention of this module): ``state`` and ``action`` (and
``legal_actions_mask``) hold one element per decision, ``reward``, ``terminal`` and ``truncated``
(and ``priority``) one per step. Transition ``i`` is ``(state[i], action[i], reward[i],
terminal[i], truncated[i], next_state = state[i + 1])``, aligned by stream position (see
:mod:`rlcore.trajectories.buffers`). The state-side traces hold ``capacity + 1`` elements so the
newest transition keeps its next state. A step with both ``terminal`` and ``truncated`` set is a
*padding* step (see :mod:`rlcore.trajectories.recording`): it is never sampled.

SARTS layout (:class:`CircularArraySARTSTrajectory`, after RL.jl's ``CircularArraySARTSTraces``):
every trace holds one element per *transition*, its next state included: transition ``i`` is
``(state[i], action[i], reward[i], terminal[i], truncated[i], next_state[i])``. A batched step of
``n_envs`` sub-environments appends ``n_envs`` consecutive rows, one per sub-environment in
order, so the rows of one sub-environment are ``n_envs`` stream positions apart. No padding.

Each trace is given as ``name=(shape, dtype)``, e.g. ``state=((4,), np.float32)``. The circular
constructors take ``frame_stack=True`` for stacked states (Atari's ``(4, 84, 84)`` frames): the
state trace is then a :class:`~rlcore.trajectories.frame_stack.FrameStackBuffer` that stores each
frame once.
"""

import numpy as np

from rlcore.trajectories.base import AbstractTrajectory
from rlcore.trajectories.buffers import (
    CircularArrayBuffer, ElasticArrayBuffer, VectorBuffer, as_capacity, as_shape,
)
from rlcore.trajectories.frame_stack import FrameStackBuffer
from rlcore.trajectories.sum_tree import SumTree

__all__ = [
    "Trajectory", "CircularArraySARTTrajectory", "CircularArraySLARTTrajectory",
    "CircularArrayPSARTTrajectory", "CircularArraySARTSTrajectory", "VectorSARTTrajectory",
    "ElasticSARTTrajectory",
]


def _spec(name, spec):
    """Parse a trace spec ``(shape, dtype)`` into ``(shape tuple, numpy dtype)``."""
    try:
        shape, dtype = spec
        return as_shape(shape), np.dtype(dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a (shape, dtype) pair such as ((4,), np.float32), "
                        f"got {spec!r}") from None


def _show(spec):
    shape, dtype = spec
    return f"({shape}, {dtype})"


class Trajectory(AbstractTrajectory):
    """A trajectory made of the given named traces (buffers).

    Args:
        **traces: ``name=buffer`` pairs, e.g. ``state=CircularArrayBuffer(101, (4,))``.

    >>> from rlcore.trajectories.buffers import ElasticArrayBuffer
    >>> t = Trajectory(state=ElasticArrayBuffer((2,)), reward=ElasticArrayBuffer())
    >>> t.push(state=np.zeros(2), reward=1.0)
    >>> len(t), sorted(t.keys())
    (1, ['reward', 'state'])
    """


def _circular_sart_traces(capacity, state, action, reward, terminal, frame_stack):
    specs = {"state": _spec("state", state), "action": _spec("action", action),
             "reward": _spec("reward", reward), "terminal": _spec("terminal", terminal)}
    if not isinstance(frame_stack, (bool, np.bool_)):
        raise TypeError(f"frame_stack must be True or False, got {frame_stack!r}")
    if frame_stack and len(specs["state"][0]) == 0:
        raise ValueError(f"frame_stack=True needs stacked states of shape (depth, *frame_shape), "
                         f"the stack axis first, got state shape {specs['state'][0]}")
    state_buffer = FrameStackBuffer if frame_stack else CircularArrayBuffer
    traces = {
        "state": state_buffer(capacity + 1, *specs["state"]),
        "action": CircularArrayBuffer(capacity + 1, *specs["action"]),
        "reward": CircularArrayBuffer(capacity, *specs["reward"]),
        "terminal": CircularArrayBuffer(capacity, *specs["terminal"]),
        "truncated": CircularArrayBuffer(capacity, *specs["terminal"]),
    }
    return specs, traces


def _named_repr(self, **extra):
    fields = [f"capacity={self.capacity}"] if getattr(self, "capacity", None) else []
    fields += [f"{k}={_show(v)}" for k, v in self.specs.items()]
    if type(self.traces.get("state")) is FrameStackBuffer:
        fields.append("frame_stack=True")
    fields += [f"{k}={v!r}" for k, v in extra.items()]
    return f"{type(self).__name__}({', '.join(fields)}, len={len(self)})"


class CircularArraySARTTrajectory(AbstractTrajectory):
    """A fixed-capacity replay trajectory of SART traces, backed by ``CircularArrayBuffer``.

    Reference: RL.jl ``CircularArraySARTTrajectory``.

    Args:
        capacity: the number of steps (transitions) kept; older ones are overwritten.
        state: ``(shape, dtype)`` of a state (default ``((4,), np.float32)``).
        action: ``(shape, dtype)`` of an action (default ``((), np.int64)``).
        reward: ``(shape, dtype)`` of a reward (default ``((), np.float32)``).
        terminal: ``(shape, dtype)`` of the terminal and truncated flags (default ``((), bool)``).
        frame_stack: ``True`` for stacked states (shape ``(depth, *frame_shape)``, the stack axis
            first, e.g. Atari's ``(4, 84, 84)``) stored one frame per step in a
            :class:`~rlcore.trajectories.frame_stack.FrameStackBuffer`, as Dopamine's replay
            does: about ``depth`` times less memory, the same samples (default ``False``).

    Traces ``state`` and ``action`` hold ``capacity + 1`` elements, ``reward``, ``terminal`` and
    ``truncated`` hold ``capacity``.

    >>> t = CircularArraySARTTrajectory(100, state=((2,), np.float32))
    >>> t.push(state=np.zeros(2, np.float32), action=1)
    >>> t.push(reward=1.0, terminal=False, truncated=False)
    >>> t.push(state=np.ones(2, np.float32), action=0)
    >>> len(t), len(t["state"]), t.isfull
    (1, 2, False)
    >>> atari = CircularArraySARTTrajectory(10_000, state=((4, 84, 84), np.uint8),
    ...                                     frame_stack=True)
    >>> round(atari["state"].nbytes / (10_000 * 84 * 84), 2)  # bytes per step: one frame
    1.02
    """

    def __init__(self, capacity, *, state=((4,), np.float32), action=((), np.int64),
                 reward=((), np.float32), terminal=((), bool), frame_stack=False):
        self.capacity = as_capacity(capacity)
        self.specs, traces = _circular_sart_traces(self.capacity, state, action, reward, terminal,
                                                   frame_stack)
        super().__init__(**traces)

    __repr__ = _named_repr


class CircularArraySLARTTrajectory(AbstractTrajectory):
    """``CircularArraySARTTrajectory`` plus a ``legal_actions_mask`` trace (``capacity + 1``).

    Reference: RL.jl ``CircularArraySLARTTrajectory``.

    Args:
        capacity, state, action, reward, terminal, frame_stack: as for
            :class:`CircularArraySARTTrajectory`.
        legal_actions_mask: ``(shape, dtype)`` of the mask, e.g. ``((n_actions,), bool)``
            (required).

    >>> t = CircularArraySLARTTrajectory(10, legal_actions_mask=((3,), bool))
    >>> sorted(t.keys())
    ['action', 'legal_actions_mask', 'reward', 'state', 'terminal', 'truncated']
    """

    def __init__(self, capacity, *, state=((4,), np.float32), action=((), np.int64),
                 reward=((), np.float32), terminal=((), bool), legal_actions_mask,
                 frame_stack=False):
        self.capacity = as_capacity(capacity)
        self.specs, traces = _circular_sart_traces(self.capacity, state, action, reward, terminal,
                                                   frame_stack)
        self.specs["legal_actions_mask"] = _spec("legal_actions_mask", legal_actions_mask)
        traces["legal_actions_mask"] = CircularArrayBuffer(self.capacity + 1,
                                                           *self.specs["legal_actions_mask"])
        super().__init__(**traces)

    __repr__ = _named_repr


class CircularArrayPSARTTrajectory(AbstractTrajectory):
    """A prioritized ``CircularArraySARTTrajectory``: a ``priority`` trace backed by a sum tree.

    Reference: RL.jl ``CircularArrayPSARTTrajectory``; Schaul et al., "Prioritized Experience
    Replay" (https://arxiv.org/abs/1511.05952). New steps get the largest priority stored so far
    (``initial_priority`` before any update) so each is sampled at least once with high
    probability; padding steps get 0 and are never sampled. The learner stores priorities already
    raised to its exponent α, e.g. ``(|td_error| + ε) ** α``.

    Args:
        capacity, state, action, reward, terminal, frame_stack: as for
            :class:`CircularArraySARTTrajectory`.
        initial_priority: the priority of new steps before any update (default 1.0).

    >>> t = CircularArrayPSARTTrajectory(10, state=((), np.int64))
    >>> t.push(state=0, action=0); t.push(reward=1.0, terminal=False, truncated=False, priority=1.0)
    >>> t.update_priorities([0], [0.5]); float(t["priority"][0])
    0.5
    """

    def __init__(self, capacity, *, state=((4,), np.float32), action=((), np.int64),
                 reward=((), np.float32), terminal=((), bool), initial_priority=1.0,
                 frame_stack=False):
        self.capacity = as_capacity(capacity)
        self.specs, traces = _circular_sart_traces(self.capacity, state, action, reward, terminal,
                                                   frame_stack)
        traces["priority"] = SumTree(self.capacity, initial_max_priority=initial_priority)
        self.initial_priority = initial_priority
        super().__init__(**traces)

    def update_priorities(self, indices, priorities):
        """Set the priorities of the steps at logical ``indices`` (a batch's ``indices``).

        Indices stay valid until the next push. Accepts numpy arrays, lists or torch tensors.
        """
        self.traces["priority"].update(_to_numpy(indices), _to_numpy(priorities))

    def __repr__(self):
        return _named_repr(self, initial_priority=self.initial_priority)


class CircularArraySARTSTrajectory(AbstractTrajectory):
    """A fixed-capacity replay of transitions that stores each next state: the replay of a
    vectorised environment (one row per sub-environment and step).

    Reference: RL.jl's ``CircularArraySARTSTraces`` (ReinforcementLearningTrajectories.jl); the
    replay of a vectorised DQN as in CleanRL and Stable-Baselines3. Layout: the module docstring.

    Traces ``state, action, reward, terminal, truncated, next_state`` (and ``priority``, a
    :class:`~rlcore.trajectories.sum_tree.SumTree`, when prioritized), each of ``capacity`` rows.
    The recording rules (:mod:`rlcore.trajectories.recording` for one environment,
    :mod:`rlenvs.vector_env` for ``MultiThreadEnv``) push ``n_envs`` rows per step: states and
    actions at ``PreActStage``, the rest at ``PostActStage``. Stored next states make the
    automatic reset of a vectorised environment harmless: a finished episode's row keeps its
    true final state. ``len()`` is the number of transitions held.

    Args:
        capacity: the number of transitions (rows) kept; older ones are overwritten. At least
            ``n_envs``.
        n_envs: the number of environments recorded per step, the stride between consecutive
            rows of one sub-environment (default 1).
        state, action, reward, terminal: ``(shape, dtype)`` as for
            :class:`CircularArraySARTTrajectory` (same defaults); ``next_state`` is as ``state``
            and ``truncated`` as ``terminal``.
        prioritized: add a ``priority`` trace, as :class:`CircularArrayPSARTTrajectory`
            (default ``False``).
        initial_priority: the priority of new transitions before any update (default 1.0).
        legal_actions_mask: ``None`` (default), or the ``(shape, dtype)`` of a
            ``legal_actions_mask`` trace recorded with each state, e.g. ``((n_actions,), bool)``
            (one environment whose legal actions change; an actor-critic learner then learns
            with the masks its policy acted with).

    >>> t = CircularArraySARTSTrajectory(6, n_envs=2, state=((), np.int64))
    >>> t.extend(state=[0, 10], action=[1, 1])            # PreAct of 2 sub-envs
    >>> t.extend(reward=[1.0, 1.0], terminal=[False, True], truncated=[False, False],
    ...          next_state=[1, 11])                      # PostAct
    >>> len(t), t["next_state"].to_array().tolist(), t.n_envs
    (2, [1, 11], 2)
    """

    def __init__(self, capacity, *, n_envs=1, state=((4,), np.float32), action=((), np.int64),
                 reward=((), np.float32), terminal=((), bool), prioritized=False,
                 initial_priority=1.0, legal_actions_mask=None):
        self.capacity = as_capacity(capacity)
        if not isinstance(n_envs, (int, np.integer)) or isinstance(n_envs, bool) or n_envs < 1:
            raise ValueError(f"n_envs must be a positive int, got {n_envs!r}")
        self.n_envs = int(n_envs)
        if self.capacity < self.n_envs:
            raise ValueError(f"capacity ({self.capacity}) must be at least n_envs "
                             f"({self.n_envs}): one step writes n_envs rows")
        if not isinstance(prioritized, (bool, np.bool_)):
            raise TypeError(f"prioritized must be True or False, got {prioritized!r}")
        self.specs = {"state": _spec("state", state), "action": _spec("action", action),
                      "reward": _spec("reward", reward), "terminal": _spec("terminal", terminal)}
        traces = {name: CircularArrayBuffer(self.capacity, *self.specs[spec]) for name, spec in
                  (("state", "state"), ("action", "action"), ("reward", "reward"),
                   ("terminal", "terminal"), ("truncated", "terminal"),
                   ("next_state", "state"))}
        if legal_actions_mask is not None:
            self.specs["legal_actions_mask"] = _spec("legal_actions_mask", legal_actions_mask)
            traces["legal_actions_mask"] = CircularArrayBuffer(
                self.capacity, *self.specs["legal_actions_mask"])
        self.prioritized = bool(prioritized)
        self.initial_priority = initial_priority
        if self.prioritized:
            traces["priority"] = SumTree(self.capacity, initial_max_priority=initial_priority)
        super().__init__(**traces)

    def update_priorities(self, indices, priorities):
        """Set the priorities of the transitions at logical ``indices`` (a batch's ``indices``),
        as :meth:`CircularArrayPSARTTrajectory.update_priorities`; only when prioritized."""
        if not self.prioritized:
            raise TypeError(f"{self!r} has no priorities: build it with prioritized=True")
        self.traces["priority"].update(_to_numpy(indices), _to_numpy(priorities))

    def __repr__(self):
        extra = {"n_envs": self.n_envs, "prioritized": self.prioritized}
        if self.prioritized:
            extra["initial_priority"] = self.initial_priority
        return _named_repr(self, **extra)


def _to_numpy(x):
    if hasattr(x, "detach"):  # a torch tensor, possibly on an accelerator
        x = x.detach().cpu().numpy()
    return np.asarray(x)


class VectorSARTTrajectory(AbstractTrajectory):
    """An unbounded SART trajectory of Python lists: states, actions and rewards of any type.

    Reference: RL.jl ``VectorSARTTrajectory``; for episodic (e.g. tabular Monte Carlo) methods.

    Args:
        dummy_action: the action pushed after an episode's final state (default ``None``: zeros
            like the previous action when it is a number or array).

    >>> t = VectorSARTTrajectory()
    >>> t.push(state="s0", action="left"); t.push(reward=1, terminal=True, truncated=False)
    >>> len(t), t["state"][0]
    (1, 's0')
    """

    def __init__(self, *, dummy_action=None):
        self.specs = {}
        super().__init__(state=VectorBuffer(), action=VectorBuffer(dummy=dummy_action),
                         reward=VectorBuffer(), terminal=VectorBuffer(),
                         truncated=VectorBuffer())

    def __repr__(self):
        return f"VectorSARTTrajectory(len={len(self)})"


class ElasticSARTTrajectory(AbstractTrajectory):
    """An unbounded SART trajectory of growing numpy arrays (``ElasticArrayBuffer``).

    Reference: RL.jl ``ElasticSARTTrajectory``; for episodic methods with array states.

    Args:
        state, action, reward, terminal: ``(shape, dtype)`` as for
            :class:`CircularArraySARTTrajectory` (same defaults).

    >>> t = ElasticSARTTrajectory(state=((), np.int64))
    >>> t.push(state=3, action=1); t.push(reward=0.5, terminal=True, truncated=False)
    >>> t["state"].to_array().tolist(), len(t)
    ([3], 1)
    """

    def __init__(self, *, state=((4,), np.float32), action=((), np.int64),
                 reward=((), np.float32), terminal=((), bool)):
        self.specs = {"state": _spec("state", state), "action": _spec("action", action),
                      "reward": _spec("reward", reward), "terminal": _spec("terminal", terminal)}
        super().__init__(**{name: ElasticArrayBuffer(*spec) for name, spec in self.specs.items()},
                         truncated=ElasticArrayBuffer(*self.specs["terminal"]))

    __repr__ = _named_repr

"""The abstract trajectory type and the API every trajectory shares.

A trajectory is a named set of traces, each a buffer from :mod:`rlcore.trajectories.buffers`
(after RL.jl v0.10's ``Trajectory``, a ``NamedTuple`` of traces). Shape convention: a trace holds
elements of a fixed shape; the trace's own shape convention (element axis first) applies.
"""

import abc

__all__ = ["AbstractTrajectory"]


class AbstractTrajectory(abc.ABC):
    """Base class of trajectories: a named set of traces (see :mod:`rlcore.trajectories`).

    Subclasses call ``super().__init__(**traces)`` with buffers (or override the ``traces``
    property); everything below is built on the ``traces`` dict. ``traj["state"]`` is the state
    trace, ``traj.push(state=..., action=...)`` validates every value before pushing any (and
    ``traj.extend(state=states, action=actions)`` pushes ``k`` rows to each trace likewise),
    ``len(traj)`` is the length of the ``terminal`` trace when there is one (the number of
    recorded steps), else of the shortest trace. ``n_envs`` is the stride between consecutive
    rows of one environment: 1 here; a trajectory recording ``n`` sub-environments row by row
    (:class:`~rlcore.trajectories.trajectory.CircularArraySARTSTrajectory`) sets it to ``n``.
    """

    n_envs = 1

    def __init__(self, **traces):
        if not traces:
            raise ValueError("a trajectory needs at least one trace")
        for name, trace in traces.items():
            if not all(hasattr(trace, m) for m in ("push", "pop", "check", "clear", "__len__")):
                raise TypeError(f"trace {name!r} must be a buffer (push, pop, check, clear), "
                                f"got {type(trace).__name__}")
        self._traces = dict(traces)

    @property
    def traces(self):
        """The ``{name: buffer}`` dict of traces."""
        return self._traces

    def __getitem__(self, name):
        try:
            return self.traces[name]
        except KeyError:
            raise KeyError(f"{type(self).__name__} has no trace {name!r}; it has "
                           f"{list(self.traces)}") from None

    def __contains__(self, name):
        return name in self.traces

    def keys(self):
        """The names of the traces."""
        return self.traces.keys()

    def __len__(self):
        terminal = self.traces.get("terminal")
        if terminal is not None:
            return len(terminal)
        return min(len(t) for t in self.traces.values())

    @property
    def isfull(self):
        """Whether the ``terminal`` trace (else every trace) is full."""
        terminal = self.traces.get("terminal")
        if terminal is not None:
            return terminal.isfull
        return all(t.isfull for t in self.traces.values())

    def push(self, **values):
        """Push one element to each named trace; every value is validated before any is pushed."""
        checked = []
        for name, value in values.items():
            trace = self[name]
            checked.append((trace, trace.check(value)))
        for trace, value in checked:
            trace.push(value)

    def extend(self, **values):
        """Push ``k`` rows to each named trace (each value of shape ``(k, *element_shape)``, the
        same ``k`` for all); every value is validated before any is pushed."""
        checked = []
        for name, value in values.items():
            trace = self[name]
            if not hasattr(trace, "extend"):
                raise TypeError(f"trace {name!r} ({type(trace).__name__}) cannot be extended by "
                                f"several rows at once")
            checked.append((name, trace, trace.check_rows(value)))
        counts = {name: len(rows) for name, _, rows in checked}
        if len(set(counts.values())) > 1:
            raise ValueError(f"extend needs the same number of rows for every trace, got "
                             f"{counts}")
        for _, trace, rows in checked:
            trace.extend(rows)

    def pop(self, *names):
        """Pop the newest element of the named traces (all if none); return ``{name: value}``."""
        names = names or tuple(self.traces)
        traces = [(name, self[name]) for name in names]
        empty = [name for name, trace in traces if len(trace) == 0]
        if empty:
            raise IndexError(f"cannot pop from empty traces {empty}")
        return {name: trace.pop() for name, trace in traces}

    def clear(self):
        """Empty every trace."""
        for trace in self.traces.values():
            trace.clear()

    def __repr__(self):
        inner = ", ".join(f"{name}={trace!r}" for name, trace in self.traces.items())
        return f"{type(self).__name__}(len={len(self)}, {inner})"

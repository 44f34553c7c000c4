"""The abstract trajectory type."""

import abc

__all__ = ["AbstractTrajectory"]


class AbstractTrajectory(abc.ABC):
    """Base class of trajectories: a named set of traces (see :mod:`rlcore.trajectories`)."""

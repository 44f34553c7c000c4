"""Trajectories, their buffers, the sum tree, samplers and the default recording rules.

After ReinforcementLearningCore.jl v0.10 (``src/policies/agents/trajectories/``). A trajectory is
a named set of traces (buffers); the named constructors build the SART layouts of RL.jl (and the
SARTS layout, one row per transition with its next state, for vectorised environments), the
``update(trajectory, policy, env, stage)`` rules of :mod:`rlcore.trajectories.recording` fill
them during a run, and the samplers draw contiguous batches for learners.

>>> import numpy as np
>>> from rlcore.trajectories import CircularArraySARTTrajectory, BatchSampler
>>> t = CircularArraySARTTrajectory(1000, state=((4,), np.float32))
>>> for step in range(10):
...     t.push(state=np.full(4, step, np.float32), action=step % 2)
...     t.push(reward=1.0, terminal=step == 9, truncated=False)
>>> t.push(state=np.zeros(4, np.float32), action=0)
>>> BatchSampler(8, rng=0)(t).state.shape
(8, 4)
"""

from rlcore.trajectories import recording  # noqa: F401  (registers the recording rules)
from rlcore.trajectories.base import AbstractTrajectory
from rlcore.trajectories.buffers import (
    AbstractBuffer, CircularArrayBuffer, ElasticArrayBuffer, VectorBuffer,
)
from rlcore.trajectories.frame_stack import FrameStackBuffer
from rlcore.trajectories.samplers import Batch, BatchSampler, NStepBatchSampler
from rlcore.trajectories.schedule import ReplaySchedule, RolloutSchedule
from rlcore.trajectories.sum_tree import SumTree
from rlcore.trajectories.trajectory import (
    CircularArrayPSARTTrajectory, CircularArraySARTSTrajectory, CircularArraySARTTrajectory,
    CircularArraySLARTTrajectory, ElasticSARTTrajectory, Trajectory, VectorSARTTrajectory,
)

__all__ = [
    "AbstractTrajectory", "Trajectory", "CircularArraySARTTrajectory",
    "CircularArraySLARTTrajectory", "CircularArrayPSARTTrajectory", "CircularArraySARTSTrajectory",
    "VectorSARTTrajectory",
    "ElasticSARTTrajectory", "AbstractBuffer", "CircularArrayBuffer", "ElasticArrayBuffer",
    "VectorBuffer", "FrameStackBuffer", "SumTree", "Batch", "BatchSampler", "NStepBatchSampler",
    "ReplaySchedule", "RolloutSchedule",
]

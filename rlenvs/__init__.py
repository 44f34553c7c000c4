"""Environments written to the interface of :mod:`rlcore.envs`, and adapters to Gymnasium."""

from rlenvs.gym_env import GymEnv
from rlenvs.random_walk_1d import RandomWalk1D

__all__ = ["GymEnv", "RandomWalk1D"]

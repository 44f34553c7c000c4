"""The environment interface, its traits and the checks users run on their own environments."""

from rlcore.envs.base import (
    CHANCE_PLAYER,
    DEFAULT_PLAYER,
    SIMULTANEOUS_PLAYER,
    AbstractEnv,
    check_action_in_space,
    n_envs,
)
from rlcore.envs.testing import test_interfaces, test_runnable
from rlcore.envs.wrapper import AbstractEnvWrapper
from rlcore.envs.traits import *  # noqa: F401,F403
from rlcore.envs.traits import __all__ as _traits_all

__all__ = ["AbstractEnv", "AbstractEnvWrapper", "DEFAULT_PLAYER", "CHANCE_PLAYER", "SIMULTANEOUS_PLAYER",
           "check_action_in_space", "n_envs",
           "test_interfaces", "test_runnable", *_traits_all]

"""rlenvs: environments written to the rlcore interface, wrappers, adapters and vectorised envs.

* Environments (``print(list_envs())`` shows each with its traits; ``make(name, seed=0)``):
  single-agent (``RandomWalk1D``, the Sutton & Barto environments ``MultiArmBanditsEnv``,
  ``GridWorldEnv``, ``JacksCarRentalEnv``, ``GamblersProblemEnv``, ``BlackjackEnv``,
  ``InfiniteVarianceEnv``, ``MaximizationBiasEnv``; ``TigerProblemEnv``, ``MontyHallEnv``,
  ``BitFlippingEnv``, ``GraphShortestPathEnv``), classic control over Gymnasium
  (``CartPoleEnv``, ``MountainCarEnv``, ``ContinuousMountainCarEnv``, ``PendulumEnv``,
  ``AcrobotEnv``), Atari (``AtariEnv``) and games (``RockPaperScissorsEnv``, ``TicTacToeEnv``,
  ``KuhnPokerEnv``, ``LeducPokerEnv``, ``TinyHanabiEnv``, ``PigEnv``, ``SpeakerListenerEnv``).
* Wrappers (:mod:`rlenvs.wrappers`).
* Adapters: ``GymEnv`` / ``to_gymnasium``; ``PettingZooEnv`` / ``to_pettingzoo`` (loaded on first
  use: PettingZoo is an optional dependency, so they are not in ``__all__``).
* ``MultiThreadEnv``: vectorised environments with their own ``run`` loop.
"""

from rlenvs.atari import AtariEnv
from rlenvs.bit_flipping import BitFlippingEnv
from rlenvs.blackjack import BlackjackEnv
from rlenvs.classic_control import (
    AcrobotEnv,
    CartPoleEnv,
    ContinuousMountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from rlenvs.gamblers_problem import GamblersProblemEnv
from rlenvs.games import (
    KuhnPokerEnv,
    LeducPokerEnv,
    PigEnv,
    RockPaperScissorsEnv,
    SpeakerListenerEnv,
    TicTacToeEnv,
    TinyHanabiEnv,
)
from rlenvs.graph_shortest_path import GraphShortestPathEnv
from rlenvs.grid_world import (
    GridWorldEnv,
    cliff_walking,
    example_3_5_grid,
    example_4_1_grid,
    windy_grid_world,
)
from rlenvs.gym_env import GymEnv
from rlenvs.gymnasium_env import GymnasiumEnv, to_gymnasium
from rlenvs.infinite_variance import InfiniteVarianceEnv
from rlenvs.jacks_car_rental import JacksCarRentalEnv
from rlenvs.maximization_bias import MaximizationBiasEnv
from rlenvs.monty_hall import MontyHallEnv
from rlenvs.multi_arm_bandits import BatchMultiArmBanditsEnv, MultiArmBanditsEnv
from rlenvs.random_walk_1d import RandomWalk1D
from rlenvs.registry import ENVS, list_envs, make
from rlenvs.tiger_problem import TigerProblemEnv
from rlenvs.vector_env import MultiThreadEnv, SubEnv, SubEnvError, VectorEnv
from rlenvs.wrappers import (
    AbstractEnvWrapper,
    ActionTransformedEnv,
    ClipActionEnv,
    DefaultStateStyleEnv,
    MaxTimeoutEnv,
    RewardOverriddenEnv,
    RewardTransformedEnv,
    SequentialEnv,
    StateCachedEnv,
    StateTransformedEnv,
    StochasticEnv,
)

__all__ = [
    "GymEnv", "RandomWalk1D", "MultiArmBanditsEnv", "BatchMultiArmBanditsEnv", "GridWorldEnv",
    "example_3_5_grid", "example_4_1_grid", "windy_grid_world", "cliff_walking",
    "JacksCarRentalEnv", "GamblersProblemEnv", "BlackjackEnv", "InfiniteVarianceEnv",
    "MaximizationBiasEnv", "TigerProblemEnv", "MontyHallEnv", "BitFlippingEnv",
    "GraphShortestPathEnv", "AtariEnv",
    "RockPaperScissorsEnv", "TicTacToeEnv", "KuhnPokerEnv", "LeducPokerEnv",
    "TinyHanabiEnv", "PigEnv", "SpeakerListenerEnv",
    "ENVS", "make", "list_envs", "GymnasiumEnv", "to_gymnasium",
    "MultiThreadEnv", "VectorEnv", "SubEnv", "SubEnvError",
    "CartPoleEnv", "MountainCarEnv", "ContinuousMountainCarEnv", "PendulumEnv", "AcrobotEnv",
    "AbstractEnvWrapper", "StateTransformedEnv", "ActionTransformedEnv", "ClipActionEnv",
    "RewardTransformedEnv",
    "RewardOverriddenEnv", "StateCachedEnv", "MaxTimeoutEnv", "DefaultStateStyleEnv",
    "StochasticEnv", "SequentialEnv",
]


def __getattr__(name):
    # PettingZoo is an optional dependency (the "pettingzoo" extra): its adapters load on first use.
    if name in ("PettingZooEnv", "to_pettingzoo"):
        from rlenvs import pettingzoo_env

        return getattr(pettingzoo_env, name)
    raise AttributeError(f"module 'rlenvs' has no attribute {name!r}")

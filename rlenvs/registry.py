"""The registry of environments: every environment of ``rlenvs`` by name, with its traits.

``ENVS`` maps a name to a constructor that takes ``seed=`` (and builds a typical instance with
its defaults); adding an environment is one line. ``make(name, seed=0, **kwargs)`` builds one;
``list_envs()`` shows all of them with their traits as a table. The test suite walks the whole
registry through ``rlcore.test_interfaces`` and ``rlcore.test_runnable``.

Example::

    >>> from rlenvs import list_envs, make
    >>> env = make("TicTacToeEnv", seed=0)
    >>> print(list_envs())  # doctest: +SKIP
    | name | NumAgentStyle | DynamicStyle | ...
"""

import attrs
from gymnasium.error import DependencyNotInstalled

from rlcore.envs import TRAIT_NAMES
from rlenvs.atari import AtariEnv
from rlenvs.bit_flipping import BitFlippingEnv
from rlenvs.blackjack import BlackjackEnv
from rlenvs.classic_control import (
    AcrobotEnv, CartPoleEnv, ContinuousMountainCarEnv, MountainCarEnv, PendulumEnv,
)
from rlenvs.games.kuhn_poker import KuhnPokerEnv
from rlenvs.games.leduc_poker import LeducPokerEnv
from rlenvs.games.pig import PigEnv
from rlenvs.games.rock_paper_scissors import RockPaperScissorsEnv
from rlenvs.games.speaker_listener import SpeakerListenerEnv
from rlenvs.games.tic_tac_toe import TicTacToeEnv
from rlenvs.games.tiny_hanabi import TinyHanabiEnv
from rlenvs.gamblers_problem import GamblersProblemEnv
from rlenvs.graph_shortest_path import GraphShortestPathEnv
from rlenvs.grid_world import GridWorldEnv, cliff_walking, windy_grid_world
from rlenvs.infinite_variance import InfiniteVarianceEnv
from rlenvs.jacks_car_rental import JacksCarRentalEnv
from rlenvs.maximization_bias import MaximizationBiasEnv
from rlenvs.monty_hall import MontyHallEnv
from rlenvs.multi_arm_bandits import MultiArmBanditsEnv
from rlenvs.random_walk_1d import RandomWalk1D
from rlenvs.tiger_problem import TigerProblemEnv

__all__ = ["ENVS", "make", "list_envs", "EnvTable"]

ENVS = {
    "MultiArmBanditsEnv": MultiArmBanditsEnv,
    "RandomWalk1D": RandomWalk1D,
    "GridWorldEnv": GridWorldEnv,
    "WindyGridWorld": windy_grid_world,
    "CliffWalking": cliff_walking,
    "JacksCarRentalEnv": JacksCarRentalEnv,
    "GamblersProblemEnv": GamblersProblemEnv,
    "BlackjackEnv": BlackjackEnv,
    "InfiniteVarianceEnv": InfiniteVarianceEnv,
    "MaximizationBiasEnv": MaximizationBiasEnv,
    "TigerProblemEnv": TigerProblemEnv,
    "MontyHallEnv": MontyHallEnv,
    "BitFlippingEnv": BitFlippingEnv,
    "GraphShortestPathEnv": GraphShortestPathEnv,
    "CartPoleEnv": CartPoleEnv,
    "MountainCarEnv": MountainCarEnv,
    "ContinuousMountainCarEnv": ContinuousMountainCarEnv,
    "PendulumEnv": PendulumEnv,
    "AcrobotEnv": AcrobotEnv,
    "RockPaperScissorsEnv": RockPaperScissorsEnv,
    "TicTacToeEnv": TicTacToeEnv,
    "KuhnPokerEnv": KuhnPokerEnv,
    "LeducPokerEnv": LeducPokerEnv,
    "TinyHanabiEnv": TinyHanabiEnv,
    "PigEnv": PigEnv,
    "SpeakerListenerEnv": SpeakerListenerEnv,
    "AtariEnv": AtariEnv,
}


def make(name, seed=None, **kwargs):
    """Build the registered environment ``name`` with ``seed`` and keyword arguments."""
    try:
        constructor = ENVS[name]
    except KeyError:
        raise KeyError(f"no environment named {name!r}; registered: {sorted(ENVS)}") from None
    return constructor(seed=seed, **kwargs)


@attrs.define
class EnvTable:
    """The registered environments and their traits; prints as a Markdown table.

    ``rows`` holds one dict per environment: ``name`` and one entry per trait.
    """

    rows: list

    def __str__(self):
        header = ("name",) + TRAIT_NAMES
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for row in self.rows:
            lines.append("| " + " | ".join(str(row[key]) for key in header) + " |")
        return "\n".join(lines)

    __repr__ = __str__


def list_envs():
    """Every registered environment with its traits, as an :class:`EnvTable`
    (``print(list_envs())`` shows a Markdown table)."""
    rows = []
    for name, constructor in ENVS.items():
        try:
            env = constructor(seed=0)
        except (ImportError, DependencyNotInstalled) as error:
            # An optional dependency (ale-py, OpenCV) is missing: say so instead of failing.
            rows.append({"name": name, **dict.fromkeys(TRAIT_NAMES, "-"),
                         "StateStyle": f"unavailable: {error}".replace("\n", " ")})
            continue
        row = {"name": name}
        for trait in TRAIT_NAMES:
            value = getattr(env, trait)
            row[trait] = ", ".join(map(repr, value)) if isinstance(value, tuple) else repr(value)
        rows.append(row)
        close = getattr(env, "close", None)
        if close is not None:
            close()
    return EnvTable(rows)

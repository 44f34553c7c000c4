"""rlcore: the core of ReinforcementLearning (Python).

The run loop and its stages, the environment interface and traits, policies and ``Agent``,
hooks, stop conditions, trajectories and samplers, explorers, approximators and the dispatch
namespace. See ``docs/architecture.md`` for the architecture.

>>> from rlcore import run, RandomPolicy, StopAfterEpisode, TotalRewardPerEpisode
>>> from rlenvs import RandomWalk1D
>>> hook = run(RandomPolicy(seed=0), RandomWalk1D(), StopAfterEpisode(3), TotalRewardPerEpisode())
>>> len(hook.rewards)
3
"""

from rlcore.approximators import *  # noqa: F401,F403
from rlcore.checks import EnvMismatchError  # noqa: F401
from rlcore.dispatch import check_ambiguities, dispatch, update  # noqa: F401
from rlcore.envs import *  # noqa: F401,F403
from rlcore.evaluation import EvaluateEveryNStep  # noqa: F401
from rlcore.experiment import Experiment  # noqa: F401
from rlcore.explorers import *  # noqa: F401,F403
from rlcore.hooks import *  # noqa: F401,F403
from rlcore.logger import *  # noqa: F401,F403
from rlcore.policies import *  # noqa: F401,F403
from rlcore.run import run, run_loop  # noqa: F401
from rlcore.stages import *  # noqa: F401,F403
from rlcore.stop_conditions import *  # noqa: F401,F403
from rlcore.trajectories import *  # noqa: F401,F403
from rlcore.utils import make_rng, sample_space, show_tree  # noqa: F401
from rlcore.checkpoint import *  # noqa: F401,F403  (after the modules it builds on)

__version__ = "0.1.0"

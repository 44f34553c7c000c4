"""Multi-agent learning and games: game-tree tools, exploitability, and the algorithms.

* :mod:`rlzoo.multi_agent.game_tree`: :class:`GameTree` (every history of a finite game as
  arrays), :class:`TabularGamePolicy`, :func:`TabularRandomPolicy`;
* :mod:`rlzoo.multi_agent.exploitability`: :func:`expected_policy_values`,
  :class:`BestResponsePolicy`, :func:`nash_conv`, :func:`exploitability`;
* :mod:`rlzoo.multi_agent.solver`: :class:`AbstractGameSolver`, run one iteration per step;
* :mod:`rlzoo.multi_agent.hooks`: :class:`NashConvHook`;
* :mod:`rlzoo.multi_agent.minimax`: :class:`MinimaxPolicy` (alpha-beta);
* :mod:`rlzoo.multi_agent.independent`: one single-agent learner per player
  (:func:`independent_agents`) and evaluation against fixed opponents;
* solvers: :class:`TabularCFRPolicy` (CFR and CFR+), :class:`OutcomeSamplingMCCFRPolicy`,
  :class:`ExternalSamplingMCCFRPolicy`, :class:`DeepCFRPolicy`,
  :class:`ExploitabilityDescentPolicy`;
* learners: :class:`NFSPAgent` (neural fictitious self-play), :class:`MADDPGLearner`.
"""

from rlzoo.multi_agent.deep_cfr import DeepCFRPolicy
from rlzoo.multi_agent.exploitability_descent import ExploitabilityDescentPolicy
from rlzoo.multi_agent.external_sampling_mccfr import ExternalSamplingMCCFRPolicy
from rlzoo.multi_agent.exploitability import (
    BestResponsePolicy, expected_policy_values, exploitability, nash_conv,
)
from rlzoo.multi_agent.game_tree import (
    CHANCE, TERMINAL, GameTree, TabularGamePolicy, TabularRandomPolicy, default_info_key,
)
from rlzoo.multi_agent.hooks import NashConvHook
from rlzoo.multi_agent.independent import (
    EvaluateAgainstEveryNStep, Outcomes, independent_agents, play_against,
)
from rlzoo.multi_agent.maddpg import (
    JointSARTSTrajectory, JointSpaces, MADDPGLearner, MADDPGPolicy,
)
from rlzoo.multi_agent.minimax import MinimaxPolicy, check_minimax_game
from rlzoo.multi_agent.nfsp import AveragePolicyLearner, NFSPAgent, ReservoirBuffer
from rlzoo.multi_agent.outcome_sampling_mccfr import OutcomeSamplingMCCFRPolicy
from rlzoo.multi_agent.solver import AbstractGameSolver
from rlzoo.multi_agent.tabular_cfr import TabularCFRPolicy

__all__ = ["GameTree", "TabularGamePolicy", "TabularRandomPolicy", "default_info_key", "CHANCE",
           "TERMINAL", "expected_policy_values", "BestResponsePolicy", "nash_conv",
           "exploitability", "NashConvHook", "AbstractGameSolver", "MinimaxPolicy",
           "check_minimax_game", "TabularCFRPolicy", "OutcomeSamplingMCCFRPolicy",
           "ExternalSamplingMCCFRPolicy", "independent_agents", "play_against", "Outcomes",
           "EvaluateAgainstEveryNStep", "DeepCFRPolicy", "ExploitabilityDescentPolicy",
           "NFSPAgent", "AveragePolicyLearner", "ReservoirBuffer", "MADDPGLearner", "MADDPGPolicy",
           "JointSpaces", "JointSARTSTrajectory"]

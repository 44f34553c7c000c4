"""Multi-agent learning and games: game-tree tools, exploitability, and the algorithms.

* :mod:`rlzoo.multi_agent.game_tree`: :class:`GameTree` (every history of a finite game as
  arrays), :class:`TabularGamePolicy`, :func:`TabularRandomPolicy`;
* :mod:`rlzoo.multi_agent.exploitability`: :func:`expected_policy_values`,
  :class:`BestResponsePolicy`, :func:`nash_conv`, :func:`exploitability`;
* :mod:`rlzoo.multi_agent.solver`: :class:`AbstractGameSolver`, run one iteration per step;
* :mod:`rlzoo.multi_agent.hooks`: :class:`NashConvHook`.
"""

from rlzoo.multi_agent.game_tree import (
    CHANCE, TERMINAL, GameTree, TabularGamePolicy, TabularRandomPolicy, default_info_key,
)

__all__ = ["GameTree", "TabularGamePolicy", "TabularRandomPolicy", "default_info_key", "CHANCE",
           "TERMINAL"]

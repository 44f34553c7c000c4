"""Iterative game solvers (CFR, MCCFR, Deep CFR, exploitability descent) in the run loop.

A solver improves a policy for every player by sweeping or sampling the game tree, one
*iteration* at a time, rather than by acting in the environment. As RL.jl's ``run`` for its CFR
policies, ``run(solver, env, stop_condition, hook)`` treats one iteration as one step: the
stages are the run loop's, so ``StopAfterStep(n)`` stops after ``n`` iterations and
``DoEveryNStep``, ``TimePerStep`` or a :class:`~rlzoo.multi_agent.hooks.NashConvHook` work as
they do for an agent::

    hook(PRE_EXPERIMENT);  update(solver, env, PRE_EXPERIMENT_STAGE)
    repeat:
        update(solver, env, POST_ACT_STAGE)     # one iteration: the solver's rule
        hook(POST_ACT_STAGE, solver, env)
        until stop_condition(solver, env)
    hook(POST_EXPERIMENT);  update(solver, env, POST_EXPERIMENT_STAGE)

There are no episodes: episode hooks (``TotalRewardPerEpisode``, ``DoEveryNEpisode``) record
nothing, and a stop condition that waits for episodes (``StopAfterEpisode``, ``run``'s default,
``StopWhenDone``, ``StopAfterNoImprovement``) is refused before the first iteration.

A solver is a game policy: ``action_probabilities(env, player)`` is its current output policy
(CFR's average policy) and ``solver(env)`` samples it, so it can play through a
``MultiAgentPolicy`` and be measured by :func:`~rlzoo.multi_agent.exploitability.nash_conv`.
"""

import numpy as np

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.policies.base import AbstractPolicy
from rlcore.stages import (
    POST_ACT_STAGE,
    POST_EXPERIMENT_STAGE,
    PRE_EXPERIMENT_STAGE,
    PreExperimentStage,
)
from rlcore.stop_conditions import (
    ComposedStopCondition,
    StopAfterEpisode,
    StopAfterNoImprovement,
    StopWhenDone,
)
from rlenvs.vector_env import MultiThreadEnv
from rlzoo.multi_agent.game_tree import GameTree

__all__ = ["AbstractGameSolver", "check_solver_env", "check_game_tree",
           "check_solver_stop_condition"]


class AbstractGameSolver(AbstractPolicy):
    """Base class of iterative solvers, each holding the :class:`GameTree` it solves in
    ``tree``. Subclasses define ``action_probabilities(env, player=None)`` and the iteration
    rule, a method of ``update`` on ``(TheSolver, AbstractEnv, PostActStage)``; sampling an
    action uses ``self.rng``."""

    def action_probabilities(self, env, player=None):
        raise NotImplementedError(f"{type(self).__name__} must define action_probabilities")

    def __call__(self, env):
        p = np.asarray(self.action_probabilities(env), dtype=np.float64)
        return int(self.rng.choice(len(p), p=p / p.sum()))


def check_solver_env(solver, env):
    """Raise ``ValueError`` unless ``env`` is the game of ``solver.tree`` (the same class and
    players): a solver iterates on its tree and only names the game through ``env``."""
    tree_env = solver.tree.env_at(0)
    if type(env) is not type(tree_env) or tuple(env.players()) != solver.tree.players:
        raise ValueError(f"{type(solver).__name__} solves the game of its tree, {tree_env!r} "
                         f"with players {solver.tree.players}; run was given {env!r} with "
                         f"players {tuple(env.players())}")


def check_game_tree(instance, attribute, tree):
    """An attrs validator: ``tree`` is a :class:`GameTree`."""
    if not isinstance(tree, GameTree):
        raise TypeError(f"tree must be a GameTree, got {tree!r}; build one with GameTree(env)")


@dispatch(AbstractGameSolver, AbstractEnv, PreExperimentStage)
def update(solver, env, stage):  # noqa: F811
    """Before the first iteration: ``env`` is the game of the solver's tree."""
    check_solver_env(solver, env)


def check_solver_stop_condition(solver, stop_condition):
    """Raise ``TypeError`` if ``stop_condition`` (or a part of a ``ComposedStopCondition``)
    waits for episodes: a solver's loop has iterations, no episodes, so it would never stop."""
    parts = [stop_condition]
    while parts:
        part = parts.pop()
        if isinstance(part, ComposedStopCondition):
            parts.extend(part.conditions)
        elif isinstance(part, _EPISODIC):
            raise TypeError(f"{type(solver).__name__} runs iterations, not episodes; "
                            f"{part!r} would never stop it: use StopAfterStep(n_iterations) "
                            f"(or StopAfterNSeconds)")


_EPISODIC = (StopAfterEpisode, StopWhenDone, StopAfterNoImprovement)


@dispatch(AbstractGameSolver, AbstractEnv, object, object)
def run_loop(solver, env, stop_condition, hook):  # noqa: F811
    """The solver loop of this module's docstring: one iteration per step."""
    check_solver_stop_condition(solver, stop_condition)
    hook(PRE_EXPERIMENT_STAGE, solver, env)
    update(solver, env, PRE_EXPERIMENT_STAGE)
    is_stop = False
    while not is_stop:
        update(solver, env, POST_ACT_STAGE)
        hook(POST_ACT_STAGE, solver, env)
        is_stop = stop_condition(solver, env)
    hook(POST_EXPERIMENT_STAGE, solver, env)
    update(solver, env, POST_EXPERIMENT_STAGE)
    return hook


@dispatch(AbstractGameSolver, MultiThreadEnv, object, object)
def run_loop(solver, env, stop_condition, hook):  # noqa: F811
    raise TypeError(f"{type(solver).__name__} solves one game from its tree; run it on the game "
                    f"itself, not on a vectorised {env!r}")


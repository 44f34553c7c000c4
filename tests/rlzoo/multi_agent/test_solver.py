"""Tests of rlzoo/multi_agent/solver.py: the solver loop's guards."""

import pytest

from rlcore import ComposedStopCondition, StopAfterEpisode, StopAfterStep, StopWhenDone, run
from rlenvs import KuhnPokerEnv, LeducPokerEnv
from rlzoo.multi_agent import GameTree, TabularCFRPolicy


@pytest.fixture(scope="module")
def tree():
    return GameTree(KuhnPokerEnv())


@pytest.mark.parametrize("stop", [StopAfterEpisode(1), StopWhenDone(),
                                  ComposedStopCondition(StopAfterStep(10), StopAfterEpisode(2))])
def test_episode_stop_conditions_are_refused(tree, stop):
    # A solver's loop has no episodes: these would never stop it.
    solver = TabularCFRPolicy(tree)
    with pytest.raises(TypeError, match="iterations, not episodes"):
        run(solver, KuhnPokerEnv(), stop)
    assert solver.iteration == 0
    with pytest.raises(TypeError, match="iterations, not episodes"):
        run(solver, KuhnPokerEnv())  # run's default is StopAfterEpisode(1)


def test_the_env_must_be_the_trees_game(tree):
    solver = TabularCFRPolicy(tree)
    with pytest.raises(ValueError, match="solves the game of its tree"):
        run(solver, LeducPokerEnv(), StopAfterStep(1))
    assert solver.iteration == 0
    run(solver, KuhnPokerEnv(), StopAfterStep(4))
    assert solver.iteration == 4

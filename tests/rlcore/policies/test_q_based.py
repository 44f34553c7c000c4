import gymnasium.spaces as spaces
import numpy as np
import pytest

from rlcore.approximators import TabularQApproximator, TabularVApproximator
from rlcore.envs.traits import FULL_ACTION_SET
from rlcore.explorers import AbstractExplorer, EpsilonGreedyExplorer
from rlcore.policies import AbstractLearner, Agent, QBasedPolicy, VBasedPolicy, testmode
from rlcore.run import run
from rlcore.stop_conditions import StopAfterStep
from rlcore.trajectories import CircularArraySLARTTrajectory
from rlzoo.tabular import TDLearner
from tests.helpers import LineEnv


class MaskedLineEnv(LineEnv):
    """Four actions; only actions 1 and 3 are legal."""

    ActionStyle = FULL_ACTION_SET

    def action_space(self, player=None):
        return spaces.Discrete(4)

    def legal_action_space(self, player=None):
        return [1, 3]


def _policy(epsilon):
    approximator = TabularQApproximator(n_state=4, n_action=4)
    approximator.table[:] = [0.0, 1.0, 5.0, 2.0]  # the best value, action 2, is illegal
    return QBasedPolicy(TDLearner(approximator, method="Q"),
                        EpsilonGreedyExplorer(epsilon_stable=epsilon, seed=0))


def test_q_based_policy_never_picks_a_masked_action():
    policy, env = _policy(epsilon=1.0), MaskedLineEnv()
    assert {policy(env) for _ in range(300)} == {1, 3}
    np.testing.assert_allclose(policy.prob(env), [0, 0.5, 0, 0.5])
    with testmode(policy):
        assert {policy(env) for _ in range(50)} == {3}
        np.testing.assert_allclose(policy.prob(env), [0, 0, 0, 1])


def test_masked_agent_through_run_records_the_masks():
    trajectory = CircularArraySLARTTrajectory(capacity=16, state=((), np.int64),
                                              legal_actions_mask=((4,), bool))
    agent = Agent(_policy(epsilon=0.5), trajectory)
    run(agent, MaskedLineEnv(length=3), StopAfterStep(6))
    assert set(np.asarray(trajectory["action"]).tolist()[:6]) <= {1, 3}
    masks = np.asarray(trajectory["legal_actions_mask"])
    assert (masks[:6] == [False, True, False, True]).all()


def test_v_based_policy_uses_its_mapping():
    learner = TDLearner(TabularVApproximator(n_state=4), method="TD0")
    policy = VBasedPolicy(learner, mapping=lambda env, learner: 1)
    assert policy(LineEnv()) == 1
    with pytest.raises(TypeError, match="mapping must be callable"):
        VBasedPolicy(learner, mapping=3)
    with pytest.raises(TypeError):
        QBasedPolicy(learner=object(), explorer=EpsilonGreedyExplorer(epsilon_stable=0.1))


class _CountingLearner(AbstractLearner):
    """Fixed action values; counts its calls."""

    def __init__(self, values):
        self.values, self.calls = values, 0

    def __call__(self, env):
        self.calls += 1
        return self.values


class _RecordingExplorer(AbstractExplorer):
    """Records what it is given; returns the given ``actions``."""

    def __init__(self, actions):
        self.actions, self.seen = actions, []

    def __call__(self, values, mask=None):
        self.seen.append((values, mask))
        return self.actions

    def prob(self, values, mask=None):
        return np.full(len(values), 1.0 / len(values))


@pytest.mark.parametrize("env_cls", [LineEnv, MaskedLineEnv])
def test_the_learners_values_go_to_the_explorer_as_they_are_once_per_action(env_cls):
    # the values (and, under FULL_ACTION_SET, the mask) unchanged, whatever their shape: a
    # vectorised env's (n, n_actions) batch gives the explorer's n actions back
    values = np.arange(8.0).reshape(2, 4)
    learner, explorer = _CountingLearner(values), _RecordingExplorer(np.array([3, 1]))
    policy, env = QBasedPolicy(learner, explorer), env_cls()
    env.reset()
    for _ in range(5):
        assert policy(env) is explorer.actions
    assert learner.calls == 5 and len(explorer.seen) == 5
    given, mask = explorer.seen[0]
    assert given is values
    if env_cls is MaskedLineEnv:
        np.testing.assert_array_equal(mask, [False, True, False, True])
    else:
        assert mask is None

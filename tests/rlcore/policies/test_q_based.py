import gymnasium.spaces as spaces
import numpy as np
import pytest

from rlcore.approximators import TabularQApproximator, TabularVApproximator
from rlcore.envs.traits import FULL_ACTION_SET
from rlcore.explorers import EpsilonGreedyExplorer
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
    """Fixed action values; counts its calls; ``pure_call`` as given."""

    def __init__(self, values, pure_call):
        self.values, self.pure_call, self.calls = values, pure_call, 0

    def __call__(self, env):
        self.calls += 1
        return self.values


@pytest.mark.parametrize("env_cls", [LineEnv, MaskedLineEnv])
def test_pure_learner_is_called_only_on_greedy_steps_with_the_same_actions(env_cls):
    values = [0.0, 1.0, 5.0, 2.0] if env_cls is MaskedLineEnv else [0.0, 1.0]
    policies = [QBasedPolicy(_CountingLearner(values, pure),
                             EpsilonGreedyExplorer(epsilon_stable=0.5, seed=4))
                for pure in (True, False)]
    env = env_cls()
    env.reset()
    actions = [[policy(env) for _ in range(200)] for policy in policies]
    assert actions[0] == actions[1]
    assert policies[1].learner.calls == 200
    assert 50 < policies[0].learner.calls < 150  # about the greedy half

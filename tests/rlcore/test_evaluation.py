"""Tests of rlcore/evaluation.py."""

import numpy as np
import pytest

from rlcore.hooks import (
    TotalRewardPerEpisode,
)
from rlcore.policies.random_policy import RandomPolicy
from rlcore.run import run
from rlcore.stop_conditions import StopAfterStep
from tests.helpers import LineEnv


def test_evaluate_every_n_step_runs_the_inner_policy_in_test_mode():
    from rlcore import (Agent, EpsilonGreedyExplorer, EvaluateEveryNStep, QBasedPolicy,
                        TabularQApproximator, VectorSARTTrajectory)
    from rlzoo.tabular import TDLearner

    explorer = EpsilonGreedyExplorer(epsilon_stable=1.0, seed=0)
    learner = TDLearner(TabularQApproximator(n_state=4, n_action=2), method="Q")
    agent = Agent(QBasedPolicy(learner, explorer), VectorSARTTrajectory())
    evaluation = EvaluateEveryNStep(LineEnv(length=3), n=4, n_episodes=2)
    # LineEnv: 3 steps of reward 1 per episode whatever the actions
    run(agent, LineEnv(length=3), StopAfterStep(12), evaluation)
    assert evaluation.steps == [4, 8, 12]
    assert evaluation.returns == [3.0, 3.0, 3.0]
    assert evaluation.seconds > 0
    # evaluation wrote nothing into the agent's trajectory: 12 training steps only
    assert len(agent.trajectory) == 12
    # the explorer's step counts training decisions only (testmode freezes it) and its
    # training flag is restored
    assert explorer.step == 13 and explorer.is_training


def test_evaluate_every_n_step_validates_and_prints(capsys):
    from rlcore import EvaluateEveryNStep

    with pytest.raises(ValueError, match="n must be a positive int"):
        EvaluateEveryNStep(LineEnv(), n=0)
    with pytest.raises(ValueError, match="n_episodes must be a positive int"):
        EvaluateEveryNStep(LineEnv(), n_episodes=0)
    run(RandomPolicy(seed=0), LineEnv(length=2), StopAfterStep(2),
        EvaluateEveryNStep(LineEnv(length=2), n=2, n_episodes=1, verbose=True))
    assert "step 2: mean return 2.00 over 1 test episodes" in capsys.readouterr().out


def test_evaluation_lines_reach_a_log_file_at_once(monkeypatch):
    import io
    import sys

    from rlcore import EvaluateEveryNStep

    class LogFile(io.StringIO):  # what a redirected stdout shows: the flushed text
        shown = ""

        def flush(self):
            self.shown = self.getvalue()

    log = LogFile()
    monkeypatch.setattr(sys, "stdout", log)
    run(RandomPolicy(seed=0), LineEnv(length=2), StopAfterStep(2),
        EvaluateEveryNStep(LineEnv(length=2), n=2, n_episodes=1, verbose=True))
    assert log.shown == "step 2: mean return 2.00 over 1 test episodes\n"


class ActionRewardEnv(LineEnv):
    """``LineEnv`` whose reward is the action taken (0 or 1), so a return counts the 1s."""

    def __call__(self, action):
        super().__call__(action)
        self.last_action = action

    def reward(self, player=None):
        return float(self.last_action) if self.t > 0 else 0.0


def _q_agent(seed, trained_action=None):
    from rlcore import (Agent, EpsilonGreedyExplorer, QBasedPolicy, TabularQApproximator,
                        VectorSARTTrajectory)
    from rlzoo.tabular import TDLearner

    approximator = TabularQApproximator(n_state=6, n_action=2)
    if trained_action is not None:
        approximator.table[:, trained_action] = 1.0
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.1, decay_steps=40, seed=seed)
    learner = TDLearner(approximator, method="Q")
    return Agent(QBasedPolicy(learner, explorer), VectorSARTTrajectory())


def test_evaluation_with_epsilon_leaves_the_training_run_bit_identical():
    from rlcore import EvaluateEveryNStep

    def train(evaluation):
        agent = _q_agent(seed=3)
        hook = TotalRewardPerEpisode()
        if evaluation is not None:
            hook = hook + evaluation
        run(agent, ActionRewardEnv(length=5), StopAfterStep(200), hook)
        return agent

    evaluation = EvaluateEveryNStep(ActionRewardEnv(length=5), n=50, n_steps=12, epsilon=0.5,
                                    seed=7)
    with_eval, without = train(evaluation), train(None)
    assert evaluation.steps == [50, 100, 150, 200] and evaluation.episodes == [3] * 4
    assert not all(r == evaluation.returns[0] for r in evaluation.returns)  # ε acted
    a, b = with_eval.policy, without.policy
    np.testing.assert_array_equal(a.learner.approximator.table, b.learner.approximator.table)
    assert a.explorer.step == b.explorer.step == 201 and a.explorer.is_training
    assert a.explorer.rng.bit_generator.state == b.explorer.rng.bit_generator.state
    assert with_eval.trajectory["action"][:] == without.trajectory["action"][:]


def test_evaluation_epsilon_sets_the_share_of_random_actions():
    from rlcore import EvaluateEveryNStep

    # greedy: always action 1 (return 5 per 5-step episode); ε = 0.4: a random action (1 half
    # the time) 40% of the steps, so a mean return of 5 * (0.6 + 0.2) = 4 per episode
    agent = _q_agent(seed=0, trained_action=1)
    returns = {}
    for epsilon in (0.0, 0.4, 1.0):
        evaluation = EvaluateEveryNStep(ActionRewardEnv(length=5), n=1, n_steps=4000,
                                        epsilon=epsilon, seed=1)
        returns[epsilon] = evaluation.evaluate(agent)
        assert evaluation.episodes == [800]
    assert returns[0.0] == 5.0
    assert abs(returns[0.4] - 4.0) < 0.1 and abs(returns[1.0] - 2.5) < 0.15


def test_evaluation_step_budget_runs_whole_episodes():
    from rlcore import EvaluateEveryNStep

    # Dopamine's rule: start episodes while fewer than n_steps steps were taken, finish each
    evaluation = EvaluateEveryNStep(LineEnv(length=3), n=2, n_steps=7)
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(4), evaluation)
    assert evaluation.episodes == [3, 3] and evaluation.returns == [3.0, 3.0]
    evaluation = EvaluateEveryNStep(LineEnv(length=3), n=2, n_steps=6)
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(2), evaluation)
    assert evaluation.episodes == [2]


def test_evaluation_step_budget_and_epsilon_are_validated():
    from rlcore import EvaluateEveryNStep

    with pytest.raises(ValueError, match=r"n_steps must be a positive int or None, got 0 \(int\)"):
        EvaluateEveryNStep(LineEnv(), n_steps=0)
    with pytest.raises(ValueError, match=r"epsilon must be a number in \[0, 1\], got 1.5"):
        EvaluateEveryNStep(LineEnv(), epsilon=1.5)
    with pytest.raises(ValueError, match="epsilon=0.1 needs a policy with an explorer field.*"
                                         "RandomPolicy"):
        EvaluateEveryNStep(LineEnv(), epsilon=0.1).evaluate(RandomPolicy(seed=0))


def test_evaluation_step_budget_accepts_numpy_ints_and_rejects_bools():
    from rlcore import EvaluateEveryNStep

    evaluation = EvaluateEveryNStep(LineEnv(length=3), n=2, n_steps=np.int64(7))
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(2), evaluation)
    assert evaluation.episodes == [3]
    assert EvaluateEveryNStep(LineEnv(), n_episodes=np.int32(3)).n_episodes == 3
    for bad in (True, np.bool_(True), 2.0, "5"):
        with pytest.raises(ValueError, match=r"n_steps must be a positive int or None, got "):
            EvaluateEveryNStep(LineEnv(), n_steps=bad)
    with pytest.raises(ValueError, match=r"n_episodes must be a positive int or None, got True "
                                         r"\(bool\)"):
        EvaluateEveryNStep(LineEnv(), n_episodes=True)


def test_evaluation_takes_n_episodes_or_n_steps_not_both():
    from rlcore import EvaluateEveryNStep

    assert EvaluateEveryNStep(LineEnv()).n_episodes == 10  # neither: 10 episodes
    assert EvaluateEveryNStep(LineEnv(), n_steps=5).n_episodes is None
    assert EvaluateEveryNStep(LineEnv(), n=3, n_episodes=4).n_episodes == 4
    with pytest.raises(ValueError, match="give n_episodes .* or n_steps .*, not both; got "
                                         "n_episodes=10, n_steps=125000"):
        EvaluateEveryNStep(LineEnv(), n_episodes=10, n_steps=125_000)


def test_epsilon_evaluation_of_a_policy_without_explorer_fails_before_training():
    from rlcore import DoEveryNStep, EvaluateEveryNStep

    steps = []
    counter = DoEveryNStep(lambda t, policy, env: steps.append(t), n=1)
    evaluation = EvaluateEveryNStep(LineEnv(), n=250_000, n_steps=10, epsilon=0.001)
    with pytest.raises(ValueError, match="epsilon=0.001 needs a policy with an explorer field.*"
                                         "RandomPolicy"):
        run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(300_000), counter + evaluation)
    assert steps == [] and evaluation.steps == []  # not a single training step was taken


def test_evaluation_counts_the_env_steps_of_every_sub_env():
    from rlcore import EvaluateEveryNStep
    from rlenvs import CartPoleEnv, MultiThreadEnv

    evaluation = EvaluateEveryNStep(LineEnv(length=2), n=10, n_episodes=1)
    with MultiThreadEnv("CartPole-v1", 4, seed=0) as env:
        run(RandomPolicy(seed=0), env, StopAfterStep(40), evaluation)
    # 4 env steps per batched step: counts 4, 8, 12, ..., 40; an evaluation at the first count
    # past each multiple of 10: 12, 20, 32, 40
    assert evaluation.steps == [12, 20, 32, 40]
    # one env: every 10th step
    single = EvaluateEveryNStep(LineEnv(length=2), n=10, n_episodes=1)
    run(RandomPolicy(seed=0), CartPoleEnv(seed=0), StopAfterStep(30), single)
    assert single.steps == [10, 20, 30]


def test_a_long_evaluation_can_show_its_progress(capsys):
    from rlcore.evaluation import EvaluateEveryNStep
    from rlenvs import RandomWalk1D

    run(RandomPolicy(seed=0), RandomWalk1D(), StopAfterStep(10),
        EvaluateEveryNStep(RandomWalk1D(), n=10, n_episodes=3, progress=True))
    assert "3/3" in capsys.readouterr().err  # tqdm's bar, on stderr

"""Tests of rlcore/logger.py."""

import copy
import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch

from rlcore import (
    CSVSink, EpsilonGreedyExplorer, EvaluateEveryNStep, LogHook, MemorySink,
    NeuralNetworkApproximator, RandomPolicy, StdoutSink, StepsPerEpisode, StopAfterEpisode,
    StopAfterStep, TargetNetwork, TensorBoardSink, TotalRewardPerEpisode, read_csv_log, run,
    scalars,
)
from rlcore.dispatch import dispatch
from tests.helpers import LineEnv


pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


class ProbePolicy(RandomPolicy):
    """A random policy that exposes one scalar: how often ``scalars`` read it."""

    reads = 0


@dispatch(ProbePolicy)
def scalars(policy):  # noqa: F811  (a new policy adds one rule)
    ProbePolicy.reads += 1
    return {"train/probe": float(ProbePolicy.reads)}


def test_tensorboard_event_file_holds_episodes_evaluations_and_learner_scalars(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from rlzoo.experiments.cartpole import DQN_CartPole

    # ε: 1 for 200 steps, then linearly to 0.01 over 200; learning starts after 200 steps
    experiment = DQN_CartPole(seed=0, steps=600, min_replay_history=200, epsilon_decay_steps=200,
                              eval_every=300, eval_episodes=2)
    totals, evaluation = experiment.hook[0], experiment.hook[1]
    learner = experiment.policy.policy.learner
    log = LogHook(TensorBoardSink(tmp_path / "tb"), every=100, evaluation=evaluation)
    run(experiment.policy, experiment.env, experiment.stop_condition, experiment.hook + log)

    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    assert set(events.Tags()["scalars"]) == {
        "episode/return", "episode/length", "eval/return", "train/loss", "train/epsilon",
        "train/learning_rate"}

    def series(tag):
        scalar_events = events.Scalars(tag)
        return [e.step for e in scalar_events], [e.value for e in scalar_events]

    steps, returns = series("episode/return")
    assert len(returns) == len(totals.rewards) > 10
    assert returns == pytest.approx(totals.rewards)
    # CartPole pays 1 a step: each length is the return, and an episode is logged at the env
    # step it ended, the running sum of the lengths
    assert series("episode/length") == (steps, returns)
    assert steps == np.cumsum(returns).astype(int).tolist()
    assert series("eval/return") == ([300, 600], pytest.approx(evaluation.returns))
    every_100 = [100, 200, 300, 400, 500, 600]
    # after s env steps the explorer's step is s + 1: ε(101) = 1 (warm-up), ε(201) = 0.01 +
    # (400 - 201) / 200 · 0.99 = 0.99505, ε(301) = 0.01 + 99 / 200 · 0.99 = 0.50005, then 0.01
    assert series("train/epsilon") == (
        every_100, pytest.approx([1.0, 0.99505, 0.50005, 0.01, 0.01, 0.01], rel=1e-6))
    assert series("train/learning_rate") == (every_100, pytest.approx([2.3e-3] * 6, rel=1e-6))
    # no loss until the learner has learned (from step 201 on); the last is the learner's
    loss_steps, losses = series("train/loss")
    assert loss_steps == [300, 400, 500, 600]
    assert all(np.isfinite(losses)) and losses[-1] == pytest.approx(float(learner.loss_value))


def test_csv_log_reads_back_exactly_what_was_written(tmp_path):
    memory = MemorySink()
    log = LogHook([CSVSink(tmp_path / "run"), memory], every=2, cadence="episode")
    run(ProbePolicy(seed=0), LineEnv(length=3), StopAfterEpisode(4), log)

    # LineEnv: 3 steps of reward 1 per episode; the probe is read after episodes 2 and 4
    log_file = read_csv_log(tmp_path / "run" / "log.csv")
    assert set(log_file) == {"episode/return", "episode/length", "train/probe"}
    for tag, (steps, values) in memory.data.items():
        np.testing.assert_array_equal(log_file[tag][0], steps)
        np.testing.assert_array_equal(log_file[tag][1], values)
    assert memory.data["episode/return"] == ([3, 6, 9, 12], [3.0] * 4)
    assert memory.data["episode/length"] == ([3, 6, 9, 12], [3.0] * 4)
    assert memory.data["train/probe"][0] == [6, 12]
    lines = (tmp_path / "run" / "log.csv").read_text().splitlines()
    assert lines[:3] == ["step,tag,value", "3,episode/return,3.0", "3,episode/length,3.0"]


def test_csv_values_round_trip_and_awkward_tags_are_quoted(tmp_path):
    sink = CSVSink(tmp_path / "values.csv")
    values = [0.1, 1 / 3, 1e-300, -2.5e10, float("inf"), float("nan")]
    for step, value in enumerate(values):
        sink.write('a tag, "quoted"', value, step)
    sink.write("train/loss", torch.tensor(0.5), 7)  # a 0-d tensor is a number
    sink.close()
    log = read_csv_log(tmp_path / "values.csv")
    np.testing.assert_array_equal(log['a tag, "quoted"'][1], values)  # nan == nan here
    assert log["train/loss"][0].tolist() == [7]


def test_a_reused_hook_keeps_counting_and_its_closed_csv_sink_appends(tmp_path):
    memory = MemorySink()
    log = LogHook([CSVSink(tmp_path), memory])
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(6), log)
    run(RandomPolicy(seed=0), LineEnv(length=2), StopAfterStep(4), log)
    assert log.step == 10 and log.episode == 4
    assert memory.data["episode/length"] == ([3, 6, 8, 10], [3.0, 3.0, 2.0, 2.0])
    assert read_csv_log(tmp_path)["episode/length"][0].tolist() == [3, 6, 8, 10]
    # a copied or pickled hook writes on where the original left off
    for clone in (copy.deepcopy(log), pickle.loads(pickle.dumps(log))):
        clone.sinks[0].write("extra", 1.0, 11)
        clone.close()
    assert read_csv_log(tmp_path)["extra"][0].tolist() == [11, 11]
    # a new sink on the same file starts afresh; append=True keeps what is there
    CSVSink(tmp_path, append=True).close()
    assert len(read_csv_log(tmp_path)["episode/length"][0]) == 4
    CSVSink(tmp_path).close()
    assert read_csv_log(tmp_path) == {}


def test_vectorised_run_logs_each_sub_env_episode_and_counts_env_steps():
    from rlenvs import MultiThreadEnv, RandomWalk1D

    memory = MemorySink()
    totals, lengths = TotalRewardPerEpisode(), StepsPerEpisode()
    log = LogHook(memory, every=10)
    with MultiThreadEnv(lambda: RandomWalk1D(), 3, seed=0) as env:
        run(ProbePolicy(seed=0), env, StopAfterStep(90), totals + lengths + log)
    assert log.step == 90  # 30 batched steps of 3 sub-envs
    steps, returns = memory.data["episode/return"]
    assert len(returns) == len(totals.rewards) > 5
    assert returns == totals.rewards
    assert memory.data["episode/length"] == (steps, [float(n) for n in lengths.steps])
    assert all(s % 3 == 0 for s in steps) and steps == sorted(steps) and steps[-1] <= 90
    # the scalars follow the batched step whose env-step count passed a multiple of 10
    assert memory.data["train/probe"][0] == [12, 21, 30, 42, 51, 60, 72, 81, 90]


def test_evaluations_are_logged_at_their_steps_whatever_the_hook_order():
    evaluation = EvaluateEveryNStep(LineEnv(length=3), n=4, n_episodes=1)
    memory = MemorySink()
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(12),
        LogHook(memory, evaluation=evaluation) + evaluation)  # the log hook sees each one late
    assert memory.data["eval/return"] == ([4, 8, 12], [3.0, 3.0, 3.0])


def test_stdout_sink_prints_one_line_per_event(capsys):
    evaluation = EvaluateEveryNStep(LineEnv(length=3), n=6, n_episodes=1)
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(6),
        evaluation + LogHook([StdoutSink(), StdoutSink(tags=("eval/",))], evaluation=evaluation))
    assert capsys.readouterr().out.splitlines() == [
        "step 3: episode/return 3, episode/length 3",
        "step 6: eval/return 3",  # the evaluation hook runs first, at the step's PostAct
        "step 6: eval/return 3",
        "step 6: episode/return 3, episode/length 3",
    ]


def test_scalars_of_the_library_components():
    from rlcore import (
        Agent, BatchExplorer, QBasedPolicy, TabularQApproximator, VectorSARTTrajectory,
    )
    from rlzoo.dqns import DQNLearner
    from rlzoo.dqns.networks import QNetwork, target_network
    from rlzoo.tabular import TDLearner

    model = torch.nn.Linear(2, 2)
    approximator = NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(), lr=0.1))
    assert scalars(approximator) == {"train/learning_rate": 0.1}
    assert scalars(TargetNetwork(approximator)) == {"train/learning_rate": 0.1}
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.1, warmup_steps=0, decay_steps=10, seed=0)
    # step 1, no warm-up: ε = 0.1 + (10 - 1) / 10 · (1 - 0.1) = 0.91
    assert scalars(explorer) == pytest.approx({"train/epsilon": 0.91})
    assert scalars(BatchExplorer(explorer)) == scalars(explorer)
    assert scalars(RandomPolicy(seed=0)) == {}

    tabular = QBasedPolicy(TDLearner(TabularQApproximator(n_state=4, n_action=2), method="Q"),
                           explorer)
    assert scalars(Agent(tabular, VectorSARTTrajectory())) == scalars(explorer)

    net = QNetwork(2, 2, seed=0)
    learner = DQNLearner(approximator=target_network(NeuralNetworkApproximator(
        net, torch.optim.Adam(net.parameters(), lr=1e-3)), sync_every=10))
    assert scalars(learner) == {"train/learning_rate": 1e-3}  # no loss before learning
    learner.loss_value = torch.tensor(0.25)
    assert scalars(QBasedPolicy(learner, explorer)) == {
        "train/loss": 0.25, "train/learning_rate": 1e-3, **scalars(explorer)}


def test_arguments_are_validated_with_the_value_named(tmp_path):
    with pytest.raises(ValueError, match="at least one sink"):
        LogHook([])
    with pytest.raises(TypeError, match="got 'runs/x'"):
        LogHook("runs/x")
    with pytest.raises(TypeError, match="got 3"):
        LogHook([MemorySink(), 3])
    with pytest.raises(ValueError, match="every must be an integer >= 1, got 0"):
        LogHook(MemorySink(), every=0)
    with pytest.raises(ValueError, match="cadence"):
        LogHook(MemorySink(), cadence="epoch")
    with pytest.raises(TypeError, match="evaluation must be None or the EvaluateEveryNStep"):
        LogHook(MemorySink(), evaluation=TotalRewardPerEpisode())
    sink = MemorySink()
    with pytest.raises(ValueError, match="tag must be a non-empty str, got 3"):
        sink.write(3, 1.0, 0)
    with pytest.raises(ValueError, match="the value of 'x' must be a real number, got 'a'"):
        sink.write("x", "a", 0)
    with pytest.raises(ValueError, match=r"must be a real number, got array\(\[1., 2.\]\)"):
        sink.write("x", np.array([1.0, 2.0]), 0)
    with pytest.raises(ValueError, match="step must be an int >= 0, got -1"):
        sink.write("x", 1.0, -1)
    with pytest.raises(TypeError, match="CSVSink: path must be a str or path"):
        CSVSink(None)
    with pytest.raises(ValueError, match="flush_secs"):
        TensorBoardSink(tmp_path, flush_secs=0)
    with pytest.raises(TypeError, match="tags must be None or tag prefixes"):
        StdoutSink(tags=[1])
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not the header 'step,tag,value'"):
        read_csv_log(tmp_path / "other.csv")
    with pytest.raises(FileNotFoundError, match="no CSV log at"):
        read_csv_log(tmp_path / "missing")


def test_import_rlcore_imports_neither_tensorboard_nor_matplotlib():
    code = ("import sys, rlcore; print(sorted(m for m in ('tensorboard', 'matplotlib', "
            "'rlcore.plotting', 'torch.utils.tensorboard') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_csv_sink_keeps_only_the_tags_asked_for(tmp_path):
    sink = CSVSink(tmp_path / "evals.csv", tags="eval/")
    sink.write("episode/return", 9.0, 9)
    sink.write("eval/return", 200.0, 1000)
    sink.close()
    assert sink.path.read_text() == "step,tag,value\n1000,eval/return,200.0\n"
    with pytest.raises(TypeError, match="tags must be None or tag prefixes"):
        CSVSink(tmp_path, tags=[1])


def test_rewind_forgets_the_steps_after_a_checkpoint(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    memory, csv_sink = MemorySink(), CSVSink(tmp_path / "log.csv")
    board = TensorBoardSink(tmp_path / "tb")
    hook = LogHook([memory, csv_sink, board])
    for step in (10, 20, 30):
        for sink in hook.sinks:
            sink.write("episode/return", float(step), step)
    hook.rewind(20)  # resumed from a checkpoint of step 20: step 30 comes again
    for sink in hook.sinks:
        sink.write("episode/return", 31.0, 30)
    hook.close()
    assert memory.data["episode/return"] == ([10, 20, 30], [10.0, 20.0, 31.0])
    assert read_csv_log(csv_sink.path)["episode/return"][1].tolist() == [10.0, 20.0, 31.0]
    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    assert [(e.step, e.value) for e in events.Scalars("episode/return")] == [
        (10, 10.0), (20, 20.0), (30, 31.0)]

"""Save, load and exact resume (rlcore/checkpoint.py): a resumed run is bit-identical to an
uninterrupted one, in a fresh process; writes are atomic; bad files fail naming themselves."""

import functools
import os
import pickle
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch

from rlcore import (
    Agent, Checkpoint, CheckpointError, CircularArrayPSARTTrajectory, ComposedStopCondition,
    DoEveryNStep, EpsilonGreedyExplorer, Experiment, QBasedPolicy, RandomPolicy, StepsPerEpisode,
    StopAfterStep, StopSignal, TabularQApproximator, TotalRewardPerEpisode, VectorSARTTrajectory,
    latest_checkpoint, load, resume, run, save,
)
from rlcore.stages import POST_ACT_STAGE, PRE_ACT_STAGE
from rlenvs import CartPoleEnv, MultiThreadEnv, RandomWalk1D
from rlzoo.experiments.registry import make
from rlzoo.tabular import TDLearner

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def run_python(code, *args, timeout=120):
    """Run ``code`` in a fresh Python process (the repository on its path); return it."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done


# --- exact resume

def dqn_results(experiment):
    learner = experiment.policy.policy.learner
    models = [learner.approximator.approximator.model, learner.approximator.target_model]
    return {"params": [p.detach().clone() for m in models for p in m.parameters()],
            "returns": list(experiment.hook[0].rewards), "evaluations": experiment.hook[1].returns}


RESUME_DQN = """
    import sys, torch
    from rlcore import load, resume
    torch.set_num_threads(1)
    results = []
    for path in sys.argv[2:]:
        experiment = load(path)
        experiment.stop_condition.n = 4000  # the cut run's budget was 2,000 steps
        resume(experiment)
        learner = experiment.policy.policy.learner
        models = [learner.approximator.approximator.model, learner.approximator.target_model]
        results.append({"params": [p.detach() for m in models for p in m.parameters()],
                        "returns": experiment.hook[0].rewards,
                        "evaluations": experiment.hook[1].returns})
    torch.save(results, sys.argv[1])
"""


def test_dqn_resume_in_a_fresh_process_is_bit_identical(tmp_path):
    def experiment(directory):
        ex = make("DQN_CartPole", 0, steps=4000, eval_every=1000, eval_episodes=2)
        ex.hook = ex.hook + Checkpoint(tmp_path / directory, every=2000, keep=2)
        return ex

    straight = experiment("straight")  # 4,000 steps, saving at 2,000 (mid-episode) and the end
    run(straight)
    expected = dqn_results(straight)
    cut = experiment("cut")  # 2,000 steps, saved at the run's end
    cut.stop_condition.n = 2000
    run(cut)
    mid_run = tmp_path / "straight" / "checkpoint-000002000.pt"
    at_end = latest_checkpoint(tmp_path / "cut")
    assert torch.load(mid_run, weights_only=True)["saved_at"] == {"stage": "POST_ACT_STAGE",
                                                                  "step": 2000}
    assert torch.load(at_end, weights_only=True)["saved_at"] == {
        "stage": "POST_EXPERIMENT_STAGE", "step": 2000}
    out = tmp_path / "resumed.pt"
    run_python(RESUME_DQN, out, mid_run, at_end)
    for resumed in torch.load(out, weights_only=True):
        assert resumed["returns"] == expected["returns"]
        assert resumed["evaluations"] == expected["evaluations"]
        assert all(torch.equal(a, b) for a, b in zip(resumed["params"], expected["params"]))
    # the run learned something, so identical parameters are not identical initialisations
    assert not torch.equal(expected["params"][0], cut.policy.policy.learner.approximator
                           .approximator.model.body[0].weight)


def q_learning(directory, steps):
    learner = TDLearner(TabularQApproximator(n_state=7, n_action=2, alpha=0.1), method="Q",
                        gamma=0.9)
    agent = Agent(QBasedPolicy(learner, EpsilonGreedyExplorer(epsilon_stable=0.5, seed=3)),
                  VectorSARTTrajectory())
    hook = TotalRewardPerEpisode() + StepsPerEpisode() + Checkpoint(directory, every=1, keep=200)
    return Experiment(agent, RandomWalk1D(seed=0), StopAfterStep(steps), hook)


def tabular_results(experiment):
    return (experiment.policy.policy.learner.approximator.table.copy(),
            experiment.hook[0].rewards, experiment.hook[1].steps)


RESUME_TABULAR = """
    import pickle, sys
    from rlcore import load, resume
    results = []
    for path in sys.argv[3:]:
        experiment = load(path)
        experiment.stop_condition.n = 120
        experiment.hook[-1].directory, experiment.hook[-1].every = sys.argv[2], 1000
        resume(experiment)
        results.append((experiment.policy.policy.learner.approximator.table,
                        experiment.hook[0].rewards, experiment.hook[1].steps))
    with open(sys.argv[1], "wb") as f:
        pickle.dump(results, f)
"""


def test_tabular_resume_from_every_step_is_exact(tmp_path):
    straight = q_learning(tmp_path / "straight", 120)
    run(straight)
    table, returns, steps = tabular_results(straight)
    assert len(returns) >= 5
    # every step's checkpoint (POST_ACT: inside an episode or at the step that ended it) and the
    # end-of-run ones of runs cut at an episode's end and inside an episode
    paths = [tmp_path / "straight" / f"checkpoint-{t:09d}.pt" for t in range(1, 120)]
    ended = [t for t in range(1, 120) if load(paths[t - 1]).env.is_terminated()]
    assert ended and len(ended) < 100
    cut_paths = []
    for t in (ended[1], ended[1] + 1):
        cut = q_learning(tmp_path / f"cut{t}", t)
        run(cut)
        cut_paths.append(latest_checkpoint(tmp_path / f"cut{t}"))
    for path in paths + cut_paths:
        experiment = load(path)
        experiment.stop_condition.n = 120
        # the resumed runs save at their end only, elsewhere (no effect on the run)
        experiment.hook[-1].directory, experiment.hook[-1].every = tmp_path / "resumed", 1000
        resume(experiment)
        resumed_table, resumed_returns, resumed_steps = tabular_results(experiment)
        assert resumed_returns == returns and resumed_steps == steps, path
        np.testing.assert_array_equal(resumed_table, table)
    out = tmp_path / "resumed.pkl"
    run_python(RESUME_TABULAR, out, tmp_path / "resumed", paths[ended[0] - 1], paths[ended[0]],
               *cut_paths)
    with open(out, "rb") as f:
        for resumed_table, resumed_returns, resumed_steps in pickle.load(f):
            assert resumed_returns == returns and resumed_steps == steps
            np.testing.assert_array_equal(resumed_table, table)


def press_ctrl_c(stop_signal, t, policy, env):
    stop_signal.set()


def test_a_run_stopped_by_a_signal_resumes_exactly(tmp_path):
    # Ctrl-C sets a StopSignal: the run ends after the step, the Checkpoint saves at its end, and
    # the signal is saved unset (as are progress bars), so the resumed run goes on.
    def experiment(directory, interrupt_at):
        stop_signal = StopSignal()
        interrupt = DoEveryNStep(functools.partial(press_ctrl_c, stop_signal), n=interrupt_at)
        hook = TotalRewardPerEpisode() + interrupt + Checkpoint(directory, every=1000)
        stop = ComposedStopCondition(StopAfterStep(300, progress=True), stop_signal)
        return Experiment(RandomPolicy(seed=0), CartPoleEnv(seed=0), stop, hook)

    straight = experiment(tmp_path / "straight", 1000)  # not interrupted in 300 steps
    run(straight)
    interrupted = experiment(tmp_path / "interrupted", 137)
    run(interrupted)
    assert interrupted.stop_condition.conditions[0].steps == 137
    saved = load(latest_checkpoint(tmp_path / "interrupted"))
    steps, stop_signal = saved.stop_condition.conditions
    assert stop_signal(None, None) is False and steps._bar is None
    saved.hook[1].n = 1000  # no second Ctrl-C
    resume(saved)
    assert steps.steps == 300
    assert saved.hook[0].rewards == straight.hook[0].rewards


# --- the trajectory flag, the weights, the global random states

def replay_agent():
    agent = Agent(RandomPolicy(seed=0), CircularArrayPSARTTrajectory(
        capacity=1000, state=((4,), np.float32)))
    run(agent, CartPoleEnv(seed=0), StopAfterStep(300))
    return agent


def test_trajectory_false_saves_the_replay_empty_and_leaves_the_caller_untouched(tmp_path):
    agent = replay_agent()
    full = save(tmp_path / "full.pt", agent)
    small = save(tmp_path / "small.pt", agent, trajectory=False)
    assert len(agent.trajectory) == 300 and agent.trajectory["priority"].total > 0
    assert os.path.getsize(small) < os.path.getsize(full) / 2
    assert len(load(full).trajectory) == 300
    empty = load(small).trajectory
    assert type(empty) is type(agent.trajectory) and empty.capacity == 1000
    assert all(len(trace) == 0 for trace in empty.traces.values())
    assert empty["state"].data.shape == agent.trajectory["state"].data.shape
    assert empty["priority"].total == 0
    loaded = load(small)
    run(loaded, CartPoleEnv(seed=1), StopAfterStep(50))  # an empty replay records as a new one
    assert len(loaded.trajectory) == 50


def test_a_checkpoint_without_its_trajectory_cannot_be_resumed(tmp_path):
    experiment = Experiment(replay_agent(), CartPoleEnv(seed=0), StopAfterStep(20),
                            Checkpoint(tmp_path, every=10, trajectory=False))
    run(experiment)
    with pytest.raises(ValueError, match="not saved inside a run"):
        resume(load(latest_checkpoint(tmp_path)))


def test_weights_load_with_weights_only(tmp_path):
    experiment = make("DQN_CartPole", 0, steps=600, eval_every=1000)  # learns from step 500
    run(experiment)
    path = save(tmp_path / "dqn.pt", experiment)
    record = torch.load(path, weights_only=True)
    assert (record["format"], record["version"]) == ("rlcore-checkpoint", 1)
    assert record["type"] == "rlcore.experiment.Experiment"
    assert record["saved_at"] == {"stage": None, "step": None}
    approximator = experiment.policy.policy.learner.approximator
    model = record["weights"]["policy.policy.learner.approximator.approximator.model"]
    for name, tensor in approximator.approximator.model.state_dict().items():
        assert torch.equal(model[name], tensor)
    assert "policy.policy.learner.approximator.target_model" in record["weights"]
    optimizer = record["optimizers"]["policy.policy.learner.approximator.approximator.optimizer"]
    assert optimizer["state"]  # Adam's moments: learning had started
    assert isinstance(record["payload"], bytes)


def test_load_restores_the_global_random_states(tmp_path):
    random.seed(1), np.random.seed(1), torch.manual_seed(1)
    path = save(tmp_path / "policy.pt", RandomPolicy(seed=0))
    draws = random.random(), np.random.random(), torch.rand(1).item()
    load(path)
    assert (random.random(), np.random.random(), torch.rand(1).item()) == draws
    load(path, restore_global_rng=False)
    assert (random.random(), np.random.random(), torch.rand(1).item()) != draws


# --- files: atomic writes, bad files, the Checkpoint hook

KILLED_MID_SAVE = """
    import os, sys, time, torch
    from rlcore import RandomPolicy, save
    path, marker = sys.argv[1], sys.argv[2]
    save(path, RandomPolicy(seed=1))

    real_save = torch.save

    def half_a_save(obj, file, *args, **kwargs):  # writes part of the file, then is killed
        if not (isinstance(obj, dict) and "payload" in obj):  # torch pickling a tensor
            return real_save(obj, file, *args, **kwargs)
        file.write(b"PK\\x03\\x04 half of a checkpoint")
        file.flush()
        open(marker, "w").close()
        time.sleep(60)

    torch.save = half_a_save
    save(path, RandomPolicy(seed=2))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_save_killed_half_way_leaves_the_previous_checkpoint(tmp_path):
    path, marker = tmp_path / "checkpoint-000000001.pt", tmp_path / "writing"
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(KILLED_MID_SAVE), str(path),
                              str(marker)], cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert child.poll() is None, "the child exited before its second save"
            assert time.monotonic() < deadline, "the child never started its second save"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    leftovers = [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]
    assert len(leftovers) == 1  # the half-written temporary file
    assert load(path).rng.integers(1 << 30) == RandomPolicy(seed=1).rng.integers(1 << 30)
    assert latest_checkpoint(tmp_path) == str(path)


def test_a_corrupt_file_fails_naming_it(tmp_path):
    path = save(tmp_path / "checkpoint.pt", RandomPolicy(seed=0))
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:len(data) // 2])
    with pytest.raises(CheckpointError, match=f"{path} is not a readable rlcore checkpoint "
                                              r"\(corrupt, truncated"):
        load(path)
    foreign = tmp_path / "weights.pt"
    torch.save({"layer.weight": torch.zeros(2)}, foreign)
    with pytest.raises(CheckpointError, match=f"{foreign} is not an rlcore checkpoint"):
        load(foreign)


def test_a_file_of_another_version_fails_naming_it_and_the_versions(tmp_path):
    path = save(tmp_path / "checkpoint.pt", RandomPolicy(seed=0))
    record = torch.load(path, weights_only=True)
    record.update(version=99, library="reinforcementlearning 9.0.0")
    torch.save(record, path)
    with pytest.raises(CheckpointError, match=f"{path} is an rlcore checkpoint of format version "
                                              r"99, written by reinforcementlearning 9\.0\.0; "
                                              r"this rlcore \(.*\) reads version 1"):
        load(path)


def test_checkpoint_counts_the_env_steps_of_a_vector_env_and_keeps_the_last(tmp_path):
    env = MultiThreadEnv("CartPole-v1", 3, mode="sync", seed=0)
    try:
        hook = run(RandomPolicy(seed=0), env, StopAfterStep(50),
                   Checkpoint(tmp_path, every=10, keep=2))
    finally:
        env.close()
    # 3 env steps per batched step: saves after 12, 21, 30, 42 and 51 steps (the run ends after
    # the batch of the 50th step) and at the end (51 again); the last two are kept
    assert hook.t == 51
    assert hook.files == sorted(os.listdir(tmp_path)) == ["checkpoint-000000042.pt",
                                                          "checkpoint-000000051.pt"]
    assert isinstance(load(latest_checkpoint(tmp_path)), RandomPolicy)  # the policy it saw


def test_resume_refuses_a_vector_env(tmp_path):
    env = MultiThreadEnv("CartPole-v1", 2, mode="sync", seed=0)
    experiment = Experiment(RandomPolicy(seed=0), env, StopAfterStep(4))
    experiment.position = POST_ACT_STAGE
    with pytest.raises(TypeError, match="MultiThreadEnv runs through its own run_loop"):
        resume(experiment)
    env.close()


def test_an_experiment_binds_its_checkpoint_which_must_be_its_last_hook(tmp_path):
    checkpoint = Checkpoint(tmp_path)
    experiment = Experiment(RandomPolicy(seed=0), RandomWalk1D(seed=0), StopAfterStep(5),
                            TotalRewardPerEpisode() + checkpoint)
    assert checkpoint.experiment is experiment
    later = Checkpoint(tmp_path / "later")
    experiment.hook = later
    assert later.experiment is experiment
    with pytest.raises(ValueError, match="must be the experiment's last hook.*Checkpoint \\+ "
                                         "TotalRewardPerEpisode"):
        Experiment(RandomPolicy(seed=0), RandomWalk1D(seed=0), StopAfterStep(5),
                   Checkpoint(tmp_path) + TotalRewardPerEpisode())


def test_inputs_are_validated_with_messages_that_name_them(tmp_path):
    a_file = save(tmp_path / "policy.pt", RandomPolicy(seed=0))
    with pytest.raises(ValueError, match="keep must be an int >= 1, got 0"):
        Checkpoint(tmp_path, keep=0)
    with pytest.raises(ValueError, match="every must be an int >= 1, got 2.5"):
        Checkpoint(tmp_path, every=2.5)
    with pytest.raises(ValueError, match=f"directory '{a_file}' is a file"):
        Checkpoint(a_file)
    with pytest.raises(IsADirectoryError, match=f"cannot save to '{tmp_path}': it is a dir"):
        save(tmp_path, RandomPolicy())
    with pytest.raises(FileNotFoundError, match="does not exist"):
        save(tmp_path / "missing" / "policy.pt", RandomPolicy())
    with pytest.raises(ValueError, match="at must be None, POST_ACT_STAGE or POST_EXPERIMENT"):
        save(tmp_path / "p.pt", RandomPolicy(), at=PRE_ACT_STAGE)
    with pytest.raises(IsADirectoryError, match=f"cannot load '{tmp_path}': it is a directory"):
        load(tmp_path)
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        load(tmp_path / "nothing.pt")
    with pytest.raises(NotADirectoryError, match=f"got the file '{a_file}'"):
        latest_checkpoint(a_file)
    with pytest.raises(TypeError, match="resume takes an Experiment.*got RandomPolicy"):
        resume(RandomPolicy())
    with pytest.raises(ValueError, match="not saved inside a run"):
        resume(Experiment(RandomPolicy(seed=0), RandomWalk1D(), StopAfterStep(5)))


def test_latest_checkpoint_is_the_highest_step(tmp_path):
    assert latest_checkpoint(tmp_path / "not yet") is None
    assert latest_checkpoint(tmp_path) is None
    for name in ("checkpoint-000000900.pt", "checkpoint-000010000.pt", "checkpoint-5.pt",
                 ".checkpoint-000099999.pt.123-abc.tmp", "notes.txt"):
        (tmp_path / name).touch()
    assert latest_checkpoint(tmp_path) == str(tmp_path / "checkpoint-000010000.pt")


def test_an_unpicklable_part_is_named(tmp_path):
    experiment = Experiment(RandomPolicy(seed=0), RandomWalk1D(), StopAfterStep(5),
                            DoEveryNStep(lambda t, policy, env: None))
    with pytest.raises(TypeError, match=r"cannot save Experiment to .*: hook\.f \(function\) "
                                        r"cannot be pickled"):
        save(tmp_path / "experiment.pt", experiment)
    assert not os.listdir(tmp_path)  # nothing written, no temporary file left

"""The rlzoo command line: list, show, run, and errors that list the valid choices."""

import subprocess
import sys

import pytest

from rlzoo.cli import main, parse_overrides


def test_list_prints_names_and_descriptions(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "DQN_CartPole" in out and "Dopamine_IQN_Atari" in out
    assert "Rainbow (C51 + PER" in out


def test_show_prints_parameters_and_the_component_tree(capsys):
    assert main(["show", "C51_CartPole"]) == 0
    out = capsys.readouterr().out
    assert "n_atoms = 51" in out
    assert "C51Learner" in out and "EvaluateEveryNStep" in out


def test_unknown_name_and_key_fail_with_the_valid_ones(capsys):
    assert main(["show", "DQN_Cartpole"]) == 2
    assert "valid names: " in capsys.readouterr().err
    assert main(["run", "DQN_CartPole", "learning_rate=0.1"]) == 2
    err = capsys.readouterr().err
    assert "no parameter 'learning_rate'; valid keys: steps, device, n_envs, lr" in err
    assert main(["run", "DQN_CartPole", "lr=fast"]) == 2
    assert "lr takes a number" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["show", "run"])
def test_a_value_the_experiment_rejects_is_a_one_line_error(command, capsys):
    assert main([command, "BasicDQN_MountainCar", "train_max_steps=0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rlzoo: error: BasicDQN_MountainCar: train_max_steps must be a positive")
    assert "Traceback" not in err and err.count("\n") == 1
    assert main([command, "DQN_CartPole", "gamma=2.0"]) == 2
    assert "rlzoo: error: DQN_CartPole: " in capsys.readouterr().err


def test_overrides_are_typed_after_the_defaults():
    assert parse_overrides("DQN_CartPole", ["lr=5e-4", "is_double=false", "steps=1_000",
                                            "stop_at=195", "loss=mse", "n_envs=4"]) == \
        {"lr": 5e-4, "is_double": False, "steps": 1000, "stop_at": 195, "loss": "mse",
         "n_envs": 4}


def test_run_prints_evaluations_and_a_summary(capsys):
    assert main(["run", "DQN_CartPole", "--steps", "600", "--seed", "1",
                 "min_replay_history=200", "eval_every=300", "eval_episodes=2"]) == 0
    out = capsys.readouterr().out
    assert "step 300: mean return" in out and "step 600: mean return" in out
    for line in ("episodes: ", "mean return of the last", "best evaluation: ", "wall time: ",
                 "steps: 600"):
        assert line in out


def test_python_dash_m_rlzoo():
    result = subprocess.run([sys.executable, "-m", "rlzoo", "list"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0 and "BasicDQN_PendulumDiscrete" in result.stdout
    result = subprocess.run([sys.executable, "-m", "rlzoo", "run", "Nope"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and "valid names" in result.stderr


@pytest.mark.parametrize("argv", [["run", "DQN_CartPole", "--bogus"], ["frobnicate"]])
def test_bad_usage_exits(argv):
    with pytest.raises(SystemExit):
        main(argv)


def test_cuda_without_a_gpu_is_a_clear_error(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    assert main(["run", "DQN_CartPole", "--device", "cuda", "--steps", "10"]) == 2
    assert "needs a CUDA device" in capsys.readouterr().err


def test_run_prints_the_parameters_in_a_few_lines_and_the_tree_only_with_tree(capsys):
    argv = ["run", "DQN_CartPole", "--steps", "300", "min_replay_history=200", "eval_every=300",
            "eval_episodes=1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    head = out.split("step 300")[0]
    assert head.startswith("DQN_CartPole, seed 0: DQN on CartPole-v1")
    assert "steps=300" in head and "min_replay_history=200" in head and "lr=0.0023" in head
    assert len(head.splitlines()) <= 8 and "DQNLearner" not in head
    assert main(argv + ["--tree"]) == 0
    assert "DQNLearner" in capsys.readouterr().out


def test_no_progress_bar_when_output_is_not_a_terminal():
    # a log file gets whole lines: no carriage returns of a progress bar
    result = subprocess.run([sys.executable, "-m", "rlzoo", "run", "DQN_CartPole", "--steps",
                             "300", "min_replay_history=200", "eval_every=300",
                             "eval_episodes=1"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0
    assert "\r" not in result.stdout and "\r" not in result.stderr


def test_ctrl_c_ends_the_run_with_the_step_a_summary_a_checkpoint_and_status_130(tmp_path):
    import signal
    import time

    from rlcore import latest_checkpoint, load

    process = subprocess.Popen(
        [sys.executable, "-m", "rlzoo", "run", "DQN_CartPole", "--steps", "1000000",
         "eval_every=1000000", "--out", str(tmp_path)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    # the header is printed before the first step: once it is there, let it train a little
    first = process.stdout.readline()
    assert first.startswith("DQN_CartPole, seed 0"), first
    time.sleep(2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "interrupted at step " in out and "episodes: " in out and "wall time: " in out
    assert "Traceback" not in err
    step = int(out.split("interrupted at step ")[1].split()[0])
    path = latest_checkpoint(tmp_path / "checkpoints")
    assert path.endswith(f"checkpoint-{step:09d}.pt")
    assert load(path).stop_condition.conditions[0].steps == step  # resumable from there


SHORT = ["min_replay_history=200", "eval_every=300", "eval_episodes=2"]


def _weights(path):
    import torch

    return torch.load(path, weights_only=True)["weights"]


def test_out_writes_the_agent_the_logs_the_checkpoints_and_a_plot(tmp_path, capsys):
    import json

    import matplotlib.image

    out = tmp_path / "run"
    assert main(["run", "DQN_CartPole", "--steps", "600", "--seed", "2", "--out", str(out)]
                + SHORT) == 0
    assert json.loads((out / "run.json").read_text()) == {
        "name": "DQN_CartPole", "seed": 2,
        "overrides": {"min_replay_history": 200, "eval_every": 300, "eval_episodes": 2,
                      "steps": 600}}
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "checkpoint-000000300.pt", "checkpoint-000000600.pt"]
    returns = (out / "returns.csv").read_text().splitlines()
    assert returns[0] == "step,tag,value" and "episode/return" in returns[1]
    assert [line.split(",")[0] for line in (out / "evals.csv").read_text().splitlines()] == [
        "step", "300", "600"]
    assert list((out / "tensorboard").iterdir())
    assert any(key.endswith("learner.approximator.approximator.model")
               for key in _weights(out / "agent.pt"))
    assert matplotlib.image.imread(out / "returns.png").shape[:2] == (500, 800)
    # a second run into the same directory would mix two runs: refused
    assert main(["run", "DQN_CartPole", "--steps", "600", "--out", str(out)]) == 2
    assert f"--resume {out}" in capsys.readouterr().err


def test_resume_continues_the_run_exactly(tmp_path, capsys):
    import torch

    straight, cut = tmp_path / "straight", tmp_path / "cut"
    assert main(["run", "DQN_CartPole", "--steps", "1200", "--out", str(straight)] + SHORT) == 0
    assert main(["run", "DQN_CartPole", "--steps", "600", "--out", str(cut)] + SHORT) == 0
    assert main(["run", "--resume", str(cut)]) == 2  # its 600 steps are taken
    assert "give --steps N (more than 600)" in capsys.readouterr().err
    assert main(["run", "--resume", str(cut), "--steps", "1200"]) == 0
    assert "resuming from step 600" in capsys.readouterr().out
    for name in ("returns.csv", "evals.csv"):
        assert (cut / name).read_text() == (straight / name).read_text()
    a, b = _weights(straight / "agent.pt"), _weights(cut / "agent.pt")
    assert a.keys() == b.keys()
    for key in a:
        for tensor_name, tensor in a[key].items():
            assert torch.equal(tensor, b[key][tensor_name]), (key, tensor_name)


def test_resume_and_eval_errors_are_one_line(tmp_path, capsys):
    assert main(["run", "--resume", str(tmp_path)]) == 2
    assert "no run.json there" in capsys.readouterr().err
    assert main(["run", "DQN_CartPole", "--resume", str(tmp_path)]) == 2
    assert "give only --resume DIR" in capsys.readouterr().err
    assert main(["run"]) == 2
    assert "needs an experiment NAME" in capsys.readouterr().err
    assert main(["eval", str(tmp_path)]) == 2
    assert "no run.json there" in capsys.readouterr().err


def test_eval_runs_the_saved_agent_and_records_videos(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "DQN_CartPole", "--steps", "300", "--out", str(out)] + SHORT) == 0
    capsys.readouterr()
    assert main(["eval", str(out), "--episodes", "3"]) == 0
    assert "over 3 episodes" in capsys.readouterr().out
    pytest.importorskip("moviepy")
    assert main(["eval", str(out / "agent.pt"), "--episodes", "1", "--render",
                 str(tmp_path / "videos")]) == 0
    assert (tmp_path / "videos" / "eval-episode-0.mp4").stat().st_size > 1000


def test_plot_saves_the_learning_curve(tmp_path, capsys):
    import matplotlib.image

    path = tmp_path / "curve.png"
    assert main(["run", "DQN_CartPole", "--steps", "600", "--plot", str(path)] + SHORT) == 0
    assert f"plot: {path}" in capsys.readouterr().out
    assert matplotlib.image.imread(path).shape[:2] == (500, 800)


def test_resume_after_a_kill_drops_the_log_rows_past_the_checkpoint(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "DQN_CartPole", "--steps", "900", "--out", str(out)] + SHORT) == 0
    straight = {name: (out / name).read_text() for name in ("returns.csv", "evals.csv")}
    # as if killed just before the step-900 checkpoint: the logs already hold steps 601-900
    (out / "checkpoints" / "checkpoint-000000900.pt").unlink()
    assert main(["run", "--resume", str(out)]) == 0
    assert "resuming from step 600" in capsys.readouterr().out
    for name, text in straight.items():
        assert (out / name).read_text() == text
    # a checkpoint is an agent too
    assert main(["eval", str(out / "checkpoints" / "checkpoint-000000600.pt"),
                 "--episodes", "1"]) == 0
    assert "over 1 episodes" in capsys.readouterr().out


def test_a_game_solver_prints_nash_conv_and_plots_it(tmp_path, capsys):
    png = tmp_path / "nash_conv.png"
    assert main(["run", "TabularCFR_KuhnPoker", "steps=20", "every=10", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "step 10: nash_conv" in out and "step 20: nash_conv" in out
    assert "nash_conv:" in out and "after 20 iterations" in out and "iterations/s" in out
    assert png.stat().st_size > 0
    assert main(["run", "TabularCFR_KuhnPoker", "steps=5", "--out", str(tmp_path / "o")]) == 2
    assert "game solver" in capsys.readouterr().err


def test_a_multi_agent_run_sums_up_each_player(capsys):
    assert main(["run", "Minimax_TicTacToe", "games=3"]) == 0
    out = capsys.readouterr().out
    assert "episodes: 3" in out and "cross: mean return of the last 3 episodes" in out

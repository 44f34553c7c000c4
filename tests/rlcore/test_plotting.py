"""Tests of rlcore/plotting.py."""

import math
import struct

import numpy as np
import pytest

from rlcore import (
    CSVSink, EvaluateEveryNStep, LogHook, MemorySink, RandomPolicy, StopAfterStep,
    TotalRewardPerEpisode, run,
)
from rlcore.plotting import (
    Curve, _t_quantile, learning_curve, mean_curve, plot_learning_curves, smooth,
)
from tests.helpers import LineEnv

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("confidence, dof, table", [
    (0.95, 1, 12.706), (0.95, 2, 4.303), (0.95, 4, 2.776), (0.95, 9, 2.262), (0.95, 29, 2.045),
    (0.99, 4, 4.604), (0.90, 10, 1.812)])
def test_t_quantile_matches_the_table(confidence, dof, table):
    assert _t_quantile(confidence, dof) == pytest.approx(table, abs=5e-4)


def test_t_quantile_approaches_the_normal_quantile():
    # t_{0.975, 2000} = 1.96115 (tables), z_{0.975} = 1.95996
    assert _t_quantile(0.95, 2000) == pytest.approx(1.96115, abs=1e-5)


def test_smooth_is_a_trailing_moving_average():
    # window 3: [1], [1, 2], [1, 2, 6], [2, 6, 3] -> 1, 1.5, 3, 11/3
    assert smooth([1, 2, 6, 3], 3).tolist() == pytest.approx([1.0, 1.5, 3.0, 11 / 3])
    assert smooth([1, 2], 1).tolist() == [1.0, 2.0]
    assert smooth([], 5).tolist() == []
    with pytest.raises(ValueError, match=r"smoothing must be an int >= 1 .*, got 0"):
        smooth([1.0], 0)


def test_mean_curve_of_seeds_on_one_x_with_t_and_std_bands():
    runs = [([0, 1], [0.0, 0.0]), ([0, 1], [1.0, 2.0]), ([0, 1], [2.0, 4.0])]
    curve = mean_curve(runs)
    assert isinstance(curve, Curve) and curve.n_runs == 3
    assert curve.x.tolist() == [0, 1] and curve.mean.tolist() == [1.0, 2.0]
    # s = [1, 2]; half width t_{0.975, 2} · s / √3 = 4.303 · [1, 2] / 1.732 = [2.484, 4.968]
    assert (curve.high - curve.mean).tolist() == pytest.approx([2.484, 4.968], abs=1e-3)
    assert (curve.mean - curve.low).tolist() == pytest.approx([2.484, 4.968], abs=1e-3)
    std = mean_curve(runs, band="std")
    assert std.low.tolist() == [0.0, 0.0] and std.high.tolist() == [2.0, 4.0]
    none = mean_curve(runs, band=None)
    assert none.low.tolist() == none.high.tolist() == [1.0, 2.0]
    one = mean_curve(runs[1])  # one run: no band
    assert one.n_runs == 1 and one.low.tolist() == one.high.tolist() == [1.0, 2.0]


def test_mean_curve_smooths_each_run_then_interpolates_onto_the_common_x():
    # y = x in both runs; their x overlap on [5, 10]
    a, b = ([0, 10], [0.0, 10.0]), ([5, 20], [5.0, 20.0])
    curve = mean_curve([a, b], n_points=6)
    assert curve.x.tolist() == [5, 6, 7, 8, 9, 10]
    assert curve.mean.tolist() == pytest.approx(curve.x.tolist())
    assert curve.high.tolist() == pytest.approx(curve.x.tolist())  # the runs agree: no width
    # smoothing (2 points) before interpolation: a -> [0, 5], b -> [5, 12.5]
    smoothed = mean_curve([a, b], smoothing=2, n_points=2)
    assert smoothed.x.tolist() == [5, 10]
    # at 5: a 2.5, b 5; at 10: a 5, b 5 + 7.5 · 5 / 15 = 7.5
    assert smoothed.mean.tolist() == pytest.approx([3.75, 6.25])


def test_mean_curve_rejects_what_cannot_be_averaged():
    with pytest.raises(ValueError, match=r"x ranges \[0, 1\], \[2, 3\] do not overlap"):
        mean_curve([([0, 1], [0, 0]), ([2, 3], [0, 0])])
    with pytest.raises(ValueError, match="has no 'episode/return' points"):
        mean_curve([([], [])])
    with pytest.raises(ValueError, match="band must be 'ci', 'std' or None, got 'sem'"):
        mean_curve(([0], [0]), band="sem")
    with pytest.raises(ValueError, match="confidence must be a number in \\(0, 1\\), got 95"):
        mean_curve(([0], [0]), confidence=95)
    with pytest.raises(ValueError, match="must not decrease"):
        mean_curve(([1, 0], [0, 0]))
    with pytest.raises(ValueError, match="x and y of equal length"):
        mean_curve(([0, 1], [0]))
    with pytest.raises(TypeError, match="cannot read a learning curve from 42"):
        mean_curve(42)
    with pytest.raises(KeyError, match=r"no series 'eval/return'; it has \['train/loss'\]"):
        sink = MemorySink()
        sink.write("train/loss", 1.0, 1)
        mean_curve(sink, tag="eval/return")


def test_learning_curves_from_hooks_and_logs(tmp_path):
    totals = TotalRewardPerEpisode()
    evaluation = EvaluateEveryNStep(LineEnv(length=3), n=4, n_episodes=1)
    log = LogHook([MemorySink(), CSVSink(tmp_path / "log.csv")], evaluation=evaluation)
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(9), totals + evaluation + log)
    assert [v.tolist() for v in learning_curve(totals, "ignored")] == [[1, 2, 3], [3, 3, 3]]
    assert [v.tolist() for v in learning_curve(evaluation, "x")] == [[4, 8], [3, 3]]
    episodes = [[3, 6, 9], [3, 3, 3]]
    for source in (log, log.sinks[0], log.sinks[1], tmp_path / "log.csv",
                   str(tmp_path / "log.csv")):
        assert [v.tolist() for v in learning_curve(source, "episode/return")] == episodes
    assert learning_curve(log, "eval/return")[0].tolist() == [4, 8]
    with pytest.raises(TypeError, match="has no MemorySink or CSVSink"):
        from rlcore import StdoutSink
        learning_curve(LogHook(StdoutSink()), "episode/return")


def _png_size(path):
    """(width, height) from the IHDR chunk, which follows the 8-byte signature."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_plot_of_seeds_from_csv_logs_is_a_png_of_the_requested_size(tmp_path):
    import matplotlib.image

    from rlenvs import RandomWalk1D

    paths, evaluations = [], []
    for seed in range(3):
        evaluation = EvaluateEveryNStep(RandomWalk1D(), n=50, n_episodes=3, seed=seed)
        paths.append(tmp_path / f"seed{seed}")
        run(RandomPolicy(seed=seed), RandomWalk1D(), StopAfterStep(300),
            evaluation + LogHook(CSVSink(paths[-1]), evaluation=evaluation))
        evaluations.append(evaluation)
    png = tmp_path / "curves.png"
    figure = plot_learning_curves({"random": paths, "greedy eval": evaluations}, smoothing=5,
                                  title="RandomWalk1D", path=png, width=640, height=480, dpi=80)
    assert _png_size(png) == (640, 480)
    assert matplotlib.image.imread(png).shape[:2] == (480, 640)
    ax = figure.axes[0]
    assert ax.get_legend_handles_labels()[1] == ["random (3 runs)", "greedy eval (3 runs)"]
    assert ax.get_xlabel() == "env step" and ax.get_ylabel() == "episode/return"
    assert ax.get_title() == "RandomWalk1D"
    assert len(ax.collections) == 2  # one band per curve
    # the drawn line is the mean curve
    curve = mean_curve(paths, smoothing=5)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), curve.mean)


def test_plot_into_given_axes_and_default_labels(tmp_path):
    from matplotlib.figure import Figure

    totals = TotalRewardPerEpisode()
    run(RandomPolicy(seed=0), LineEnv(length=3), StopAfterStep(9), totals)
    figure = Figure(figsize=(3, 2), dpi=50)
    ax = figure.add_subplot()
    assert plot_learning_curves(totals, ax=ax, path=tmp_path / "a.png") is figure
    assert _png_size(tmp_path / "a.png") == (150, 100)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("episode", "episode/return")
    assert ax.get_legend() is None and not ax.collections  # one unlabelled run: no band
    with pytest.raises(ValueError, match="width must be a positive int, got 0"):
        plot_learning_curves(totals, width=0)
    assert math.isclose(_t_quantile(0.5, 1), 1.0, abs_tol=1e-9)  # tan(π/4)

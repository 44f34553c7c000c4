"""Learning curves: the mean over seeds with a confidence band, from hooks or CSV logs.

Not imported by ``import rlcore``: ``import rlcore.plotting``. matplotlib (an optional extra,
``pip install reinforcementlearning[log]``) is imported only when a figure is drawn, and figures
are drawn without pyplot (a ``matplotlib.figure.Figure`` rendered by Agg when saved), so nothing
here changes the backend of a notebook or opens a window.

A *run* is one seed's curve, ``learning_curve(run, tag) -> (x, y)``:

* a :class:`~rlcore.TotalRewardPerEpisode`: x is the episode number (1, 2, ...), y its return;
* an :class:`~rlcore.EvaluateEveryNStep`: x the env step of each evaluation, y its mean return;
* a CSV log written by :class:`~rlcore.CSVSink` (its path, a directory holding ``log.csv``, or
  the sink), a :class:`~rlcore.MemorySink`, or a :class:`~rlcore.LogHook` with one of these
  sinks: the series of ``tag`` (``"episode/return"`` by default; ``"eval/return"``,
  ``"train/loss"``, ...), x being the env step;
* a tuple ``(x, y)`` of two sequences.

``learning_curve`` is a generic function: a rule for another kind of run adds a source.

Several seeds (a list of runs) give one curve: each run is smoothed first (a trailing moving
average of ``smoothing`` points), then, unless all runs share the same x, interpolated linearly
onto ``n_points`` evenly spaced x where all runs have data (from the largest first x to the
smallest last x); the curve is the mean over runs at each x, and the band the two-sided
Student-t confidence interval of that mean, ``mean ± t_{(1+c)/2, k-1} · s / √k`` for ``k`` runs
with sample standard deviation ``s`` (``band="ci"``, level ``confidence=c``), or ``mean ± s``
(``band="std"``). One run has no band.
"""

import math
import numbers
import os
from typing import NamedTuple

import numpy as np

from rlcore.dispatch import dispatch, generic
from rlcore.evaluation import EvaluateEveryNStep
from rlcore.hooks import TotalRewardPerEpisode
from rlcore.logger import CSVSink, LogHook, MemorySink, read_csv_log

__all__ = ["learning_curve", "Curve", "mean_curve", "smooth", "plot_learning_curves"]

learning_curve = generic("learning_curve", doc="""``learning_curve(run, tag) -> (x, y)``: one
    run's learning curve as two float arrays of equal length (see ``rlcore.plotting``); ``tag``
    (a str) picks the series of a log and is ignored by hooks that keep one series.""")


@dispatch(object, str)
def learning_curve(run, tag):
    raise TypeError(f"learning_curve: cannot read a learning curve from {run!r}; give a "
                    f"TotalRewardPerEpisode, an EvaluateEveryNStep, a LogHook, a MemorySink, a "
                    f"CSVSink or CSV log path, or an (x, y) tuple")


@dispatch(tuple, str)
def learning_curve(run, tag):  # noqa: F811
    if len(run) != 2:
        raise ValueError(f"learning_curve: a tuple run must be (x, y), got {len(run)} items")
    return _pair(*run, what="(x, y)")


@dispatch(TotalRewardPerEpisode, str)
def learning_curve(hook, tag):  # noqa: F811
    return _pair(np.arange(1, len(hook.rewards) + 1), hook.rewards, what=repr(hook))


@dispatch(EvaluateEveryNStep, str)
def learning_curve(hook, tag):  # noqa: F811
    return _pair(hook.steps, hook.returns, what="EvaluateEveryNStep")


@dispatch(MemorySink, str)
def learning_curve(sink, tag):  # noqa: F811
    return _tagged(sink.data, tag, "MemorySink")


@dispatch(str, str)
def learning_curve(path, tag):  # noqa: F811
    return _tagged(read_csv_log(path), tag, repr(path))


@dispatch(os.PathLike, str)
def learning_curve(path, tag):  # noqa: F811
    return _tagged(read_csv_log(path), tag, repr(os.fspath(path)))


@dispatch(CSVSink, str)
def learning_curve(sink, tag):  # noqa: F811
    return learning_curve(sink.path, tag)


@dispatch(LogHook, str)
def learning_curve(hook, tag):  # noqa: F811
    """The series of its first ``MemorySink`` or ``CSVSink``."""
    for sink in hook.sinks:
        if isinstance(sink, (MemorySink, CSVSink)):
            return learning_curve(sink, tag)
    raise TypeError(f"learning_curve: {hook!r} has no MemorySink or CSVSink to read back")


def _tagged(data, tag, what):
    if tag not in data:
        raise KeyError(f"learning_curve: {what} has no series {tag!r}; it has "
                       f"{sorted(data)}")
    return _pair(*data[tag], what=f"{what}[{tag!r}]")


def _pair(x, y, what):
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"learning_curve: {what} must give x and y of equal length, got shapes "
                         f"{x.shape} and {y.shape}")
    if len(x) and np.any(np.diff(x) < 0):
        raise ValueError(f"learning_curve: the x of {what} must not decrease")
    return x, y


def smooth(y, window):
    """The trailing moving average of ``y`` over ``window`` points (fewer at the start, so the
    result has the length of ``y``); ``window=1`` returns ``y`` as floats.

    >>> smooth([1.0, 2.0, 3.0, 4.0], 2).tolist()
    [1.0, 1.5, 2.5, 3.5]
    """
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"smoothing must be an int >= 1 (points of a moving average), got "
                         f"{window!r}")
    y = np.asarray(y, dtype=np.float64)
    if window == 1 or len(y) == 0:
        return y.copy()
    sums = np.concatenate(([0.0], np.cumsum(y)))
    end = np.arange(1, len(y) + 1)
    start = np.maximum(end - window, 0)
    return (sums[end] - sums[start]) / (end - start)


class Curve(NamedTuple):
    """A learning curve over runs: ``x``, the ``mean`` and the band ``low`` to ``high`` (float
    arrays of one length), and ``n_runs``."""

    x: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_runs: int


def mean_curve(runs, *, tag="episode/return", smoothing=1, band="ci", confidence=0.95,
               n_points=200):
    """The mean learning curve of ``runs`` (a run or a list of runs, one per seed) with its
    band, as a :class:`Curve` (see the module doc for runs, smoothing, alignment and bands).

    Keyword arguments: ``tag="episode/return"``, ``smoothing=1`` (points of a moving average),
    ``band="ci"`` (Student-t confidence interval of the mean), ``"std"`` or ``None``,
    ``confidence=0.95`` (in (0, 1)), ``n_points=200`` (x points when the runs' x differ).

    >>> curve = mean_curve([([0, 1, 2], [1.0, 2.0, 3.0]), ([0, 1, 2], [3.0, 2.0, 1.0])])
    >>> curve.mean.tolist(), curve.n_runs
    ([2.0, 2.0, 2.0], 2)
    >>> curve.high.round(2).tolist()   # 2 + t_{0.975, 1} · s / √2, s = √2 at x = 0 and 2
    [14.71, 2.0, 14.71]
    """
    if band not in ("ci", "std", None):
        raise ValueError(f"band must be 'ci', 'std' or None, got {band!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) \
            or not 0 < confidence < 1:
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
    if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)) or n_points < 2:
        raise ValueError(f"n_points must be an int >= 2, got {n_points!r}")
    runs = list(runs) if isinstance(runs, list) else [runs]
    if not runs:
        raise ValueError("mean_curve: no runs given")
    curves = [learning_curve(run, tag) for run in runs]
    for run, (x, _) in zip(runs, curves):
        if len(x) == 0:
            raise ValueError(f"mean_curve: the run {run!r} has no {tag!r} points")
    ys = [smooth(y, smoothing) for _, y in curves]
    x0 = curves[0][0]
    if all(x.shape == x0.shape and np.array_equal(x, x0) for x, _ in curves):
        grid, ys = x0, np.stack(ys)
    else:
        start, stop = max(x[0] for x, _ in curves), min(x[-1] for x, _ in curves)
        if start > stop:
            ranges = ", ".join(f"[{x[0]:g}, {x[-1]:g}]" for x, _ in curves)
            raise ValueError(f"mean_curve: the runs' x ranges {ranges} do not overlap; no x has "
                             f"data from every run")
        grid = np.linspace(start, stop, n_points)
        ys = np.stack([np.interp(grid, x, y) for (x, _), y in zip(curves, ys)])
    k = len(ys)
    mean = ys.mean(axis=0)
    if k == 1 or band is None:
        return Curve(grid, mean, mean.copy(), mean.copy(), k)
    half = ys.std(axis=0, ddof=1)
    if band == "ci":
        half = half * _t_quantile(confidence, k - 1) / math.sqrt(k)
    return Curve(grid, mean, mean - half, mean + half, k)


def _t_abs_cdf(t, dof):
    """``P(|T| <= t)`` for Student's t with an integer ``dof`` >= 1, in closed form
    (Abramowitz & Stegun 26.7.3 and 26.7.4, with θ = atan(t / √dof))."""
    theta = math.atan(t / math.sqrt(dof))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    term, total = 1.0, 1.0
    if dof % 2:
        # (2/π)(θ + sin θ cos θ (1 + 2/3 cos²θ + ... + 2·4···(ν−3) / 3·5···(ν−2) cos^(ν−3) θ))
        for k in range(1, (dof - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            total += term
        series = s * math.cos(theta) * total if dof > 1 else 0.0
        return 2.0 / math.pi * (theta + series)
    # sin θ (1 + 1/2 cos²θ + ... + 1·3···(ν−3) / 2·4···(ν−2) cos^(ν−2) θ)
    for k in range(1, dof // 2):
        term *= c2 * (2 * k - 1) / (2 * k)
        total += term
    return s * total


def _t_quantile(confidence, dof):
    """The ``t`` with ``P(|T| <= t) = confidence`` (the ``(1 + confidence) / 2`` quantile) for
    Student's t with ``dof`` degrees of freedom, by bisection of the closed-form CDF."""
    low, high = 0.0, 1.0
    while _t_abs_cdf(high, dof) < confidence:
        low, high = high, 2.0 * high
    for _ in range(100):
        middle = 0.5 * (low + high)
        if _t_abs_cdf(middle, dof) < confidence:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def _labels(runs, tag):
    """The default axis labels of a curve's runs: what the hooks' series are, else the tag."""
    runs = runs if isinstance(runs, list) else [runs]
    if all(isinstance(r, TotalRewardPerEpisode) for r in runs):
        return "episode", "episode/return"
    if all(isinstance(r, EvaluateEveryNStep) for r in runs):
        return "env step", "eval/return"
    return "env step", tag


def _positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")


def plot_learning_curves(runs, *, tag="episode/return", smoothing=1, band="ci", confidence=0.95,
                         n_points=200, title=None, xlabel=None, ylabel=None, ax=None, path=None,
                         width=800, height=500, dpi=100):
    """Plot learning curves: for each curve the mean over its runs (seeds) as a line and its
    band shaded; return the matplotlib ``Figure``, saved as a PNG to ``path`` when given.

    ``runs`` is one curve (a run, or a list of runs: one per seed) or a dict ``{label: one
    curve}`` for several labelled curves (a legend is drawn). Runs, smoothing, alignment and
    bands are as in :func:`mean_curve` (see the module doc). Without ``ax`` a new figure of
    ``width`` × ``height`` pixels at ``dpi`` is made (with no pyplot: it does not show itself;
    a notebook shows the returned figure); with ``ax`` the curves are drawn there and the
    PNG has that figure's size.

    Keyword arguments: ``tag="episode/return"``, ``smoothing=1``, ``band="ci"``,
    ``confidence=0.95``, ``n_points=200``, ``title=None``, ``xlabel=None`` (``"episode"`` for
    ``TotalRewardPerEpisode`` runs, else ``"env step"``), ``ylabel=None`` (the series: the tag
    for logs), ``ax=None``,
    ``path=None``, ``width=800``, ``height=500`` (pixels), ``dpi=100``.

    >>> import numpy as np
    >>> x = np.arange(0, 1000, 10)
    >>> seeds = [(x, np.tanh(x / 300) + np.random.default_rng(s).normal(0, 0.1, x.size))
    ...          for s in range(5)]
    >>> figure = plot_learning_curves({"DQN": seeds}, smoothing=5, width=640, height=400)
    >>> figure.get_size_inches() * figure.dpi
    array([640., 400.])
    """
    for name, value in (("width", width), ("height", height), ("dpi", dpi)):
        _positive_int(name, value)
    curves = runs if isinstance(runs, dict) else {None: runs}
    if not curves:
        raise ValueError("plot_learning_curves: no curves given (an empty dict)")
    computed = {label: mean_curve(r, tag=tag, smoothing=smoothing, band=band,
                                  confidence=confidence, n_points=n_points)
                for label, r in curves.items()}  # before drawing: errors leave no figure
    try:
        from matplotlib.figure import Figure
    except ImportError as error:  # matplotlib is an optional extra
        raise ImportError(f"plot_learning_curves needs matplotlib ({error}); install it with "
                          f"pip install 'reinforcementlearning[log]'") from error
    if ax is None:
        figure = Figure(figsize=(width / dpi, height / dpi), dpi=dpi, layout="constrained")
        ax = figure.add_subplot()
    else:
        figure = ax.figure
    for label, curve in computed.items():
        if curve.n_runs > 1 and label is not None:
            label = f"{label} ({curve.n_runs} runs)"
        (line,) = ax.plot(curve.x, curve.mean, label=label)
        if curve.n_runs > 1 and band is not None:
            ax.fill_between(curve.x, curve.low, curve.high, color=line.get_color(), alpha=0.25,
                            linewidth=0)
    default_xlabel, default_ylabel = _labels(next(iter(curves.values())), tag)
    ax.set_xlabel(default_xlabel if xlabel is None else xlabel)
    ax.set_ylabel(default_ylabel if ylabel is None else ylabel)
    if title is not None:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if any(label is not None for label in curves):
        ax.legend()
    if path is not None:
        figure.savefig(path, format="png", dpi=figure.dpi)
    return figure

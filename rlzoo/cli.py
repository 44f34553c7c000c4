"""The ``rlzoo`` command line: list, show, run and evaluate the named experiments.

    rlzoo list
    rlzoo show NAME [--seed S] [key=value ...]
    rlzoo run NAME [--seed S] [--steps N] [--device cpu|cuda] [--threads T] [--out DIR]
                   [--checkpoint-every N] [--plot PNG] [--tree] [key=value ...]
    rlzoo run --resume DIR [--steps N]
    rlzoo eval DIR [--episodes N] [--seed S] [--render VIDEO_DIR] [--fps F]

(also ``python -m rlzoo ...``). ``key=value`` overrides any parameter that ``rlzoo show NAME``
lists; values are parsed after the parameter's default (int, float, bool, or a string). An
unknown name or key fails with the list of valid ones, in one line.

A run prints its parameters in a few lines (the whole component tree with ``--tree``), a
progress bar when stderr is a terminal, each evaluation, and ends with a summary: episodes, mean
of the last 100 returns, best evaluation, wall time and steps per second (a game solver, such as
``TabularCFR_KuhnPoker``, prints its NashConv as it trains and ends with the last NashConv and
iterations per second; ``--plot`` then draws NashConv against iterations). Ctrl-C stops it after
the current step ("interrupted at step N", the summary so far, exit status 130); a second Ctrl-C
stops at once.

``--out DIR`` writes ``run.json`` (name, seed, overrides), ``returns.csv`` and ``evals.csv``
(``step,tag,value`` rows: ``episode/return``, ``episode/length``; ``eval/return``), a TensorBoard
log in ``tensorboard/``, checkpoints in ``checkpoints/`` (every ``--checkpoint-every`` env steps,
default the experiment's ``eval_every``, and at the end, also after Ctrl-C; the last 3 kept), and
at the end ``agent.pt`` (the policy, replay left out) and ``returns.png``. ``--resume DIR``
continues that run from its newest checkpoint exactly as if it had not stopped (single-env
runs; ``--steps N`` sets its step budget, more than the steps taken; log rows written after
the checkpoint by a run that was killed are dropped first). ``rlzoo eval DIR`` runs the saved agent
greedily on a fresh evaluation env of its experiment; ``--render`` records each episode with
Gymnasium's video recorder (the ``video`` extra: moviepy).
"""

import argparse
import json
import pathlib
import signal
import sys
import textwrap
import time

from rlzoo.experiments import registry

__all__ = ["main", "parse_overrides"]


class UsageError(Exception):
    """A bad name, key or value on the command line (printed without a traceback)."""


def _parse_value(key, text, default):
    if isinstance(default, bool):
        lowered = text.lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no"):
            return False
        raise UsageError(f"{key} takes true or false, got {text!r}")
    if isinstance(default, int):
        try:
            return int(text.replace("_", ""))
        except ValueError:
            raise UsageError(f"{key} takes an int, got {text!r}") from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise UsageError(f"{key} takes a number, got {text!r}") from None
    if default is None:
        if text.lower() == "none":
            return None
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
    return text


def parse_overrides(name, items):
    """``["lr=1e-3", "is_double=false"]`` as a dict typed after ``name``'s defaults."""
    valid = registry.parameters(name)
    overrides = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise UsageError(f"overrides are key=value, got {item!r}")
        if key not in valid:
            raise UsageError(f"{name} has no parameter {key!r}; valid keys: {', '.join(valid)}")
        overrides[key] = _parse_value(key, text, valid[key])
    return overrides


def _get(name):
    try:
        return registry.get(name)
    except KeyError as error:
        raise UsageError(error.args[0]) from None


def _make(name, seed, overrides):
    """``registry.make``, with a value the experiment rejects (a ``ValueError`` while building
    it) reported as a usage error naming the experiment; other errors keep their traceback."""
    try:
        return registry.make(name, seed, **overrides)
    except ValueError as error:
        raise UsageError(f"{name}: {error}") from None


def _list(args):
    names = registry.names()
    width = max(map(len, names))
    for name in names:
        print(f"{name:<{width}}  {registry.describe(name)}")


def _show(args):
    function = _get(args.name)
    print(f"{args.name}: {function.description}")
    print("parameters (override with key=value):")
    for key, value in registry.parameters(args.name).items():
        print(f"  {key} = {value!r}")
    try:
        experiment = _make(args.name, args.seed, parse_overrides(args.name, args.overrides))
    except MemoryError as error:
        print(f"(the component tree needs more memory than this machine has: {error}; "
              "lower capacity=...)")
        return
    print(experiment)


def _run(args):
    import torch

    if args.resume is not None:
        if (args.name is not None or args.overrides or args.seed is not None
                or args.out is not None or args.checkpoint_every is not None
                or args.device is not None):
            raise UsageError("--resume DIR continues the run saved in DIR with its own name, "
                             "seed, parameters and outputs; give only --resume DIR (and "
                             "--steps N to set its step budget)")
        name, seed, overrides, out = _read_run_file(args.resume)
        _get(name)
        if args.steps is not None:
            overrides["steps"] = args.steps
    else:
        if args.name is None:
            raise UsageError("run needs an experiment NAME (rlzoo list), or --resume DIR")
        name, seed, out = args.name, 0 if args.seed is None else args.seed, args.out
        _get(name)
        overrides = parse_overrides(name, args.overrides)
    valid = registry.parameters(name)
    if args.resume is None:
        for key, value in (("steps", args.steps), ("device", args.device)):
            if value is not None:
                if key not in valid:
                    raise UsageError(f"{name} has no parameter {key!r}; valid keys: "
                                     f"{', '.join(valid)}")
                overrides[key] = value
    if str(overrides.get("device", "cpu")).startswith("cuda") and not torch.cuda.is_available():
        raise UsageError("device cuda needs a CUDA device, and torch.cuda.is_available() is False "
                         "here; use --device cpu")
    shown = dict(overrides)  # progress and verbose follow the terminal, not the saved run
    if "progress" in valid:  # a bar only on a terminal: no \r fragments in a log file
        shown.setdefault("progress", sys.stderr.isatty())
    if "verbose" in valid:
        shown.setdefault("verbose", True)
    if args.threads < 1:
        raise UsageError(f"--threads must be >= 1, got {args.threads}")
    from rlcore import EvaluateEveryNStep, TotalRewardPerEpisode
    from rlzoo.experiments.common import find_hook

    previous_threads = torch.get_num_threads()
    torch.set_num_threads(args.threads)
    try:
        if args.resume is not None:
            experiment, start_step = _load_for_resume(args.resume, args.steps)
            _update_run_file(out, overrides)
            print(header(name, seed, {**valid, **shown}, experiment.description))
            print(f"resuming from step {start_step} of {out}")
        else:
            experiment = _make(name, seed, shown)
            print(header(name, seed, {**valid, **shown}, experiment.description))
            if out is not None and _is_solver(experiment.policy):
                raise UsageError(f"--out saves and resumes agents that act in episodes; "
                                 f"{name} is a game solver ({type(experiment.policy).__name__})"
                                 f" and has no checkpoints: run it without --out (--plot PNG "
                                 f"saves its nash_conv curve)")
            if out is not None:
                _start_out_dir(out, name, seed, overrides, args.checkpoint_every, experiment)
        if args.tree:
            print(experiment)
        evaluation = find_hook(experiment.hook, EvaluateEveryNStep)
        since = (evaluation.t, evaluation.seconds) if evaluation is not None else (0, 0.0)
        start = time.perf_counter()
        hook, interrupted = run_interruptible(experiment, resume=args.resume is not None)
        seconds = time.perf_counter() - start
    finally:
        torch.set_num_threads(previous_threads)
    returns = find_hook(hook, TotalRewardPerEpisode)
    nash = _nash_conv_hook(hook)
    if interrupted:
        print(f"interrupted at step {steps_taken(experiment.stop_condition)}")
    if _is_solver(experiment.policy):
        print(solver_summary(nash, seconds, steps_taken(experiment.stop_condition)))
    else:
        players = _player_returns(hook) if returns is None else {}
        if players:
            print(player_summary(players, seconds))
        else:
            print(summary(returns.rewards if returns else [], evaluation, seconds, since))
        if nash is not None and nash.values:
            print(f"nash_conv: {nash.values[-1]:.6f} at step {nash.steps[-1]}")
    if out is not None:
        _finish_out_dir(out, experiment)
    if args.plot is not None:
        if nash is not None and nash.values:
            _plot_nash_conv(args.plot, nash, "iterations" if _is_solver(experiment.policy)
                            else "env steps")
        else:
            _plot(args.plot, returns, evaluation)
        print(f"plot: {args.plot}")
    return INTERRUPTED if interrupted else 0


INTERRUPTED = 130  # the shell's status for a process ended by SIGINT (128 + 2)
RUN_FILE = "run.json"


def header(name, seed, parameters, description=""):
    """The first lines of a run: the experiment, its seed and every parameter, wrapped."""
    pairs = ", ".join(f"{key}={value!r}" for key, value in parameters.items())
    lines = [f"{name}, seed {seed}" + (f": {description}" if description else "")]
    lines += textwrap.wrap(pairs, width=100, initial_indent="parameters: ",
                           subsequent_indent="  ")
    return "\n".join(lines)


# --- --out DIR: what a run writes, and --resume DIR

def _start_out_dir(out, name, seed, overrides, checkpoint_every, experiment):
    """Write ``run.json`` and add the hooks that write the rest of ``out``: the episode and
    evaluation CSV logs, the TensorBoard log and the checkpoints (last, as ``Checkpoint``
    requires)."""
    from rlcore import (
        Checkpoint, CSVSink, EvaluateEveryNStep, LogHook, StopSignal, TensorBoardSink,
    )
    from rlzoo.experiments.common import find_hook

    out = pathlib.Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; give a directory")
    if (out / RUN_FILE).exists():
        raise UsageError(f"--out {out} already holds a run ({RUN_FILE}); continue it with "
                         f"--resume {out}, or choose another directory")
    out.mkdir(parents=True, exist_ok=True)
    try:
        json.dumps(overrides)
    except TypeError as error:
        raise UsageError(f"the overrides {overrides!r} cannot be saved in {RUN_FILE}: {error}")
    every = checkpoint_every
    if every is None:
        every = registry.parameters(name).get("eval_every") or 10_000
        every = overrides.get("eval_every", every)
    if every < 1:
        raise UsageError(f"--checkpoint-every must be >= 1, got {every}")
    (out / RUN_FILE).write_text(json.dumps(
        {"name": name, "seed": seed, "overrides": overrides}, indent=2) + "\n")
    evaluation = find_hook(experiment.hook, EvaluateEveryNStep)
    log = LogHook([CSVSink(out / "returns.csv", tags="episode/"),
                   CSVSink(out / "evals.csv", tags="eval/"),
                   TensorBoardSink(out / "tensorboard")],
                  every=every, evaluation=evaluation)
    if not any(isinstance(c, StopSignal) for c in _conditions(experiment.stop_condition)):
        from rlcore import ComposedStopCondition

        experiment.stop_condition = ComposedStopCondition(experiment.stop_condition, StopSignal())
    experiment.hook = experiment.hook + log + Checkpoint(out / "checkpoints", every=every, keep=3)


def _read_run_file(out, command="--resume"):
    path = pathlib.Path(out) / RUN_FILE
    try:
        saved = json.loads(path.read_text())
        return saved["name"], saved["seed"], saved["overrides"], str(out)
    except FileNotFoundError:
        raise UsageError(f"{command} {out}: no {RUN_FILE} there; it is written by "
                         f"rlzoo run NAME --out {out}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise UsageError(f"{command} {out}: {path} is not a run file ({error})") from None


def _update_run_file(out, overrides):
    path = pathlib.Path(out) / RUN_FILE
    saved = json.loads(path.read_text())
    saved["overrides"] = overrides
    path.write_text(json.dumps(saved, indent=2) + "\n")


def _load_for_resume(out, steps):
    """The experiment of the newest checkpoint in ``out``, with its step budget set to
    ``steps`` when given, and its logs rewound to the checkpoint's step (a run killed after it
    logged steps that come again); and that step."""
    from rlcore import (
        Checkpoint, CheckpointError, LogHook, StopAfterStep, latest_checkpoint, load,
    )

    path = latest_checkpoint(pathlib.Path(out) / "checkpoints")
    if path is None:
        raise UsageError(f"--resume {out}: no checkpoint in {out}/checkpoints yet")
    try:
        experiment = load(path)
    except CheckpointError as error:
        raise UsageError(str(error)) from None
    if getattr(experiment, "position", None) is None:
        raise UsageError(f"--resume {out}: {path} holds the policy only (a vectorised run saves "
                         "no env): it cannot be resumed; start a new run")
    budget = next((c for c in _conditions(experiment.stop_condition)
                   if isinstance(c, StopAfterStep)), None)
    hooks = getattr(experiment.hook, "hooks", (experiment.hook,))
    done = next(h.t for h in hooks if isinstance(h, Checkpoint))  # the step it was saved at
    if steps is not None:
        if budget is None or steps <= done:
            raise UsageError(f"--steps {steps} must be more than the {done} steps already taken")
        budget.n = steps
    elif budget is not None and budget.steps >= budget.n:
        raise UsageError(f"the run in {out} has taken all its {budget.n} steps; give --steps N "
                         f"(more than {budget.n}) to train further")
    for hook in hooks:
        if isinstance(hook, LogHook):
            hook.rewind(done)
    return experiment, done


def _conditions(stop_condition):
    """``stop_condition`` and the conditions composed inside it."""
    from rlcore import ComposedStopCondition

    if isinstance(stop_condition, ComposedStopCondition):
        return [c for inner in stop_condition.conditions for c in _conditions(inner)]
    return [stop_condition]


def _finish_out_dir(out, experiment):
    """The trained agent (``agent.pt``, its replay left out) and the learning curve
    (``returns.png``)."""
    from rlcore import save

    out = pathlib.Path(out)
    save(out / "agent.pt", experiment.policy, trajectory=False)
    _plot(out / "returns.png", out / "returns.csv", out / "evals.csv")
    print(f"saved: {out}/agent.pt, returns.csv, evals.csv, returns.png, tensorboard/, "
          "checkpoints/")


def _plot(path, returns, evaluation):
    """A PNG of the episode returns (10-episode moving average) and the evaluations; each is a
    hook or a CSV log."""
    from rlcore.plotting import plot_learning_curves

    curves = {}
    if returns is not None and _has_points(returns, "episode/return"):
        curves["training episodes"] = returns
    figure = None
    if curves:
        figure = plot_learning_curves(curves, tag="episode/return", smoothing=10, band=None,
                                      xlabel="env steps", ylabel="return")
    if evaluation is not None and _has_points(evaluation, "eval/return"):
        figure = plot_learning_curves({"evaluation": evaluation}, tag="eval/return", band=None,
                                      ax=figure.axes[0] if figure else None, xlabel="env steps",
                                      ylabel="return")
    if figure is None:
        raise UsageError(f"nothing to plot in {path}: no episode ended")
    figure.savefig(path, dpi=100)


def _is_solver(policy):
    from rlzoo.multi_agent.solver import AbstractGameSolver

    return isinstance(policy, AbstractGameSolver)


def _nash_conv_hook(hook):
    from rlzoo.experiments.common import find_hook
    from rlzoo.multi_agent.hooks import NashConvHook

    return find_hook(hook, NashConvHook)


def _plot_nash_conv(path, nash, xlabel):
    """A PNG of NashConv against ``xlabel`` (solver iterations or env steps), log scale."""
    from rlcore.plotting import plot_learning_curves

    figure = plot_learning_curves({"nash_conv": nash}, band=None, ylabel="NashConv",
                                  xlabel=xlabel)
    figure.axes[0].set_yscale("log")
    figure.savefig(path, dpi=100)


def _has_points(run, tag):
    from rlcore.plotting import learning_curve

    try:
        return len(learning_curve(run, tag)[0]) > 0
    except (KeyError, ValueError, FileNotFoundError):
        return False


def run_interruptible(experiment, resume=False):
    """Run ``experiment`` (``resume=True``: :func:`rlcore.resume` it); the first Ctrl-C (SIGINT)
    asks the run to stop after the current step, a second one interrupts at once. Returns
    ``(hook, interrupted)``.

    The first Ctrl-C sets the :class:`~rlcore.StopSignal` composed with the experiment's stop
    condition (``--out`` stores one in the experiment, so a resumed run has it too; otherwise
    one is composed for this run), so the run ends through its ordinary end: the episode's and
    the experiment's last stages fire, and hooks close cleanly (a ``Checkpoint`` saves)."""
    from rlcore import ComposedStopCondition, StopSignal, resume as resume_run, run

    signals = [c for c in _conditions(experiment.stop_condition) if isinstance(c, StopSignal)]
    stop_signal = signals[0] if signals else StopSignal()
    stop_condition = experiment.stop_condition if signals else ComposedStopCondition(
        experiment.stop_condition, stop_signal)
    interrupted = []

    def on_sigint(signum, frame):
        if interrupted:  # a second Ctrl-C: stop now, whatever the run is doing
            raise KeyboardInterrupt
        interrupted.append(True)
        stop_signal.set()
        print("\nCtrl-C: stopping after this step (Ctrl-C again to stop at once)",
              file=sys.stderr)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        if resume:
            hook = resume_run(experiment)
        else:
            hook = run(experiment.policy, experiment.env, stop_condition, experiment.hook)
    finally:
        signal.signal(signal.SIGINT, previous)
        stop_signal.clear()
    return hook, bool(interrupted)


def steps_taken(stop_condition):
    """The env steps counted by the ``StopAfterStep`` in ``stop_condition`` (``?`` if none)."""
    from rlcore import StopAfterStep

    for condition in _conditions(stop_condition):
        if isinstance(condition, StopAfterStep):
            return condition.steps
    return "?"


# --- rlzoo eval

def _eval(args):
    """Evaluate a saved agent greedily on a fresh evaluation env of its experiment."""
    import numpy as np

    from rlcore import (
        CheckpointError, EvaluateEveryNStep, StopAfterEpisode, TotalRewardPerEpisode, load,
        run, testmode,
    )
    from rlcore.policies.agent import Agent
    from rlzoo.experiments.common import find_hook

    if args.episodes < 1:
        raise UsageError(f"--episodes must be >= 1, got {args.episodes}")
    path = pathlib.Path(args.path)
    if path.is_dir():
        out, path = path, path / "agent.pt"
    else:  # DIR/agent.pt or DIR/checkpoints/checkpoint-N.pt
        out = next((d for d in (path.parent, path.parent.parent) if (d / RUN_FILE).exists()),
                   path.parent)
    name, seed, overrides, _ = _read_run_file(out, "rlzoo eval")
    try:
        saved = load(path)
    except CheckpointError as error:
        raise UsageError(str(error)) from None
    except FileNotFoundError:
        raise UsageError(f"no saved agent at {path}") from None
    policy = getattr(saved, "policy", saved)  # an Experiment (a checkpoint) or a policy
    policy = policy.policy if isinstance(policy, Agent) else policy
    evaluation_seed = seed if args.seed is None else args.seed
    experiment = _make(name, evaluation_seed, {**overrides, "progress": False,
                                               "verbose": False})
    evaluation = find_hook(experiment.hook, EvaluateEveryNStep)
    env = evaluation.env if evaluation is not None else experiment.env
    hook = TotalRewardPerEpisode()
    frames = None
    if args.render is not None:
        from rlcore.video import RecordFrames

        _render_frames(env)
        frames = RecordFrames()
        hook = hook + frames
    print(f"evaluating {path} ({name}) greedily for {args.episodes} episodes")
    start = time.perf_counter()
    with testmode(policy):
        run(policy, env, StopAfterEpisode(args.episodes, progress=sys.stderr.isatty()), hook)
    seconds = time.perf_counter() - start
    rewards = np.array((hook[0] if frames is not None else hook).rewards)
    print(f"mean return {rewards.mean():.2f} ± {rewards.std():.2f} over {len(rewards)} episodes "
          f"(min {rewards.min():.2f}, max {rewards.max():.2f}), {seconds:.1f} s")
    if frames is not None:
        from rlcore.video import save_episodes

        paths = save_episodes(frames.episodes, args.render, fps=args.fps)
        print(f"videos: {', '.join(map(str, paths))}")
    return 0


def _render_frames(env):
    """Make ``env`` (or the Gymnasium env at the bottom of its wrappers) render rgb_array
    frames, or fail naming it."""
    from rlenvs import GymEnv

    inner = getattr(env, "innermost", env)
    if not isinstance(inner, GymEnv):
        raise UsageError(f"--render needs a Gymnasium environment that renders frames; the "
                         f"evaluation env is {env!r}")
    try:
        inner.set_render_mode("rgb_array")
    except ValueError as error:
        raise UsageError(f"--render: {error}") from None


def summary(returns, evaluation, seconds, since=(0, 0.0)):
    """The closing lines of a run; ``since`` is the evaluation hook's ``(t, seconds)`` when this
    run began (a resumed run's speed counts only its own steps)."""
    lines = [f"episodes: {len(returns)}"]
    if returns:
        last = returns[-100:]
        lines.append(f"mean return of the last {len(last)} episodes: {sum(last) / len(last):.2f}")
    if evaluation is not None and evaluation.returns:
        best = max(range(len(evaluation.returns)), key=evaluation.returns.__getitem__)
        lines.append(f"best evaluation: {evaluation.returns[best]:.2f} at step "
                     f"{evaluation.steps[best]}")
    steps = evaluation.t - since[0] if evaluation is not None else None
    lines.append(f"wall time: {seconds:.1f} s" + (
        f" ({evaluation.seconds - since[1]:.1f} s evaluating)" if evaluation is not None else ""))
    if steps:
        total = f" (of {evaluation.t})" if since[0] else ""
        lines.append(f"steps: {steps}{total}, {steps / seconds:.0f} steps/s")
    return "\n".join(lines)


def _player_returns(hook):
    """``{player: TotalRewardPerEpisode}`` from a ``MultiAgentHook`` in ``hook``, or ``{}``."""
    from rlcore import MultiAgentHook, TotalRewardPerEpisode
    from rlzoo.experiments.common import find_hook

    per_player = find_hook(hook, MultiAgentHook)
    if per_player is None:
        return {}
    return {p: h for p, h in per_player.hooks.items() if isinstance(h, TotalRewardPerEpisode)}


def player_summary(players, seconds):
    """The closing lines of a multi-agent run: episodes, each player's mean return of the last
    100 episodes, wall time."""
    lines = [f"episodes: {max(len(h.rewards) for h in players.values())}"]
    for player, h in players.items():
        last = h.rewards[-100:]
        if last:
            lines.append(f"{player}: mean return of the last {len(last)} episodes: "
                         f"{sum(last) / len(last):.2f}")
    lines.append(f"wall time: {seconds:.1f} s")
    return "\n".join(lines)


def solver_summary(nash, seconds, iterations):
    """The closing lines of a game solver's run: NashConv reached, wall time, iterations/s."""
    lines = []
    if nash is not None and nash.values:
        lines.append(f"nash_conv: {nash.values[-1]:.6f} after {nash.steps[-1]} iterations "
                     f"(first measured {nash.values[0]:.6f} at {nash.steps[0]})")
    lines.append(f"wall time: {seconds:.1f} s")
    if isinstance(iterations, int) and seconds > 0:
        lines.append(f"iterations: {iterations}, {iterations / seconds:.1f} iterations/s "
                     "(NashConv measurements included)")
    return "\n".join(lines)


def _parser():
    parser = argparse.ArgumentParser(prog="rlzoo", description="Named experiments of rlzoo.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="names and one-line descriptions")
    show = commands.add_parser("show", help="an experiment's parameters and component tree")
    show.add_argument("name")
    show.add_argument("--seed", type=int, default=0)
    show.add_argument("overrides", nargs="*", metavar="key=value")
    run = commands.add_parser("run", help="run an experiment")
    run.add_argument("name", nargs="?")
    run.add_argument("--seed", type=int, default=None, help="default 0")
    run.add_argument("--steps", type=int, default=None)
    run.add_argument("--device", choices=("cpu", "cuda"), default=None)
    run.add_argument("--threads", type=int, default=1,
                     help="torch CPU threads (default 1: fastest for small networks)")
    run.add_argument("--out", metavar="DIR", default=None,
                     help="write run.json, returns.csv, evals.csv, tensorboard/, checkpoints/, "
                          "agent.pt and returns.png into DIR")
    run.add_argument("--resume", metavar="DIR", default=None,
                     help="continue the run of an --out DIR from its newest checkpoint, exactly "
                          "(--steps N sets its step budget)")
    run.add_argument("--checkpoint-every", type=int, default=None, metavar="N",
                     help="with --out: env steps between checkpoints (default eval_every)")
    run.add_argument("--plot", metavar="PNG", default=None,
                     help="save the learning curve (returns and evaluations) to PNG")
    run.add_argument("--tree", action="store_true",
                     help="print the whole component tree before running")
    run.add_argument("overrides", nargs="*", metavar="key=value")
    evaluate = commands.add_parser("eval", help="evaluate a saved agent")
    evaluate.add_argument("path", metavar="DIR", help="an --out DIR, or a checkpoint in one")
    evaluate.add_argument("--episodes", type=int, default=10)
    evaluate.add_argument("--seed", type=int, default=None,
                          help="seed of the evaluation env (default: the run's)")
    evaluate.add_argument("--render", metavar="VIDEO_DIR", default=None,
                          help="record each episode to VIDEO_DIR/eval-episode-K.mp4")
    evaluate.add_argument("--fps", type=int, default=30)
    return parser


def main(argv=None):
    """Entry point of ``rlzoo`` and ``python -m rlzoo``; returns the exit status."""
    parser = _parser()
    # key=value overrides may come before or after the options
    args, extra = parser.parse_known_args(argv)
    if extra:
        if args.command in ("list", "eval") or any(e.startswith("-") or "=" not in e
                                                    for e in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.overrides = args.overrides + extra
    try:
        return {"list": _list, "show": _show, "run": _run, "eval": _eval}[args.command](args) or 0
    except UsageError as error:
        print(f"rlzoo: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C during a run, or one outside it
        print("rlzoo: interrupted", file=sys.stderr)
        return INTERRUPTED

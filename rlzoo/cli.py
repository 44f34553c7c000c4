"""The ``rlzoo`` command line: list, show and run the named experiments.

    rlzoo list
    rlzoo show NAME [--seed S] [key=value ...]
    rlzoo run NAME [--seed S] [--steps N] [--device cpu|cuda] [--threads T] [key=value ...]

(also ``python -m rlzoo ...``). ``key=value`` overrides any parameter that ``rlzoo show NAME``
lists; values are parsed after the parameter's default (int, float, bool, or a string). An
unknown name or key fails with the list of valid ones. A run shows a progress bar and each
evaluation, and ends with a summary: episodes, mean of the last 100 returns, best evaluation,
wall time and steps per second.
"""

import argparse
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

    _get(args.name)
    overrides = parse_overrides(args.name, args.overrides)
    valid = registry.parameters(args.name)
    for key, value in (("steps", args.steps), ("device", args.device)):
        if value is not None:
            if key not in valid:
                raise UsageError(f"{args.name} has no parameter {key!r}; valid keys: "
                                 f"{', '.join(valid)}")
            overrides[key] = value
    if str(overrides.get("device", "cpu")).startswith("cuda") and not torch.cuda.is_available():
        raise UsageError("device cuda needs a CUDA device, and torch.cuda.is_available() is False "
                         "here; use --device cpu")
    if "progress" in valid:  # a bar only on a terminal: no \r fragments in a log file
        overrides.setdefault("progress", sys.stderr.isatty())
    if "verbose" in valid:
        overrides.setdefault("verbose", True)
    from rlcore import EvaluateEveryNStep, TotalRewardPerEpisode
    from rlzoo.experiments.common import find_hook

    previous_threads = torch.get_num_threads()
    if args.threads is not None:
        if args.threads < 1:
            raise UsageError(f"--threads must be >= 1, got {args.threads}")
        torch.set_num_threads(args.threads)
    try:
        experiment = _make(args.name, args.seed, overrides)
        print(header(args.name, args.seed, {**valid, **overrides}, experiment.description))
        if args.tree:
            print(experiment)
        start = time.perf_counter()
        hook, interrupted = run_interruptible(experiment)
        seconds = time.perf_counter() - start
    finally:
        torch.set_num_threads(previous_threads)
    returns = find_hook(hook, TotalRewardPerEpisode)
    evaluation = find_hook(hook, EvaluateEveryNStep)
    if interrupted:
        print(f"interrupted at step {steps_taken(experiment.stop_condition)}")
    print(summary(returns.rewards if returns else [], evaluation, seconds))
    return INTERRUPTED if interrupted else 0


INTERRUPTED = 130  # the shell's status for a process ended by SIGINT (128 + 2)


def header(name, seed, parameters, description=""):
    """The first lines of a run: the experiment, its seed and every parameter, wrapped."""
    pairs = ", ".join(f"{key}={value!r}" for key, value in parameters.items())
    lines = [f"{name}, seed {seed}" + (f": {description}" if description else "")]
    lines += textwrap.wrap(pairs, width=100, initial_indent="parameters: ",
                           subsequent_indent="  ")
    return "\n".join(lines)


def run_interruptible(experiment):
    """Run ``experiment``; the first Ctrl-C (SIGINT) asks the run to stop after the current
    step, a second one interrupts at once. Returns ``(hook, interrupted)``.

    The first Ctrl-C sets a :class:`~rlcore.StopSignal` composed with the experiment's stop
    condition (not stored in the experiment), so the run ends through its ordinary end: the
    episode's and the experiment's last stages fire and hooks (a checkpoint, logs) close
    cleanly."""
    from rlcore import ComposedStopCondition, StopSignal, run

    stop_signal = StopSignal()
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
        hook = run(experiment.policy, experiment.env,
                   ComposedStopCondition(experiment.stop_condition, stop_signal), experiment.hook)
    finally:
        signal.signal(signal.SIGINT, previous)
    return hook, bool(interrupted)


def steps_taken(stop_condition):
    """The env steps counted by the ``StopAfterStep`` in ``stop_condition`` (``?`` if none)."""
    from rlcore import ComposedStopCondition, StopAfterStep

    if isinstance(stop_condition, StopAfterStep):
        return stop_condition.steps
    if isinstance(stop_condition, ComposedStopCondition):
        for condition in stop_condition.conditions:
            steps = steps_taken(condition)
            if steps != "?":
                return steps
    return "?"


def summary(returns, evaluation, seconds):
    """The closing lines of a run."""
    lines = [f"episodes: {len(returns)}"]
    if returns:
        last = returns[-100:]
        lines.append(f"mean return of the last {len(last)} episodes: {sum(last) / len(last):.2f}")
    if evaluation is not None and evaluation.returns:
        best = max(range(len(evaluation.returns)), key=evaluation.returns.__getitem__)
        lines.append(f"best evaluation: {evaluation.returns[best]:.2f} at step "
                     f"{evaluation.steps[best]}")
    steps = evaluation.t if evaluation is not None else None
    lines.append(f"wall time: {seconds:.1f} s" + (
        f" ({evaluation.seconds:.1f} s evaluating)" if evaluation is not None else ""))
    if steps:
        lines.append(f"steps: {steps}, {steps / seconds:.0f} steps/s")
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
    run.add_argument("name")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--steps", type=int, default=None)
    run.add_argument("--device", choices=("cpu", "cuda"), default=None)
    run.add_argument("--threads", type=int, default=1,
                     help="torch CPU threads (default 1: fastest for small networks)")
    run.add_argument("--tree", action="store_true",
                     help="print the whole component tree before running")
    run.add_argument("overrides", nargs="*", metavar="key=value")
    return parser


def main(argv=None):
    """Entry point of ``rlzoo`` and ``python -m rlzoo``; returns the exit status."""
    parser = _parser()
    # key=value overrides may come before or after the options
    args, extra = parser.parse_known_args(argv)
    if extra:
        if args.command == "list" or any(e.startswith("-") or "=" not in e for e in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.overrides = args.overrides + extra
    try:
        return {"list": _list, "show": _show, "run": _run}[args.command](args) or 0
    except UsageError as error:
        print(f"rlzoo: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C during a run, or one outside it
        print("rlzoo: interrupted", file=sys.stderr)
        return INTERRUPTED

"""Hooks for games: :class:`NashConvHook` records the NashConv of the policy being trained
(``rlcore.plotting.learning_curve(hook, tag)`` reads it back as ``(steps, values)``)."""

import attrs

import numpy as np

from rlcore.dispatch import dispatch
from rlcore.hooks import AbstractHook, on_stage
from rlcore.plotting import learning_curve
from rlcore.stages import PostActStage, PostExperimentStage
from rlcore.utils.validators import positive_int
from rlzoo.multi_agent.exploitability import nash_conv
from rlzoo.multi_agent.game_tree import GameTree

__all__ = ["NashConvHook"]


@attrs.define(eq=False)
class NashConvHook(AbstractHook):
    """Every ``every`` steps (solver iterations, or env steps of a ``MultiAgentPolicy`` run),
    the NashConv of the running policy on ``tree``: ``hook.steps`` and ``hook.values``; printed
    as it goes when ``verbose``. The end of the run adds a last measurement if the last step was
    not one.

    The policy measured is the run's policy (a solver's average policy, a ``MultiAgentPolicy``
    of NFSP agents); anything with ``action_probabilities(env, player)``.

    >>> from rlcore import RandomPolicy, StopAfterStep, run
    >>> from rlenvs import KuhnPokerEnv
    >>> from rlzoo.multi_agent.game_tree import GameTree, TabularRandomPolicy
    >>> tree = GameTree(KuhnPokerEnv())
    >>> hook = NashConvHook(tree, every=2)
    >>> hook(PostActStage(), TabularRandomPolicy(tree), KuhnPokerEnv())
    >>> hook(PostActStage(), TabularRandomPolicy(tree), KuhnPokerEnv())
    >>> hook.steps, [round(v, 4) for v in hook.values]
    ([2], [0.9167])
    """

    tree: GameTree = attrs.field(repr=False)
    every: int = attrs.field(default=100, validator=positive_int)
    verbose: bool = attrs.field(default=False)
    t: int = attrs.field(default=0)
    steps: list = attrs.field(factory=list, repr=False)
    values: list = attrs.field(factory=list, repr=False)

    @tree.validator
    def _check_tree(self, attribute, tree):
        if not isinstance(tree, GameTree):
            raise TypeError(f"tree must be a GameTree, got {tree!r}")

    def measure(self, policy):
        value = nash_conv(self.tree, policy)
        self.steps.append(self.t)
        self.values.append(value)
        if self.verbose:
            print(f"step {self.t}: nash_conv {value:.6f}", flush=True)


@dispatch(NashConvHook, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.t += 1
    if hook.t % hook.every == 0:
        hook.measure(policy)


@dispatch(NashConvHook, PostExperimentStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    if hook.t > 0 and (not hook.steps or hook.steps[-1] != hook.t):
        hook.measure(policy)


@dispatch(NashConvHook, str)
def learning_curve(hook, tag):  # noqa: F811
    """``(steps, nash_conv values)``; ``tag`` is ignored (one series)."""
    return np.asarray(hook.steps, dtype=np.float64), np.asarray(hook.values, dtype=np.float64)


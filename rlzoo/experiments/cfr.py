"""Counterfactual regret minimisation on poker: CFR+ (or CFR) on Kuhn poker and Leduc hold'em,
Monte Carlo CFR on Leduc hold'em.

* ``TabularCFR_KuhnPoker``, ``TabularCFR_LeducHoldem``:
  :class:`~rlzoo.multi_agent.tabular_cfr.TabularCFRPolicy`, CFR+ (``plus=True``: regret
  matching+, linear averaging, alternating updates) or plain CFR (``plus=False``: regret
  matching, uniform averaging, simultaneous updates);
* ``MCCFR_LeducHoldem``: ``sampling="external"``
  (:class:`~rlzoo.multi_agent.external_sampling_mccfr.ExternalSamplingMCCFRPolicy`) or
  ``"outcome"`` (:class:`~rlzoo.multi_agent.outcome_sampling_mccfr.OutcomeSamplingMCCFRPolicy`,
  exploration ``epsilon``).

A solver runs one iteration per step of ``run`` (``StopAfterStep(steps)``); the hook is a
:class:`~rlzoo.multi_agent.hooks.NashConvHook` that measures the NashConv of the solver's average
policy every ``every`` iterations (``hook.steps``, ``hook.values``), printing each when
``verbose``. The game tree is built once per experiment (Leduc's, 9,457 histories, in about two
seconds).
"""

from rlcore import Experiment, StopAfterStep
from rlenvs import KuhnPokerEnv, LeducPokerEnv
from rlzoo.experiments.registry import register
from rlzoo.multi_agent.external_sampling_mccfr import ExternalSamplingMCCFRPolicy
from rlzoo.multi_agent.game_tree import GameTree
from rlzoo.multi_agent.hooks import NashConvHook
from rlzoo.multi_agent.outcome_sampling_mccfr import OutcomeSamplingMCCFRPolicy
from rlzoo.multi_agent.tabular_cfr import TabularCFRPolicy

__all__ = ["MCCFR_LeducHoldem", "TabularCFR_KuhnPoker", "TabularCFR_LeducHoldem"]


def _tabular_cfr(make_env, name, seed, steps, every, plus, progress, verbose):
    env = make_env(seed=seed)
    tree = GameTree(env)
    flags = {} if plus else {"is_reset_neg_regrets": False, "is_linear_averaging": False,
                             "is_alternating_update": False}
    solver = TabularCFRPolicy(tree, seed=seed, **flags)
    return Experiment(solver, env, StopAfterStep(steps, progress=progress),
                      NashConvHook(tree, every=every, verbose=verbose),
                      f"{'CFR+' if plus else 'CFR'} on {name}, {steps} iterations, seed {seed}")


@register("CFR+ (plus=False: CFR) on Kuhn poker, printing NashConv as it trains")
def TabularCFR_KuhnPoker(seed=0, *, steps=1000, every=10, plus=True, progress=False,
                         verbose=False):
    return _tabular_cfr(KuhnPokerEnv, "Kuhn poker", seed, steps, every, plus, progress, verbose)


@register("CFR+ (plus=False: CFR) on Leduc hold'em, printing NashConv as it trains")
def TabularCFR_LeducHoldem(seed=0, *, steps=1000, every=50, plus=True, progress=False,
                           verbose=False):
    return _tabular_cfr(LeducPokerEnv, "Leduc hold'em", seed, steps, every, plus, progress,
                        verbose)


@register("External- or outcome-sampling MCCFR on Leduc hold'em, printing NashConv")
def MCCFR_LeducHoldem(seed=0, *, sampling="external", steps=20_000, every=1000, epsilon=0.6,
                      progress=False, verbose=False):
    if sampling not in ("external", "outcome"):
        raise ValueError(f"sampling must be 'external' or 'outcome', got {sampling!r}")
    env = LeducPokerEnv(seed=seed)
    tree = GameTree(env)
    if sampling == "external":
        solver = ExternalSamplingMCCFRPolicy(tree, seed=seed)
    else:
        solver = OutcomeSamplingMCCFRPolicy(tree, epsilon=epsilon, seed=seed)
    return Experiment(solver, env, StopAfterStep(steps, progress=progress),
                      NashConvHook(tree, every=every, verbose=verbose),
                      f"{sampling}-sampling MCCFR on Leduc hold'em, {steps} iterations, "
                      f"seed {seed}")

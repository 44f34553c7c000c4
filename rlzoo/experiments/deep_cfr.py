"""Deep CFR on Kuhn poker and Leduc hold'em.

* ``DeepCFR_KuhnPoker``: :class:`~rlzoo.multi_agent.deep_cfr.DeepCFRPolicy` on the game tree of
  :class:`~rlenvs.KuhnPokerEnv` (features:
  :func:`~rlzoo.multi_agent.deep_cfr.kuhn_information_state_tensor`, 11 floats), one hidden
  layer of 64 units;
* ``DeepCFR_LeducHoldem``: the same on :class:`~rlenvs.LeducPokerEnv`
  (features: its ``information_state_tensor``, OpenSpiel's 30 floats), three hidden layers of
  64 units as OpenSpiel's recommended Leduc settings, with fewer traversals and steps for a CPU.

One iteration per step of ``run`` (``StopAfterStep(steps)``); the hook is a
:class:`~rlzoo.multi_agent.hooks.NashConvHook`: the NashConv of the average-policy network every
``every`` iterations (each measurement fits that network, see :mod:`rlzoo.multi_agent.deep_cfr`),
printed when ``verbose``.

Measured (``benchmarks/deep_cfr_leduc.py``, one thread of a loaded 2-core machine): Leduc,
NashConv after 200 iterations 0.355, 0.312, 0.440 on seeds 0, 1, 2 (0.60-0.79 after 20, between
0.31 and 0.48 from iteration 60 on; 14-16 minutes a run); the exact weighted average of the
strategy memory scores the same (0.353, 0.317, 0.446), so the limit is the advantage networks'
regrets, not the fit of the average policy. Kuhn (the defaults, 17 s a run): 0.032, 0.025,
0.035, 0.050, 0.028 after 100 iterations on seeds 0-4.

    rlzoo run DeepCFR_LeducHoldem steps=100
"""

from rlcore import Experiment, StopAfterStep
from rlenvs import KuhnPokerEnv, LeducPokerEnv
from rlzoo.experiments.registry import register
from rlzoo.multi_agent.deep_cfr import DeepCFRPolicy
from rlzoo.multi_agent.game_tree import GameTree
from rlzoo.multi_agent.hooks import NashConvHook

__all__ = ["DeepCFR_KuhnPoker", "DeepCFR_LeducHoldem"]


def _experiment(env, settings, name):
    p = dict(settings)
    seed, steps, every = p.pop("seed"), p.pop("steps"), p.pop("every")
    progress, verbose = p.pop("progress"), p.pop("verbose")
    hidden = (p.pop("hidden"),) * p.pop("layers")
    tree = GameTree(env)
    solver = DeepCFRPolicy(tree, seed=seed, advantage_hidden=hidden, policy_hidden=hidden, **p)
    return Experiment(solver, env, StopAfterStep(steps, progress=progress),
                      NashConvHook(tree, every=every, verbose=verbose),
                      f"Deep CFR on {name}, {steps} iterations, seed {seed}")


@register("Deep CFR (advantage and average-policy networks, external sampling) on Kuhn poker")
def DeepCFR_KuhnPoker(seed=0, *, steps=100, every=25, n_traversals=50, hidden=64,
                      layers=1, lr=1e-2, advantage_batch_size=512, advantage_train_steps=100,
                      policy_batch_size=512, policy_train_steps=500, memory_capacity=1_000_000,
                      reinitialize_advantage_networks=True, device="cpu", progress=False,
                      verbose=False):
    return _experiment(KuhnPokerEnv(seed=seed), locals(), "Kuhn poker")


@register("Deep CFR (advantage and average-policy networks, external sampling) on Leduc hold'em")
def DeepCFR_LeducHoldem(seed=0, *, steps=200, every=20, n_traversals=500, hidden=64,
                        layers=3, lr=1e-2, advantage_batch_size=1024, advantage_train_steps=300,
                        policy_batch_size=1024, policy_train_steps=2000,
                        memory_capacity=1_000_000, reinitialize_advantage_networks=True,
                        device="cpu", progress=False, verbose=False):
    return _experiment(LeducPokerEnv(seed=seed), locals(), "Leduc hold'em")

"""The DQN family: one file per algorithm, each a learner plus its dispatched ``update`` rules.

Every learner is an :class:`~rlcore.AbstractReplayLearner`: it learns at ``PreActStage`` (as in
RL.jl) from the batches its ``schedule`` (:class:`~rlcore.ReplaySchedule`) draws: once the
trajectory holds ``min_replay_history`` transitions, ``gradient_steps`` batches every
``update_freq`` env steps. Each learner except ``BasicDQNLearner`` learns through a
:class:`~rlcore.TargetNetwork`, which syncs its target every ``sync_every`` optimiser steps.
Shared pieces: :mod:`rlzoo.dqns.losses` (targets, losses, importance weights),
:mod:`rlzoo.inputs` (states and batches on the device), :mod:`rlzoo.dqns.replay`
(replay checks, prioritized replay's step), :mod:`rlzoo.dqns.networks`. Before the first step
every learner checks its env (action space, state shape, the network's input and output:
:mod:`rlzoo.dqns.checks`) and raises ``rlcore.EnvMismatchError`` on a mismatch.
"""

from rlzoo.dqns import checks  # noqa: F401  (registers the check_env rules)
from rlzoo.dqns.basic_dqn import BasicDQNLearner
from rlzoo.dqns.c51 import C51Learner
from rlzoo.dqns.dqn import DQNLearner
from rlzoo.dqns.iqn import IQNLearner
from rlzoo.dqns.networks import (
    DistributionalNetwork,
    DuelingHead,
    EnsembleQNetwork,
    ImplicitQuantileNetwork,
    NatureCNN,
    NoisyLinear,
    QNetwork,
    target_network,
)
from rlzoo.dqns.prioritized_dqn import PrioritizedDQNLearner
from rlzoo.dqns.qr_dqn import QRDQNLearner
from rlzoo.dqns.rainbow import RainbowLearner
from rlzoo.dqns.rem_dqn import REMDQNLearner

__all__ = ["BasicDQNLearner", "DQNLearner", "PrioritizedDQNLearner", "C51Learner",
           "QRDQNLearner", "IQNLearner", "REMDQNLearner", "RainbowLearner", "QNetwork",
           "DistributionalNetwork", "ImplicitQuantileNetwork", "EnsembleQNetwork",
           "DuelingHead", "NoisyLinear", "NatureCNN", "target_network"]

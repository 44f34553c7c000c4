"""The DQN family: one file per algorithm, each a learner plus its dispatched ``update`` rules.

Every learner learns at ``PreActStage`` (as in RL.jl) once the trajectory holds
``min_replay_history`` steps, ``gradient_steps`` batches (1 by default) every ``update_freq`` env
steps, and (except ``BasicDQNLearner``) syncs its target network every ``target_update_freq`` env
steps.
"""

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
)
from rlzoo.dqns.prioritized_dqn import PrioritizedDQNLearner
from rlzoo.dqns.qr_dqn import QRDQNLearner
from rlzoo.dqns.rainbow import RainbowLearner
from rlzoo.dqns.rem_dqn import REMDQNLearner

__all__ = ["BasicDQNLearner", "DQNLearner", "PrioritizedDQNLearner", "C51Learner",
           "QRDQNLearner", "IQNLearner", "REMDQNLearner", "RainbowLearner", "QNetwork",
           "DistributionalNetwork", "ImplicitQuantileNetwork", "EnsembleQNetwork",
           "DuelingHead", "NoisyLinear", "NatureCNN"]

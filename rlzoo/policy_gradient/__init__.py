"""The policy-gradient and actor-critic family: one file per algorithm, each a learner plus its
dispatched ``update`` rules.

On-policy learners (``A2CLearner``, ``A2CGAELearner``, ``MACLearner``, ``PPOLearner``,
``TRPOLearner``) are :class:`~rlcore.AbstractRolloutLearner`\\ s: after each step their
``schedule`` (:class:`~rlcore.RolloutSchedule`) checks whether the trajectory holds a full
rollout of ``n_steps`` steps of every environment, and ``update(learner, rollout)`` learns from
it; ``VPGLearner`` learns from each finished episode at ``PostEpisodeStage``. Off-policy
learners (``DDPGLearner``, ``TD3Learner``, ``SACLearner``, ``DiscreteSACLearner``) are
:class:`~rlcore.AbstractReplayLearner`\\ s with a :class:`~rlcore.ReplaySchedule`, as the DQN
family. Every learner acts through :class:`ActorPolicy` (``explorer(learner(env))``).

Shared pieces, used by composition: :mod:`~rlzoo.policy_gradient.distributions` (categorical
with legal-action masks, diagonal Gaussian, tanh-squashed Gaussian),
:mod:`~rlzoo.policy_gradient.advantages` (discounted returns, GAE),
:mod:`~rlzoo.policy_gradient.normalizers` (running observation and reward normalisers),
:mod:`~rlzoo.policy_gradient.networks` (actors, critics), :mod:`~rlzoo.policy_gradient.rollout`
(a rollout's advantages).
"""

from rlzoo.policy_gradient import checks  # noqa: F401  (registers the check_env rules)
from rlzoo.policy_gradient.a2c import A2CLearner
from rlzoo.policy_gradient.a2c_gae import A2CGAELearner
from rlzoo.policy_gradient.ddpg import DDPGLearner
from rlzoo.policy_gradient.discrete_sac import DiscreteSACLearner
from rlzoo.policy_gradient.distributions import Categorical, DiagGaussian, TanhGaussian
from rlzoo.policy_gradient.networks import (
    ActorCritic, CategoricalActor, DeterministicActor, GaussianActor, QCritic, QValues,
    TanhGaussianActor, ValueCritic,
)
from rlzoo.policy_gradient.normalizers import ObservationNormalizer, RewardNormalizer
from rlzoo.policy_gradient.mac import MACLearner
from rlzoo.policy_gradient.policy import ActorPolicy
from rlzoo.policy_gradient.ppo import PPOLearner
from rlzoo.policy_gradient.sac import SACLearner
from rlzoo.policy_gradient.td3 import TD3Learner
from rlzoo.policy_gradient.trpo import TRPOLearner
from rlzoo.policy_gradient.vpg import VPGLearner

__all__ = ["ActorPolicy", "VPGLearner", "A2CLearner", "A2CGAELearner", "MACLearner",
           "PPOLearner", "TRPOLearner", "DDPGLearner", "TD3Learner", "SACLearner",
           "DiscreteSACLearner", "Categorical",
           "DiagGaussian", "TanhGaussian", "ActorCritic", "CategoricalActor", "GaussianActor",
           "TanhGaussianActor", "DeterministicActor", "ValueCritic", "QCritic", "QValues",
           "ObservationNormalizer", "RewardNormalizer"]

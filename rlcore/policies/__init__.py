"""Policies: ``RandomPolicy``, ``QBasedPolicy``, ``VBasedPolicy``, ``Agent``, ``MultiAgentPolicy``
(with ``MultiAgentHook``, ``PlayerView``, ``ChancePolicy``); the replay and rollout learners'
bases; train/test mode."""

from rlcore.policies.agent import Agent
from rlcore.policies.base import AbstractLearner, AbstractPolicy
from rlcore.policies.mode import set_training, testmode
from rlcore.policies.multi_agent import ChancePolicy, MultiAgentHook, MultiAgentPolicy, PlayerView
from rlcore.policies.q_based import QBasedPolicy, VBasedPolicy
from rlcore.policies.random_policy import RandomPolicy
from rlcore.policies.replay_learner import AbstractReplayLearner
from rlcore.policies.rollout_learner import AbstractRolloutLearner

__all__ = ["AbstractPolicy", "AbstractLearner", "AbstractReplayLearner", "AbstractRolloutLearner",
           "RandomPolicy",
           "QBasedPolicy", "VBasedPolicy", "Agent", "MultiAgentPolicy", "MultiAgentHook",
           "PlayerView",
           "ChancePolicy", "testmode", "set_training"]

"""Policies: ``RandomPolicy``, ``QBasedPolicy``, ``VBasedPolicy``, ``Agent``; train/test mode."""

from rlcore.policies.agent import Agent
from rlcore.policies.base import AbstractLearner, AbstractPolicy
from rlcore.policies.mode import set_training, testmode
from rlcore.policies.q_based import QBasedPolicy, VBasedPolicy
from rlcore.policies.random_policy import RandomPolicy
from rlcore.policies.replay_learner import AbstractReplayLearner

__all__ = ["AbstractPolicy", "AbstractLearner", "AbstractReplayLearner", "RandomPolicy",
           "QBasedPolicy", "VBasedPolicy", "Agent", "testmode", "set_training"]

"""Tabular algorithms: temporal-difference learners (more arrive with the Sutton & Barto work)."""

from rlzoo.tabular.td_learner import TDLearner

__all__ = ["TDLearner"]

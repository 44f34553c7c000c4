"""What every DQN-family learner checks of its environment before the first step.

Every replay learner checks at ``PreExperimentStage`` that the env's states can be stored and
that the trajectory records ``n_envs(env)`` environments per step
(:mod:`rlcore.policies.replay_learner`); the ``check_env`` rules here add what a Q-learner
needs (:func:`check_q_env`), for one env or one sub-env of a vector env (``env_spaces``):

* a ``Discrete`` action space starting at 0;
* a trajectory that stores states of the env's state shape;
* a network that takes the env's states: one forward of a zero state, without gradient and in
  eval mode (no noise drawn, no random state moved), whose errors become a message naming the
  state shape and the network's first layer;
* a network that gives values for as many actions as the action space holds: the size of the
  output's action axis, ``(batch, n_actions[, n_atoms])`` for DQN, C51, QR-DQN and Rainbow,
  ``(batch, n_heads | n_taus, n_actions)`` for REM and IQN.

Prioritized learners also check that the trajectory keeps priorities. Each mismatch raises
:class:`~rlcore.checks.EnvMismatchError` (the prioritized check keeps its ``TypeError``).
"""

import torch

from rlcore import AbstractEnv, AbstractTrajectory
from rlcore.checks import (
    EnvMismatchError, check_discrete_actions, check_network_input, check_state_shape,
)
from rlcore.dispatch import dispatch
from rlcore.policies.replay_learner import check_env
from rlzoo.dqns.basic_dqn import BasicDQNLearner
from rlzoo.dqns.c51 import C51Learner
from rlzoo.dqns.dqn import DQNLearner
from rlzoo.inputs import env_spaces
from rlzoo.dqns.iqn import IQNLearner
from rlzoo.dqns.prioritized_dqn import PrioritizedDQNLearner
from rlzoo.dqns.qr_dqn import QRDQNLearner
from rlzoo.dqns.rainbow import RainbowLearner
from rlzoo.dqns.rem_dqn import REMDQNLearner
from rlzoo.dqns.replay import check_prioritized

__all__ = ["check_q_env", "check_env"]


def check_q_env(learner, trajectory, env, forward, action_axis):
    """The checks of the module doc: ``forward(states)`` runs the learner's network on a batch
    of states, whose output holds the actions on axis ``action_axis``."""
    state_space, action_space = env_spaces(env)
    check_discrete_actions(action_space, env, learner)
    check_state_shape(trajectory, state_space, env)
    output = check_network_input(learner.approximator.model, forward, state_space, env, learner)
    if output.dim() <= action_axis:
        raise EnvMismatchError(f"{type(learner).__name__}'s network gives outputs of shape "
                               f"{tuple(output.shape)} for a batch of one state; expected the "
                               f"actions on axis {action_axis}")
    check_discrete_actions(action_space, env, learner, n_actions=output.shape[action_axis])


@dispatch((BasicDQNLearner, DQNLearner, C51Learner, QRDQNLearner), AbstractTrajectory,
          AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """Q-values ``(batch, n_actions)`` or distributions ``(batch, n_actions, n_atoms)``."""
    check_q_env(learner, trajectory, env, learner.approximator, 1)


@dispatch((PrioritizedDQNLearner, RainbowLearner), AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """As DQN and C51, with a trajectory that keeps priorities."""
    check_prioritized(learner, trajectory)
    check_q_env(learner, trajectory, env, learner.approximator, 1)


@dispatch(REMDQNLearner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """Q-values of each head, ``(batch, n_heads, n_actions)``."""
    check_q_env(learner, trajectory, env, learner.approximator, 2)


@dispatch(IQNLearner, AbstractTrajectory, AbstractEnv)
def check_env(learner, trajectory, env):  # noqa: F811
    """Quantile values ``(batch, n_taus, n_actions)`` at one fraction τ = 0.5 (a fixed one: the
    learner's generators draw nothing)."""
    taus = torch.full((1, 1), 0.5)
    check_q_env(learner, trajectory, env, lambda states: learner.approximator(states, taus), 2)

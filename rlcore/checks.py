"""Checks that an environment suits the learner and the trajectory given to it, and
:class:`EnvMismatchError`, the one error they raise.

A learner checks at ``PreExperimentStage``, before the first step, what it can know then (the
replay learners' rule in :mod:`rlcore.policies.replay_learner`, with the DQN family's own
checks in :mod:`rlzoo.dqns.checks`); the recording rules check each reward as they record it
(:mod:`rlcore.trajectories.recording`, :mod:`rlenvs.vector_env`). Every message names the value
found and what was expected. The functions take spaces, not environments, so they serve one
environment and a vectorised one's sub-environments alike.
"""

import math

import numpy as np
from gymnasium import spaces

from rlcore.envs.base import n_envs

__all__ = ["EnvMismatchError", "check_storable_states", "check_n_envs", "check_discrete_actions",
           "check_state_shape", "check_network_input", "check_finite_reward",
           "check_finite_rewards"]

# How to turn Dict or Tuple observations into one flat Box.
FLATTEN_HINT = ("flatten them: GymEnv(gymnasium.wrappers.FlattenObservation(gym_env)) for a "
                "Gymnasium env, StateTransformedEnv(env, state_mapping=lambda s: "
                "gymnasium.spaces.flatten(space, s), state_space_mapping="
                "gymnasium.spaces.flatten_space) for another")


class EnvMismatchError(ValueError):
    """An environment that does not suit the learner or the trajectory it is given.

    Raised before the first step where the mismatch can be known then (an action space of
    another kind, states of another shape than the network or the replay takes, observations a
    replay cannot store, a vectorised environment a trajectory or learner cannot record), and
    at the step where an environment gives a NaN or infinite reward. The message names the value
    and what was expected. A ``ValueError``, so code that caught those still does.

    >>> from rlenvs import GymEnv
    >>> env = GymEnv("Pendulum-v1")
    >>> check_discrete_actions(env.action_space(), env, "DQNLearner")
    Traceback (most recent call last):
    ...
    rlcore.checks.EnvMismatchError: DQNLearner chooses among a Discrete set of actions, but the \
action space of GymEnv('Pendulum-v1') is Box(-2.0, 2.0, (1,), float32): discretise it (e.g. \
ActionTransformedEnv, as rlzoo.experiments.pendulum.discrete_pendulum does) or use a learner for \
continuous actions
    """


def _name(learner):
    return learner if isinstance(learner, str) else type(learner).__name__


def check_storable_states(space, env):
    """Raise :class:`EnvMismatchError` if the states of ``space`` (``env``'s) cannot be stored
    in a replay's arrays: a ``Dict`` or ``Tuple`` space cannot; say how to flatten it."""
    if isinstance(space, (spaces.Dict, spaces.Tuple)):
        raise EnvMismatchError(
            f"{env!r} has {type(space).__name__} observations {space}, which a replay cannot "
            f"store as arrays; expected a Box, Discrete, MultiDiscrete or MultiBinary state "
            f"space: {FLATTEN_HINT}")


def check_n_envs(trajectory, env):
    """Raise :class:`EnvMismatchError` unless ``trajectory`` records ``n_envs(env)``
    environments per step, naming both: a vectorised env of ``n`` needs a
    ``CircularArraySARTSTrajectory`` built with ``n_envs=n``, one env a trajectory of one."""
    n = n_envs(env)
    if trajectory.n_envs == n:
        return
    if "next_state" in trajectory:  # the SARTS layout, which takes n_envs
        raise EnvMismatchError(f"{type(trajectory).__name__} was built with n_envs="
                               f"{trajectory.n_envs} but n_envs({env!r}) is {n}: build it with "
                               f"n_envs={n}")
    raise EnvMismatchError(f"{type(trajectory).__name__} records one environment per step, but "
                           f"{env!r} steps n_envs={n} sub-environments: use "
                           f"CircularArraySARTSTrajectory(capacity, n_envs={n}, ...)")


def check_discrete_actions(space, env, learner, n_actions=None):
    """Raise :class:`EnvMismatchError` unless ``space`` (``env``'s action space) is a
    ``Discrete(n)`` starting at 0 (a learner's action ``i`` is the ``i``-th value it
    estimates), with ``n == n_actions`` when the learner's network says its ``n_actions``."""
    if type(space) is not spaces.Discrete:
        raise EnvMismatchError(
            f"{_name(learner)} chooses among a Discrete set of actions, but the action space of "
            f"{env!r} is {space}: discretise it (e.g. ActionTransformedEnv, as "
            f"rlzoo.experiments.pendulum.discrete_pendulum does) or use a learner for continuous "
            f"actions")
    if space.start != 0:
        raise EnvMismatchError(
            f"{_name(learner)} takes the actions 0..n-1, but the action space of {env!r} is "
            f"{space} (start={space.start}): map them with ActionTransformedEnv")
    if n_actions is not None and int(n_actions) != int(space.n):
        raise EnvMismatchError(
            f"{_name(learner)}'s network gives values for n_actions={n_actions} actions, but "
            f"the action space of {env!r} is {space}: build the network with n_actions="
            f"{space.n}")


def check_state_shape(trajectory, space, env):
    """Raise :class:`EnvMismatchError` unless ``trajectory``'s state trace stores states of
    the shape of ``space`` (``env``'s state space, one environment's)."""
    stored = tuple(trajectory["state"].shape)
    if stored != tuple(space.shape):
        raise EnvMismatchError(
            f"{type(trajectory).__name__} stores states of shape {stored}, but {env!r} has "
            f"states of shape {tuple(space.shape)}: build it with state="
            f"({tuple(space.shape)}, {np.dtype(space.dtype).name!r})")


def _first_layer(model):
    """``"; its first layer ... takes ..."`` for the first module with an input width, else
    ``""``."""
    for module in model.modules():
        width = getattr(module, "in_features", None)
        if isinstance(width, int):
            return f"; its first layer {module} takes inputs of width {width}"
        channels = getattr(module, "in_channels", None)
        if isinstance(channels, int):
            return f"; its first layer {module} takes inputs of {channels} channels"
    return ""


def check_network_input(model, forward, space, env, learner):
    """Run ``forward(states)`` on a batch of one zero state of ``space`` (``env``'s state
    space, one environment's) without gradient, with ``model`` in eval mode (no noise is drawn,
    no random state moves); turn an error of the network into :class:`EnvMismatchError` naming
    the state shape and what the network's first layer takes. Returns the output."""
    import torch

    shape, dtype = tuple(space.shape), np.dtype(space.dtype)
    states = np.zeros((1, *shape), dtype)
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return forward(states)
    except (RuntimeError, ValueError, TypeError, IndexError) as error:
        raise EnvMismatchError(
            f"{_name(learner)}'s network cannot take the states of {env!r}: a state has shape "
            f"{shape} and dtype {dtype.name}{_first_layer(model)}; expected a network "
            f"whose input is a batch of such states, e.g. QNetwork({int(np.prod(shape))}, "
            f"n_actions) for flat states. torch said: {error}") from error
    finally:
        model.train(training)


def check_finite_reward(reward, env, step):
    """Raise :class:`EnvMismatchError` naming ``env`` and ``step`` if ``reward`` (a number, or an
    array of rewards) is NaN or infinite. One ``math.isfinite`` for a number: cheap enough for
    every step. A reward that is not a number is left to the reward trace's own check."""
    try:
        if math.isfinite(reward):
            return
    except TypeError:  # an array of rewards, or not a number
        try:
            if np.isfinite(reward).all():
                return
        except TypeError:
            return
    raise EnvMismatchError(f"{env!r} gave the reward {reward!r} at step {step}; expected a "
                           f"finite number (a NaN or infinite reward poisons every value "
                           f"learned from it)")


def check_finite_rewards(rewards, env, step):
    """Raise :class:`EnvMismatchError` naming ``env``, ``step`` and the sub-environments if a
    batch of rewards (one per sub-environment) holds a NaN or infinite one. One
    ``np.isfinite(...).all()`` per batch."""
    rewards = np.asarray(rewards)
    if rewards.dtype.kind not in "fc" or np.isfinite(rewards).all():
        return
    bad = np.flatnonzero(~np.isfinite(rewards))
    raise EnvMismatchError(
        f"{env!r} gave the rewards {rewards[bad].tolist()} (sub-envs {bad.tolist()}) at step "
        f"{step}; expected finite numbers (a NaN or infinite reward poisons every value learned "
        f"from it)")

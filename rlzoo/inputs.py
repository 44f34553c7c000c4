"""What the learners of rlzoo feed their networks: the env's states and sampled batches, on the
approximator's device.

Shape convention of this module: a batch axis first. One environment's state ``(*state_shape)``
becomes ``(1, *state_shape)``; a vectorised environment's (``rlenvs.MultiThreadEnv``, by
dispatch) ``n`` states are already ``(n, *state_shape)``, with ``n = 1`` too. :func:`for_env`
takes the batch axis off again for one environment, so a learner gives ``(n_actions,)`` values
for one env and ``(n, n_actions)`` for a vector env, which the explorer turns into one action or
``n``.
"""

import torch

from rlcore import AbstractEnv
from rlcore.approximators.neural_network_approximator import to_device
from rlcore.trajectories.samplers import Batch
from rlcore.dispatch import dispatch
from rlenvs import MultiThreadEnv

__all__ = ["env_states", "for_env", "env_spaces", "state_values", "batch_on"]


@dispatch(object, AbstractEnv)
def env_states(approximator, env):
    """``env.state()`` as a batch of states on the approximator's device (see the module doc)."""
    return to_device(env.state(), approximator.device).unsqueeze(0)


@dispatch(object, MultiThreadEnv)
def env_states(approximator, env):  # noqa: F811
    return to_device(env.state(), approximator.device)


@dispatch(object, AbstractEnv)
def for_env(values, env):
    """``values`` of :func:`env_states`' batch: the first row for one env, all for a vector env."""
    return values[0]


@dispatch(object, MultiThreadEnv)
def for_env(values, env):  # noqa: F811
    return values


@dispatch(AbstractEnv)
def env_spaces(env):
    """``(state_space, action_space)`` of one environment: ``env``'s own, or one
    sub-environment's for a vector env (whose own spaces are batched)."""
    return env.state_space(), env.action_space()


@dispatch(MultiThreadEnv)
def env_spaces(env):  # noqa: F811
    return env.single_state_space(), env.single_action_space()


def batch_on(batch, device):
    """``batch`` when every value but ``indices`` is a tensor on ``device``, else
    ``batch.to(device)`` (a sampler's numpy batch, or one on another device; numpy floats become
    float32, as the approximator places its inputs)."""
    if all(key == "indices" or (isinstance(value, torch.Tensor) and value.device == device)
           for key, value in batch.items()):
        return batch
    return Batch(batch).to(device)


def state_values(approximator, env):
    """The approximator's output for ``env``'s state (states), without gradient: ``(n_actions,)``
    Q-values for one env, ``(n, n_actions)`` for a vector env of ``n``."""
    with torch.no_grad():
        return for_env(approximator(env_states(approximator, env)), env)

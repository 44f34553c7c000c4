"""What the on-policy learners (A2C, PPO, TRPO, ...) share: the actor's output for the env's
states, and a rollout turned into flat samples with their advantages.

Shape convention: a rollout from :class:`~rlcore.RolloutSchedule` is time-major, ``(T, n,
...)``; :func:`rollout_advantages` returns flat ``(T · n, ...)`` tensors on the approximator's
device, sample ``t · n + i`` being step ``t`` of environment ``i``.
"""

import numpy as np
import torch

from rlcore.envs.traits import FullActionSet
from rlcore.logger import scalars
from rlcore.policies.base import AbstractLearner
from rlzoo.inputs import batch_on, env_states
from rlzoo.policy_gradient.advantages import gae

__all__ = ["actor_output", "rollout_advantages", "rollout_scalars"]


def actor_output(approximator, env):
    """The actor's output (a distribution, or actions) for ``env``'s state(s), a batch of 1 for
    one env and ``n`` for a vector env, without gradient. Under ``FULL_ACTION_SET`` the actor
    is given the env's legal actions (``env.legal_action_space_mask()``), so a categorical
    policy never picks an illegal one."""
    with torch.no_grad():
        states = env_states(approximator, env)
        if isinstance(env.ActionStyle, FullActionSet):
            mask = torch.as_tensor(np.asarray(env.legal_action_space_mask(), dtype=bool),
                                   device=approximator.device)
            return approximator(states, mask)
        return approximator(states)


def rollout_advantages(learner, rollout):
    """The rollout's samples for an update: ``state``, ``action``, the ``legal_actions_mask``
    the policy acted with (when the trajectory records one), the acting policy's ``log_prob``
    and ``value`` (one forward over the states, one over the next states), and
    GAE ``advantage`` and ``return`` with the learner's ``gamma`` and ``lam``, rewards scaled
    by its ``reward_normalizer`` when it has one. A ``terminal`` step does not bootstrap; a
    ``truncated`` one bootstraps from its true final state (the row's ``next_state``); both end
    the episode for the advantage recursion."""
    app = learner.approximator
    batch = batch_on(rollout, app.device)
    steps, n = batch["reward"].shape
    states = batch["state"].flatten(0, 1)
    actions = batch["action"].flatten(0, 1)
    terminal = batch["terminal"]
    done = terminal | batch["truncated"]
    rewards = batch["reward"]
    if learner.reward_normalizer is not None:
        rewards = learner.reward_normalizer.normalize(rewards, done)
    samples = {"state": states, "action": actions}
    if "legal_actions_mask" in batch:
        samples["legal_actions_mask"] = batch["legal_actions_mask"].flatten(0, 1)
    with torch.no_grad():
        dist, values = app.model.forward_both(states, samples.get("legal_actions_mask"))
        log_prob = dist.log_prob(actions)
        next_values = app.model.value(batch["next_state"].flatten(0, 1)).view(steps, n)
        advantages, returns = gae(rewards, values.view(steps, n), next_values, terminal, done,
                                  learner.gamma, learner.lam)
    return {**samples, "log_prob": log_prob, "value": values,
            "advantage": advantages.flatten(), "return": returns.flatten()}


def rollout_scalars(learner, names):
    """What every learner logs (``train/loss``, ``train/learning_rate``) and ``train/<name>``
    for each of ``names`` the learner has a value for."""
    values = scalars.dispatch(AbstractLearner)(learner)
    for name in names:
        value = getattr(learner, name, None)
        if value is not None:
            values[f"train/{name}"] = float(value)
    return values

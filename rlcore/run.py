"""The run loop (DESIGN.md §3).

``run(policy, env, stop_condition, hook)`` drives ``policy`` in ``env`` until ``stop_condition``
says stop, emitting the stages to the policy (through ``update``) and to the hook, and returns the
hook. It carries no instrumentation: timing, logging, progress and evaluation are hooks.

Specialised loops (vectorised environments, simultaneous games) are further methods of the generic
``run_loop``, dispatched on the environment's type::

    @dispatch(object, MyVectorEnv, object, object)
    def run_loop(policy, env, stop_condition, hook): ...

Example::

    from rlcore import run, RandomPolicy, StopAfterEpisode, TotalRewardPerEpisode
    from rlenvs import GymEnv
    hook = run(RandomPolicy(seed=0), GymEnv("CartPole-v1", seed=0), StopAfterEpisode(10),
               TotalRewardPerEpisode())
    print(sum(hook.rewards) / len(hook.rewards))
"""

from rlcore.dispatch import dispatch, update
from rlcore.envs.base import AbstractEnv
from rlcore.hooks import EmptyHook
from rlcore.stages import (
    POST_ACT_STAGE, POST_EPISODE_STAGE, POST_EXPERIMENT_STAGE, PRE_ACT_STAGE, PRE_EPISODE_STAGE,
    PRE_EXPERIMENT_STAGE,
)
from rlcore.stop_conditions import StopAfterEpisode

__all__ = ["run", "run_loop"]


def run(policy, env=None, stop_condition=None, hook=None):
    """Run ``policy`` in ``env`` until ``stop_condition`` holds; return ``hook``.

    ``run(experiment)`` runs an :class:`rlcore.experiment.Experiment` and returns its hook.
    Defaults: ``stop_condition=StopAfterEpisode(1)``, ``hook=EmptyHook()``.
    """
    from rlcore.experiment import Experiment

    if isinstance(policy, Experiment):
        if env is not None or stop_condition is not None or hook is not None:
            raise TypeError("run(experiment) takes no further arguments")
        experiment = policy
        return run_loop(experiment.policy, experiment.env, experiment.stop_condition,
                        experiment.hook)
    if env is None:
        raise TypeError("run needs an environment: run(policy, env, stop_condition, hook)")
    if not isinstance(env, AbstractEnv):
        raise TypeError(
            f"env must be an rlcore AbstractEnv, got {type(env).__name__}; wrap a Gymnasium env "
            "with rlenvs.GymEnv")
    if stop_condition is None:
        stop_condition = StopAfterEpisode(1)
    if hook is None:
        hook = EmptyHook()
    return run_loop(policy, env, stop_condition, hook)


@dispatch(object, AbstractEnv, object, object)
def run_loop(policy, env, stop_condition, hook):
    """The single-environment loop of DESIGN.md §3."""
    hook(PRE_EXPERIMENT_STAGE, policy, env)
    update(policy, env, PRE_EXPERIMENT_STAGE)
    is_stop = False
    while not is_stop:
        env.reset()
        if env.is_terminated() or env.is_truncated():
            raise RuntimeError(f"{env!r} is already over right after reset(); an episode needs "
                               "at least one step")
        update(policy, env, PRE_EPISODE_STAGE)
        hook(PRE_EPISODE_STAGE, policy, env)
        while not (env.is_terminated() or env.is_truncated()):
            action = policy(env)
            update(policy, env, PRE_ACT_STAGE, action)
            hook(PRE_ACT_STAGE, policy, env, action)
            env(action)
            update(policy, env, POST_ACT_STAGE)
            hook(POST_ACT_STAGE, policy, env)
            if stop_condition(policy, env):
                is_stop = True
                break
        if env.is_terminated() or env.is_truncated():
            update(policy, env, POST_EPISODE_STAGE)
            hook(POST_EPISODE_STAGE, policy, env)
    hook(POST_EXPERIMENT_STAGE, policy, env)
    update(policy, env, POST_EXPERIMENT_STAGE)
    return hook

"""The run loop (docs/architecture.md §3).

``run(policy, env, stop_condition, hook)`` drives ``policy`` in ``env`` until ``stop_condition``
says stop, emitting the stages to the policy (through ``update``) and to the hook, and returns the
hook. It carries no instrumentation: timing, logging, progress and evaluation are hooks.

Specialised loops (vectorised environments, simultaneous games) are further methods of the generic
``run_loop``, dispatched on the environment's type::

    @dispatch(object, MyVectorEnv, object, object)
    def run_loop(policy, env, stop_condition, hook): ...

The single-environment loop reads top-down as RL.jl's one function, cut at its two loops:
``run_loop`` (the experiment's stages), ``run_episodes`` (episode after episode) and
``run_episode`` (the steps of the current episode). :func:`rlcore.checkpoint.resume` enters a
saved run at the last two, so a resumed run executes this same code.

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

__all__ = ["run", "run_loop", "run_episodes", "run_episode"]


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
    """The single-environment loop of docs/architecture.md §3."""
    hook(PRE_EXPERIMENT_STAGE, policy, env)
    update(policy, env, PRE_EXPERIMENT_STAGE)
    return run_episodes(policy, env, stop_condition, hook)


def run_episodes(policy, env, stop_condition, hook, is_stop=False):
    """Episodes from ``env.reset()`` until ``stop_condition`` says stop, then the experiment's
    end; return ``hook``. ``is_stop=True`` goes straight to the end (:func:`rlcore.resume` enters
    the loop here, after the episode it was saved in)."""
    while not is_stop:
        env.reset()
        if env.is_terminated() or env.is_truncated():
            raise RuntimeError(f"{env!r} is already over right after reset(); an episode needs "
                               "at least one step")
        update(policy, env, PRE_EPISODE_STAGE)
        hook(PRE_EPISODE_STAGE, policy, env)
        is_stop = run_episode(policy, env, stop_condition, hook)
    hook(POST_EXPERIMENT_STAGE, policy, env)
    update(policy, env, POST_EXPERIMENT_STAGE)
    return hook


def run_episode(policy, env, stop_condition, hook, is_stop=False):
    """Step the current episode until it ends or ``stop_condition`` says stop, then its
    ``POST_EPISODE_STAGE`` if it ended; return whether to stop. ``is_stop`` is the stop
    condition's answer at the step the episode continues from (:func:`rlcore.resume`)."""
    while not (is_stop or env.is_terminated() or env.is_truncated()):
        action = policy(env)
        update(policy, env, PRE_ACT_STAGE, action)
        hook(PRE_ACT_STAGE, policy, env, action)
        env(action)
        update(policy, env, POST_ACT_STAGE)
        hook(POST_ACT_STAGE, policy, env)
        is_stop = stop_condition(policy, env)
    if env.is_terminated() or env.is_truncated():
        update(policy, env, POST_EPISODE_STAGE)
        hook(POST_EPISODE_STAGE, policy, env)
    return is_stop

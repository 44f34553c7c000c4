"""What the named experiments share: :class:`ReplaySetup` (replay learners) and
:class:`RolloutSetup` (on-policy learners) build everything but the networks and the learner
from an experiment's settings.

One ``seed`` feeds every random component through :func:`spawn_seeds` (env, evaluation env,
network initialisation, explorer, sampler, learner noise), so the same seed gives the same run
on CPU. A named experiment reads::

    @register("DQN on CartPole-v1")
    def DQN_CartPole(seed=0, *, steps=30_000, lr=2.3e-3, ...):
        setup = ReplaySetup(locals(), cartpole_env)
        net = QNetwork(4, 2, hidden=(hidden, hidden), seed=setup.seeds[2])
        learner = DQNLearner(setup.target_network(net), schedule=setup.schedule, gamma=gamma)
        return setup.experiment(learner, f"DQN on CartPole-v1, seed {seed}")

The settings ``ReplaySetup`` reads (keyword parameters of the experiments, ``rlzoo show NAME``
lists them with their defaults; a missing optional one takes the default in brackets):
``seed``, ``steps``, ``device``, ``n_envs`` [1: one env; n > 1: a ``MultiThreadEnv`` of n
sub-envs and a replay with one column each], ``lr``, ``adam_eps`` [1e-8], ``max_grad_norm``
[None], ``batch_size``, ``n_step`` [1], ``gamma``, ``capacity``, ``min_replay_history``,
``update_freq``, ``gradient_steps`` [1], ``target_update_freq`` [None: no target network] and
``rho`` [0], ``epsilon_init`` [1], ``epsilon_stable``, ``epsilon_decay_steps``,
``epsilon_warmup_steps`` [0], ``eval_every``, ``eval_episodes``, ``eval_steps`` [None],
``eval_epsilon`` [0], ``stop_at`` [None], ``progress``, ``verbose``.
"""

from types import SimpleNamespace

import attrs
import numpy as np
import torch

from gymnasium import spaces

from rlcore import (
    AbstractStopCondition, Agent, BatchSampler, CircularArrayPSARTTrajectory,
    CircularArraySARTSTrajectory, CircularArraySARTTrajectory, ComposedHook,
    ComposedStopCondition, DistributionExplorer, EpsilonGreedyExplorer, EvaluateEveryNStep, Experiment,
    NeuralNetworkApproximator, NStepBatchSampler, QBasedPolicy, ReplaySchedule, RolloutSchedule,
    StopAfterStep, TotalRewardPerEpisode,
)
from rlenvs import MultiThreadEnv
from rlzoo.dqns.networks import target_network
from rlzoo.inputs import env_spaces

__all__ = ["spawn_seeds", "ReplaySetup", "RolloutSetup", "StopWhenEvaluated", "find_hook",
           "evaluated_experiment", "action_spec", "make_env_pair"]


def spawn_seeds(seed, n):
    """``n`` independent int seeds derived from ``seed`` (``numpy.random.SeedSequence``)."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(n, np.uint32)]


_OPTIONAL = dict(n_envs=1, adam_eps=1e-8, max_grad_norm=None, n_step=1, gradient_steps=1,
                 target_update_freq=None, rho=0.0, epsilon_init=1.0, epsilon_warmup_steps=0,
                 eval_steps=None, eval_epsilon=0.0, stop_at=None)


class ReplaySetup:
    """The parts of a replay experiment that follow from its settings (see the module doc):
    ``seeds``, ``env`` (one env, or a ``MultiThreadEnv`` of ``n_envs``), ``eval_env``,
    ``trajectory``, ``schedule``, and the makers :meth:`approximator`, :meth:`target_network`
    and :meth:`experiment`.

    Args:
        settings: the experiment's parameters (its ``locals()``).
        make_env: ``make_env(seed)`` gives one training or evaluation env; ``make_env(None)``
            a sub-env of the vector env (the vector env seeds its sub-envs itself).
        make_eval_env: ``make_eval_env(seed)`` gives the evaluation env (default ``make_env``).
        prioritized: keep priorities in the replay (a sum tree).
        frame_stack: store stacked frames once (Atari; one env only).
        optimizer: ``optimizer(parameters, lr)``; default Adam with ``adam_eps``.
    """

    def __init__(self, settings, make_env, *, make_eval_env=None, prioritized=False,
                 frame_stack=False, optimizer=None):
        self.settings = p = SimpleNamespace(**{**_OPTIONAL, **settings})
        self.seeds = s = spawn_seeds(p.seed, 8)
        if frame_stack and p.n_envs != 1:
            raise ValueError(f"frame_stack=True stores one env's frames once; with n_envs="
                             f"{p.n_envs} the replay (CircularArraySARTSTrajectory) stores "
                             f"whole states: use n_envs=1 or frame_stack=False")
        self.env, self.eval_env = make_env_pair(p, s, make_env, make_eval_env)
        self.state_space, self.action_space = env_spaces(self.env)
        state, action = (self.state_space.shape, self.state_space.dtype), action_spec(
            self.action_space)
        if p.n_envs == 1:
            replay = CircularArrayPSARTTrajectory if prioritized else CircularArraySARTTrajectory
            self.trajectory = replay(p.capacity, state=state, action=action,
                                     frame_stack=frame_stack)
        else:
            self.trajectory = CircularArraySARTSTrajectory(
                p.capacity, n_envs=p.n_envs, state=state, action=action,
                prioritized=prioritized)
        sampler = (BatchSampler(p.batch_size, seed=s[4]) if p.n_step == 1
                   else NStepBatchSampler(p.n_step, p.gamma, p.batch_size, seed=s[4]))
        self.schedule = ReplaySchedule(sampler=sampler, min_replay_history=p.min_replay_history,
                                       update_freq=p.update_freq,
                                       gradient_steps=p.gradient_steps)
        # fused=True: torch's fused Adam kernel, the same update as the default; DQN_CartPole
        # runs 1.16 x as fast end to end with it (2,138 against 1,837 env steps/s, 8,000 steps,
        # median of 3 interleaved A/B runs, benchmarks/README.md)
        self._optimizer = optimizer or (lambda parameters, lr: torch.optim.Adam(
            parameters, lr=lr, eps=p.adam_eps, fused=True))

    def approximator(self, model):
        """``model`` with the experiment's optimiser on its ``device``."""
        p = self.settings
        return NeuralNetworkApproximator(model, self._optimizer(model.parameters(), p.lr),
                                         device=p.device, max_grad_norm=p.max_grad_norm)

    def target_network(self, model):
        """:meth:`approximator` in a target network synced every ``target_update_freq`` env
        steps: every ``target_update_freq · gradient_steps / update_freq`` optimiser steps."""
        p = self.settings
        if p.target_update_freq is None:
            raise ValueError("this experiment has no target_update_freq: no target network")
        sync_every, remainder = divmod(p.target_update_freq * p.gradient_steps, p.update_freq)
        if remainder or sync_every < 1:
            raise ValueError(f"target_update_freq ({p.target_update_freq}) · gradient_steps "
                             f"({p.gradient_steps}) must be a positive multiple of update_freq "
                             f"({p.update_freq}): the target syncs every so many optimiser "
                             f"steps")
        return target_network(self.approximator(model), sync_every=sync_every, rho=p.rho)

    def experiment(self, learner, description):
        """``Agent(QBasedPolicy(learner, ε-greedy), trajectory)`` run for ``steps`` env steps
        with a ``TotalRewardPerEpisode`` and an ``EvaluateEveryNStep`` hook; stops early once
        an evaluation reaches ``stop_at`` (when not ``None``).

        ε: ``epsilon_init`` for ``epsilon_warmup_steps`` steps, then linearly to
        ``epsilon_stable`` over ``epsilon_decay_steps`` (RL.jl's schedule). The evaluation:
        :func:`evaluated_experiment`."""
        p, s = self.settings, self.seeds
        explorer = EpsilonGreedyExplorer(
            epsilon_stable=p.epsilon_stable, epsilon_init=p.epsilon_init,
            warmup_steps=p.epsilon_warmup_steps, decay_steps=p.epsilon_decay_steps, seed=s[3])
        return evaluated_experiment(QBasedPolicy(learner, explorer), self, description)

    def actor_experiment(self, learner, explorer, description):
        """As :meth:`experiment` for an actor-critic learner (DDPG, TD3, SAC): the agent acts
        through ``ActorPolicy(learner, explorer)``."""
        from rlzoo.policy_gradient import ActorPolicy

        return evaluated_experiment(ActorPolicy(learner, explorer), self, description)


def evaluated_experiment(policy, setup, description):
    """``Agent(policy, setup.trajectory)`` in ``setup.env``, run for ``steps`` env steps with a
    ``TotalRewardPerEpisode`` and an ``EvaluateEveryNStep`` hook; stops early once an
    evaluation reaches ``stop_at`` (when not ``None``).

    The evaluation runs every ``eval_every`` env steps on ``setup.eval_env``, for
    ``eval_episodes`` episodes or (Dopamine's protocol) whole episodes until ``eval_steps``
    steps are taken, with the constant ``eval_epsilon`` (0: greedy; an actor's policy takes its
    distribution's mode), with a progress bar of its own when ``progress``; see
    ``EvaluateEveryNStep``."""
    p, s = setup.settings, setup.seeds
    evaluation = EvaluateEveryNStep(setup.eval_env, n=p.eval_every, n_episodes=p.eval_episodes,
                                    n_steps=p.eval_steps, epsilon=p.eval_epsilon, seed=s[6],
                                    verbose=p.verbose, progress=p.progress)
    stop = StopAfterStep(p.steps, progress=p.progress)
    if p.stop_at is not None:
        stop = ComposedStopCondition(stop, StopWhenEvaluated(evaluation, p.stop_at))
    return Experiment(Agent(policy, setup.trajectory), setup.env, stop,
                      TotalRewardPerEpisode() + evaluation, description)


def action_spec(space):
    """The ``(shape, dtype)`` a trajectory stores actions of ``space`` with: ``((), int64)``
    for a ``Discrete`` space, ``(shape, float32)`` for a ``Box``."""
    if isinstance(space, spaces.Discrete):
        return (), np.int64
    if isinstance(space, spaces.Box):
        return space.shape, np.float32
    raise TypeError(f"a trajectory stores Discrete or Box actions, got {space}")


def make_env_pair(settings, seeds, make_env, make_eval_env=None):
    """``(env, eval_env)``: one training env made with ``seeds[0]``, or a ``MultiThreadEnv`` of
    ``n_envs`` sub-envs (``make_env(None)`` each, seeded by the vector env from ``seeds[0]``),
    and the evaluation env made with ``seeds[1]``."""
    n_envs = settings.n_envs
    if isinstance(n_envs, bool) or not isinstance(n_envs, int) or n_envs < 1:
        raise ValueError(f"n_envs must be an int >= 1, got n_envs={n_envs!r}")
    eval_env = (make_eval_env or make_env)(seeds[1])
    if n_envs == 1:
        return make_env(seeds[0]), eval_env
    return MultiThreadEnv(lambda: make_env(None), n_envs, seed=seeds[0]), eval_env


_ROLLOUT_OPTIONAL = dict(n_envs=1, adam_eps=1e-5, max_grad_norm=0.5, eval_steps=None,
                         eval_epsilon=0.0, stop_at=None)


class RolloutSetup:
    """The parts of an on-policy experiment (A2C, PPO, TRPO, ...) that follow from its settings:
    ``seeds``, ``env`` (one env, or a ``MultiThreadEnv`` of ``n_envs``), ``eval_env``,
    ``state_space`` and ``action_space`` (of one env), ``trajectory`` (a
    ``CircularArraySARTSTrajectory`` holding one rollout of ``n_steps`` steps of every env),
    ``schedule`` (``RolloutSchedule(n_steps)``), and the makers :meth:`approximator` and
    :meth:`experiment`.

    Settings read (as :class:`ReplaySetup`; a missing optional one takes the default in
    brackets): ``seed``, ``steps``, ``device``, ``n_envs`` [1], ``n_steps``, ``lr``,
    ``adam_eps`` [1e-5], ``max_grad_norm`` [0.5], ``eval_every``, ``eval_episodes``,
    ``eval_steps`` [None], ``stop_at`` [None], ``progress``, ``verbose``.

    Args:
        settings: the experiment's parameters (its ``locals()``).
        make_env: ``make_env(seed)`` gives one training or evaluation env; ``make_env(None)``
            a sub-env of the vector env.
        make_eval_env: ``make_eval_env(seed)`` gives the evaluation env (default ``make_env``).
        optimizer: ``optimizer(parameters, lr)``; default Adam with ``adam_eps``.
    """

    def __init__(self, settings, make_env, *, make_eval_env=None, optimizer=None):
        self.settings = p = SimpleNamespace(**{**_ROLLOUT_OPTIONAL, **settings})
        self.seeds = s = spawn_seeds(p.seed, 8)
        self.env, self.eval_env = make_env_pair(p, s, make_env, make_eval_env)
        self.state_space, self.action_space = env_spaces(self.env)
        self.trajectory = CircularArraySARTSTrajectory(
            p.n_steps * p.n_envs, n_envs=p.n_envs,
            state=(self.state_space.shape, self.state_space.dtype),
            action=action_spec(self.action_space))
        self.schedule = RolloutSchedule(p.n_steps)
        self._optimizer = optimizer or (lambda parameters, lr: torch.optim.Adam(
            parameters, lr=lr, eps=p.adam_eps))

    @property
    def n_rollouts(self):
        """The rollouts in ``steps`` env steps (for annealing schedules)."""
        p = self.settings
        return max(1, p.steps // (p.n_steps * p.n_envs))

    def approximator(self, model):
        """``model`` with the experiment's optimiser on its ``device``."""
        p = self.settings
        return NeuralNetworkApproximator(model, self._optimizer(model.parameters(), p.lr),
                                         device=p.device, max_grad_norm=p.max_grad_norm)

    def experiment(self, learner, description, explorer=None):
        """``Agent(ActorPolicy(learner, explorer), trajectory)`` (``explorer`` by default a
        ``DistributionExplorer`` seeded from the experiment's seed), evaluated and stopped as
        :func:`evaluated_experiment` says."""
        from rlzoo.policy_gradient import ActorPolicy

        explorer = explorer or DistributionExplorer(seed=self.seeds[3])
        return evaluated_experiment(ActorPolicy(learner, explorer), self, description)


@attrs.define
class StopWhenEvaluated(AbstractStopCondition):
    """Stop once the last evaluation of ``hook`` (an ``EvaluateEveryNStep``) reached
    ``threshold``."""

    hook: object = attrs.field(repr=False)
    threshold: float

    def __call__(self, policy, env):
        returns = self.hook.returns
        return bool(returns) and returns[-1] >= self.threshold


def find_hook(hook, cls):
    """The first hook of type ``cls`` in ``hook`` (a single or composed hook), or ``None``."""
    for h in hook.hooks if isinstance(hook, ComposedHook) else (hook,):
        if isinstance(h, cls):
            return h
    return None

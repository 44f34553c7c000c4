"""What the named replay experiments share: :class:`ReplaySetup` builds everything but the network
and the learner from an experiment's settings.

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

from rlcore import (
    AbstractStopCondition, Agent, BatchSampler, CircularArrayPSARTTrajectory,
    CircularArraySARTSTrajectory, CircularArraySARTTrajectory, ComposedStopCondition,
    EpsilonGreedyExplorer, EvaluateEveryNStep, Experiment, NeuralNetworkApproximator,
    NStepBatchSampler, QBasedPolicy, ReplaySchedule, StopAfterStep, TotalRewardPerEpisode,
)
from rlenvs import MultiThreadEnv
from rlzoo.dqns.networks import target_network

__all__ = ["spawn_seeds", "ReplaySetup", "StopWhenEvaluated", "find_hook"]


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
        n_envs = p.n_envs
        if isinstance(n_envs, bool) or not isinstance(n_envs, int) or n_envs < 1:
            raise ValueError(f"n_envs must be an int >= 1, got n_envs={n_envs!r}")
        self.seeds = s = spawn_seeds(p.seed, 8)
        self.eval_env = (make_eval_env or make_env)(s[1])
        if n_envs == 1:
            self.env = make_env(s[0])
            space = self.env.state_space()
            replay = CircularArrayPSARTTrajectory if prioritized else CircularArraySARTTrajectory
            self.trajectory = replay(p.capacity, state=(space.shape, space.dtype),
                                     frame_stack=frame_stack)
        else:
            if frame_stack:
                raise ValueError(f"frame_stack=True stores one env's frames once; with n_envs="
                                 f"{n_envs} the replay (CircularArraySARTSTrajectory) stores "
                                 f"whole states: use n_envs=1 or frame_stack=False")
            self.env = MultiThreadEnv(lambda: make_env(None), n_envs, seed=s[0])
            space = self.env.single_state_space()
            self.trajectory = CircularArraySARTSTrajectory(
                p.capacity, n_envs=n_envs, state=(space.shape, space.dtype),
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
        ``epsilon_stable`` over ``epsilon_decay_steps`` (RL.jl's schedule). The evaluation runs
        every ``eval_every`` env steps on ``eval_env``, for ``eval_episodes`` episodes or
        (Dopamine's protocol) whole episodes until ``eval_steps`` steps are taken, with the
        constant ``eval_epsilon`` (0: greedy), with a progress bar of its own when ``progress``;
        see ``EvaluateEveryNStep``."""
        p, s = self.settings, self.seeds
        explorer = EpsilonGreedyExplorer(
            epsilon_stable=p.epsilon_stable, epsilon_init=p.epsilon_init,
            warmup_steps=p.epsilon_warmup_steps, decay_steps=p.epsilon_decay_steps, seed=s[3])
        evaluation = EvaluateEveryNStep(self.eval_env, n=p.eval_every, n_episodes=p.eval_episodes,
                                        n_steps=p.eval_steps, epsilon=p.eval_epsilon, seed=s[6],
                                        verbose=p.verbose, progress=p.progress)
        stop = StopAfterStep(p.steps, progress=p.progress)
        if p.stop_at is not None:
            stop = ComposedStopCondition(stop, StopWhenEvaluated(evaluation, p.stop_at))
        return Experiment(Agent(QBasedPolicy(learner, explorer), self.trajectory), self.env,
                          stop, TotalRewardPerEpisode() + evaluation, description)


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
    for h in getattr(hook, "hooks", (hook,)):
        if isinstance(h, cls):
            return h
    return None

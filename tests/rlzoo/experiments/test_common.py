"""Shared experiment pieces: ``ReplaySetup`` (everything of a replay experiment but its network
and learner), seed spawning, the evaluation stop condition, hook lookup."""

import pytest
import torch

from rlcore import (
    Agent, BatchSampler, CircularArrayPSARTTrajectory, CircularArraySARTSTrajectory,
    CircularArraySARTTrajectory, ComposedStopCondition, EpsilonGreedyExplorer,
    EvaluateEveryNStep, NStepBatchSampler, QBasedPolicy, RandomPolicy,
    StopAfterStep, TargetNetwork, TotalRewardPerEpisode, run,
)
from rlenvs import MultiThreadEnv, RandomWalk1D
from rlzoo.dqns import BasicDQNLearner, DQNLearner, QNetwork
from rlzoo.experiments.cartpole import cartpole_env
from rlzoo.experiments.common import ReplaySetup, StopWhenEvaluated, find_hook, spawn_seeds

SETTINGS = dict(seed=3, steps=2000, device="cpu", lr=1e-3, batch_size=16, gamma=0.9,
                capacity=500, min_replay_history=100, update_freq=2, epsilon_stable=0.05,
                epsilon_decay_steps=400, eval_every=1000, eval_episodes=2, progress=False,
                verbose=False)


def _setup(**overrides):
    return ReplaySetup({**SETTINGS, **overrides}, cartpole_env)


def test_spawn_seeds_are_reproducible_and_distinct():
    assert spawn_seeds(3, 5) == spawn_seeds(3, 5)
    assert len(set(spawn_seeds(3, 5))) == 5
    assert spawn_seeds(3, 5) != spawn_seeds(4, 5)


def test_stop_when_evaluated_ends_the_run_at_the_threshold():
    evaluation = EvaluateEveryNStep(RandomWalk1D(seed=1), n=5, n_episodes=3)
    stop = ComposedStopCondition(StopAfterStep(1000), StopWhenEvaluated(evaluation, -10.0))
    hook = run(RandomPolicy(seed=0), RandomWalk1D(seed=0), stop,
               TotalRewardPerEpisode() + evaluation)
    # every mean return is >= -1 >= -10, so the first evaluation (step 5) stops the run
    assert evaluation.steps == [5]
    assert find_hook(hook, EvaluateEveryNStep) is evaluation
    assert find_hook(hook, StopAfterStep) is None


def test_replay_setup_builds_env_replay_and_schedule_from_the_settings():
    setup = _setup()
    assert setup.seeds == spawn_seeds(3, 8)
    assert repr(setup.env) == repr(setup.eval_env) == "GymEnv('CartPole-v1')"
    assert setup.env is not setup.eval_env
    # env and evaluation env seeded with the first two seeds: as built by hand
    setup.env.reset(), setup.eval_env.reset()
    twin, eval_twin = cartpole_env(setup.seeds[0]), cartpole_env(setup.seeds[1])
    twin.reset(), eval_twin.reset()
    assert (setup.env.state() == twin.state()).all()
    assert (setup.eval_env.state() == eval_twin.state()).all()
    assert type(setup.trajectory) is CircularArraySARTTrajectory
    assert setup.trajectory["state"].capacity == 501   # 500 transitions and the next state
    schedule = setup.schedule
    assert (schedule.min_replay_history, schedule.update_freq, schedule.gradient_steps) == \
        (100, 2, 1)
    assert type(schedule.sampler) is BatchSampler and schedule.sampler.batch_size == 16
    n_step = _setup(n_step=3, gradient_steps=4).schedule
    assert type(n_step.sampler) is NStepBatchSampler and n_step.gradient_steps == 4
    assert (n_step.sampler.n, n_step.sampler.gamma, n_step.sampler.batch_size) == (3, 0.9, 16)
    # the same seed, the same sampler draws
    assert _setup().schedule.sampler.rng.random() == _setup().schedule.sampler.rng.random()


def test_a_prioritized_replay_is_asked_for():
    # (frame_stack=True, the Atari replay of single frames: tests/rlzoo/experiments/test_atari.py)
    prioritized = ReplaySetup(SETTINGS, cartpole_env, prioritized=True)
    assert type(prioritized.trajectory) is CircularArrayPSARTTrajectory


def test_the_approximator_is_the_model_with_fused_adam_or_the_given_optimiser():
    net = QNetwork(4, 2, hidden=(8,), seed=0)
    app = _setup(adam_eps=1e-5, max_grad_norm=10.0).approximator(net)
    assert app.model is net and app.device == torch.device("cpu") and app.max_grad_norm == 10.0
    assert type(app.optimizer) is torch.optim.Adam
    group = app.optimizer.param_groups[0]
    assert (group["lr"], group["eps"], group["fused"]) == (1e-3, 1e-5, True)
    setup = ReplaySetup(SETTINGS, cartpole_env,
                        optimizer=lambda parameters, lr: torch.optim.SGD(parameters, lr=lr))
    sgd = setup.approximator(QNetwork(4, 2, hidden=(8,), seed=0)).optimizer
    assert type(sgd) is torch.optim.SGD and sgd.param_groups[0]["lr"] == 1e-3


@pytest.mark.parametrize("target_update_freq, gradient_steps, update_freq, sync_every", [
    (100, 1, 1, 100),   # one optimiser step per env step
    (100, 1, 2, 50),    # one every 2 env steps: 100 env steps = 50 optimiser steps
    (100, 3, 2, 150),   # 3 every 2 env steps: 100 · 3 / 2
    (8000, 1, 4, 2000),  # Dopamine's Atari settings
])
def test_the_target_syncs_every_target_update_freq_env_steps(target_update_freq, gradient_steps,
                                                            update_freq, sync_every):
    setup = _setup(target_update_freq=target_update_freq, gradient_steps=gradient_steps,
                   update_freq=update_freq, rho=0.5)
    tn = setup.target_network(QNetwork(4, 2, hidden=(8,), seed=0))
    assert type(tn) is TargetNetwork
    assert (tn.sync_every, tn.rho) == (sync_every, 0.5)
    with pytest.raises(ValueError, match="no target_update_freq"):
        _setup().target_network(QNetwork(4, 2, hidden=(8,), seed=0))


@pytest.mark.parametrize("target_update_freq, gradient_steps, update_freq", [
    (1, 1, 4),     # a sync every 1/4 optimiser step cannot be
    (10, 1, 4),    # every 2.5 optimiser steps: not a whole number
])
def test_a_sync_period_of_no_whole_number_of_optimiser_steps_is_an_error(
        target_update_freq, gradient_steps, update_freq):
    setup = _setup(target_update_freq=target_update_freq, gradient_steps=gradient_steps,
                   update_freq=update_freq)
    with pytest.raises(ValueError, match=rf"target_update_freq \({target_update_freq}\) .* "
                                         rf"multiple of update_freq \({update_freq}\)"):
        setup.target_network(QNetwork(4, 2, hidden=(8,), seed=0))


def test_a_target_sync_every_target_update_freq_env_steps_through_run():
    # update_freq 2, gradient_steps 3, target_update_freq 20: a sync every 20 · 3 / 2 = 30
    # optimiser steps. At env step t the replay holds t - 1 transitions (CartPole episodes end
    # by termination here: no padding steps), so env steps t >= 101 with t even learn
    setup = _setup(steps=140, target_update_freq=20, gradient_steps=3)
    net = QNetwork(4, 2, hidden=(8,), seed=0)
    learner = DQNLearner(setup.target_network(net), schedule=setup.schedule, gamma=0.9)
    run(setup.experiment(learner, "sync"))
    # env steps 102, 104, ..., 140 learn: 20 of them, 60 optimiser steps, 2 syncs (30, 60)
    assert learner.approximator.n_updates == 60
    assert all(torch.equal(p, q) for p, q in zip(net.parameters(),
                                                 learner.approximator.target_model.parameters()))


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_n_envs_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match=f"n_envs must be an int >= 1, got n_envs={bad!r}"):
        _setup(n_envs=bad)


def test_n_envs_above_one_trains_from_a_vector_env_with_a_replay_column_each():
    setup = _setup(n_envs=3)
    try:
        assert type(setup.env) is MultiThreadEnv and len(setup.env) == 3
        assert type(setup.eval_env) is not MultiThreadEnv      # evaluation on one env
        t = setup.trajectory
        assert type(t) is CircularArraySARTSTrajectory and t.n_envs == 3 and not t.prioritized
    finally:
        setup.env.close()
    prioritized = ReplaySetup({**SETTINGS, "n_envs": 2}, cartpole_env, prioritized=True)
    prioritized.env.close()
    assert prioritized.trajectory.prioritized and prioritized.trajectory.n_envs == 2


def test_the_experiment_is_an_epsilon_greedy_agent_with_evaluation_and_early_stop():
    setup = _setup(epsilon_warmup_steps=50, eval_steps=None, eval_epsilon=0.0, stop_at=195)
    learner = BasicDQNLearner(setup.approximator(QNetwork(4, 2, hidden=(8,), seed=0)),
                              schedule=setup.schedule)
    experiment = setup.experiment(learner, "a test")
    agent = experiment.policy
    assert type(agent) is Agent and agent.trajectory is setup.trajectory
    assert type(agent.policy) is QBasedPolicy and agent.policy.learner is learner
    explorer = agent.policy.explorer
    assert type(explorer) is EpsilonGreedyExplorer
    # ε: 1 for 50 steps, then linearly to 0.05 over 400: halfway (0.525) at 250
    assert explorer.epsilon_at(50) == 1.0
    assert explorer.epsilon_at(250) == pytest.approx(0.525)
    assert explorer.epsilon_at(450) == pytest.approx(0.05)
    evaluation = find_hook(experiment.hook, EvaluateEveryNStep)
    assert evaluation.env is setup.eval_env
    assert (evaluation.n, evaluation.n_episodes, evaluation.epsilon) == (1000, 2, 0.0)
    assert find_hook(experiment.hook, TotalRewardPerEpisode) is not None
    stop = experiment.stop_condition
    assert type(stop) is ComposedStopCondition
    steps, evaluated = stop.conditions
    assert steps.n == 2000 and evaluated.hook is evaluation and evaluated.threshold == 195
    assert experiment.env is setup.env and experiment.description == "a test"
    assert type(_setup().experiment(learner, "x").stop_condition) is StopAfterStep


def test_frame_stacking_needs_one_env():
    # the SARTS replay of a vector env stores whole states; frame_stack=True would be dropped
    with pytest.raises(ValueError, match=r"frame_stack=True .* n_envs=2 .* use n_envs=1"):
        ReplaySetup({**SETTINGS, "n_envs": 2}, cartpole_env, frame_stack=True)

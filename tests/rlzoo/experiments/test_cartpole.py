"""Learning tests: every DQN-family CartPole experiment, seeded, reaches a greedy evaluation
mean return >= 195 over 10 episodes within its budget of at most 30,000 env steps."""

import pytest

from rlcore import EvaluateEveryNStep, TotalRewardPerEpisode, run
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook

CARTPOLE = ["BasicDQN_CartPole", "DQN_CartPole", "PrioritizedDQN_CartPole", "C51_CartPole",
            "QRDQN_CartPole", "IQN_CartPole", "REMDQN_CartPole", "Rainbow_CartPole"]


@pytest.mark.slow
@pytest.mark.parametrize("name", CARTPOLE)
def test_cartpole_experiment_reaches_195(name, one_thread):
    experiment = registry.make(name, seed=0, stop_at=195)
    assert registry.parameters(name)["steps"] <= 30_000
    hook = run(experiment)
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.n_episodes == 10
    assert evaluation.t <= 30_000
    assert max(evaluation.returns) >= 195, (name, evaluation.steps, evaluation.returns)


def test_same_seed_same_run(one_thread):
    def returns(seed):
        hook = run(registry.make("DQN_CartPole", seed=seed, steps=1200, eval_every=600,
                                 min_replay_history=300))
        return find_hook(hook, TotalRewardPerEpisode).rewards, \
            find_hook(hook, EvaluateEveryNStep).returns
    assert returns(3) == returns(3)
    assert returns(3) != returns(4)


def test_every_cartpole_experiment_is_registered():
    assert set(CARTPOLE) <= set(registry.names())
    for name in CARTPOLE:
        assert registry.parameters(name)["device"] == "cpu"


def test_dqn_cartpole_acts_at_random_until_learning_starts():
    def explorer(**overrides):
        return registry.make("DQN_CartPole", 0, **overrides).policy.policy.explorer

    default = explorer()  # min_replay_history = 500, epsilon_decay_steps = 1000
    assert default.epsilon_at(500) == 1.0 and default.epsilon_at(1000) == pytest.approx(0.505)
    assert explorer(min_replay_history=800).epsilon_at(800) == 1.0
    assert explorer(epsilon_warmup_steps=0).epsilon_at(500) == pytest.approx(0.505)


@pytest.mark.parametrize("name", [n for n in CARTPOLE if n != "DQN_CartPole"])
def test_the_other_experiments_take_an_epsilon_warmup(name):
    def explorer(**overrides):
        return registry.make(name, 0, **overrides).policy.policy.explorer

    p = registry.parameters(name)
    final, decay = p["epsilon_stable"], p["epsilon_decay_steps"]
    halfway = (1.0 + final) / 2
    assert p["epsilon_warmup_steps"] == 0  # the decay starts at step 0 by default
    assert explorer().epsilon_at(decay // 2) == pytest.approx(halfway)
    warm = explorer(epsilon_warmup_steps=700)
    assert warm.epsilon_at(700) == 1.0
    assert warm.epsilon_at(700 + decay // 2) == pytest.approx(halfway)


def _optimiser_steps(learner):
    """Adam's step count of the learner's first parameter: the optimiser steps taken."""
    app = getattr(learner.approximator, "approximator", learner.approximator)
    first = next(app.model.parameters())
    return int(app.optimizer.state[first]["step"])


@pytest.mark.parametrize("name", CARTPOLE)
def test_four_sub_envs_take_as_many_gradient_steps_per_env_step_as_one_env(name, one_thread):
    # 400 env steps, learning from 100 transitions. One env: at step t the replay holds t - 1
    # transitions, so steps 101..400 learn: 300 env steps. Four sub-envs: batched step k brings
    # env steps 4k - 3..4k and the replay holds 4 (k - 1) transitions, so k = 26..100 learn,
    # 75 batched steps of 4 env steps: 300 env steps again. One gradient step every update_freq
    # env steps: 300 (update_freq 1) or 150 (DQN_CartPole's update_freq 2), either way.
    per_env_step = 1 / registry.parameters(name)["update_freq"]
    for n_envs in (1, 4):
        experiment = registry.make(name, 0, n_envs=n_envs, steps=400, min_replay_history=100,
                                   batch_size=32, eval_every=400, eval_episodes=1)
        hook = run(experiment)
        learner = experiment.policy.policy.learner
        assert learner.schedule.env_steps == 400
        assert _optimiser_steps(learner) == 300 * per_env_step, n_envs
        assert find_hook(hook, EvaluateEveryNStep).steps == [400]
        assert len(experiment.policy.trajectory) == 400


@pytest.mark.slow
@pytest.mark.parametrize("n_envs", [4, 8])
def test_dqn_cartpole_reaches_195_from_a_vector_env(n_envs, one_thread):
    experiment = registry.make("DQN_CartPole", seed=0, n_envs=n_envs, stop_at=195)
    evaluation = find_hook(run(experiment), EvaluateEveryNStep)
    assert evaluation.t <= 30_000
    assert max(evaluation.returns) >= 195, (n_envs, evaluation.steps, evaluation.returns)

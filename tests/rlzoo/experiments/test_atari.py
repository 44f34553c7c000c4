"""Dopamine Atari configurations: their settings, and a 500-frame smoke run each on CPU."""

import pytest

import ale_py  # noqa: F401  (a test dependency)

from rlcore import CircularArrayBuffer, EvaluateEveryNStep, FrameStackBuffer, run  # noqa: E402
from rlzoo.experiments import registry  # noqa: E402
from rlzoo.experiments.common import find_hook  # noqa: E402

ATARI = ["Dopamine_DQN_Atari", "Dopamine_Rainbow_Atari", "Dopamine_IQN_Atari"]


def test_dopamine_settings():
    for name in ATARI:
        p = registry.parameters(name)
        assert p["game"] == "pong" and p["gamma"] == 0.99 and p["batch_size"] == 32
        assert (p["min_replay_history"], p["update_freq"], p["target_update_freq"]) == \
            (20_000, 4, 8_000)
        assert (p["epsilon_stable"], p["epsilon_decay_steps"]) == (0.01, 250_000)
        assert p["capacity"] == 1_000_000 and p["sticky_action_probability"] == 0.25
        assert p["eval_every"] == 250_000 and p["steps"] == 50_000_000
        # Dopamine's evaluation and single-frame replay
        assert (p["eval_steps"], p["eval_epsilon"]) == (125_000, 0.001)
        assert p["frame_stack_replay"] is True
        assert p["eval_episodes"] is None  # a step budget, not a number of episodes
    assert registry.parameters("Dopamine_Rainbow_Atari")["n_step"] == 3
    assert registry.parameters("Dopamine_IQN_Atari")["n_tau"] == 64


@pytest.mark.parametrize("name", ATARI)
def test_500_frames_smoke(name, one_thread):
    # 125 agent steps x frame skip 4 = 500 frames; learning starts after 64 steps so the
    # update and the target sync run too; a short ε = 0.001 evaluation at the end: whole
    # episodes of at most 50 steps until 30 steps are taken
    experiment = registry.make(name, 0, steps=125, capacity=500, min_replay_history=64,
                               target_update_freq=40, eval_every=125, eval_steps=30,
                               max_episode_steps=50)
    hook = run(experiment)
    learner = experiment.policy.policy.learner
    assert learner.schedule.env_steps == 125
    # a target sync every 40 env steps = every 40 / update_freq 4 = 10 optimiser steps
    assert learner.approximator.sync_every == 10
    # at env step t the replay holds t - 1 transitions, plus the padding step of the episode
    # truncated at step 50 (from step 51): 64 at t = 64, so steps 64, 68, ..., 124 learn: 16
    assert learner.approximator.n_updates == 16
    assert learner.loss_value is not None and bool(learner.loss_value.isfinite())
    assert experiment.env.state().shape == (4, 84, 84)
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.steps == [125] and evaluation.episodes[0] >= 1
    assert (evaluation.n_steps, evaluation.epsilon) == (30, 0.001)
    # the replay stored single frames: about one 84x84 frame per step, not four
    state = experiment.policy.trajectory["state"]
    assert type(state) is FrameStackBuffer and state.capacity == 501
    assert state.n_frames < 1.3 * len(state)


def test_stacked_replay_and_episode_evaluation_stay_available():
    experiment = registry.make("Dopamine_DQN_Atari", 0, steps=10, capacity=100,
                               frame_stack_replay=False, eval_steps=None, eval_episodes=2)
    assert type(experiment.policy.trajectory["state"]) is CircularArrayBuffer
    evaluation = find_hook(experiment.hook, EvaluateEveryNStep)
    assert evaluation.n_steps is None and evaluation.n_episodes == 2


def test_evaluation_takes_a_step_budget_or_episodes_not_both():
    evaluation = find_hook(registry.make("Dopamine_IQN_Atari", 0, steps=10, capacity=100).hook,
                           EvaluateEveryNStep)
    assert (evaluation.n_steps, evaluation.n_episodes, evaluation.epsilon) == \
        (125_000, None, 0.001)
    evaluation = find_hook(registry.make("Dopamine_DQN_Atari", 0, steps=10, capacity=100,
                                         eval_steps=None).hook, EvaluateEveryNStep)
    assert (evaluation.n_steps, evaluation.n_episodes) == (None, 10)
    with pytest.raises(ValueError, match="give n_episodes .* or n_steps .*, not both; got "
                                         "n_episodes=5, n_steps=125000"):
        registry.make("Dopamine_Rainbow_Atari", 0, steps=10, capacity=100, eval_episodes=5)


def test_epsilon_is_one_until_learning_starts_then_decays():
    # Dopamine's linearly_decaying_epsilon(decay_period, step, warmup_steps=min_replay_history)
    for name in ATARI:
        experiment = registry.make(name, 0, steps=10, capacity=100, min_replay_history=64)
        explorer = experiment.policy.policy.explorer
        assert explorer.epsilon_at(64) == 1.0
        assert explorer.epsilon_at(64 + 125_000) == pytest.approx(0.505)
        assert explorer.epsilon_at(64 + 250_000) == pytest.approx(0.01)

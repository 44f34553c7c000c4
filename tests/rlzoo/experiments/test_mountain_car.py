"""MountainCar experiments: they run, the state-normalising network is what it says,
``BasicDQN_MountainCar`` trains with its own episode limit and evaluates with 200 steps, and
both experiments learn on one seed (all seeds' -150 goal is checked in benchmarks/)."""

import numpy as np
import pytest
import torch

from rlcore import EvaluateEveryNStep, run
from rlenvs import MountainCarEnv
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.experiments.mountain_car import q_network


def test_mountain_car_experiments_run(one_thread):
    for name in ("BasicDQN_MountainCar", "DQN_MountainCar"):
        hook = run(registry.make(name, 0, steps=1200, min_replay_history=200, eval_every=1200,
                                 eval_episodes=1))
        evaluation = find_hook(hook, EvaluateEveryNStep)
        assert evaluation.steps == [1200]
        assert -200.0 <= evaluation.returns[0] < 0.0


def _episode_length(env, action=1):
    """Steps of one episode of ``env`` under a constant ``action`` (1: no push, so the car stays
    in the valley and only the time limit ends the episode)."""
    env.reset()
    steps = 0
    while not env.is_done():
        env(action)
        steps += 1
    assert env.is_truncated() and not env.is_terminated()
    return steps


def test_basic_dqn_trains_with_train_max_steps_and_evaluates_with_200():
    experiment = registry.make("BasicDQN_MountainCar", 0, train_max_steps=321)
    evaluation = find_hook(experiment.hook, EvaluateEveryNStep)
    assert _episode_length(experiment.env) == 321
    assert _episode_length(evaluation.env) == 200
    # DQN_MountainCar keeps Gymnasium's 200 steps for training too
    assert _episode_length(registry.make("DQN_MountainCar", 0).env) == 200


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "1000", None])
def test_basic_dqn_rejects_a_train_max_steps_that_is_not_a_positive_int(bad):
    with pytest.raises(ValueError, match=f"train_max_steps must be a positive int.*"
                                         f"got train_max_steps={bad!r}"):
        registry.make("BasicDQN_MountainCar", 0, train_max_steps=bad)


def test_normalising_layer_maps_the_state_box_onto_the_unit_square_and_is_frozen():
    env = MountainCarEnv(seed=0)
    space = env.state_space()
    net = q_network(env, 16, True, False, seed=1, body_seed=2)
    scale = net.body[0]
    corners = torch.tensor(np.array([space.low, space.high, (space.low + space.high) / 2]))
    expected = torch.tensor([[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]])
    assert torch.allclose(scale(corners.float()), expected, atol=1e-6)
    assert not any(p.requires_grad for p in scale.parameters())
    # built from explicit seeds only: the same seeds give the same network
    twin = q_network(env, 16, True, False, seed=1, body_seed=2)
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(),
                                                 twin.state_dict().values()))


def test_normalising_layer_is_not_trained(one_thread):
    experiment = registry.make("DQN_MountainCar", 0, steps=400, min_replay_history=100,
                               eval_every=400, eval_episodes=1)
    model = experiment.policy.policy.learner.approximator.model
    first, second = model.body[0], model.body[1]
    before = (first.weight.clone(), first.bias.clone(), second.weight.clone())
    run(experiment)
    assert torch.equal(first.weight, before[0]) and torch.equal(first.bias, before[1])
    assert not torch.equal(second.weight, before[2])  # the layers after it did learn


def test_dqn_mountain_car_reaches_minus_150_on_seed_3(one_thread):
    # seed 3 is one of the two quickest of seeds 0-9 with the torch-autograd step (15,000 steps;
    # 9 of the ten reached -150 within 30,000 steps, seed 5 not: -190.7): a few seconds, a real
    # learning result. (With the former numpy step seed 6 was the quickest, 10,000 steps; it now
    # needs 30,000: the target syncs every 200 optimiser steps, a few env steps out of phase.)
    hook = run(registry.make("DQN_MountainCar", 3, steps=20_000, stop_at=-150))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert max(evaluation.returns) >= -150, (evaluation.steps, evaluation.returns)


def test_basic_dqn_mountain_car_reaches_minus_150_on_seed_13(one_thread):
    # seed 13 was the quickest of seeds 0-14 with the former numpy gradient step (-140 at 10,000
    # steps; 13 of the 15 reached -150 within 50,000 steps); with the torch-autograd step it
    # still reaches -150 within these 20,000 steps: a few seconds
    hook = run(registry.make("BasicDQN_MountainCar", 13, steps=20_000, stop_at=-150))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert max(evaluation.returns) >= -150, (evaluation.steps, evaluation.returns)

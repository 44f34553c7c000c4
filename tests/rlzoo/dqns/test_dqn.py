"""DQNLearner: hand-computed TD, double-DQN and n-step targets; target-network invariants; GPU."""

import numpy as np
import pytest
import torch

from rlcore import (
    PRE_ACT_STAGE, BatchSampler, CircularArraySARTTrajectory, NeuralNetworkApproximator,
    NStepBatchSampler, ReplaySchedule, TargetNetwork, update,
)
from rlzoo.dqns import DQNLearner, QNetwork, target_network
from rlzoo.dqns.dqn import dqn_target
from rlzoo.inputs import batch_on
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    adam_target, filled_trajectory, linear_approximator, make_batch, params, random_batch,
    same, schedule,
)

W = [[1.0, 2.0], [3.0, 4.0]]  # Q(e0) = [1, 3], Q(e1) = [2, 4]


def _learner(weight=W, **kwargs):
    kwargs.setdefault("gamma", 0.9)
    return DQNLearner(target_network(linear_approximator(weight)), loss="mse", **kwargs)


def _set_target(learner, weight):
    with torch.no_grad():
        learner.approximator.target_model.weight.copy_(torch.tensor(weight))


def test_td_target_uses_the_target_network():
    learner = _learner()
    _set_target(learner, [[0.0, 5.0], [0.0, 1.0]])
    batch = make_batch([[1, 0]], [0], [1.0], [[0, 1]])
    # target net: Q_target(e1) = [5, 1] -> y = 1 + 0.9 * 5
    torch.testing.assert_close(dqn_target(learner, batch), torch.tensor([5.5]))
    update(learner, batch)
    # MSE gradient on W[0, 0]: 2 (1 - 5.5) = -9; SGD lr 0.1 -> 1.9
    assert learner.approximator.model.weight[0, 0].item() == pytest.approx(1.9)
    assert learner.loss_value.item() == pytest.approx(4.5 ** 2)


def test_double_dqn_picks_the_action_with_the_online_network():
    learner = _learner(is_double=True)
    _set_target(learner, [[0.0, 5.0], [0.0, 1.0]])
    batch = make_batch([[1, 0]], [0], [1.0], [[0, 1]])
    # online Q(e1) = [2, 4] -> a* = 1; Q_target(e1, 1) = 1 -> y = 1 + 0.9 * 1
    torch.testing.assert_close(dqn_target(learner, batch), torch.tensor([1.9]))
    update(learner, batch)
    # MSE gradient on W[0, 0]: 2 (1 - 1.9) = -1.8; SGD lr 0.1 -> 1.18
    assert learner.approximator.model.weight[0, 0].item() == pytest.approx(1.18)


def test_the_target_bootstraps_from_legal_actions_only():
    learner = _learner()
    _set_target(learner, [[0.0, 5.0], [0.0, 1.0]])
    batch = make_batch([[1, 0]], [0], [1.0], [[0, 1]])
    batch["next_legal_actions_mask"] = torch.tensor([[True, False]])
    # Q_target(e1) = [5, 1]: only action 0 legal -> y = 1 + 0.9 * 5; only action 1 legal ->
    # y = 1 + 0.9 * 1 (the max over all actions would give 5.5 both times)
    torch.testing.assert_close(dqn_target(learner, batch), torch.tensor([5.5]))
    batch["next_legal_actions_mask"] = torch.tensor([[False, True]])
    torch.testing.assert_close(dqn_target(learner, batch), torch.tensor([1.9]))
    double = _learner(is_double=True)
    _set_target(double, [[0.0, 5.0], [0.0, 1.0]])
    # online Q(e1) = [2, 4] would pick action 1; with only action 0 legal a* = 0 -> 1 + 0.9 * 5
    batch["next_legal_actions_mask"] = torch.tensor([[True, False]])
    torch.testing.assert_close(dqn_target(double, batch), torch.tensor([5.5]))


def test_truncation_bootstraps_and_termination_does_not():
    learner = _learner()
    batch = make_batch([[1, 0]] * 3, [0, 0, 0], [1.0] * 3, [[0, 1]] * 3,
                       terminal=[False, True, False], truncated=[False, False, True])
    # max Q_target(e1) = 4: y = 1 + 3.6 unless terminal
    torch.testing.assert_close(dqn_target(learner, batch), torch.tensor([4.6, 1.0, 4.6]))


def test_n_step_target_through_the_sampler():
    # states are scalars s = 1..5 (4 steps of reward 1); Q(s) = [s, 2 s]
    t = CircularArraySARTTrajectory(10, state=((1,), np.float32))
    for s in range(1, 5):
        t.push(state=np.array([s], np.float32), action=0)
        t.push(reward=1.0, terminal=False, truncated=False)
    t.push(state=np.array([5], np.float32), action=0)
    learner = DQNLearner(target_network(linear_approximator([[1.0], [2.0]])), gamma=0.5,
                         schedule=ReplaySchedule(sampler=NStepBatchSampler(3, 0.5, 4, seed=0)))
    seen = set()
    for _ in range(10):
        batch = batch_on(learner.schedule.sampler(t), learner.approximator.device)
        target = dqn_target(learner, batch)
        for s, y in zip(batch["state"][:, 0].tolist(), target.tolist()):
            k = min(3, 5 - int(s))   # the window stops at the newest recorded state
            expected = sum(0.5 ** j for j in range(k)) + 0.5 ** k * 2 * (s + k)
            assert y == pytest.approx(expected)
            seen.add(s)
    assert seen == {1.0, 2.0, 3.0, 4.0}
    with pytest.raises(ValueError, match=r"the sampler's gamma \(0.5\) must equal the "
                                         r"learner's gamma \(0.9\)"):
        DQNLearner(target_network(linear_approximator([[1.0], [2.0]])), gamma=0.9,
                   schedule=ReplaySchedule(sampler=NStepBatchSampler(3, 0.5, 4, seed=0)))


def test_loss_decreases_on_a_fixed_batch_for_every_variant():
    batch = random_batch()
    for kwargs in ({}, {"is_double": True}, {"loss": "huber"}):
        net = QNetwork(4, 2, hidden=(32,), dueling=True, seed=0)
        learner = DQNLearner(adam_target(net, 1e-2), gamma=0.5, **kwargs)
        first = update(learner, batch).item()
        for _ in range(50):
            last = update(learner, batch).item()
        assert last < 0.5 * first, kwargs


def test_target_network_is_unchanged_until_its_sync():
    net = QNetwork(4, 2, hidden=(16,), seed=0)
    learner = DQNLearner(adam_target(net, 1e-2, sync_every=5), schedule=schedule(16))
    t, env = filled_trajectory(100), LineEnv()
    before = params(learner.approximator.target_model)
    for _ in range(4):  # one optimiser step per env step (100 >= 16 transitions held)
        update(learner, t, env, PRE_ACT_STAGE)
    assert same(before, params(learner.approximator.target_model))
    assert not same(before, params(net))                      # the online net did learn
    update(learner, t, env, PRE_ACT_STAGE)                    # optimiser step 5: hard sync
    assert learner.approximator.n_updates == 5
    assert same(params(net), params(learner.approximator.target_model))


def test_the_target_syncs_every_sync_every_optimiser_steps_not_env_steps(monkeypatch):
    # update_freq 2, gradient_steps 3: env steps 2 and 4 take 3 optimiser steps each; with
    # sync_every 2 the target syncs after optimiser steps 2, 4 and 6 (env steps 2, 4, 4)
    net = QNetwork(4, 2, hidden=(16,), seed=0)
    learner = DQNLearner(adam_target(net, 1e-2, sync_every=2),
                         schedule=schedule(16, update_freq=2, gradient_steps=3))
    t, env = filled_trajectory(100), LineEnv()
    syncs = []
    sync = TargetNetwork.sync
    monkeypatch.setattr(TargetNetwork, "sync", lambda tn: (syncs.append(tn.n_updates), sync(tn)))
    for _ in range(4):
        update(learner, t, env, PRE_ACT_STAGE)
    assert learner.approximator.n_updates == 6 and syncs == [2, 4, 6]
    assert same(params(net), params(learner.approximator.target_model))


def test_polyak_sync_moves_the_target_part_way():
    net = QNetwork(4, 2, hidden=(16,), seed=0)
    learner = DQNLearner(adam_target(net, 1e-2, rho=0.75), schedule=schedule(16))
    before = params(learner.approximator.target_model)
    update(learner, filled_trajectory(100), LineEnv(), PRE_ACT_STAGE)
    # target ← 0.75 target + 0.25 online after the one optimiser step
    for old, online, new in zip(before, params(net), params(learner.approximator.target_model)):
        torch.testing.assert_close(new, 0.75 * old + 0.25 * online)


def test_the_approximator_must_be_a_target_network():
    net = QNetwork(4, 2, hidden=(8,), seed=0)
    plain = NeuralNetworkApproximator(net, torch.optim.SGD(net.parameters(), lr=0.1))
    with pytest.raises(TypeError, match="TargetNetwork"):
        DQNLearner(plain)
    assert isinstance(DQNLearner(TargetNetwork(plain)).approximator, TargetNetwork)
    with pytest.raises(ValueError, match="loss"):
        DQNLearner(TargetNetwork(plain), loss="l1")
    with pytest.raises(ValueError, match="gamma"):
        DQNLearner(TargetNetwork(plain), gamma=-0.1)


def _one_step(device):
    net = QNetwork(4, 2, hidden=(64, 64), seed=0)
    learner = DQNLearner(adam_target(net, 1e-3, device=device), is_double=True)
    batch = random_batch(64)
    update(learner, batch.to(device))
    return [p.detach().cpu() for p in net.parameters()]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_one_training_step_on_gpu_matches_cpu():
    for a, b in zip(_one_step("cpu"), _one_step("cuda")):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=0)


class _ScalarQ(torch.nn.Module):
    """Q(s) = [s, 2 s] for scalar states ``(batch,)``."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

    def forward(self, x):
        return x.unsqueeze(1) * self.w


@pytest.mark.parametrize("truncate", [False, True])
def test_recorded_time_limit_bootstraps_and_termination_does_not(truncate):
    # LineEnv: states 0, 1, 2, reward 1 per step; the episode ends after 2 steps, either at the
    # end of the line (terminal) or cut by a time limit before it (truncated, length 5)
    from rlcore import Agent, RandomPolicy, StopAfterEpisode, run

    env = LineEnv(length=5, truncate_at=2) if truncate else LineEnv(length=2)
    trajectory = CircularArraySARTTrajectory(10, state=((), np.float32))
    run(Agent(RandomPolicy(seed=0), trajectory), env, StopAfterEpisode(2))
    model = _ScalarQ()
    learner = DQNLearner(target_network(NeuralNetworkApproximator(
        model, torch.optim.SGD(model.parameters(), lr=0.1))), gamma=0.5,
        schedule=ReplaySchedule(sampler=BatchSampler(3, seed=0)))
    for _ in range(5):
        batch = batch_on(learner.schedule.sampler(trajectory), learner.approximator.device)
        for s, y in zip(batch["state"].tolist(), dqn_target(learner, batch).tolist()):
            if s == 0:
                assert y == 1.0 + 0.5 * 2.0            # next state 1: max Q = 2
            elif truncate:
                assert y == 1.0 + 0.5 * 4.0            # cut at state 2: bootstrap, max Q = 4
            else:
                assert y == 1.0                        # terminal: no bootstrap

"""DQNLearner: hand-computed TD, double-DQN and n-step targets; target-network invariants; GPU."""

import numpy as np
import pytest
import torch

from rlcore import (
    PRE_ACT_STAGE, BatchSampler, CircularArraySARTTrajectory, NeuralNetworkApproximator,
    NStepBatchSampler, update,
)
from rlzoo.dqns import DQNLearner, QNetwork
from rlzoo.dqns.dqn import dqn_target
from rlzoo.experiments.common import approximator
from tests.helpers import LineEnv
from tests.rlzoo.dqns.dqn_helpers import (
    LINEAR_BUILDERS, filled_trajectory, linear_approximator, make_batch, params, random_batch,
    same, weight_of,
)

W = [[1.0, 2.0], [3.0, 4.0]]  # Q(e0) = [1, 3], Q(e1) = [2, 4]


def _learner(weight=W, path="torch", **kwargs):
    kwargs.setdefault("gamma", 0.9)
    return DQNLearner(approximator=LINEAR_BUILDERS[path](weight), loss="mse", **kwargs)


@pytest.mark.parametrize("path", ["torch", "numpy"])
def test_td_target_uses_the_target_network(path):
    learner = _learner(path=path)
    with torch.no_grad():
        weight_of(learner.target_network.target_model).copy_(torch.tensor([[0.0, 5.0], [0.0, 1.0]]))
    batch = make_batch([[1, 0]], [0], [1.0], [[0, 1]])
    # target net: Q_target(e1) = [5, 1] -> y = 1 + 0.9 * 5
    torch.testing.assert_close(dqn_target(learner, batch), torch.tensor([5.5]))
    update(learner, batch)
    # MSE gradient on W[0, 0]: 2 (1 - 5.5) = -9; SGD lr 0.1 -> 1.9
    assert weight_of(learner.approximator.model)[0, 0].item() == pytest.approx(1.9)
    assert learner.loss_value.item() == pytest.approx(4.5 ** 2)


@pytest.mark.parametrize("path", ["torch", "numpy"])
def test_double_dqn_picks_the_action_with_the_online_network(path):
    learner = _learner(path=path, is_double=True)
    with torch.no_grad():
        weight_of(learner.target_network.target_model).copy_(torch.tensor([[0.0, 5.0], [0.0, 1.0]]))
    batch = make_batch([[1, 0]], [0], [1.0], [[0, 1]])
    # online Q(e1) = [2, 4] -> a* = 1; Q_target(e1, 1) = 1 -> y = 1 + 0.9 * 1
    torch.testing.assert_close(dqn_target(learner, batch), torch.tensor([1.9]))
    update(learner, batch)
    assert weight_of(learner.approximator.model)[0, 0].item() == pytest.approx(1.0 - 0.2 * -0.9)


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
    learner = DQNLearner(approximator=linear_approximator([[1.0], [2.0]]), gamma=0.5,
                         sampler=NStepBatchSampler(3, 0.5, 4, seed=0))
    seen = set()
    for _ in range(10):
        batch = learner.sampler(t)
        target = dqn_target(learner, batch)
        for s, y in zip(batch["state"][:, 0].tolist(), target.tolist()):
            k = min(3, 5 - int(s))   # the window stops at the newest recorded state
            expected = sum(0.5 ** j for j in range(k)) + 0.5 ** k * 2 * (s + k)
            assert y == pytest.approx(expected)
            seen.add(s)
    assert seen == {1.0, 2.0, 3.0, 4.0}
    with pytest.raises(ValueError, match="gamma"):
        DQNLearner(approximator=linear_approximator([[1.0], [2.0]]), gamma=0.9,
                   sampler=NStepBatchSampler(3, 0.5, 4, seed=0))


def test_loss_decreases_on_a_fixed_batch_for_every_variant():
    batch = random_batch()
    for kwargs in ({}, {"is_double": True}, {"loss": "huber"}):
        net = QNetwork(4, 2, hidden=(32,), dueling=True, seed=0)
        learner = DQNLearner(approximator=approximator(net, 1e-2), gamma=0.5, **kwargs)
        first = update(learner, batch).item()
        for _ in range(50):
            last = update(learner, batch).item()
        assert last < 0.5 * first, kwargs


def test_target_network_is_unchanged_until_its_sync():
    net = QNetwork(4, 2, hidden=(16,), seed=0)
    learner = DQNLearner(approximator=approximator(net, 1e-2), sampler=BatchSampler(16, seed=0),
                         min_replay_history=16, target_update_freq=5)
    t, env = filled_trajectory(100), LineEnv()
    before = params(learner.target_network.target_model)
    for _ in range(4):
        update(learner, t, env, PRE_ACT_STAGE)
    assert same(before, params(learner.target_network.target_model))
    assert not same(before, params(net))                      # the online net did learn
    update(learner, t, env, PRE_ACT_STAGE)                    # step 5: hard sync
    assert same(params(net), params(learner.target_network.target_model))


def test_polyak_sync_moves_the_target_part_way():
    net = QNetwork(4, 2, hidden=(16,), seed=0)
    learner = DQNLearner(approximator=approximator(net, 1e-2), sampler=BatchSampler(16, seed=0),
                         min_replay_history=16, target_update_freq=1, rho=0.75)
    before = params(learner.target_network.target_model)
    update(learner, filled_trajectory(100), LineEnv(), PRE_ACT_STAGE)
    for old, online, new in zip(before, params(net),
                                params(learner.target_network.target_model)):
        torch.testing.assert_close(new, 0.75 * old + 0.25 * online)


def _one_step(device):
    net = QNetwork(4, 2, hidden=(64, 64), seed=0)
    learner = DQNLearner(approximator=approximator(net, 1e-3, device), is_double=True)
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
    from tests.helpers import LineEnv

    env = LineEnv(length=5, truncate_at=2) if truncate else LineEnv(length=2)
    trajectory = CircularArraySARTTrajectory(10, state=((), np.float32))
    run(Agent(RandomPolicy(seed=0), trajectory), env, StopAfterEpisode(2))
    model = _ScalarQ()
    learner = DQNLearner(approximator=NeuralNetworkApproximator(
        model, torch.optim.SGD(model.parameters(), lr=0.1)), gamma=0.5,
        sampler=BatchSampler(3, seed=0))
    for _ in range(5):
        batch = learner.sampler(trajectory)
        for s, y in zip(batch["state"].tolist(), dqn_target(learner, batch).tolist()):
            if s == 0:
                assert y == 1.0 + 0.5 * 2.0            # next state 1: max Q = 2
            elif truncate:
                assert y == 1.0 + 0.5 * 4.0            # cut at state 2: bootstrap, max Q = 4
            else:
                assert y == 1.0                        # terminal: no bootstrap


def test_acting_skips_the_forward_on_exploring_steps_with_the_same_run():
    """``pure_call``: QBasedPolicy computes Q-values only on greedy steps; the run (actions,
    trajectory, weights) is the same as with a forward on every step."""
    from rlcore import run
    from rlzoo.experiments import registry

    def make(pure):
        e = registry.make("DQN_CartPole", 3, steps=400, batch_size=16, min_replay_history=100,
                          target_update_freq=50, epsilon_decay_steps=300, epsilon_stable=0.2,
                          capacity=500, eval_every=10_000)
        learner = e.policy.policy.learner
        assert learner.pure_call
        learner.pure_call = pure
        calls = []
        forward = learner.approximator.model.forward
        learner.approximator.model.forward = lambda x: (calls.append(x.shape[0]), forward(x))[1]
        run(e)
        return e, calls.count(1)  # acting forwards have a batch of one

    lazy, lazy_forwards = make(True)
    eager, eager_forwards = make(False)
    assert eager_forwards == 400 and 0 < lazy_forwards < 400
    for key in ("state", "action", "reward", "terminal", "truncated"):
        np.testing.assert_array_equal(lazy.policy.trajectory[key].to_array(),
                                      eager.policy.trajectory[key].to_array())
    assert same(params(lazy.policy.policy.learner.approximator.model),
                params(eager.policy.policy.learner.approximator.model))


def test_pure_call_only_for_deterministic_networks():
    from rlzoo.dqns.networks import NoisyLinear

    assert _learner().pure_call
    dueling = QNetwork(4, 2, dueling=True, seed=0)
    assert DQNLearner(approximator=approximator(dueling, 1e-3)).pure_call
    for net in (torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.1),
                                    torch.nn.Linear(8, 2)),
                torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8),
                                    torch.nn.Linear(8, 2)),
                torch.nn.Sequential(NoisyLinear(4, 2, seed=0))):
        assert not DQNLearner(approximator=approximator(net, 1e-3)).pure_call


def test_acting_values_through_numpy_equal_the_torch_forward():
    """DQN, BasicDQN and PrioritizedDQN act through ``QNetwork.values_of`` on the CPU: the same
    values as the torch forward (to float32 rounding), as a tensor."""
    from rlzoo.dqns import BasicDQNLearner, PrioritizedDQNLearner

    calls = []

    class Counting(QNetwork):
        def values_of(self, state):
            values = super().values_of(state)
            calls.append(values is not None)
            return values

    rng = np.random.default_rng(0)
    for cls in (DQNLearner, BasicDQNLearner, PrioritizedDQNLearner):
        net = Counting(4, 3, hidden=(16, 16), seed=1)
        learner = cls(approximator=approximator(net, 1e-3), min_replay_history=32)
        for _ in range(5):
            state = rng.normal(size=4).astype(np.float32)
            env = type("Env", (), {"state": lambda self, s=state: s})()
            values = learner(env)
            assert isinstance(values, torch.Tensor) and values.shape == (3,)
            with torch.no_grad():
                expected = net.layers(torch.from_numpy(state)[None])[0]
            torch.testing.assert_close(values, expected, rtol=1e-6, atol=1e-6)
    assert calls == [True] * 15

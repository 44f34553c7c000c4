"""The DQN learners' numpy gradient step (``numpy_td_update``) against their torch path."""

import copy
import warnings

import numpy as np
import pytest
import torch

from rlcore import NeuralNetworkApproximator, NStepBatchSampler, apply_gradients, update
from rlzoo.dqns import BasicDQNLearner, DQNLearner, PrioritizedDQNLearner, QNetwork
from rlzoo.dqns.common import numpy_td_update
from rlzoo.dqns.networks import blas_threads
from tests.rlzoo.dqns.dqn_helpers import filled_trajectory, random_batch


def _net(hidden=(16, 16), state_size=4, n_actions=2, seed=0):
    return QNetwork(state_size, n_actions, hidden=hidden, seed=seed)


def _learner(cls, net, *, lr=0.05, optimizer=torch.optim.SGD, max_grad_norm=None, **kwargs):
    app = NeuralNetworkApproximator(net, optimizer(net.parameters(), lr=lr),
                                    max_grad_norm=max_grad_norm)
    return cls(approximator=app, min_replay_history=32, **kwargs)


def _torch_twin(cls, net, **kwargs):
    """The same learner on a copy of ``net`` with a no-op forward hook: the torch path."""
    twin = copy.deepcopy(net)
    twin.register_forward_hook(lambda module, args, out: None)
    assert twin.numpy_layers() is None
    return _learner(cls, twin, **kwargs)


def _steps_match(cls, batch, n_steps=3, net=None, **kwargs):
    """Train the numpy-path and torch-path learners on ``batch``; their losses, gradients,
    parameters (and PER priorities) agree step by step."""
    net = _net() if net is None else net
    fast, slow = _learner(cls, net, **kwargs), _torch_twin(cls, net, **kwargs)
    for _ in range(n_steps):
        out_fast, out_slow = update(fast, batch), update(slow, batch)
        torch.testing.assert_close(out_fast.detach(), out_slow.detach(), rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(fast.loss_value, slow.loss_value.detach(), rtol=1e-5,
                                   atol=1e-6)
        for p, q in zip(fast.approximator.model.parameters(),
                        slow.approximator.model.parameters()):
            assert (p.grad is None) == (q.grad is None)
            if p.grad is not None:
                torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6)
            torch.testing.assert_close(p.detach(), q.detach(), rtol=1e-5, atol=1e-6)
    return fast, slow


@pytest.mark.parametrize("loss", ["huber", "mse"])
@pytest.mark.parametrize("is_double", [False, True])
def test_dqn_step_equals_the_torch_path(loss, is_double):
    # reward scale 5: Huber's both branches (|δ| below and above 1) are taken
    batch = random_batch(64, seed=1)
    batch["reward"] = batch["reward"] * 5
    assert batch["terminal"].any()
    _steps_match(DQNLearner, batch, loss=loss, is_double=is_double, gamma=0.9)


def test_basic_dqn_and_prioritized_steps_equal_the_torch_path():
    batch = random_batch(64, seed=2)
    batch["reward"] = batch["reward"] * 3
    _steps_match(BasicDQNLearner, batch, gamma=0.8)
    batch["priorities"] = torch.linspace(0.1, 2.0, 64)
    fast, _ = _steps_match(PrioritizedDQNLearner, batch, is_double=True, alpha=0.6,
                           beta_init=0.4, beta_steps=100)
    assert update(fast, batch).shape == (64,)


def test_n_step_discount_adam_clipping_and_a_frozen_layer():
    t = filled_trajectory(200)
    sampler = NStepBatchSampler(3, 0.9, 32, seed=0)
    batch = sampler(t).to("cpu")
    assert "discount" in batch and (batch["discount"] < 0.9 ** 2).any()
    _steps_match(DQNLearner, batch, gamma=0.9, optimizer=torch.optim.Adam, lr=1e-3,
                 max_grad_norm=0.1)
    # a frozen first layer (as DQN_MountainCar's scaling layer) gets no gradient
    net = _net()
    net.layers[0].requires_grad_(False)
    fast, _ = _steps_match(DQNLearner, batch, net=net, gamma=0.9)
    assert fast.approximator.model.layers[0].weight.grad is None
    # Linear after Linear, no bias on the head
    net = _net()
    net.layers = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 8),
                                     torch.nn.ReLU(), torch.nn.Linear(8, 2, bias=False))
    _steps_match(DQNLearner, batch, net=net, gamma=0.9)


def test_the_torch_path_is_taken_where_numpy_does_not_apply():
    batch = random_batch(32)
    net = _net()
    learner = _learner(DQNLearner, net)
    target = learner.target_network.target_model
    assert numpy_td_update(learner, batch, target) is not None
    # a dueling head, float64, a parameter hook, a shared parameter, a subclass's forward
    cases = [QNetwork(4, 2, hidden=(8,), dueling=True, seed=0), _net().double()]
    hooked = _net()
    hooked.layers[2].weight.register_hook(lambda g: g)
    cases.append(hooked)
    tied = _net(hidden=(4, 4))
    tied.layers[2].weight = tied.layers[0].weight  # both 4 x 4: one parameter, two layers
    cases.append(tied)

    class OwnForward(QNetwork):
        def forward(self, x):
            return super().forward(x) * 2

    cases.append(OwnForward(4, 2, hidden=(8,), seed=0))
    for net in cases:
        learner = _learner(DQNLearner, net)
        b = random_batch(32)
        if next(net.parameters()).dtype == torch.float64:
            b = type(b)({k: v.double() if v.is_floating_point() else v for k, v in b.items()})
        assert numpy_td_update(learner, b, learner.target_network.target_model) is None, net
        update(learner, b)  # the torch path works
    # gradients disabled, numpy batches, an approximator subclass: torch's behaviour
    with torch.no_grad():
        assert numpy_td_update(learner, batch, target) is None
    learner = _learner(DQNLearner, _net())
    numpy_batch = type(batch)({k: v.numpy() for k, v in batch.items()})
    assert numpy_td_update(learner, numpy_batch, learner.target_network.target_model) is None

    class MyApproximator(NeuralNetworkApproximator):
        pass

    net = _net()
    learner = DQNLearner(approximator=MyApproximator(net, torch.optim.SGD(net.parameters(), 0.1)))
    assert numpy_td_update(learner, batch, learner.target_network.target_model) is None


def test_bad_actions_and_a_non_finite_loss_fail_as_on_the_torch_path():
    net = _net()
    learner = _learner(DQNLearner, net)
    batch = random_batch(32)
    for bad in (5, -1):
        batch["action"][0] = bad
        with pytest.raises((RuntimeError, IndexError)):
            update(learner, batch)
    batch = random_batch(32)
    batch["reward"][3] = float("nan")
    before = [p.detach().clone() for p in net.parameters()]
    with pytest.raises(FloatingPointError, match="nan"):
        update(learner, batch)
    assert all(torch.equal(a, b) for a, b in zip(before, net.parameters()))


def test_a_batch_of_reused_buffers_is_checked_once_and_steps_as_the_torch_path(monkeypatch):
    from rlcore import BatchSampler, CircularArraySARTTrajectory
    from rlcore.trajectories.samplers import Batch, reused_buffers
    from rlzoo.dqns import common

    checks = []
    checked_arrays = common._checked_arrays
    monkeypatch.setattr(common, "_checked_arrays",
                        lambda batch, width: checks.append(batch) or checked_arrays(batch, width))

    t = filled_trajectory(200)
    sampler = BatchSampler(32, device="cpu", seed=0, reuse_buffers=True)
    batch = sampler(t)
    buffers = reused_buffers(batch)
    net = _net()
    fast, slow = _learner(DQNLearner, net, gamma=0.9), _torch_twin(DQNLearner, net, gamma=0.9)
    for _ in range(3):
        batch = sampler(t)
        copied = Batch({k: v.clone() for k, v in batch.items()})
        out_fast, out_slow = update(fast, batch), update(slow, copied)
        torch.testing.assert_close(out_fast, out_slow.detach(), rtol=1e-5, atol=1e-6)
        for p, q in zip(fast.approximator.model.parameters(),
                        slow.approximator.model.parameters()):
            torch.testing.assert_close(p.detach(), q.detach(), rtol=1e-5, atol=1e-6)
    assert len(checks) == 1 and reused_buffers(checks[0]) is buffers  # checked once
    sampler.batch_size = 16  # new buffers, with a memo of their own: checked once again
    for _ in range(2):
        update(fast, sampler(t))
    assert len(checks) == 2 and reused_buffers(checks[1]) is not buffers
    assert reused_buffers(checks[1]).memo and checks[1]["state"].shape == (16, 4)
    assert len(buffers.memo) == 1  # the old memo is not consulted for the new buffers
    (arrays,) = buffers.memo.values()
    assert np.shares_memory(arrays[0], buffers.arrays["state"])
    # values may change in the buffers: an action out of range still fails as with torch
    for bad in (2, -1):
        batch = sampler(t)
        batch["action"][5] = bad
        assert reused_buffers(batch) is not None
        assert numpy_td_update(fast, batch, fast.target_network.target_model) is None
        with pytest.raises((RuntimeError, IndexError)):
            update(fast, batch)
    # buffers of a dtype the numpy step does not take: the memo says so, the torch path runs
    t64 = CircularArraySARTTrajectory(1000, state=((4,), np.float32), reward=((), np.float64))
    rng = np.random.default_rng(0)
    for i in range(100):
        t64.push(state=rng.normal(size=4).astype(np.float32), action=i % 2)
        t64.push(reward=1.0, terminal=False, truncated=False)
    t64.push(state=np.zeros(4, np.float32), action=0)
    sampler = BatchSampler(32, device="cpu", seed=0, reuse_buffers=True)
    batch = sampler(t64)
    assert batch["reward"].dtype == torch.float64
    learner = _learner(DQNLearner, _net())
    assert numpy_td_update(learner, batch, learner.target_network.target_model) is None
    assert list(reused_buffers(batch).memo.values()) == [False]
    parameters = list(learner.approximator.model.parameters())
    before = [p.detach().clone() for p in parameters]
    assert torch.isfinite(update(learner, batch))  # through torch, which promotes the dtype
    assert not all(torch.equal(a, p) for a, p in zip(before, parameters))


def test_layout_changes_are_followed_and_gradients_are_new_per_network():
    batch = random_batch(32)
    net = _net()
    learner = _learner(DQNLearner, net)
    update(learner, batch)
    grad = net.layers[0].weight.grad
    net.layers[0].weight.data = net.layers[0].weight.data.clone()  # a new pointer
    fast, _ = _steps_match(DQNLearner, batch, net=net, n_steps=1)
    assert fast.approximator.model.layers[0].weight.grad is not grad  # another network's


@pytest.fixture
def blas_at_two_threads():
    """numpy's BLAS controller (threadpoolctl's), set to 2 threads; its count and torch's are
    restored afterwards."""
    from threadpoolctl import ThreadpoolController

    controllers = ThreadpoolController().select(user_api="blas").lib_controllers
    if not controllers:
        pytest.skip("numpy's BLAS is not visible to threadpoolctl")
    blas = controllers[0]
    original, previous = blas.get_num_threads(), torch.get_num_threads()
    blas.set_num_threads(2)
    try:
        if blas.get_num_threads() != 2:
            pytest.skip("numpy's BLAS does not take 2 threads here")
        yield blas
    finally:
        torch.set_num_threads(previous)
        blas.set_num_threads(original)


def test_blas_threads_sets_and_restores_the_count(blas_at_two_threads):
    blas = blas_at_two_threads
    with blas_threads(1):
        assert blas.get_num_threads() == 1
    assert blas.get_num_threads() == 2
    with blas_threads(8):  # never more than it had
        assert blas.get_num_threads() == 2
    torch.set_num_threads(1)
    with blas_threads():  # torch's count
        assert blas.get_num_threads() == 1
    assert blas.get_num_threads() == 2


def test_apply_gradients_matches_update_with_a_loss():
    def build():
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
        model[0].requires_grad_(False)
        with torch.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(torch.linspace(-1, 1, p.numel()).view_as(p) * (i + 1))
        return NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters(), lr=0.1),
                                         max_grad_norm=0.5)

    x = torch.linspace(-1, 1, 6).view(2, 3)
    a, b = build(), build()
    loss = a(x).pow(2).mean()
    value = loss.item()
    update(a, loss)
    with torch.no_grad():
        loss_b = b(x).pow(2).mean()
    head = b.model[1]
    h = b.model[0](x).detach()
    g_out = 2 * b.model(x).detach() / 2  # d mean(y²) / dy for 2 rows
    gradients = [(head.weight, (g_out.T @ h).clone()), (head.bias, g_out.sum(0).clone())]
    apply_gradients(b, gradients, float(loss_b))
    assert float(loss_b) == pytest.approx(value)
    for p, q in zip(a.model.parameters(), b.model.parameters()):
        torch.testing.assert_close(p, q)
        assert (p.grad is None) == (q.grad is None)
    with pytest.raises(FloatingPointError, match="inf"):
        apply_gradients(b, gradients, float("inf"))
    assert head.weight.grad is gradients[0][1]  # untouched by the failed call
    np.testing.assert_array_equal(head.weight.grad.numpy(), gradients[0][1].numpy())


def _fast_and_slow(cls=DQNLearner, net=None, **kwargs):
    net = _net() if net is None else net
    return _learner(cls, net, **kwargs), _torch_twin(cls, net, **kwargs)


def _outcome(learner, batch):
    try:
        return float(update(learner, batch).detach().mean())
    except Exception as error:  # the error's type and message, to compare both paths
        return f"{type(error).__name__}: {error}"


def test_autograd_modes_and_odd_parameters_keep_the_torch_path():
    batch = random_batch(32)
    learner = _learner(DQNLearner, _net())
    target = learner.target_network.target_model
    for mode in (torch.autograd.detect_anomaly, lambda: torch.autocast("cpu"),
                 lambda: torch.autograd.graph.save_on_cpu()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # anomaly mode warns that it is on
            with mode():
                assert numpy_td_update(learner, batch, target) is None
    # every parameter frozen: the torch path's error
    fast, slow = _fast_and_slow()
    for learner in (fast, slow):
        learner.approximator.model.requires_grad_(False)
    assert "does not require grad" in _outcome(fast, batch) == _outcome(slow, batch)
    # a parameter the optimiser does not hold: backward() accumulates into its gradient
    net = _net()
    app = NeuralNetworkApproximator(net, torch.optim.SGD(net.layers[4].parameters(), lr=0.1),
                                    max_grad_norm=0.05)
    learner = DQNLearner(approximator=app, min_replay_history=32)
    assert numpy_td_update(learner, batch, learner.target_network.target_model) is None
    # weights computed from other tensors (torch.func.functional_call): not leaves
    net = _net()
    learner = _learner(DQNLearner, net)
    meta = {name: p.detach().clone().requires_grad_() * 1.0 for name, p in net.named_parameters()}
    with torch.nn.utils.stateless._reparametrize_module(net, meta):
        assert net.numpy_layers() is None
        assert net.numpy_layers(training=False) is not None  # forward only: fine


def test_non_finite_next_states_fail_or_not_as_on_the_torch_path():
    batch = random_batch(32, seed=3)
    terminal = torch.nonzero(batch["terminal"]).flatten()
    assert len(terminal) > 0
    batch["next_state"][terminal] = float("nan")
    # DQN masks the terminated entries (no error); BasicDQN and n-step targets multiply by 0
    fast, slow = _fast_and_slow(DQNLearner)
    outcome = _outcome(fast, batch)
    assert isinstance(outcome, float) and outcome == pytest.approx(_outcome(slow, batch),
                                                                   rel=1e-5)
    fast, slow = _fast_and_slow(BasicDQNLearner)
    assert _outcome(fast, batch) == _outcome(slow, batch) == \
        "FloatingPointError: loss is nan; no optimiser step was taken"
    batch["discount"] = torch.full((32,), 0.99)
    fast, slow = _fast_and_slow(DQNLearner)
    assert _outcome(fast, batch) == _outcome(slow, batch) == \
        "FloatingPointError: loss is nan; no optimiser step was taken"
    # an overflowing loss: the same error, no numpy warning on the way
    batch = random_batch(32, seed=3)
    batch["reward"][0] = 1e30
    fast, slow = _fast_and_slow(DQNLearner, loss="mse")
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _outcome(fast, batch) == _outcome(slow, batch) == \
            "FloatingPointError: loss is inf; no optimiser step was taken"


def test_new_gradient_tensors_each_step_on_the_cpu_whatever_the_default_device():
    batch = random_batch(32)
    learner = _learner(DQNLearner, _net())
    update(learner, batch)
    weight = learner.approximator.model.layers[0].weight
    kept, value = weight.grad, weight.grad.clone()
    with torch.device("meta"):
        loss = update(learner, batch)
    assert loss.device.type == "cpu" and weight.grad.device.type == "cpu"
    assert weight.grad is not kept and torch.equal(kept, value)  # the old one untouched


def test_prioritized_weights_that_need_the_torch_path():
    batch = random_batch(32)
    batch["priorities"] = torch.linspace(0.1, 2.0, 32, dtype=torch.float64)
    fast, slow = _fast_and_slow(PrioritizedDQNLearner)
    update(fast, batch), update(slow, batch)
    assert fast.loss_value.dtype == slow.loss_value.dtype == torch.float64
    batch["priorities"] = torch.linspace(0.1, 2.0, 32).requires_grad_()
    fast, slow = _fast_and_slow(PrioritizedDQNLearner)
    assert update(fast, batch).shape == update(slow, batch).shape == (32,)


def test_second_review_cases_follow_the_torch_path():
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    batch = random_batch(32)
    # numpy float64 settings keep float32 results
    fast, slow = _fast_and_slow(PrioritizedDQNLearner, gamma=np.float64(0.9),
                                alpha=np.float64(0.6), priority_epsilon=np.float64(1e-6))
    batch["priorities"] = torch.linspace(0.1, 2.0, 32)
    out_fast, out_slow = update(fast, batch), update(slow, batch)
    assert out_fast.dtype == out_slow.dtype == fast.loss_value.dtype == torch.float32
    torch.testing.assert_close(out_fast, out_slow)
    # PER weights of another shape, batches made under inference mode, torch modes
    batch["priorities"] = torch.linspace(0.1, 2.0, 32)[:, None]
    fast, slow = _fast_and_slow(PrioritizedDQNLearner)
    torch.testing.assert_close(update(fast, batch), update(slow, batch))

    class Identity(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class Passing(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    learner = _learner(DQNLearner, _net())
    target = learner.target_network.target_model
    for mode in (Identity, Passing):
        with mode():
            assert numpy_td_update(learner, random_batch(32), target) is None
    with torch.device("cpu"):  # a default device alone keeps the numpy step
        assert numpy_td_update(learner, random_batch(32), target) is not None
    with torch.inference_mode():
        frozen = random_batch(32)
    assert numpy_td_update(learner, frozen, target) is None
    # a target network of other widths; the online network as its own target (masked target)
    assert numpy_td_update(learner, random_batch(32), _net(n_actions=3)) is None
    fast, slow = _fast_and_slow(DQNLearner)
    for learner in (fast, slow):
        learner.target_network.target_model = learner.approximator.model
    batch = random_batch(32, seed=3)
    batch["next_state"][torch.nonzero(batch["terminal"]).flatten()] = float("nan")
    assert _outcome(fast, batch) == pytest.approx(_outcome(slow, batch), rel=1e-5)


def test_apply_gradients_adds_in_place_into_a_gradient_left_by_zero_grad():
    class ZeroingSGD(torch.optim.SGD):
        def zero_grad(self, set_to_none=True):
            super().zero_grad(set_to_none=False)

    model = torch.nn.Linear(2, 1, bias=False)
    app = NeuralNetworkApproximator(model, ZeroingSGD(model.parameters(), lr=0.5))
    apply_gradients(app, [(model.weight, torch.ones(1, 2))], 1.0)
    kept = model.weight.grad
    apply_gradients(app, [(model.weight, torch.full((1, 2), 2.0))], 1.0)
    assert model.weight.grad is kept and kept.tolist() == [[2.0, 2.0]]


def test_blas_threads_checks_its_count():
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="positive int"):
            blas_threads(bad)


def test_blas_threads_is_reentrant(blas_at_two_threads):
    blas = blas_at_two_threads
    limit = blas_threads(1)
    with limit:
        with limit:
            assert blas.get_num_threads() == 1
        assert blas.get_num_threads() == 1
    assert blas.get_num_threads() == 2

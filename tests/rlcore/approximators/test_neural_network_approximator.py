import numpy as np
import pytest
import torch

from rlcore.approximators.neural_network_approximator import NeuralNetworkApproximator
from rlcore.dispatch import update


def make(seed=0, lr=0.05, device="cpu", **kwargs):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    return NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters(), lr=lr),
                                     device=device, **kwargs)


def batch(seed=1):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(32, 3, generator=g)
    return x, torch.stack([x.sum(1), x[:, 0] - x[:, 2]], dim=1)


def params(app):
    return [p.detach().clone() for p in app.model.parameters()]


def test_updates_reduce_the_loss_on_a_fixed_batch():
    app = make()
    x, y = batch()
    first = torch.nn.functional.mse_loss(app(x), y).item()
    for _ in range(100):
        update(app, torch.nn.functional.mse_loss(app(x), y))
    last = torch.nn.functional.mse_loss(app(x), y).item()
    assert last < 0.2 * first


def test_numpy_inputs_become_float32_tensors_on_the_device():
    app = make()
    out = app(np.ones((5, 3)))
    assert out.dtype == torch.float32 and out.shape == (5, 2)
    assert app.device == torch.device("cpu")
    torch.testing.assert_close(out, app(torch.ones(5, 3)))
    assert app.to_device(np.arange(3)).dtype == torch.int64   # integers keep their dtype


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_loss_raises_and_leaves_the_weights_unchanged(bad):
    app = make()
    x, y = batch()
    update(app, torch.nn.functional.mse_loss(app(x), y))   # give Adam some state
    before = params(app)
    loss = torch.nn.functional.mse_loss(app(x), y) * bad
    with pytest.raises(FloatingPointError, match=str(bad)):
        update(app, loss)
    for b, p in zip(before, app.model.parameters()):
        assert torch.equal(b, p)


def test_gradient_clipping_bounds_the_gradient_norm():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    app = NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(), lr=1.0),
                                    max_grad_norm=0.1)
    x, y = batch()
    before = params(app)
    loss = 1000 * torch.nn.functional.mse_loss(app(x), y)
    unclipped = torch.autograd.grad(loss, list(model.parameters()), retain_graph=True)
    assert torch.linalg.vector_norm(torch.cat([g.flatten() for g in unclipped])) > 10
    update(app, loss)
    grad_norm = torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in model.parameters()]))
    assert grad_norm <= 0.1 + 1e-6
    # with SGD(lr=1) the step is the clipped gradient
    step = torch.cat([(p.detach() - b).flatten() for p, b in zip(model.parameters(), before)])
    assert torch.linalg.vector_norm(step).item() == pytest.approx(0.1, rel=1e-4)


def test_optimizer_built_before_the_move_keeps_working_and_bad_arguments_raise():
    app = make()
    assert all(any(p is q for q in app.model.parameters())
               for g in app.optimizer.param_groups for p in g["params"])
    other = torch.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="optimizer"):
        NeuralNetworkApproximator(torch.nn.Linear(2, 2), torch.optim.SGD(other.parameters(), 0.1))
    with pytest.raises(ValueError, match="max_grad_norm.*0"):
        make(max_grad_norm=0)
    with pytest.raises(TypeError, match="scalar tensor"):
        update(make(), torch.ones(3))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_update_equals_cpu_update():
    cpu = make(device="cpu")
    gpu = make(seed=123, device="cuda")
    gpu.model.load_state_dict(cpu.model.state_dict())   # same initial weights
    assert gpu.device.type == "cuda"
    x, y = batch()
    out = gpu(x.numpy())
    assert out.device.type == "cuda"
    update(cpu, torch.nn.functional.mse_loss(cpu(x), y))
    update(gpu, torch.nn.functional.mse_loss(gpu(x), y.to(gpu.device)))
    for p_cpu, p_gpu in zip(cpu.model.parameters(), gpu.model.parameters()):
        torch.testing.assert_close(p_gpu.cpu(), p_cpu, atol=1e-5, rtol=1e-5)


def test_update_clears_the_gradients_of_every_group_and_honours_an_own_zero_grad():
    app = make()
    model = app.model
    app.optimizer = torch.optim.Adam([{"params": model[0].parameters()},
                                      {"params": model[2].parameters(), "lr": 0.01}])
    x, y = batch()
    stale = [torch.full_like(p, 1e6) for p in model.parameters()]
    for p, g in zip(model.parameters(), stale):
        p.grad = g.clone()  # must not leak into the step
    reference = make()
    reference.optimizer = torch.optim.Adam([{"params": reference.model[0].parameters()},
                                            {"params": reference.model[2].parameters(),
                                             "lr": 0.01}])
    update(app, torch.nn.functional.mse_loss(app(x), y))
    update(reference, torch.nn.functional.mse_loss(reference(x), y))
    for a, b in zip(params(app), params(reference)):
        torch.testing.assert_close(a, b, atol=0, rtol=0)

    calls = []

    class OwnZeroGrad(torch.optim.SGD):
        def zero_grad(self, set_to_none=True):
            calls.append(set_to_none)
            super().zero_grad(set_to_none)

    app.optimizer = OwnZeroGrad(model.parameters(), lr=0.1)
    update(app, torch.nn.functional.mse_loss(app(x), y))
    app.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    app.optimizer.zero_grad = lambda set_to_none=True: calls.append("instance")
    update(app, torch.nn.functional.mse_loss(app(x), y))
    assert calls == [True, "instance"]

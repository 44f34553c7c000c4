"""FusedAdam: the same parameters as torch.optim.Adam step for step, its state interchangeable
with Adam's, frozen parameters skipped, clear errors."""

import copy

import pytest
import torch

from rlcore import FusedAdam


def mlp(seed=0, dtype=torch.float32):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(),
                               torch.nn.Linear(16, 2)).to(dtype)


def train(model, optimizer, steps, seed=1, scheduler=None):
    g = torch.Generator().manual_seed(seed)
    first = next(model.parameters())
    for _ in range(steps):
        x = torch.randn(8, 4, generator=g).to(first.device, first.dtype)
        optimizer.zero_grad(set_to_none=True)
        (model(x) ** 2).mean().backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()


def assert_same(a, b):
    for pa, pb in zip(a.parameters(), b.parameters()):
        torch.testing.assert_close(pa, pb, atol=0, rtol=0)


@pytest.mark.parametrize("kwargs", [{}, {"weight_decay": 0.01},
                                    {"betas": (0.5, 0.9), "eps": 1e-3, "lr": 0.05}])
def test_matches_torch_adam(kwargs):
    a, b = mlp(), mlp()
    train(a, torch.optim.Adam(a.parameters(), fused=True, **kwargs), 30)
    train(b, FusedAdam(b.parameters(), **kwargs), 30)
    assert_same(a, b)
    c = mlp()
    train(c, torch.optim.Adam(c.parameters(), **kwargs), 30)  # the plain implementation
    for pa, pc in zip(a.parameters(), c.parameters()):
        torch.testing.assert_close(pa, pc, atol=1e-6, rtol=1e-5)


def test_numpy_learning_rates_are_accepted():
    import numpy as np

    a, b = mlp(), mlp()
    train(a, torch.optim.Adam(a.parameters(), lr=np.float32(0.01), fused=True), 5)
    train(b, FusedAdam(b.parameters(), lr=np.float32(0.01)), 5)
    assert_same(a, b)


def test_float64_parameters_match_torch_adam():
    a, b = mlp(dtype=torch.float64), mlp(dtype=torch.float64)
    train(a, torch.optim.Adam(a.parameters(), fused=True), 10)
    train(b, FusedAdam(b.parameters()), 10)
    assert_same(a, b)


def test_parameter_groups_and_a_scheduler_match_torch_adam():
    def groups(model):
        return [{"params": model[0].parameters(), "lr": 0.01},
                {"params": model[2].parameters(), "weight_decay": 0.1}]

    a, b = mlp(), mlp()
    oa = torch.optim.Adam(groups(a), lr=1e-3, fused=True)
    ob = FusedAdam(groups(b), lr=1e-3)
    train(a, oa, 20, scheduler=torch.optim.lr_scheduler.StepLR(oa, 5, gamma=0.5))
    train(b, ob, 20, scheduler=torch.optim.lr_scheduler.StepLR(ob, 5, gamma=0.5))
    assert_same(a, b)
    assert ob.param_groups[0]["lr"] == pytest.approx(0.01 * 0.5 ** 4)


def test_frozen_parameters_are_skipped_and_unfrozen_ones_join():
    a, b = mlp(), mlp()
    a[0].requires_grad_(False)
    b[0].requires_grad_(False)
    frozen = b[0].weight.detach().clone()
    oa, ob = torch.optim.Adam(a.parameters(), fused=True), FusedAdam(b.parameters())
    train(a, oa, 5)
    train(b, ob, 5)
    assert torch.equal(b[0].weight, frozen)
    assert "exp_avg" not in ob.state[b[0].weight]
    assert_same(a, b)
    a[0].requires_grad_(True)
    b[0].requires_grad_(True)
    train(a, oa, 5, seed=2)
    train(b, ob, 5, seed=2)
    assert_same(a, b)
    assert not torch.equal(b[0].weight, frozen)


def test_state_dict_round_trips_with_torch_adam():
    a, b = mlp(), mlp()
    oa, ob = torch.optim.Adam(a.parameters(), fused=True), FusedAdam(b.parameters())
    train(a, oa, 7)
    train(b, ob, 7)
    # Adam's state into FusedAdam and FusedAdam's into Adam: training goes on identically
    c, d = mlp(), mlp()
    c.load_state_dict(a.state_dict())
    d.load_state_dict(b.state_dict())
    oc, od = FusedAdam(c.parameters()), torch.optim.Adam(d.parameters(), fused=True)
    # deep copies: state_dict() hands out the live moment tensors
    oc.load_state_dict(copy.deepcopy(oa.state_dict()))
    od.load_state_dict(copy.deepcopy(ob.state_dict()))
    for model, optimizer in ((a, oa), (b, ob), (c, oc), (d, od)):
        train(model, optimizer, 5, seed=3)
    assert_same(a, c)
    assert_same(a, d)
    assert_same(a, b)
    assert float(oc.state[c[0].weight]["step"]) == 12


def test_closure_loss_is_returned_and_the_step_taken():
    model = mlp()
    before = model[0].weight.detach().clone()
    optimizer = FusedAdam(model.parameters())

    def closure():
        optimizer.zero_grad()
        loss = (model(torch.ones(2, 4)) ** 2).mean()
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    assert loss.shape == () and loss.grad_fn is not None
    assert not torch.equal(model[0].weight, before)


def test_random_gradient_subsets_match_torch_adam():
    """Parameters gain and lose gradients from step to step: the same parameters and per-
    parameter step counts as Adam."""
    a, b = mlp(), mlp()
    oa, ob = torch.optim.Adam(a.parameters(), fused=True), FusedAdam(b.parameters())
    g = torch.Generator().manual_seed(0)
    for i in range(30):
        keep = torch.rand(4, generator=g) < 0.6
        x = torch.randn(8, 4, generator=g)
        for model, optimizer in ((a, oa), (b, ob)):
            optimizer.zero_grad(set_to_none=True)
            (model(x) ** 2).mean().backward()
            for p, k in zip(model.parameters(), keep):
                if not k:
                    p.grad = None
            optimizer.step()
        if i == 15:  # a state-dict round trip on the way
            ob.load_state_dict(copy.deepcopy(ob.state_dict()))
    assert_same(a, b)
    assert [float(oa.state[p]["step"]) for p in a.parameters()] == \
        [float(ob.state[p]["step"]) for p in b.parameters()]


@pytest.mark.parametrize("how", ["deepcopy", "pickle", "torch.save"])
def test_a_copied_optimizer_keeps_training_like_the_original(how, tmp_path):
    import pickle

    model = mlp()
    optimizer = FusedAdam(model.parameters())
    train(model, optimizer, 3)
    if how == "deepcopy":
        model2, optimizer2 = copy.deepcopy((model, optimizer))
    elif how == "pickle":
        model2, optimizer2 = pickle.loads(pickle.dumps((model, optimizer)))
    else:
        torch.save((model, optimizer), tmp_path / "both.pt")
        model2, optimizer2 = torch.load(tmp_path / "both.pt", weights_only=False)
    train(model, optimizer, 3, seed=2)
    train(model2, optimizer2, 3, seed=2)
    assert_same(model, model2)
    assert float(optimizer2.state[model2[0].weight]["step"]) == 6


def test_resetting_the_state_restarts_adam_as_with_torch():
    a, b = mlp(), mlp()
    oa, ob = torch.optim.Adam(a.parameters(), fused=True), FusedAdam(b.parameters())
    train(a, oa, 4)
    train(b, ob, 4)
    oa.state.clear()
    ob.state.clear()
    train(a, oa, 3, seed=2)
    train(b, ob, 3, seed=2)
    assert_same(a, b)
    assert float(ob.state[b[0].weight]["step"]) == 3
    # one parameter's moments and step replaced by hand
    for optimizer, model in ((oa, a), (ob, b)):
        state = optimizer.state[model[2].bias]
        state["exp_avg"] = torch.zeros_like(model[2].bias)
        state["step"] = torch.tensor(0.0)
    train(a, oa, 3, seed=3)
    train(b, ob, 3, seed=3)
    assert_same(a, b)


def test_each_parameter_has_its_own_step():
    model = mlp()
    optimizer = FusedAdam(model.parameters())
    train(model, optimizer, 3)
    optimizer.state[model[0].weight]["step"].zero_()
    assert float(optimizer.state[model[0].bias]["step"]) == 3
    steps = [s["step"] for s in optimizer.state_dict()["state"].values()]
    assert len({id(s) for s in steps}) == len(steps)


def test_replacing_a_groups_parameters_steps_the_new_ones():
    a, b = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2))
    optimizer = FusedAdam([a], lr=0.1)
    for p in (a, b):
        p.grad = torch.ones(2)
    optimizer.step()
    optimizer.param_groups[0]["params"] = [b]
    optimizer.step()
    assert torch.allclose(a, torch.full((2,), 0.9)) and torch.allclose(b, torch.full((2,), 0.9))
    assert float(optimizer.state[b]["step"]) == 1


def test_hooks_and_one_cycle_lr_work_as_with_torch_adam():
    calls = []
    a, b = mlp(), mlp()
    oa = torch.optim.Adam(a.parameters(), lr=1e-3, fused=True)
    ob = FusedAdam(b.parameters(), lr=1e-3)
    ob.register_step_pre_hook(lambda *args: calls.append("pre"))
    ob.register_step_post_hook(lambda *args: calls.append("post"))
    sa = torch.optim.lr_scheduler.OneCycleLR(oa, max_lr=0.01, total_steps=20)  # cycles betas
    sb = torch.optim.lr_scheduler.OneCycleLR(ob, max_lr=0.01, total_steps=20)
    train(a, oa, 20, scheduler=sa)
    train(b, ob, 20, scheduler=sb)
    assert_same(a, b)
    assert calls == ["pre", "post"] * 20


def test_global_hooks_argument_changing_pre_hooks_and_the_profiler_as_with_torch_adam():
    from torch.optim.optimizer import (register_optimizer_step_post_hook,
                                       register_optimizer_step_pre_hook)

    a, b = mlp(), mlp()
    oa, ob = torch.optim.Adam(a.parameters(), fused=True), FusedAdam(b.parameters())
    calls = []
    handles = [register_optimizer_step_pre_hook(lambda o, args, kwargs: calls.append("pre")),
               register_optimizer_step_post_hook(lambda o, args, kwargs: calls.append("post"))]
    try:
        train(a, oa, 2)
        train(b, ob, 2)
    finally:
        for handle in handles:
            handle.remove()
    assert calls == ["pre", "post"] * 4
    assert_same(a, b)
    # a pre-hook may replace the arguments, e.g. give a closure; the step returns its loss
    handle = ob.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: 7.0}))
    assert ob.step() == 7.0
    handle.remove()
    ob.register_step_pre_hook(lambda o, args, kwargs: "wrong")
    with pytest.raises(RuntimeError, match="pre-hook must return None or a tuple"):
        ob.step()
    # under a profiler the step is recorded under torch's name
    c = mlp()
    oc = FusedAdam(c.parameters())
    with torch.profiler.profile() as prof:
        train(c, oc, 1)
    assert any(e.name == "Optimizer.step#FusedAdam.step" for e in prof.events())


def test_hooks_see_the_arguments_torch_gives_them_and_subclasses_run_them_once():
    def record(log):
        return lambda o, args, kwargs: log.append((len(args), sorted(kwargs)))

    def closure():
        return 1.0

    logs = {}
    for kind in (torch.optim.Adam, FusedAdam):
        model = mlp()
        optimizer = kind(model.parameters())
        log = logs[kind] = []
        optimizer.register_step_pre_hook(record(log))
        optimizer.register_step_post_hook(record(log))
        train(model, optimizer, 1)
        optimizer.step(closure=closure)
        optimizer.step(closure)
        optimizer.step(None)
    assert logs[FusedAdam] == logs[torch.optim.Adam]

    class Logged(FusedAdam):  # a subclass with a step of its own, wrapped as torch does
        def step(self, closure=None):
            calls.append("step")
            return super().step(closure)

    calls = []
    a, b = mlp(), mlp()
    oa, ob = torch.optim.Adam(a.parameters(), fused=True), Logged(b.parameters())
    ob.register_step_pre_hook(lambda *args: calls.append("pre"))
    ob.register_step_post_hook(lambda *args: calls.append("post"))
    train(a, oa, 3)
    train(b, ob, 3)
    assert calls == ["pre", "step", "post"] * 3
    assert_same(a, b)


@pytest.mark.parametrize("option", ["amsgrad", "maximize", "decoupled_weight_decay"])
def test_adam_options_it_does_not_implement_fail_at_the_step(option):
    model = mlp()
    source = (torch.optim.AdamW(model.parameters()) if option == "decoupled_weight_decay"
              else torch.optim.Adam(model.parameters(), **{option: True}))
    train(model, source, 1)
    optimizer = FusedAdam(model.parameters())
    optimizer.load_state_dict(source.state_dict())
    with pytest.raises(ValueError, match=f"does not implement {option}=True"):
        train(model, optimizer, 1)


@pytest.mark.parametrize("grad_enabled", [True, False])
def test_the_step_leaves_the_gradient_mode_as_it_found_it(grad_enabled):
    model = mlp()
    optimizer = FusedAdam(model.parameters())
    (model(torch.ones(2, 4)) ** 2).sum().backward()
    seen = []

    def closure():
        seen.append(torch.is_grad_enabled())
        return torch.tensor(1.0)

    with torch.set_grad_enabled(grad_enabled):
        optimizer.step(closure)
        assert torch.is_grad_enabled() is grad_enabled
        optimizer.param_groups[0]["amsgrad"] = True  # the step raises inside: still restored
        with pytest.raises(ValueError, match="amsgrad"):
            optimizer.step()
        assert torch.is_grad_enabled() is grad_enabled
    assert seen == [True]  # a closure computes its loss with gradients, as with torch's Adam


def test_the_step_counter_counts_in_float32_as_torch_adam():
    a, b = mlp(), mlp()
    fused, adam = FusedAdam(a.parameters()), torch.optim.Adam(b.parameters(), fused=True)
    train(a, fused, 3)
    train(b, adam, 3)
    for pa, pb in zip(a.parameters(), b.parameters()):
        step, reference = fused.state[pa]["step"], adam.state[pb]["step"]
        assert step.dtype == reference.dtype and float(step) == float(reference) == 3.0
    assert_same(a, b)


def test_duplicate_and_complex_parameters_fail_clearly():
    p = torch.nn.Parameter(torch.ones(2))
    p.grad = torch.ones(2)
    with pytest.warns(UserWarning, match="duplicate"):
        optimizer = FusedAdam([p, p])
    with pytest.raises(ValueError, match="a parameter appears twice"):
        optimizer.step()
    c = torch.nn.Parameter(torch.ones(2, dtype=torch.complex64))
    c.grad = torch.ones(2, dtype=torch.complex64)
    with pytest.raises(TypeError, match="real floating parameters, got torch.complex64"):
        FusedAdam([c]).step()


@pytest.mark.parametrize("kwargs, message", [
    ({"lr": 0.0}, "lr must be a number > 0, got 0.0"),
    ({"lr": "0.1"}, "lr must be a number > 0"),
    ({"lr": True}, "lr must be a number > 0"),
    ({"betas": (0.9, 1.0)}, r"betas must be two numbers in \[0, 1\), got \(0.9, 1.0\)"),
    ({"betas": (0.9,)}, "betas must be two numbers"),
    ({"eps": -1e-8}, "eps must be a number > 0"),
    ({"weight_decay": -0.1}, "weight_decay must be a number >= 0, got -0.1"),
])
def test_bad_hyper_parameters_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        FusedAdam(mlp().parameters(), **kwargs)


def test_mixed_dtypes_in_one_group_fail_clearly():
    model = mlp()
    model[2].double()
    optimizer = FusedAdam(model.parameters())
    (model[2](model[0](torch.ones(1, 4)).double()) ** 2).sum().backward()
    with pytest.raises(TypeError, match="must share one device and dtype"):
        optimizer.step()


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_matches_torch_adam():
    a, b = mlp().cuda(), mlp().cuda()
    train(a, torch.optim.Adam(a.parameters(), fused=True), 10)
    train(b, FusedAdam(b.parameters()), 10)
    assert_same(a, b)

"""Networks of the DQN family: shapes, dueling identity, noisy layers, seeded initialisation."""

import pytest
import torch

from rlzoo.dqns.networks import (
    DistributionalNetwork, DuelingHead, EnsembleQNetwork, ImplicitQuantileNetwork, NatureCNN,
    NoisyLinear, QNetwork, seeded_init,
)


def test_shapes():
    x = torch.zeros(3, 4)
    assert QNetwork(4, 2, seed=0)(x).shape == (3, 2)
    assert QNetwork(4, 2, dueling=True, seed=0)(x).shape == (3, 2)
    assert DistributionalNetwork(4, 2, n_atoms=7, seed=0)(x).shape == (3, 2, 7)
    assert DistributionalNetwork(4, 2, n_atoms=7, dueling=True, noisy=True, seed=0)(x).shape \
        == (3, 2, 7)
    assert ImplicitQuantileNetwork(4, 2, n_cos=8, seed=0)(x, torch.rand(3, 5)).shape == (3, 5, 2)
    assert EnsembleQNetwork(4, 2, n_heads=3, seed=0)(x).shape == (3, 3, 2)
    frames = torch.zeros(2, 4, 84, 84, dtype=torch.uint8)
    assert QNetwork(None, 6, body=NatureCNN(), seed=0)(frames).shape == (2, 6)


def test_dueling_advantages_have_zero_mean():
    head = DuelingHead(8, 3)
    features = torch.randn(5, 8)
    q = head(features)
    v = head.value(features)
    torch.testing.assert_close(q.mean(dim=1, keepdim=True), v)


def test_seeded_initialisation_leaves_the_global_generator_alone():
    state = torch.random.get_rng_state()
    a, b = QNetwork(4, 2, seed=1), QNetwork(4, 2, seed=1)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    c = QNetwork(4, 2, seed=2)
    assert not all(torch.equal(p, q) for p, q in zip(a.parameters(), c.parameters()))
    try:
        with seeded_init(None):
            pass
    except ValueError as error:
        assert "seed" in str(error)
    else:
        raise AssertionError("seeded_init(None) must raise")


def test_noisy_linear_noise_is_seeded_and_off_in_eval_mode():
    layer = NoisyLinear(3, 2, seed=4)
    x = torch.ones(1, 3)
    first = layer(x)
    assert not torch.equal(first, layer(x))
    layer.eval()
    torch.testing.assert_close(layer(x), x @ layer.weight_mu.T + layer.bias_mu)
    other = NoisyLinear(3, 2, seed=4)
    with torch.no_grad():
        for p, q in zip(other.parameters(), layer.parameters()):
            p.copy_(q)
    layer.train()
    layer._generator = None
    torch.testing.assert_close(layer(x), other(x))


def _saved_and_loaded(state):
    import io

    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer)  # weights_only: the extra state is plain data


def test_a_restored_noisy_layer_goes_on_with_the_saved_noise():
    x = torch.ones(2, 3)
    layer = NoisyLinear(3, 2, seed=4)
    for _ in range(3):
        layer(x)
    state = _saved_and_loaded(layer.state_dict())
    expected = [layer(x) for _ in range(2)]
    restored = NoisyLinear(3, 2, seed=9)
    restored.load_state_dict(state)
    assert restored.seed == 4
    for y in expected:
        torch.testing.assert_close(restored(x), y)
    # a layer that never drew noise saves none: the restored layer starts from its seed
    fresh = NoisyLinear(3, 2, seed=4)
    twin = NoisyLinear(3, 2, seed=5)
    twin.load_state_dict(fresh.state_dict())
    torch.testing.assert_close(twin(x), fresh(x))


def test_noisy_extra_state_from_another_device_type_reseeds_and_bad_state_fails():
    x = torch.ones(1, 3)
    layer = NoisyLinear(3, 2, seed=4)
    layer(x)
    state = layer.state_dict()
    state["_extra_state"] = dict(state["_extra_state"], device="cuda:0")
    other = NoisyLinear(3, 2, seed=1)
    other.load_state_dict(state)
    reference = NoisyLinear(3, 2, seed=4)
    reference.load_state_dict({k: v for k, v in state.items() if k != "_extra_state"},
                              strict=False)
    torch.testing.assert_close(other(x), reference(x))  # seed 4's first draw
    with pytest.raises(ValueError, match="extra state must be a dict with 'seed'"):
        other.set_extra_state({"seed": 1})


def test_a_state_dict_without_noise_state_loads_and_keeps_the_layers_noise():
    # as saved before NoisyLinear had an extra state: parameters only
    x = torch.ones(1, 3)
    layer, twin = NoisyLinear(3, 2, seed=4), NoisyLinear(3, 2, seed=4)
    layer(x)
    twin(x)
    old = {k: v for k, v in NoisyLinear(3, 2, seed=7).state_dict().items()
           if k != "_extra_state"}
    layer.load_state_dict(old)  # strict
    assert layer.seed == 4
    with torch.no_grad():
        for p, q in zip(twin.parameters(), layer.parameters()):
            p.copy_(q)
    torch.testing.assert_close(layer(x), twin(x))  # the same noise stream, not restarted
    net = DistributionalNetwork(4, 2, n_atoms=5, dueling=True, noisy=True, seed=3)
    net.load_state_dict({k: v for k, v in net.state_dict().items()
                         if not k.endswith("_extra_state")})


def test_a_restored_rainbow_network_draws_the_saved_runs_noise():
    net = DistributionalNetwork(4, 2, n_atoms=5, dueling=True, noisy=True, seed=3)
    x = torch.randn(6, 4)
    net(x)
    state = _saved_and_loaded(net.state_dict())
    expected = net(x)
    restored = DistributionalNetwork(4, 2, n_atoms=5, dueling=True, noisy=True, seed=8)
    restored.load_state_dict(state)
    torch.testing.assert_close(restored(x), expected)


def test_q_network_forward_keeps_hooks_on_its_layers():
    import torch

    from rlzoo.dqns.networks import QNetwork

    net = QNetwork(4, 2, seed=0)
    x = torch.ones(3, 4)
    plain = net(x)
    assert torch.equal(plain, net.layers(x))
    seen = []
    handle = net.layers.register_forward_hook(lambda module, args, out: seen.append(out.shape))
    assert torch.equal(net(x), plain) and seen == [torch.Size([3, 2])]
    handle.remove()
    handle = torch.nn.modules.module.register_module_forward_hook(
        lambda module, args, out: seen.append(type(module).__name__))
    try:
        net(x)
    finally:
        handle.remove()
    assert "Sequential" in seen


def test_q_network_fast_forward_equals_the_modules_and_keeps_layer_hooks():
    import torch

    from rlzoo.dqns.networks import NoisyLinear, QNetwork

    net = QNetwork(4, 2, hidden=(8, 8), dueling=True, seed=0)
    x = torch.randn(5, 4)
    assert torch.equal(net(x), net.layers(x))  # functional Linear/ReLU, the dueling head as is
    seen = []
    first = net.layers[0]
    handle = first.register_forward_hook(lambda module, args, out: seen.append("linear"))
    relu = net.layers[1].register_forward_pre_hook(lambda module, args: seen.append("relu"))
    assert torch.equal(net(x), net.layers(x))
    assert seen == ["linear", "relu", "linear", "relu"]  # net(x), then net.layers(x)
    handle.remove()
    relu.remove()
    # gradients flow as through the modules
    net(x).sum().backward()
    grads = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    net.layers(x).sum().backward()
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, net.parameters()))
    # other modules (a noisy layer, a Linear subclass) and a forward set on an instance run as
    # modules
    noisy = QNetwork(4, 2, body=torch.nn.Sequential(NoisyLinear(4, 6, seed=1), torch.nn.ReLU()),
                     n_features=6, seed=0)
    noisy.eval()
    assert torch.equal(noisy(x), noisy.layers(x))

    class Doubled(torch.nn.Linear):
        def forward(self, x):
            return 2 * super().forward(x)

    plain = QNetwork(4, 2, hidden=(8, 8), seed=0)
    doubled = QNetwork(4, 2, hidden=(8, 8), seed=0)
    with torch.no_grad():
        last = doubled.layers[-1]
        swapped = Doubled(last.in_features, last.out_features)
        swapped.load_state_dict(last.state_dict())
        doubled.layers[-1] = swapped
        torch.testing.assert_close(doubled(x), 2 * plain(x))
        first = plain.layers[0]
        first.forward = lambda x: torch.nn.functional.linear(x, first.weight, first.bias) + 1.0
        assert torch.equal(plain(x), plain.layers(x))


def _torch_values(net, state):
    with torch.no_grad():
        return net.layers(torch.from_numpy(state)[None])[0].numpy()


def test_values_of_one_state_in_numpy_equals_the_forward():
    import numpy as np

    rng = np.random.default_rng(0)
    for hidden in [(), (8,), (64, 64), (16, 8, 4)]:
        net = QNetwork(4, 3, hidden=hidden, seed=1)
        for _ in range(5):
            state = rng.normal(size=4).astype(np.float32)
            before = state.copy()
            values = net.values_of(state)
            assert values.dtype == np.float32 and values.shape == (3,)
            np.testing.assert_allclose(values, _torch_values(net, state), rtol=1e-6, atol=1e-6)
            assert np.array_equal(state, before)  # the caller's state is not written to
    net = QNetwork(4, 2, seed=0)
    state = np.ones(4, dtype=np.float32)
    # where it does not apply: other inputs, other heads
    assert net.values_of(state.astype(np.float64)) is None
    assert net.values_of(state[None]) is None
    assert net.values_of(np.ones(5, dtype=np.float32)) is None
    assert net.values_of([1.0, 1.0, 1.0, 1.0]) is None
    assert QNetwork(4, 2, dueling=True, seed=0).values_of(state) is None
    noisy = QNetwork(4, 2, body=torch.nn.Sequential(NoisyLinear(4, 6, seed=1), torch.nn.ReLU()),
                     n_features=6, seed=0)
    assert noisy.values_of(state) is None


def test_numpy_layers_relu_equals_torch_and_leaves_its_zeros_alone():
    import numpy as np

    from rlzoo.dqns.networks import _zeros

    net = QNetwork(4, 3, hidden=(8, 8), seed=1)
    layers = net.numpy_layers()
    rng = np.random.default_rng(0)
    for rows in (1, 5, 5, 128):  # a new shape, then the kept zeros
        x = rng.normal(size=(rows, 4)).astype(np.float32) * 3
        x[0, 1] = np.nan  # a NaN input stays NaN through every ReLU, as in torch
        expected = net(torch.from_numpy(x)).detach().numpy()
        got = layers.forward(x)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, equal_nan=True)
        assert np.isnan(got[0]).all() and not np.isnan(got[1:]).any()
    zeros = _zeros((5, 8))
    assert zeros is _zeros((5, 8)) and not zeros.any() and zeros.dtype == np.float32
    with pytest.raises(ValueError, match="read-only"):
        zeros[0, 0] = 1.0
    big = _zeros((1024, 512))  # 2 MiB: made on each call, not kept
    assert not big.any() and big is not _zeros((1024, 512))


def test_values_of_follows_training_hooks_casts_and_copies():
    import copy
    import pickle

    import numpy as np

    net = QNetwork(4, 2, hidden=(8, 8), seed=0)
    state = np.array([0.1, -0.2, 0.3, 0.4], dtype=np.float32)
    first = net.values_of(state)
    # an optimiser step changes the parameters in place: seen at once
    optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
    net(torch.from_numpy(state)[None]).sum().backward()
    optimizer.step()
    after = net.values_of(state)
    assert not np.allclose(after, first)
    np.testing.assert_allclose(after, _torch_values(net, state), rtol=1e-6, atol=1e-6)
    # hooks on the network, its layers or globally, and a forward set on an instance, step aside
    for module in (net, net.layers, net.layers[2], net.layers[1]):
        handle = module.register_forward_hook(lambda *args: None)
        assert net.values_of(state) is None
        handle.remove()
        assert net.values_of(state) is not None
    handle = torch.nn.modules.module.register_module_forward_hook(lambda *args: None)
    try:
        assert net.values_of(state) is None
    finally:
        handle.remove()
    net.layers[0].forward = lambda x: x
    assert net.values_of(state) is None
    del net.layers[0].forward
    # loading weights copies in place; casting and replacing a layer re-plan
    other = QNetwork(4, 2, hidden=(8, 8), seed=5)
    net.load_state_dict(other.state_dict())
    np.testing.assert_allclose(net.values_of(state), _torch_values(other, state), rtol=1e-6,
                               atol=1e-6)
    net.double()
    assert net.values_of(state) is None
    net.float()
    np.testing.assert_allclose(net.values_of(state), _torch_values(other, state), rtol=1e-6,
                               atol=1e-6)
    net.layers[-1] = torch.nn.Linear(8, 2)
    np.testing.assert_allclose(net.values_of(state), _torch_values(net, state), rtol=1e-6,
                               atol=1e-6)
    # copies compute with their own parameters
    for twin in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert "_layer_plan" not in twin.__dict__
        with torch.no_grad():
            for p in twin.parameters():
                p.add_(1.0)
        np.testing.assert_allclose(twin.values_of(state), _torch_values(twin, state),
                                   rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(net.values_of(state), _torch_values(net, state),
                                   rtol=1e-6, atol=1e-6)


def test_layer_plan_follows_replaced_parameters_layouts_and_instance_forwards():
    import numpy as np

    state = np.array([0.1, -0.2, 0.3, 0.4], dtype=np.float32)
    x = torch.from_numpy(state)[None]
    net = QNetwork(4, 4, hidden=(4,), seed=0)
    net(x), net.values_of(state)
    # a new Parameter object (load_state_dict(assign=True)); the old one left unchanged
    other = QNetwork(4, 4, hidden=(4,), seed=3)
    net.load_state_dict(other.state_dict(), assign=True)
    torch.testing.assert_close(net(x), other(x))
    np.testing.assert_allclose(net.values_of(state), _torch_values(other, state), rtol=1e-6,
                               atol=1e-6)
    # the same storage laid out anew (a transposed square weight keeps its data pointer)
    with torch.no_grad():
        net.layers[0].weight.data = net.layers[0].weight.data.t()
    np.testing.assert_allclose(net.values_of(state), _torch_values(net, state), rtol=1e-6,
                               atol=1e-6)
    # a bias given to a Linear built without one
    body = torch.nn.Sequential(torch.nn.Linear(4, 8, bias=False), torch.nn.ReLU())
    biased = QNetwork(4, 2, body=body, n_features=8, seed=0)
    biased(x), biased.values_of(state)
    body[0].bias = torch.nn.Parameter(torch.full((8,), 5.0))
    assert torch.equal(biased(x), biased.layers(x))
    np.testing.assert_allclose(biased.values_of(state), _torch_values(biased, state), rtol=1e-6,
                               atol=1e-6)
    # a ReLU switched to in-place after the first forward
    net.layers[1].inplace = True
    assert torch.equal(net(x), net.layers(x))
    # a forward set on the network itself, or a layer compiled on its own: the module calls
    net.forward = lambda x: torch.zeros(1, 4)
    assert net.values_of(state) is None
    del net.forward
    net.layers.forward = lambda x: torch.full((x.shape[0], 4), 7.0)
    assert net.values_of(state) is None
    assert torch.equal(net(x), torch.full((1, 4), 7.0))
    del net.layers.forward
    net.layers[0].compile(backend="eager")
    assert net.values_of(state) is None and net._plan() is None


def test_subclass_forward_pruning_torch_func_and_compile_keep_torch_semantics():
    import numpy as np

    state = np.array([0.1, -0.2, 0.3, 0.4], dtype=np.float32)
    x = torch.from_numpy(state)[None]

    class Scaled(QNetwork):
        def forward(self, x):
            return super().forward(x) * 10

    scaled = Scaled(4, 2, seed=0)
    assert scaled.values_of(state) is None
    torch.testing.assert_close(scaled(x), 10 * scaled.layers(x))
    # pruning moves the weight out of the parameters (and adds a pre-hook)
    pruned = QNetwork(4, 2, hidden=(8,), seed=0)
    pruned(x)
    from torch.nn.utils import prune

    prune.l1_unstructured(pruned.layers[0], "weight", 0.5)
    assert torch.equal(pruned(x), pruned.layers(x))
    assert pruned.values_of(state) is None
    # torch.func transforms run the module calls
    net = QNetwork(4, 2, hidden=(8,), seed=0)
    params = {k: v.detach() for k, v in net.named_parameters()}
    grads = torch.func.grad(
        lambda p: torch.func.functional_call(net, p, (x,)).sum())(params)
    net(x).sum().backward()
    for name, p in net.named_parameters():
        torch.testing.assert_close(grads[name], p.grad)
    # compiled, then a hook on a layer: the eager forward and values_of see it
    compiled = torch.compile(net, backend="eager")
    compiled(x)
    net.layers[0].register_forward_hook(lambda module, args, out: out * 0)
    assert torch.equal(net(x), net.layers(x))
    assert net.values_of(state) is None


def test_layer_plan_makes_no_reference_cycle():
    import gc
    import weakref

    import numpy as np

    net = QNetwork(4, 2, seed=0)
    net(torch.zeros(1, 4)), net.values_of(np.zeros(4, dtype=np.float32))
    weight = weakref.ref(net.layers[0].weight)
    gc.disable()
    try:
        del net
        assert weight() is None  # freed by reference counting, without the cycle collector
    finally:
        gc.enable()


def test_noisy_layers_of_nearby_seeds_draw_unrelated_noise():
    def noisy_seeds(seed):
        net = DistributionalNetwork(4, 2, hidden=(8,), n_atoms=3, dueling=True, noisy=True,
                                    seed=seed)
        return [m.seed for m in net.modules() if isinstance(m, NoisyLinear)]

    assert len(noisy_seeds(0)) == 2 and noisy_seeds(0) == noisy_seeds(0)  # reproducible
    seeds = [s for seed in range(4) for s in noisy_seeds(seed)]
    assert len(set(seeds)) == len(seeds)  # seed + k once gave layer k of seed 0 seed 1's k - 1
    plain = DistributionalNetwork(4, 2, hidden=(8,), n_atoms=3, noisy=True, seed=0)
    assert [m.seed for m in plain.modules() if isinstance(m, NoisyLinear)][0] not in seeds
    from rlzoo.dqns.networks import child_seed

    assert all(0 <= child_seed(seed, k) < 2**63 for seed in (-1, 0, 2**70) for k in (0, 5))
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="key must be an int >= 0"):
            child_seed(0, bad)

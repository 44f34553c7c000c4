"""Networks of the DQN family: shapes, dueling identity, noisy layers, seeded initialisation."""

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

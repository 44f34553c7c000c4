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


def test_a_state_dict_without_noise_state_loads_only_unstrictly_and_keeps_the_layers_noise():
    # as saved before NoisyLinear had an extra state: parameters only; torch's strict loading
    # names the missing key, a non-strict one loads the parameters
    x = torch.ones(1, 3)
    layer, twin = NoisyLinear(3, 2, seed=4), NoisyLinear(3, 2, seed=4)
    layer(x)
    twin(x)
    old = {k: v for k, v in NoisyLinear(3, 2, seed=7).state_dict().items()
           if k != "_extra_state"}
    with pytest.raises(RuntimeError, match="Missing key.*_extra_state"):
        layer.load_state_dict(old)
    result = layer.load_state_dict(old, strict=False)
    assert result.missing_keys == ["_extra_state"]
    assert layer.seed == 4
    with torch.no_grad():
        for p, q in zip(twin.parameters(), layer.parameters()):
            p.copy_(q)
    torch.testing.assert_close(layer(x), twin(x))  # the same noise stream, not restarted
    net = DistributionalNetwork(4, 2, n_atoms=5, dueling=True, noisy=True, seed=3)
    missing = net.load_state_dict({k: v for k, v in net.state_dict().items()
                                   if not k.endswith("_extra_state")}, strict=False).missing_keys
    # its noisy layers: the dueling head's value and advantage outputs
    assert missing == ["head.value.0._extra_state", "head.advantage.0._extra_state"]


def test_a_restored_rainbow_network_draws_the_saved_runs_noise():
    net = DistributionalNetwork(4, 2, n_atoms=5, dueling=True, noisy=True, seed=3)
    x = torch.randn(6, 4)
    net(x)
    state = _saved_and_loaded(net.state_dict())
    expected = net(x)
    restored = DistributionalNetwork(4, 2, n_atoms=5, dueling=True, noisy=True, seed=8)
    restored.load_state_dict(state)
    torch.testing.assert_close(restored(x), expected)


def test_q_network_is_its_body_then_its_head_with_their_hooks():
    net = QNetwork(4, 2, hidden=(8, 8), seed=0)
    x = torch.ones(3, 4)
    assert torch.equal(net(x), net.head(net.body(x)))
    # body: Linear(4, 8), ReLU, Linear(8, 8), ReLU; head: Linear(8, 2)
    assert [type(m).__name__ for m in net.body] == ["Linear", "ReLU", "Linear", "ReLU"]
    assert (net.head.in_features, net.head.out_features) == (8, 2)
    seen = []
    handle = net.body.register_forward_hook(lambda module, args, out: seen.append(out.shape))
    net(x)
    handle.remove()
    assert seen == [torch.Size([3, 8])]
    # no hidden layers: an empty body, the head on the state
    linear = QNetwork(4, 2, hidden=(), seed=0)
    assert len(linear.body) == 0 and linear.head.in_features == 4


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


def test_target_network_syncs_as_asked_and_reseeds_the_copys_noisy_layers():
    from rlcore import NeuralNetworkApproximator, TargetNetwork
    from rlzoo.dqns.networks import target_network, target_noise_seed

    net = DistributionalNetwork(4, 2, hidden=(8,), n_atoms=3, dueling=True, noisy=True, seed=0)
    app = NeuralNetworkApproximator(net, torch.optim.SGD(net.parameters(), lr=0.1))
    tn = target_network(app, sync_every=7, rho=0.5)
    assert type(tn) is TargetNetwork and tn.approximator is app
    assert (tn.sync_every, tn.rho) == (7, 0.5)
    online = [m.seed for m in net.modules() if isinstance(m, NoisyLinear)]
    target = [m.seed for m in tn.target_model.modules() if isinstance(m, NoisyLinear)]
    assert target == [target_noise_seed(s) for s in online] and not set(target) & set(online)
    assert target_noise_seed(3) == target_noise_seed(3) != target_noise_seed(4)
    q = QNetwork(4, 2, seed=0)
    plain = target_network(NeuralNetworkApproximator(q, torch.optim.SGD(q.parameters(), lr=0.1)))
    assert (plain.sync_every, plain.rho) == (1, 0.0)

import pytest
import torch

from rlcore.approximators.neural_network_approximator import NeuralNetworkApproximator
from rlcore.approximators.target_network import TargetNetwork
from rlcore.dispatch import update


def make(**kwargs):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.BatchNorm1d(8),
                                torch.nn.Linear(8, 1))
    app = NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(), lr=0.1))
    return TargetNetwork(app, **kwargs)


X = torch.randn(16, 3, generator=torch.Generator().manual_seed(1))


def step(tn):
    update(tn, (tn(X) ** 2).mean())


def flat(model):
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def test_target_is_a_frozen_copy():
    tn = make()
    assert tn.target_model is not tn.model
    assert torch.equal(flat(tn.target_model), flat(tn.model))
    assert not any(p.requires_grad for p in tn.target_model.parameters())
    assert not tn.target(X).requires_grad
    assert tn.device == torch.device("cpu")


def test_hard_sync_every_n_steps():
    tn = make(sync_every=3)
    initial = flat(tn.target_model).clone()
    step(tn)
    step(tn)
    assert torch.equal(flat(tn.target_model), initial)          # unchanged until the sync
    assert not torch.equal(flat(tn.model), initial)
    step(tn)
    assert tn.n_updates == 3
    assert torch.equal(flat(tn.target_model), flat(tn.model))   # equal after it
    for b_target, b_online in zip(tn.target_model.buffers(), tn.model.buffers()):
        assert torch.equal(b_target, b_online)                  # batch-norm statistics too
    step(tn)
    assert not torch.equal(flat(tn.target_model), flat(tn.model))


def test_soft_sync_is_the_polyak_mix():
    rho = 0.9
    tn = make(sync_every=2, rho=rho)
    target_before = flat(tn.target_model).clone()
    step(tn)
    assert torch.equal(flat(tn.target_model), target_before)
    step(tn)
    expected = rho * target_before + (1 - rho) * flat(tn.model)
    torch.testing.assert_close(flat(tn.target_model), expected)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(rho=1.0), r"rho.*\[0, 1\).*1.0"),
    (dict(rho=-0.5), "rho.*-0.5"),
    (dict(sync_every=0), "sync_every.*0"),
])
def test_bad_hyper_parameters_raise(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        make(**kwargs)


def test_needs_a_neural_network_approximator():
    with pytest.raises(TypeError):
        TargetNetwork(torch.nn.Linear(2, 2))

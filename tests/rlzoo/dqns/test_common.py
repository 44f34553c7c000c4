"""Hand-computed checks of the shared DQN-family functions."""

import pytest
import torch

from rlzoo.dqns.common import (
    beta_at, bootstrap_factor, importance_weights, project_onto_support, quantile_huber_loss,
)
from tests.rlzoo.dqns.dqn_helpers import CARTPOLE, learner_and_batch, make_batch


def test_c51_projection_splits_mass_between_neighbouring_atoms():
    support = torch.tensor([0.0, 1.0, 2.0])
    next_probs = torch.tensor([[0.2, 0.5, 0.3]])
    # Tz = 0.5 + 0.5 z = [0.5, 1.0, 1.5]: atom 0 splits between 0 and 1, atom 1 lands on 1,
    # atom 2 splits between 1 and 2 -> [0.1, 0.1 + 0.5 + 0.15, 0.15]
    m = project_onto_support(next_probs, torch.tensor([0.5]), torch.tensor([0.5]), support)
    torch.testing.assert_close(m, torch.tensor([[0.1, 0.75, 0.15]]))


def test_c51_projection_clamps_and_handles_termination():
    support = torch.tensor([0.0, 1.0, 2.0])
    p = torch.tensor([[0.2, 0.5, 0.3], [0.2, 0.5, 0.3], [0.2, 0.5, 0.3]])
    m = project_onto_support(p, torch.tensor([5.0, 1.0, -3.0]), torch.tensor([0.9, 0.0, 1.0]),
                             support)
    # r=5 beyond v_max: all mass on 2; terminal (factor 0), r=1: all on 1; r=-3: Tz <= 0 -> 0
    torch.testing.assert_close(m, torch.tensor([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0],
                                                [1.0, 0.0, 0.0]]))
    torch.testing.assert_close(m.sum(dim=1), torch.ones(3))


def test_quantile_huber_loss_by_hand():
    quantiles = torch.tensor([[0.0, 2.0]])
    taus = torch.tensor([0.25, 0.75])
    # u = 1 - 0 = 1: Huber 0.5, weight |0.25 - 0| -> 0.125; u = 1 - 2 = -1: Huber 0.5,
    # weight |0.75 - 1| -> 0.125; sum over quantiles 0.25
    loss = quantile_huber_loss(quantiles, torch.tensor([[1.0]]), taus)
    torch.testing.assert_close(loss, torch.tensor([0.25]))
    # |u| = 3 > κ = 1: κ(|u| - κ/2) = 2.5, weight 0.1; averaged over the two equal targets
    loss = quantile_huber_loss(torch.tensor([[0.0]]), torch.tensor([[3.0, 3.0]]),
                               torch.tensor([0.1]))
    torch.testing.assert_close(loss, torch.tensor([0.25]))
    with pytest.raises(ValueError, match="kappa"):
        quantile_huber_loss(quantiles, torch.tensor([[1.0]]), taus, kappa=0.0)


def test_quantile_regression_recovers_quantiles():
    # minimising the quantile loss over samples of U(0, 1) puts θ_i at τ_i
    gen = torch.Generator().manual_seed(0)
    taus = torch.tensor([0.1, 0.5, 0.9])
    theta = torch.zeros(1, 3, requires_grad=True)
    opt = torch.optim.SGD([theta], lr=0.05)
    for _ in range(3000):
        samples = torch.rand(1, 64, generator=gen)
        loss = quantile_huber_loss(theta, samples, taus, kappa=0.01).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.testing.assert_close(theta.detach(), taus.unsqueeze(0), atol=0.05, rtol=0)


def test_bootstrap_factor_terminal_and_n_step():
    batch = make_batch([[0.0]] * 3, [0, 0, 0], [1, 1, 1], [[0.0]] * 3,
                       terminal=[False, True, False], truncated=[False, False, True])
    torch.testing.assert_close(bootstrap_factor(batch, 0.9), torch.tensor([0.9, 0.0, 0.9]))
    batch["discount"] = torch.tensor([0.25, 0.5, 0.125])
    torch.testing.assert_close(bootstrap_factor(batch, 0.9), torch.tensor([0.25, 0.0, 0.125]))


def test_importance_weights_and_beta_schedule():
    w = importance_weights(torch.tensor([0.1, 0.4]), 1.0)
    torch.testing.assert_close(w, torch.tensor([1.0, 0.25]))
    w = importance_weights(torch.tensor([0.1, 0.4]), 0.5)
    torch.testing.assert_close(w, torch.tensor([1.0, 0.5]))
    assert beta_at(0, 0.4, 100) == 0.4
    assert beta_at(50, 0.4, 100) == pytest.approx(0.7)
    assert beta_at(500, 0.4, 100) == 1.0
    assert beta_at(3, 0.4, 0) == 0.4   # beta_steps = 0: constant



def _as_numpy(batch, keep=(), float_dtype=None):
    """``batch`` with its tensors (but those in ``keep``) as numpy arrays, floats as
    ``float_dtype`` (default: as they are)."""
    import numpy as np
    from rlcore.trajectories.samplers import Batch

    out = Batch()
    for key, value in batch.items():
        if isinstance(value, torch.Tensor) and key not in keep:
            value = value.numpy().copy()
            if float_dtype is not None and value.dtype.kind == "f":
                value = value.astype(float_dtype)
            assert isinstance(value, np.ndarray)
        out[key] = value
    return out


@pytest.mark.parametrize("form", ["numpy", "float64", "mixed"])
@pytest.mark.parametrize("name", CARTPOLE)
def test_a_learner_takes_a_numpy_or_mixed_batch_as_its_samplers_batch(name, form, one_thread):
    # numpy: as a BatchSampler(device=None) draws it; float64: as numpy builds arrays by
    # default; mixed: the state a tensor, the rest numpy
    from rlcore import update

    results = []
    for convert in (False, True):
        learner, batch = learner_and_batch(name)
        if convert:
            batch = _as_numpy(batch, keep=("state",) if form == "mixed" else (),
                              float_dtype="float64" if form == "float64" else None)
        out = update(learner, batch)
        results.append((out, [p.detach().clone() for p in learner.approximator.model.parameters()]))
    (out, params), (converted_out, converted_params) = results
    torch.testing.assert_close(torch.as_tensor(converted_out), torch.as_tensor(out))
    for a, b in zip(params, converted_params):
        torch.testing.assert_close(b, a)


def test_batch_on_returns_a_batch_already_there_itself():
    from rlzoo.dqns.common import batch_on

    batch = make_batch([[0.0]], [0], [1.0], [[1.0]])
    assert batch_on(batch, torch.device("cpu")) is batch
    moved = batch_on(batch, torch.device("meta"))
    assert moved is not batch and moved["reward"].device.type == "meta"


def test_hyper_parameters_are_keyword_only():
    # DESIGN.md §4: hyper-parameters are keyword fields; a field added later (as gradient_steps
    # was) cannot shift a positional call onto the wrong parameter
    import inspect

    from rlzoo import dqns

    names = ["BasicDQNLearner", "DQNLearner", "PrioritizedDQNLearner", "C51Learner",
             "QRDQNLearner", "IQNLearner", "REMDQNLearner", "RainbowLearner"]
    for name in names:
        parameters = list(inspect.signature(getattr(dqns, name).__init__).parameters.values())
        assert [p.name for p in parameters[:2]] == ["self", "approximator"], name
        assert parameters[1].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, name
        assert len(parameters) > 3 and all(
            p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[2:]), name
    learner, _ = learner_and_batch("DQN_CartPole")
    with pytest.raises(TypeError, match="positional"):
        type(learner)(learner.approximator, learner.sampler)

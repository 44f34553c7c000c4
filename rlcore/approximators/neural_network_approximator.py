"""A torch model with its optimiser, and the one place that knows the device.

Inputs are batches with the batch on the first axis (torch's convention). numpy floating inputs
become ``float32`` tensors on the approximator's device; integer inputs keep their dtype.
"""

import math

import attrs
import numpy as np
import torch

from rlcore.approximators.base import AbstractApproximator
from rlcore.dispatch import dispatch, update
from rlcore.utils.validators import real_in

__all__ = ["NeuralNetworkApproximator", "to_device"]


def _check_max_grad_norm(instance, attribute, value):
    if value is not None:
        real_in(0, math.inf, low_open=True, high_open=True)(instance, attribute, value)


@attrs.define(eq=False)
class NeuralNetworkApproximator(AbstractApproximator):
    """``app(x)`` is ``model(x)`` on ``device``; ``update(app, loss)`` is one optimiser step.

    The model is moved to ``device`` on construction. ``nn.Module.to`` converts parameters in
    place (the ``Parameter`` objects stay the same), so an optimiser built on the model's
    parameters before the move keeps working, as long as it has not taken a step yet (its
    state, e.g. Adam's moments, would stay on the old device). Recommended order: build the
    model, build the optimiser on ``model.parameters()``, pass both here, then never move the
    model yourself.

    ``update(app, loss)`` zeroes the gradients (``set_to_none``), back-propagates ``loss``,
    clips the global gradient norm to ``max_grad_norm`` when given, and steps the optimiser. A
    NaN or infinite loss raises ``FloatingPointError`` before anything is touched.

    Keyword arguments: ``model``, ``optimizer`` (required), ``device="cpu"``,
    ``max_grad_norm=None``.

    >>> model = torch.nn.Linear(3, 2)
    >>> app = NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(), lr=0.1))
    >>> q = app(np.zeros((4, 3)))          # float64 numpy -> float32 tensor on app.device
    >>> q.shape, q.dtype, app.device
    (torch.Size([4, 2]), torch.float32, device(type='cpu'))
    >>> update(app, (q ** 2).mean())
    """

    model: torch.nn.Module = attrs.field(validator=attrs.validators.instance_of(torch.nn.Module))
    optimizer: torch.optim.Optimizer = attrs.field(
        validator=attrs.validators.instance_of(torch.optim.Optimizer))
    device: object = attrs.field(default="cpu", converter=torch.device)
    max_grad_norm: object = attrs.field(default=None, validator=_check_max_grad_norm)

    def __attrs_post_init__(self):
        own = {id(p) for p in self.model.parameters()}
        given = [p for group in self.optimizer.param_groups for p in group["params"]]
        if given and not any(id(p) in own for p in given):
            raise ValueError("the optimizer does not hold any parameter of the model; build it "
                             "on model.parameters()")
        self.model.to(self.device)
        # torch.device("cuda") and a tensor's device("cuda:0") differ: keep the resolved one.
        parameter = next(self.model.parameters(), None)
        if parameter is not None:
            self.device = parameter.device
        if any(id(p) not in own for p in self.model.parameters()):
            raise RuntimeError("moving the model replaced its parameters (is "
                               "torch.__future__.set_overwrite_module_params_on_conversion on?)")

    def to_device(self, x):
        """``x`` as a tensor on ``device``: numpy floats become ``float32``, tensors move as is."""
        return to_device(x, self.device)

    def __call__(self, *xs):
        return self.model(*(self.to_device(x) for x in xs))


@dispatch(NeuralNetworkApproximator, object)
def update(app, loss):  # noqa: F811
    """One optimiser step on ``loss`` (a scalar tensor)."""
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        raise TypeError(f"update(NeuralNetworkApproximator, loss) needs a scalar tensor, "
                        f"got {loss!r}")
    _check_finite(loss.item())
    app.optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if app.max_grad_norm is not None:
        torch.nn.utils.clip_grad_norm_(app.model.parameters(), app.max_grad_norm)
    app.optimizer.step()


def to_device(x, device):
    """``x`` as a tensor on ``device``: numpy floats become ``float32``, tensors move as is."""
    if isinstance(x, torch.Tensor):
        return x if x.device == device else x.to(device)
    x = np.asarray(x)
    if x.dtype.kind == "f" and x.dtype != np.float32:
        x = x.astype(np.float32)
    return torch.as_tensor(x, device=device)


def _check_finite(value):
    if not math.isfinite(value):
        raise FloatingPointError(f"loss is {value}; no optimiser step was taken")

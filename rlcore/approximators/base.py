"""The abstract approximator type."""

import abc

__all__ = ["AbstractApproximator"]


class AbstractApproximator(abc.ABC):
    """Base class of approximators: ``approximator(x)`` estimates a value for input ``x``.

    Approximators are the only place that knows about devices; they learn through
    ``update(approximator, loss_or_correction)``.
    """

    @abc.abstractmethod
    def __call__(self, *args):
        """The estimate for the input."""

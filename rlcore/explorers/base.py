"""The abstract explorer type."""

import abc

__all__ = ["AbstractExplorer"]


class AbstractExplorer(abc.ABC):
    """Base class of explorers: ``explorer(values[, mask])`` picks an action index.

    ``explorer.prob(values[, mask])`` gives the probability of each action. An explorer has an
    ``is_training`` flag; :func:`rlcore.policies.testmode` sets it to ``False`` (greedy) inside a
    ``with`` block.
    """

    is_training: bool = True

    @abc.abstractmethod
    def __call__(self, values, mask=None):
        """The index of the chosen action."""

    @abc.abstractmethod
    def prob(self, values, mask=None):
        """The probability of each action, as a numpy array."""

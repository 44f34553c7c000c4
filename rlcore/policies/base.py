"""Abstract policy and learner types.

A policy maps an environment to an action: ``action = policy(env)``. A learner holds what is
learned (values, networks) and is called on an environment to give its estimates:
``values = learner(env)``. Learning rules are ``update`` methods dispatched on these types.
"""

import abc

__all__ = ["AbstractPolicy", "AbstractLearner"]


class AbstractPolicy(abc.ABC):
    """Base class of policies: ``policy(env)`` returns an action for ``env``'s current player."""

    @abc.abstractmethod
    def __call__(self, env):
        """The action to take in ``env`` now."""

    def prob(self, env):
        """The probability of each action in ``env`` now (a numpy array), where defined."""
        raise TypeError(f"{type(self).__name__} does not define action probabilities")


class AbstractLearner(abc.ABC):
    """Base class of learners: ``learner(env)`` returns its estimate for ``env``'s state.

    A learner learns through ``update(learner, trajectory, env, stage)`` rules (when) and
    ``update(learner, batch)`` rules (what). The policies that hold a learner forward
    ``update(policy, trajectory, env, stage)`` to it.
    """

    @abc.abstractmethod
    def __call__(self, env):
        """The learner's estimate (state value or action values) for ``env`` now."""

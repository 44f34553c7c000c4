"""Train and test modes: ``with testmode(policy): ...`` makes a policy act greedily."""

import contextlib
import numbers

import attrs
import numpy as np
import torch

from rlcore.explorers.base import AbstractExplorer
from rlcore.trajectories.base import AbstractTrajectory

__all__ = ["testmode", "set_training"]


def _components(policy):
    """The explorers and torch modules reachable from ``policy`` (trajectories are skipped)."""
    explorers, modules, seen = [], [], set()
    stack = [policy]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or obj is None or isinstance(
                obj, (str, bytes, numbers.Number, np.ndarray, torch.Tensor, AbstractTrajectory,
                      type)):
            continue
        seen.add(id(obj))
        if isinstance(obj, torch.nn.Module):
            modules.extend(obj.modules())
            continue
        if isinstance(obj, AbstractExplorer):
            explorers.append(obj)
        if isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif attrs.has(type(obj)):
            stack.extend(getattr(obj, a.name) for a in attrs.fields(type(obj)))
        elif hasattr(obj, "__dict__"):
            stack.extend(vars(obj).values())
    return explorers, modules


def set_training(policy, is_training):
    """Switch every explorer and torch module reachable from ``policy`` to training
    (``True``) or test (``False``) mode; return the previous flags (for restoring)."""
    explorers, modules = _components(policy)
    previous = ([(e, e.is_training) for e in explorers], [(m, m.training) for m in modules])
    for e in explorers:
        e.is_training = is_training
    for m in modules:
        m.training = is_training
    return previous


@contextlib.contextmanager
def testmode(policy):
    """Inside the ``with`` block explorers are greedy and torch modules are in eval mode.

    The previous modes are restored on exit, also when the block raises.

    >>> from rlcore import RandomPolicy
    >>> with testmode(RandomPolicy()) as policy:
    ...     pass
    """
    explorer_flags, module_flags = set_training(policy, False)
    try:
        yield policy
    finally:
        for e, flag in explorer_flags:
            e.is_training = flag
        for m, flag in module_flags:
            m.training = flag
testmode.__test__ = False  # not a pytest test, though its name starts with "test"

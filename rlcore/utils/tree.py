"""Readable trees of nested components ("code as configuration", docs/architecture.md §6)."""

import numbers

import attrs
import numpy as np

__all__ = ["show_tree"]

_LEAF_TYPES = (str, bytes, numbers.Number, type(None), bool)
_OPAQUE_PACKAGES = frozenset({"gymnasium", "torch", "numpy", "pettingzoo", "ale_py", "matplotlib",
                              "stable_baselines3", "tianshou"})


def _children(obj):
    if attrs.has(type(obj)):
        return [(a.name, getattr(obj, a.name)) for a in attrs.fields(type(obj))
                if a.repr is not False and not a.name.startswith("_")]
    if isinstance(obj, (list, tuple)) and not all(isinstance(x, _LEAF_TYPES) for x in obj):
        return [(f"[{i}]", x) for i, x in enumerate(obj)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items()]
    if hasattr(obj, "__dict__") and type(obj).__module__.split(".")[0] not in _OPAQUE_PACKAGES:
        # Other classes show their public attributes; objects of the big libraries (a Gymnasium
        # env with its wrappers, a torch optimizer) are leaves shown by their repr.
        return [(k, v) for k, v in vars(obj).items() if not k.startswith("_")]
    return []


def _label(obj):
    if isinstance(obj, _LEAF_TYPES):
        return repr(obj)
    if isinstance(obj, np.ndarray):
        return f"ndarray(shape={obj.shape}, dtype={obj.dtype})"
    if isinstance(obj, np.random.Generator):
        return "numpy.random.Generator"
    try:
        import torch

        if isinstance(obj, torch.nn.Module):
            n = sum(p.numel() for p in obj.parameters())
            return f"{type(obj).__name__} ({n} parameters): " + " ".join(repr(obj).split())
        if isinstance(obj, torch.Tensor):
            return f"Tensor(shape={tuple(obj.shape)}, dtype={obj.dtype})"
    except ImportError:  # pragma: no cover - torch is a core dependency
        pass
    if isinstance(obj, (list, tuple)) and all(isinstance(x, _LEAF_TYPES) for x in obj):
        return repr(obj) if len(obj) <= 8 else f"{type(obj).__name__} of {len(obj)}"
    if callable(obj) and hasattr(obj, "__qualname__"):
        return obj.__qualname__
    if not _children(obj):
        text = repr(obj)
        return text if len(text) <= 100 else text[:97] + "..."
    return type(obj).__name__


def show_tree(obj, name=None, max_depth=8, max_children=20):
    """Return a text tree of ``obj``'s components and parameters.

    attrs classes show their fields; other objects their public attributes, except those of big
    libraries (Gymnasium, torch, numpy, ...), shown by their repr; numpy arrays and torch modules
    get a one-line summary.

    >>> from rlcore.hooks import StepsPerEpisode
    >>> print(show_tree(StepsPerEpisode(), name="hook"))
    hook => StepsPerEpisode
    ├─ steps => []
    └─ count => 0
    """
    lines = []
    seen = set()

    def walk(obj, name, prefix, child_prefix, depth):
        label = _label(obj)
        lines.append(f"{prefix}{name} => {label}" if name is not None else f"{prefix}{label}")
        if isinstance(obj, _LEAF_TYPES) or depth >= max_depth or id(obj) in seen:
            return
        seen.add(id(obj))
        kids = _children(obj) if label == type(obj).__name__ else []
        shown = kids[:max_children]
        for i, (k, v) in enumerate(shown):
            last = i == len(shown) - 1 and len(kids) <= max_children
            walk(v, k, child_prefix + ("└─ " if last else "├─ "),
                 child_prefix + ("   " if last else "│  "), depth + 1)
        if len(kids) > max_children:
            lines.append(f"{child_prefix}└─ ... {len(kids) - max_children} more")

    walk(obj, name, "", "", 0)
    return "\n".join(lines)

"""The registry of named experiments: ``@register`` a function, look it up by name.

A named experiment is a function ``NAME(seed=0, **overrides) -> Experiment`` whose overrides are
its keyword-only parameters with defaults (``steps``, ``lr``, ``device``, ...). The registry
checks names and override keys at the edge and fails with the list of valid ones.

>>> from rlzoo.experiments import registry
>>> "DQN_CartPole" in registry.names()
True
>>> registry.parameters("DQN_CartPole")["steps"]
30000
"""

import inspect

__all__ = ["register", "names", "describe", "get", "parameters", "make"]

_EXPERIMENTS = {}


def register(description):
    """Register the decorated function under its own name with a one-line ``description``."""
    def decorate(function):
        name = function.__name__
        if name in _EXPERIMENTS:
            raise ValueError(f"an experiment named {name!r} is already registered")
        _check_signature(function)
        function.description = description
        _EXPERIMENTS[name] = function
        return function
    return decorate


def _check_signature(function):
    parameters = list(inspect.signature(function).parameters.values())
    if not parameters or parameters[0].name != "seed":
        raise TypeError(f"{function.__name__} must take seed as its first parameter")
    for p in parameters[1:]:
        if p.kind is not inspect.Parameter.KEYWORD_ONLY or p.default is inspect.Parameter.empty:
            raise TypeError(f"{function.__name__}: override {p.name!r} must be keyword-only "
                            "with a default")


def _load():
    # importing the modules registers their experiments
    from rlzoo.experiments import (  # noqa: F401
        atari, cartpole, cfr, deep_cfr, exploitability_descent, independent, maddpg, minimax,
        mountain_car, mujoco, nfsp, pendulum, pg_atari, pg_cartpole, pg_mountain_car,
        pg_pendulum,
    )


def names():
    """The registered names, sorted."""
    _load()
    return sorted(_EXPERIMENTS)


def describe(name):
    """The one-line description of experiment ``name``."""
    return get(name).description


def get(name):
    """The experiment function registered as ``name``; ``KeyError`` lists the valid names."""
    _load()
    try:
        return _EXPERIMENTS[name]
    except KeyError:
        raise KeyError(f"unknown experiment {name!r}; valid names: "
                       f"{', '.join(sorted(_EXPERIMENTS))}") from None


def parameters(name):
    """The overridable parameters of ``name`` and their defaults, in declaration order."""
    signature = inspect.signature(get(name))
    return {p.name: p.default for p in list(signature.parameters.values())[1:]}


def make(name, seed=0, **overrides):
    """Build experiment ``name`` with ``seed`` and ``overrides``; an unknown override key
    raises ``TypeError`` listing the valid ones."""
    function = get(name)
    valid = parameters(name)
    unknown = sorted(set(overrides) - set(valid))
    if unknown:
        raise TypeError(f"{name} has no parameter {', '.join(map(repr, unknown))}; valid keys: "
                        f"{', '.join(valid)}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {seed!r}")
    return function(seed, **overrides)

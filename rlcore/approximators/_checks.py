"""Input validation shared by the approximators."""

import math
import numbers
import operator

import numpy as np

__all__ = ["index_in", "finite_real", "real_in", "positive_int", "optional_positive_int"]


def index_in(x, n, what, owner):
    """``x`` as a Python int in ``range(n)``; TypeError for a non-integer, ValueError if out."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{owner}: {what} must be an integer in [0, {n}), got {x!r}")
    try:
        index = operator.index(x)
    except TypeError:
        raise TypeError(
            f"{owner}: {what} must be an integer in [0, {n}), got {x!r} "
            f"({type(x).__name__}); a tabular approximator needs discrete states") from None
    if not 0 <= index < n:
        raise ValueError(f"{owner}: {what} must be in [0, {n}), got {x!r}")
    return index


def finite_real(x, what, owner):
    """``x`` (a real scalar: Python, numpy or 0-d torch) as a finite float, else raise."""
    if isinstance(x, (bool, np.bool_, str, bytes)) or getattr(x, "ndim", 0) != 0:
        raise TypeError(f"{owner}: {what} must be a real number, got {x!r}")
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{owner}: {what} must be a real number, got {x!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{owner}: {what} must be finite, got {value!r}")
    return value


def real_in(low, high, low_open=False, high_open=False):
    """An attrs validator: a real number in the interval from ``low`` to ``high``."""
    left, right = "(" if low_open else "[", ")" if high_open else "]"

    def check(instance, attribute, value):
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isnan(
            value)
        if ok:
            ok = (value > low if low_open else value >= low) and (
                value < high if high_open else value <= high)
        if not ok:
            raise ValueError(
                f"{attribute.name} must be a real number in {left}{low}, {high}{right}, "
                f"got {value!r}")
    return check


def positive_int(instance, attribute, value):
    """An attrs validator: an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{attribute.name} must be an integer >= 1, got {value!r}")


def optional_positive_int(instance, attribute, value):
    """An attrs validator: ``None`` or an integer >= 1."""
    if value is not None:
        positive_int(instance, attribute, value)

"""Validators and converters for user input, shared by the packages.

Each raises ``ValueError`` or ``TypeError`` with a message naming the offending value and what
was expected (STYLE.md 7). The ``instance, attribute, value`` functions are attrs validators.
"""

import math
import numbers
import operator

import numpy as np

__all__ = ["index_in", "finite_real", "real_in", "int_at_least", "non_negative_int",
           "positive_int", "optional_positive_int", "boolean", "one_of"]


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


def optional_positive_int(instance, attribute, value):
    """An attrs validator: ``None`` or an integer >= 1."""
    if value is not None:
        positive_int(instance, attribute, value)


def int_at_least(minimum):
    """An attrs validator: an integer (not a bool) >= ``minimum``."""
    def check(instance, attribute, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
            raise ValueError(f"{attribute.name} must be an integer >= {minimum}, got {value!r}")
    return check


non_negative_int = int_at_least(0)
positive_int = int_at_least(1)


def boolean(instance, attribute, value):
    """An attrs validator: a ``bool``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{attribute.name} must be a bool, got {value!r}")


def one_of(*choices):
    """An attrs validator: one of ``choices``."""
    def check(instance, attribute, value):
        if value not in choices:
            raise ValueError(f"{attribute.name} must be one of {choices!r}, got {value!r}")
    return check

"""Argument checks shared by the namespace modules (one wording for every function)."""

from __future__ import annotations

import operator
from typing import Any

from ._array import Array


class AxisError(ValueError, IndexError):
    """An axis outside ``[-ndim, ndim)``.

    Note: like NumPy's AxisError it is both a ValueError and an IndexError: the standard
    asks for IndexError from expand_dims, and NumPy users catch either.
    """


def what(x: Any) -> str:
    """The name of x's type for a TypeError; for a numr.autograd.Var, also the fix (the
    namespace takes Arrays; numr.autograd has the same functions for Vars)."""
    t = type(x)
    if t.__name__ == "Var" and t.__module__.startswith("numr.autograd"):
        return ("numr.autograd.Var; call numr.autograd's function of the same name, or pass "
                "var.value (no gradient)")
    if t.__module__ == "numpy" and t.__name__ == "ndarray":
        return "numpy.ndarray; convert it with numr.asarray(...) first"
    return t.__name__


def check_array(x: Any, func: str) -> Array:
    if type(x) is not Array:
        raise TypeError(f"{func}: expected a numr array, got {what(x)}")
    return x


def check_bool(value: Any, name: str, func: str) -> bool:
    if type(value) is not bool:
        raise TypeError(f"{func}: {name} must be a bool, got {value!r}")
    return value


def as_int(value: Any, what: str, func: str) -> int:
    """``value`` as a Python int: Python and NumPy integers (anything with __index__), not
    bool, whose meaning as a count or an axis would be a bug."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{func}: {what} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{func}: {what} must be an int, got {value!r}") from None


def normalize_axis(axis: Any, ndim: int, func: str, *, of: str = "an array") -> int:
    """``axis`` as a non-negative int; AxisError outside ``[-ndim, ndim)``."""
    a = as_int(axis, "axis", func)
    if not -ndim <= a < ndim:
        raise AxisError(f"{func}: axis {a} is out of range for {of} of {ndim} "
                        f"dimension{'' if ndim == 1 else 's'}")
    return a + ndim if a < 0 else a


def normalize_axes(axis: Any, ndim: int, func: str, *, unique: bool = True,
                   of: str = "an array") -> tuple[int, ...]:
    """None (every axis), an int or a sequence of ints as a tuple of non-negative axes,
    in the order given. A repeated axis is a ValueError unless ``unique`` is False."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(normalize_axis(a, ndim, func, of=of) for a in items)
    if unique and len(set(out)) != len(out):
        dup = next(a for a in out if out.count(a) > 1)
        raise ValueError(f"{func}: axis {dup} is repeated in axis={axis!r}")
    return out

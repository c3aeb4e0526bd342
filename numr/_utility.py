"""Utility functions: all, any, diff.

* all/any accept every dtype; NaN, infinities and complex numbers with a non-zero
  component count as true.
* diff: ``prepend``/``append`` are arrays shaped like ``x`` except along ``axis`` (or
  Python scalars, which stand for one value along ``axis``); ``x``, ``prepend`` and
  ``append`` are promoted to one dtype.
* Note: diff of a bool array gives a bool array (``x[i+1] != x[i]``), as in NumPy.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

from . import _dtypes as dt
from ._array import Array
from ._checks import (
    as_scalar as _as_scalar, check_array, mixed_devices as _mixed, normalize_axes,
    reduction_args as _reduction_args, scalar_operand_dtype,
)

__all__ = ["all", "any", "diff"]


def all(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        keepdims: bool = False) -> Array:
    """Whether every element over ``axis`` is true; True for zero elements."""
    axes = _reduction_args("all", x, axis, keepdims)
    return Array._new(x._device.ops.all(x._data, axis=axes, keepdims=keepdims), dt.bool,
                      x._device)


def any(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        keepdims: bool = False) -> Array:
    """Whether some element over ``axis`` is true; False for zero elements."""
    axes = _reduction_args("any", x, axis, keepdims)
    return Array._new(x._device.ops.any(x._data, axis=axes, keepdims=keepdims), dt.bool,
                      x._device)


def _check_n(n: Any) -> int:
    if type(n) is bool:
        raise TypeError(f"diff: n must be an int, got the bool {n!r}")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"diff: n must be an int, got {n!r}") from None
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    return n


def _check_edge(label: str, v: Any, x: Array, axis: int) -> Any:
    """``v`` (prepend or append) as an Array shaped like ``x`` off ``axis``, or a Python
    scalar."""
    if type(v) is Array:
        if v._device is not x._device:
            raise _mixed("diff", x._device, v._device)
        if v.ndim != x.ndim or builtins.any(
                m != k for i, (m, k) in enumerate(zip(v.shape, x.shape)) if i != axis):
            raise ValueError(f"diff: {label} has shape {v.shape}, but must match x's shape "
                             f"{x.shape} except along axis {axis}")
        return v
    s = _as_scalar(v)
    if s is None:
        raise TypeError(f"diff: {label} must be a numr array or a Python scalar, got "
                        f"{type(v).__name__}")
    return s


def diff(x: Array, /, *, axis: int = -1, n: int = 1, prepend: Array | None = None,
         append: Array | None = None) -> Array:
    """The ``n``-th forward difference along ``axis``, after attaching ``prepend`` and
    ``append``; the axis has ``M + N1 + N2 - n`` elements (none if that is negative)."""
    check_array(x, "diff")
    n = _check_n(n)
    if x.ndim == 0:
        raise ValueError("diff: x must have at least one dimension, got a 0-d array")
    if isinstance(axis, tuple):
        raise TypeError(f"diff: axis must be an int, got the tuple {axis!r}")
    (ax,) = normalize_axes(axis, x.ndim, "diff")
    edges = [None if v is None else _check_edge(label, v, x, ax)
             for label, v in (("prepend", prepend), ("append", append))]
    # One operand dtype: the arrays' promotion, then the Python scalars' rule against it.
    d = x._dtype
    for e in edges:
        if type(e) is Array:
            d = dt.PROMOTE[d, e._dtype]
    for e in edges:
        if e is not None and type(e) is not Array:
            d = scalar_operand_dtype("diff", d, e, x._device)
    # Python scalars go to the op as they are: each stands for one element along axis.
    pre, app = (_cast(e, d) if type(e) is Array else e for e in edges)
    r = x._device.ops.diff(_cast(x, d), axis=ax, n=n, prepend=pre, append=app)
    return Array._new(r, d, x._device)


def _cast(x: Array, d: dt.DType):
    return x._data if x._dtype is d else x._device.ops.astype(x._data, d, False)

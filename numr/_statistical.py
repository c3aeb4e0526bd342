"""Statistical functions: reductions (sum, prod, max, min, mean, var, std) and scans
(cumulative_sum, cumulative_prod).

Semantics decided here, identically for every device:

* ``axis`` is None (every axis), an int or a tuple of ints in ``[-ndim, ndim)``, without
  repeats; :func:`normalize_axes` checks it and hands the ops a tuple of non-negative ints.
* sum/prod/cumulative_*: with ``dtype=None``, bool and signed integers narrower than the
  device's default integer give the default integer, unsigned ones the unsigned integer
  of the same width; other dtypes are kept. ``dtype=`` overrides (any numeric dtype held
  by the device, except a real one for complex input, which would drop the imaginary part).
* Note: mean/var/std of bool or integer input are computed in the device's default real
  float, as NumPy does (the standard leaves integer input open).
* Note: var/std of complex input give the real dtype of the same precision, as in NumPy.
* max/min of a reduction over zero elements raise ValueError (NumPy does the same).
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any

from . import _dtypes as dt
from ._array import Array
from ._checks import (  # noqa: F401
    AxisError, accumulation_dtype, check_array, check_bool, check_dtype, normalize_axes,
    reduction_args as _reduction_args,
)

__all__ = ["cumulative_sum", "cumulative_prod", "max", "mean", "min", "prod", "std",
           "sum", "var"]

# ---------------------------------------------------------------------------------------
# Argument checks shared by the reductions
# ---------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------
# Dtypes
# ---------------------------------------------------------------------------------------

_INEXACT = ("float", "complex")
_new = object.__new__
_UINT_OF_SIZE = {1: dt.uint8, 2: dt.uint16, 4: dt.uint32, 8: dt.uint64}


def _float_input(x: Array):
    """(native, dtype) of ``x`` for mean/var/std: bool and integers in the default float."""
    d = x._dtype
    if d.kind in ("bool", "int", "uint"):
        f = x._device.defaults["real floating"]
        return x._device.ops.astype(x._data, f, False), f
    return x._data, d


# ---------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------

def sum(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: dt.DType | None = None,
        keepdims: bool = False) -> Array:
    """Sum of the elements over ``axis`` (every axis by default)."""
    if (type(x) is Array and axis is None and dtype is None and keepdims is False
            and x._dtype.kind in _INEXACT):
        # Fast path (call overhead is a measured goal): a float sum over everything,
        # Array._new written out.
        d, dev = x._dtype, x._device
        o = _new(Array)
        o._data = dev.ops.sum(x._data, None, d, False)  # (axis, dtype, keepdims)
        o._dtype = d
        o._device = dev
        return o
    axes = _reduction_args("sum", x, axis, keepdims)
    d = accumulation_dtype("sum", x, dtype)
    r = x._device.ops.sum(x._data, axis=axes, dtype=d, keepdims=keepdims)
    return Array._new(r, d, x._device)


def prod(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: dt.DType | None = None,
         keepdims: bool = False) -> Array:
    """Product of the elements over ``axis`` (every axis by default)."""
    axes = _reduction_args("prod", x, axis, keepdims)
    d = accumulation_dtype("prod", x, dtype)
    r = x._device.ops.prod(x._data, axis=axes, dtype=d, keepdims=keepdims)
    return Array._new(r, d, x._device)


def _extremum(func: str, x: Any, axis: Any, keepdims: Any) -> Array:
    axes = _reduction_args(func, x, axis, keepdims)
    if x._dtype.kind == "complex":
        # Complex numbers have no order the standard defines.
        raise TypeError(f"{func}: dtype {x._dtype} is not supported; expected a real "
                        f"numeric dtype")
    shape = x.shape
    for a in axes:
        if shape[a] == 0:
            raise ValueError(f"{func}: cannot reduce over axis {a} of size 0 (shape "
                             f"{shape}); the {func}imum of no elements is undefined")
    r = getattr(x._device.ops, func)(x._data, axis=axes, keepdims=keepdims)
    return Array._new(r, x._dtype, x._device)


def max(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        keepdims: bool = False) -> Array:
    """Largest element over ``axis``; NaN propagates.

    Note: bool input is accepted (the result is any-like), as in NumPy.
    """
    return _extremum("max", x, axis, keepdims)


def min(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        keepdims: bool = False) -> Array:
    """Smallest element over ``axis``; NaN propagates.

    Note: bool input is accepted (the result is all-like), as in NumPy.
    """
    return _extremum("min", x, axis, keepdims)


def mean(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
         dtype: dt.DType | None = None, keepdims: bool = False) -> Array:
    """Arithmetic mean over ``axis``; NaN for zero elements.

    ``dtype`` is an extension of the standard (NumPy's keyword; Cubed's var and std pass
    it to their chunk library): the floating-point dtype the mean is computed and
    returned in (complex for complex ``x``)."""
    axes = _reduction_args("mean", x, axis, keepdims)
    if dtype is None:
        a, d = _float_input(x)
    else:
        d = check_dtype(dtype, x._device, "mean")
        if d.kind not in ("float", "complex") or (x._dtype.kind == "complex"
                                                  and d.kind != "complex"):
            raise TypeError(f"mean: dtype must be a floating-point dtype (complex for "
                            f"complex x), got {d} for x of dtype {x._dtype}")
        a = x._data if x._dtype is d else x._device.ops.astype(x._data, d, False)
    return Array._new(x._device.ops.mean(a, axis=axes, keepdims=keepdims), d, x._device)


def _check_correction(func: str, correction: Any) -> int | float:
    t = type(correction)
    if t is float or t is int:  # (the ABC checks below cost a microsecond)
        return correction
    if t is bool or not isinstance(correction, numbers.Real):
        raise TypeError(f"{func}: correction must be an int or a float, got {correction!r}")
    return int(correction) if isinstance(correction, numbers.Integral) else float(correction)


def _moment(func: str, x: Any, axis: Any, correction: Any, keepdims: Any) -> Array:
    axes = _reduction_args(func, x, axis, keepdims)
    c = _check_correction(func, correction)
    a, d = _float_input(x)
    r = getattr(x._device.ops, func)(a, axis=axes, correction=c, keepdims=keepdims)
    return Array._new(r, dt.REAL_OF.get(d, d), x._device)


def var(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        correction: int | float = 0.0, keepdims: bool = False) -> Array:
    """Variance over ``axis`` with divisor ``M - correction``; NaN where that is <= 0."""
    return _moment("var", x, axis, correction, keepdims)


def std(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
        correction: int | float = 0.0, keepdims: bool = False) -> Array:
    """Standard deviation over ``axis`` with divisor ``M - correction``; NaN where that
    is <= 0."""
    return _moment("std", x, axis, correction, keepdims)


# ---------------------------------------------------------------------------------------
# Scans
# ---------------------------------------------------------------------------------------

def _scan(func: str, x: Any, axis: Any, dtype: Any, include_initial: Any) -> Array:
    check_array(x, func)
    check_bool(include_initial, "include_initial", func)
    if isinstance(axis, tuple):
        raise TypeError(f"{func}: axis must be an int or None, got the tuple {axis!r}")
    ndim = x.ndim
    if axis is None:
        if ndim > 1:
            raise ValueError(f"{func}: axis is required for an array of {ndim} dimensions")
        ax = 0
    else:
        # Note: a 0-d array scans as a one-element 1-D array (axis 0 or -1), as in NumPy.
        (ax,) = normalize_axes(axis, builtins.max(ndim, 1), func)
    d = accumulation_dtype(func, x, dtype)
    r = getattr(x._device.ops, func)(x._data, axis=ax, dtype=d, include_initial=include_initial)
    return Array._new(r, d, x._device)


def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: dt.DType | None = None,
                   include_initial: bool = False) -> Array:
    """Running sums along ``axis`` (optional for 1-D input), starting with 0 when
    ``include_initial``."""
    return _scan("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: dt.DType | None = None,
                    include_initial: bool = False) -> Array:
    """Running products along ``axis`` (optional for 1-D input), starting with 1 when
    ``include_initial``."""
    return _scan("cumulative_prod", x, axis, dtype, include_initial)

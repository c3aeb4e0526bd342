"""NaN-ignoring reductions: nansum, nanprod, nanmin, nanmax, nanmean, nanmedian,
nanargmin, nanargmax.

numr extensions (the standard has none of them; chunked-array libraries such as Cubed
call ``nansum`` on their backend namespace). They follow NumPy's semantics, including
all-NaN slices:

* nansum / nanprod: NaNs count as 0 / 1, so an all-NaN slice gives 0 / 1.
* nanmin / nanmax / nanmean / nanmedian: an all-NaN (or, for nanmean and nanmedian,
  empty) slice gives NaN and a ``RuntimeWarning``, as NumPy warns.
* nanargmin / nanargmax: an all-NaN slice is a ``ValueError``, as in NumPy.
* Bool and integer arrays hold no NaN: they reduce as sum, prod, min, max, mean,
  argmin and argmax do; nanmedian of them is computed in the device's default float.
* Complex input: nansum, nanprod and nanmean accept it (NaN in either part counts as
  NaN); the order-based ones refuse it (TypeError), as min and argmin do.

They are composed here, above the backends, from the namespace's own functions (isnan,
where, sum, sort, take_along_axis, ...), so every device has them at once with the same
dtypes and errors. Arguments are checked first, under the function's own name.
"""

from __future__ import annotations

import warnings
from typing import Any

from . import _dtypes as dt
from ._array import Array
from ._checks import check_array, check_bool, normalize_axes, normalize_axis
from ._creation import full
from ._data_type import astype
from ._elementwise import floor_divide, isnan, logical_not, maximum, minimum
from ._indexing import take_along_axis
from ._manipulation import permute_dims, reshape, squeeze
from ._searching import argmax, argmin, where
from ._sorting import sort
from ._statistical import accumulation_dtype, max, mean, min, prod, sum
from ._utility import all, any

__all__ = ["nanargmax", "nanargmin", "nanmax", "nanmean", "nanmedian", "nanmin", "nanprod",
           "nansum"]

_INEXACT = ("float", "complex")


def _args(func: str, x: Any, axis: Any, keepdims: Any) -> tuple[int, ...]:
    check_array(x, func)
    check_bool(keepdims, "keepdims", func)
    return normalize_axes(axis, x.ndim, func)


def _ordered(func: str, x: Array) -> None:
    if x._dtype.kind == "complex":
        raise TypeError(f"{func}: dtype {x._dtype} is not supported; complex numbers are "
                        f"not ordered; expected a real numeric dtype")


def _warn(func: str, what: str) -> None:
    warnings.warn(f"{func}: {what}", RuntimeWarning, stacklevel=3)


def _replaced(x: Array, value: float) -> Array:
    """``x`` with its NaNs replaced by ``value`` (x itself when it holds no NaN kind)."""
    if x._dtype.kind not in _INEXACT:
        return x
    return where(isnan(x), value, x)


# ---------------------------------------------------------------------------------------
# nansum, nanprod
# ---------------------------------------------------------------------------------------

def nansum(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: Any = None,
           keepdims: bool = False) -> Array:
    """Sum over ``axis`` with NaNs counted as zero (the dtype rules of ``sum``)."""
    _args("nansum", x, axis, keepdims)
    accumulation_dtype("nansum", x, dtype)
    return sum(_replaced(x, 0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: Any = None,
            keepdims: bool = False) -> Array:
    """Product over ``axis`` with NaNs counted as one (the dtype rules of ``prod``)."""
    _args("nanprod", x, axis, keepdims)
    accumulation_dtype("nanprod", x, dtype)
    return prod(_replaced(x, 1), axis=axis, dtype=dtype, keepdims=keepdims)


# ---------------------------------------------------------------------------------------
# nanmin, nanmax
# ---------------------------------------------------------------------------------------

def _nan_extremum(func: str, x: Any, axis: Any, keepdims: Any) -> Array:
    axes = _args(func, x, axis, keepdims)
    _ordered(func, x)
    for a in axes:
        if x.shape[a] == 0:
            raise ValueError(f"{func}: cannot reduce over axis {a} of size 0 (shape "
                             f"{x.shape}); the extremum of no elements is undefined")
    reduce = min if func == "nanmin" else max
    if x._dtype.kind != "float":
        return reduce(x, axis=axis, keepdims=keepdims)
    nan = isnan(x)
    r = reduce(where(nan, float("inf") if func == "nanmin" else -float("inf"), x),
               axis=axis, keepdims=keepdims)
    all_nan = all(nan, axis=axis, keepdims=keepdims)
    if any(all_nan):
        _warn(func, "All-NaN slice encountered")
        r = where(all_nan, float("nan"), r)
    return r


def nanmin(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
           keepdims: bool = False) -> Array:
    """Smallest non-NaN element over ``axis``; NaN (with a RuntimeWarning) where a
    slice is all NaN."""
    return _nan_extremum("nanmin", x, axis, keepdims)


def nanmax(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
           keepdims: bool = False) -> Array:
    """Largest non-NaN element over ``axis``; NaN (with a RuntimeWarning) where a
    slice is all NaN."""
    return _nan_extremum("nanmax", x, axis, keepdims)


# ---------------------------------------------------------------------------------------
# nanmean, nanmedian
# ---------------------------------------------------------------------------------------

def nanmean(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
            keepdims: bool = False) -> Array:
    """Mean of the non-NaN elements over ``axis`` (the dtype rules of ``mean``); NaN
    (with a RuntimeWarning) where a slice has none."""
    _args("nanmean", x, axis, keepdims)
    if x._dtype.kind not in _INEXACT:
        return mean(x, axis=axis, keepdims=keepdims)
    nan = isnan(x)
    count = sum(logical_not(nan), axis=axis, keepdims=keepdims)
    total = sum(where(nan, 0, x), axis=axis, keepdims=keepdims)
    none = count == 0
    real = dt.REAL_OF.get(x._dtype, x._dtype)
    # Divide by at least one, then put NaN where there was nothing: a 0/0 would also
    # raise the CPU backend's own warning.
    r = total / astype(maximum(count, 1), real)
    if any(none):
        _warn("nanmean", "Mean of empty slice")
        r = where(none, float("nan"), r)
    return r


def nanmedian(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
              keepdims: bool = False) -> Array:
    """Median of the non-NaN elements over ``axis`` (the mean of the two middle ones for
    an even count); NaN (with a RuntimeWarning) where a slice has none. Bool and integer
    input is computed in the device's default float, as NumPy does."""
    axes = _args("nanmedian", x, axis, keepdims)
    _ordered("nanmedian", x)
    if x._dtype.kind != "float":
        x = astype(x, x._device.defaults["real floating"])
    kept = tuple(a for a in range(x.ndim) if a not in axes)
    out_shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape)) if keepdims \
        else tuple(x.shape[a] for a in kept)
    m = 1
    for a in axes:
        m *= x.shape[a]
    if m == 0:
        _warn("nanmedian", "Mean of empty slice")
        return full(out_shape, float("nan"), dtype=x._dtype, device=x._device)
    # The reduced axes last, as one axis of length m; NaNs sort to its end.
    rows = reshape(permute_dims(x, kept + axes), tuple(x.shape[a] for a in kept) + (m,))
    s = sort(rows, axis=-1)
    count = sum(logical_not(isnan(rows)), axis=-1, keepdims=True)
    lo_i = maximum(floor_divide(count - 1, 2), 0)
    hi_i = minimum(floor_divide(count, 2), m - 1)
    lo = take_along_axis(s, lo_i, axis=-1)
    hi = take_along_axis(s, hi_i, axis=-1)
    # An odd count takes its middle element as it is ((v + v) / 2 could overflow).
    med = squeeze(where(lo_i == hi_i, lo, (lo + hi) / 2), axis=-1)
    none = squeeze(count == 0, axis=-1)
    if any(none):
        _warn("nanmedian", "All-NaN slice encountered")
        med = where(none, float("nan"), med)
    return reshape(med, out_shape)


# ---------------------------------------------------------------------------------------
# nanargmin, nanargmax
# ---------------------------------------------------------------------------------------

def _nan_arg_extreme(func: str, x: Any, axis: Any, keepdims: Any) -> Array:
    check_array(x, func)
    check_bool(keepdims, "keepdims", func)
    _ordered(func, x)
    if axis is None:
        empty = x.size == 0
    else:
        axis = normalize_axis(axis, x.ndim, func)
        empty = x.shape[axis] == 0
    if empty:
        raise ValueError(f"{func}: cannot search an empty array (shape {x.shape}"
                         f"{'' if axis is None else f', axis {axis}'})")
    search = argmin if func == "nanargmin" else argmax
    if x._dtype.kind != "float":
        return search(x, axis=axis, keepdims=keepdims)
    nan = isnan(x)
    if any(all(nan, axis=axis)):
        raise ValueError(f"{func}: All-NaN slice encountered (shape {x.shape}"
                         f"{'' if axis is None else f', axis {axis}'})")
    fill = float("inf") if func == "nanargmin" else -float("inf")
    return search(where(nan, fill, x), axis=axis, keepdims=keepdims)


def nanargmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first smallest non-NaN element; ValueError for an all-NaN slice."""
    return _nan_arg_extreme("nanargmin", x, axis, keepdims)


def nanargmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first largest non-NaN element; ValueError for an all-NaN slice."""
    return _nan_arg_extreme("nanargmax", x, axis, keepdims)

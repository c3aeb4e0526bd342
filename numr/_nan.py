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
dtypes and errors. Arguments are checked first, under the function's own name; the
compositions take the namespace as an argument, so numr.autograd differentiates them by
replaying them with its own functions (``COMPOSED``).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from . import _dtypes as dt
from ._array import Array
from ._checks import accumulation_dtype, check_array, check_bool, normalize_axes, search_axis

__all__ = ["nanargmax", "nanargmin", "nanmax", "nanmean", "nanmedian", "nanmin", "nanprod",
           "nansum"]

_INF = float("inf")
_NAN = float("nan")


def _numr():
    import numr

    return numr


def _args(func: str, x: Any, axis: Any, keepdims: Any) -> tuple[int, ...]:
    check_array(x, func)
    check_bool(keepdims, "keepdims", func)
    return normalize_axes(axis, x.ndim, func)


def _ordered(func: str, x: Array) -> None:
    if x.dtype.kind == "complex":
        raise TypeError(f"{func}: dtype {x.dtype} is not supported; complex numbers are "
                        f"not ordered; expected a real numeric dtype")


def _warn(func: str, what: str) -> None:
    warnings.warn(f"{func}: {what}", RuntimeWarning, stacklevel=4)


def _inexact(xp, x) -> bool:
    return xp.isdtype(x.dtype, ("real floating", "complex floating"))


# ---------------------------------------------------------------------------------------
# The compositions, for a namespace xp (numr, or numr.autograd replaying them)
# ---------------------------------------------------------------------------------------

def _nansum(xp, x, /, *, axis=None, dtype=None, keepdims=False, warn=True):
    y = xp.where(xp.isnan(x), 0, x) if _inexact(xp, x) else x
    return xp.sum(y, axis=axis, dtype=dtype, keepdims=keepdims)


def _nanprod(xp, x, /, *, axis=None, dtype=None, keepdims=False, warn=True):
    y = xp.where(xp.isnan(x), 1, x) if _inexact(xp, x) else x
    return xp.prod(y, axis=axis, dtype=dtype, keepdims=keepdims)


def _extremum(name: str) -> Callable:
    def composed(xp, x, /, *, axis=None, keepdims=False, warn=True):
        reduce = xp.min if name == "nanmin" else xp.max
        if not _inexact(xp, x):
            return reduce(x, axis=axis, keepdims=keepdims)
        nan = xp.isnan(x)
        r = reduce(xp.where(nan, _INF if name == "nanmin" else -_INF, x), axis=axis,
                   keepdims=keepdims)
        all_nan = xp.all(nan, axis=axis, keepdims=keepdims)
        if xp.any(all_nan):
            if warn:
                _warn(name, "All-NaN slice encountered")
            r = xp.where(all_nan, _NAN, r)
        return r
    return composed


def _nanmean(xp, x, /, *, axis=None, keepdims=False, warn=True):
    if not _inexact(xp, x):
        return xp.mean(x, axis=axis, keepdims=keepdims)
    nan = xp.isnan(x)
    count = xp.sum(xp.logical_not(nan), axis=axis, keepdims=keepdims)
    total = xp.sum(xp.where(nan, 0, x), axis=axis, keepdims=keepdims)
    # Divide by at least one, then put NaN where there was nothing: a 0/0 would also
    # raise the CPU backend's own warning.
    r = total / xp.astype(xp.maximum(count, 1), xp.finfo(x.dtype).dtype)
    none = count == 0
    if xp.any(none):
        if warn:
            _warn("nanmean", "Mean of empty slice")
        r = xp.where(none, _NAN, r)
    return r


def _nanmedian(xp, x, /, *, axis=None, keepdims=False, warn=True):
    ndim = x.ndim
    axes = normalize_axes(axis, ndim, "nanmedian")
    if not xp.isdtype(x.dtype, "real floating"):
        x = xp.astype(x, xp.__array_namespace_info__().default_dtypes(
            device=x.device)["real floating"])
    kept = tuple(a for a in range(ndim) if a not in axes)
    out_shape = (tuple(1 if a in axes else n for a, n in enumerate(x.shape)) if keepdims
                 else tuple(x.shape[a] for a in kept))
    m = 1
    for a in axes:
        m *= x.shape[a]
    if m == 0:
        if warn:
            _warn("nanmedian", "Mean of empty slice")
        return xp.full(out_shape, _NAN, dtype=x.dtype, device=x.device)
    # The reduced axes last, as one axis of length m; NaNs sort to its end.
    rows = xp.reshape(xp.permute_dims(x, kept + axes), tuple(x.shape[a] for a in kept) + (m,))
    s = xp.sort(rows, axis=-1)
    count = xp.sum(xp.logical_not(xp.isnan(rows)), axis=-1, keepdims=True)
    lo_i = xp.maximum(xp.floor_divide(count - 1, 2), 0)
    hi_i = xp.minimum(xp.floor_divide(count, 2), m - 1)
    lo = xp.take_along_axis(s, lo_i, axis=-1)
    hi = xp.take_along_axis(s, hi_i, axis=-1)
    # An odd count takes its middle element as it is ((v + v) / 2 could overflow).
    med = xp.squeeze(xp.where(lo_i == hi_i, lo, (lo + hi) / 2), axis=-1)
    none = xp.squeeze(count == 0, axis=-1)
    if xp.any(none):
        if warn:
            _warn("nanmedian", "All-NaN slice encountered")
        med = xp.where(none, _NAN, med)
    return xp.reshape(med, out_shape)


def _arg_extreme(name: str) -> Callable:
    def composed(xp, x, /, *, axis=None, keepdims=False, warn=True):
        search = xp.argmin if name == "nanargmin" else xp.argmax
        if not _inexact(xp, x):
            return search(x, axis=axis, keepdims=keepdims)
        nan = xp.isnan(x)
        if xp.any(xp.all(nan, axis=axis)):
            raise ValueError(f"{name}: All-NaN slice encountered (shape {x.shape}"
                             f"{'' if axis is None else f', axis {axis}'})")
        return search(xp.where(nan, _INF if name == "nanargmin" else -_INF, x), axis=axis,
                      keepdims=keepdims)
    return composed


COMPOSED: dict[str, Callable] = {
    "nansum": _nansum, "nanprod": _nanprod, "nanmin": _extremum("nanmin"),
    "nanmax": _extremum("nanmax"), "nanmean": _nanmean, "nanmedian": _nanmedian,
    "nanargmin": _arg_extreme("nanargmin"), "nanargmax": _arg_extreme("nanargmax"),
}


def replay(name: str) -> Callable:
    """``name``'s composition for numr.autograd's replay (without warnings)."""
    impl = COMPOSED[name]
    return lambda xp, x, /, **kwargs: impl(xp, x, warn=False, **kwargs)


# ---------------------------------------------------------------------------------------
# The public functions: argument checks under their own names, then the composition
# ---------------------------------------------------------------------------------------

def nansum(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
           dtype: dt.DType | None = None, keepdims: bool = False) -> Array:
    """Sum over ``axis`` with NaNs counted as zero (the dtype rules of ``sum``)."""
    _args("nansum", x, axis, keepdims)
    accumulation_dtype("nansum", x, dtype)
    return _nansum(_numr(), x, axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
            dtype: dt.DType | None = None, keepdims: bool = False) -> Array:
    """Product over ``axis`` with NaNs counted as one (the dtype rules of ``prod``)."""
    _args("nanprod", x, axis, keepdims)
    accumulation_dtype("nanprod", x, dtype)
    return _nanprod(_numr(), x, axis=axis, dtype=dtype, keepdims=keepdims)


def _checked_extremum(func: str, x: Any, axis: Any, keepdims: Any) -> Array:
    axes = _args(func, x, axis, keepdims)
    _ordered(func, x)
    for a in axes:
        if x.shape[a] == 0:
            raise ValueError(f"{func}: cannot reduce over axis {a} of size 0 (shape "
                             f"{x.shape}); the extremum of no elements is undefined")
    return COMPOSED[func](_numr(), x, axis=axis, keepdims=keepdims)


def nanmin(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
           keepdims: bool = False) -> Array:
    """Smallest non-NaN element over ``axis``; NaN (with a RuntimeWarning) where a
    slice is all NaN."""
    return _checked_extremum("nanmin", x, axis, keepdims)


def nanmax(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
           keepdims: bool = False) -> Array:
    """Largest non-NaN element over ``axis``; NaN (with a RuntimeWarning) where a
    slice is all NaN."""
    return _checked_extremum("nanmax", x, axis, keepdims)


def nanmean(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
            keepdims: bool = False) -> Array:
    """Mean of the non-NaN elements over ``axis`` (the dtype rules of ``mean``); NaN
    (with a RuntimeWarning) where a slice has none."""
    _args("nanmean", x, axis, keepdims)
    return _nanmean(_numr(), x, axis=axis, keepdims=keepdims)


def nanmedian(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
              keepdims: bool = False) -> Array:
    """Median of the non-NaN elements over ``axis`` (the mean of the two middle ones for
    an even count); NaN (with a RuntimeWarning) where a slice has none. Bool and integer
    input is computed in the device's default float, as NumPy does."""
    _args("nanmedian", x, axis, keepdims)
    _ordered("nanmedian", x)
    return _nanmedian(_numr(), x, axis=axis, keepdims=keepdims)


def _checked_arg_extreme(func: str, x: Any, axis: Any, keepdims: Any) -> Array:
    axis = search_axis(func, x, axis, keepdims)
    return COMPOSED[func](_numr(), x, axis=axis, keepdims=keepdims)


def nanargmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first smallest non-NaN element; ValueError for an all-NaN slice."""
    return _checked_arg_extreme("nanargmin", x, axis, keepdims)


def nanargmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first largest non-NaN element; ValueError for an all-NaN slice."""
    return _checked_arg_extreme("nanargmax", x, axis, keepdims)

"""Searching functions: argmax, argmin, count_nonzero, nonzero, searchsorted, where.

Index results have the device's default indexing dtype. Note: functions that compare
values (argmax, argmin, searchsorted) accept bool and real numeric dtypes; complex
numbers have no order in the standard, so they are a TypeError on every device.
"""

from __future__ import annotations

from typing import Any, Literal

from . import _dtypes as dt
from ._array import Array
from ._creation import asarray
from ._dtypes import PROMOTE
from . import _ranges
from ._checks import (  # noqa: F401
    as_scalar as _as_scalar, broadcast_shape, cast as _cast, check_array, check_flag as check_bool,
    mixed_devices as _mixed, normalize_axes, normalize_axis, ordered as _ordered, scalar_operand_dtype,
    search_axis,
)

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


def _indices(data: Any, dev: Any) -> Array:
    return Array._new(data, dev.defaults["indexing"], dev)


def _arg_extreme(func: str, x: Array, axis: int | None, keepdims: bool) -> Array:
    axis = search_axis(func, x, axis, keepdims)
    dev = x._device
    r = _indices(getattr(dev.ops, func)(x._data, axis=axis, keepdims=keepdims), dev)
    return _ranges.note(r, 0, (x.size if axis is None else x.shape[axis]) - 1)


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first maximum (of the flattened array when ``axis`` is None)."""
    return _arg_extreme("argmax", x, axis, keepdims)


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first minimum (of the flattened array when ``axis`` is None)."""
    return _arg_extreme("argmin", x, axis, keepdims)


def count_nonzero(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
                  keepdims: bool = False) -> Array:
    """The number of non-zero (for bool: True) elements along ``axis`` (all axes if None)."""
    check_array(x, "count_nonzero")
    check_bool(keepdims, "keepdims", "count_nonzero")
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim,
                                                                    "count_nonzero")
    dev = x._device
    return _indices(dev.ops.count_nonzero(x._data, axis=axes, keepdims=keepdims), dev)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """The indices of the non-zero elements, one array per axis, in row-major order."""
    check_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero: not defined for a 0-d array; use nonzero(reshape(x, (1,)))")
    dev = x._device
    return tuple(_ranges.note(_indices(r, dev), 0, n - 1)
                 for r, n in zip(dev.ops.nonzero(x._data), x.shape))


def searchsorted(x1: Array, x2: Array | int | float, /, *,
                 side: Literal["left", "right"] = "left", sorter: Array | None = None) -> Array:
    """Where to insert ``x2``'s elements into the ascending 1-D ``x1`` to keep it sorted.

    ``x1`` and ``x2`` are compared in their promoted dtype.
    """
    _ordered(x1, "searchsorted")
    dev = x1._device
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-D, got shape {x1.shape}")
    if type(x2) is Array:
        if x2._device is not dev:
            raise _mixed("searchsorted", dev, x2._device)
        _ordered(x2, "searchsorted")
        d = PROMOTE[x1._dtype, x2._dtype]
        v = x2._data if x2._dtype is d else dev.ops.astype(x2._data, d, False)
    else:
        v = _as_scalar(x2)
        if v is None or type(v) is complex:
            raise TypeError(f"searchsorted: x2 must be a numr array or a real Python "
                            f"scalar, got {x2!r}")
        d = scalar_operand_dtype("searchsorted", x1._dtype, v, dev)
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if sorter is not None:
        sorter = _sorter(sorter, x1, dev)
    a = x1._data if x1._dtype is d else dev.ops.astype(x1._data, d, False)
    r = _indices(dev.ops.searchsorted(a, v, side=side, sorter=sorter), dev)
    return _ranges.note(r, 0, x1.shape[0])


def _sorter(sorter: Any, x1: Array, dev: Any) -> Any:
    """sorter's data in the device's indexing dtype, after checking it."""
    if type(sorter) is not Array:
        raise TypeError(f"searchsorted: sorter must be a numr array or None, got "
                        f"{type(sorter).__name__}")
    if sorter._device is not dev:
        raise _mixed("searchsorted", dev, sorter._device)
    if sorter._dtype.kind not in ("int", "uint"):
        raise TypeError(f"searchsorted: sorter must have an integer dtype, got {sorter._dtype}")
    if sorter.shape != x1.shape:
        raise ValueError(f"searchsorted: sorter has shape {sorter.shape}, but x1 has "
                         f"shape {x1.shape}")
    n = x1.shape[0]
    if n:
        # Checked here (a sync on a GPU), since CuPy would read out of bounds silently.
        from ._statistical import max as amax, min as amin

        lo, hi = int(amin(sorter)), int(amax(sorter))
        if lo < 0 or hi >= n:
            raise IndexError(f"searchsorted: sorter holds index {lo if lo < 0 else hi}, "
                             f"outside [0, {n})")
    index = dev.defaults["indexing"]
    return sorter._data if sorter._dtype is index else dev.ops.astype(sorter._data, index, False)


def where(condition: Array, x1: Array | bool | int | float | complex,
          x2: Array | bool | int | float | complex, /) -> Array:
    """Elements of ``x1`` where ``condition`` is True, of ``x2`` elsewhere (broadcast).

    The result dtype follows the promotion table, or the rules for a Python scalar with
    an array.
    """
    if type(condition) is Array and type(x1) is Array and type(x2) is Array:
        # the common case, checked in a few tests: one device, one dtype, a bool
        # condition, equal shapes (nothing to promote, cast or broadcast)
        dev, d = condition._device, x1._dtype
        c, a, b = condition._data, x1._data, x2._data
        if (x1._device is dev and x2._device is dev and x2._dtype is d
                and condition._dtype is dt.bool and c.shape == a.shape == b.shape):
            return Array._new(dev.ops.where(c, a, b), d, dev)
    check_array(condition, "where")
    dev = condition._device
    arrays = [a for a in (x1, x2) if type(a) is Array]
    for a in arrays:
        if a._device is not dev:
            raise _mixed("where", dev, a._device)
    if not arrays:
        # Note: the standard asks for at least one array; NumPy users write
        # where(c, 1, 0), so the first scalar takes the device's default dtype.
        x1 = _scalar_array(x1, dev)
    operands, d = _where_operands(x1, x2, dev)
    broadcast_shape([condition.shape] + [a.shape for a in (x1, x2) if type(a) is Array],
                    "where")
    c = condition._data
    if condition._dtype is not dt.bool:
        # Note: like NumPy, a non-bool condition means "non-zero".
        c = dev.ops.astype(c, dt.bool, False)
    return Array._new(dev.ops.where(c, *operands), d, dev)


def _where_operands(x1: Any, x2: Any, dev: Any) -> tuple[list, dt.DType]:
    """The operands of where in their common dtype (Python scalars left as they are)."""
    if type(x1) is Array and type(x2) is Array:
        d = PROMOTE[x1._dtype, x2._dtype]
        return [_cast(x1, d), _cast(x2, d)], d
    array, other, first = (x1, x2, True) if type(x1) is Array else (x2, x1, False)
    s = _as_scalar(other)
    if s is None:
        raise TypeError(f"where: x1 and x2 must be numr arrays or Python scalars, got "
                        f"{type(other).__name__}")
    d = scalar_operand_dtype("where", array._dtype, s, dev)
    a = _cast(array, d)
    return ([a, s] if first else [s, a]), d


def _scalar_array(value: Any, dev: Any) -> Array:
    """A 0-d array of a Python scalar, in the device's default dtype for its kind."""
    s = _as_scalar(value)
    if s is None:
        raise TypeError(f"where: x1 and x2 must be numr arrays or Python scalars, got "
                        f"{type(value).__name__}")
    kind = {bool: None, int: "integral", float: "real floating",
            complex: "complex floating"}[type(s)]
    d = dt.bool if kind is None else dev.defaults[kind]
    if d.kind == "int" and not dt.INT_RANGE[d][0] <= s <= dt.INT_RANGE[d][1]:
        raise OverflowError(f"where: Python int {s} is out of range for {d}")
    return asarray(s, dtype=d, device=dev)

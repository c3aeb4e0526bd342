"""Sorting functions: sort and argsort (stable by default, either direction).

Note: bool arrays sort with False before True, as in NumPy; complex arrays have no order
in the standard and are a TypeError on every device. NaNs count as larger than every
number: last in an ascending sort, first in a descending one. A descending sort keeps
equal elements in their original order when ``stable`` is True.
"""

from __future__ import annotations

from ._array import Array
from . import _ranges
from ._checks import check_flag as check_bool, normalize_axis, ordered as _ordered

__all__ = ["argsort", "sort"]


def _prepare(func: str, x: Array, axis: int, descending: bool, stable: bool) -> int:
    _ordered(x, func)
    check_bool(descending, "descending", func)
    check_bool(stable, "stable", func)
    return normalize_axis(axis, x.ndim, func)


def sort(x: Array, /, *, axis: int = -1, descending: bool = False,
         stable: bool = True) -> Array:
    """A sorted copy of ``x`` along ``axis``."""
    axis = _prepare("sort", x, axis, descending, stable)
    data = x._device.ops.sort(x._data, axis=axis, descending=descending, stable=stable)
    return Array._new(data, x._dtype, x._device)


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Array:
    """The indices that sort ``x`` along ``axis``, in the default indexing dtype."""
    axis = _prepare("argsort", x, axis, descending, stable)
    dev = x._device
    data = dev.ops.argsort(x._data, axis=axis, descending=descending, stable=stable)
    r = Array._new(data, dev.defaults["indexing"], dev)
    return _ranges.note(r, 0, x.shape[axis] - 1) if x.ndim else r

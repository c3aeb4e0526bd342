"""Set functions: isin and the unique_* family.

* unique_*: ``x`` is flattened; values come sorted (NaN last); each NaN is its own value
  (NaNs are never equal) and -0.0 and +0.0 are one value. Indices and counts have the
  device's default index dtype; ``inverse_indices`` has ``x``'s shape.
* isin: ``x1`` and ``x2`` are arrays or Python scalars (at least one an array), compared
  in their promoted dtype as ``equal`` would compare them; the result has ``x1``'s shape.
  Note: every dtype is accepted, not only integers, as in NumPy.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import _dtypes as dt
from ._array import Array
from . import _ranges
from ._checks import (
    as_scalar as _as_scalar, check_array, check_bool, mixed_devices as _mixed, scalar_operand_dtype,
)

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _wrap(x: Array, values: Any, *index_arrays: Any) -> tuple:
    """The op's native results as Arrays: values in x's dtype, the rest index arrays."""
    dev = x._device
    index = dev.defaults["indexing"]
    return (Array._new(values, x._dtype, dev),
            *(Array._new(a, index, dev) for a in index_arrays))


def unique_all(x: Array, /) -> UniqueAllResult:
    """The unique values of ``x``, the index of each one's first occurrence, the indices
    that rebuild ``x`` from them, and how often each occurs."""
    check_array(x, "unique_all")
    values, indices, inverse, counts = _wrap(x, *x._device.ops.unique_all(x._data))
    # (indices into the flattened x and into values: bounds known, see _ranges)
    _ranges.note(indices, 0, x.size - 1)
    _ranges.note(inverse, 0, values.shape[0] - 1)
    return UniqueAllResult(values, indices, inverse, counts)


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """The unique values of ``x`` and how often each occurs."""
    check_array(x, "unique_counts")
    return UniqueCountsResult(*_wrap(x, *x._device.ops.unique_counts(x._data)))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """The unique values of ``x`` and the indices (shaped like ``x``) that rebuild it."""
    check_array(x, "unique_inverse")
    values, inverse = _wrap(x, *x._device.ops.unique_inverse(x._data))
    return UniqueInverseResult(values, _ranges.note(inverse, 0, values.shape[0] - 1))


def unique_values(x: Array, /) -> Array:
    """The unique values of ``x``, as a 1-D array."""
    check_array(x, "unique_values")
    return Array._new(x._device.ops.unique_values(x._data), x._dtype, x._device)


def _scalar(v: Any) -> Any:
    s = _as_scalar(v)
    if s is None:
        raise TypeError(f"isin: expected a numr array or a Python scalar, got "
                        f"{type(v).__name__}")
    return s


def _cast(x: Array, d: dt.DType) -> Any:
    return x._data if x._dtype is d else x._device.ops.astype(x._data, d, False)


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """For each element of ``x1``, whether it equals some element of ``x2`` (or, with
    ``invert=True``, none)."""
    check_bool(invert, "invert", "isin")
    a1, a2 = type(x1) is Array, type(x2) is Array
    if a1 and a2:
        if x1._device is not x2._device:
            raise _mixed("isin", x1._device, x2._device)
        dev = x1._device
        d = dt.PROMOTE[x1._dtype, x2._dtype]
        n1, n2 = _cast(x1, d), _cast(x2, d)
    elif a1:
        dev = x1._device
        n2 = _scalar(x2)
        d = scalar_operand_dtype("isin", x1._dtype, n2, dev)
        n1 = _cast(x1, d)
    elif a2:
        dev = x2._device
        n1 = _scalar(x1)
        d = scalar_operand_dtype("isin", x2._dtype, n1, dev)
        n2 = _cast(x2, d)
    else:
        raise TypeError(f"isin: expected at least one numr array, got {type(x1).__name__} "
                        f"and {type(x2).__name__}")
    # A Python scalar x1 gives a 0-d result.
    return Array._new(dev.ops.isin(n1, n2, invert=invert), dt.bool, dev)

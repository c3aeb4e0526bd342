"""Indexing: key validation for ``x[key]`` and ``x[key] = value``, take, take_along_axis.

numr checks every key before a backend sees it, so out-of-bounds indices raise the same
IndexError on every device (CuPy would otherwise wrap around silently). Backends receive
a normalised key: a tuple with no Ellipsis, holding non-negative in-bounds ints, slices,
None, and native integer or bool arrays (integer arrays already bounds-checked).

Note: like NumPy, keys may also hold lists of ints/bools (converted to arrays on the
array's device) and integer arrays may be used in ``__setitem__`` (where an index
repeats, which write wins is unspecified, as in NumPy).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._array import Array
from ._checks import AxisError, as_scalar as _as_scalar, check_writable, scalar_operand_dtype
from ._dtypes import PROMOTE
from . import _ranges

__all__ = ["take", "take_along_axis"]


# ---------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------

def getitem(x: Array, key: Any) -> Array:
    t = type(key)
    data = x._data
    # Fast paths: one int or one slice on the first axis.
    if t is slice and data.ndim:
        return Array._new(x._device.ops.getitem(data, key), x._dtype, x._device)
    if t is int and data.ndim:
        size = data.shape[0]
        if not -size <= key < size:
            raise IndexError(f"getitem: index {key} is out of bounds for axis 0 with size {size}")
        key = key if key >= 0 else key + size
        return Array._new(x._device.ops.getitem(data, key), x._dtype, x._device)
    if (t is Array and data.ndim and key._device is x._device
            and key._dtype.kind in ("int", "uint")):
        # one integer index array (rows by index): normalize_key's steps for it
        k = _checked_indices(key, data.shape[0], 0, "getitem")
        return Array._new(x._device.ops.getitem(data, (k,)), x._dtype, x._device)
    key = normalize_key(x, key, "getitem")
    return Array._new(x._device.ops.getitem(data, key), x._dtype, x._device)


def setitem(x: Array, key: Any, value: Any) -> None:
    dev = x._device
    # one slice on the first axis needs no normalising (as in getitem)
    key = (key,) if type(key) is slice and x._data.ndim else normalize_key(x, key, "setitem")
    if type(value) is Array:
        if value._device is not dev:
            raise ValueError(f"setitem: the value is on {value._device} but the array is on {dev}")
        if PROMOTE[x._dtype, value._dtype] is not x._dtype:
            raise TypeError(f"setitem: a value of dtype {value._dtype} cannot be stored in an "
                            f"array of dtype {x._dtype} without changing its dtype")
        v = value._data if value._dtype is x._dtype else dev.ops.astype(value._data, x._dtype, False)
    else:
        v = _as_scalar(value)
        if v is None:
            raise TypeError(f"setitem: the value must be a numr array or a Python scalar, "
                            f"got {type(value).__name__}")
        if scalar_operand_dtype("setitem", x._dtype, v, dev) is not x._dtype:
            raise TypeError(f"setitem: a Python {type(v).__name__} ({v!r}) cannot be stored "
                            f"in an array of dtype {x._dtype}")
    check_writable(x, "setitem")
    try:
        dev.ops.setitem(x._data, key, v)
    except ValueError as e:
        vshape = getattr(v, "shape", ())
        raise ValueError(f"setitem: a value of shape {tuple(vshape)} does not broadcast to "
                         f"the indexed part of an array of shape {x.shape} ({e})") from None


def normalize_key(x: Array, key: Any, func: str) -> tuple:
    """The key as a tuple of in-bounds non-negative ints, slices, None and native arrays."""
    items = list(key) if type(key) is tuple else [key]
    shape = x._data.shape
    ndim = len(shape)
    items = [_item(x, k, func) for k in items]
    # How many axes each item consumes; Ellipsis stands for the rest.
    consumed = sum(_width(k) for k in items)
    n_ellipsis = sum(1 for k in items if k is Ellipsis)
    if n_ellipsis > 1:
        raise IndexError(f"{func}: an index can have only one Ellipsis (...)")
    if consumed > ndim:
        raise IndexError(f"{func}: too many indices for an array of shape {tuple(shape)}: "
                         f"{consumed} given")
    if n_ellipsis:
        at = next(i for i, k in enumerate(items) if k is Ellipsis)
        items[at:at + 1] = [slice(None)] * (ndim - consumed)
    out = []
    shapes = []  # of the integer index arrays, which must broadcast together
    axis = 0
    for k in items:
        if k is None:
            out.append(None)
            continue
        if type(k) is int:
            size = shape[axis]
            if not -size <= k < size:
                raise IndexError(f"{func}: index {k} is out of bounds for axis {axis} with "
                                 f"size {size}")
            out.append(k + size if k < 0 else k)
        elif type(k) is Array:
            out.append(_array_index(k, shape, axis, func))
            if k._dtype.kind != "bool":
                shapes.append(tuple(k._data.shape))
        else:
            out.append(k)  # a slice, or a Python bool (a 0-d mask, as in NumPy)
        axis += _width(k)
    if len(shapes) > 1:
        _check_index_shapes(shapes, func)
    return tuple(out)


def _check_index_shapes(shapes: list, func: str) -> None:
    """Integer index arrays must broadcast together: an IndexError here on every device
    (CuPy raises ValueError, WebGPU would see a shape it cannot place)."""
    nd = max(len(sh) for sh in shapes)
    for j in range(nd):
        sizes = {sh[j - nd + len(sh)] for sh in shapes if j - nd + len(sh) >= 0} - {1}
        if len(sizes) > 1:
            raise IndexError(f"{func}: shape mismatch: index arrays of shapes "
                             f"{', '.join(map(str, shapes))} cannot be broadcast together")


def _item(x: Array, k: Any, func: str) -> Any:
    t = type(k)
    if t is int or t is slice or k is None or k is Ellipsis or t is bool or t is Array:
        if t is Array and k._device is not x._device:
            raise ValueError(f"{func}: the index array is on {k._device} but the array is "
                             f"on {x._device}")
        return k
    if t is list:
        from ._creation import asarray

        if not all(type(e) in (int, bool) for e in k):
            raise IndexError(f"{func}: a list index may hold only ints or bools, got {k!r}")
        if k and all(type(e) is bool for e in k):
            return asarray(k, device=x._device)
        return asarray(k, dtype=x._device.defaults["indexing"], device=x._device)
    if hasattr(k, "__cuda_array_interface__"):
        # Note: another library's GPU memory is not taken as an index behind the user's back
        raise IndexError(f"{func}: a {type(k).__module__}.{type(k).__name__} index must be "
                         f"converted first: numr.asarray(index, device=x.device)")
    if getattr(k, "ndim", 0) and isinstance(k, np.ndarray):
        # A NumPy index array is host data, as a list is: it goes to the array's device
        # (as CuPy and PyTorch take one; scikit-learn's cross-validation indexes with the
        # NumPy arrays its splitters make). Its dtype stays: a float one is refused below.
        from ._creation import asarray

        if k.dtype.kind not in "biu":
            raise IndexError(f"{func}: index arrays must have an integer or bool dtype, got "
                             f"a NumPy array of {k.dtype}")
        return asarray(k, device=x._device)
    if hasattr(k, "__index__") and not isinstance(k, float):
        try:
            return operator.index(k)
        except TypeError:
            pass
    raise IndexError(f"{func}: only ints, slices, None, ..., and integer or bool numr "
                     f"arrays are valid indices; got {type(k).__name__} {k!r}")


def _width(k: Any) -> int:
    """Axes of the indexed array consumed by one key item."""
    if k is None or k is Ellipsis or type(k) is bool:
        return 0
    if type(k) is Array and k._dtype.kind == "bool":
        return k._data.ndim
    return 1


def _array_index(k: Array, shape: tuple, axis: int, func: str) -> Any:
    kind = k._dtype.kind
    if kind == "bool":
        want = tuple(shape[axis:axis + k._data.ndim])
        have = tuple(k._data.shape)
        if have != want:
            # Note: as in NumPy, a mask axis of length 0 matches any axis (the mask selects
            # nothing); it is replaced by an all-False mask of the right shape.
            if not all(m == n or m == 0 for m, n in zip(have, want)):
                raise IndexError(f"{func}: a boolean index of shape {have} does not match "
                                 f"the indexed axes of shape {want}")
            from ._creation import zeros

            return zeros(want, dtype=k._dtype, device=k._device)._data
        return k._data
    if kind not in ("int", "uint"):
        raise IndexError(f"{func}: index arrays must have an integer or bool dtype, got {k._dtype}")
    return _checked_indices(k, shape[axis], axis, func)


def _checked_indices(k: Array, size: int, axis: int, func: str) -> Any:
    """Native indices with negatives wrapped, after checking all lie in [-size, size)."""
    data = k._data
    if data.size == 0:
        return data
    r = _ranges.known(k)
    if r is not None and -size <= r[0] and r[1] < size:
        lo, hi = r  # bounds numr knows on the host: nothing to read back (see _ranges)
    else:
        # the backend's min and max (k is a validated integer array: numr.min's and
        # numr.max's checks would only repeat that), read back together (one wait on a GPU)
        ops, axes = k._device.ops, tuple(range(data.ndim))
        lo, hi = ops.scalars(ops.min(data, axis=axes, keepdims=False),
                             ops.max(data, axis=axes, keepdims=False))
    if lo < -size or hi >= size:
        bad = lo if lo < -size else hi
        raise IndexError(f"{func}: index {bad} is out of bounds for axis {axis} with size {size}")
    if lo < 0:
        from ._elementwise import add, less
        from ._searching import where

        k = where(less(k, 0), add(k, size), k)
    return k._data


# ---------------------------------------------------------------------------------------
# take, take_along_axis
# ---------------------------------------------------------------------------------------

def _check_pair(x: Any, indices: Any, func: str) -> None:
    if type(x) is not Array or type(indices) is not Array:
        raise TypeError(f"{func}: x and indices must be numr arrays, got "
                        f"{type(x).__name__} and {type(indices).__name__}")
    if indices._device is not x._device:
        raise ValueError(f"{func}: arrays are on different devices, {x._device} and "
                         f"{indices._device}")
    if indices._dtype.kind not in ("int", "uint"):
        raise TypeError(f"{func}: indices must have an integer dtype, got {indices._dtype}")


def _axis(axis: Any, ndim: int, func: str) -> int:
    if type(axis) is not int:
        raise TypeError(f"{func}: axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise AxisError(f"{func}: axis {axis} is out of range for an array of {ndim} "
                        f"dimension{'' if ndim == 1 else 's'}")
    return axis % ndim


def take(x: Array, indices: Array | int, /, *, axis: int | None = None) -> Array:
    """Elements of ``x`` at ``indices`` (1-D, negative counts from the end) along ``axis``.

    ``indices`` may also be a Python int, an extension of the standard (NumPy's): the one
    position along ``axis``, which the result drops (Cubed's var and std combine their
    partial results with ``take(x, 0, axis=a)``)."""
    if type(indices) is int and type(x) is Array:
        return _take_one(x, indices, axis)
    _check_pair(x, indices, "take")
    ndim = x._data.ndim
    if indices._data.ndim != 1:
        raise ValueError(f"take: indices must be 1-D, got shape {indices.shape}")
    if axis is None:
        if ndim > 1:
            raise ValueError(f"take: axis is required for a {ndim}-D array")
        axis = 0
    if ndim == 0:
        raise ValueError("take: x must have at least one dimension")
    axis = _axis(axis, ndim, "take")
    idx = _checked_indices(indices, x._data.shape[axis], axis, "take")
    return Array._new(x._device.ops.take(x._data, idx, axis=axis), x._dtype, x._device)


def _take_one(x: Array, i: int, axis: int | None) -> Array:
    ndim = x._data.ndim
    if ndim == 0:
        raise ValueError("take: x must have at least one dimension")
    if axis is None:
        if ndim > 1:
            raise ValueError(f"take: axis is required for a {ndim}-D array")
        axis = 0
    axis = _axis(axis, ndim, "take")
    size = x._data.shape[axis]
    if not -size <= i < size:
        raise IndexError(f"take: index {i} is out of bounds for axis {axis} with size {size}")
    return getitem(x, (slice(None),) * axis + (i,))


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Elements of ``x`` at ``indices`` (same rank as x, broadcast) along ``axis``."""
    _check_pair(x, indices, "take_along_axis")
    ndim = x._data.ndim
    if indices._data.ndim != ndim:
        raise ValueError(f"take_along_axis: indices must have the rank of x ({ndim}), got "
                         f"shape {indices.shape}")
    if ndim == 0:
        raise ValueError("take_along_axis: x must have at least one dimension")
    axis = _axis(axis, ndim, "take_along_axis")
    for i, (m, n) in enumerate(zip(x._data.shape, indices._data.shape)):
        if i != axis and m != n and m != 1 and n != 1:
            raise ValueError(f"take_along_axis: shapes {x.shape} and {indices.shape} do not "
                             f"broadcast outside axis {axis}")
    idx = _checked_indices(indices, x._data.shape[axis], axis, "take_along_axis")
    return Array._new(x._device.ops.take_along_axis(x._data, idx, axis=axis), x._dtype, x._device)

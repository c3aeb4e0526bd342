"""Manipulation functions, and the axis/shape helpers other groups share.

Every function validates its arguments and decides the result's dtype and shape here;
the device's ops only move data. Shared helpers for other groups:

* ``normalize_axis(axis, ndim, func)`` -> a non-negative int, or :class:`AxisError`;
* ``normalize_axes(axis, ndim, func)`` -> a tuple of them (an int or a sequence given);
* ``broadcast_shape(shapes, func)`` -> the broadcast of several shapes, or ValueError;
* ``check_array(x, func)`` and ``same_device(arrays, func)``.
"""

from __future__ import annotations

import math
from typing import Any

from . import _dtypes as dt
from ._array import Array
from ._dtypes import PROMOTE
from ._checks import (  # noqa: F401
    AxisError, as_int, broadcast_shape, check_array, mixed_devices as _mixed, normalize_axis,
    normalize_axes, same_device,
)

__all__ = [
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
    "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
    "unstack",
]


# ---------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------

def as_shape(shape: Any, func: str, what: str = "shape") -> tuple[int, ...]:
    """A shape argument as a tuple of Python ints (not yet checked for sign).

    Note: a single int is accepted for a 1-D shape, as NumPy does.
    """
    if isinstance(shape, (tuple, list)):
        return tuple(as_int(n, f"each entry of {what}", func) for n in shape)
    if hasattr(type(shape), "__index__") and not isinstance(shape, bool):
        return (as_int(shape, what, func),)
    raise TypeError(f"{func}: {what} must be a tuple of ints, got {shape!r}")


def _array_list(arrays: Any, func: str) -> list[Array]:
    if not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{func}: expected a tuple or list of numr arrays, got "
                        f"{type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{func}: needs at least one array")
    for a in arrays:
        check_array(a, func)
    return list(arrays)


def _promoted(arrays: list[Array], dev: Any) -> tuple[dt.DType, list]:
    """The promoted dtype of ``arrays`` and their native data in it."""
    d = arrays[0]._dtype
    for a in arrays[1:]:
        d = PROMOTE[d, a._dtype]
    return d, [a._data if a._dtype is d else dev.ops.astype(a._data, d, False)
               for a in arrays]


def _wrap(data: Any, x: Array) -> Array:
    return Array._new(data, x._dtype, x._device)


# ---------------------------------------------------------------------------------------
# Broadcasting
# ---------------------------------------------------------------------------------------

def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that all ``shapes`` broadcast to (``()`` for none)."""
    checked = [as_shape(s, "broadcast_shapes") for s in shapes]
    for s in checked:
        if any(n < 0 for n in s):
            raise ValueError(f"broadcast_shapes: negative dimension in shape {s}")
    return broadcast_shape(checked, "broadcast_shapes")


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """``x`` broadcast to ``shape``."""
    check_array(x, "broadcast_to")
    shape = as_shape(shape, "broadcast_to")
    if any(n < 0 for n in shape):
        raise ValueError(f"broadcast_to: negative dimension in shape {shape}")
    if len(shape) < x.ndim or broadcast_shape([x.shape, shape], "broadcast_to") != shape:
        raise ValueError(f"broadcast_to: cannot broadcast an array of shape {x.shape} "
                         f"to shape {shape}")
    return _wrap(x._device.ops.broadcast_to(x._data, shape), x)


def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    """The arrays broadcast against one another, each keeping its dtype."""
    for a in arrays:
        check_array(a, "broadcast_arrays")
    if not arrays:
        return ()
    dev = same_device(arrays, "broadcast_arrays")
    broadcast_shape([a.shape for a in arrays], "broadcast_arrays")
    out = dev.ops.broadcast_arrays(*[a._data for a in arrays])
    return tuple(_wrap(o, a) for o, a in zip(out, arrays))


# ---------------------------------------------------------------------------------------
# Joining and splitting
# ---------------------------------------------------------------------------------------

def concat(arrays: tuple[Array, ...] | list[Array], /, *, axis: int | None = 0) -> Array:
    """Join arrays along an existing axis (flattened first when ``axis`` is None)."""
    arrays = _array_list(arrays, "concat")
    dev = same_device(arrays, "concat")
    if axis is not None:
        ndim = arrays[0].ndim
        if any(a.ndim != ndim for a in arrays):
            raise ValueError(f"concat: arrays must have the same number of dimensions, got "
                             f"shapes {[a.shape for a in arrays]}")
        if ndim == 0:
            raise ValueError("concat: 0-d arrays cannot be joined along an axis; use "
                             "axis=None or stack")
        axis = normalize_axis(axis, ndim, "concat")
        first = arrays[0].shape
        for a in arrays[1:]:
            s = a.shape  # (equal shapes, the common case, skip the per-axis test)
            if s != first and any(m != n for i, (m, n) in enumerate(zip(first, s)) if i != axis):
                raise ValueError(f"concat: shapes {first} and {a.shape} differ outside "
                                 f"axis {axis}")
    d, data = _promoted(arrays, dev)
    return Array._new(dev.ops.concat(data, axis=axis), d, dev)


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    """Join arrays of one shape along a new axis."""
    arrays = _array_list(arrays, "stack")
    dev = same_device(arrays, "stack")
    shape = arrays[0].shape
    for a in arrays[1:]:
        if a.shape != shape:
            raise ValueError(f"stack: all arrays must have the same shape, got {shape} "
                             f"and {a.shape}")
    axis = normalize_axis(axis, len(shape) + 1, "stack", of="a result")
    d, data = _promoted(arrays, dev)
    return Array._new(dev.ops.stack(data, axis=axis), d, dev)


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """The slices of ``x`` along ``axis``, as a tuple."""
    check_array(x, "unstack")
    axis = normalize_axis(axis, x.ndim, "unstack")
    return tuple(_wrap(o, x) for o in x._device.ops.unstack(x._data, axis=axis))


# ---------------------------------------------------------------------------------------
# Shape and axes
# ---------------------------------------------------------------------------------------

def expand_dims(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """Insert size-1 axes at the positions ``axis`` will have in the result."""
    check_array(x, "expand_dims")
    n = len(axis) if isinstance(axis, (tuple, list)) else 1
    axes = normalize_axes(axis, x.ndim + n, "expand_dims", of="a result")
    return _wrap(x._device.ops.expand_dims(x._data, tuple(sorted(axes))), x)


def squeeze(x: Array, /, axis: int | tuple[int, ...] | None = None) -> Array:
    """Remove the size-1 axes ``axis``; with ``axis=None`` (NumPy's default, an extension:
    the standard requires ``axis``; Cubed's groupby calls it so) every size-1 axis."""
    check_array(x, "squeeze")
    if axis is None:
        axis = tuple(a for a, n in enumerate(x.shape) if n == 1)
    axes = normalize_axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1 "
                             f"(shape {x.shape})")
    return _wrap(x._device.ops.squeeze(x._data, axes), x)


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """Reorder the axes of ``x``: result axis i is ``x``'s axis ``axes[i]``."""
    check_array(x, "permute_dims")
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"permute_dims: axes must be a tuple of ints, got {axes!r}")
    if len(axes) != x.ndim:
        raise ValueError(f"permute_dims: axes {tuple(axes)} has {len(axes)} entries, but "
                         f"the array has {x.ndim} dimensions")
    axes = normalize_axes(axes, x.ndim, "permute_dims")
    return _wrap(x._device.ops.permute_dims(x._data, axes), x)


def moveaxis(x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...],
             /) -> Array:
    """Move axes ``source`` to positions ``destination``; the others keep their order."""
    check_array(x, "moveaxis")
    src = normalize_axes(source, x.ndim, "moveaxis")
    dst = normalize_axes(destination, x.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} "
                         f"must have the same number of axes")
    return _wrap(x._device.ops.moveaxis(x._data, src, dst), x)


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """``x``'s elements (row-major) in ``shape``; one entry may be -1 (inferred).

    ``copy=True`` always copies, ``copy=False`` never does (ValueError where it must).
    """
    check_array(x, "reshape")
    if copy not in (None, True, False):
        raise ValueError(f"reshape: copy must be True, False or None, got {copy!r}")
    shape = _resolve_shape(as_shape(shape, "reshape"), x)
    out = x._device.ops.reshape(x._data, shape, copy=copy)
    if out is None:
        raise ValueError(f"reshape: copy=False, but an array of shape {x.shape} with this "
                         f"memory layout cannot be viewed as shape {shape} without a copy")
    return _wrap(out, x)


def _resolve_shape(shape: tuple[int, ...], x: Array) -> tuple[int, ...]:
    """``shape`` with its -1 entry inferred from ``x.size``."""
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1:
        raise ValueError(f"reshape: only one dimension can be -1, got shape {shape}")
    if any(n < -1 for n in shape):
        raise ValueError(f"reshape: negative dimension in shape {shape}")
    known = math.prod(n for n in shape if n != -1)
    if unknown:
        if known == 0 or x.size % known:
            raise ValueError(f"reshape: cannot reshape an array of size {x.size} "
                             f"(shape {x.shape}) into shape {shape}")
        shape = shape[:unknown[0]] + (x.size // known,) + shape[unknown[0] + 1:]
    elif known != x.size:
        raise ValueError(f"reshape: cannot reshape an array of size {x.size} "
                         f"(shape {x.shape}) into shape {shape}")
    return shape


# ---------------------------------------------------------------------------------------
# Reordering and repeating
# ---------------------------------------------------------------------------------------

def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """Reverse the order of elements along ``axis`` (every axis when None)."""
    check_array(x, "flip")
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim, "flip")
    return _wrap(x._device.ops.flip(x._data, axis=axes), x)


def roll(x: Array, /, shift: int | tuple[int, ...], *,
         axis: int | tuple[int, ...] | None = None) -> Array:
    """Shift elements along ``axis`` cyclically (the flattened array when None).

    Note: a repeated axis adds its shifts up, as in NumPy.
    """
    check_array(x, "roll")
    if isinstance(shift, (tuple, list)):
        shifts = tuple(as_int(s, "each shift", "roll") for s in shift)
        if axis is None or not isinstance(axis, (tuple, list)) or len(axis) != len(shifts):
            raise ValueError(f"roll: a tuple shift {tuple(shift)} needs a tuple axis of the "
                             f"same length, got axis={axis!r}")
    else:
        shifts = as_int(shift, "shift", "roll")
    if axis is None:
        return _wrap(x._device.ops.roll(x._data, shifts, axis=None), x)
    axes = normalize_axes(axis, x.ndim, "roll", unique=False)
    if type(shifts) is int:
        shifts = (shifts,) * len(axes)
    return _wrap(x._device.ops.roll(x._data, shifts, axis=axes), x)


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Repeat each element ``repeats`` times (of the flattened array when ``axis`` is None).

    An array ``repeats`` gives one count per element (shape ``(1,)`` or ``(n,)``); the
    result's shape then depends on its values, a synchronisation point on accelerators.
    """
    check_array(x, "repeat")
    dev = x._device
    if axis is not None:
        axis = normalize_axis(axis, x.ndim, "repeat")
    n = x.size if axis is None else x.shape[axis]
    if type(repeats) is Array:
        if repeats._device is not dev:
            raise _mixed("repeat", dev, repeats._device)
        if repeats._dtype.kind not in ("int", "uint"):
            raise TypeError(f"repeat: repeats must have an integer dtype, got "
                            f"{repeats._dtype}")
        # Note: a 0-d repeats array is accepted, as in NumPy.
        if repeats.ndim > 1 or (repeats.ndim == 1 and repeats.shape[0] not in (1, n)):
            raise ValueError(f"repeat: repeats of shape {repeats.shape} does not match "
                             f"{n} elements; expected shape (1,) or ({n},)")
        index = dev.defaults["indexing"]
        counts = repeats._data if repeats._dtype is index else \
            dev.ops.astype(repeats._data, index, False)
        try:
            out = dev.ops.repeat(x._data, counts, axis=axis)
        except ValueError:
            # The only way valid shapes fail: a negative count (or uint64 beyond int64).
            raise ValueError("repeat: repeats must be non-negative") from None
        return _wrap(out, x)
    count = as_int(repeats, "repeats", "repeat")
    if count < 0:
        raise ValueError(f"repeat: repeats must be non-negative, got {count}")
    return _wrap(dev.ops.repeat(x._data, count, axis=axis), x)


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """``x`` repeated ``repetitions[i]`` times along axis i (shapes aligned on the right)."""
    check_array(x, "tile")
    if not isinstance(repetitions, (tuple, list)):
        raise TypeError(f"tile: repetitions must be a tuple of ints, got {repetitions!r}")
    reps = tuple(as_int(r, "each repetition", "tile") for r in repetitions)
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: repetitions must be non-negative, got {reps}")
    return _wrap(x._device.ops.tile(x._data, reps), x)

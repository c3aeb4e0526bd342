"""Creation functions: every one takes ``device=`` (default: the default device) and
``dtype=`` (default: the device's default dtype of the right kind)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import Array
from ._devices import default_device, get_device
from ._transfer import move

__all__ = ["asarray"]


def resolve_device(device: Any, func: str):
    return default_device() if device is None else get_device(device, func)


def check_dtype(dtype: Any, device: Any, func: str) -> dt.DType:
    """Validate a dtype argument for ``device`` (TypeError naming both)."""
    if type(dtype) is not dt.DType:
        raise TypeError(f"{func}: dtype must be a numr dtype (like numr.float32), got {dtype!r}")
    if dtype not in device.dtypes:
        raise TypeError(f"{func}: dtype {dtype} is not available on device {device}")
    return dtype


def _infer_host(obj: Any, device: Any, func: str) -> np.ndarray:
    """A NumPy array of Python data, with the device's default dtypes."""
    try:
        h = np.asarray(obj)
    except OverflowError:
        raise OverflowError(f"{func}: Python int out of the int64 range in {obj!r}") from None
    except (ValueError, TypeError) as e:
        raise TypeError(f"{func}: cannot make an array of {type(obj).__name__}: {e}") from None
    kind = h.dtype.kind
    defaults = device.defaults
    if kind == "f" and h.dtype.itemsize == 8:
        target = defaults["real floating"]
    elif kind == "c" and h.dtype.itemsize == 16:
        target = defaults["complex floating"]
    elif kind == "i" and h.dtype.itemsize == 8:
        target = defaults["integral"]
    elif kind == "u" and h.dtype.itemsize == 8 and not isinstance(obj, np.ndarray):
        raise OverflowError(f"{func}: Python int out of the int64 range in {obj!r}")
    else:
        target = dt.BY_NAME.get(h.dtype.name)
        if target is None:
            raise TypeError(f"{func}: cannot make an array of {obj!r} (NumPy dtype {h.dtype})")
        return h
    return h if h.dtype.name == target.name else h.astype(target.name)


def asarray(obj: Any, /, *, dtype: dt.DType | None = None, device: Any = None,
            copy: bool | None = None) -> Array:
    """An array from an Array, a Python scalar, a nested sequence, or a buffer.

    ``copy=True`` always copies, ``copy=False`` never does (ValueError if it must),
    ``copy=None`` copies only when needed.
    """
    if copy not in (None, True, False):
        raise ValueError(f"asarray: copy must be True, False or None, got {copy!r}")
    if type(obj) is Array:
        return _from_array(obj, dtype, device, copy)
    dev = resolve_device(device, "asarray")
    if dtype is not None:
        check_dtype(dtype, dev, "asarray")
    python_data = not hasattr(obj, "__array_interface__") and not hasattr(obj, "__array__") \
        and not isinstance(obj, (bytes, bytearray, memoryview))
    if copy is False and (python_data or dev.kind != "cpu"):
        raise ValueError(f"asarray: copy=False, but making an array of "
                         f"{type(obj).__name__} on {dev} needs a copy")
    if dtype is None:
        h = _infer_host(obj, dev, "asarray")
    else:
        h = _host_with_dtype(obj, dtype, copy)
    if copy and dev.kind == "cpu" and not python_data and np.shares_memory(h, np.asarray(obj)):
        h = h.copy()
    return Array._new(dev.ops.from_host(h), dt.BY_NAME[h.dtype.name], dev)


def _host_with_dtype(obj: Any, dtype: dt.DType, copy: bool | None) -> np.ndarray:
    if isinstance(obj, (list, tuple)) or type(obj) in (bool, int, float, complex):
        _check_scalars_fit(obj, dtype)
    try:
        return np.asarray(obj, dtype=dtype.name, copy=False if copy is False else None)
    except ValueError as e:
        if copy is False:
            raise ValueError(f"asarray: copy=False, but converting to {dtype} needs a copy") from None
        raise ValueError(f"asarray: cannot convert to {dtype}: {e}") from None
    except (OverflowError, TypeError) as e:
        raise type(e)(f"asarray: cannot convert {obj!r} to {dtype}: {e}") from None


def _check_scalars_fit(obj: Any, dtype: dt.DType) -> None:
    """Python ints that do not fit an integer dtype, or floats given for an integer
    dtype, are errors, not silent wrap-around."""
    if isinstance(obj, (list, tuple)):
        for o in obj:
            _check_scalars_fit(o, dtype)
        return
    if type(obj) is Array:
        return
    if dtype.kind in ("int", "uint"):
        if isinstance(obj, bool):
            return
        if isinstance(obj, int):
            lo, hi = dt.INT_RANGE[dtype]
            if not lo <= obj <= hi:
                raise OverflowError(f"asarray: Python int {obj} is out of range for {dtype}")
        elif isinstance(obj, (float, complex)):
            raise TypeError(f"asarray: Python {type(obj).__name__} {obj!r} given for integer dtype {dtype}")
    elif dtype.kind == "bool" and isinstance(obj, (int, float, complex)) and not isinstance(obj, bool):
        raise TypeError(f"asarray: Python {type(obj).__name__} {obj!r} given for dtype bool")
    elif dtype.kind == "float" and isinstance(obj, complex):
        raise TypeError(f"asarray: Python complex {obj!r} given for real dtype {dtype}")


def _from_array(x: Array, dtype: Any, device: Any, copy: bool | None) -> Array:
    dev = x._device if device is None else get_device(device, "asarray")
    data = x._data
    if dev is not x._device:
        if copy is False:
            raise ValueError(f"asarray: copy=False, but moving from {x._device} to {dev} needs a copy")
        data = move(data, x._device, dev)
        copy = False  # the move made a new buffer
    if dtype is not None and dtype is not x._dtype:
        check_dtype(dtype, dev, "asarray")
        if copy is False:
            raise ValueError(f"asarray: copy=False, but converting {x._dtype} to {dtype} needs a copy")
        return Array._new(dev.ops.astype(data, dtype, True), dtype, dev)
    if copy:
        data = dev.ops.astype(data, x._dtype, True)
    if data is x._data:
        return x
    return Array._new(data, x._dtype, dev)

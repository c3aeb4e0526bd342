"""Moving arrays between devices: only where the user asks (to_device, asarray(device=))."""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from ._array import Array
from ._config import implicit_host_copy
from ._devices import Device, get_device


def to_device(x: Array, device: Device | str, /, *, stream: Any = None) -> Array:
    """``x`` on ``device``; ``x`` itself when it is already there."""
    if stream is not None and type(stream) is not int and not hasattr(stream, "ptr"):
        raise TypeError(f"to_device: stream must be an int or a stream object, got {stream!r}")
    dst = get_device(device, "to_device")
    src = x._device
    if dst is src:
        return x
    return Array._new(move(x._data, src, dst), x._dtype, dst)


def move(data: Any, src: Any, dst: Any) -> Any:
    """A native array of ``dst`` with the contents of ``data``, a native array of ``src``.

    Goes through host memory; backends that can exchange directly do so in from_host.
    """
    return dst.ops.from_host(src.ops.to_host(data))




def host_copy(x: Array, dtype: Any, copy: Any) -> Any:
    """NumPy's ``__array__`` protocol for an array off the CPU: a new host array when
    the caller asked for a copy (copy=True, or copy=None under NUMR_IMPLICIT_HOST_COPY=1)."""
    import numpy as np

    if copy is False:
        raise ValueError(f"Array.__array__: the array is on {x._device}; a NumPy array of "
                         f"it needs a copy to the host, but copy=False")
    if copy is None and not implicit_host_copy():
        raise TypeError(f"Array.__array__: the array is on {x._device}; implicit conversion "
                        f"to NumPy is only for CPU arrays; call x.to_device('cpu') first, "
                        f"ask for a copy (np.array(x), np.asarray(x, copy=True)), or set "
                        f"NUMR_IMPLICIT_HOST_COPY=1")
    data = x._device.ops.to_host(x._data)
    if dtype is not None and np.dtype(dtype) != data.dtype:
        return data.astype(dtype)
    # to_host may hand back the device's own memory (an emulated GPU keeps NumPy arrays)
    return data.copy() if data is x._data else data


def convert(data: Any, src_dtype: dt.DType, src: Any, dtype: dt.DType, dst: Any,
             copy: bool) -> Any:
    """``data`` (on ``src``) as ``dtype`` on ``dst``. Converts on the device that holds
    both dtypes, so a device lacking one of them (float64 on WebGPU) is never asked to
    hold it. ``copy``: the result must not share memory with ``data``."""
    if src is dst:
        if dtype is src_dtype and not copy:
            return data
        return src.ops.astype(data, dtype, True)
    if dtype in src.dtypes:
        if dtype is not src_dtype:
            data = src.ops.astype(data, dtype, True)
        return move(data, src, dst)
    return dst.ops.astype(move(data, src, dst), dtype, False)

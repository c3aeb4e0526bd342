"""Moving arrays between devices: only where the user asks (to_device, asarray(device=))."""

from __future__ import annotations

from typing import Any

from ._array import Array
from ._devices import get_device


def to_device(x: Array, device: Any, /, *, stream: Any = None) -> Array:
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

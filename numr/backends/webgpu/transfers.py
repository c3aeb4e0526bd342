"""WebGPU ops: data to and from the host, DLPack, sync, and the dtype facts (finfo,
iinfo). The ops with no array operand take a :class:`~.place.Place` first (bound by
ops.build)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ... import _dtypes as dt
from . import dlpack as DL
from .array import GPUArray, new
from .kernels import map as M
from .place import Place



def copy(x: GPUArray) -> GPUArray:
    """A contiguous copy of ``x`` in a new buffer."""
    return M.launch(x.rt, "copy", "a", ((x, x.dtype),), x.dtype, x.shape)


def from_host(place: Place, h: np.ndarray) -> GPUArray:
    # (dt.by_numpy: NumPy computes ``dtype.name`` in Python, a third of an 8-element upload)
    d = dt.by_numpy(h.dtype)
    if d is None:
        d = dt.BY_NAME[h.dtype.name]  # the KeyError of a dtype numr has not
    if d not in place.held:
        raise TypeError(f"from_host: dtype {d} is not held by {place}; "
                        f"info.dtypes(device='{place}') lists those that are")
    if not h.dtype.isnative:
        h = h.astype(h.dtype.newbyteorder("="))  # the device's order is the host's
    r = new(place.rt, tuple(h.shape), d)
    place.rt.upload(r.storage, h.tobytes())
    return r


def to_host(x: GPUArray) -> np.ndarray:
    d = x.dtype
    nbytes = x.size * d.itemsize
    if not (x.contiguous and (x.offset * d.itemsize) % 4 == 0):
        x = M.contiguous(x.rt, x)
    start = x.offset * d.itemsize
    raw = x.rt.download(x.storage, start, -(-nbytes // 4) * 4)
    return np.frombuffer(raw, dtype=d.name, count=x.size).reshape(x.shape).copy()


def scalar(x: GPUArray) -> Any:
    return to_host(x).item()


def finfo(dtype: dt.DType) -> dict[str, int | float]:
    f = np.finfo(dtype.name)
    return {"bits": int(f.bits), "eps": float(f.eps), "max": float(f.max),
            "min": float(f.min), "smallest_normal": float(f.smallest_normal)}


def iinfo(dtype: dt.DType) -> dict[str, int]:
    i = np.iinfo(dtype.name)
    return {"bits": int(i.bits), "max": int(i.max), "min": int(i.min)}


def sync(place: Place) -> None:
    place.rt.wait()


def writable(x: GPUArray) -> bool:
    return not x.readonly


def buffer(x: GPUArray) -> Any:
    return x.storage  # (a pending result's is computed now)


# DLPack (numr/backends/webgpu/dlpack.py): arrays report (kDLWebGPU = 15, index) and
# export in place on their own device, or as a host copy for dl_device=(1, 0).

def dlpack_device(x: GPUArray) -> tuple[int, int]:
    return (DL.KDL_WEBGPU, x.rt.index)


def dlpack(place: Place, x: GPUArray, stream: Any, max_version: tuple[int, int] | None,
           dl_device: tuple[int, int] | None, copy_: bool | None) -> Any:
    return DL.dlpack(x, place.device, copy, to_host, stream, max_version, dl_device, copy_)


OPS: dict[str, Callable[..., Any]] = {
    "to_host": to_host, "scalar": scalar, "finfo": finfo, "iinfo": iinfo,
    "writable": writable, "buffer": buffer, "dlpack_device": dlpack_device}
PLACED: dict[str, Callable[..., Any]] = {"from_host": from_host, "sync": sync, "dlpack": dlpack}
"""Ops that take the Place first."""

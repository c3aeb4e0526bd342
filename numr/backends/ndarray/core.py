"""Conversions, indexing, DLPack and scalars for NumPy-like modules."""

from __future__ import annotations

import operator
from typing import Any


_DL_CPU = 1  # DLPack's device type for host memory


def build(c) -> dict:
    xp, native, arr = c.xp, c.native, c.arr
    on_host = xp.__name__ == "numpy"

    def from_host(h):
        if on_host:
            return h
        # An explicit copy of the bytes: CuPy's asarray of a 0-d array fills by value,
        # and its fill turns -0.0 into +0.0.
        a = xp.empty(h.shape, dtype=h.dtype)
        if h.size:
            # (numpy.ascontiguousarray would turn a 0-d array into a 1-d one)
            a.set(h if h.flags.c_contiguous else h.copy(order="C"))
        return a

    def to_host(a):
        return a if on_host else a.get()

    def astype(a, dtype, copy=True):
        return a.astype(native[dtype], copy=copy)

    def getitem(a, key):
        return arr(a[key])

    getslice = operator.getitem  # a[slice] is always an array, never a NumPy scalar

    def setitem(a, key, value):
        if type(value) is float or type(value) is complex:  # arrays skip the call
            value = c.fill_value(value, a.dtype)
        a[key] = value

    def assign(dst, src):
        dst[...] = src

    def dlpack(a, stream, max_version, dl_device, copy):
        kwargs: dict[str, Any] = {}
        if max_version is not None:
            kwargs["max_version"] = max_version
        here = a.__dlpack_device__()
        if dl_device is not None and (int(dl_device[0]), int(dl_device[1])) != (int(here[0]), int(here[1])):
            if int(dl_device[0]) != _DL_CPU:
                raise BufferError(f"__dlpack__: cannot export an array on {c.device} to "
                                  f"DLPack device {tuple(dl_device)}")
            if copy is False:
                raise BufferError(f"__dlpack__: exporting an array on {c.device} to the CPU "
                                  f"needs a copy, but copy=False")
            return to_host(a).__dlpack__(**kwargs)  # a fresh host copy
        if copy:
            # A copy made here, then shared: CuPy's own copy=True only copies to the host.
            return a.copy().__dlpack__(stream=stream, **kwargs)
        if copy is False:
            kwargs["copy"] = False
        return a.__dlpack__(stream=stream, **kwargs)

    def dlpack_device(a):
        return a.__dlpack_device__()

    def from_dlpack(obj, copy=None):
        # CuPy's from_dlpack(copy=True) only copies to the host, so import, then copy.
        a = xp.from_dlpack(obj)
        return a.copy() if copy else a

    def sync():
        if not on_host:
            xp.cuda.get_current_stream().synchronize()

    def scalar(a):
        return a.item()

    def finfo(dtype):
        f = xp.finfo(native[dtype])
        return {"bits": int(f.bits), "eps": float(f.eps), "max": float(f.max),
                "min": float(f.min), "smallest_normal": float(f.smallest_normal)}

    def iinfo(dtype):
        i = xp.iinfo(native[dtype])
        return {"bits": int(i.bits), "max": int(i.max), "min": int(i.min)}

    return {"from_host": from_host, "to_host": to_host, "astype": astype, "getitem": getitem,
            "getslice": getslice,
            "setitem": setitem, "assign": assign, "dlpack": dlpack,
            "dlpack_device": dlpack_device, "from_dlpack": from_dlpack, "scalar": scalar,
            "sync": sync,
            "finfo": finfo, "iinfo": iinfo}

"""Conversions, indexing, DLPack and scalars for NumPy-like modules."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable

import numpy as _np

from ... import _dtypes as dt

from .._dlpack import KDL_BFLOAT, KDL_UINT, BfloatImport, relabel
from . import bfloat16

if TYPE_CHECKING:
    from . import Context


_DL_CPU = 1  # DLPack's device type for host memory


def build(c: Context) -> dict[str, Callable[..., Any]]:
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

    f32 = xp.dtype("float32")

    on_cupy = xp.__name__ == "cupy"   # for CuPy's gap: no read-only views

    def astype(a, dtype, copy=True):
        if dtype.kind in ("int", "uint"):
            if a.dtype == c.bf16:
                a = a.astype(f32)  # exact; then numr's rule, as for float32
            if a.dtype.kind == "f":
                return float_to_int(a, native[dtype])
        elif native[dtype] == c.bf16 and a.dtype.name in bfloat16.WIDE:
            return bfloat16.round_once(xp, a, c.bf16)
        if on_cupy and (copy or a.dtype != native[dtype]) and not a.flags.c_contiguous:
            # CuPy's order="K" copy of a transposed 4096x4096 float32 array took 404 µs on
            # the H100 against 140 µs for its C-order copy (NumPy's "K" is the fast one).
            return a.astype(native[dtype], order="C", copy=copy)
        return a.astype(native[dtype], copy=copy)

    def float_to_int(a, nd):
        """numr's rule for every device (README, Semantics): truncation towards zero,
        saturated to the integer dtype's range, NaN to 0. NumPy leaves values out of
        range undefined (x86 gives INT_MIN, or wraps narrow types)."""
        info = _np.iinfo(nd)
        top, low = float(info.max + 1), float(info.min)  # powers of two: exact
        if a.dtype.itemsize < 4:
            a = a.astype(xp.float32)  # float16 bounds would round to inf
        if on_host and a.size:
            if nd.kind == "i" and nd.itemsize >= 4:
                # x86's conversion flags NaN and every value out of range: one pass
                try:
                    with _np.errstate(invalid="raise"):
                        return a.astype(nd)
                except FloatingPointError:
                    pass
            else:
                with _np.errstate(invalid="ignore"):
                    lo, hi = a.min(), a.max()  # NaN propagates, and fails the test
                if lo >= low and hi < top:
                    return a.astype(nd)
        with _np.errstate(invalid="ignore", over="ignore"):
            r = xp.where(xp.isnan(a), 0, xp.clip(a, low, xp.nextafter(
                xp.asarray(top, a.dtype), xp.asarray(0, a.dtype)))).astype(nd)
            if info.bits > _np.finfo(a.dtype).nmant + 1:
                # the largest float below top is below max (int32 from float32)
                r = xp.where(a >= top, xp.asarray(info.max, nd), r)
        return r

    def getitem(a, key):
        return arr(a[key])

    getslice = operator.getitem  # a[slice] is always an array, never a NumPy scalar

    def setitem(a, key, value):
        if on_cupy and not writable(a):   # CuPy would write (the namespace's fast path)
            raise ValueError("setitem: the array is read-only")
        if (type(value) is float or type(value) is complex) and c.signed_zero(value):
            value = c.signed_zeros(a[key].shape, a.dtype, value)  # see signed_zeros
        a[key] = value

    def assign(dst, src):
        if on_cupy and not writable(dst):  # NumPy raises itself; CuPy would write
            raise ValueError("assign: the array is read-only")
        dst[...] = src

    def writable(a):
        if not on_cupy:
            return a.flags.writeable
        # CuPy has no read-only arrays (its flags' "writeable" is always True): refuse writes where
        # elements repeat (a broadcast view), the writes that would race. A plain view of
        # such a view (a row of it) cannot be told apart from any view, and stays writable.
        # An empty array has nothing to race on (CuPy gives some zero strides: eye(0, 21)).
        return a.size == 0 or all(s != 0 or n <= 1 for s, n in zip(a.strides, a.shape))

    def buffer(a):
        return None if on_host else a.data.mem  # (CuPy: the Memory its views share)

    bf16, u16 = c.bf16, xp.dtype("uint16")

    def dlpack(a, stream, max_version, dl_device, copy):
        if a.dtype != bf16:
            return export(a, stream, max_version, dl_device, copy)
        # The libraries' DLPack refuses bfloat16: the uint16 view's capsule, relabelled.
        capsule = export(a.view(u16), stream, max_version, dl_device, copy)
        relabel(capsule, KDL_UINT, KDL_BFLOAT)
        return capsule

    def export(a, stream, max_version, dl_device, copy):
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
        # A kDLBfloat producer is imported as uint16 and viewed as bfloat16.
        seen = BfloatImport(obj)
        a = xp.from_dlpack(seen)
        if seen.relabelled:
            a = a.view(bf16)
        return a.copy() if copy else a

    def sync():
        if not on_host:
            xp.cuda.get_current_stream().synchronize()

    def scalar(a):
        return a.item()

    def scalars(*xs):
        if on_host:
            return [a.item() for a in xs]
        return xp.stack(xs).get().tolist()  # one copy to the host, one sync

    def finfo(dtype):
        if dtype is dt.bfloat16:  # NumPy 2.5's finfo refuses ml_dtypes' types
            import ml_dtypes
            f = ml_dtypes.finfo(ml_dtypes.bfloat16)
        else:
            f = xp.finfo(native[dtype])
        return {"bits": int(f.bits), "eps": float(f.eps), "max": float(f.max),
                "min": float(f.min), "smallest_normal": float(f.smallest_normal)}

    def iinfo(dtype):
        i = xp.iinfo(native[dtype])
        return {"bits": int(i.bits), "max": int(i.max), "min": int(i.min)}

    return {"from_host": from_host, "to_host": to_host, "astype": astype, "getitem": getitem,
            "getslice": getslice,
            "setitem": setitem, "assign": assign, "writable": writable, "buffer": buffer,
            "dlpack": dlpack,
            "dlpack_device": dlpack_device, "from_dlpack": from_dlpack, "scalar": scalar,
            "scalars": scalars,
            "sync": sync,
            "finfo": finfo, "iinfo": iinfo}

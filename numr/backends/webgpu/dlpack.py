"""DLPack export of a WebGPU array on its own device (kDLWebGPU).

dlpack.h names a WebGPU device type (kDLWebGPU = 15) and says a tensor's data pointer
"may be opaque on some device types". For WebGPU numr exports the buffer's WGPUBuffer
handle (wgpu-native's C object), with the view's start as ``byte_offset``, its shape and
its strides in elements: a consumer holding the same WGPUDevice can bind the buffer
directly; nobody else can read it, which is what the device type tells them. The
array's pending GPU work is submitted first, so anything the consumer later submits to
the device's queue sees the data.

The capsule follows the protocol: named "dltensor" (or "dltensor_versioned" when the
consumer allows DLPack 1.x), renamed by the consumer once it takes ownership; the
deleter releases numr's reference to the array. An unconsumed capsule's export is
released at the next export after its last user drops it (see _sweep).
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from ... import _dtypes as dt
from .._dlpack import DELETER as _DELETER, Device as _Device, DType as _DType, \
    KDL_BFLOAT, KDL_UINT, Managed as _Managed, Tensor as _Tensor, Versioned as _Versioned, \
    code_of, relabel

KDL_WEBGPU = 15


# address of an exported struct -> [capsule, array, struct, shape, strides]: all that
# must outlive the export. The consumer's call of the deleter drops the entry.
_LIVE: dict[int, list] = {}


@_DELETER
def _delete(address):
    _LIVE.pop(address, None)


# No capsule destructor: it would be a Python callback, and CPython runs destructors
# while a consumer's exception is pending (NumPy refusing the device, say), when no
# Python code can run cleanly. Instead _LIVE holds each capsule, and _sweep drops the
# capsules nobody else holds that no consumer took (still under the original name).
_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype = ctypes.c_int
_capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_NAMES = (b"dltensor", b"dltensor_versioned")


def _sweep() -> None:
    for address, entry in list(_LIVE.items()):
        capsule = entry[0]
        # references: the entry, the local name, getrefcount's argument
        if sys.getrefcount(capsule) <= 3 and any(_capsule_valid(capsule, n) for n in _NAMES):
            del _LIVE[address]
        del capsule


def _handle(buffer: Any) -> int:
    """The WGPUBuffer handle behind a wgpu-py buffer.

    Note: DLPack's kDLWebGPU data pointer is that native handle, which wgpu-py exposes
    through no public API (native.py reads it)."""
    from . import native

    if native.ffi is None:
        raise RuntimeError("DLPack export from webgpu needs wgpu-py's wgpu-native backend "
                           "(wgpu.backends.wgpu_native's ffi), which this wgpu lacks")
    return int(native.ffi.cast("uintptr_t", native.handle(buffer)))


def export(a: Any, device_index: int, versioned: bool, read_only: bool = False) -> Any:
    """A DLPack capsule viewing GPUArray ``a`` in place on its WebGPU device."""
    a.rt.flush()
    d = a.dtype
    n = a.ndim
    shape = (ctypes.c_int64 * max(n, 1))(*a.shape)
    strides = (ctypes.c_int64 * max(n, 1))(*a.strides)
    tensor = _Tensor(_handle(a.storage.block.buffer), _Device(KDL_WEBGPU, device_index), n,
                     _DType(code_of(d), d.itemsize * 8, 1), shape, strides,
                     a.offset * d.itemsize)
    if versioned:
        # DLPack 1.0; flag bit 0 marks a read-only tensor
        m = _Versioned(1, 0, None, _delete, 1 if read_only else 0, tensor)
        name = b"dltensor_versioned"
    else:
        m = _Managed(tensor, None, _delete)
        name = b"dltensor"
    _sweep()
    address = ctypes.addressof(m)
    capsule = _new_capsule(address, name, None)
    _LIVE[address] = [capsule, a, m, shape, strides]
    return capsule


def dlpack(a: Any, device: Any, copy_fn, host_fn, stream, max_version, dl_device,
           copy) -> Any:
    """``__dlpack__`` of GPUArray ``a`` on ``device``: in place on its own device (a copy
    first when ``copy=True``), a host copy for ``dl_device=(1, 0)``; anything else is a
    BufferError (the standard's error for an export that cannot be done)."""
    if stream not in (None, -1):
        raise ValueError(f"__dlpack__: WebGPU has no streams; stream must be None or -1, "
                         f"got {stream!r}")
    target = None if dl_device is None else (int(dl_device[0]), int(dl_device[1]))
    versioned = max_version is not None and max_version[0] >= 1
    if target in (None, (KDL_WEBGPU, device.index)):
        return export(copy_fn(a) if copy else a, device.index, versioned)
    if target != (1, 0):
        raise BufferError(f"__dlpack__: an array on {device} can be exported to its own "
                          f"device (DLPack device ({KDL_WEBGPU}, {device.index})) or as a "
                          f"host copy (dl_device=(1, 0)), not to dl_device={dl_device!r}")
    if copy is False:
        raise BufferError(f"__dlpack__: exporting an array on {device} to the CPU needs "
                          f"a copy, but copy=False")
    kwargs = {} if max_version is None else {"max_version": max_version}
    h = host_fn(a)  # a fresh host copy, the consumer's alone
    if a.dtype is not dt.bfloat16:
        return h.__dlpack__(**kwargs)
    capsule = h.view("uint16").__dlpack__(**kwargs)  # NumPy refuses bfloat16: relabelled
    relabel(capsule, KDL_UINT, KDL_BFLOAT)
    return capsule

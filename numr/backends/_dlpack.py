"""DLPack's C structures (dlpack.h, versions 0.8 and 1.x) and what numr does to capsules.

Two users: the WebGPU backend builds its own capsules (kDLWebGPU), and the NumPy-like
backends relabel bfloat16. NumPy's DLPack refuses ml_dtypes' bfloat16 in both
directions, so a bfloat16 array is exported as the capsule of its uint16 view with the
tensor's dtype code changed to kDLBfloat, and a kDLBfloat capsule is imported by
changing its code to kDLUInt and viewing the result as bfloat16: no copy either way, and
the producer's deleter still frees the producer's memory.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as _np

from .. import _dtypes as dt

KDL_INT, KDL_UINT, KDL_FLOAT, KDL_BFLOAT, KDL_COMPLEX, KDL_BOOL = 0, 1, 2, 4, 5, 6
_CODES = {"bool": KDL_BOOL, "int": KDL_INT, "uint": KDL_UINT, "float": KDL_FLOAT,
          "complex": KDL_COMPLEX}


def code_of(d: dt.DType) -> int:
    """DLPack's type code of numr dtype ``d`` (bfloat16 has its own, kDLBfloat)."""
    return KDL_BFLOAT if d is dt.bfloat16 else _CODES[d.kind]


class Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32),
                ("dtype", DType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class Managed(ctypes.Structure):
    pass


class Versioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
Managed._fields_ = [("dl_tensor", Tensor), ("manager_ctx", ctypes.c_void_p),
                    ("deleter", DELETER)]
Versioned._fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                      ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                      ("flags", ctypes.c_uint64), ("dl_tensor", Tensor)]

_valid = ctypes.pythonapi.PyCapsule_IsValid
_valid.restype = ctypes.c_int
_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_pointer.restype = ctypes.c_void_p
_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dtype_field(capsule: Any) -> DType | None:
    """The DLDataType of an unconsumed DLPack capsule, or None for anything else."""
    if _valid(capsule, b"dltensor_versioned"):
        return Versioned.from_address(_pointer(capsule, b"dltensor_versioned")).dl_tensor.dtype
    if _valid(capsule, b"dltensor"):
        return Managed.from_address(_pointer(capsule, b"dltensor")).dl_tensor.dtype
    return None


def relabel(capsule: Any, src: int, dst: int) -> bool:
    """Change the 16-bit type code ``src`` of an unconsumed capsule to ``dst`` in place;
    whether it did."""
    f = _dtype_field(capsule)
    if f is None or f.code != src or f.bits != 16 or f.lanes != 1:
        return False
    f.code = dst
    return True


class BfloatImport:
    """A DLPack producer seen through a relabelling: its kDLBfloat capsules come out as
    uint16 ones (``relabelled`` says whether the last one was)."""

    def __init__(self, producer: Any):
        self.producer = producer
        self.relabelled = False

    def __dlpack_device__(self):
        return self.producer.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        p = self.producer
        if getattr(getattr(p, "dtype", None), "name", None) == "bfloat16" and hasattr(p, "view"):
            # An ml_dtypes array of NumPy or CuPy, whose own export may refuse bfloat16.
            self.relabelled = True
            return p.view(_np.uint16).__dlpack__(**kwargs)  # CuPy takes NumPy dtypes
        capsule = p.__dlpack__(**kwargs)
        self.relabelled = relabel(capsule, KDL_BFLOAT, KDL_UINT)
        return capsule

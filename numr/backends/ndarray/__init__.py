"""One backend adapter for every NumPy-like array module (NumPy on the CPU, CuPy on CUDA).

The ops of a device are built from the group modules below, each a ``build(c)`` that
returns ``{op name: function}`` for a :class:`Context`. The functions take and return
native arrays of the module ``c.xp``; where NumPy or CuPy depart from the standard (special
cases, 0-d results that come back as scalars, dtype quirks), the group module corrects it.
"""

from __future__ import annotations

import math

import numpy as _np

from types import SimpleNamespace
from typing import Any

from ... import _dtypes as dt


class NdarrayBackend:
    """What NumPy and CuPy devices share: every dtype, NumPy's default dtypes."""

    def dtypes(self, index: int) -> tuple[dt.DType, ...]:
        return dt.ALL

    def default_dtypes(self, index: int) -> dict[str, dt.DType]:
        return {"real floating": dt.float64, "complex floating": dt.complex128,
                "integral": dt.int64, "indexing": dt.int64}


class Context:
    """What a group module needs to build its ops for one device."""

    def __init__(self, device: Any, xp: Any, compat: Any, held: tuple[dt.DType, ...]):
        self.device: Any = device
        self.xp: Any = xp              # numpy or cupy
        self.compat: Any = compat      # array_api_compat's namespace for xp
        self.held: tuple[dt.DType, ...] = held          # the numr dtypes this device holds
        self.native: dict[dt.DType, Any] = {d: xp.dtype(d.name) for d in held}  # numr dtype -> native
        self.numr: dict[Any, dt.DType] = {v: k for k, v in self.native.items()}  # native -> numr dtype
        self.ndarray: Any = xp.ndarray
        # ml_dtypes' bfloat16 has NumPy kind "V" (a user-defined type), not "f": the ops
        # that branch on a dtype's kind ask kind() instead.
        self.bf16: Any = xp.dtype("bfloat16")

    def kind(self, d: Any) -> str:
        """NumPy's kind letter of native dtype ``d``, with bfloat16 a float ("f")."""
        return "f" if d == self.bf16 else d.kind

    def signed_zero(self, v: Any) -> bool:
        """Whether ``v`` (a Python or NumPy float or complex) is zero with a -0.0 part."""
        return isinstance(v, (float, complex, _np.floating, _np.complexfloating)) and v == 0 and (
            math.copysign(1.0, complex(v).real) < 0 or math.copysign(1.0, complex(v).imag) < 0)

    def signed_zeros(self, shape: tuple[int, ...], dtype: Any, v: Any) -> Any:
        """An array of ``shape`` holding signed zero ``v``, made by negating zeros in a
        kernel: CuPy clears memory for a fill of any value equal to zero (a Python or
        NumPy scalar, and a 0-d array too: the H200 wrote +0.0 through each), so writing
        -0.0 takes arithmetic."""
        xp = self.xp
        r = xp.zeros(shape, dtype=dtype)
        z = complex(v)
        if self.kind(dtype) == "c":
            for part, sign in ((r.real, z.real), (r.imag, z.imag)):
                if math.copysign(1.0, sign) < 0:
                    xp.negative(part, out=part)
        else:
            xp.negative(r, out=r)
        return r

    def arr(self, r: Any) -> Any:
        """A native array from what NumPy returns (a 0-d result can come back as a scalar)."""
        return r if type(r) is self.ndarray else self.xp.asarray(r)


_GROUPS = ("core", "elementwise", "creation", "manipulation", "indexing", "searching",
           "sets", "sorting", "statistical", "utility", "linalg", "fft")


def build_ops(device: Any, xp: Any, compat: Any,
              held: tuple[dt.DType, ...]) -> SimpleNamespace:
    import importlib

    c = Context(device, xp, compat, held)
    ops: dict[str, Any] = {}
    for group in _GROUPS:
        ops.update(importlib.import_module(f"{__name__}.{group}").build(c))
    from .bfloat16 import wrap_ops
    from .._derived import complete

    wrap_ops(c, ops)
    return complete(SimpleNamespace(**ops))

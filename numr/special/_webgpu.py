"""numr.special on WebGPU: one map kernel per function and dtype, whose expression calls
numr's own WGSL helpers (``_wgsl.py``), on the device, with no host round trip.

float16 (and bfloat16) arrays are loaded and stored by the map kernel as float32 values,
so they need no conversion here. A function without WGSL yet raises NotImplementedError
naming it (never a silent host computation).
"""

from __future__ import annotations

from typing import Any

from ..backends.webgpu.kernels import map as M
from ..backends.webgpu.kernels.types import ctype
from ..backends.webgpu.runtime import runtime
from . import _wgsl  # noqa: F401  (registers the helpers)
from ._exprs import EXPR, specialise

HALF_NATIVE = True


def compute(name: str, operands: list, d: Any, shape: tuple, dev: Any):
    e = EXPR.get(name)
    if e is None:
        raise NotImplementedError(f"{name}: numr.special has no WGSL for {name} yet "
                                  f"(on {dev}); see docs/special.md")
    rt = runtime(dev.index)
    expr = specialise(e, ctype(d))
    return M.launch(rt, "special." + name, expr, [(x, d) for x in operands], d, shape)

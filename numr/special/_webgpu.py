"""numr.special on WebGPU: one map kernel per function and dtype, whose expression calls
numr's own WGSL helpers (``_wgsl.py``), on the device, with no host round trip.

float16 (and bfloat16) arrays are loaded and stored by the map kernel as float32 values,
so they need no conversion here. A function without WGSL yet raises NotImplementedError
naming it (never a silent host computation).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from .. import _dtypes as dt
from ..backends.webgpu.kernels import map as M
from ..backends.webgpu.kernels.types import ctype
from ..backends.webgpu.runtime import runtime
from . import _wgsl  # noqa: F401  (registers the helpers)
from ._exprs import EXPR, F64_FOR_F32, WIDE, specialise

HALF_NATIVE = True



# The float32 functions whose kernel evaluates several elements an invocation (map.launch's
# vec4 kernel) rather than one: the light ones, memory-bound since float32's one-operation
# fence (dfa2514). H100, 16M float32, `benchmarks/special.py --devices webgpu --reps 3`
# without and with --webgpu-vec, time / cupyx: erf 2.52 -> 1.80, erfc 2.36 -> 2.05, ndtr
# 2.24 -> 1.89, xlogy 1.85 -> 1.67, entr 1.71 -> 1.58. The heavy ones lose (gammaln 4.1 ->
# 16.4, log_ndtr 3.5 -> 10.7: four elements' registers an invocation), and no float64 row
# moved by more than the run's noise, so float64 keeps one element each.
VEC: frozenset = frozenset({"erf", "erfc", "ndtr", "xlogy", "entr"})


@functools.cache
def _expression(name: str, ct: str, widen: bool) -> str:
    """The WGSL of ``name`` in compute type ``ct`` (specialised once, not per call);
    ``widen``: float64 inside a float32 kernel, each operand widened as it is loaded and
    the result rounded once as it is stored, as astype would."""
    if widen:
        e = specialise(WIDE.get(name, EXPR[name]), "f64")
        return "f32(" + re.sub(r"\b([abc])\b", r"f64(\1)", e) + ")"
    return specialise(EXPR[name], ct)


def compute(name: str, operands: list, d: Any, shape: tuple, dev: Any):
    if name not in EXPR:
        raise NotImplementedError(f"{name}: numr.special has no WGSL for {name} yet "
                                  f"(on {dev}); see docs/special.md")
    rt = runtime(dev.index)
    if d == dt.float32 and name in F64_FOR_F32 and dt.float64 in dev.dtypes:
        # Python scalars passed as float64 (the kernel widens the arrays)
        ops = [(x, dt.float64 if isinstance(x, float) else d) for x in operands]
        return M.launch(rt, "special." + name, _expression(name, "f64", True), ops, d,
                        shape)
    return M.launch(rt, "special." + name, _expression(name, ctype(d), False),
                    [(x, d) for x in operands], d, shape,
                    vec=d == dt.float32 and name in VEC)

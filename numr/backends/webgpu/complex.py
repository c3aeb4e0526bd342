"""How complex64 / complex128 operands reach map kernels; the ops themselves live in
their groups, where complex is one dtype branch (elementwise.py, creation.py, ...).

A complex Python scalar cannot be one map-kernel parameter (map.py packs real scalars
only), so it travels as two real parameters, and the kernel's expression rebuilds
``vec2<T>(re, im)``. The kernels call WGSL helper functions of kernels/complex_expr.py
that map.py's template does not know; :class:`_Helpers` hands map.launch a runtime whose
pipelines get them appended (WGSL functions may be declared in any order), so the launch
plans, strides and broadcasting of map.py are reused unchanged.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

from ... import _dtypes as dt
from . import array as A
from .array import GPUArray
from .kernels import complex_expr as cx
from .kernels import expressions as ex
from .kernels import map as M
from .kernels.named import positional
from .kernels import reduce as R
from .kernels.types import ctype


class _Helpers:
    """The runtime, seen by map.launch, with complex helper functions appended to each
    kernel it compiles (the expression, in the pipeline key, says which are needed)."""

    __slots__ = ("rt", "rtype", "plans")

    def __init__(self, rt: Any, rtype: str):
        self.rt = rt
        self.rtype = rtype
        self.plans: dict[Any, Any] = {}  # launch plans of complex kernels, apart from the real ones

    def pipeline(self, key: Any, source: Callable[[], str], n: int) -> Any:
        expr = key[2]
        return self.rt.pipeline(("complex", self.rtype) + tuple(key),
                                lambda: source() + "\n" + cx.helpers(expr, self.rtype), n)

    def alloc(self, nbytes: int) -> Any:
        return self.rt.alloc(nbytes)

    def record(self, *args: Any) -> Any:
        return self.rt.record(*args)  # the new output's Storage, given ``new``

    def record_new(self, *args: Any) -> Any:
        return self.rt.record_new(*args)  # the new output's Storage


# Complex ops whose WGSL is one expression calling no helper function: map.py's own
# template runs them (other groups' kernels use them through elementwise.expression).
INLINE = frozenset({"add", "subtract", "negative", "positive", "conj", "real", "imag",
                    "equal", "not_equal", "round"})


def rtype(d: dt.DType) -> str:
    """The WGSL type of one part of complex dtype ``d``."""
    return "f64" if d is dt.complex128 else "f32"


def real_of(d: dt.DType) -> dt.DType:
    return dt.float64 if d is dt.complex128 else dt.float32


def parts(v: Any) -> tuple[float, float]:
    v = complex(v)
    return v.real, v.imag


@functools.cache  # one per runtime and part type (runtimes live as long as the process)
def _helpers(rt: Any, part: str) -> _Helpers:
    return _Helpers(rt, part)


def launch(rt: Any, name: str, expr: str, operands: dict[str, tuple[Any, dt.DType]],
           out: dt.DType, shape: tuple[int, ...], part: str,
           into: GPUArray | None = None) -> GPUArray:
    """map.launch of a kernel whose expression may call complex helpers (``part``: the
    complex dtype's part type, f32 or f64); ``operands``: name -> (array or scalar,
    dtype), the names used in ``expr`` (kernels/named.py)."""
    expr = positional(expr, tuple(operands))
    r = M.launch(_helpers(rt, part), "c_" + name, expr, tuple(operands.values()), out,
                 shape, into=into)
    r.rt = rt  # arrays carry the real runtime, never the wrapper
    return r


def operand(x: Any, d: dt.DType, name: str) -> tuple[dict[str, tuple[Any, dt.DType]], str]:
    """({operand name: (value, dtype)}, WGSL of the value) of an array or a Python
    scalar called ``name``: a scalar is two real operands, ``name_re`` and ``name_im``."""
    if type(x) is GPUArray:
        return {name: (x, d)}, name
    re_, im = parts(x)
    rd = real_of(d)
    return ({f"{name}_re": (re_, rd), f"{name}_im": (im, rd)},
            f"vec2<{ctype(rd)}>({name}_re, {name}_im)")


@functools.cache  # expressions are rebuilt by regular expressions: once per signature
def expression(rt: Any, name: str, d: dt.DType, args: tuple[str, ...]) -> str:
    """The WGSL of op ``name`` on complex dtype ``d`` for operand expressions ``args``
    (complex64's pow and expm1 compute in f64 where the device holds float64)."""
    e = cx.expression(name, rtype(d), args, "shader-f64" in rt.features)
    if e is None:
        raise TypeError(f"{name}: dtype {d} is not supported on webgpu:{rt.index}")
    if "f64" in e:
        missing = sorted(op for op in cx.real_ops(e, "f64") if op in ex.F64_GAPS)
        if missing:
            raise NotImplementedError(
                f"{name}: dtype {d} on webgpu:{rt.index} is not implemented yet (it needs "
                f"float64 {', '.join(missing)}, which WGSL lacks and numr has not written "
                f"yet); see README.md, 'WebGPU status'")
    return e


def result(name: str, d: dt.DType) -> dt.DType:
    """The result dtype of elementwise op ``name`` on complex ``d``."""
    if name in cx.BOOL_RESULT:
        return dt.bool
    return real_of(d) if name in cx.REAL_RESULT else d


def product(x: GPUArray, axes: tuple[int, ...]) -> GPUArray:
    """The complex product of ``x`` over ``axes``: reduce.py's sum kernel with its
    combine and identity replaced (same parameters and dispatch)."""
    rt, d = x.rt, x.dtype
    kept = [k for k in range(x.ndim) if k not in axes]
    out_shape = tuple(x.shape[k] for k in kept)
    out = A.new(rt, out_shape, d)
    if out.size == 0:
        return out
    kshape, (kstrides,) = M._collapse(out_shape, [tuple(x.strides[k] for k in kept)])
    rshape0 = tuple(x.shape[k] for k in axes)
    rshape, (rstrides,) = M._collapse(rshape0, [tuple(x.strides[k] for k in axes)])
    nk, nr = len(kshape), len(rshape)
    params = [out.size, math.prod(rshape0), x.offset & 0xFFFFFFFF, *kshape,
              *[s & 0xFFFFFFFF for s in kstrides], *rshape,
              *[s & 0xFFFFFFFF for s in rstrides]]
    t = rtype(d)
    rt.dispatch(("complex-prod", d.name, nk, nr),
                lambda: cx.prod_source(R.source("sum", d, ctype(d), nk, nr), t),
                [x.storage.block, out.storage.block], params, out.size)
    return out

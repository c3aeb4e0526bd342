"""WebGPU ops: statistics and searching reductions: var, std, cumulative_sum, cumulative_prod, argmax, argmin, count_nonzero,
diff, and all/any in place of reductions.py's (NaN and complex input; ops.build takes this
module's OPS after that one's).

var/std and argmax/argmin are one-dispatch reductions (kernels/moments.py,
kernels/argreduce.py; a second small dispatch merges chunks when few outputs reduce
many elements), the scans are block scans with carry propagation (kernels/scan.py);
count_nonzero, all/any and diff are built from a bitwise non-zero mask, the reduction
kernels and the elementwise ops.
"""

from __future__ import annotations

from typing import Callable, Protocol

from ... import _dtypes as dt
from . import array as A
from .array import GPUArray
from .creation import fill
from .elementwise import OPS as ELEMENTWISE, astype
from .kernels import argreduce, moments, scan
from .kernels import map as M
from .kernels import reduce as R
from .kernels.types import index_dtype
from .manipulation import concat
from .reductions import axes_of, finish

# The unpacked dtype a scan accumulates a packed result dtype in.
_SCAN_ACC = {"int8": dt.int32, "int16": dt.int32, "uint8": dt.uint32, "uint16": dt.uint32,
             "float16": dt.float32, "bfloat16": dt.float32}


# The ops' signatures (as the namespace calls them, with keywords).
_Axes = int | tuple[int, ...] | None


class _Moment(Protocol):
    def __call__(self, a: GPUArray, axis: _Axes, correction: float,
                 keepdims: bool) -> GPUArray: ...


class _Scan(Protocol):
    def __call__(self, a: GPUArray, axis: int, dtype: dt.DType,
                 include_initial: bool) -> GPUArray: ...


class _ArgReduction(Protocol):
    def __call__(self, a: GPUArray, axis: int | None, keepdims: bool) -> GPUArray: ...


class _Reduction(Protocol):
    def __call__(self, a: GPUArray, axis: _Axes, keepdims: bool) -> GPUArray: ...


# -- var, std ------------------------------------------------------------------------------

def _moment(kind: str) -> _Moment:
    def op(a: GPUArray, axis: _Axes, correction: float, keepdims: bool) -> GPUArray:
        axes = axes_of(a, axis)
        r = moments.launch(a.rt, kind, a, axes, correction)
        return finish(r, axes, dt.REAL_OF.get(a.dtype, a.dtype), keepdims)
    op.__name__ = kind
    return op


var: _Moment = _moment("var")
std: _Moment = _moment("std")


# -- cumulative_sum, cumulative_prod ---------------------------------------------------------

def _scanner(name: str, kind: str) -> _Scan:
    def op(a: GPUArray, axis: int, dtype: dt.DType, include_initial: bool) -> GPUArray:
        if a.ndim == 0:
            a = a.view((1,), (1,), a.offset)  # a 0-d array scans as a 1-element vector
        acc = _SCAN_ACC.get(dtype.name, dtype)
        r = scan.launch(a.rt, kind, a, axis, dtype, acc, include_initial)
        return r if acc is dtype else astype(r, dtype, False)
    op.__name__ = name
    return op


cumulative_sum: _Scan = _scanner("cumulative_sum", "sum")
cumulative_prod: _Scan = _scanner("cumulative_prod", "prod")


# -- argmax, argmin --------------------------------------------------------------------------

def _arg(kind: str) -> _ArgReduction:
    def op(a: GPUArray, axis: int | None, keepdims: bool) -> GPUArray:
        axes = tuple(range(a.ndim)) if axis is None else (axis,)
        r = argreduce.launch(a.rt, kind, a, axes, index_dtype(a.rt))
        return A.expand(r, axes) if keepdims else r
    op.__name__ = kind
    return op


argmax: _ArgReduction = _arg("argmax")
argmin: _ArgReduction = _arg("argmin")


# -- count_nonzero ---------------------------------------------------------------------------

def nonzero_mask(a: GPUArray) -> GPUArray:
    """``a != 0`` as bools, floats tested through their bits: comparisons with NaN
    are not reliable in WGSL (drivers may assume no NaN), and NaN is non-zero."""
    d = a.dtype
    if d is dt.bool:
        return a
    if d.kind not in ("float", "complex"):
        return astype(a, dt.bool, False)
    wide = dt.float64 in (d, dt.REAL_OF.get(d))
    u, mag = ("u64", "0x7ffffffffffffffflu") if wide else ("u32", "0x7fffffffu")
    bits = f"bitcast<{u}>(a)" if d.kind == "float" else \
        f"(bitcast<{u}>(a.x) | bitcast<{u}>(a.y))"
    return M.launch(a.rt, "nonzero_mask", f"({bits} & {mag}) != {u}(0)", ((a, d),),
                    dt.bool, a.shape)


def count_nonzero(a: GPUArray, axis: _Axes, keepdims: bool) -> GPUArray:
    axes = axes_of(a, axis)
    b = nonzero_mask(a)
    # bools sum in uint32 (kernels/reduce.py); only the result is cast
    return finish(R.launch(a.rt, "sum", b, axes), axes, index_dtype(a.rt), keepdims)


# -- all, any --------------------------------------------------------------------------------
# Replace reductions.py's versions, whose cast to bool compares floats with 0 (NaN is
# truthy, but WGSL may assume no NaN) and has no complex conversion.

def _logical(kind: str) -> _Reduction:
    def op(a: GPUArray, axis: _Axes, keepdims: bool) -> GPUArray:
        b = nonzero_mask(a)
        axes = axes_of(b, axis)
        return finish(R.launch(a.rt, kind, b, axes), axes, dt.bool, keepdims)
    op.__name__ = "any" if kind == "max" else "all"
    return op


any: _Reduction = _logical("max")  # noqa: A001 (the namespace's names)
all: _Reduction = _logical("min")  # noqa: A001


# -- diff ------------------------------------------------------------------------------------

# diff's prepend/append: an array, or a Python scalar standing for one element
_Edge = GPUArray | bool | int | float | complex


def diff(a: GPUArray, axis: int, n: int, prepend: _Edge | None,
         append: _Edge | None) -> GPUArray:
    d = a.dtype

    def edge(v: _Edge) -> GPUArray:
        if type(v) is GPUArray:
            return v
        shape = list(a.shape)  # a Python scalar stands for one element along axis
        shape[axis] = 1
        return fill(a.rt, tuple(shape), v, d)

    parts = ([edge(prepend)] if prepend is not None else []) + [a] + \
        ([edge(append)] if append is not None else [])
    if len(parts) > 1:
        a = concat(parts, axis=axis)
    # n launches of x[1:] - x[:-1] on views (NumPy's order of operations, so float
    # results match it exactly); bools differ where they are not equal
    step = ELEMENTWISE["not_equal" if d is dt.bool else "subtract"]
    head = (slice(None),) * axis
    for _ in range(n):
        m = a.shape[axis]
        if m == 0:
            break
        a = step(A.basic_index(a, head + (slice(1, None),)),
                 A.basic_index(a, head + (slice(0, m - 1),)))
    return a


OPS: dict[str, Callable[..., GPUArray]] = {
    "var": var, "std": std, "cumulative_sum": cumulative_sum,
    "cumulative_prod": cumulative_prod, "argmax": argmax, "argmin": argmin,
    "count_nonzero": count_nonzero, "diff": diff, "any": any, "all": all}

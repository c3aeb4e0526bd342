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


# -- var, std ------------------------------------------------------------------------------

def _moment(kind: str):
    def op(a, axis, correction, keepdims):
        axes = axes_of(a, axis)
        r = moments.launch(a.rt, kind, a, axes, correction)
        return finish(r, axes, dt.REAL_OF.get(a.dtype, a.dtype), keepdims)
    op.__name__ = kind
    return op


var, std = _moment("var"), _moment("std")


# -- cumulative_sum, cumulative_prod ---------------------------------------------------------

def _scanner(name: str, kind: str):
    def op(a, axis, dtype, include_initial):
        if a.ndim == 0:
            a = a.view((1,), (1,), a.offset)  # a 0-d array scans as a 1-element vector
        acc = _SCAN_ACC.get(dtype.name, dtype)
        r = scan.launch(a.rt, kind, a, axis, dtype, acc, include_initial)
        return r if acc is dtype else astype(r, dtype, False)
    op.__name__ = name
    return op


cumulative_sum = _scanner("cumulative_sum", "sum")
cumulative_prod = _scanner("cumulative_prod", "prod")


# -- argmax, argmin --------------------------------------------------------------------------

def _arg(kind: str):
    def op(a, axis, keepdims):
        axes = tuple(range(a.ndim)) if axis is None else (axis,)
        r = argreduce.launch(a.rt, kind, a, axes, index_dtype(a.rt))
        return A.expand(r, axes) if keepdims else r
    op.__name__ = kind
    return op


argmax, argmin = _arg("argmax"), _arg("argmin")


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


def count_nonzero(a, axis, keepdims):
    axes = axes_of(a, axis)
    b = nonzero_mask(a)
    # bools sum in uint32 (kernels/reduce.py); only the result is cast
    return finish(R.launch(a.rt, "sum", b, axes), axes, index_dtype(a.rt), keepdims)


# -- all, any --------------------------------------------------------------------------------
# Replace reductions.py's versions, whose cast to bool compares floats with 0 (NaN is
# truthy, but WGSL may assume no NaN) and has no complex conversion.

def _logical(kind: str):
    def op(a, axis, keepdims):
        b = nonzero_mask(a)
        axes = axes_of(b, axis)
        return finish(R.launch(a.rt, kind, b, axes), axes, dt.bool, keepdims)
    op.__name__ = "any" if kind == "max" else "all"
    return op


any, all = _logical("max"), _logical("min")  # noqa: A001 (the namespace's names)


# -- diff ------------------------------------------------------------------------------------

def diff(a, axis, n, prepend, append):
    d = a.dtype

    def edge(v):
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


OPS = {"var": var, "std": std, "cumulative_sum": cumulative_sum,
       "cumulative_prod": cumulative_prod, "argmax": argmax, "argmin": argmin,
       "count_nonzero": count_nonzero, "diff": diff, "any": any, "all": all}

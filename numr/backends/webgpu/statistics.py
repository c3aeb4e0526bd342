"""WebGPU ops: statistics and searching reductions (registered by ops.build; see
ops.GROUPS): var, std, cumulative_sum, cumulative_prod, argmax, argmin, count_nonzero,
diff.

var/std and argmax/argmin are single-dispatch reductions (kernels/moments.py,
kernels/argreduce.py), the scans are block scans with carry propagation
(kernels/scan.py); count_nonzero and diff are built from the existing ops.
"""

from __future__ import annotations

from ... import _dtypes as dt
from . import array as A
from .array import GPUArray
from .kernels import argreduce, moments, scan
from .kernels import reduce as R

# The unpacked dtype a scan accumulates a packed result dtype in.
_SCAN_ACC = {"int8": dt.int32, "int16": dt.int32, "uint8": dt.uint32, "uint16": dt.uint32,
             "float16": dt.float32}


def _real_view(a: GPUArray) -> GPUArray:
    """A complex array viewed as its float parts, with a trailing axis of 2 (re, im): the
    same buffer, since a complex element is two adjacent floats."""
    f = dt.float64 if a.dtype is dt.complex128 else dt.float32
    return GPUArray(a.storage, a.rt, a.shape + (2,), tuple(2 * s for s in a.strides) + (1,),
                    2 * a.offset, f)


def register(ctx) -> None:
    """Add this group's ops to ctx.ops."""
    rt, ops = ctx.rt, ctx.ops

    def index_dtype() -> dt.DType:
        return ctx.device.defaults["indexing"]

    # -- var, std ------------------------------------------------------------------------

    def moment(kind: str):
        def op(a, axis, correction, keepdims):
            axes = ctx.axes(a, axis)
            r = moments.launch(rt, kind, a, axes, correction)
            return ctx.finish(r, a, axes, dt.REAL_OF.get(a.dtype, a.dtype), keepdims)
        op.__name__ = kind
        return op

    # -- cumulative_sum, cumulative_prod ---------------------------------------------------

    def scanner(name: str, kind: str):
        def op(a, axis, dtype, include_initial):
            if a.ndim == 0:
                a = a.view((1,), (1,), a.offset)  # a 0-d array scans as a 1-element vector
            acc = _SCAN_ACC.get(dtype.name, dtype)
            r = scan.launch(rt, kind, a, axis, dtype, acc, include_initial)
            # r is (rows, L'), rows in the order of the other axes: back to a's axis order
            shape = list(a.shape)
            shape[axis] = r.shape[1]
            moved = tuple(n for k, n in enumerate(shape) if k != axis) + (shape[axis],)
            r = A.reshape_view(r, moved)
            order = list(range(a.ndim - 1))
            order.insert(axis, a.ndim - 1)
            r = A.permute(r, tuple(order))
            return r if acc is dtype else ops["astype"](r, dtype, False)
        op.__name__ = name
        return op

    # -- argmax, argmin ------------------------------------------------------------------

    def arg(kind: str):
        def op(a, axis, keepdims):
            axes = tuple(range(a.ndim)) if axis is None else (axis,)
            r = argreduce.launch(rt, kind, a, axes, index_dtype())
            return A.expand(r, axes) if keepdims else r
        op.__name__ = kind
        return op

    # -- count_nonzero -------------------------------------------------------------------

    def count_nonzero(a, axis, keepdims):
        axes = ctx.axes(a, axis)
        if a.dtype.kind == "complex":
            # non-zero where either part is: any over the (re, im) axis of the float view
            b = ops["any"](_real_view(a), (a.ndim,), False)
        else:
            b = a if a.dtype is dt.bool else ops["astype"](a, dt.bool, False)
        # bools sum in uint32 (kernels/reduce.py); only the result is cast
        return ctx.finish(R.launch(rt, "sum", b, axes), b, axes, index_dtype(), keepdims)

    # -- diff ------------------------------------------------------------------------------

    def diff(a, axis, n, prepend, append):
        d = a.dtype
        parts = []
        for edge in (prepend, None, append):
            if edge is None:
                continue
            if type(edge) is not GPUArray:  # a Python scalar: one element along axis
                shape = list(a.shape)
                shape[axis] = 1
                edge = ops["full"](tuple(shape), edge, d)
            parts.append(edge)
        if parts:
            parts.insert(1 if prepend is not None else 0, a)
            a = ops["concat"](parts, axis=axis)
        step = ops["not_equal" if d is dt.bool else "subtract"]
        head = (slice(None),) * axis
        for _ in range(n):
            m = a.shape[axis]
            if m == 0:
                break
            a = step(A.basic_index(a, head + (slice(1, None),)),
                     A.basic_index(a, head + (slice(0, m - 1),)))
        return a

    ops.update(var=moment("var"), std=moment("std"),
               cumulative_sum=scanner("cumulative_sum", "sum"),
               cumulative_prod=scanner("cumulative_prod", "prod"),
               argmax=arg("argmax"), argmin=arg("argmin"),
               count_nonzero=count_nonzero, diff=diff)

"""WebGPU ops: sum, prod, max, min, mean, any, all over any axes (kernels/reduce.py; a
complex product through complex.py's kernel, a complex sum through the real one, which
adds vec2 values as they are)."""

from __future__ import annotations

import math

from ... import _dtypes as dt
from . import array as A
from . import complex as C
from .array import GPUArray
from .elementwise import astype
from .kernels import reduce as R


_EVERY = [tuple(range(n)) for n in range(65)]  # axis=None: every axis, by ndim


def axes_of(x: GPUArray, axis) -> tuple:
    if axis is None:
        n = len(x.shape)
        return _EVERY[n] if n < 65 else tuple(range(n))
    return (axis,) if isinstance(axis, int) else tuple(axis)


def finish(r: GPUArray, axes: tuple, dtype: dt.DType, keepdims: bool) -> GPUArray:
    """A reduction's result ``r`` in ``dtype``, with the reduced ``axes`` kept as length
    one where ``keepdims``."""
    if r.dtype is not dtype:
        r = astype(r, dtype, False)
    if keepdims:
        r = A.expand(r, axes)
    return r


def _reduce(kind: str, x: GPUArray, axis, dtype: dt.DType | None, keepdims: bool):
    dtype = dtype or x.dtype
    if x.dtype is not dtype:
        x = astype(x, dtype, False)
    axes = axes_of(x, axis)
    r = C.product(x, axes) if kind == "prod" and dtype.kind == "complex" else \
        R.launch(x.rt, kind, x, axes)
    if r.dtype is dtype and not keepdims:  # finish's commonest case, written out
        return r
    return finish(r, axes, dtype, keepdims)


def sum(x, axis, dtype, keepdims):
    d = x.dtype
    if axis is None and (dtype is None or dtype is d) and not keepdims:
        # _reduce's commonest case, written out (a sum of every element, no cast:
        # axes_of's first case; two frames were an eighth of a small sum's host time)
        n = len(x.shape)
        r = R.launch(x.rt, "sum", x, _EVERY[n] if n < 65 else tuple(range(n)))
        return r if r.dtype is d else finish(r, (), d, False)
    return _reduce("sum", x, axis, dtype, keepdims)


def prod(x, axis, dtype, keepdims):
    return _reduce("prod", x, axis, dtype, keepdims)


def max(x, axis, keepdims):
    return _reduce("max", x, axis, None, keepdims)


def min(x, axis, keepdims):
    return _reduce("min", x, axis, None, keepdims)


def any(x, axis, keepdims):
    return _reduce("max", x, axis, dt.bool, keepdims)


def all(x, axis, keepdims):
    return _reduce("min", x, axis, dt.bool, keepdims)


# mean overrides the derived sum / count: the sum's last dispatch divides (one dispatch less).
def mean(x, axis, keepdims):
    d = x.dtype
    axes = axes_of(x, axis)
    if d.kind == "complex":
        count = float(math.prod(x.shape[k] for k in axes))
        s = sum(x, axes, d, keepdims)
        return C.launch(x.rt, "mean", "total / count",
                        {"total": (s, d), "count": (count, C.real_of(d))}, d, s.shape,
                        C.rtype(d))
    # The sum divided in its own last dispatch (kernels/reduce.py); 16-bit floats: the
    # float32 quotient, rounded once (a sum rounded to the dtype first would lose
    # digits, and overflow float16's range).
    r = R.launch(x.rt, "sum", x, axes, mean=True)
    return r if r.dtype is d and not keepdims else finish(r, axes, d, keepdims)


OPS = {"sum": sum, "prod": prod, "max": max, "min": min, "mean": mean, "any": any,
       "all": all}

"""WebGPU ops: the creation functions, each one map kernel (complex fills a branch that
writes ``vec2`` values). Those without an array operand take a
:class:`~.place.Place` first (bound by ops.build); the ``*_like`` ones and tril, triu,
meshgrid work where their arrays are."""

from __future__ import annotations

import builtins
import math

from ... import _dtypes as dt
from . import complex as C
from .array import GPUArray, new
from .elementwise import astype
from .kernels.map import launch
from .kernels.named import launch as named
from .kernels.types import convert, ctype
from .place import Place
from .transfers import copy


def fill(rt, shape: tuple, fill_value, dtype: dt.DType) -> GPUArray:
    """An array of ``shape`` on runtime ``rt`` with every element ``fill_value``."""
    if dtype.kind == "complex":
        operands, w = C.operand(fill_value, dtype, "value")
        return C.launch(rt, "fill", w, operands, dtype, tuple(shape), C.rtype(dtype))
    return launch(rt, "fill", "a", ((fill_value, dtype),), dtype, tuple(shape))


def empty(place: Place, shape, dtype):
    return new(place.rt, tuple(shape), dtype)


def full(place: Place, shape, fill_value, dtype):
    return fill(place.rt, shape, fill_value, dtype)


def arange(place: Place, start, stop, step, dtype):
    rt, wide = place.rt, place.wide
    if dtype.kind == "float":
        n = builtins.max(math.ceil((stop - start) / step), 0)
        w = ctype(wide)
        # fenced: a driver contracting a + i * b into one fma (NVIDIA's does) rounds
        # differently from NumPy's start + i * step
        r = named(rt, "arange", f"start + fence_{w}({w}(i) * step)",
                  {"start": (start, wide), "step": (step, wide)}, wide, (n,))
        return r if dtype is wide else astype(r, dtype, False)
    n = len(range(start, stop, step))
    t = ctype(dtype)
    return named(rt, "arange", f"start + {t}(i) * step",
                 {"start": (start, dtype), "step": (step, dtype)}, dtype, (n,))


def linspace(place: Place, start, stop, num, dtype, endpoint):
    if dtype.kind == "complex":
        # Two real ranges in the widest float, as the NumPy adapter does, then joined.
        (r0, i0), (r1, i1) = C.parts(start), C.parts(stop)
        wide = place.wide
        re_ = linspace(place, r0, r1, num, wide, endpoint)
        im = linspace(place, i0, i1, num, wide, endpoint)
        t = C.rtype(dtype)
        return C.launch(place.rt, "join", f"vec2<{t}>({t}(re), {t}(im))",
                        {"re": (re_, wide), "im": (im, wide)}, dtype, (num,), t)
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    last = num - 1 if endpoint and num > 1 else num
    wide = place.wide
    w = ctype(wide)
    e = f"select(start + fence_{w}({w}(i) * step), stop, i == last)"
    if dtype.kind in ("int", "uint"):
        e = f"floor({e})"  # Note: NumPy rounds integer linspace results towards -inf
    r = named(place.rt, "linspace" + dtype.kind, e,
              {"start": (float(start), wide), "step": (step, wide),
               "stop": (float(stop), wide), "last": (last, dt.uint32)}, wide, (num,))
    return r if dtype is wide else astype(r, dtype, False)


def eye(place: Place, n_rows, n_cols, k, dtype):
    on = "(i32(i % cols) - i32(i / cols) == k)"
    params = {"cols": (builtins.max(n_cols, 1), dt.uint32), "k": (k, dt.int32)}
    if dtype.kind == "complex":
        t = C.rtype(dtype)
        e = f"vec2<{t}>(select({t}(0.0), {t}(1.0), {on}), {t}(0.0))"
        return C.launch(place.rt, "eye", e, params, dtype, (n_rows, n_cols), t)
    return named(place.rt, "eye", convert(dt.bool, dtype, on), params, dtype,
                 (n_rows, n_cols))


def _triangle(name: str, cmp: str):
    def op(x, k):
        d = x.dtype
        rows, cols = x.shape[-2:]
        # i is the linear index of the (contiguous) result
        e = f"select({ctype(d)}(0), x, i32(i % cols) - i32((i / cols) % rows) {cmp} k)"
        return named(x.rt, name, e, {"x": (x, d), "cols": (builtins.max(cols, 1), dt.uint32),
                                     "rows": (builtins.max(rows, 1), dt.uint32),
                                     "k": (k, dt.int32)}, d, x.shape)
    op.__name__ = op.__qualname__ = name
    return op


tril, triu = _triangle("tril", "<="), _triangle("triu", ">=")


def meshgrid(*arrays, indexing):
    n = len(arrays)
    shape = [x.shape[0] for x in arrays]
    if indexing == "xy" and n >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for j, x in enumerate(arrays):
        pos = j
        if indexing == "xy" and n >= 2 and j < 2:
            pos = 1 - j
        strides = [0] * n
        strides[pos] = x.strides[0]
        out.append(copy(x.view(tuple(shape), tuple(strides), x.offset)))
    return tuple(out)


# zeros, ones and the *_like ops are derived from empty and full (numr/backends/_derived.py).
OPS = {"tril": tril, "triu": triu, "meshgrid": meshgrid}
PLACED = {"empty": empty, "full": full, "arange": arange, "linspace": linspace, "eye": eye}
"""Ops that take the Place first."""

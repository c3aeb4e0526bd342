"""WebGPU ops: the elementwise functions of numr's op tables, round, clip, where and
astype; each a map kernel (kernels/map.py) of one WGSL expression, complex dtypes a
branch that calls complex.py's launch (their expressions call helper functions).

Every op takes its runtime from its array operands (``x.rt``).
"""

from __future__ import annotations

import builtins
import functools
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._op_tables import BINARY, UNARY
from ... import _config
from . import complex as C
from . import fusion as F
from .array import GPUArray
from .kernels import complex_expr as cx
from .kernels import expressions as ex
from .kernels import reduce as R
from .kernels.map import launch
from .kernels.named import launch as named, positional
from .kernels.types import KIND, convert, ctype
from .transfers import to_host


def gap(name: str, d: dt.DType, rt: Any, why: str) -> NotImplementedError:
    return NotImplementedError(f"{name}: dtype {d} on webgpu:{rt.index} is not implemented "
                               f"yet ({why}); see README.md, 'WebGPU status'")


_BROADCAST: dict[tuple, tuple] = {}  # shapes -> their broadcast shape (a loop repeats them)


def broadcast_shape(name: str, *shapes: tuple) -> tuple:
    if shapes.count(shapes[0]) == len(shapes):  # most calls: one shape
        return shapes[0]
    out = _BROADCAST.get(shapes)
    if out is None:
        out = _broadcast(name, shapes)
        if len(_BROADCAST) >= 4096:
            _BROADCAST.clear()
        _BROADCAST[shapes] = out
    return out


def _broadcast(name: str, shapes: tuple) -> tuple:
    nd = max(len(s) for s in shapes)
    out = []
    for k in range(nd):
        n = 1
        for s in shapes:
            m = s[k - nd + len(s)] if k - nd + len(s) >= 0 else 1
            if m != 1:
                if n != 1 and n != m:
                    raise ValueError(f"{name}: shapes {shapes} cannot be broadcast together")
                n = m
        out.append(n)
    return tuple(out)


@functools.cache
def _real_expression(name: str, d: dt.DType) -> str | None:
    if name == "nextafter" and d.name in ex.NEXTAFTER16:
        return ex.NEXTAFTER16[d.name]
    return ex.expression(name, KIND[d.kind], ctype(d))


def expression(rt: Any, name: str, d: dt.DType) -> str:
    """The WGSL of op ``name`` on operands ``a`` (and ``b``) of dtype ``d``, for kernels
    of map.py's own template: complex only for the ops that call no helper function."""
    if d.kind == "complex":
        if name in C.INLINE:
            return C.expression(rt, name, d, ("a", "b"))
        raise gap(name, d, rt, "complex arithmetic has no WGSL kernels yet")
    e = _real_expression(name, d)
    if e is None:
        raise TypeError(f"{name}: dtype {d} is not supported on webgpu:{rt.index}")
    return e


_RESULT = {"same": lambda d: d, "bool": lambda d: dt.bool,
           "real": lambda d: dt.REAL_OF.get(d, d)}


def _entry(rt: Any, name: str, rule: str, d: dt.DType) -> tuple:
    """(expression, result dtype, complex part type or None, its weight in fused
    kernels: the length of the WGSL helpers it calls, see fusion.apply)."""
    if d.kind == "complex":
        if name not in cx.EXPRESSIONS:
            raise gap(name, d, rt, "complex arithmetic has no WGSL kernels yet")
        return None, C.result(name, d), C.rtype(d), 0  # the expression: per call (scalars)
    e = expression(rt, name, d)
    return e, _RESULT[rule](d), None, F.weight(e, d)


def unary(name: str, rule: str):
    """The op ``name(x)``. Per op a dict dtype -> entry: one look-up on the hot path of
    every elementwise op (an unsupported dtype raises and is not stored)."""
    table: dict = {}

    def op(x):
        d = x.dtype
        k = table.get(d)
        if k is None:
            k = table[d] = _entry(x.rt, name, rule, d)
        if k[2] is None:
            # NUMR_WEBGPU_FUSE, read without a call on every op
            return F.apply(x.rt, name, k[0], d, k[1], x, None, x.shape, k[3],
                           _config.current.webgpu_fuse)
        return C.launch(x.rt, name, C.expression(x.rt, name, d, ("a",)), {"a": (x, d)}, k[1],
                        x.shape, k[2])
    op.__name__ = op.__qualname__ = name
    return op


def binary(name: str, rule: str):
    """The op ``name(x1, x2)``, one of them possibly a Python scalar (of the array's
    dtype, as numr sends it)."""
    table: dict = {}

    def op(x1, x2):
        if type(x1) is GPUArray:
            rt = x1.rt
            d = x1.dtype
            shape = x1.shape
            if type(x2) is GPUArray and x2.shape != shape:
                shape = broadcast_shape(name, shape, x2.shape)
        else:
            rt, d, shape = x2.rt, x2.dtype, x2.shape
        k = table.get(d)
        if k is None:
            k = table[d] = _entry(rt, name, rule, d)
        if k[2] is None:
            return F.apply(rt, name, k[0], d, k[1], x1, x2, shape, k[3],
                           _config.current.webgpu_fuse)
        # the tables' operand names: a and b (a complex scalar: a_re, a_im)
        ops1, w1 = C.operand(x1, d, "a")
        ops2, w2 = C.operand(x2, d, "b")
        return C.launch(rt, name, C.expression(rt, name, d, (w1, w2)), {**ops1, **ops2},
                        k[1], shape, k[2])
    op.__name__ = op.__qualname__ = name
    return op


OPS = {name: unary(name, rule) for name, (_, rule) in UNARY.items()}
OPS.update({name: binary(name, rule) for name, (_, rule) in BINARY.items()})
_pow, maximum, minimum, trunc = OPS["pow"], OPS["maximum"], OPS["minimum"], OPS["trunc"]


def pow(x1, x2):
    d = x1.dtype if type(x1) is GPUArray else x2.dtype
    if d.kind == "int":
        # The standard leaves it undefined; numr raises on every device, as NumPy.
        # An array exponent costs one word read back (an error check, as on CUDA).
        negative = type(x2) is int and x2 < 0
        if type(x2) is GPUArray and x2.size:
            below = launch(x2.rt, "less", expression(x2.rt, "less", d), ((x2, d), (0, d)),
                           dt.bool, x2.shape)
            negative = bool(to_host(R.launch(x2.rt, "max", below,
                                             tuple(range(below.ndim)))).item())
        if negative:
            raise ValueError("pow: integers to negative integer powers are not allowed")
    return _pow(x1, x2)


def round(x, decimals=0):
    d, rt = x.dtype, x.rt
    if d.kind == "complex":
        return _round_complex(x, decimals)
    if decimals == 0 or d.kind != "float":
        if decimals < 0 and d.kind in ("int", "uint"):
            return _round_int(x, -decimals)
        return trunc(x) if d.kind != "float" else \
            launch(rt, "round", expression(rt, "round", d), ((x, d),), d, x.shape)
    # NumPy's way: scale, round half to even, unscale.
    s = 10.0 ** abs(decimals)
    e = "round(x * scale) / scale" if decimals > 0 else "round(x / scale) * scale"
    return named(rt, "round" + ("+" if decimals > 0 else "-"), e,
                 {"x": (x, d), "scale": (s, d)}, d, x.shape)


def _round_complex(x, decimals: int):
    d, rt = x.dtype, x.rt
    part = C.rtype(d)
    if decimals == 0:
        return C.launch(rt, "round", C.expression(rt, "round", d, ("a",)), {"a": (x, d)}, d,
                        x.shape, part)
    # NumPy's way, part by part: scale, round half to even, unscale.
    s = 10.0 ** builtins.abs(decimals)
    e = C.expression(rt, "round", d, ("(x * scale)" if decimals > 0 else "(x / scale)",))
    e = f"({e}) / scale" if decimals > 0 else f"({e}) * scale"
    return C.launch(rt, "round" + ("+" if decimals > 0 else "-"), e,
                    {"x": (x, d), "scale": (s, C.real_of(d))}, d, x.shape, part)


def _round_int(x, k: int):
    """Integers to a multiple of 10**k, half to even (NumPy's rule), in the compute
    type: floor division q, remainder r = a - q * b, then r > b - r (which cannot
    overflow where 2 * r could) or a tie with q odd rounds up."""
    d = x.dtype
    m = 10 ** k
    if m > np.iinfo(d.name).max:
        return launch(x.rt, "fill", "a", ((0, d),), d, x.shape)
    t = ctype(d)
    q = f"(x / m - select({t}(0), {t}(1), x - (x / m) * m < {t}(0)))"  # no signed %
    r = f"(x - {q} * m)"
    up = f"({r} > m - {r} || ({r} == m - {r} && ({q} & {t}(1)) != {t}(0)))"
    return named(x.rt, "round_int", f"({q} + select({t}(0), {t}(1), {up})) * m",
                 {"x": (x, d), "m": (m, d)}, d, x.shape)


def clip(x, lo, hi):
    r = x
    if lo is not None:
        r = maximum(r, lo)
    if hi is not None:
        r = minimum(r, hi)
    if r is x:
        r = launch(x.rt, "copy", "a", ((x, x.dtype),), x.dtype, x.shape)
    return r


# where's expression with map.py's operand names (named() would rename it per call)
_WHERE = positional("select(x2, x1, cond)", ("cond", "x1", "x2"))


def where(cond, x1, x2):
    # cond: always an array (the namespace makes it one)
    t1, t2 = type(x1) is GPUArray, type(x2) is GPUArray
    d = x1.dtype if t1 else x2.dtype
    rt = cond.rt
    shape = cond.shape
    if (t1 and x1.shape != shape) or (t2 and x2.shape != shape):
        shape = broadcast_shape("where", *[o.shape for o in (cond, x1, x2)
                                           if type(o) is GPUArray])
    if d.kind == "complex":
        ops1, w1 = C.operand(x1, d, "x1")
        ops2, w2 = C.operand(x2, d, "x2")
        return C.launch(rt, "where", f"select({w2}, {w1}, cond)",
                        {"cond": (cond, dt.bool), **ops1, **ops2}, d, shape, C.rtype(d))
    return launch(rt, "where", _WHERE, ((cond, dt.bool), (x1, d), (x2, d)), d, shape)


def astype(x: GPUArray, dtype: dt.DType, copy: bool = True) -> GPUArray:
    src, rt = x.dtype, x.rt
    if src is dtype:
        return launch(rt, "copy", "a", ((x, src),), src, x.shape) if copy else x
    if dtype.kind == "complex":
        ct = f"vec2<{C.rtype(dtype)}>"
        if src.kind == "complex":
            e = f"{ct}(a)"  # each part rounded to the narrower type, or widened
        else:
            e = f"{ct}({convert(src, C.real_of(dtype), 'a')}, 0.0)"
        return C.launch(rt, "astype", e, {"a": (x, src)}, dtype, x.shape, C.rtype(dtype))
    if src.kind == "complex":
        # complex -> bool: nonzero where either part is (NumPy); -> real: the real part
        # (numr refuses that cast above the backend, NumPy keeps the real part).
        if dtype.kind == "bool":
            e = "!(a.x == 0.0 && a.y == 0.0)"  # Note: NaN != 0 is false on some drivers
        else:
            e = convert(C.real_of(src), dtype, "a.x")
        return C.launch(rt, "astype", e, {"a": (x, src)}, dtype, x.shape, C.rtype(src))
    e = _conversion(src, dtype)
    # conversions are short: weight 0
    return F.apply(rt, "astype", e, src, dtype, x, None, x.shape, 0,
                   _config.current.webgpu_fuse)


@functools.cache
def _conversion(src: dt.DType, dtype: dt.DType) -> str:
    """astype's WGSL of operand ``a`` (written once per pair of real dtypes)."""
    return convert(src, dtype, "a")


OPS.update(pow=pow, round=round, clip=clip, where=where, astype=astype)

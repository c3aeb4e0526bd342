"""WebGPU ops: complex64 / complex128 (registered by ops.build first; see ops.GROUPS).

The core ops of ops.py compute bool/integer/float dtypes and raise a gap for complex;
this module wraps each op that the standard defines for complex so that complex
operands go to kernels of kernels/complex_expr.py and everything else keeps its path.

A complex Python scalar cannot be one map-kernel parameter (map.py packs real scalars
only), so it travels as two real parameters, and the kernel's expression rebuilds
``vec2<T>(re, im)``. The kernels call WGSL helper functions that map.py's template
does not know; :class:`_Helpers` hands map.launch a runtime whose pipelines get them
appended (WGSL functions may be declared in any order), so the launch plans, strides
and broadcasting of map.py are reused unchanged.
"""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any

from ... import _dtypes as dt
from ..._elementwise import BINARY, UNARY
from . import array as A
from .array import GPUArray
from .kernels import complex_expr as cx
from .kernels import expressions as ex
from .kernels import map as M
from .kernels import reduce as R
from .kernels.types import convert, ctype


class _Helpers:
    """The runtime, seen by map.launch, with complex helper functions appended to each
    kernel it compiles (the expression, in the pipeline key, says which are needed)."""

    __slots__ = ("rt", "rtype", "plans")

    def __init__(self, rt: Any, rtype: str):
        self.rt = rt
        self.rtype = rtype
        self.plans: dict = {}  # launch plans of complex kernels, apart from the core's

    def pipeline(self, key: Any, source, n: int) -> Any:
        expr = key[2]
        return self.rt.pipeline(("complex", self.rtype) + tuple(key),
                                lambda: source() + "\n" + cx.helpers(expr, self.rtype), n)

    def alloc(self, nbytes: int) -> Any:
        return self.rt.alloc(nbytes)

    def record(self, *args) -> Any:
        return self.rt.record(*args)  # the new output's Storage, given ``new``


# Complex ops whose WGSL is one expression calling no helper function.
_INLINE = frozenset({"add", "subtract", "negative", "positive", "conj", "real", "imag",
                     "equal", "not_equal", "round"})


def _rtype(d: dt.DType) -> str:
    return "f64" if d is dt.complex128 else "f32"


def _real_of(d: dt.DType) -> dt.DType:
    return dt.float64 if d is dt.complex128 else dt.float32


def _parts(v: Any) -> tuple[float, float]:
    v = complex(v)
    return v.real, v.imag


def register(ctx) -> None:
    """Wrap ctx.ops so complex dtypes are computed here."""
    rt, ops = ctx.rt, ctx.ops
    wrapped = {"f32": _Helpers(rt, "f32"), "f64": _Helpers(rt, "f64")}
    wide = dt.float64 in ctx.held  # complex64's pow and expm1 then compute in f64

    def launch(name: str, expr: str, operands, out: dt.DType, shape: tuple,
               rtype: str, into: GPUArray | None = None) -> GPUArray:
        r = M.launch(wrapped[rtype], "c_" + name, expr, operands, out, shape, into=into)
        r.rt = rt  # arrays carry the real runtime, never the wrapper
        return r

    def operand(x: Any, d: dt.DType, names: list) -> tuple[list, str]:
        """(operand list, WGSL of the value) of an array or a Python scalar; its WGSL
        names are taken from the front of ``names`` (one for an array, two for a
        scalar: its real and imaginary parts)."""
        if type(x) is GPUArray:
            return [(x, d)], names.pop(0)
        re_, im = _parts(x)
        rd = _real_of(d)
        return [(re_, rd), (im, rd)], f"vec2<{ctype(rd)}>({names.pop(0)}, {names.pop(0)})"

    @functools.cache  # expressions are rebuilt by regular expressions: once per signature
    def checked_expr(name: str, d: dt.DType, args: tuple) -> str:
        e = cx.expression(name, _rtype(d), args, wide)
        if e is None:
            raise TypeError(f"{name}: dtype {d} is not supported on {ctx.device}")
        if "f64" in e:
            missing = sorted(op for op in cx.real_ops(e, "f64") if op in ex.F64_GAPS)
            if missing:
                raise ctx.gap(name, d, "it needs float64 " + ", ".join(missing)
                              + ", which WGSL lacks and numr has not written yet")
        return e

    def result(name: str, d: dt.DType) -> dt.DType:
        if name in cx.BOOL_RESULT:
            return dt.bool
        return _real_of(d) if name in cx.REAL_RESULT else d

    # -- elementwise ---------------------------------------------------------------------

    def unary(name: str, core):
        def op(a):
            d = a.dtype
            if d.kind != "complex":
                return core(a)
            return launch(name, checked_expr(name, d, ("a",)), ((a, d),), result(name, d),
                          a.shape, _rtype(d))
        op.__name__ = name
        return op

    def binary(name: str, core):
        def op(a, b):
            d = a.dtype if type(a) is GPUArray else b.dtype
            if d.kind != "complex":
                return core(a, b)
            names = list("abcd")
            ops_a, wa = operand(a, d, names)
            ops_b, wb = operand(b, d, names)
            shapes = [x.shape for x in (a, b) if type(x) is GPUArray]
            shape = shapes[0] if len(shapes) == 1 or shapes[0] == shapes[1] \
                else ctx.broadcast_shape(name, *shapes)
            return launch(name, checked_expr(name, d, (wa, wb)), tuple(ops_a + ops_b),
                          result(name, d), shape, _rtype(d))
        op.__name__ = name
        return op

    # Later groups build kernels from ctx.expr with ctx.launch (map.py's template, which
    # knows no complex helpers): give them the complex ops that need none.
    core_expr = ctx.expr

    def expr(name: str, d: dt.DType) -> str:
        if d.kind == "complex" and name in _INLINE:
            return checked_expr(name, d, ("a", "b"))
        return core_expr(name, d)

    ctx.expr = expr

    for name in UNARY:
        if name in cx.EXPRESSIONS:
            ops[name] = unary(name, ops[name])
    for name in BINARY:
        if name in cx.EXPRESSIONS:
            ops[name] = binary(name, ops[name])

    core_round = ops["round"]

    def round(a, decimals=0):
        d = a.dtype
        if d.kind != "complex":
            return core_round(a, decimals=decimals)
        rtype = _rtype(d)
        if decimals == 0:
            return launch("round", checked_expr("round", d, ("a",)), ((a, d),), d, a.shape,
                          rtype)
        # NumPy's way, part by part: scale, round half to even, unscale.
        s = 10.0 ** builtins.abs(decimals)
        e = checked_expr("round", d, ("(a * b)" if decimals > 0 else "(a / b)",))
        e = f"({e}) / b" if decimals > 0 else f"({e}) * b"
        return launch("round" + ("+" if decimals > 0 else "-"), e,
                      ((a, d), (s, _real_of(d))), d, a.shape, rtype)

    ops["round"] = round

    # -- conversions, creation, selection --------------------------------------------------

    core_astype = ops["astype"]

    def astype(a, dtype, copy=True):
        src = a.dtype
        if src.kind != "complex" and dtype.kind != "complex":
            return core_astype(a, dtype, copy)
        if src is dtype:
            return core_astype(a, dtype, copy)
        if dtype.kind == "complex":
            ct = f"vec2<{_rtype(dtype)}>"
            if src.kind == "complex":
                e = f"{ct}(a)"  # each part rounded to the narrower type, or widened
            else:
                e = f"{ct}({convert(src, _real_of(dtype), 'a')}, 0.0)"
            return launch("astype", e, ((a, src),), dtype, a.shape, _rtype(dtype))
        # complex -> bool: nonzero where either part is (NumPy); -> real: the real part
        # (numr refuses that cast above the backend, NumPy keeps the real part).
        if dtype.kind == "bool":
            e = "!(a.x == 0.0 && a.y == 0.0)"  # Note: NaN != 0 is false on some drivers
        else:
            e = convert(_real_of(src), dtype, "a.x")
        return launch("astype", e, ((a, src),), dtype, a.shape, _rtype(src))

    core_full, core_eye, core_linspace = ops["full"], ops["eye"], ops["linspace"]

    def full(shape, fill_value, dtype):
        if dtype.kind != "complex":
            return core_full(shape, fill_value, dtype)
        ops_, w = operand(fill_value, dtype, list("ab"))
        return launch("fill", w, tuple(ops_), dtype, tuple(shape), _rtype(dtype))

    def eye(n_rows, n_cols, k, dtype):
        if dtype.kind != "complex":
            return core_eye(n_rows, n_cols, k, dtype)
        t = _rtype(dtype)
        on = "(i32(i % a) - i32(i / a) == b)"
        e = f"vec2<{t}>(select({t}(0.0), {t}(1.0), {on}), {t}(0.0))"
        return launch("eye", e, ((builtins.max(n_cols, 1), dt.uint32), (k, dt.int32)),
                      dtype, (n_rows, n_cols), t)

    def linspace(start, stop, num, dtype, endpoint):
        if dtype.kind != "complex":
            return core_linspace(start, stop, num, dtype, endpoint)
        # Two real ranges in the widest float, as the NumPy adapter does, then joined.
        (r0, i0), (r1, i1) = _parts(start), _parts(stop)
        wide = ctx.wide
        re_ = core_linspace(r0, r1, num, wide, endpoint)
        im = core_linspace(i0, i1, num, wide, endpoint)
        t = _rtype(dtype)
        return launch("join", f"vec2<{t}>({t}(a), {t}(b))", ((re_, wide), (im, wide)),
                      dtype, (num,), t)

    ops.update(
        astype=astype, full=full, eye=eye, linspace=linspace,
        zeros=lambda shape, dtype: full(shape, 0, dtype),
        ones=lambda shape, dtype: full(shape, 1, dtype),
        zeros_like=lambda x, dtype: full(x.shape, 0, dtype),
        ones_like=lambda x, dtype: full(x.shape, 1, dtype),
        full_like=lambda x, fill_value, dtype: full(x.shape, fill_value, dtype))

    core_where = ops["where"]

    def where(cond, x1, x2):
        d = x1.dtype if type(x1) is GPUArray else x2.dtype
        if d.kind != "complex":
            return core_where(cond, x1, x2)
        names = list("bcde")
        ops1, w1 = operand(x1, d, names)
        ops2, w2 = operand(x2, d, names)
        shape = ctx.broadcast_shape("where", *[o.shape for o in (cond, x1, x2)
                                               if type(o) is GPUArray])
        return launch("where", f"select({w2}, {w1}, a)",
                      tuple([(cond, dt.bool)] + ops1 + ops2), d, shape, _rtype(d))

    ops["where"] = where

    # -- writes --------------------------------------------------------------------------

    core_setitem = ops["setitem"]

    def setitem(a, key, value):
        if a.dtype.kind != "complex" or type(value) is GPUArray:
            return core_setitem(a, key, value)
        keys = key if isinstance(key, tuple) else (key,)
        if any(type(k) is GPUArray for k in keys):
            return core_setitem(a, key, value)  # array keys: the indexing group's path
        d = a.dtype
        if a.readonly:
            raise ValueError("setitem: the array is a read-only view")
        view = A.basic_index(a, keys)
        ops_, w = operand(value, d, list("ab"))
        launch("fill", w, tuple(ops_), d, view.shape, _rtype(d), into=view)

    ops["setitem"] = setitem

    # -- reductions ----------------------------------------------------------------------

    core_sum, core_prod, core_mean = ops["sum"], ops["prod"], ops["mean"]

    def _prepared(a, dtype):
        dtype = dtype or a.dtype
        if a.dtype is not dtype:
            a = astype(a, dtype, False)
        return a, dtype

    def sum(a, axis, dtype, keepdims):
        if (dtype or a.dtype).kind != "complex":
            return core_sum(a, axis, dtype, keepdims)
        # reduce.py's sum is already right for vec2 (x + y, zero identity, no helpers).
        a, dtype = _prepared(a, dtype)
        axes = ctx.axes(a, axis)
        return ctx.finish(R.launch(rt, "sum", a, axes), a, axes, dtype, keepdims)

    def prod(a, axis, dtype, keepdims):
        if (dtype or a.dtype).kind != "complex":
            return core_prod(a, axis, dtype, keepdims)
        a, dtype = _prepared(a, dtype)
        axes = ctx.axes(a, axis)
        return ctx.finish(_prod(a, axes), a, axes, dtype, keepdims)

    def _prod(x: GPUArray, axes: tuple) -> GPUArray:
        """R.launch's reduction with a complex product (reduce.py's sum kernel with its
        combine and identity replaced; same parameters and dispatch)."""
        d = x.dtype
        kept = [k for k in range(x.ndim) if k not in axes]
        out_shape = tuple(x.shape[k] for k in kept)
        result = A.new(rt, out_shape, d)
        if result.size == 0:
            return result
        kshape, (kstrides,) = M._collapse(out_shape, [tuple(x.strides[k] for k in kept)])
        rshape0 = tuple(x.shape[k] for k in axes)
        rshape, (rstrides,) = M._collapse(rshape0, [tuple(x.strides[k] for k in axes)])
        nk, nr = len(kshape), len(rshape)
        params = [result.size, math.prod(rshape0), x.offset & 0xFFFFFFFF, *kshape,
                  *[s & 0xFFFFFFFF for s in kstrides], *rshape,
                  *[s & 0xFFFFFFFF for s in rstrides]]
        t = _rtype(d)
        rt.dispatch(("complex-prod", d.name, nk, nr),
                    lambda: cx.prod_source(R.source("sum", d, ctype(d), nk, nr), t),
                    [x.storage.block, result.storage.block], params, result.size)
        return result

    def mean(a, axis, keepdims):
        d = a.dtype
        if d.kind != "complex":
            return core_mean(a, axis, keepdims)
        axes = ctx.axes(a, axis)
        count = math.prod(a.shape[k] for k in axes)
        s = sum(a, axes, d, keepdims)
        return launch("mean", "a / b", ((s, d), (float(count), _real_of(d))), d, s.shape,
                      _rtype(d))

    ops.update(sum=sum, prod=prod, mean=mean)

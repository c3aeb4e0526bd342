"""WebGPU ops: matmul & co and the linear algebra that is not a decomposition.

matmul and tensordot run the tiled product kernel of :mod:`.kernels.matmul`; vecdot,
trace and the norms its contraction kernel; diagonals are views, copied (as the
standard's copy semantics ask). The norms that need singular values (2, -2, 'nuc') call
svd.py. Complex dtypes are a branch of each op's WGSL term. matrix_transpose, outer and
matrix_power are derived from these (numr/backends/_derived.py).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from ... import _dtypes as dt
from . import array as A
from . import svd
from .array import GPUArray, new
from .creation import fill
from .elementwise import astype, broadcast_shape
from .kernels import matmul as K
from .kernels.map import _collapse
from .kernels.named import launch as named
from .kernels.types import convert, ctype
from .manipulation import reshape
from .transfers import copy

# The unpacked dtype a product or sum of each packed dtype is computed and written in.
_ACC = {"bool": dt.uint32, "int8": dt.int32, "int16": dt.int32, "uint8": dt.uint32,
        "uint16": dt.uint32, "float16": dt.float32, "bfloat16": dt.float32}
_INF = math.inf


def _acc(d: dt.DType) -> dt.DType:
    return _ACC.get(d.name, d)


def _cmul(x: str, y: str, t: str) -> str:
    """WGSL of the complex product of vec2 expressions x and y (type t)."""
    return f"{t}({x}.x * {y}.x - {x}.y * {y}.y, {x}.x * {y}.y + {x}.y * {y}.x)"


def _cast(r: GPUArray, d: dt.DType) -> GPUArray:
    return r if r.dtype is d else astype(r, d, False)


# -- launch plans ------------------------------------------------------------------------

# Everything but the operands' offsets depends only on the runtime, dtypes, shapes and
# strides, so a repeated product or contraction builds nothing. Keys start with the
# runtime (a plan holds its compiled pipeline).
_PLANS: dict[tuple[Any, ...], tuple[Any, ...]] = {}


def _remember(sig: tuple[Any, ...], plan: tuple[Any, ...]) -> tuple[Any, ...]:
    if len(_PLANS) >= 4096:
        _PLANS.clear()  # many distinct shapes: start over rather than grow
    _PLANS[sig] = plan
    return plan


# -- the product kernel -------------------------------------------------------------------

def product(x1: GPUArray, x2: GPUArray) -> GPUArray:
    """``x1 @ x2`` for x1 (..., M, K) and x2 (..., K, N) of one dtype: a contiguous
    (batch..., M, N) result in the unpacked compute dtype (see _ACC)."""
    rt = x1.rt
    sig = (rt, "mm", x1.dtype, x1.shape, x1.strides, x1.offset & 3, x2.shape, x2.strides,
           x2.offset & 3)
    plan = _PLANS.get(sig) or _remember(sig, _product_plan(x1, x2))
    kind, shape, acc = plan[:3]
    if kind == "skinny":
        vshape, v1, v2, red, per_thread = plan[3:8]
        return contract("matmul", x1.view(vshape, v1, x1.offset),
                        x2.view(vshape, v2, x2.offset), None, red, acc, "sum", plan[8],
                        per_thread=per_thread)
    out = new(rt, shape, acc)
    if kind == "empty":
        return out
    pipe, params, groups = plan[3:]
    params = params.copy()
    params[6] = x1.offset & 0xFFFFFFFF
    params[9] = x2.offset & 0xFFFFFFFF
    rt.record(pipe, (x1.storage.block, x2.storage.block, out.storage.block), params, groups)
    return out


def _vector_loads(d: dt.DType, cfg: tuple[int, ...], x1: GPUArray, x2: GPUArray,
                  shapes: tuple[int, int, int],
                  strides: tuple[Any, ...]) -> tuple[str | None, str | None]:
    """Which operand loads vec4s along which axis ("k", "x" or None each): along the
    contiguous axis of an operand whose other strides and offset keep every vec4
    16-byte aligned (4-element aligned for the tiled kernel's float16/bfloat16), with
    whole vec4s per invocation."""
    M, N, Kn = shapes
    s1m, s1k, s2k, s2n, bs1, bs2 = strides
    BM, BN = cfg[0], cfg[1]
    tiled = isinstance(cfg, K.Tile)
    threads = cfg.threads if tiled else K.THREADS
    whole = (BM * cfg[2] // 4) % threads == 0 and (BN * cfg[2] // 4) % threads == 0
    aligned = (K.global_vec_ok(d) or (tiled and d.name in K.TILED_DTYPES)) and whole
    vec1 = vec2 = None
    if aligned and x1.offset % 4 == 0 and all(s % 4 == 0 for s in bs1):
        if s1k == 1 and Kn % 4 == 0 and s1m % 4 == 0:
            vec1 = "k"
        elif s1m == 1 and M % 4 == 0 and s1k % 4 == 0:
            vec1 = "x"
    if aligned and x2.offset % 4 == 0 and all(s % 4 == 0 for s in bs2):
        if s2n == 1 and N % 4 == 0 and s2k % 4 == 0:
            vec2 = "x"
        elif s2k == 1 and Kn % 4 == 0 and s2n % 4 == 0:
            vec2 = "k"
    return vec1, vec2


def _product_plan(x1: GPUArray, x2: GPUArray) -> tuple[Any, ...]:
    rt, d = x1.rt, x1.dtype
    acc = _acc(d)
    M, Kn = x1.shape[-2:]
    N = x2.shape[-1]
    batch = broadcast_shape("matmul", x1.shape[:-2], x2.shape[:-2])
    nbatch = math.prod(batch)
    if nbatch * M * N == 0:
        return ("empty", batch + (M, N), acc)
    st1 = A.broadcast(x1, batch + (M, Kn)).strides
    st2 = A.broadcast(x2, batch + (Kn, N)).strides
    if M == 1 or N == 1 or M * N <= 64:
        return _skinny_plan(batch, M, N, Kn, st1, st2, acc)
    bshape, (bs1, bs2) = _collapse(batch, [st1[:-2], st2[:-2]])
    s1m, s1k = (st1[-2] if M > 1 else 0), (st1[-1] if Kn > 1 else 0)
    s2k, s2n = (st2[-2] if Kn > 1 else 0), (st2[-1] if N > 1 else 0)
    smem = int(rt.limits.get("max-compute-workgroup-storage-size", 16384))
    cfg = K.config(d, M, N, smem)
    layout = ((M, N, Kn), (s1m, s1k, s2k, s2n, bs1, bs2))
    vec1, vec2 = _vector_loads(d, cfg, x1, x2, *layout)
    if isinstance(cfg, K.Tile) and not (vec1 and vec2):  # the tiled kernel reads vec4s
        cfg = K.generic_config(d, M, N, smem)
        vec1, vec2 = _vector_loads(d, cfg, x1, x2, *layout)
    tiled = isinstance(cfg, K.Tile)
    # The tiled kernel writes float32 (acc) whatever it reads.
    vec_out = N % 4 == 0 and (tiled or (K.vector_ok(d) and acc is d))
    major1 = "x" if s1m == 1 and s1k != 1 else "k"
    major2 = "k" if s2k == 1 and s2n != 1 else "x"
    tm, tn = -(-M // cfg[0]), -(-N // cfg[1])
    params = [M, N, Kn, tm, tn, nbatch, 0, s1m, s1k, 0, s2k, s2n]
    for n, t1, t2 in zip(bshape, bs1, bs2):
        params += [n, t1, t2]
    params = [p & 0xFFFFFFFF for p in params]
    nb = len(bshape)
    key = ("matmul", d.name, cfg, nb, vec1, vec2, vec_out, major1, major2)
    pipe = rt.pipeline(key, lambda: K.matmul_source(d, cfg, nb, vec1, vec2, vec_out,
                                                    major1, major2), 3,
                       trusted=tiled and not cfg.checked)
    return ("tiled", batch + (M, N), acc, pipe, params, nbatch * tm * tn)


def _skinny_plan(batch: tuple[int, ...], M: int, N: int, Kn: int, st1: tuple[int, ...],
                 st2: tuple[int, ...], acc: dt.DType) -> tuple[Any, ...]:
    """A product with a vector side (or tiny matrices) as a contraction over K of
    (batch, M, N, K) views: a tile of 64 x 64 would be nearly all padding."""
    vshape = batch + (M, N, Kn)
    v1 = st1[:-2] + (st1[-2], 0, st1[-1])
    v2 = st2[:-2] + (0, st2[-1], st2[-2])
    ct = ctype(acc)
    term = _cmul("a", "b", ct) if acc.kind == "complex" else "a * b"
    # Invocations walk K themselves where neighbours then read neighbouring
    # elements (K strided); a workgroup per output where K is contiguous.
    along_k = st1[-1] in (0, 1) and st2[-2] in (0, 1)
    nout = math.prod(batch) * M * N
    per_thread = Kn <= 32 or (not along_k and nout >= 256) or (nout >= 2048 and Kn <= 512)
    return ("skinny", batch + (M, N), acc, vshape, v1, v2, (len(batch) + 2,),
            per_thread, term)


def matmul(x1: GPUArray, x2: GPUArray) -> GPUArray:
    d = x1.dtype
    m1 = x1 if x1.ndim > 1 else x1.view((1,) + x1.shape, (0,) + x1.strides, x1.offset)
    m2 = x2 if x2.ndim > 1 else x2.view(x2.shape + (1,), x2.strides + (0,), x2.offset)
    r = product(m1, m2)
    shape = r.shape[:-2] + (r.shape[-2:-1] if x1.ndim > 1 else ()) \
        + (r.shape[-1:] if x2.ndim > 1 else ())
    if shape != r.shape:
        r = A.reshape_view(r, shape)
    return _cast(r, d)


def tensordot(x1: GPUArray, x2: GPUArray,
              axes: tuple[Sequence[int], Sequence[int]]) -> GPUArray:
    first, second = (tuple(v) for v in axes)
    free1 = [i for i in range(x1.ndim) if i not in first]
    free2 = [i for i in range(x2.ndim) if i not in second]
    s1 = tuple(x1.shape[i] for i in free1)
    s2 = tuple(x2.shape[i] for i in free2)
    k = math.prod(x1.shape[i] for i in first)
    # (free x1, contracted) @ (contracted, free x2): reshapes are views where the
    # layout allows, copies otherwise.
    m1 = reshape(A.permute(x1, tuple(free1) + first), (math.prod(s1), k))
    m2 = reshape(A.permute(x2, second + tuple(free2)), (k, math.prod(s2)))
    return reshape(matmul(m1, m2), s1 + s2)


# -- the contraction kernel ----------------------------------------------------------------

def contract(name: str, x1: GPUArray, x2: GPUArray | None, s: GPUArray | None,
             red: tuple[int, ...], acc: dt.DType, fold: str, term: str, fin: str = "r",
             extra: str = "", per_thread: bool | None = None) -> GPUArray:
    """Fold ``term`` (WGSL of ``a``, ``b``, ``s``) over axes ``red`` of x1 (and x2,
    broadcast to x1's shape): a contiguous result of the kept axes' shape in dtype
    ``acc``. ``s``: an array of that shape read by term and fin."""
    rt = x1.rt
    present = [x for x in (x1, x2, s) if x is not None]
    sig = (rt, "contract", name, acc, fold, term, fin, per_thread, red,
           *[(x.dtype, x.shape, x.strides) if x is not None else None for x in (x1, x2, s)])
    plan = _PLANS.get(sig) or _remember(sig, _contract_plan(
        x1, x2, s, red, acc, fold, term, fin, extra, per_thread, name))
    kshape, pipe, params, groups = plan
    out = new(rt, kshape, acc)
    if pipe is None:
        return out
    params = params.copy()
    for j, x in enumerate(present):
        params[2 + j] = x.offset & 0xFFFFFFFF
    rt.record(pipe, tuple(x.storage.block for x in present) + (out.storage.block,),
              params, groups)
    return out


def _contract_plan(x1: GPUArray, x2: GPUArray | None, s: GPUArray | None,
                   red: tuple[int, ...], acc: dt.DType, fold: str, term: str, fin: str,
                   extra: str, per_thread: bool | None, name: str) -> tuple[Any, ...]:
    kept = [k for k in range(x1.ndim) if k not in red]
    kshape = tuple(x1.shape[k] for k in kept)
    nout = math.prod(kshape)
    if nout == 0:
        return (kshape, None, None, 0)
    present = [x for x in (x1, x2) if x is not None]
    kst = [tuple(x.strides[k] for k in kept) for x in present]
    if s is not None:
        kst.append(s.strides)
    ck, kst = _collapse(kshape, kst)
    rshape = tuple(x1.shape[k] for k in red)
    cr, rst = _collapse(rshape, [tuple(x.strides[k] for k in red) for x in present])
    R = math.prod(rshape)
    offsets = [0] * (len(present) + (s is not None))
    params = K.contract_params(nout, R, offsets, ck, kst, cr, rst)
    if per_thread is None:
        per_thread = R <= 32 or (nout >= 2048 and R <= 512)
    dts = (x1.dtype, None if x2 is None else x2.dtype, None if s is None else s.dtype)
    act = ctype(acc)
    nk, nr = len(ck), len(cr)
    key = ("contract", name, dts, act, fold, term, fin, nk, nr, per_thread)
    pipe = x1.rt.pipeline(key, lambda: K.contract_source(dts, act, fold, term, fin, nk, nr,
                                                         per_thread, extra),
                          len(offsets) + 1)
    return (kshape, pipe, params, -(-nout // 256) if per_thread else nout)


def vecdot(x1: GPUArray, x2: GPUArray, axis: int) -> GPUArray:
    d = x1.dtype
    shape = broadcast_shape("vecdot", x1.shape, x2.shape)
    acc = _acc(d)
    ct = ctype(acc)
    if d.kind == "complex":
        term = _cmul("vec2(a.x, -a.y)", "b", ct)  # conj(x1) * x2
    else:
        term = f"{ct}(a) * {ct}(b)"
    return _cast(contract("vecdot", A.broadcast(x1, shape), A.broadcast(x2, shape), None,
                          (axis,), acc, "sum", term), d)


# -- views and small elementwise products ------------------------------------------------

def _diagonal_view(x: GPUArray, offset: int) -> GPUArray:
    rows, cols = x.shape[-2:]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    n = max(0, min(rows - r0, cols - c0))
    s1, s2 = x.strides[-2:]
    start = x.offset + (r0 * s1 + c0 * s2 if n else 0)
    return x.view(x.shape[:-2] + (n,), x.strides[:-2] + (s1 + s2,), start)


def linalg_diagonal(x: GPUArray, offset: int = 0) -> GPUArray:
    return copy(_diagonal_view(x, offset))  # a copy, as the standard asks


def linalg_trace(x: GPUArray, offset: int = 0,
                 dtype: dt.DType | None = None) -> GPUArray:
    dtype = dtype or x.dtype
    v = _diagonal_view(x, offset)
    acc = _acc(dtype)
    src = x.dtype
    if src.kind == "complex":
        term = "a" if src is acc else f"{ctype(acc)}(a)"
    elif acc.kind == "complex":
        part = ctype(dt.REAL_OF[acc])
        term = f"{ctype(acc)}({part}(a), {part}(0))"
    else:
        term = convert(_acc(src), acc, "a")
    return _cast(contract("trace", v, None, None, (v.ndim - 1,), acc, "sum", term), dtype)



def linalg_cross(x1: GPUArray, x2: GPUArray, axis: int) -> GPUArray:
    d = x1.dtype
    shape = broadcast_shape("cross", x1.shape, x2.shape)
    inner = math.prod(shape[axis + 1:])

    def components(x: GPUArray, names: str) -> dict[str, tuple[GPUArray, dt.DType]]:
        x = A.broadcast(x, shape)
        st = list(x.strides)
        step = st[axis]
        st[axis] = 0
        return {f"{names}{j}": (x.view(shape, tuple(st), x.offset + j * step), d)
                for j in range(3)}

    ct = ctype(d)
    mul = (lambda u, v: _cmul(u, v, ct)) if d.kind == "complex" else \
        (lambda u, v: f"({u} * {v})")
    # operands: x1's components u0 u1 u2, x2's v0 v1 v2; inner: the elements after axis
    r0 = f"{mul('u1', 'v2')} - {mul('u2', 'v1')}"
    r1 = f"{mul('u2', 'v0')} - {mul('u0', 'v2')}"
    r2 = f"{mul('u0', 'v1')} - {mul('u1', 'v0')}"
    k = "(i / inner) % 3u"
    e = f"select(select({r2}, {r1}, {k} == 1u), {r0}, {k} == 0u)"
    return named(x1.rt, "cross", e, {**components(x1, "u"), **components(x2, "v"),
                                     "inner": (max(inner, 1), dt.uint32)}, d, shape)


# -- norms ------------------------------------------------------------------------------

def _real_acc(d: dt.DType) -> dt.DType:
    return dt.float64 if d in (dt.float64, dt.complex128) else dt.float32


def _absolute(d: dt.DType, ct: str) -> str:
    """WGSL of |a| in compute type ct (complex: an overflow-safe hypot)."""
    return f"lhypot_{ct}(a.x, a.y)" if d.kind == "complex" else f"abs({ct}(a))"


def _norm_fold(x: GPUArray, red: tuple[int, ...], ord: float) -> GPUArray:
    """The vector norm of order ``ord`` over axes ``red`` (real compute dtype)."""
    d = x.dtype
    acc = _real_acc(d)
    ct = ctype(acc)
    ab = _absolute(d, ct)
    if ord == _INF:
        return contract("norm", x, None, None, red, acc, "max", ab)
    if ord == -_INF:
        return contract("norm", x, None, None, red, acc, "min", ab)
    if ord == 0:
        # non-zero by the bits (lavapipe folds NaN != 0 to false; NaN counts)
        return contract("norm", x, None, None, red, acc, "sum",
                        f"select({ct}(0), {ct}(1), {convert(acc, dt.bool, ab)})")
    if ord == 1:
        return contract("norm", x, None, None, red, acc, "sum", ab)
    # Scaled by the largest |a| (the smallest for negative orders), so that no
    # power overflows or underflows: s * (sum (|a| / s)^p)^(1/p).
    s = contract("norm", x, None, None, red, acc, "max" if ord > 0 else "min", ab)
    done = f"s == {ct}(0) || linf_{ct}(s)"
    if ord == 2:
        return contract("norm2", x, None, s, red, acc, "sum", f"({ab} / s) * ({ab} / s)",
                        f"select(s * sqrt(r), s, {done})")
    p = float(ord)
    pw = "powpos64" if ct == "f64" else "powpos32"
    extra = K.POW64 if ct == "f64" else K.POW32
    return contract("normp", x, None, s, red, acc, "sum",
                    f"{pw}({ab} / s, {_literal(p, ct)})",
                    f"select(s * {pw}(r, {_literal(1.0 / p, ct)}), s, {done})", extra)


def linalg_vector_norm(x: GPUArray, axis: Sequence[int] | None = None, keepdims: bool = False,
                       ord: float = 2) -> GPUArray:
    red = tuple(range(x.ndim)) if axis is None else tuple(axis)
    r = _cast(_norm_fold(x, red, ord), dt.REAL_OF.get(x.dtype, x.dtype))
    return A.expand(r, tuple(sorted(red))) if keepdims else r


def linalg_matrix_norm(x: GPUArray, keepdims: bool = False,
                       ord: float | str = "fro") -> GPUArray:
    d = x.dtype
    rd = dt.REAL_OF.get(d, d)
    nd = x.ndim
    m, n = x.shape[-2:]
    acc = _real_acc(d)
    if m == 0 or n == 0:
        r = fill(x.rt, x.shape[:-2], 0, rd)  # numr sends only the norms 0 for these
    elif ord == "fro":
        r = _norm_fold(x, (nd - 2, nd - 1), 2)
    elif ord in (1, -1, _INF, -_INF):
        # 1: the largest column sum of |x|; inf: the largest row sum.
        axis = nd - 2 if ord in (1, -1) else nd - 1
        sums = contract("abssum", x, None, None, (axis,), acc, "sum",
                        _absolute(d, ctype(acc)))
        r = contract("norm", sums, None, None, (sums.ndim - 1,), acc,
                     "max" if ord > 0 else "min", "a")
    else:
        sv = svd.linalg_svdvals(x)
        fold = {"nuc": "sum", 2: "max", -2: "min"}[ord]
        r = contract("svnorm", sv, None, None, (sv.ndim - 1,), acc, fold, f"{ctype(acc)}(a)")
    r = _cast(r, rd)
    return A.expand(r, (nd - 2, nd - 1)) if keepdims else r


def _literal(v: float, ct: str) -> str:
    """WGSL for the value v rounded to ct, by its bits: naga refuses a decimal literal
    that f32 cannot hold (ord=2.5e243 overflows to inf, as it does in NumPy float32)."""
    import struct

    if ct == "f64":
        return f"bitcast<f64>({struct.unpack('<Q', struct.pack('<d', v))[0]:#x}lu)"
    import numpy as np

    with np.errstate(over="ignore"):
        bits = int(np.float32(v).view(np.uint32))
    return f"bitcast<f32>({bits:#x}u)"


# matrix_transpose, outer and matrix_power are derived (numr/backends/_derived.py).
OPS: dict[str, Callable[..., GPUArray]] = {
    "matmul": matmul, "tensordot": tensordot, "vecdot": vecdot,
    "linalg_cross": linalg_cross, "linalg_diagonal": linalg_diagonal,
    "linalg_trace": linalg_trace, "linalg_vector_norm": linalg_vector_norm,
    "linalg_matrix_norm": linalg_matrix_norm}

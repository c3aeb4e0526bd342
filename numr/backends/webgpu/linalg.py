"""WebGPU ops: matmul & co and the linear algebra that is not a decomposition
(registered by ops.build; see ops.GROUPS).

matmul, tensordot and outer run the tiled product kernel of :mod:`.kernels.matmul`;
vecdot, trace and the norms its contraction kernel; transposes and diagonals are views
(the diagonal copied, as the standard's copy semantics ask). The norms that need
singular values (2, -2, 'nuc') and negative matrix powers (an inverse) call the
decompositions group's ops, looked up when called since that group registers later.
"""

from __future__ import annotations

import math

from ... import _dtypes as dt
from . import array as A
from .array import GPUArray, new
from .kernels import matmul as K
from .kernels.map import _collapse
from .kernels.types import convert, ctype

# The unpacked dtype a product or sum of each packed dtype is computed and written in.
_ACC = {"bool": dt.uint32, "int8": dt.int32, "int16": dt.int32, "uint8": dt.uint32,
        "uint16": dt.uint32, "float16": dt.float32, "bfloat16": dt.float32}
_INF = math.inf


def _acc(d: dt.DType) -> dt.DType:
    return _ACC.get(d.name, d)


def _cmul(x: str, y: str, t: str) -> str:
    """WGSL of the complex product of vec2 expressions x and y (type t)."""
    return f"{t}({x}.x * {y}.x - {x}.y * {y}.y, {x}.x * {y}.y + {x}.y * {y}.x)"


def register(ctx) -> None:
    """Add this group's ops to ctx.ops."""
    rt, ops = ctx.rt, ctx.ops
    smem = int(rt.limits.get("max-compute-workgroup-storage-size", 16384))

    def cast(r: GPUArray, d: dt.DType) -> GPUArray:
        return r if r.dtype is d else ops["astype"](r, d, False)

    # -- the product kernel -------------------------------------------------------------

    # Launch plans: everything but the operands' offsets depends only on dtypes,
    # shapes and strides, so a repeated product or contraction builds nothing.
    plans: dict = {}

    def remember(sig: tuple, plan: tuple) -> tuple:
        if len(plans) >= 4096:
            plans.clear()  # many distinct shapes: start over rather than grow
        plans[sig] = plan
        return plan

    def product(a: GPUArray, b: GPUArray) -> GPUArray:
        """``a @ b`` for a (..., M, K) and b (..., K, N) of one dtype: a contiguous
        (batch..., M, N) result in the unpacked compute dtype (see _ACC)."""
        sig = ("mm", a.dtype, a.shape, a.strides, a.offset & 3, b.shape, b.strides,
               b.offset & 3)
        plan = plans.get(sig) or remember(sig, product_plan(a, b))
        kind, shape, acc = plan[:3]
        if kind == "skinny":
            vshape, va, vb, red, per_thread = plan[3:8]
            return contract("matmul", a.view(vshape, va, a.offset), b.view(vshape, vb, b.offset),
                            None, red, acc, "sum", plan[8], per_thread=per_thread)
        out = new(rt, shape, acc)
        if kind == "empty":
            return out
        pipe, params, groups = plan[3:]
        params = params.copy()
        params[6] = a.offset & 0xFFFFFFFF
        params[9] = b.offset & 0xFFFFFFFF
        rt.record(pipe, (a.storage.block, b.storage.block, out.storage.block), params,
                  groups)
        return out

    def product_plan(a: GPUArray, b: GPUArray) -> tuple:
        d = a.dtype
        acc = _acc(d)
        M, Kn = a.shape[-2:]
        N = b.shape[-1]
        batch = ctx.broadcast_shape("matmul", a.shape[:-2], b.shape[:-2])
        nbatch = math.prod(batch)
        if nbatch * M * N == 0:
            return ("empty", batch + (M, N), acc)
        sa = A.broadcast(a, batch + (M, Kn)).strides
        sb = A.broadcast(b, batch + (Kn, N)).strides
        if M == 1 or N == 1 or M * N <= 64:
            return skinny_plan(batch, M, N, Kn, sa, sb, acc)
        bshape, (bsa, bsb) = _collapse(batch, [sa[:-2], sb[:-2]])
        sAm, sAk = (sa[-2] if M > 1 else 0), (sa[-1] if Kn > 1 else 0)
        sBk, sBn = (sb[-2] if Kn > 1 else 0), (sb[-1] if N > 1 else 0)
        cfg = K.config(d, M, N, smem)
        BM, BN = cfg[0], cfg[1]
        # vec4 loads: along the contiguous axis of an operand whose other strides and
        # offset keep every vec4 16-byte aligned, with whole vec4s per invocation.
        whole = (BM * cfg[2] // 4) % K.THREADS == 0 and (BN * cfg[2] // 4) % K.THREADS == 0
        aligned = K.global_vec_ok(d) and whole
        vec_a = vec_b = None
        if aligned and a.offset % 4 == 0 and all(s % 4 == 0 for s in bsa):
            if sAk == 1 and Kn % 4 == 0 and sAm % 4 == 0:
                vec_a = "k"
            elif sAm == 1 and M % 4 == 0 and sAk % 4 == 0:
                vec_a = "x"
        if aligned and b.offset % 4 == 0 and all(s % 4 == 0 for s in bsb):
            if sBn == 1 and N % 4 == 0 and sBk % 4 == 0:
                vec_b = "x"
            elif sBk == 1 and Kn % 4 == 0 and sBn % 4 == 0:
                vec_b = "k"
        vec_out = K.vector_ok(d) and N % 4 == 0 and acc is d
        a_major = "x" if sAm == 1 and sAk != 1 else "k"
        b_major = "k" if sBk == 1 and sBn != 1 else "x"
        tm, tn = -(-M // BM), -(-N // BN)
        params = [M, N, Kn, tm, tn, nbatch, 0, sAm, sAk, 0, sBk, sBn]
        for n, s1, s2 in zip(bshape, bsa, bsb):
            params += [n, s1, s2]
        params = [p & 0xFFFFFFFF for p in params]
        nb = len(bshape)
        key = ("matmul", d.name, cfg, nb, vec_a, vec_b, vec_out, a_major, b_major)
        pipe = rt.pipeline(key, lambda: K.matmul_source(d, cfg, nb, vec_a, vec_b, vec_out,
                                                        a_major, b_major), 3)
        return ("tiled", batch + (M, N), acc, pipe, params, nbatch * tm * tn)

    def skinny_plan(batch: tuple, M: int, N: int, Kn: int, sa: tuple, sb: tuple,
                    acc: dt.DType) -> tuple:
        """A product with a vector side (or tiny matrices) as a contraction over K of
        (batch, M, N, K) views: a tile of 64 x 64 would be nearly all padding."""
        vshape = batch + (M, N, Kn)
        va = sa[:-2] + (sa[-2], 0, sa[-1])
        vb = sb[:-2] + (0, sb[-1], sb[-2])
        ct = ctype(acc)
        term = _cmul("a", "b", ct) if acc.kind == "complex" else "a * b"
        # Invocations walk K themselves where neighbours then read neighbouring
        # elements (K strided); a workgroup per output where K is contiguous.
        along_k = sa[-1] in (0, 1) and sb[-2] in (0, 1)
        nout = math.prod(batch) * M * N
        per_thread = Kn <= 32 or (not along_k and nout >= 256) or (nout >= 2048 and Kn <= 512)
        return ("skinny", batch + (M, N), acc, vshape, va, vb, (len(batch) + 2,),
                per_thread, term)

    def matmul(a, b):
        d = a.dtype
        a2 = a if a.ndim > 1 else a.view((1,) + a.shape, (0,) + a.strides, a.offset)
        b2 = b if b.ndim > 1 else b.view(b.shape + (1,), b.strides + (0,), b.offset)
        r = product(a2, b2)
        shape = r.shape[:-2] + (r.shape[-2:-1] if a.ndim > 1 else ()) \
            + (r.shape[-1:] if b.ndim > 1 else ())
        if shape != r.shape:
            r = A.reshape_view(r, shape)
        return cast(r, d)

    def matrix_transpose(a):
        order = tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)
        return A.permute(a, order)

    def tensordot(a, b, axes):
        first, second = (tuple(x) for x in axes)
        free_a = [i for i in range(a.ndim) if i not in first]
        free_b = [i for i in range(b.ndim) if i not in second]
        sa = tuple(a.shape[i] for i in free_a)
        sb = tuple(b.shape[i] for i in free_b)
        k = math.prod(a.shape[i] for i in first)
        # (free a, contracted) @ (contracted, free b): reshapes are views where the
        # layout allows, copies otherwise.
        a2 = ops["reshape"](A.permute(a, tuple(free_a) + first), (math.prod(sa), k))
        b2 = ops["reshape"](A.permute(b, second + tuple(free_b)), (k, math.prod(sb)))
        return ops["reshape"](matmul(a2, b2), sa + sb)

    # -- the contraction kernel ---------------------------------------------------------

    def contract(name: str, a: GPUArray, b: GPUArray | None, s: GPUArray | None,
                 red: tuple, acc: dt.DType, fold: str, term: str, fin: str = "r",
                 extra: str = "", per_thread: bool | None = None) -> GPUArray:
        """Fold ``term`` over axes ``red`` of a (and b, broadcast to a's shape): a
        contiguous result of the kept axes' shape in dtype ``acc``. ``s``: an array of
        that shape read by term and fin."""
        present = [x for x in (a, b, s) if x is not None]
        sig = ("contract", name, acc, fold, term, fin, per_thread, red,
               *[(x.dtype, x.shape, x.strides) if x is not None else None for x in (a, b, s)])
        plan = plans.get(sig) or remember(sig, contract_plan(a, b, s, red, acc, fold, term,
                                                             fin, extra, per_thread, name))
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

    def contract_plan(a, b, s, red, acc, fold, term, fin, extra, per_thread, name) -> tuple:
        kept = [k for k in range(a.ndim) if k not in red]
        kshape = tuple(a.shape[k] for k in kept)
        nout = math.prod(kshape)
        if nout == 0:
            return (kshape, None, None, 0)
        present = [x for x in (a, b) if x is not None]
        kst = [tuple(x.strides[k] for k in kept) for x in present]
        if s is not None:
            kst.append(s.strides)
        ck, kst = _collapse(kshape, kst)
        rshape = tuple(a.shape[k] for k in red)
        cr, rst = _collapse(rshape, [tuple(x.strides[k] for k in red) for x in present])
        R = math.prod(rshape)
        offsets = [0] * (len(present) + (s is not None))
        params = K.contract_params(nout, R, offsets, ck, kst, cr, rst)
        if per_thread is None:
            per_thread = R <= 32 or (nout >= 2048 and R <= 512)
        dts = (a.dtype, None if b is None else b.dtype, None if s is None else s.dtype)
        act = ctype(acc)
        nk, nr = len(ck), len(cr)
        key = ("contract", name, dts, act, fold, term, fin, nk, nr, per_thread)
        pipe = rt.pipeline(key, lambda: K.contract_source(dts, act, fold, term, fin, nk, nr,
                                                          per_thread, extra),
                           len(offsets) + 1)
        return (kshape, pipe, params, -(-nout // 256) if per_thread else nout)

    def vecdot(a, b, axis):
        d = a.dtype
        shape = ctx.broadcast_shape("vecdot", a.shape, b.shape)
        a2, b2 = A.broadcast(a, shape), A.broadcast(b, shape)
        acc = _acc(d)
        ct = ctype(acc)
        if d.kind == "complex":
            term = _cmul("vec2(a.x, -a.y)", "b", ct)  # conj(a) * b
        else:
            term = f"{ct}(a) * {ct}(b)"
        return cast(contract("vecdot", a2, b2, None, (axis,), acc, "sum", term), d)

    # -- views and small elementwise products --------------------------------------------

    def diagonal_view(a: GPUArray, offset: int) -> GPUArray:
        rows, cols = a.shape[-2:]
        r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
        n = max(0, min(rows - r0, cols - c0))
        s1, s2 = a.strides[-2:]
        start = a.offset + (r0 * s1 + c0 * s2 if n else 0)
        return a.view(a.shape[:-2] + (n,), a.strides[:-2] + (s1 + s2,), start)

    def linalg_diagonal(a, offset=0):
        return ctx.copy(diagonal_view(a, offset))  # a copy, as the standard asks

    def linalg_trace(a, offset=0, dtype=None):
        dtype = dtype or a.dtype
        v = diagonal_view(a, offset)
        acc = _acc(dtype)
        src = a.dtype
        if src.kind == "complex":
            term = "a" if src is acc else f"{ctype(acc)}(a)"
        elif acc.kind == "complex":
            part = ctype(dt.REAL_OF[acc])
            term = f"{ctype(acc)}({part}(a), {part}(0))"
        else:
            term = convert(_acc(src), acc, "a")
        r = contract("trace", v, None, None, (v.ndim - 1,), acc, "sum", term)
        return cast(r, dtype)

    def linalg_outer(a, b):
        # Products, not sums of one product: a zero times a negative stays -0.
        d = a.dtype
        shape = (a.shape[0], b.shape[0])
        e = _cmul("a", "b", ctype(d)) if d.kind == "complex" else "a * b"
        return ctx.launch(rt, "outer", e,
                          ((a.view(shape, (a.strides[0], 0), a.offset), d),
                           (b.view(shape, (0, b.strides[0]), b.offset), d)), d, shape)

    def linalg_cross(a, b, axis):
        d = a.dtype
        shape = ctx.broadcast_shape("cross", a.shape, b.shape)
        inner = math.prod(shape[axis + 1:])

        def parts(x):
            x = A.broadcast(x, shape)
            st = list(x.strides)
            step = st[axis]
            st[axis] = 0
            return [(x.view(shape, tuple(st), x.offset + j * step), d) for j in range(3)]

        ct = ctype(d)
        mul = (lambda x, y: _cmul(x, y, ct)) if d.kind == "complex" else \
            (lambda x, y: f"({x} * {y})")
        # operands a0 a1 a2 = a's components, b0 b1 b2 -> names a b c, d e f; g: inner
        r0 = f"{mul('b', 'f')} - {mul('c', 'e')}"
        r1 = f"{mul('c', 'd')} - {mul('a', 'f')}"
        r2 = f"{mul('a', 'e')} - {mul('b', 'd')}"
        e = f"select(select({r2}, {r1}, (i / g) % 3u == 1u), {r0}, (i / g) % 3u == 0u)"
        return ctx.launch(rt, "cross", e, parts(a) + parts(b) + [(max(inner, 1), dt.uint32)],
                          d, shape)

    # -- norms --------------------------------------------------------------------------

    def real_acc(d: dt.DType) -> dt.DType:
        return dt.float64 if d in (dt.float64, dt.complex128) else dt.float32

    def absolute(d: dt.DType, ct: str) -> str:
        """WGSL of |a| in compute type ct (complex: an overflow-safe hypot)."""
        return f"lhypot_{ct}(a.x, a.y)" if d.kind == "complex" else f"abs({ct}(a))"

    def norm_fold(a: GPUArray, red: tuple, ord) -> GPUArray:
        """The vector norm of order ``ord`` over axes ``red`` (real compute dtype)."""
        d = a.dtype
        acc = real_acc(d)
        ct = ctype(acc)
        ab = absolute(d, ct)
        isinf = f"linf_{ct}(s)"
        if ord == _INF:
            return contract("norm", a, None, None, red, acc, "max", ab)
        if ord == -_INF:
            return contract("norm", a, None, None, red, acc, "min", ab)
        if ord == 0:
            # non-zero by the bits (lavapipe folds NaN != 0 to false; NaN counts)
            return contract("norm", a, None, None, red, acc, "sum",
                            f"select({ct}(0), {ct}(1), {convert(acc, dt.bool, ab)})")
        if ord == 1:
            return contract("norm", a, None, None, red, acc, "sum", ab)
        # Scaled by the largest |a| (the smallest for negative orders), so that no
        # power overflows or underflows: s * (sum (|a| / s)^p)^(1/p).
        s = contract("norm", a, None, None, red, acc, "max" if ord > 0 else "min", ab)
        done = f"s == {ct}(0) || {isinf}"
        if ord == 2:
            return contract("norm2", a, None, s, red, acc, "sum",
                            f"({ab} / s) * ({ab} / s)",
                            f"select(s * sqrt(r), s, {done})")
        p = float(ord)
        pw = "powpos64" if ct == "f64" else "powpos32"
        extra = K.POW64 if ct == "f64" else K.POW32
        return contract("normp", a, None, s, red, acc, "sum",
                        f"{pw}({ab} / s, {_literal(p, ct)})",
                        f"select(s * {pw}(r, {_literal(1.0 / p, ct)}), s, {done})", extra)

    def linalg_vector_norm(a, axis=None, keepdims=False, ord=2):
        red = tuple(range(a.ndim)) if axis is None else tuple(axis)
        r = cast(norm_fold(a, red, ord), dt.REAL_OF.get(a.dtype, a.dtype))
        return A.expand(r, tuple(sorted(red))) if keepdims else r

    def linalg_matrix_norm(a, keepdims=False, ord="fro"):
        d = a.dtype
        rd = dt.REAL_OF.get(d, d)
        nd = a.ndim
        m, n = a.shape[-2:]
        if m == 0 or n == 0:
            # numr sends only the norms that are 0 for an empty matrix.
            r = ops["zeros"](a.shape[:-2], rd)
        elif ord == "fro":
            r = norm_fold(a, (nd - 2, nd - 1), 2)
        elif ord in (1, -1, _INF, -_INF):
            acc = real_acc(d)
            # 1: the largest column sum of |a|; inf: the largest row sum.
            axis = nd - 2 if ord in (1, -1) else nd - 1
            sums = contract("abssum", a, None, None, (axis,), acc, "sum",
                            absolute(d, ctype(acc)))
            r = contract("norm", sums, None, None, (sums.ndim - 1,), acc,
                         "max" if ord > 0 else "min", "a")
        else:
            svdvals = ops.get("linalg_svdvals")
            if svdvals is None:
                raise ctx.gap("matrix_norm", d, f"ord={ord!r} needs singular values "
                                                "(linalg_svdvals)")
            sv = svdvals(a)
            fold = {"nuc": "sum", 2: "max", -2: "min"}[ord]
            acc = real_acc(d)
            r = contract("svnorm", sv, None, None, (sv.ndim - 1,), acc, fold,
                         f"{ctype(acc)}(a)")
        r = cast(r, rd)
        return A.expand(r, (nd - 2, nd - 1)) if keepdims else r

    # -- matrix_power -------------------------------------------------------------------

    def identities(shape: tuple, d: dt.DType) -> GPUArray:
        on = "(i % a) == ((i / a) % a)"
        if d.kind == "complex":
            ct = ctype(d)
            e = f"select({ct}(), {ct}(1.0, 0.0), {on})"
        else:
            e = convert(dt.bool, d, on)
        return ctx.launch(rt, "identity", e, ((max(shape[-1], 1), dt.uint32),), d, shape)

    def linalg_matrix_power(a, n):
        d = a.dtype
        if n == 0:
            return identities(a.shape, d)
        base = a
        if n < 0:
            inv = ops.get("linalg_inv")
            if inv is None:
                raise ctx.gap("matrix_power", d, "negative powers need linalg_inv")
            from ...linalg import LinAlgError

            try:
                base = inv(a)
            except LinAlgError as e:  # numr names the function the user called
                raise LinAlgError(f"matrix_power: a matrix is singular ({e})") from None
            n = -n
        # Square and multiply.
        result = None
        while True:
            if n & 1:
                result = base if result is None else cast(product(result, base), d)
            n >>= 1
            if not n:
                break
            base = cast(product(base, base), d)
        return ctx.copy(result) if result is a else result

    ops.update(
        matmul=matmul, matrix_transpose=matrix_transpose, tensordot=tensordot,
        vecdot=vecdot, linalg_matmul=matmul, linalg_matrix_transpose=matrix_transpose,
        linalg_tensordot=tensordot, linalg_vecdot=vecdot, linalg_cross=linalg_cross,
        linalg_diagonal=linalg_diagonal, linalg_trace=linalg_trace,
        linalg_outer=linalg_outer, linalg_vector_norm=linalg_vector_norm,
        linalg_matrix_norm=linalg_matrix_norm, linalg_matrix_power=linalg_matrix_power)


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

"""WebGPU ops: the singular value decomposition (one-sided Jacobi, see
decompositions.py for how its kernels run in stages) and what is computed from it:
svd, svdvals, pinv, matrix_rank. The matrix is scaled by a power of two first."""

from __future__ import annotations

import math

from ... import _dtypes as dt
from . import array as A
from . import elementwise as E
from . import reductions
from .array import GPUArray, new
from .creation import fill
from .decompositions import (BUDGET, LATE, SWEEPS, WG, result_view, back, buffer, const, cw,
                             error, failed, identity, lift, real, run, staged, up, width)
from .elementwise import astype, broadcast_shape
from .kernels import linalg_kernels as K
from .kernels.map import launch
from .kernels.named import launch as named
from .manipulation import broadcast_to, reshape
from .transfers import copy


def pow2_scale(a: GPUArray) -> tuple:
    """(a / c, c): c a power of two near max|a| of each matrix (shape batch + (1, 1),
    a's real dtype; the smallest normal number where max|a| is subnormal), 1 for
    zero or non-finite matrices. Dividing by a power of two is
    exact, and it keeps the Jacobi sweeps' sums of squares from overflowing for
    finite input as large as float32's 1e38 (LAPACK scales the same way)."""
    rt = a.rt
    r = real(a.dtype)
    axes = (a.ndim - 2, a.ndim - 1)
    if r is dt.float32:
        # max|a| by its bits (an integer max: non-negative floats order as their
        # bits), since NVIDIA's float max flushes a float32 subnormal to zero
        mag = a if a.dtype is r else E.OPS["abs"](a)         # complex: |z| first
        bits = launch(rt, "abs_bits", "bitcast<u32>(a) & 0x7fffffffu",
                          ((mag, r),), dt.uint32, mag.shape)
        mb = reductions.max(bits, axes, True)
        e = "bitcast<f32>(a & 0x7f800000u)"
        ok = "(a & 0x7f800000u) != 0u && (a & 0x7f800000u) != 0x7f800000u"
        sub = "(a & 0x7f800000u) == 0u && a != 0u"
        c = launch(rt, "pow2_scale_bits",
                       f"select(select(1.0, bitcast<f32>(0x00800000u), {sub}), {e}, {ok})",
                       ((mb, dt.uint32),), r, mb.shape)
        cd = c if a.dtype is r else astype(c, a.dtype, False)
        return E.OPS["divide"](a, broadcast_to(cd, a.shape)), c
    mx = reductions.max(E.OPS["abs"](a), axes, True)          # float64: IEEE everywhere
    e = "bitcast<f64>(bitcast<u64>(a) & 0x7ff0000000000000lu)"
    ok = ("(bitcast<u64>(a) & 0x7ff0000000000000lu) != 0lu && "
          "(bitcast<u64>(a) & 0x7ff0000000000000lu) != 0x7ff0000000000000lu")
    one, tiny = "f64(1.0)", "bitcast<f64>(0x0010000000000000lu)"
    sub = ("(bitcast<u64>(a) & 0x7ff0000000000000lu) == 0lu && "
           "(bitcast<u64>(a) & 0x7ffffffffffffffflu) != 0lu")
    # a subnormal max: c is the smallest normal number, so a / c is normal (exact)
    c = launch(rt, "pow2_scale", f"select(select({one}, {tiny}, {sub}), {e}, {ok})",
                   ((mx, r),), r, mx.shape)
    cd = c if a.dtype is r else astype(c, a.dtype, False)
    return E.OPS["divide"](a, broadcast_to(cd, a.shape)), c


def unscale(sv: GPUArray, c: GPUArray) -> GPUArray:
    """sv * c for a power of two c. In float32 by exponent bits (scale_f32 rounds a
    subnormal product by integers): NVIDIA flushes a subnormal product to zero, and
    singular values of a matrix of subnormals are subnormal."""
    rt = sv.rt
    if sv.dtype is dt.float64:
        return E.OPS["multiply"](sv, c)
    k = "i32((bitcast<u32>(c) >> 23u) & 0xffu) - 127"
    return named(rt, "svd_unscale", f"scale_f32(sv, {k})",
                 {"sv": (sv, sv.dtype), "c": (c, c.dtype)}, sv.dtype, sv.shape)


def svd(name: str, a, vectors: bool, full: bool):
    """((U, S, Vh) or S, the output buffer (pinv reads it), the scale c): the
    decomposition is of a / c; S is returned scaled back, U and Vh need nothing."""
    rt = a.rt
    d0 = a.dtype
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    k, mp = min(m, n), max(m, n)
    nb = math.prod(batch)
    if vectors:
        ushape = batch + ((m, m) if full else (m, k))
        vshape = batch + ((n, n) if full else (k, n))
    if nb == 0 or k == 0:
        s = new(rt, batch + (k,), real(d0))
        if not vectors:
            return s, None, None, 0
        u = identity(rt, batch, *ushape[-2:], d0) if nb and math.prod(ushape) else \
            new(rt, ushape, d0)
        vh = identity(rt, batch, *vshape[-2:], d0) if nb and math.prod(vshape) else \
            new(rt, vshape, d0)
        return (u, s, vh), None, None, 0
    a, scale = pow2_scale(lift(a))
    d, c = a.dtype, width(a.dtype)
    usz = nb * math.prod(ushape[-2:]) if vectors else 0
    vsz = nb * math.prod(vshape[-2:]) if vectors else 0
    sbase = c * (usz + vsz)
    status = sbase + nb * k
    wbase = up(status + nb, c)
    vbase = wbase + nb * mp * mp
    tmp = vbase + nb * k * k
    rbase = c * (tmp + nb * mp)
    np2 = (k + (k & 1)) // 2
    good = rbase + nb * (np2 * 10 + 2)
    buf = buffer(rt, good + nb * mp, d)
    key, src = ("svd", d.name, vectors), lambda stage: K.svd_source(d, vectors, stage)
    params = [m, n, a.offset, wbase, vbase, rbase, 0, sbase, usz, 1 if full else 0,
              status, tmp, good]
    staged(key, src, [a], buf, params, nb, "init")
    rows = mp + (k if vectors else 0)
    rounds = [cw(np2) * (mp + 1) + cw(np2 * rows) + 4] * (2 * np2 - 1)
    for sweep in range(SWEEPS):
        staged(key, src, [a], buf, params + [int(sweep >= LATE)], nb, "sweep", rounds)
    staged(key, src, [a], buf, params, nb, "final")
    if vectors:
        mc = mp if full else k
        staged(key, src, [a], buf, params, nb, "complete",
               [3 * cw(mp) * (mc + 1) + cw(mc) * (mp + 1) + 20] * mc)
        staged(key, src, [a], buf, params, nb, "out")
    if failed(buf, status, nb):
        raise error(name, "the singular value computation did not converge")
    sv = result_view(buf, batch + (k,), sbase, real(d))
    s = unscale(sv, broadcast_to(reshape(scale, batch + (1,)), sv.shape))
    if not vectors:
        return back(s, real(d0)), buf, scale, sv.offset
    u = result_view(buf, ushape, 0, d)
    vh = result_view(buf, vshape, usz, d)
    return (back(u, d0), back(s, real(d0)), back(vh, d0)), buf, scale, sv.offset


def linalg_svd(a, full_matrices=True):
    return svd("svd", a, True, full_matrices)[0]


def linalg_svdvals(a):
    return svd("svdvals", a, False, False)[0]


def tolerance(rt, rtol, batch: tuple, d: dt.DType) -> tuple:
    """rtol as (array, offset, stride per matrix), in real dtype ``d``."""
    if type(rtol) is not GPUArray:
        return fill(rt, (), float(rtol), d), 0, 0
    if rtol.dtype is not d:
        rtol = astype(rtol, d, False)
    r = copy(A.broadcast(rtol, batch))
    return r, r.offset, 1


def stack_batch(a, rtol) -> tuple:
    batch = a.shape[:-2]
    if type(rtol) is GPUArray:
        batch = broadcast_shape("rtol", batch, rtol.shape)
    return batch


def linalg_pinv(a, rtol):
    rt = a.rt
    d0 = a.dtype
    m, n = a.shape[-2:]
    batch = stack_batch(a, rtol)
    shape = batch + (n, m)
    if m == 0 or n == 0 or math.prod(batch) == 0:
        return const(rt, shape, d0, 0) if math.prod(shape) else new(rt, shape, d0)
    a = A.broadcast(a, batch + (m, n))
    a = lift(a)
    d = a.dtype
    nb = math.prod(batch)
    k = min(m, n)
    # buf holds the SVD of a / scale; S unscaled at soff
    (u, s, vh), buf, scale, soff = svd("pinv", a, True, False)
    tol, toff, tstride = tolerance(rt, rtol, batch, real(d))
    out = new(rt, shape, d)
    per = max(1, BUDGET * WG // (k + 1))  # elements per dispatch: k iterations each
    for e0 in range(0, n * m, per):
        run(("pinv", d.name), lambda: K.pinv_source(d), [buf, tol], out,
            [m, n, 0, soff, vh.offset, toff, tstride], nb, (e0, min(n * m, e0 + per)))
    # pinv(a) = pinv(a / c) / c
    cd = scale if d is real(d) else astype(scale, d, False)
    return back(E.OPS["divide"](out, broadcast_to(cd, out.shape)), d0)


def linalg_matrix_rank(a, rtol):
    rt = a.rt
    idx_dtype = dt.int64 if "shader-int64" in rt.features else dt.int32
    m, n = a.shape[-2:]
    batch = stack_batch(a, rtol)
    if min(m, n) == 0 or math.prod(batch) == 0:
        return launch(rt, "linalg_zero", "0", (), idx_dtype, batch) \
            if math.prod(batch) else new(rt, batch, idx_dtype)
    a = lift(A.broadcast(a, batch + (m, n)))
    d = a.dtype
    nb = math.prod(batch)
    s = svd("matrix_rank", a, False, False)[0]
    tol, toff, tstride = tolerance(rt, rtol, batch, real(d))
    out = new(rt, batch, idx_dtype)
    t = "i64" if idx_dtype is dt.int64 else "i32"
    run(("rank", d.name, t), lambda: K.rank_source(real(d), t), [s, tol], out,
        [min(m, n), s.offset, toff, tstride], nb)
    return out


OPS = {"linalg_svd": linalg_svd, "linalg_svdvals": linalg_svdvals, "linalg_pinv": linalg_pinv,
       "linalg_matrix_rank": linalg_matrix_rank}

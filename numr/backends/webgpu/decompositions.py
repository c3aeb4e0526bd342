"""WebGPU ops: linalg decompositions and solvers (module-level functions; ops.build collects OPS).

cholesky, qr, eigh/eigvalsh, svd/svdvals, solve, inv, det, slogdet, pinv, matrix_rank,
eig/eigvals: one workgroup per matrix of the batch, kernels from kernels/linalg_kernels.py.
Each op allocates one output buffer holding all its results (as views) and the kernel's
working storage. A kernel runs in stages (init, ranges of steps, final) whose state stays
in that buffer: llvmpipe (lavapipe) silently stops an invocation after 65535 loop
iterations in one dispatch, so the steps are split over as many dispatches as their
cost in loop iterations needs (BUDGET each). Iterative methods record a fixed number of
sweep dispatches (Jacobi: SWEEPS; QR iterations: 30 n); once a matrix has converged its
later dispatches return at once. The SVD's sweeps from LATE on also set to zero a column
still not orthogonal to another whose norm is below 4 sqrt(m) eps max|a|: the residue of
a rank deficiency, which rotations only shrink by some orders at a time (a change within
the backward error), so that every finite matrix converges.

Limits (lavapipe's loop limit, one workgroup per matrix): every op was checked to
n = 300 (eigh there takes ~40 s on lavapipe); the eig eigenvector stages and the real
eigenvalue pairing loop O(n) per invocation, fine to a few thousand.

float16 is computed in float32 and cast back (as the NumPy adapter does: LAPACK has no
half precision). Complex matrices use the same kernels with complex element helpers.

Host reads: numr raises LinAlgError for a singular matrix (inv, solve), one that is not
positive definite (cholesky) or an SVD that does not converge (NaN input, as LAPACK):
those ops read back one status word per matrix, a sync point, the way the CuPy adapter
checks cuSOLVER's status; eig/eigvals too (NaN/inf input, as the NumPy adapter, or no
convergence). det, slogdet, qr and eigh/eigvalsh never read back.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtypes as dt
from . import array as A
from . import elementwise as E
from . import reductions
from .array import GPUArray, c_strides, new
from .creation import fill
from .elementwise import astype, broadcast_shape, where
from .kernels import linalg_kernels as K
from .kernels.map import launch
from .kernels.named import launch as named
from .manipulation import broadcast_to, reshape
from .transfers import copy


BUDGET = 20000      # loop iterations per invocation in one dispatch (llvmpipe stops at 65535)
SWEEPS = 30         # Jacobi sweeps before an SVD counts as not converged
LATE = 12           # from this sweep on, the SVD sets stuck negligible columns to zero
WG = K.WG


def cw(items: int) -> int:
    """Iterations of a loop that spreads ``items`` over a workgroup's invocations."""
    return -(-items // WG)


def _view(buf: GPUArray, shape: tuple, offset: int, d: dt.DType) -> GPUArray:
    """A contiguous view of ``shape`` and dtype ``d`` into ``buf``'s storage at element
    ``offset`` (counted in ``d``'s elements)."""
    shape = tuple(shape)
    return GPUArray(buf.storage, buf.rt, shape, c_strides(shape), offset, d)


def error(name: str, what: str):
    from ...linalg import LinAlgError

    return LinAlgError(f"{name}: {what}")


# -- helpers ---------------------------------------------------------------------

def lift(a: GPUArray) -> GPUArray:
    """float16 computed in float32; every kernel reads a contiguous input."""
    if a.dtype in (dt.float16, dt.bfloat16):
        a = astype(a, dt.float32, False)
    if not a.contiguous:
        a = copy(a)
    return a


def back(r: GPUArray, d: dt.DType) -> GPUArray:
    """A result computed for float16 input, cast back."""
    return r if r.dtype is d or d not in (dt.float16, dt.bfloat16) else astype(r, d, False)


def real(d: dt.DType) -> dt.DType:
    return dt.REAL_OF.get(d, d)


def width(d: dt.DType) -> int:
    return 2 if d.kind == "complex" else 1


def buffer(rt, reals: int, d: dt.DType) -> GPUArray:
    return new(rt, (max(reals, 1),), real(d))


def up(reals: int, c: int) -> int:
    """The element (of c reals) at or after real offset ``reals``."""
    return -(-reals // c)


def run(key: tuple, source, inputs: list, out: GPUArray, params: list, nb: int,
        steps: tuple = (0, 0)) -> None:
    blocks = [x.storage.block for x in inputs] + [out.storage.block]
    words = [nb] + [int(v) for v in params]
    words += [0] * (20 - len(words)) + [int(steps[0]), int(steps[1])]
    out.rt.dispatch(("linalg",) + key, source, blocks, words, nb)


def staged(key: tuple, source, inputs: list, out: GPUArray, params: list, nb: int,
           stage: str, costs=None, start: int = 0) -> None:
    """Run kernel stage ``stage``; with ``costs`` (loop iterations per step, steps
    start, start + 1, ...) the steps are split over dispatches of at most BUDGET
    iterations each (llvmpipe's limit is 65535 per invocation and dispatch)."""
    src = lambda: source(stage)  # noqa: E731
    if costs is None:
        run(key + (stage,), src, inputs, out, params, nb)
        return
    lo, acc = start, 0
    for i, c in enumerate(costs):
        if acc and acc + c > BUDGET:
            run(key + (stage,), src, inputs, out, params, nb, (lo, start + i))
            lo, acc = start + i, 0
        acc += c
    if acc:
        run(key + (stage,), src, inputs, out, params, nb, (lo, start + len(costs)))


def failed(buf: GPUArray, offset: int, nb: int) -> bool:
    """Whether any of ``nb`` status words from real offset ``offset`` is set (a
    host read: numr raises LinAlgError at the call, like the CuPy adapter)."""
    d = buf.dtype
    raw = buf.rt.download(buf.storage, offset * d.itemsize, nb * d.itemsize)
    return bool(np.frombuffer(raw, dtype=d.name).any())


def const(rt, shape: tuple, d: dt.DType, value: float) -> GPUArray:
    t = K.real_ctype(d)
    e = f"vec2<{t}>({t}({value}), {t}(0.0))" if d.kind == "complex" else f"{t}({value})"
    return launch(rt, "linalg_const", e, (), d, tuple(shape))


def identity(rt, batch: tuple, rows: int, cols: int, d: dt.DType) -> GPUArray:
    t = K.real_ctype(d)
    one = f"select({t}(0.0), {t}(1.0), i % cols == (i / cols) % rows)"
    e = f"vec2<{t}>({one}, {t}(0.0))" if d.kind == "complex" else one
    return named(rt, "linalg_eye", e, {"cols": (max(cols, 1), dt.uint32),
                                       "rows": (max(rows, 1), dt.uint32)}, d,
                 tuple(batch) + (rows, cols))


# -- cholesky ----------------------------------------------------------------------

def linalg_cholesky(a, upper=False):
    rt = a.rt
    d0 = a.dtype
    if a.size == 0:
        return new(rt, a.shape, d0)
    a = lift(a)
    d, c = a.dtype, width(a.dtype)
    n = a.shape[-1]
    nb = a.size // (n * n)
    status = c * nb * n * n
    buf = buffer(rt, status + nb, d)
    key, src = ("chol", d.name), lambda stage: K.cholesky_source(d, stage)
    params = [n, a.offset, status, 1 if upper else 0]
    staged(key, src, [a], buf, params, nb, "init")
    staged(key, src, [a], buf, params, nb, "step",
           [c + cw(n - c) * (c + 1) + 2 for c in range(n)])
    staged(key, src, [a], buf, params, nb, "final")
    if failed(buf, status, nb):
        raise error("cholesky", "a matrix is not positive definite")
    return back(_view(buf, a.shape, 0, d), d0)


# -- LU family ---------------------------------------------------------------------

def lu(name: str, mode: str, a: GPUArray, b: GPUArray | None, head: int, tail: int):
    """Run the LU kernel: ``head`` reals of results first (X, det or sign), then
    ``tail`` reals (logabs or status), then the LU work space."""
    rt = a.rt
    d, c = a.dtype, width(a.dtype)
    n = a.shape[-1]
    nb = a.size // (n * n)
    kcols = b.shape[-1] if b is not None else (n if mode == "inv" else 0)
    state = head + tail
    lbase = up(state + 2 * nb, c)
    buf = buffer(rt, c * (lbase + nb * n * n), d)
    inputs = [a] if b is None else [a, b]
    key, src = ("lu", mode, d.name), lambda stage: K.lu_source(d, mode, stage)
    params = [n, kcols, a.offset, b.offset if b is not None else 0, lbase, head, state]
    staged(key, src, inputs, buf, params, nb, "init")
    staged(key, src, inputs, buf, params, nb, "fwd",
           [3 * cw(n - c) + cw(n) + cw(kcols) + cw((n - c - 1) ** 2)
            + cw((n - c - 1) * kcols) + 12 for c in range(n)])
    if mode in ("solve", "inv"):
        staged(key, src, inputs, buf, params, nb, "back",
               [cw(kcols) + cw((n - 1 - cc) * kcols) + 2 for cc in range(n)])
    staged(key, src, inputs, buf, params, nb, "final")
    return buf, nb


def linalg_inv(a):
    rt = a.rt
    d0 = a.dtype
    n = a.shape[-1]
    if a.size == 0:
        return new(rt, a.shape, d0)
    a = lift(a)
    d, c = a.dtype, width(a.dtype)
    nb = a.size // (n * n)
    head = c * nb * n * n
    buf, _ = lu("inv", "inv", a, None, head, nb)
    if failed(buf, head, nb):
        raise error("inv", "a matrix is singular")
    return back(_view(buf, a.shape, 0, d), d0)


def linalg_solve(a, b):
    rt = a.rt
    d0 = a.dtype
    vector = b.ndim == 1
    if vector:
        b = b.view(b.shape + (1,), b.strides + (0,), b.offset)
    n, kcols = a.shape[-1], b.shape[-1]
    batch = broadcast_shape("solve", a.shape[:-2], b.shape[:-2])
    a2 = A.broadcast(a, batch + (n, n))
    b2 = A.broadcast(b, batch + (n, kcols))
    shape = batch + (n, kcols)
    if a2.size == 0 or b2.size == 0:
        r = const(rt, shape, d0, 0) if math.prod(shape) else new(rt, shape, d0)
    else:
        a2, b2 = lift(a2), lift(b2)
        d, c = a2.dtype, width(a2.dtype)
        nb = math.prod(batch)
        head = c * nb * n * kcols
        buf, _ = lu("solve", "solve", a2, b2, head, nb)
        if failed(buf, head, nb):
            raise error("solve", "a matrix is singular")
        r = back(_view(buf, shape, 0, d), d0)
    if vector:
        r = r.view(r.shape[:-1], r.strides[:-1], r.offset)
    return r


def linalg_det(a):
    rt = a.rt
    d0 = a.dtype
    n = a.shape[-1]
    batch = a.shape[:-2]
    if math.prod(batch) == 0:
        return new(rt, batch, d0)
    if n == 0:
        return const(rt, batch, d0, 1)
    a = lift(a)
    d, c = a.dtype, width(a.dtype)
    nb = math.prod(batch)
    buf, _ = lu("det", "det", a, None, c * nb, 0)
    return back(_view(buf, batch, 0, d), d0)


def linalg_slogdet(a):
    rt = a.rt
    d0 = a.dtype
    n = a.shape[-1]
    batch = a.shape[:-2]
    if math.prod(batch) == 0:
        return new(rt, batch, d0), new(rt, batch, real(d0))
    if n == 0:
        return const(rt, batch, d0, 1), const(rt, batch, real(d0), 0)
    a = lift(a)
    d, c = a.dtype, width(a.dtype)
    nb = math.prod(batch)
    buf, _ = lu("slogdet", "slogdet", a, None, c * nb, nb)
    sign = _view(buf, batch, 0, d)
    logabs = _view(buf, batch, c * nb, real(d))
    return back(sign, d0), back(logabs, real(d0))


# -- QR ------------------------------------------------------------------------------

def linalg_qr(a, mode="reduced"):
    rt = a.rt
    d0 = a.dtype
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    k = min(m, n)
    qc = rr = (k if mode == "reduced" else m)
    qshape, rshape = batch + (m, qc), batch + (rr, n)
    nb = math.prod(batch)
    if nb == 0 or (m * qc == 0 and rr * n == 0):
        return new(rt, qshape, d0), new(rt, rshape, d0)
    a = lift(a)
    d, c = a.dtype, width(a.dtype)
    qsz, rsz = nb * m * qc, nb * rr * n
    wbase = qsz + rsz
    tbase = wbase + nb * m * n
    buf = buffer(rt, c * (tbase + nb * k), d)
    key, src = ("qr", d.name), lambda stage: K.qr_source(d, stage)
    params = [m, n, a.offset, qc, rr, 0, qsz, wbase, tbase]
    staged(key, src, [a], buf, params, nb, "init")
    staged(key, src, [a], buf, params, nb, "house",
           [2 * cw(m - j) + cw(n - j) * 2 * (m - j) + 12 for j in range(k)])
    staged(key, src, [a], buf, params, nb, "r")
    staged(key, src, [a], buf, params, nb, "q",
           [cw(qc) * 2 * (m - k + jj + 1) + 2 for jj in range(k)])
    return back(_view(buf, qshape, 0, d), d0), back(_view(buf, rshape, qsz, d), d0)


# -- eigh ------------------------------------------------------------------------------

def eigh(a, vectors: bool):
    rt = a.rt
    d0 = a.dtype
    n = a.shape[-1]
    batch = a.shape[:-2]
    nb = math.prod(batch)
    if nb == 0 or n == 0:
        w = new(rt, batch + (n,), real(d0))
        return (w, new(rt, a.shape, d0)) if vectors else w
    a = lift(a)
    d, c = a.dtype, width(a.dtype)
    vsz = nb * n * n if vectors else 0
    wbase = c * vsz
    abase = up(wbase + nb * n, c)
    vbase = abase + nb * n * n
    rbase = c * (vbase + vsz)
    np2 = (n + (n & 1)) // 2
    buf = buffer(rt, rbase + nb * (np2 * 10 + 2), d)
    key, src = ("eigh", d.name, vectors), lambda stage: K.eigh_source(d, vectors, stage)
    params = [n, a.offset, abase, vbase, rbase, wbase, 0]
    staged(key, src, [a], buf, params, nb, "init")
    rounds = [cw(np2) + cw(np2 * n) * (3 if vectors else 2) + 4] * (2 * np2 - 1)
    for _ in range(SWEEPS):
        staged(key, src, [a], buf, params, nb, "sweep", rounds)
    staged(key, src, [a], buf, params, nb, "final")
    # NaN in, NaN out (numr's rule on every device): the Jacobi sweeps would carry on
    # around a NaN and return finite values for the rest
    finite = reductions.all(E.OPS["isfinite"](a), (a.ndim - 2, a.ndim - 1), False)
    w = poison(_view(buf, batch + (n,), wbase, real(d)), finite, 1)
    w = back(w, real(d0))
    if not vectors:
        return w
    return w, back(poison(_view(buf, a.shape, 0, d), finite, 2), d0)


def poison(r: GPUArray, finite: GPUArray, tail: int) -> GPUArray:
    """r with NaN in every result whose matrix was not all finite (``finite``: one
    bool per matrix; ``tail``: r's dimensions per matrix)."""
    mask = finite.view(finite.shape + (1,) * tail, finite.strides + (0,) * tail,
                       finite.offset)
    mask = broadcast_to(mask, r.shape)
    nan = fill(r.rt, (), float("nan"), r.dtype) if r.dtype.kind == "complex" \
        else float("nan")
    return where(mask, r, nan)


# -- SVD -------------------------------------------------------------------------------

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
    sv = _view(buf, batch + (k,), sbase, real(d))
    s = unscale(sv, broadcast_to(reshape(scale, batch + (1,)), sv.shape))
    if not vectors:
        return back(s, real(d0)), buf, scale, sv.offset
    u = _view(buf, ushape, 0, d)
    vh = _view(buf, vshape, usz, d)
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


# -- general eigenproblems -------------------------------------------------------------

def eig(name: str, a, vectors: bool):
    rt = a.rt
    n = a.shape[-1]
    batch = a.shape[:-2]
    nb = math.prod(batch)
    cd = dt.COMPLEX_OF[dt.float32 if a.dtype in (dt.float16, dt.bfloat16) else a.dtype] \
        if a.dtype.kind != "complex" else a.dtype
    if nb == 0 or n == 0:
        w = new(rt, batch + (n,), cd)
        return (w, new(rt, a.shape, cd)) if vectors else w
    a = lift(a)
    vsz = nb * n * n if vectors else 0
    status = 2 * (nb * n + vsz)
    hbase = up(status + nb, 2)
    zbase = hbase + nb * n * n
    xbase = zbase + nb * n * n
    gbase = xbase + nb * n * n
    qstate = 2 * (gbase + 2 * nb * n)
    buf = buffer(rt, qstate + 4 * nb, cd)
    real_input = a.dtype.kind != "complex"
    key = ("eig", cd.name, real_input, vectors)
    src = lambda stage: K.eig_source(cd, real_input, vectors, stage)  # noqa: E731
    params = [n, a.offset, 0, nb * n, status, hbase, zbase, xbase, gbase, qstate]
    staged(key, src, [a], buf, params, nb, "init")
    staged(key, src, [a], buf, params, nb, "hess",
           [cw(n) * (4 * n + 2) + cw(2 * n) * 2 * n + 12 for j in range(max(n - 2, 0))])
    step = 3 * n + 2 * n * (4 + cw(2 * n)) + 2 * cw(n) + 4
    limit = 31 * n + 31  # QR steps and deflations: the kernel allows 30 n + 30 steps
    staged(key, src, [a], buf, params, nb, "qr", [step] * limit)
    if vectors:
        staged(key, src, [a], buf, params, nb, "tri",
               [(k * k // 2 + n) // WG + 2 for k in range(n)])
        staged(key, src, [a], buf, params, nb, "zx",
               [n * (k + 1) // WG + 2 for k in range(n)])
        staged(key, src, [a], buf, params, nb, "norm")
    staged(key, src, [a], buf, params, nb, "final")
    raw = rt.download(buf.storage, status * buf.dtype.itemsize, nb * buf.dtype.itemsize)
    flags = np.frombuffer(raw, dtype=buf.dtype.name)  # a host read, as in failed()
    if (flags == 2).any():
        raise error("eig", "the matrix holds infinities or NaNs")  # as the NumPy adapter
    if flags.any():
        raise error(name, "the eigenvalue computation did not converge")
    w = _view(buf, batch + (n,), 0, cd)
    return (w, _view(buf, a.shape, nb * n, cd)) if vectors else w


def linalg_eigh(a):
    return eigh(a, True)


def linalg_eigvalsh(a):
    return eigh(a, False)


def linalg_eig(a):
    return eig("eig", a, True)


def linalg_eigvals(a):
    return eig("eigvals", a, False)


OPS = {"linalg_cholesky": linalg_cholesky, "linalg_inv": linalg_inv,
       "linalg_solve": linalg_solve, "linalg_det": linalg_det, "linalg_slogdet": linalg_slogdet,
       "linalg_qr": linalg_qr, "linalg_eigh": linalg_eigh, "linalg_eigvalsh": linalg_eigvalsh,
       "linalg_svd": linalg_svd, "linalg_svdvals": linalg_svdvals, "linalg_pinv": linalg_pinv,
       "linalg_matrix_rank": linalg_matrix_rank, "linalg_eig": linalg_eig,
       "linalg_eigvals": linalg_eigvals}

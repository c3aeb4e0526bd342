"""WebGPU ops: linalg decompositions and solvers, and how every decomposition's kernels
run (the staging helpers that svd.py and eig.py use too).

cholesky, qr, eigh/eigvalsh, solve, inv, det, slogdet here; svd/svdvals, pinv,
matrix_rank in svd.py; eig/eigvals in eig.py. One workgroup per matrix of the batch,
kernels from kernels/linalg_kernels.py.
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
from typing import Any, Callable, Literal, Sequence, overload

import numpy as np

from ... import _dtypes as dt
from ..._errors import LinAlgError
from . import array as A
from . import elementwise as E
from . import reductions
from .array import GPUArray, c_strides, new
from .creation import fill
from .elementwise import astype, broadcast_shape, where
from .kernels import linalg_kernels as K
from .kernels.map import launch
from .kernels.named import launch as named
from .manipulation import broadcast_to
from .transfers import copy


BUDGET = 20000      # loop iterations per invocation in one dispatch (llvmpipe stops at 65535)
SWEEPS = 30         # Jacobi sweeps before an SVD counts as not converged
LATE = 12           # from this sweep on, the SVD sets stuck negligible columns to zero
WG = K.WG


def cw(items: int) -> int:
    """Iterations of a loop that spreads ``items`` over a workgroup's invocations."""
    return -(-items // WG)


def result_view(buf: GPUArray, shape: Sequence[int], offset: int, d: dt.DType) -> GPUArray:
    """A contiguous view of ``shape`` and dtype ``d`` into ``buf``'s storage at element
    ``offset`` (counted in ``d``'s elements)."""
    shape = tuple(shape)
    return GPUArray(buf.storage, buf.rt, shape, c_strides(shape), offset, d)


def error(name: str, what: str) -> LinAlgError:
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


def buffer(rt: Any, reals: int, d: dt.DType) -> GPUArray:
    return new(rt, (max(reals, 1),), real(d))


def up(reals: int, c: int) -> int:
    """The element (of c reals) at or after real offset ``reals``."""
    return -(-reals // c)


def run(key: tuple[Any, ...], source: Callable[[], str], inputs: list[GPUArray],
        out: GPUArray, params: list[int], nb: int, steps: tuple[int, int] = (0, 0)) -> None:
    blocks = [x.storage.block for x in inputs] + [out.storage.block]
    words = [nb] + [int(v) for v in params]
    words += [0] * (20 - len(words)) + [int(steps[0]), int(steps[1])]
    out.rt.dispatch(("linalg",) + key, source, blocks, words, nb)


def staged(key: tuple[Any, ...], source: Callable[[str], str], inputs: list[GPUArray],
           out: GPUArray, params: list[int], nb: int, stage: str,
           costs: Sequence[int] | None = None, start: int = 0) -> None:
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


def const(rt: Any, shape: Sequence[int], d: dt.DType, value: float) -> GPUArray:
    t = K.real_ctype(d)
    e = f"vec2<{t}>({t}({value}), {t}(0.0))" if d.kind == "complex" else f"{t}({value})"
    return launch(rt, "linalg_const", e, (), d, tuple(shape))


def identity(rt: Any, batch: Sequence[int], rows: int, cols: int, d: dt.DType) -> GPUArray:
    t = K.real_ctype(d)
    one = f"select({t}(0.0), {t}(1.0), i % cols == (i / cols) % rows)"
    e = f"vec2<{t}>({one}, {t}(0.0))" if d.kind == "complex" else one
    return named(rt, "linalg_eye", e, {"cols": (max(cols, 1), dt.uint32),
                                       "rows": (max(rows, 1), dt.uint32)}, d,
                 tuple(batch) + (rows, cols))


# -- cholesky ----------------------------------------------------------------------

def linalg_cholesky(a: GPUArray, upper: bool = False) -> GPUArray:
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
    return back(result_view(buf, a.shape, 0, d), d0)


# -- LU family ---------------------------------------------------------------------

def lu(name: str, mode: str, a: GPUArray, b: GPUArray | None, head: int,
       tail: int) -> tuple[GPUArray, int]:
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


def linalg_inv(a: GPUArray) -> GPUArray:
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
    return back(result_view(buf, a.shape, 0, d), d0)


def linalg_solve(a: GPUArray, b: GPUArray) -> GPUArray:
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
        r = back(result_view(buf, shape, 0, d), d0)
    if vector:
        r = r.view(r.shape[:-1], r.strides[:-1], r.offset)
    return r


def linalg_det(a: GPUArray) -> GPUArray:
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
    return back(result_view(buf, batch, 0, d), d0)


def linalg_slogdet(a: GPUArray) -> tuple[GPUArray, GPUArray]:
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
    sign = result_view(buf, batch, 0, d)
    logabs = result_view(buf, batch, c * nb, real(d))
    return back(sign, d0), back(logabs, real(d0))


# -- QR ------------------------------------------------------------------------------

def linalg_qr(a: GPUArray, mode: str = "reduced") -> tuple[GPUArray, GPUArray]:
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
    return back(result_view(buf, qshape, 0, d), d0), back(result_view(buf, rshape, qsz, d), d0)


# -- eigh ------------------------------------------------------------------------------

@overload
def eigh(a: GPUArray, vectors: Literal[True]) -> tuple[GPUArray, GPUArray]: ...
@overload
def eigh(a: GPUArray, vectors: Literal[False]) -> GPUArray: ...


def eigh(a: GPUArray, vectors: bool) -> GPUArray | tuple[GPUArray, GPUArray]:
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
    w = poison(result_view(buf, batch + (n,), wbase, real(d)), finite, 1)
    w = back(w, real(d0))
    if not vectors:
        return w
    return w, back(poison(result_view(buf, a.shape, 0, d), finite, 2), d0)


def poison(r: GPUArray, finite: GPUArray, tail: int) -> GPUArray:
    """r with NaN in every result whose matrix was not all finite (``finite``: one
    bool per matrix; ``tail``: r's dimensions per matrix)."""
    mask = finite.view(finite.shape + (1,) * tail, finite.strides + (0,) * tail,
                       finite.offset)
    mask = broadcast_to(mask, r.shape)
    nan = fill(r.rt, (), float("nan"), r.dtype) if r.dtype.kind == "complex" \
        else float("nan")
    return where(mask, r, nan)


def linalg_eigh(a: GPUArray) -> tuple[GPUArray, GPUArray]:
    return eigh(a, True)


def linalg_eigvalsh(a: GPUArray) -> GPUArray:
    return eigh(a, False)


OPS: dict[str, Callable[..., Any]] = {
    "linalg_cholesky": linalg_cholesky, "linalg_inv": linalg_inv,
    "linalg_solve": linalg_solve, "linalg_det": linalg_det, "linalg_slogdet": linalg_slogdet,
    "linalg_qr": linalg_qr, "linalg_eigh": linalg_eigh, "linalg_eigvalsh": linalg_eigvalsh}

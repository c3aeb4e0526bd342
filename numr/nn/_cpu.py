"""CPU kernels of numr.nn: numba-compiled, parallel over chunks of rows.

One kernel does every forward variant (rms or layer norm, with or without residual) and
one every backward variant, so each dtype compiles two kernels, not one per option
combination; absent weight/bias are passed as ones/zeros in the accumulator dtype
(tiny arrays that stay in cache). Each row is read from memory once into a per-chunk
work row of accumulator precision, reduced and written from there (it stays in cache),
so the op makes one pass over memory. The row sums are separate load-only passes over
the cached row, so that results do not depend on where the arrays lie (see _sum). Layer
norm keeps a second pass for the variance (sum of squared deviations from the mean),
exact for large means.
Chunks of rows go to threads dynamically, so a descheduled thread does not hold the
op up on a shared machine. Large results come from a few recycled arrays (see _empty).

numba has no CPU float16 or bfloat16, so float16 arrays arrive as their uint16 bits and
bfloat16 arrays as int16 (the numba type tells the two apart): loads decode through a
65536-entry table each, stores round to nearest even by bit arithmetic; sums are
float32 (float64 for float64 input).

The kernels keep strict IEEE semantics (fastmath off) except the row sums, which may be
reassociated so that they vectorize: one running sum in order is bound by the add
latency, not by memory.
"""

from __future__ import annotations

import math
import sys
import threading

import numpy as np
from numba import njit, prange, get_num_threads, parallel_chunksize, types
from numba.extending import overload

from .. import _config

# float16 bits -> float32 value, for every bit pattern.
_F16_TABLE = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
# bfloat16 bits -> float32 value: the bits are the top half of the float32's.
_BF16_TABLE = (np.arange(65536, dtype=np.uint32) << np.uint32(16)).view(np.float32)
_BF16 = np.dtype("bfloat16")  # ml_dtypes' (registered with NumPy by numr._dtypes)


def _load(a, j):  # pragma: no cover - replaced by the overload inside kernels
    raise NotImplementedError


def _store(a, j, v):  # pragma: no cover
    raise NotImplementedError


def _round(a, v):  # pragma: no cover
    raise NotImplementedError


def _cast(ref, v):  # pragma: no cover
    raise NotImplementedError


@njit(cache=True)
def _f32_to_f16_bits(v):
    """float32 -> float16 bits, round to nearest even (what NumPy's astype does)."""
    u = np.uint32(np.float32(v).view(np.uint32))
    sign = np.uint32((u >> np.uint32(16)) & np.uint32(0x8000))
    e = np.int32((u >> np.uint32(23)) & np.uint32(0xFF))
    m = np.uint32(u & np.uint32(0x7FFFFF))
    if e == 255:  # inf or nan (keep nan quiet)
        h = sign | np.uint32(0x7C00) | (np.uint32(0x200) if m != 0 else np.uint32(0))
        return np.uint16(h)
    e16 = e - 112  # rebias 127 -> 15
    if e16 >= 31:
        return np.uint16(sign | np.uint32(0x7C00))
    if e16 <= 0:  # float16 subnormal or zero
        if e16 < -10:
            return np.uint16(sign)
        mm = m | np.uint32(0x800000)
        shift = np.uint32(14 - e16)
        hm = mm >> shift
        rem = mm & ((np.uint32(1) << shift) - np.uint32(1))
        half = np.uint32(1) << (shift - np.uint32(1))
        if rem > half or (rem == half and (hm & np.uint32(1)) != 0):
            hm += np.uint32(1)
        return np.uint16(sign | hm)
    h = sign | (np.uint32(e16) << np.uint32(10)) | (m >> np.uint32(13))
    rem = m & np.uint32(0x1FFF)
    # a carry out of the mantissa moves into the exponent, up to inf: that is correct
    if rem > np.uint32(0x1000) or (rem == np.uint32(0x1000) and (h & np.uint32(1)) != 0):
        h += np.uint32(1)
    return np.uint16(h)


@njit(cache=True)
def _f32_to_bf16_bits(v):
    """float32 -> bfloat16 bits (as int16), round to nearest even; NaN stays NaN."""
    u = np.uint32(np.float32(v).view(np.uint32))
    if (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000):
        h = (u >> np.uint32(16)) | np.uint32(0x40)
    else:
        h = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    return np.int16(np.int32(h) - np.int32(65536) if h >= np.uint32(32768) else np.int32(h))


@overload(_load)
def _ol_load(a, j):
    if a.dtype == types.uint16:
        return lambda a, j: _F16_TABLE[a[j]]
    if a.dtype == types.int16:
        return lambda a, j: _BF16_TABLE[np.int32(a[j]) & np.int32(0xFFFF)]
    return lambda a, j: a[j]


@overload(_store)
def _ol_store(a, j, v):
    if a.dtype == types.uint16:
        def impl(a, j, v):
            a[j] = _f32_to_f16_bits(v)
        return impl
    if a.dtype == types.int16:
        def impl(a, j, v):
            a[j] = _f32_to_bf16_bits(v)
        return impl

    def impl(a, j, v):
        a[j] = v
    return impl


@overload(_round)
def _ol_round(a, v):
    """v as it reads back after a store into a's dtype."""
    if a.dtype == types.uint16:
        return lambda a, v: _F16_TABLE[_f32_to_f16_bits(v)]
    if a.dtype == types.int16:
        return lambda a, v: _BF16_TABLE[np.int32(_f32_to_bf16_bits(v)) & np.int32(0xFFFF)]
    return lambda a, v: v


@overload(_cast)
def _ol_cast(ref, v):
    """v in the dtype of the array ref: keeps float32 sums from widening to float64
    (numba follows NumPy: float32 / int64 is float64)."""
    if ref.dtype == types.float64:
        return lambda ref, v: np.float64(v)
    return lambda ref, v: np.float32(v)


# The row sums may be reassociated (and so vectorized); the rest of the kernels keep
# strict IEEE semantics. A single running sum is bound by the add latency, not memory.
_REDUCE = dict(cache=True, fastmath={"reassoc", "contract"})


@njit(**_REDUCE)
def _sum_dev2(buf, mu):
    """sum((buf - mu)**2)."""
    a = _cast(buf, 0.0)
    for j in range(buf.shape[0]):
        d = buf[j] - mu
        a += d * d
    return a


# A row is read from memory once, into the cached work row, and reduced from there.
# The sums are loops that only load (no stores): a reassociated loop that also stores
# gets a run-time overlap check from LLVM's vectoriser, which falls back to the scalar
# loop (another summation order) whenever two of the arrays lie close together in
# memory, so the same call gave results one rounding apart depending on where malloc
# put its arrays. A load-only loop is always vectorised the same way: the same inputs
# give the same bits, wherever they lie. Every stored value is computed as in strict
# IEEE code (_REDUCE reassociates only these sums).

@njit(**_REDUCE)
def _sum(buf, square):
    """sum(buf), or sum(buf**2) when square."""
    a = _cast(buf, 0.0)
    for j in range(buf.shape[0]):
        u = buf[j]
        a += u * u if square else u
    return a


@njit(**_REDUCE)
def _sum2(g, h):
    """(sum(g), sum(g * h))."""
    a = _cast(g, 0.0)
    c = _cast(g, 0.0)
    for j in range(g.shape[0]):
        a += g[j]
        c += g[j] * h[j]
    return a, c


@njit(cache=True)
def _load_row(x, xi, ri, si, buf, has_r, write_s, square):
    """buf = xi [+ ri] in the accumulator dtype (s rounded to x's dtype, as stored into
    si when write_s); returns sum(buf), or sum(buf**2) when square (rms norm)."""
    n = buf.shape[0]
    if has_r:
        if write_s:
            for j in range(n):
                v = _load(xi, j) + _load(ri, j)
                _store(si, j, v)
                # normalise s as stored, so forward and backward see the same s
                buf[j] = _round(x, v)
        else:
            for j in range(n):
                buf[j] = _round(x, _load(xi, j) + _load(ri, j))
    else:
        for j in range(n):
            buf[j] = _load(xi, j)
    return _sum(buf, square)


@njit(cache=True)
def _bwd_row(xs, gyi, w, mu, rs, gw, pwc, pbc, want_w, want_b):
    """One pass of the backward over a row: xs becomes xhat, gw the gradient reaching
    xhat (gy * w); the weight/bias partial sums grow; returns (sum(gw), sum(gw * xhat))."""
    for j in range(xs.shape[0]):
        g = _load(gyi, j)
        h = (xs[j] - mu) * rs
        xs[j] = h
        gw[j] = g * w[j]
        if want_w:
            pwc[j] += g * h
        if want_b:
            pbc[j] += g
    return _sum2(gw, xs)


@njit(parallel=True, fastmath=False, cache=True, error_model="numpy")
def _fwd_kernel(x, r, w, b, y, s, work, eps, center, has_r, write_s):
    """y = norm(x [+ r]) * w + b per row; s = x + r when write_s.

    x, r, y, s: (rows, n) in the storage dtype; w, b: (n,) and work: (chunks, n) in the
    accumulator dtype. center: layer norm (subtract the mean) rather than rms norm.
    """
    rows, n = x.shape
    chunks = work.shape[0]
    per = (rows + chunks - 1) // chunks
    for c in prange(chunks):
        buf = work[c]
        for i in range(c * per, min(rows, (c + 1) * per)):
            yi = y[i]
            # the one read of the row from memory, reduced on the way in
            a = _load_row(x, x[i], r[i], s[i], buf, has_r, write_s, not center)
            if center:
                mu = _cast(buf, a / n)
                var = _sum_dev2(buf, mu) / n  # two passes: exact for large means
            else:
                mu = _cast(buf, 0.0)
                var = a / n
            rs = _cast(buf, 1.0 / np.sqrt(var + eps))
            for j in range(n):
                _store(yi, j, (buf[j] - mu) * rs * w[j] + b[j])


@njit(parallel=True, fastmath=False, cache=True, error_model="numpy")
def _bwd_kernel(gy, s, gs, w, gx, pw, pb, work, eps, center, has_gs, want_w, want_b):
    """grad of y = norm(s) * w + b per row, plus gs: gx; per-chunk partial sums of the
    weight (pw) and bias (pb) gradients.

    gy, s, gs, gx: (rows, n) storage dtype; w: (n,), pw, pb: (chunks, n) ((1, n) and
    unused when not wanted), work: (chunks, 2, n) in the accumulator dtype.
    """
    rows, n = s.shape
    chunks = work.shape[0]
    per = (rows + chunks - 1) // chunks
    for c in prange(chunks):
        xs, gw = work[c, 0], work[c, 1]
        pwc, pbc = pw[c], pb[c]  # the chunk's partial sums
        for i in range(c * per, min(rows, (c + 1) * per)):
            gxi = gx[i]
            a = _load_row(s, s[i], s[i], s[i], xs, False, False, not center)
            if center:
                mu = _cast(xs, a / n)
                var = _sum_dev2(xs, mu) / n
            else:
                mu = _cast(xs, 0.0)
                var = a / n
            rs = _cast(xs, 1.0 / np.sqrt(var + eps))
            sg, sgx = _bwd_row(xs, gy[i], w, mu, rs, gw, pwc, pbc, want_w, want_b)
            mg = _cast(xs, sg / n) if center else _cast(xs, 0.0)
            mgx = _cast(xs, sgx / n)
            if has_gs:
                gsi = gs[i]
                for j in range(n):
                    _store(gxi, j, rs * (gw[j] - mg - xs[j] * mgx) + _load(gsi, j))
            else:
                for j in range(n):
                    _store(gxi, j, rs * (gw[j] - mg - xs[j] * mgx))


# --- result arrays ----------------------------------------------------------------------
# glibc serves allocations above its mmap threshold (32 MiB at most) with fresh pages and
# unmaps them on free, so every large result paid the kernel's zeroing of its pages on
# first touch: 4-5 ms of a 13-16 ms float32 4096x4096 forward on this project's 2-core
# machine, where NumPy's whole copy into a preallocated array takes 11 ms. So the last few
# large results handed out are kept, and one is handed out again for a result of the same
# shape and dtype once nothing else refers to it (its caller dropped it and every view of
# it): a loop calling the same op on the same shapes then reuses warm pages, as a caching
# allocator does. NUMR_NN_CPU_POOL=0 (numr/_config.py) turns this off.
_POOL_MIN_BYTES = 1 << 20   # smaller results come from malloc's heap, already mapped
_POOL_SLOTS = 4             # arrays kept: what one op's outputs need, a few times
_pool: list = []            # most recently handed out last
_pool_lock = threading.Lock()


def _empty(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """np.empty(shape, dtype), from the recycled arrays where it is large (see above)."""
    dtype = np.dtype(dtype)
    if math.prod(shape) * dtype.itemsize < _POOL_MIN_BYTES or not _config.settings().nn_cpu_pool:
        return np.empty(shape, dtype)
    with _pool_lock:  # (two threads must not both take the same free array)
        for i in range(len(_pool) - 1, -1, -1):
            a = _pool[i]
            # free: referred to only by the list, a and getrefcount's argument (CPython)
            if a.shape == shape and a.dtype == dtype and sys.getrefcount(a) == 3:
                _pool.append(_pool.pop(i))
                return a
        a = np.empty(shape, dtype)
        _pool.append(a)
        if len(_pool) > _POOL_SLOTS:
            del _pool[0]  # forgotten: its memory goes when its caller lets go of it
        return a


# --- the interface numr.nn._norms calls: native NumPy arrays in, native arrays out -----

def _acc_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


def _rows(a: np.ndarray, n: int) -> np.ndarray:
    """a as a C-contiguous (rows, n) array of what the kernels read (uint16 for float16,
    int16 for bfloat16)."""
    a = np.ascontiguousarray(a).reshape(-1, n)
    if a.dtype == np.float16:
        return a.view(np.uint16)
    return a.view(np.int16) if a.dtype == _BF16 else a


def _chunks(rows: int) -> int:
    # several chunks per thread, handed out dynamically (see _dynamic): when a thread is
    # descheduled (a shared machine) the others take its remaining chunks instead of
    # waiting for it; each chunk has work rows and partial sums of n values, so not
    # many more than that
    return max(1, min(rows, 8 * get_num_threads()))


def _dynamic():
    """Hand prange iterations (chunks of rows) to threads one at a time."""
    return parallel_chunksize(1)


def _param(p, n: int, acc: np.dtype, fill: float) -> np.ndarray:
    if p is None:
        return np.full(n, fill, dtype=acc)
    return np.ascontiguousarray(p, dtype=acc).reshape(n)


def norm_forward(x: np.ndarray, residual, weight, bias, eps: float, center: bool,
                 want_sum: bool):
    """(y, s): y = norm(s) * weight + bias over the last axis, s = x + residual
    (s is None unless want_sum). NumPy arrays of x's dtype and shape."""
    shape, dtype = x.shape, x.dtype
    n = shape[-1]
    y = _empty(shape, dtype)
    s = _empty(shape, dtype) if want_sum else None
    if y.size == 0:
        return y, s
    acc = _acc_dtype(dtype)
    x2 = _rows(x, n)
    r2 = _rows(residual, n) if residual is not None else x2
    y2 = _rows(y, n)
    s2 = _rows(s, n) if want_sum else y2
    work = np.empty((_chunks(x2.shape[0]), n), acc)
    with _dynamic():
        _fwd_kernel(x2, r2, _param(weight, n, acc, 1.0), _param(bias, n, acc, 0.0), y2, s2,
                    work, float(eps), bool(center), residual is not None, bool(want_sum))
    return y, s


def norm_backward(grad_y: np.ndarray, s: np.ndarray, grad_s, weight, eps: float,
                  center: bool, want_weight: bool, want_bias: bool):
    """(grad_s_total, grad_weight, grad_bias) for y = norm(s) * weight + bias, where
    grad_s_total also carries grad_s (the gradient reaching s from elsewhere)."""
    shape, dtype = s.shape, s.dtype
    n = shape[-1]
    gx = _empty(shape, dtype)
    acc = _acc_dtype(dtype)
    rows = s.size // n if n else 0
    chunks = _chunks(rows)
    # partial sums per chunk (a few rows of n: small next to the op's arrays)
    pw = np.zeros((chunks, n), acc)
    pb = np.zeros((chunks, n), acc)
    if gx.size:
        s2 = _rows(s, n)
        gy2 = _rows(grad_y, n)
        gs2 = _rows(grad_s, n) if grad_s is not None else gy2
        work = np.empty((chunks, 2, n), acc)
        with _dynamic():
            _bwd_kernel(gy2, s2, gs2, _param(weight, n, acc, 1.0), _rows(gx, n), pw, pb,
                        work, float(eps), bool(center), grad_s is not None,
                        bool(want_weight), bool(want_bias))
    gw = pw.sum(axis=0).astype(dtype) if want_weight else None
    gb = pb.sum(axis=0).astype(dtype) if want_bias else None
    return gx, gw, gb

"""CPU kernels of numr.random: Philox4x32-10 in numba, parallel over chunks of blocks.

One Philox block (a 128-bit counter under a 64-bit key, ten rounds) makes four 32-bit
words. Each kernel fills ``nblocks`` consecutive blocks starting at the counter it is
given, in Random123's word order, and writes them as raw words or as uniform floats in
[0, 1) (float32 from the top 24 bits of a word, float64 from the top 27 + 26 bits of a
pair of words: the conversions of numr.random._philox, fused so the words never reach
memory). NumPy's uint64 arithmetic would compute the same words, ~20x slower (each
round is a dozen passes over the whole array).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, parallel_chunksize, prange

from ._cpu_math import log1m as _log1m, sincos as _sincos

_M0 = np.uint64(0xD2511F53)
_M1 = np.uint64(0xCD9E8D57)
_W0 = np.uint32(0x9E3779B9)
_W1 = np.uint32(0xBB67AE85)
_LO = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_CHUNK = 1024             # blocks a prange iteration (16 KiB of words: in L1)


@njit(inline="always", cache=True)
def _chunk(k0, k1, c0, c1, c2, c3, st, x0, x1, x2, x3):
    """Blocks st .. st + len(x0) - 1 after counter (c0..c3) under key (k0, k1), word i
    of block st + j into xi[j]. Laid out as four arrays so the rounds' inner loop runs
    over independent blocks, which LLVM vectorises (3x faster than one block at a
    time, the words interleaved)."""
    for j in range(x0.shape[0]):
        b = np.uint64(st + j)
        s = np.uint64(c0) + (b & _LO)
        x0[j] = np.uint32(s & _LO)
        s = np.uint64(c1) + (b >> _S32) + (s >> _S32)
        x1[j] = np.uint32(s & _LO)
        s = np.uint64(c2) + (s >> _S32)
        x2[j] = np.uint32(s & _LO)
        x3[j] = np.uint32((np.uint64(c3) + (s >> _S32)) & _LO)
    for _ in range(10):
        for j in range(x0.shape[0]):
            p0 = _M0 * np.uint64(x0[j])
            p1 = _M1 * np.uint64(x2[j])
            y0 = np.uint32(p1 >> _S32) ^ x1[j] ^ k0
            y2 = np.uint32(p0 >> _S32) ^ x3[j] ^ k1
            x1[j] = np.uint32(p1 & _LO)
            x3[j] = np.uint32(p0 & _LO)
            x0[j] = y0
            x2[j] = y2
        k0 = np.uint32(k0 + _W0)
        k1 = np.uint32(k1 + _W1)


@njit(parallel=True, cache=True)
def _fill_u32(out, k0, k1, c0, c1, c2, c3, nblocks):
    for c in prange((nblocks + _CHUNK - 1) // _CHUNK):
        st = c * _CHUNK
        m = min(_CHUNK, nblocks - st)
        x0, x1 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        x2, x3 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        _chunk(k0, k1, c0, c1, c2, c3, st, x0, x1, x2, x3)
        for j in range(m):
            b = 4 * (st + j)
            out[b] = x0[j]
            out[b + 1] = x1[j]
            out[b + 2] = x2[j]
            out[b + 3] = x3[j]


@njit(parallel=True, cache=True)
def _fill_f32(out, k0, k1, c0, c1, c2, c3, nblocks):
    f = np.float32(2.0 ** -24)
    e = np.uint32(8)
    for c in prange((nblocks + _CHUNK - 1) // _CHUNK):
        st = c * _CHUNK
        m = min(_CHUNK, nblocks - st)
        x0, x1 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        x2, x3 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        _chunk(k0, k1, c0, c1, c2, c3, st, x0, x1, x2, x3)
        for j in range(m):
            b = 4 * (st + j)
            out[b] = np.float32(x0[j] >> e) * f
            out[b + 1] = np.float32(x1[j] >> e) * f
            out[b + 2] = np.float32(x2[j] >> e) * f
            out[b + 3] = np.float32(x3[j] >> e) * f


@njit(parallel=True, cache=True)
def _fill_f64(out, k0, k1, c0, c1, c2, c3, nblocks):
    f = 2.0 ** -53
    e5, e6 = np.uint32(5), np.uint32(6)
    for c in prange((nblocks + _CHUNK - 1) // _CHUNK):
        st = c * _CHUNK
        m = min(_CHUNK, nblocks - st)
        x0, x1 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        x2, x3 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        _chunk(k0, k1, c0, c1, c2, c3, st, x0, x1, x2, x3)
        for j in range(m):
            b = 2 * (st + j)
            out[b] = (np.float64(x0[j] >> e5) * 67108864.0 + np.float64(x1[j] >> e6)) * f
            out[b + 1] = (np.float64(x2[j] >> e5) * 67108864.0
                          + np.float64(x3[j] >> e6)) * f


@njit(cache=True)
def _log1m_all(w, lg):
    """lg[j] = log1p(-w[j]) (float64 arrays: one compiled copy serves both kernels)."""
    for j in range(w.shape[0]):
        lg[j] = _log1m(w[j])


@njit(cache=True)
def _angle(t, s, q):
    """s[j], q[j] = sin t[j], cos t[j] (float64 arrays, as _log1m_all)."""
    for j in range(t.shape[0]):
        a, b = _sincos(t[j])
        s[j] = a
        q[j] = b


# The normal kernels work a chunk in separate loops over chunk-sized arrays (in L1): the
# one loop over j that did everything did not vectorise (3x slower). _log1m_all, _angle
# are functions of their own, not inlined: inside the parallel loop's body LLVM
# vectorised them less well (16M float64 normals 385 -> 273 ms on one thread); and on
# float64 arrays only, so each is compiled once (a cold compile of the normal kernels
# is most of a clean checkout's first draw).

@njit(parallel=True, cache=True)
def _fill_n32(out, k0, k1, c0, c1, c2, c3, nblocks):
    """Box-Muller as Generator._std_normal composes it (pairs of consecutive uniforms;
    r = sqrt(-2 log1p(-u)), t = fl(2 pi) v; r cos t, r sin t), each step rounded to
    float32, log1p, cos and sin computed in float64 (numr.random._cpu_math) and rounded
    once to float32 (WebGPU in float32 arithmetic with compensated log, cos and sin:
    within 3 ULP, 4% differ; CUDA with its libdevice functions)."""
    f = np.float32(2.0 ** -24)
    e = np.uint32(8)
    m2 = np.float32(-2.0)
    tp = np.float32(2.0 * np.pi)
    for c in prange((nblocks + _CHUNK - 1) // _CHUNK):
        st = c * _CHUNK
        m = min(_CHUNK, nblocks - st)
        x0, x1 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        x2, x3 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        _chunk(k0, k1, c0, c1, c2, c3, st, x0, x1, x2, x3)
        w, t = np.empty(2 * m), np.empty(2 * m)
        for j in range(m):
            w[j] = np.float64(np.float32(x0[j] >> e) * f)
            w[m + j] = np.float64(np.float32(x2[j] >> e) * f)
            t[j] = np.float64(tp * (np.float32(x1[j] >> e) * f))
            t[m + j] = np.float64(tp * (np.float32(x3[j] >> e) * f))
        lg, sn, cs = np.empty(2 * m), np.empty(2 * m), np.empty(2 * m)
        _log1m_all(w, lg)
        _angle(t, sn, cs)
        o = out[4 * st: 4 * (st + m)]
        for j in range(m):
            r0 = np.float32(math.sqrt(m2 * np.float32(lg[j])))
            r1 = np.float32(math.sqrt(m2 * np.float32(lg[m + j])))
            o[4 * j] = r0 * np.float32(cs[j])
            o[4 * j + 1] = r0 * np.float32(sn[j])
            o[4 * j + 2] = r1 * np.float32(cs[m + j])
            o[4 * j + 3] = r1 * np.float32(sn[m + j])


@njit(parallel=True, cache=True)
def _fill_n64(out, k0, k1, c0, c1, c2, c3, nblocks):
    """As _fill_n32 in float64 (one pair a block: words 0-1 give u, 2-3 give v), with
    numr's WGSL log1p, sin and cos step for step: WebGPU's and CUDA's bits."""
    f = 2.0 ** -53
    e5, e6 = np.uint32(5), np.uint32(6)
    tp = 2.0 * np.pi
    for c in prange((nblocks + _CHUNK - 1) // _CHUNK):
        st = c * _CHUNK
        m = min(_CHUNK, nblocks - st)
        x0, x1 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        x2, x3 = np.empty(m, np.uint32), np.empty(m, np.uint32)
        _chunk(k0, k1, c0, c1, c2, c3, st, x0, x1, x2, x3)
        w, t = np.empty(m), np.empty(m)
        for j in range(m):
            w[j] = (np.float64(x0[j] >> e5) * 67108864.0 + np.float64(x1[j] >> e6)) * f
            t[j] = tp * ((np.float64(x2[j] >> e5) * 67108864.0 + np.float64(x3[j] >> e6)) * f)
        lg, sn, cs = np.empty(m), np.empty(m), np.empty(m)
        _log1m_all(w, lg)
        _angle(t, sn, cs)
        o = out[2 * st: 2 * (st + m)]
        for j in range(m):
            r = math.sqrt(-2.0 * lg[j])
            o[2 * j] = r * cs[j]
            o[2 * j + 1] = r * sn[j]


# Generator._std_normal takes its normals from _fill_n32/_fill_n64 (one pass; the
# composite of NumPy ufuncs made ten, 0.28x the speed of NumPy's ziggurat here, libm's
# log1p/cos/sin in this kernel 0.6x: they are calls the loop cannot vectorise).
NORMALS = True

_FILL = {"u32": (_fill_u32, np.uint32, 4), "f32": (_fill_f32, np.float32, 4),
         "f64": (_fill_f64, np.float64, 2), "n32": (_fill_n32, np.float32, 4),
         "n64": (_fill_n64, np.float64, 2)}


def fill(device, key: tuple, counter: tuple, nblocks: int, fmt: str):
    """A NumPy array of ``nblocks`` Philox blocks from ``counter`` under ``key``: 4 words
    a block (``fmt`` "u32"), 4 float32 uniforms ("f32") or 2 float64 uniforms ("f64")."""
    kernel, dtype, per = _FILL[fmt]
    out = np.empty(per * nblocks, dtype)
    if nblocks:
        # threads take 4 chunks at a time, not a fixed half each: on a loaded machine a
        # thread that lost its core no longer holds the draw up by its whole share
        with parallel_chunksize(4):
            kernel(out, np.uint32(key[0]), np.uint32(key[1]),
                   *(np.uint32(c) for c in counter), nblocks)
    return out

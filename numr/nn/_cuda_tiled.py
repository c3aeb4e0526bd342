"""numr.nn's register-tiled CUDA kernels: float16, bfloat16 and float32 rows held in
registers (numr/nn/_cuda.py sends float64 and rows wider than the tile to the general
kernels of numr/nn/_cuda_general.py; here ``plan`` returns None for those).

The norms are memory-bound, so every kernel is shaped to keep loads in flight and to wait
on as few barriers as possible:

* A row is held in registers as loaded (float16 and bfloat16 as packed pairs, each
  element read from its 32-bit word: ``elem``), each thread holding a few 16-byte packs;
  narrow rows share a block, and a row-group takes several rows a step so that their
  loads are issued together and their block sums share barriers.
* Layer norm's mean and variance come from one block sum over shifted data (row_stats),
  so rms and layer norm cost the same barriers; a block sum is a warp reduce-scatter with
  one barrier (two buffers used in turn); float16 results are rounded in pairs.
* Backward: each step prefetches the next step's rows before its own sums (bwd_pf); the
  grid is exactly the blocks that stay resident, rows dealt evenly; the weight/bias
  partials (registers or shared memory, by the per-(dtype, norm) constants) are combined
  per block and stored a pack at a time into a per-stream scratch, then summed by
  reduce_parts3, launched as a programmatic dependent of the backward.
* Forward: the rows are loaded with the L2 evict_last hint (as torch.compile's Triton kernel
  loads them); the plan (threads, packs a thread, launch bound) depends on the width, the
  dtype and whether a residual is added; s = x + r is written only when the caller wants it.
* Host work per call is small: launch shapes are cached per (dtype, rows, width, flags,
  alignment), outputs are cupy.empty (the reduce writes every column), grad_weight and
  grad_bias share one allocation, arrays go to the kernel unreshaped, launches go to
  cuLaunchKernel(Ex) directly on the caller's stream, and every kernel waits at pdl_wait,
  launched as a programmatic dependent of the kernel before it.

Widths beyond the register tile (more than 8 columns per thread at 1024 threads backward,
16 forward) and float64 are the general kernels'. The measurements behind these
choices (and the variants measured and not kept) are in the git history of
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from dataclasses import dataclass
from typing import Any, Optional

from .. import _config
from ._cuda_common import COMMON_SOURCE, CTYPE, ITEMSIZE, compile_kernel, sm_count

TILED_SOURCE = r"""
template <typename T, int VEC>
__device__ __forceinline__ Pack<T, VEC> zero_pack() {
    Pack<T, VEC> p;
#pragma unroll
    for (int e = 0; e < VEC; ++e) p.v[e] = from_acc<T>(typename Acc<T>::type(0));
    return p;
}

// A pack loaded where ok, else zeros, moved as whole 32-bit words: element by element, a
// half loaded under a condition over a zeroed pack costs a zeroing and two byte permutes
// (PRMT) per word, a tenth of float16 backward's instructions. memcpy between registers
// compiles to nothing.
template <int W> struct Words;
template <> struct Words<1> { typedef unsigned type; };
template <> struct Words<2> { typedef uint2 type; };
template <> struct Words<4> { typedef uint4 type; };
template <typename T, int VEC>
__device__ __forceinline__ Pack<T, VEC> load_or_zero(const Pack<T, VEC>* p, bool ok) {
    constexpr int B = sizeof(Pack<T, VEC>);
    Pack<T, VEC> r;
    if constexpr (sizeof(T) == 2 && (B == 4 || B == 8 || B == 16)) {  // (floats: no PRMT)
        typedef typename Words<B / 4>::type U;
        const U u = ok ? *reinterpret_cast<const U*>(p) : U{};
        memcpy(&r, &u, B);
    } else {
        r = zero_pack<T, VEC>();
        if (ok) r = *p;
    }
    return r;
}

// Accumulator values rounded into a pack. Halves go two at a time: one instruction rounds
// a pair of floats into a half2 (cvt.rn.f16x2.f32) where rounding them one by one takes one
// each plus the merges; float16 backward spends its time on such per-element instructions
// (half the bytes of float32 per element, the same arithmetic). Reading a half costs one
// instruction either way (one per half of a half2 too), so reads stay per element, next to
// their use: converting a whole pack first keeps its floats live and spills.
template <typename T, int VEC> struct Cv {
    typedef typename Acc<T>::type A;
    static __device__ __forceinline__ Pack<T, VEC> put(const A (&a)[VEC]) {
        Pack<T, VEC> p;
#pragma unroll
        for (int e = 0; e < VEC; ++e) p.v[e] = from_acc<T>(a[e]);
        return p;
    }
};
template <int VEC> struct Cv<__half, VEC> {
    static __device__ __forceinline__ Pack<__half, VEC> put(const float (&a)[VEC]) {
        Pack<__half, VEC> p;
        if constexpr (VEC % 2 == 0) {
            __half2 h[VEC / 2];  // the pairs' words, moved into the pack whole (no PRMT)
#pragma unroll
            for (int e = 0; e < VEC / 2; ++e) h[e] = __floats2half2_rn(a[2 * e], a[2 * e + 1]);
            memcpy(&p, h, sizeof(p));
        } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) p.v[e] = __float2half_rn(a[e]);
        }
        return p;
    }
};
// bfloat16 the same way: one cvt.rn.bf16x2.f32 (sm_80 and later) a pair.
template <int VEC> struct Cv<__nv_bfloat16, VEC> {
    static __device__ __forceinline__ Pack<__nv_bfloat16, VEC> put(const float (&a)[VEC]) {
        Pack<__nv_bfloat16, VEC> p;
        if constexpr (VEC % 2 == 0) {
            __nv_bfloat162 h[VEC / 2];
#pragma unroll
            for (int e = 0; e < VEC / 2; ++e) h[e] = __floats2bfloat162_rn(a[2 * e], a[2 * e + 1]);
            memcpy(&p, h, sizeof(p));
        } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) p.v[e] = __float2bfloat16_rn(a[e]);
        }
        return p;
    }
};

// p through an opaque move: the compiler cannot hoist conversions of a loop-invariant pack
// (the weight) out of the row loop, where their floats would hold twice its registers
// for the whole kernel and push the row loop's working set into spills (float16 layer
// norm backward with prefetch: 16/32 spill bytes a thread without it, none with it; two
// rows a step without prefetch spill more with it)
template <typename T, int VEC>
__device__ __forceinline__ Pack<T, VEC> opaque(const Pack<T, VEC>& p) {
    if constexpr (sizeof(Pack<T, VEC>) % 4 != 0) {
        return p;
    } else {
        Pack<T, VEC> q;
        const unsigned* a = reinterpret_cast<const unsigned*>(&p);
        unsigned* b = reinterpret_cast<unsigned*>(&q);
#pragma unroll
        for (int e = 0; e < (int)(sizeof(Pack<T, VEC>) / 4); ++e)
            asm volatile("mov.b32 %0, %1;" : "=r"(b[e]) : "r"(a[e]));
        return q;
    }
}

// Shared memory for block sums, two buffers used in turn: a sum writes one while the
// previous sum's slowest readers may still read the other, and every thread has passed
// that previous sum's barrier only after reading the one before it, so a sum needs one
// barrier, not two (the rows' chain of loads, sums and writes is what an SM waits on).
template <typename A> struct SumBufs {
    A* base;
    int size;  // values per buffer
    int turn;
    __device__ __forceinline__ A* next() {
        A* p = base + turn * size;
        turn ^= 1;
        return p;
    }
};

// The warp totals of K values (K a power of two, at most 32), one per lane: a reduce-scatter.
// Each exchange halves what a lane holds: the lanes with bit o of their id keep the upper
// half and send the lower, the others the reverse, so the first log2(K) exchanges cost
// K - 1 shuffles in all, and the rest (the one value left) one each: 6 shuffles for four
// sums where four warp sums take 20 (the block sum was a sixth of float16 layer norm
// backward's instructions). Lane l ends with the total of value l / (32 / K).
template <typename A, int K>
__device__ __forceinline__ A warp_scatter(A (&v)[K], int lane) {
    static_assert(K >= 1 && K <= 32 && (K & (K - 1)) == 0, "K: a power of two up to 32");
#pragma unroll
    for (int c = K, o = 16; c > 1; c >>= 1, o >>= 1) {
        const bool up = lane & o;
#pragma unroll
        for (int i = 0; i < c / 2; ++i) {
            const A send = up ? v[i] : v[i + c / 2];
            const A keep = up ? v[i + c / 2] : v[i];
            v[i] = keep + __shfl_xor_sync(0xffffffffu, send, o);
        }
    }
    A t = v[0];
#pragma unroll
    for (int o = 16 / K; o > 0; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
    return t;
}

// K sums at once over the GROUP threads (threadIdx.x) of each row-group (threadIdx.y);
// every thread gets its row-group's totals. A buffer holds ROWS * K * 32 values. GROUP > 32:
// every thread of the block must call this (a barrier).
template <typename A, int GROUP, int K>
__device__ __forceinline__ void sums(A (&v)[K], SumBufs<A>& bufs) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    constexpr int SPAN = 32 / K;  // lanes holding each warp total after warp_scatter
    const A t = warp_scatter<A, K>(v, lane);
    if (GROUP == 32) {  // every lane wants every total: from the first lane holding it
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] = __shfl_sync(0xffffffffu, t, k * SPAN);
        return;
    }
    A* sm = bufs.next() + threadIdx.y * (K * 32);
    if (lane % SPAN == 0) sm[(lane / SPAN) * 32 + wid] = t;
    __syncthreads();
    // the GROUP / 32 warp totals, each lane reading one (lane mod their count): then
    // log2(GROUP / 32) exchanges give every lane the sum, where a full warp sum takes five
    constexpr int W = GROUP / 32;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        A u = sm[k * 32 + (lane & (W - 1))];
#pragma unroll
        for (int o = W / 2; o > 0; o >>= 1) u += __shfl_xor_sync(0xffffffffu, u, o);
        v[k] = u;
    }
}

// Mean and rstd of RB rows held as packs (ps[j][k]: pack k of row j, zero outside the
// row). Rms norm: one sum of squares. Layer norm, ONEPASS: one block sum of the pair
// (sum d, sum d * d) with d = x - K[j], K[j] an element of row j: the shifted-data
// algorithm (Chan, Golub & LeVeque, "Algorithms for computing the sample variance", 1983)
// var = E[d^2] - E[d]^2 cancels little while K is within a few standard deviations of the
// mean, and saves one of the block sums (each a pair of barriers the whole block waits
// on). Otherwise the exact two-pass form: the mean, then the squared deviations.
template <typename T, int VEC, int ITERS, int GROUP, int RB, bool CENTER, bool ONEPASS>
__device__ __forceinline__ void row_stats(const Pack<T, VEC> (&ps)[RB][ITERS],
                                          const typename Acc<T>::type (&K)[RB], int nv, int n,
                                          typename Acc<T>::type eps,
                                          typename Acc<T>::type (&mu)[RB],
                                          typename Acc<T>::type (&rstd)[RB],
                                          SumBufs<typename Acc<T>::type>& smem)
{
    typedef typename Acc<T>::type A;
    const int tid = threadIdx.x;
    if (CENTER && ONEPASS) {
        A a[2 * RB];
#pragma unroll
        for (int j = 0; j < RB; ++j) {
            a[j] = 0;
            a[RB + j] = 0;
#pragma unroll
            for (int k = 0; k < ITERS; ++k)
                if (tid + k * GROUP < nv) {
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        const A d = elem(ps[j][k], e) - K[j];
                        a[j] += d;
                        a[RB + j] += d * d;
                    }
                }
        }
        sums<A, GROUP, 2 * RB>(a, smem);
#pragma unroll
        for (int j = 0; j < RB; ++j) {
            const A m = a[j] / n;
            const A var = a[RB + j] / n - m * m;
            mu[j] = K[j] + m;
            rstd[j] = rsqrt_acc((var > A(0) ? var : A(0)) + eps);
        }
        return;
    }
    A a[RB];
#pragma unroll
    for (int j = 0; j < RB; ++j) {
        a[j] = 0;
#pragma unroll
        for (int k = 0; k < ITERS; ++k)
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const A v = elem(ps[j][k], e);  // zero outside the row
                a[j] += CENTER ? v : v * v;
            }
    }
    sums<A, GROUP, RB>(a, smem);
#pragma unroll
    for (int j = 0; j < RB; ++j) mu[j] = CENTER ? a[j] / n : A(0);
    if (CENTER) {
#pragma unroll
        for (int j = 0; j < RB; ++j) {
            a[j] = 0;
#pragma unroll
            for (int k = 0; k < ITERS; ++k)
                if (tid + k * GROUP < nv)
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        const A d = elem(ps[j][k], e) - mu[j];
                        a[j] += d * d;
                    }
        }
        sums<A, GROUP, RB>(a, smem);
    }
#pragma unroll
    for (int j = 0; j < RB; ++j) rstd[j] = rsqrt_acc(a[j] / n + eps);
}

// A pack loaded as load_or_zero, 16-byte packs with the L2 eviction priority evict_last
// (sm_80 and later). Forward rows loaded so measured 1.6-4% faster on the H200 at 32768x8192
// (float16 rms norm 252 us against 263, above a copy's 260; float32 layer norm 507 against
// 515); torch.compile's Triton kernel loads its rows so too. (evict_first measured slower.)
template <typename T, int VEC>
__device__ __forceinline__ Pack<T, VEC> load_l2_last(const Pack<T, VEC>* a, bool ok) {
#if __CUDA_ARCH__ >= 800
    if constexpr (sizeof(Pack<T, VEC>) == 16) {
        unsigned long long pol;
        asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
        uint4 u = {0u, 0u, 0u, 0u};
        if (ok)
            asm("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(a), "l"(pol));
        Pack<T, VEC> r;
        memcpy(&r, &u, 16);
        return r;
    }
#endif
    return load_or_zero(a, ok);
}

// Forward: y = norm(s) * w + b with s = x + r (flags: 1 r, 2 w, 4 b, 8 store s).
// blockDim (GROUP, ROWS), one row per row-group; each thread holds ITERS packs of its row,
// as stored (s rounded to T, like the value written), between the sums and the write.
// Launch bound: MINB blocks per SM (fwd_sm_threads): the registers that leaves. L2LAST: x and
// r loaded with L2 priority evict_last (load_l2_last). SLATE: s stored with y, after the
// sums, not as it is formed.
template <typename T, int VEC, int ITERS, int GROUP, int ROWS, bool CENTER, bool ONEPASS, int MINB,
          bool L2LAST, bool SLATE>
__global__ void __launch_bounds__(GROUP * ROWS, MINB)
norm_fwd2(const T* __restrict__ x, const T* __restrict__ r, const T* __restrict__ w,
          const T* __restrict__ b, T* __restrict__ y, T* __restrict__ s,
          long long rows, int n, double eps_, int flags)
{
    pdl_wait();
    typedef typename Acc<T>::type A;
    typedef Pack<T, VEC> P;
    __shared__ A sbuf[2 * ROWS * 2 * 32];
    SumBufs<A> smem{sbuf, ROWS * 2 * 32, 0};
    const bool has_r = flags & 1, has_w = flags & 2, has_b = flags & 4, store_s = flags & 8;
    const int tid = threadIdx.x, nv = n / VEC;
    const long long row = (long long)blockIdx.x * ROWS + threadIdx.y;
    const bool live = row < rows;  // no early return: row-groups may share barriers
    const size_t off = (size_t)(live ? row : 0) * (size_t)n;
    const P* xr = reinterpret_cast<const P*>(x + off);
    const P* rr = reinterpret_cast<const P*>(r + off);
    P* sr = reinterpret_cast<P*>(s + off);
    P* yr = reinterpret_cast<P*>(y + off);
    P v[1][ITERS];
    A K[1] = {A(0)}, mu[1], rstd[1];
    if (CENTER && ONEPASS)  // the shift: the row's first element (any value near the mean)
        K[0] = to_acc(x[off]) + (has_r ? to_acc(r[off]) : A(0));
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const int i = tid + k * GROUP;
        const bool ok = live && i < nv;
        v[0][k] = L2LAST ? load_l2_last(xr + i, ok) : load_or_zero(xr + i, ok);
    }
    if (has_r) {
#pragma unroll
        for (int k = 0; k < ITERS; ++k) {
            const int i = tid + k * GROUP;
            if (live && i < nv) {
                const P pr = L2LAST ? load_l2_last(rr + i, true) : rr[i];
                A a[VEC];
#pragma unroll
                for (int e = 0; e < VEC; ++e) a[e] = elem(v[0][k], e) + elem(pr, e);
                v[0][k] = Cv<T, VEC>::put(a);
                if (store_s && !SLATE) sr[i] = v[0][k];
            }
        }
    }
    row_stats<T, VEC, ITERS, GROUP, 1, CENTER, ONEPASS>(v, K, nv, n, (A)eps_, mu, rstd, smem);
    if (!live) return;  // after the last barrier
    if (SLATE && store_s) {
#pragma unroll
        for (int k = 0; k < ITERS; ++k)
            if (tid + k * GROUP < nv) sr[tid + k * GROUP] = v[0][k];
    }
    const P* wp = reinterpret_cast<const P*>(w);
    const P* bp = reinterpret_cast<const P*>(b);
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const int i = tid + k * GROUP;
        if (i < nv) {
            P pw, pb;
            if (has_w) pw = wp[i];
            if (has_b) pb = bp[i];
            // bfloat16: the row's conversions redone from its words (see opaque), where
            // the compiler kept the row_stats' floats live across the barrier and spilled
            // (float16's conversions it redoes on its own; opaque here spilled it)
            const P q = IsBf16<T>::value ? opaque(v[0][k]) : v[0][k];
            A t[VEC];
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                t[e] = (elem(q, e) - mu[0]) * rstd[0];
                if (has_w) t[e] *= elem(pw, e);
                if (has_b) t[e] += elem(pb, e);
            }
            yr[i] = Cv<T, VEC>::put(t);
        }
    }
}

// VEC accumulator values to out (16-byte aligned where VEC is a multiple of 4), whole
// 16-byte stores where they fit: a warp's partial-row stores then fill whole 32-byte
// sectors (one float a thread VEC floats apart cost a sector each: at 4096 wide a
// fifth of float16 layer norm backward's time, all blocks storing at once).
template <typename A, int VEC>
__device__ __forceinline__ void store_floats(A* out, const A (&v)[VEC]) {
    if constexpr (sizeof(A) == 4 && VEC % 4 == 0) {
#pragma unroll
        for (int e = 0; e < VEC; e += 4)
            *reinterpret_cast<float4*>(out + e) = make_float4(v[e], v[e + 1], v[e + 2], v[e + 3]);
    } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e) out[e] = v[e];
    }
}

// Backward of y = norm(s) * w + b: gx = rstd * (g - mean(g) - xhat * mean(g * xhat)) + gs
// with g = gy * w (flags: 1 gs (GS at compile time), 2 w, 4 want grad w, 8 want grad b).
// blockDim (GROUP, ROWS); a persistent grid walks the rows, ROWS * RB per block step: each
// row-group takes RB rows, issuing all their loads before their one block sum. Each thread
// owns ITERS packs of columns for the whole kernel and keeps their partial sums of gy * xhat
// and gy (in registers, or SMP: shared memory); at the end the block's row-groups add theirs
// into one partial row of part ((2, gridDim.x, n): weight, then bias), reduced by
// reduce_parts3.
// Launch bound: MINB blocks per SM (the host asks for 1024 threads, 64 registers a
// thread): the conversions of the held packs are cheaper to redo than the occupancy
// they cost when the compiler hoists them.
template <typename T, int VEC, int ITERS, int GROUP, int ROWS, int RB, bool CENTER, bool ONEPASS,
          bool PF, int MINB, bool SMP, bool GS>
__global__ void __launch_bounds__(GROUP * ROWS, MINB)
norm_bwd2(const T* __restrict__ gy, const T* __restrict__ s, const T* __restrict__ gs,
          const T* __restrict__ w, T* __restrict__ gx, typename Acc<T>::type* __restrict__ part,
          long long rows, int n, double eps_, int flags)
{
    pdl_wait();
    typedef typename Acc<T>::type A;
    typedef Pack<T, VEC> P;
    // FUSED: one block sum a step (below); its slots: sum g * d, sum d * d, sum g, sum d
    constexpr bool FUSED = ONEPASS || !CENTER;
    constexpr int IGD = 0, IDD = 1, IG = FUSED ? 2 : 1, ID = 3;  // (IDD: FUSED; IG: CENTER)
    constexpr int NS = FUSED && CENTER ? 4 : 2;
    __shared__ A sbuf[2 * ROWS * NS * RB * 32];
    SumBufs<A> smem{sbuf, ROWS * NS * RB * 32, 0};
    const bool has_w = flags & 2, want_w = flags & 4, want_b = flags & 8;  // (flags & 1: GS)
    const int tid = threadIdx.x, nv = n / VEC;
    const A eps = (A)eps_, inv_n = A(1) / A(n);
    P wr[ITERS];  // this thread's columns of the weight, loaded once
    // the weight/bias gradient partials of this thread's columns: registers, or (SMP)
    // this thread's own slots of dynamic shared memory, [k][e][thread] so that a warp's
    // accesses fall in distinct banks; no other thread reads them, so no barriers
    A pw[SMP ? 1 : ITERS][SMP ? 1 : VEC], pb[SMP ? 1 : ITERS][SMP ? 1 : VEC];
    extern __shared__ __align__(16) unsigned char dyn_smem[];
    const int nthr = GROUP * ROWS, me = threadIdx.y * GROUP + tid;
    A* spw = reinterpret_cast<A*>(dyn_smem) + me;
    A* spb = spw + ITERS * VEC * nthr;
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const int i = tid + k * GROUP;
        wr[k] = load_or_zero(reinterpret_cast<const P*>(w) + i, has_w && i < nv);
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            if constexpr (SMP) {
                spw[(k * VEC + e) * nthr] = 0;
                if (CENTER) spb[(k * VEC + e) * nthr] = 0;
            } else {
                pw[k][e] = 0;
                pb[k][e] = 0;
            }
        }
    }
    const long long step = (long long)gridDim.x * (ROWS * RB);
    // RB rows of s and gy from row r0 into xs/xg (zero outside the rows), and their shifts
    // The shift stays as loaded (T) until the step that uses it: converted here, the
    // conversion waited for the load, so every prefetch stalled its warp for a DRAM latency
    // (by ncu's stall sampling on the H200, 15% of float16 layer norm backward's samples).
    auto load = [&](long long r0, P (&xs)[RB][ITERS], P (&xg)[RB][ITERS], T (&xk)[RB]) {
#pragma unroll
        for (int j = 0; j < RB; ++j) {
            const bool ok = r0 + j < rows;
            const size_t off = (size_t)(ok ? r0 + j : 0) * (size_t)n;
            const P* sr = reinterpret_cast<const P*>(s + off);
            const P* gr = reinterpret_cast<const P*>(gy + off);
            xk[j] = (CENTER && FUSED && ok) ? s[off] : from_acc<T>(A(0));  // the shift (row_stats)
#pragma unroll
            for (int k = 0; k < ITERS; ++k) {
                const int i = tid + k * GROUP;
                if constexpr (sizeof(T) == 2) {
                    xs[j][k] = load_or_zero(sr + i, ok && i < nv);
                    xg[j][k] = load_or_zero(gr + i, ok && i < nv);
                } else {  // (floats: one condition for both loads spills less)
                    xs[j][k] = zero_pack<T, VEC>();
                    xg[j][k] = zero_pack<T, VEC>();
                    if (ok && i < nv) { xs[j][k] = sr[i]; xg[j][k] = gr[i]; }
                }
            }
        }
    };
    // PF: the next step's rows are loaded before this step's sums and arithmetic, so the
    // SM's loads stay in flight through its barriers (a block's warps otherwise wait for
    // memory, then for each other, in turn). Costs a second set of row registers.
    P qs[PF ? RB : 1][ITERS], qg[PF ? RB : 1][ITERS];
    T qk[PF ? RB : 1];
    if constexpr (PF) load((long long)blockIdx.x * (ROWS * RB) + (long long)threadIdx.y * RB, qs, qg, qk);
    // uniform trip count over the block (barriers); rows past the end are masked
    for (long long blk = (long long)blockIdx.x * (ROWS * RB); blk < rows; blk += step) {
        const long long row0 = blk + (long long)threadIdx.y * RB;
        P ps[RB][ITERS], pg[RB][ITERS];
        bool live[RB];
        A K[RB], mu[RB], rstd[RB];  // (FUSED: K from the loads, mu and rstd from the sum)
#pragma unroll
        for (int j = 0; j < RB; ++j) live[j] = row0 + j < rows;
        if constexpr (PF) {
#pragma unroll
            for (int j = 0; j < RB; ++j) {
                K[j] = to_acc(qk[j]);
#pragma unroll
                for (int k = 0; k < ITERS; ++k) {  // (whole words: halves moved one by
                    ps[j][k] = opaque(qs[j][k]);    // one are merged with byte permutes)
                    pg[j][k] = opaque(qg[j][k]);
                }
            }
            load(row0 + step, qs, qg, qk);
        } else {
            T kr[RB];
            load(row0, ps, pg, kr);
#pragma unroll
            for (int j = 0; j < RB; ++j) K[j] = to_acc(kr[j]);
        }
        // GS (a compile-time flag: a load under a run-time condition still held its warp on
        // the load's scoreboard, behind the stores in flight): this step's rows of gs, loaded
        // before the sums so that their latency passes during the sums and the barrier
        P pgs[GS ? RB : 1][GS ? ITERS : 1];
        if constexpr (GS) {
#pragma unroll
            for (int j = 0; j < RB; ++j) {
                const size_t off = (size_t)(live[j] ? row0 + j : 0) * (size_t)n;
                const P* gsr = reinterpret_cast<const P*>(gs + off);
#pragma unroll
                for (int k = 0; k < ITERS; ++k) {
                    const int i = tid + k * GROUP;
                    pgs[j][k] = load_or_zero(gsr + i, live[j] && i < nv);
                }
            }
        }
        // The sums of a row j, over d = s - K[j] and g = gy * w: (a) sum g * d, sum g;
        // and where FUSED, the statistics too: sum d * d, sum d. With m = mean(d),
        // mean(g * xhat) = rstd * (mean(g * d) - m * mean(g)), so one block sum serves the
        // statistics and both sums of g; K is the row's first element, as in row_stats,
        // which bounds the cancellation the same way. Otherwise (two-pass layer norm) the
        // exact statistics first, then K = mu and m = 0.
        if constexpr (!FUSED) {
            row_stats<T, VEC, ITERS, GROUP, RB, CENTER, false>(ps, K, nv, n, eps, mu, rstd, smem);
#pragma unroll
            for (int j = 0; j < RB; ++j) K[j] = mu[j];
        }
        A a[NS * RB];
#pragma unroll
        for (int q = 0; q < NS * RB; ++q) a[q] = 0;
#pragma unroll
        for (int j = 0; j < RB; ++j)
#pragma unroll
            for (int k = 0; k < ITERS; ++k)
                if (tid + k * GROUP < nv) {  // (rows past the end: zeros, K 0)
                    const P wk = PF ? opaque(wr[k]) : wr[k];  // (PF: see opaque)
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        const A d = elem(ps[j][k], e) - K[j];
                        const A gv = elem(pg[j][k], e);
                        const A g = has_w ? gv * elem(wk, e) : gv;
                        a[IGD * RB + j] += g * d;
                        if constexpr (CENTER) a[IG * RB + j] += g;
                        if constexpr (FUSED) a[IDD * RB + j] += d * d;
                        if constexpr (FUSED && CENTER) a[ID * RB + j] += d;
                    }
                }
        sums<A, GROUP, NS * RB>(a, smem);
#pragma unroll
        for (int j = 0; j < RB; ++j) {
            if (!live[j]) continue;  // no barrier follows in this step
            A m = 0;
            if constexpr (FUSED) {
                if constexpr (CENTER) m = a[ID * RB + j] * inv_n;
                const A var = a[IDD * RB + j] * inv_n - m * m;
                mu[j] = K[j] + m;
                rstd[j] = rsqrt_acc((var > A(0) ? var : A(0)) + eps);
            }
            A mg = 0;
            if constexpr (CENTER) mg = a[IG * RB + j] * inv_n;
            const A mgx = rstd[j] * (a[IGD * RB + j] * inv_n - m * mg);
            P* gxr = reinterpret_cast<P*>(gx + (size_t)(row0 + j) * (size_t)n);
#pragma unroll
            for (int k = 0; k < ITERS; ++k) {
                const int i = tid + k * GROUP;
                if (i < nv) {
                    const P wk = PF ? opaque(wr[k]) : wr[k];  // (PF: see opaque)
                    A t[VEC];
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        const A xh = (elem(ps[j][k], e) - mu[j]) * rstd[j];
                        const A gv = elem(pg[j][k], e);
                        if constexpr (SMP) {
                            spw[(k * VEC + e) * nthr] += gv * xh;
                            if (CENTER) spb[(k * VEC + e) * nthr] += gv;
                        } else {
                            pw[k][e] += gv * xh;
                            if (CENTER) pb[k][e] += gv;  // rms norm has no bias
                        }
                        const A g = has_w ? gv * elem(wk, e) : gv;
                        t[e] = rstd[j] * (g - mg - xh * mgx);
                        if constexpr (GS) t[e] += elem(pgs[j][k], e);
                    }
                    gxr[i] = Cv<T, VEC>::put(t);
                }
            }
        }
    }
    if (!(want_w || want_b)) return;
    A* pw_out = part + (size_t)blockIdx.x * (size_t)n;
    A* pb_out = part + ((size_t)gridDim.x + blockIdx.x) * (size_t)n;
    if constexpr (!SMP && ROWS == 1) {  // the block's partial row is this row-group's
#pragma unroll
        for (int k = 0; k < ITERS; ++k) {
            const int i = tid + k * GROUP;
            if (i < nv) {
                if (want_w) store_floats<A, VEC>(pw_out + i * VEC, pw[k]);
                if (CENTER && want_b) store_floats<A, VEC>(pb_out + i * VEC, pb[k]);
            }
        }
        return;
    }
    // The row-groups' partials meet in shared memory (SMP: they are there; otherwise the
    // host gave the block the same slots): one barrier, then every thread adds up the
    // row-groups' values of some packs of columns. (Adding into the partial row in global
    // memory one row-group after another cost a memory round trip and a barrier each.)
    if constexpr (!SMP) {
#pragma unroll
        for (int k = 0; k < ITERS; ++k)
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                spw[(k * VEC + e) * nthr] = pw[k][e];
                if (CENTER) spb[(k * VEC + e) * nthr] = pb[k][e];
            }
    }
    if (ROWS > 1) __syncthreads();  // (one row-group: each thread reads its own slots)
    const A* bw = reinterpret_cast<const A*>(dyn_smem);
    const A* bb = bw + ITERS * VEC * nthr;
    for (int i = me; i < ITERS * GROUP && i < nv; i += nthr) {  // pack i: thread x, slot k
        const int x = i % GROUP, k = i / GROUP;
        A vw[VEC], vb[VEC];
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            vw[e] = 0;
            vb[e] = 0;
#pragma unroll
            for (int yy = 0; yy < ROWS; ++yy) {
                vw[e] += bw[(k * VEC + e) * nthr + yy * GROUP + x];
                if (CENTER) vb[e] += bb[(k * VEC + e) * nthr + yy * GROUP + x];
            }
        }
        if (want_w) store_floats<A, VEC>(pw_out + i * VEC, vw);
        if (CENTER && want_b) store_floats<A, VEC>(pb_out + i * VEC, vb);
    }
}

"""

SOURCE = COMMON_SOURCE + TILED_SOURCE


# Planning constants per (dtype, norm), the best of the H200 sweeps of 2026-11-30
# (benchmarks/RESULTS.md, sixth session for the current kernel). float32 backward: the
# weight/bias partials in shared memory (bwd_smem), the registers they free prefetching
# the next two-pack rows (bwd_smem_pf_bytes), 1024 threads a block (fewer partial rows):
# 87-119% of copy bandwidth. float16 rms backward: the base (one pack a thread, prefetch,
# 512 threads). float16 layer norm backward holds two packs (16 columns) a thread; where
# a row fills a block (bwd_smem_group), partials in shared memory at 1024 threads an SM
# (75% against 70% at 8192 wide); narrower rows keep them in registers and prefetch at 512
# threads an SM (bwd_pf2_threads: the registers that needs; shared memory measured no
# better there). float16 layer forward: 128 threads a block (89-90% at 4096 and 1024 wide,
# against 87%). Forward, tenth session (torch.compile's Triton kernel at 32768x8192 float16:
# 512 threads a row, 16 elements a thread, 32 registers, a full SM): two packs a thread
# (fwd_regs 8) under a launch bound of 2048 threads an SM (32 registers) measured 0.5-4
# points of copy bandwidth above four packs of 40-48 registers for rms norm. Eleventh
# session: float32 layer norm too (94.1-94.2% against 91.1-92.4% at 4096 and 1024 wide;
# at 8192 wide its rows would take 1024 threads, so it keeps four packs there), and float16
# layer norm with a residual (fwd_add_regs, fwd_add_sm_threads: 102.9% against 100.7% at
# 8192 wide, 107-108% against 96-99% at 4096 and 1024); without one it keeps four packs
# (97.5% against 101% at 8192 wide), under a launch bound of 1536 threads an SM (40
# registers: 86-87% against 84% at 4096 and 1024 wide). float32 layer norm stores s after
# the sums (fwd_s_late: add_layer at 32768x8192 99.1% against 95.1%). 128 threads a block
# where rows are narrow enough to share one (float32 rms 16384x1024 98.9% against 96.3%;
# float16 1-2 points). Twelfth session: every launch a programmatic dependent (see
# pdl_wait). The constants that no (dtype, norm) sets apart are plain constants:
FWD_THREADS = 128     # a forward block's threads where rows share one
BWD_RB = 2            # rows a row-group takes a step where it does not prefetch
BWD_SM_THREADS = 1024  # the backward's launch bound, threads an SM (without bwd_pf2_threads)
# Layer norm's mean and variance come from one block sum of shifted data (row_stats,
# ONEPASS); the backward prefetches the next step's rows, one row a step (bwd_pf), where a
# row-group is wider than a warp; the grid is every block that stays resident; the
# forward loads its rows with L2 priority evict_last; every launch a programmatic
# dependent where the device runs those.
# The tunable ones (NUMR_NN_CUDA_TUNE), which the tables below set per (dtype, norm):
_BASE = {"fwd_regs": 16, "bwd_cols": 8, "bwd_threads": 512, "bwd_pf_bytes": 16,
         "bwd_pf2_threads": 1024, "bwd_smem": 0, "bwd_smem_group": 0,
         "bwd_smem_pf_bytes": 16, "fwd_sm_threads": 0, "fwd_add_regs": 0,
         "fwd_add_sm_threads": 0, "fwd_s_late": 0}
_FWD_FULL = {"fwd_regs": 8, "fwd_sm_threads": 2048}  # two packs a thread, 32 registers
_F16_LAYER = {"fwd_sm_threads": 1536, "fwd_add_regs": 8, "fwd_add_sm_threads": 2048,
              "bwd_cols": 16, "bwd_pf_bytes": 32, "bwd_pf2_threads": 512, "bwd_smem": 1,
              "bwd_smem_group": 512}
# bfloat16 moves the bytes of float16 through the same instructions (bf16x2 conversions
# for half2 ones): float16's constants, until an H200 sweep of its own says otherwise.
_DEFAULTS = {
    ("float16", "rms"): {**_FWD_FULL},
    ("float16", "layer"): {**_F16_LAYER},
    ("bfloat16", "rms"): {**_FWD_FULL},
    ("bfloat16", "layer"): {**_F16_LAYER},
    ("float32", "rms"): {**_FWD_FULL, "bwd_smem": 1, "bwd_smem_pf_bytes": 32, "bwd_threads": 1024},
    ("float32", "layer"): {**_FWD_FULL, "fwd_s_late": 1, "bwd_smem": 1, "bwd_smem_pf_bytes": 32,
                           "bwd_threads": 1024},
}


_ZERO_OK = ("bwd_smem", "bwd_smem_group", "fwd_sm_threads", "fwd_add_regs",
            "fwd_add_sm_threads", "fwd_s_late")  # 0: off


def _tune(spec: str) -> dict[tuple[str, str], dict[str, int]]:
    """The planning tables; NUMR_NN_CUDA_TUNE="bwd_cols=8,float16/layer:bwd_smem=0"
    (``spec``; numr/_config.py) overrides them: for every table, or for those a scope names (dtype,
    norm, or both, joined by '/'), so variants can be measured on a GPU without editing
    this file."""
    # fwd_sm_threads: the forward's launch bound, threads an SM (0: none); fwd_add_regs and
    # fwd_add_sm_threads: fwd_regs and fwd_sm_threads for a forward with a residual (0: the
    # same). fwd_s_late: the forward stores s after the sums, with y.
    # bwd_pf_bytes: the backward prefetches the next rows where a thread's row share is at
    # most this (else BWD_RB rows a step). bwd_smem: the weight/bias gradient partials in
    # shared memory instead of registers (which then hold more of the rows), where a
    # row-group has at least bwd_smem_group threads; bwd_smem_pf_bytes is bwd_pf_bytes for
    # that case.
    t = {key: {**_BASE, **d} for key, d in _DEFAULTS.items()}
    for item in spec.split(","):
        k, _, v = item.partition("=")
        scope, _, k = k.strip().rpartition(":")
        v = v.strip()
        if k in _BASE and v.isdigit() and (int(v) > 0 or k in _ZERO_OK):
            parts = set(scope.split("/")) - {""}
            for key in t:
                if parts <= set(key):
                    t[key][k] = int(v)
    return t


_tables: dict[str, dict] = {}


def tables() -> dict[tuple[str, str], dict[str, int]]:
    """The planning tables under the settings in force (NUMR_NN_CUDA_TUNE)."""
    spec = _config.settings().nn_cuda_tune
    t = _tables.get(spec)
    if t is None:
        t = _tables[spec] = _tune(spec)
    return t


@dataclass(frozen=True)
class Plan:
    vec: int      # elements per load
    iters: int    # packs per thread (the row's, held in registers)
    group: int    # threads per row
    rows: int     # row-groups per block
    rb: int = 1   # rows per row-group per step (backward)
    minb: int = 1  # launch bound: blocks per SM the compiler must allow
    pf: bool = False  # backward: the next step's rows loaded during this step's work
    smem: bool = False  # backward: weight/bias partials in shared memory
    l2_last: bool = False  # forward: rows loaded with L2 priority evict_last
    s_late: bool = False   # forward: s stored after the sums

    def smem_bytes(self, center: bool) -> int:
        """Dynamic shared memory of a backward block: float32 partials per column held
        (bwd_smem, or where the block's row-groups combine their partials)."""
        if not self.smem and self.rows == 1:
            return 0
        return (2 if center else 1) * self.iters * self.vec * self.group * self.rows * 4

    @property
    def block(self) -> tuple[int, int, int]:
        return (self.group, self.rows, 1)


def _pow2ceil(v: int) -> int:
    return 1 << max(0, (v - 1).bit_length())


def _row_tile(nv: int, imax: int) -> Optional[tuple[int, int]]:
    """(threads a row, packs a thread) for rows of nv packs, at most imax packs a thread."""
    group = min(1024, max(32, _pow2ceil(-(-nv // imax))))
    iters = -(-nv // group)
    return (group, iters) if iters <= imax else None


def plan(dtype: str, n: int, aligned: bool, direction: str, center: bool = False,
         residual: bool = False, gs: bool = False) -> Optional[Plan]:
    """The launch shape for rows of width n, or None for the first-generation kernels
    (float64, and rows wider than the register tile); the forward's also depends on a
    residual being added, the backward's on a gradient of s (gs). Pure Python (testable
    anywhere)."""
    if dtype == "float64" or n < 1:
        return None
    tune = tables()[dtype, "layer" if center else "rms"]
    isz = ITEMSIZE[dtype]
    vec = 16 // isz
    if not aligned or n % vec:
        vec = 1
    nv = n // vec
    regs_per_pack = max(1, vec * isz // 4)
    if direction == "fwd":
        # the row held as loaded: fwd_regs registers a thread under a launch bound of
        # fwd_sm_threads an SM where a row takes at most 512 threads so, else 16 registers
        # and no bound (a row of 1024 threads measured slower: float32 at 8192 wide)
        regs, sm = tune["fwd_regs"], tune["fwd_sm_threads"]
        if residual and tune["fwd_add_regs"]:
            regs, sm = tune["fwd_add_regs"], tune["fwd_add_sm_threads"]
        for regs, sm in ((regs, sm), (16, 0)):
            tile = _row_tile(nv, max(1, regs // regs_per_pack))
            if tile and (tile[0] <= 512 or not sm):
                group, iters = tile
                rows = max(1, min(FWD_THREADS, 1024) // group)
                return Plan(vec, iters, group, rows, minb=max(1, sm // (group * rows)),
                            l2_last=True,
                            s_late=residual and bool(tune["fwd_s_late"]))
        return None
    # at most 8 columns a thread: two float32 partials each (16 registers)
    imax, threads = max(1, tune["bwd_cols"] // vec), tune["bwd_threads"]
    # a tile narrower than the default (bwd_cols=4: one float32 pack a thread, so
    # prefetch) where 1024 threads can hold the row; up to 8 columns a thread otherwise
    imax = max(imax, min(-(-nv // 1024), max(1, 8 // vec)))
    tile = _row_tile(nv, imax)
    if tile is None:
        return None
    group, iters = tile
    rows = max(1, min(threads, 1024) // group)
    rb, pf = 1, False
    share = iters * vec * isz
    smem = bool(tune["bwd_smem"]) and group >= tune["bwd_smem_group"]
    if (share <= tune["bwd_smem_pf_bytes" if smem else "bwd_pf_bytes"] and (vec > 1 or iters <= 2)
            and (share <= 16 or group * rows <= tune["bwd_pf2_threads"])):
        # a thread's share of a row is small (bwd_pf_bytes): registers for two rows,
        # either this step's and the next's (prefetch) or two rows a step
        # (warp-wide rows have no barriers to hide: their warps overlap on their own).
        # A share of two packs, with bwd_pf2_threads an SM (the registers it needs), only
        # where the block has no more threads (a 1024-thread block has 64 registers a
        # thread, and spills them).
        pf = group > 32
        # Two warp-wide rows a step only where their packs (gy, s and gs) take at most
        # half of the 64 registers: float32 with gs holds 48 and spilled (sm_90, ptxas -v:
        # add_layer backward 256 wide 640 bytes a thread, 46% of the copy on the H200;
        # add_rms 68), where one row a step spills nothing and its warps still hold 3 KB
        # in flight each. float16's 24 spill 40-104 bytes under layer norm's four sums,
        # and measured at the copy's speed so all the same.
        held = (3 if gs else 2) * BWD_RB * iters * regs_per_pack
        rb = 1 if pf or held > 32 else BWD_RB
    sm = tune["bwd_pf2_threads"] if share > 16 and (pf or rb > 1) else BWD_SM_THREADS
    return Plan(vec, iters, group, rows, rb, max(1, sm // (group * rows)), pf, smem)


def _name(direction: str, dtype: str, p: Plan, center: bool, gs: bool = False) -> str:
    c = "true" if center else "false"
    one = c  # layer norm: one shifted sum (ONEPASS); rms norm has one sum anyway
    if direction == "fwd":
        return (f"norm_fwd2<{CTYPE[dtype]}, {p.vec}, {p.iters}, {p.group}, {p.rows}, {c}, "
                f"{one}, {p.minb}, {'true' if p.l2_last else 'false'}, "
                f"{'true' if p.s_late else 'false'}>")
    return (f"norm_bwd2<{CTYPE[dtype]}, {p.vec}, {p.iters}, {p.group}, {p.rows}, {p.rb}, {c}, "
            f"{one}, {'true' if p.pf else 'false'}, {p.minb}, {'true' if p.smem else 'false'}, "
            f"{'true' if gs else 'false'}>")


_modules: dict[str, Any] = {}


def _kernel(name: str):
    return compile_kernel(SOURCE, _modules, name)


def _resident_blocks(fn, threads: int, dyn_smem: int = 0) -> int:
    """Blocks of `threads` that stay resident on one SM (registers, threads and the
    dynamic shared memory; the static one is a few KB), from the compiled kernel's
    register count."""
    try:
        regs = int(fn.num_regs)
    except Exception:  # an older CuPy: assume the launch bound's worst case
        regs = 65536 // max(threads, 1024)
    per_warp = -(-max(regs, 1) * 32 // 256) * 256  # allocated per warp, 256 at a time
    warps = threads // 32
    by_regs = (65536 // per_warp) // warps
    # 228 KB of shared memory an SM (Hopper), 1 KB of each block's reserved
    static = int(getattr(fn, "shared_size_bytes", 8192))
    by_smem = 233472 // (dyn_smem + static + 1024) if dyn_smem else 32
    return max(1, min(2048 // threads, 32, by_regs, by_smem))


def _contig(a):
    try:  # CuPy's own flag: a.flags builds an object a call (0.6 us of a 20 us call)
        c = a._c_contiguous
    except AttributeError:
        c = a.flags.c_contiguous
    return a if c else _cupy().ascontiguousarray(a)


_cp = None
_launch_kernel: Any = None  # cupy.cuda.driver.launchKernel (looked up once: 0.2 us a call)


def _cupy():
    global _cp, _launch_kernel
    if _cp is None:
        import cupy

        _launch_kernel = cupy.cuda.driver.launchKernel
        _cp = cupy
    return _cp


# Kernel launches go to the driver (cuLaunchKernel) with the arguments packed into one
# parameter block: CuPy's RawKernel call converts every argument through Python objects,
# 9 us a ten-argument launch on the H200's host against 5.6 us this way, and host work is
# what a 4096x4096 float16 call waits on (benchmarks/RESULTS.md). Every argument takes an
# 8-byte slot; the driver copies the values during the call, so one block per thread
# serves every launch.
_SLOTS = 10
_PTRS6 = struct.Struct("<6Qq i4x d i4x")  # norm_fwd2, norm_bwd2: 6 pointers, rows, n, eps, flags
_REDUCE = struct.Struct("<Q i4x i4x Q Q i4x")  # reduce_parts3: part, nparts, n, w, b, first
# cuLaunchKernelEx's CUlaunchConfig (grid, block, shared memory, stream, attributes) and one
# CUlaunchAttribute (id, padding, a 64-byte value): programmatic stream serialization (id 6)
# allowed (value 1), from cuda.h of CUDA 12 and 13
_CONFIG = struct.Struct("<7I4x Q Q I4x")
_PDL_ATTR = ctypes.create_string_buffer(struct.pack("<i4x i60x", 6, 1), 72)
_PDL_ATTR_ADDR = ctypes.addressof(_PDL_ATTR)


class _Params(threading.local):
    def __init__(self):
        self.buf = ctypes.create_string_buffer(8 * _SLOTS)
        base = ctypes.addressof(self.buf)
        self.slots = (ctypes.c_void_p * _SLOTS)(*(base + 8 * i for i in range(_SLOTS)))
        self.addr = ctypes.addressof(self.slots)
        self.config = ctypes.create_string_buffer(_CONFIG.size)
        self.config_addr = ctypes.addressof(self.config)


_params = _Params()


def _launch(fn: int, grid: tuple, block: tuple, smem: int, stream: int, layout,
            *values) -> None:
    """Kernel fn (a CUfunction handle) on stream (a handle); grid and block: (x, y)."""
    p = _params
    layout.pack_into(p.buf, 0, *values)
    _launch_kernel(fn, grid[0], grid[1], 1, block[0], block[1], 1, smem, stream, p.addr, 0)


_launch_ex: Any = None  # libcuda's cuLaunchKernelEx, or False where there is none


def _launch_ex_fn():
    global _launch_ex
    if _launch_ex is None:
        _launch_ex = False
        for lib in ("libcuda.so.1", "nvcuda.dll"):
            try:
                f = ctypes.CDLL(lib).cuLaunchKernelEx  # (CUDA 12 and later)
            except (OSError, AttributeError):
                continue
            f.argtypes = [ctypes.c_void_p] * 4
            f.restype = ctypes.c_int
            _launch_ex = f
            break
    return _launch_ex


def _pdl_ok() -> bool:
    """Whether the current device runs programmatic dependent launches (compute capability
    9.0 and later, through cuLaunchKernelEx)."""
    return int(_cupy().cuda.Device().compute_capability) >= 90 and bool(_launch_ex_fn())


def _launch_dependent(fn: int, grid: tuple, block: tuple, smem: int, stream: int, layout,
                      *values) -> None:
    """As _launch, for a kernel that begins with pdl_wait: launched as a programmatic
    dependent of the kernel before it on the stream, so that its launch is done while that
    one runs (H200: 1.2-1.5 us less a reduce after the backward, RESULTS.md)."""
    p = _params
    layout.pack_into(p.buf, 0, *values)
    _CONFIG.pack_into(p.config, 0, grid[0], grid[1], 1, block[0], block[1], 1, smem,
                      stream, _PDL_ATTR_ADDR, 1)
    status = _launch_ex(p.config_addr, fn, p.addr, None)
    if status:  # CuPy's error for the code where it has the check, else ours
        check = getattr(_cp.cuda.driver, "check_status", None)
        if check is not None:
            check(status)
        raise RuntimeError(f"numr.nn: cuLaunchKernelEx failed with CUDA error {status}")


def _launcher():
    """_launch_dependent where the device runs it, else _launch."""
    return _launch_dependent if _pdl_ok() else _launch


# launch shapes per (device, dtype, rows, n, center, flags, aligned): the planning, name
# formatting, occupancy and numpy scalar arguments are done once per shape
_fwd_cache: dict[tuple, Any] = {}
_bwd_cache: dict[tuple, Any] = {}


def _fwd_launch(key, dtype, rows, n, aligned, center, flags):
    p = plan(dtype.name, n, aligned, "fwd", center, bool(flags & 1))
    if p is None:
        entry = None
    else:
        fn = _kernel(_name("fwd", dtype.name, p, center))
        launch = _launcher()
        entry = (launch, fn.kernel.ptr, (-(-rows // p.rows), 1), p.block, rows, n, flags)
    _fwd_cache[key] = entry
    return entry


def norm_forward(x, residual, weight, bias, eps: float, center: bool, want_sum: bool,
                 dev: Optional[int] = None):
    """(y, s) as numr.nn._cpu.norm_forward, on CuPy arrays on the current GPU (``dev``,
    where the caller knows it), or None where the rows have no register tile."""
    cp = _cp or _cupy()
    shape, dtype = x.shape, x.dtype
    n = shape[-1]
    y = cp.empty(shape, dtype)
    if y.size == 0:
        return y, (cp.empty(shape, dtype) if want_sum else None)
    # every pointer read once: for the alignment test and the launch (a call's host work
    # is what a loop of small ones waits on: benchmarks/norms.py --host)
    x = _contig(x)
    px = x.data.ptr
    py = y.data.ptr
    p_all = px | py
    flags = 0
    pr = pw = pb = ps = px
    s = None
    if residual is not None:
        r = _contig(residual)
        pr = r.data.ptr
        flags = 1
        if want_sum:
            s = cp.empty(shape, dtype)
            ps = s.data.ptr
            flags |= 8
        p_all |= pr | ps
    if weight is not None:
        pw = _contig(weight).data.ptr
        flags |= 2
        p_all |= pw
    if bias is not None:
        pb = _contig(bias).data.ptr
        flags |= 4
        p_all |= pb
    rows = y.size // n
    if dev is None:
        dev = cp.cuda.runtime.getDevice()
    # (the settings object too: a tuning override plans afresh)
    key = (dev, dtype, rows, n, center, flags, p_all % 16 == 0, _config.settings())
    entry = _fwd_cache.get(key, False)
    if entry is False:
        entry = _fwd_launch(key, dtype, rows, n, p_all % 16 == 0, center, flags)
    if entry is None:  # no register tile for these rows: the general kernels'
        return None
    launch, fn, grid, block, rows, n, flags = entry
    launch(fn, grid, block, 0, cp.cuda.get_current_stream().ptr, _PTRS6, px, pr, pw, pb, py,
           ps, rows, n, eps, flags)
    if want_sum and s is None:  # no residual: s is x itself
        s = x
    return y, s


def _bwd_launch(key, dtype, rows, n, aligned, center, flags):
    p = plan(dtype.name, n, aligned, "bwd", center, gs=bool(flags & 1))
    if p is None:
        _bwd_cache[key] = None
        return None
    fn = _kernel(_name("bwd", dtype.name, p, center, bool(flags & 1)))
    threads = p.group * p.rows
    dyn = p.smem_bytes(center)
    if dyn > 48 * 1024:  # above the default limit a kernel must opt in
        fn.max_dynamic_shared_size_bytes = dyn
    resident = _resident_blocks(fn, threads, dyn)
    cap = sm_count() * resident
    # deal the row steps evenly: every block gets `per` steps (the last may get fewer)
    steps = -(-rows // (p.rows * p.rb))
    per = -(-steps // cap)
    grid = -(-steps // per)
    want_w, want_b = bool(flags & 4), bool(flags & 8)
    red = None
    if want_w or want_b:
        v = 4 if n % 4 == 0 else 1  # (the scratch is 256-byte aligned: rows of n floats)
        red = (_launcher(),
               _kernel(f"reduce_parts3<{CTYPE[dtype.name]}, {v}>").kernel.ptr,
               (-(-n // 32), int(want_w) + int(want_b)), (32 // v, 32), 0 if want_w else 1)
    entry = (_launcher(), fn.kernel.ptr, (grid, 1), p.block, rows, n, flags,
             red, dyn)
    _bwd_cache[key] = entry
    return entry


# float32 scratch for the weight/bias partial rows, one per (device, stream), reused by
# every call on that stream (kept grown to the largest asked for): calls on one stream run
# in order, so a call's main kernel writes it only after the previous call's reduce read
# it. A cupy.empty a call cost 3-4 us of the 30-40 us of host work of a float16 backward
# with weight gradients on the H200's host, where its kernels take 35-45 us at 4096x4096.
# At most _SCRATCH_KEEP of them, the most recently used (programs may make many streams:
# the one a loop runs on must not be dropped for streams made since); a dropped one goes back
# to CuPy's pool for the stream it was made on, which orders its reuse after that
# stream's pending work.
_scratch: dict[tuple, Any] = {}
_SCRATCH_KEEP = 8


def _partials(dev: int, stream: int, count: int):
    cp = _cupy()
    key = (dev, stream)
    # taken out and put back last: the dict's order is the order of last use
    buf = _scratch.pop(key, None)
    if buf is None or buf.size < count:
        while len(_scratch) >= _SCRATCH_KEEP:
            del _scratch[next(iter(_scratch))]  # the least recently used
        buf = cp.empty(count, cp.float32)
    _scratch[key] = buf
    return buf


def _grad_params(cp, n: int, dtype, want_weight: bool, want_bias: bool):
    """(grad_weight, grad_bias), each None where not wanted. Both wanted: one pool
    allocation for the two (256-byte aligned each), since an allocation costs the host as
    much as the array around it (H200's host: cupy.empty 2.3 us, cupy.cuda.alloc 0.8)."""
    if not (want_weight and want_bias):
        return (cp.empty(n, dtype) if want_weight else None,
                cp.empty(n, dtype) if want_bias else None)
    step = -(-n * dtype.itemsize // 256) * 256
    mem = cp.cuda.alloc(2 * step)
    return cp.ndarray((n,), dtype, mem), cp.ndarray((n,), dtype, mem + step)


def norm_backward(grad_y, s, grad_s, weight, eps: float, center: bool, want_weight: bool,
                  want_bias: bool, dev: Optional[int] = None):
    """(grad_s_total, grad_weight, grad_bias) as numr.nn._cpu.norm_backward, on CuPy
    arrays on the current GPU (``dev``, where the caller knows it), or None where the
    general kernels serve."""
    cp = _cp or _cupy()
    shape, dtype = s.shape, s.dtype
    n = shape[-1]
    gx = cp.empty(shape, dtype)
    if gx.size == 0:  # no rows (or no columns): the sums over rows are zero
        return (gx, cp.zeros(n, dtype) if want_weight else None,
                cp.zeros(n, dtype) if want_bias else None)
    # every pointer read once, for the alignment test and the launch (as norm_forward)
    s = _contig(s)
    ps = s.data.ptr
    pgy = _contig(grad_y).data.ptr
    pgx = gx.data.ptr
    p_all = ps | pgy | pgx
    pgs = pw = ps
    flags = bool(want_weight) << 2 | bool(want_bias) << 3
    if grad_s is not None:
        pgs = _contig(grad_s).data.ptr
        flags |= 1
        p_all |= pgs
    if weight is not None:
        pw = _contig(weight).data.ptr
        flags |= 2
        p_all |= pw
    rows = gx.size // n
    if dev is None:
        dev = cp.cuda.runtime.getDevice()
    key = (dev, dtype, rows, n, center, flags, p_all % 16 == 0, _config.settings())
    entry = _bwd_cache.get(key, False)
    if entry is False:
        entry = _bwd_launch(key, dtype, rows, n, p_all % 16 == 0, center, flags)
    if entry is None or (want_bias and not center):  # the kernel sums gy for layer only
        return None  # the general kernels'
    launch, fn, grid, block, rows, n, flags, red, dyn = entry
    gw, gb = _grad_params(cp, n, dtype, want_weight, want_bias)
    stream = cp.cuda.get_current_stream().ptr
    part = _partials(dev, stream, 2 * grid[0] * n).data.ptr if red is not None else 0
    launch(fn, grid, block, dyn, stream, _PTRS6, pgy, ps, pgs, pw, pgx, part, rows, n, eps,
           flags)
    if red is not None:
        rlaunch, rfn, rgrid, rblock, first = red
        pgw = gw.data.ptr if gw is not None else gb.data.ptr
        rlaunch(rfn, rgrid, rblock, 0, stream, _REDUCE, part, grid[0], n, pgw,
                gb.data.ptr if gb is not None else pgw, first)
    return gx, gw, gb

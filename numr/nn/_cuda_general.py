"""numr.nn's general CUDA kernels: every dtype and width, used for float64 and for rows
wider than the register-tiled kernels hold (numr/nn/_cuda_tiled.py serves the rest; the
choice is numr/nn/_cuda.py's). CUDA C compiled through CuPy (RawModule), one template per
direction, instantiated per (dtype, vector width, register tile, threads per row, rows
per block, rms/layer) and cached.

Design (memory-bound ops: the aim is one pass over memory at copy bandwidth):

* 16-byte vector loads/stores (8 halves, 4 floats, 2 doubles) where the row length and
  every pointer allow; scalar access otherwise (widths 1, 7, 33 ...).
* A row is handled by one warp (narrow rows, several rows per block) or one block; sums
  are warp shuffles, then one shared-memory step across the warps of a block.
* The row stays in registers between its reduction and its write when it fits (a budget
  of accumulator values per thread); wider rows are re-read, mostly from L2.
* Sums accumulate in float32 (float64 for float64).
* Backward runs a persistent grid: each block keeps its weight/bias gradient partial sums
  in registers across its rows, writes one partial row per block, and a second small
  kernel reduces the partial rows column-wise: no atomics.

cupy is imported lazily (the module imports, and its launch planning is testable,
without it). Kernel functions take and return CuPy arrays, like the CPU module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._cuda_common import CTYPE, ITEMSIZE, COMMON_SOURCE, compile_kernel, sm_count

SOURCE = COMMON_SOURCE + r"""
template <typename A> __device__ __forceinline__ A warp_sum(A v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Sum over the GROUP threads that share a row (one warp, or the whole block); every
// thread gets the total. smem holds 32 values per summed quantity.
template <typename A, int GROUP>
__device__ __forceinline__ A group_sum(A v, A* smem) {
    v = warp_sum(v);
    if (GROUP == 32) return v;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    __syncthreads();  // the previous call's readers are done with smem
    if (lane == 0) smem[wid] = v;
    __syncthreads();
    return warp_sum(lane < GROUP / 32 ? smem[lane] : A(0));
}

template <typename A, int GROUP>
__device__ __forceinline__ void group_sum2(A& a, A& b, A* smem) {
    a = warp_sum(a);
    b = warp_sum(b);
    if (GROUP == 32) return;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 0) { smem[wid] = a; smem[32 + wid] = b; }
    __syncthreads();
    a = warp_sum(lane < GROUP / 32 ? smem[lane] : A(0));
    b = warp_sum(lane < GROUP / 32 ? smem[32 + lane] : A(0));
}

// Forward: y = norm(x [+ r]) * w + b; s = x + r. blockDim = (GROUP, ROWS); a row per
// GROUP threads. ITERS > 0: each thread keeps ITERS packs of its row in registers.
template <typename T, int VEC, int ITERS, int GROUP, int ROWS, bool CENTER>
__global__ void __launch_bounds__(GROUP * ROWS)
norm_fwd(const T* __restrict__ x, const T* __restrict__ r, const T* __restrict__ w,
         const T* __restrict__ b, T* __restrict__ y, T* __restrict__ s,
         long long rows, int n, double eps_, int has_r, int has_w, int has_b)
{
    typedef typename Acc<T>::type A;
    typedef Pack<T, VEC> P;
    __shared__ A smem[64];
    const long long row = (long long)blockIdx.x * ROWS + threadIdx.y;
    if (row >= rows) return;  // only in warp mode (ROWS > 1): no block-wide sync there
    const int tid = threadIdx.x;
    const int nv = n / VEC;
    const A eps = (A)eps_;
    const P* xr = reinterpret_cast<const P*>(x + row * n);
    const P* rr = reinterpret_cast<const P*>(r + row * n);
    P* sr = reinterpret_cast<P*>(s + row * n);
    P* yr = reinterpret_cast<P*>(y + row * n);
    const P* wp = reinterpret_cast<const P*>(w);
    const P* bp = reinterpret_cast<const P*>(b);
    A mu = 0, rstd;
    if (ITERS > 0) {
        A v[ITERS > 0 ? ITERS : 1][VEC];
        A acc = 0;
#pragma unroll
        for (int k = 0; k < ITERS; ++k) {
            const int i = tid + k * GROUP;
            if (i < nv) {
                P px = xr[i];
                if (has_r) {
                    P pr = rr[i], ps;
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        ps.v[e] = from_acc<T>(elem(px, e) + elem(pr, e));
                        v[k][e] = elem(ps, e);  // normalise s as stored
                    }
                    sr[i] = ps;
                } else {
#pragma unroll
                    for (int e = 0; e < VEC; ++e) v[k][e] = elem(px, e);
                }
#pragma unroll
                for (int e = 0; e < VEC; ++e) acc += CENTER ? v[k][e] : v[k][e] * v[k][e];
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e) v[k][e] = 0;
            }
        }
        acc = group_sum<A, GROUP>(acc, smem);
        if (CENTER) {
            mu = acc / n;
            A dev = 0;  // second pass over registers: exact two-pass variance
#pragma unroll
            for (int k = 0; k < ITERS; ++k)
                if (tid + k * GROUP < nv)
#pragma unroll
                    for (int e = 0; e < VEC; ++e) { A d = v[k][e] - mu; dev += d * d; }
            acc = group_sum<A, GROUP>(dev, smem);
        }
        rstd = rsqrt_acc(acc / n + eps);
#pragma unroll
        for (int k = 0; k < ITERS; ++k) {
            const int i = tid + k * GROUP;
            if (i < nv) {
                P py, pw, pb;
                if (has_w) pw = wp[i];
                if (has_b) pb = bp[i];
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    A t = (v[k][e] - mu) * rstd;
                    if (has_w) t *= elem(pw, e);
                    if (has_b) t += elem(pb, e);
                    py.v[e] = from_acc<T>(t);
                }
                yr[i] = py;
            }
        }
    } else {
        // wide rows: read once (writing s), then re-read s or x, mostly from L2
        A acc = 0;
        for (int i = tid; i < nv; i += GROUP) {
            P px = xr[i];
            if (has_r) {
                P pr = rr[i], ps;
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    ps.v[e] = from_acc<T>(elem(px, e) + elem(pr, e));
                    A t = elem(ps, e);
                    acc += CENTER ? t : t * t;
                }
                sr[i] = ps;
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e) { A t = elem(px, e); acc += CENTER ? t : t * t; }
            }
        }
        acc = group_sum<A, GROUP>(acc, smem);
        const P* src = has_r ? (const P*)sr : xr;
        if (CENTER) {
            mu = acc / n;
            A dev = 0;
            for (int i = tid; i < nv; i += GROUP) {
                P p = src[i];
#pragma unroll
                for (int e = 0; e < VEC; ++e) { A d = elem(p, e) - mu; dev += d * d; }
            }
            acc = group_sum<A, GROUP>(dev, smem);
        }
        rstd = rsqrt_acc(acc / n + eps);
        for (int i = tid; i < nv; i += GROUP) {
            P p = src[i], py, pw, pb;
            if (has_w) pw = wp[i];
            if (has_b) pb = bp[i];
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                A t = (elem(p, e) - mu) * rstd;
                if (has_w) t *= elem(pw, e);
                if (has_b) t += elem(pb, e);
                py.v[e] = from_acc<T>(t);
            }
            yr[i] = py;
        }
    }
}

// Backward of y = norm(s) * w + b: gx = rstd * (g - mean(g) - xhat * mean(g * xhat)) + gs
// with g = gy * w; per-block partial sums of gy * xhat (pw) and gy (pb), one row of
// `part` each (part: (2, gridDim.x, n) accumulator values). Persistent grid over rows.
template <typename T, int VEC, int ITERS, int GROUP, int ROWS, bool CENTER>
__global__ void __launch_bounds__(GROUP * ROWS)
norm_bwd(const T* __restrict__ gy, const T* __restrict__ s, const T* __restrict__ gs,
         const T* __restrict__ w, T* __restrict__ gx, typename Acc<T>::type* __restrict__ part,
         long long rows, int n, double eps_, int has_gs, int has_w, int want_w, int want_b)
{
    typedef typename Acc<T>::type A;
    typedef Pack<T, VEC> P;
    __shared__ A smem[64];
    const int tid = threadIdx.x;
    const int nv = n / VEC;
    const A eps = (A)eps_;
    const P* wp = reinterpret_cast<const P*>(w);
    A* pw_out = part + (size_t)blockIdx.x * n;
    A* pb_out = part + ((size_t)gridDim.x + blockIdx.x) * n;
    if (ITERS > 0) {
        A pw[ITERS > 0 ? ITERS : 1][VEC], pb[ITERS > 0 ? ITERS : 1][VEC];
#pragma unroll
        for (int k = 0; k < ITERS; ++k)
#pragma unroll
            for (int e = 0; e < VEC; ++e) { pw[k][e] = 0; pb[k][e] = 0; }
        for (long long row = (long long)blockIdx.x * ROWS + threadIdx.y; row < rows;
             row += (long long)gridDim.x * ROWS) {
            const P* sr = reinterpret_cast<const P*>(s + row * n);
            const P* gr = reinterpret_cast<const P*>(gy + row * n);
            const P* gsr = reinterpret_cast<const P*>(gs + row * n);
            P* gxr = reinterpret_cast<P*>(gx + row * n);
            A xs[ITERS > 0 ? ITERS : 1][VEC], g[ITERS > 0 ? ITERS : 1][VEC];
            A acc = 0;
#pragma unroll
            for (int k = 0; k < ITERS; ++k) {
                const int i = tid + k * GROUP;
                if (i < nv) {
                    P p = sr[i], q = gr[i];
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        xs[k][e] = elem(p, e);
                        g[k][e] = elem(q, e);
                        acc += CENTER ? xs[k][e] : xs[k][e] * xs[k][e];
                    }
                } else {
#pragma unroll
                    for (int e = 0; e < VEC; ++e) { xs[k][e] = 0; g[k][e] = 0; }
                }
            }
            acc = group_sum<A, GROUP>(acc, smem);
            A mu = 0;
            if (CENTER) {
                mu = acc / n;
                A dev = 0;
#pragma unroll
                for (int k = 0; k < ITERS; ++k)
                    if (tid + k * GROUP < nv)
#pragma unroll
                        for (int e = 0; e < VEC; ++e) { A d = xs[k][e] - mu; dev += d * d; }
                acc = group_sum<A, GROUP>(dev, smem);
            }
            const A rstd = rsqrt_acc(acc / n + eps);
            A sg = 0, sgx = 0;
#pragma unroll
            for (int k = 0; k < ITERS; ++k) {
                const int i = tid + k * GROUP;
                if (i < nv) {
                    P pwt;
                    if (has_w) pwt = wp[i];
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        const A xh = (xs[k][e] - mu) * rstd;
                        xs[k][e] = xh;
                        pw[k][e] += g[k][e] * xh;
                        pb[k][e] += g[k][e];
                        const A gw = has_w ? g[k][e] * elem(pwt, e) : g[k][e];
                        g[k][e] = gw;
                        sg += gw;
                        sgx += gw * xh;
                    }
                }
            }
            group_sum2<A, GROUP>(sg, sgx, smem);
            const A mg = CENTER ? sg / n : A(0), mgx = sgx / n;
#pragma unroll
            for (int k = 0; k < ITERS; ++k) {
                const int i = tid + k * GROUP;
                if (i < nv) {
                    P out, pg;
                    if (has_gs) pg = gsr[i];
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        A t = rstd * (g[k][e] - mg - xs[k][e] * mgx);
                        if (has_gs) t += elem(pg, e);
                        out.v[e] = from_acc<T>(t);
                    }
                    gxr[i] = out;
                }
            }
        }
        // one partial row per block: in warp mode the block's warps add theirs in turn
        if (want_w || want_b) {
            for (int y = 0; y < ROWS; ++y) {
                if (ROWS > 1) __syncthreads();
                if ((int)threadIdx.y == y) {
#pragma unroll
                    for (int k = 0; k < ITERS; ++k) {
                        const int i = tid + k * GROUP;
                        if (i < nv)
#pragma unroll
                            for (int e = 0; e < VEC; ++e) {
                                const int c = i * VEC + e;
                                pw_out[c] = (y ? pw_out[c] : A(0)) + pw[k][e];
                                pb_out[c] = (y ? pb_out[c] : A(0)) + pb[k][e];
                            }
                    }
                }
            }
        }
    } else {
        // wide rows (block mode, ROWS == 1): the block owns its partial row in global
        // memory; each thread its columns, so no races
        if (want_w || want_b)  // zeroed by the thread that will own each column
            for (int i = tid; i < nv; i += GROUP)
#pragma unroll
                for (int e = 0; e < VEC; ++e) { pw_out[i * VEC + e] = 0; pb_out[i * VEC + e] = 0; }
        for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
            const P* sr = reinterpret_cast<const P*>(s + row * n);
            const P* gr = reinterpret_cast<const P*>(gy + row * n);
            const P* gsr = reinterpret_cast<const P*>(gs + row * n);
            P* gxr = reinterpret_cast<P*>(gx + row * n);
            A acc = 0;
            for (int i = tid; i < nv; i += GROUP) {
                P p = sr[i];
#pragma unroll
                for (int e = 0; e < VEC; ++e) { A t = elem(p, e); acc += CENTER ? t : t * t; }
            }
            acc = group_sum<A, GROUP>(acc, smem);
            A mu = 0;
            if (CENTER) {
                mu = acc / n;
                A dev = 0;
                for (int i = tid; i < nv; i += GROUP) {
                    P p = sr[i];
#pragma unroll
                    for (int e = 0; e < VEC; ++e) { A d = elem(p, e) - mu; dev += d * d; }
                }
                acc = group_sum<A, GROUP>(dev, smem);
            }
            const A rstd = rsqrt_acc(acc / n + eps);
            A sg = 0, sgx = 0;
            for (int i = tid; i < nv; i += GROUP) {
                P p = sr[i], q = gr[i], pwt;
                if (has_w) pwt = wp[i];
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    const A xh = (elem(p, e) - mu) * rstd, gv = elem(q, e);
                    const A gw = has_w ? gv * elem(pwt, e) : gv;
                    sg += gw;
                    sgx += gw * xh;
                    if (want_w || want_b) {
                        const int c = i * VEC + e;
                        pw_out[c] += gv * xh;
                        pb_out[c] += gv;
                    }
                }
            }
            group_sum2<A, GROUP>(sg, sgx, smem);
            const A mg = CENTER ? sg / n : A(0), mgx = sgx / n;
            for (int i = tid; i < nv; i += GROUP) {
                P p = sr[i], q = gr[i], pwt, pg, out;
                if (has_w) pwt = wp[i];
                if (has_gs) pg = gsr[i];
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    const A xh = (elem(p, e) - mu) * rstd, gv = elem(q, e);
                    const A gw = has_w ? gv * elem(pwt, e) : gv;
                    A t = rstd * (gw - mg - xh * mgx);
                    if (has_gs) t += elem(pg, e);
                    out.v[e] = from_acc<T>(t);
                }
                gxr[i] = out;
            }
        }
    }
}

"""

# 32-bit registers per thread per register-held array (a float64 value takes two):
# beyond that a row is re-read (forward holds one array, backward four)
_BUDGET = {"fwd": 32, "bwd": 16}


@dataclass(frozen=True)
class Plan:
    vec: int      # elements per load
    iters: int    # packs per thread held in registers (0: re-read the row)
    group: int    # threads per row
    rows: int     # rows per block (> 1 only with group == 32)

    @property
    def block(self) -> tuple[int, int, int]:
        return (self.group, self.rows, 1)


def _pow2ceil(v: int) -> int:
    return 1 << max(0, (v - 1).bit_length())


def plan(dtype: str, n: int, aligned: bool, direction: str) -> Plan:
    """The launch shape for rows of width n (pure Python, so testable without a GPU).

    aligned: every pointer is 16-byte aligned (then 16-byte packs when n allows)."""
    vec = 16 // ITEMSIZE[dtype]
    if not aligned or n % vec:
        vec = 1
    nv = n // vec
    budget = _BUDGET[direction] // (2 if dtype == "float64" else 1)
    if nv <= 256:  # narrow rows: a warp each, 8 per block
        iters = _pow2ceil(-(-nv // 32))
        if iters * vec <= budget:
            return Plan(vec, iters, 32, 8)
    for group in (128, 256, 512, 1024):
        iters = _pow2ceil(-(-nv // group))
        if iters * vec <= budget:
            return Plan(vec, iters, group, 1)
    return Plan(vec, 0, 1024, 1)


def _name(direction: str, dtype: str, p: Plan, center: bool) -> str:
    kernel = "norm_fwd" if direction == "fwd" else "norm_bwd"
    return (f"{kernel}<{CTYPE[dtype]}, {p.vec}, {p.iters}, {p.group}, {p.rows}, "
            f"{'true' if center else 'false'}>")


_modules: dict[str, Any] = {}


def _kernel(name: str):
    return compile_kernel(SOURCE, _modules, name)


def _rows(a, n: int):
    import cupy

    return cupy.ascontiguousarray(a).reshape(-1, n)


def _aligned(*arrays) -> bool:
    return all(a is None or a.data.ptr % 16 == 0 for a in arrays)


def _blocks_per_sm(threads: int) -> int:
    # A block walks its rows one after another (load, two block-wide sums, write), so
    # the loads of one row cannot overlap its own sums: the SM needs several blocks to
    # keep memory busy. Half the SM's threads ran float16 backward at 47% of copy
    # bandwidth on the H200 (a float16 row is half the bytes per sum); the full 2048 is
    # the limit. More blocks means more partial rows, but those are a few MB at most.
    return max(1, 2048 // threads)


def norm_forward(x, residual, weight, bias, eps: float, center: bool, want_sum: bool):
    """(y, s) as numr.nn._cpu.norm_forward, on CuPy arrays."""
    import cupy
    import numpy as np

    shape, dtype = x.shape, x.dtype
    n = shape[-1]
    y = cupy.empty(shape, dtype)
    s = cupy.empty(shape, dtype) if want_sum else None
    if y.size == 0:
        return y, s
    x2 = _rows(x, n)
    r2 = _rows(residual, n) if residual is not None else None
    w = cupy.ascontiguousarray(weight) if weight is not None else None
    b = cupy.ascontiguousarray(bias) if bias is not None else None
    rows = x2.shape[0]
    p = plan(dtype.name, n, _aligned(x2, r2, w, b, y, s), "fwd")
    if residual is not None and s is None:
        s = cupy.empty(shape, dtype)  # the kernel re-reads s for wide rows
    fn = _kernel(_name("fwd", dtype.name, p, center))
    grid = (-(-rows // p.rows),)
    fn(grid, p.block, (x2, r2 if r2 is not None else x2, w if w is not None else x2,
                       b if b is not None else x2, y, s if s is not None else y,
                       np.int64(rows), np.int32(n), np.float64(eps),
                       np.int32(residual is not None), np.int32(weight is not None),
                       np.int32(bias is not None)))
    return y, (s if want_sum else None)


def norm_backward(grad_y, s, grad_s, weight, eps: float, center: bool, want_weight: bool,
                       want_bias: bool):
    """(grad_s_total, grad_weight, grad_bias) as numr.nn._cpu.norm_backward, on CuPy."""
    import cupy
    import numpy as np

    shape, dtype = s.shape, s.dtype
    n = shape[-1]
    acc = np.float64 if dtype == np.float64 else np.float32
    gx = cupy.empty(shape, dtype)
    rows = s.size // n if n else 0
    want = want_weight or want_bias
    gw = cupy.zeros(n, dtype) if want_weight else None
    gb = cupy.zeros(n, dtype) if want_bias else None
    if gx.size == 0:
        return gx, gw, gb
    s2, gy2 = _rows(s, n), _rows(grad_y, n)
    gs2 = _rows(grad_s, n) if grad_s is not None else None
    w = cupy.ascontiguousarray(weight) if weight is not None else None
    p = plan(dtype.name, n, _aligned(s2, gy2, gs2, w, gx), "bwd")
    sms = sm_count()
    # persistent grid: enough blocks to fill the GPU, each with a partial row
    grid = min(-(-rows // p.rows), sms * _blocks_per_sm(p.group * p.rows))
    part = cupy.empty((2, grid, n) if want else (2, 1, 1), acc)
    fn = _kernel(_name("bwd", dtype.name, p, center))
    fn((grid,), p.block, (gy2, s2, gs2 if gs2 is not None else gy2,
                          w if w is not None else s2, gx, part, np.int64(rows), np.int32(n),
                          np.float64(eps), np.int32(grad_s is not None),
                          np.int32(weight is not None), np.int32(want_weight),
                          np.int32(want_bias)))
    if want:  # both sums in one launch (weight then bias)
        red = _kernel(f"reduce_parts3<{CTYPE[dtype.name]}, 1>")
        red((-(-n // 32), int(want_weight) + int(want_bias), 1), (32, 32, 1),
            (part, np.int32(grid), np.int32(n), gw if gw is not None else gb,
             gb if gb is not None else gw, np.int32(0 if want_weight else 1)))
    return gx, gw, gb

"""What numr.nn's two sets of CUDA kernels share: the CUDA C header (accumulator types,
conversions, 16-byte packs, the programmatic-dependent-launch wait, and the column sum of
the backward's weight/bias partial rows), compiling through CuPy, and the SM count.

numr/nn/_cuda.py picks the kernels for each call: the register-tiled ones
(_cuda_tiled.py) for float16, bfloat16 and float32 rows that fit their register tile, the
general ones (_cuda_general.py) for float64 and wider rows. cupy is imported lazily (the
modules import, and their launch planning is testable, without it).
"""

from __future__ import annotations

from typing import Any, Optional

COMMON_SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <typename T> struct Acc { typedef float type; };
template <> struct Acc<double> { typedef double type; };

__device__ __forceinline__ float to_acc(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_acc(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_acc(float v) { return v; }
__device__ __forceinline__ double to_acc(double v) { return v; }

template <typename T> __device__ __forceinline__ T from_acc(typename Acc<T>::type v) { return v; }
template <> __device__ __forceinline__ __half from_acc<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_acc<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}

__device__ __forceinline__ float rsqrt_acc(float v) { return rsqrtf(v); }
__device__ __forceinline__ double rsqrt_acc(double v) { return 1.0 / sqrt(v); }

// VEC elements moved by one 16-byte (or narrower) load/store
template <typename T, int VEC> struct alignas(sizeof(T) * VEC) Pack { T v[VEC]; };

// Element e of a pack, in the accumulator type. bfloat16 is read from its pair's 32-bit
// word, as float16 is: a bfloat16 is the top half of a float, so the low element is the
// word shifted up and the high one the word masked, one instruction each on the packed
// register. (cvt.f32.bf16 of an element took the 16-bit value apart first, a byte permute
// and a shift per element holding both in registers: float16's kernels of the same
// shape spilled nothing under the launch bounds where bfloat16's spilled 100-300 bytes a
// thread, and ran at 0.6-0.9 of them on the H200.)
template <typename T> struct IsBf16 { static constexpr bool value = false; };
template <> struct IsBf16<__nv_bfloat16> { static constexpr bool value = true; };

template <typename T, int VEC>
__device__ __forceinline__ typename Acc<T>::type elem(const Pack<T, VEC>& p, int e) {
    return to_acc(p.v[e]);
}
template <int VEC>
__device__ __forceinline__ float elem(const Pack<__nv_bfloat16, VEC>& p, int e) {
    if constexpr (VEC % 2 == 0) {
        unsigned w;
        memcpy(&w, &p.v[e & ~1], 4);  // (the pack is aligned to its size: pairs to 4 bytes)
        return __uint_as_float((e & 1) ? (w & 0xffff0000u) : (w << 16));
    } else {
        return __bfloat162float(p.v[e]);
    }
}

// Programmatic dependent launch (sm_90): a kernel launched as a dependent of the kernel
// before it on the stream is dispatched as that one's blocks leave, and waits here until
// all of that one's writes are visible; under a plain launch this returns at once. Every
// kernel so launched calls it before its first global memory access.
__device__ __forceinline__ void pdl_wait() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The weight (q = 0) or bias (q = 1) gradient: the sum over the backward's partial rows
// (Acc<T>, [q][nparts][n]). A block takes 32 columns as packs of V (V = 4: 16-byte loads
// of floats, where n % 4 == 0) and 32 lanes of partial rows, four loads in flight a
// thread, and combines the lanes in shared memory. The register-tiled backward
// (_cuda_tiled.py) launches it as its dependent (pdl_wait). (H200: 1.5-2.5 us less than the one-float reduce of
// 32x32 threads it replaced, after float16 layer norm backward at 4096 and 1024 wide,
// 1.2-1.5 of it from the launch, RESULTS.md.)
template <typename T, int V>
__global__ void __launch_bounds__(32 * 32 / V)
reduce_parts3(const typename Acc<T>::type* __restrict__ part, int nparts, int n,
              T* __restrict__ out_w, T* __restrict__ out_b, int first)
{
    typedef typename Acc<T>::type A;
    static_assert(V == 1 || (V == 4 && sizeof(A) == 4), "packs of four floats only");
    pdl_wait();
    constexpr int X = 32 / V, L = 32, U = 4;  // packs a block, lanes, loads in flight
    __shared__ A sm[L][33];
    const int q = blockIdx.y + first, x = threadIdx.x, y = threadIdx.y;
    const A* src = part + (size_t)q * (size_t)nparts * (size_t)n;
    const int c0 = blockIdx.x * 32, col = c0 + x * V;
    A a[V];
#pragma unroll
    for (int e = 0; e < V; ++e) a[e] = 0;
    if (col < n) {  // (V = 4: n % 4 == 0, so a pack is wholly inside or outside)
        for (int p = y; p < nparts; p += L * U) {
            A v[U][V];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const bool ok = p + L * u < nparts;
                const A* r = src + (size_t)(ok ? p + L * u : 0) * (size_t)n + col;
                if constexpr (V == 4) {
                    const float4 f = ok ? *reinterpret_cast<const float4*>(r)
                                        : make_float4(0.f, 0.f, 0.f, 0.f);
                    v[u][0] = f.x; v[u][1] = f.y; v[u][2] = f.z; v[u][3] = f.w;
                } else {
                    v[u][0] = ok ? *r : A(0);
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
#pragma unroll
                for (int e = 0; e < V; ++e) a[e] += v[u][e];
        }
    }
#pragma unroll
    for (int e = 0; e < V; ++e) sm[y][x * V + e] = a[e];
    __syncthreads();
    const int t = y * X + x;  // the first warp: one column a thread
    if (t < 32 && c0 + t < n) {
        A s = 0;
#pragma unroll
        for (int k = 0; k < L; ++k) s += sm[k][t];
        (q ? out_b : out_w)[c0 + t] = from_acc<T>(s);
    }
}
"""

CTYPE = {"float16": "__half", "bfloat16": "__nv_bfloat16", "float32": "float",
          "float64": "double"}
ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


def compile_kernel(source: str, cache: dict, name: str):
    """The compiled kernel for template instantiation ``name`` of ``source``, compiled once
    per process (``cache``: one dict per source)."""
    fn = cache.get(name)
    if fn is None:
        import cupy

        mod = cupy.RawModule(code=source, options=("-std=c++17",), name_expressions=[name])
        fn = cache[name] = mod.get_function(name)
    return fn


_sms: dict[int, int] = {}


def sm_count() -> int:
    """The current device's SM count, read once per device (Device().attributes reads
    every attribute: tens of microseconds a call)."""
    import cupy

    dev = cupy.cuda.runtime.getDevice()
    v = _sms.get(dev)
    if v is None:
        try:  # cudaDevAttrMultiProcessorCount is 16 in the CUDA runtime's enum
            v = cupy.cuda.runtime.deviceGetAttribute(
                getattr(cupy.cuda.runtime, "cudaDevAttrMultiProcessorCount", 16), dev)
        except Exception:
            v = cupy.cuda.Device(dev).attributes["MultiProcessorCount"]
        _sms[dev] = v = int(v)
    return v


def available() -> Optional[str]:
    """None when CuPy and a GPU are present, else why not (for tests and benchmarks)."""
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # ImportError, or CUDA errors without a driver/GPU
        return f"cupy/CUDA unavailable: {type(e).__name__}: {e}"
    return None



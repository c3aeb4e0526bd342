"""CUDA kernel of numr.random: Philox4x32-10 as CUDA C through CuPy's RawKernel, one
block per thread, the words stored as one 16-byte uint4 (or float4 / double2).

The same integer rounds and float conversions as numr.random._cpu (``__umulhi`` is the
exact high word), so every word and uniform float matches the CPU's bit for bit. Normals
come from one kernel too (``NORMALS``): the steps of the composite Box-Muller, rounded
the same way; in float64 with numr's own log1p, sin and cos (:data:`MATH`, the
operations of numr.random._cpu_math and numr's WGSL in the same order, with the same
constants, compiled with ``--fmad=false`` so that no product fuses into an fma), so
float64 normals are the CPU's and WebGPU's bits; float32 ones with CUDA's log1pf and
sincosf (within 1-2 ULP: the float64 functions would make the float32 kernel
compute-bound).
"""

from __future__ import annotations

from typing import Any

import cupy

from ._cuda_math import CUDA_PRELUDE, MATH

_SOURCE = CUDA_PRELUDE + MATH + r"""
__device__ __forceinline__ uint4 philox_block(unsigned int k0, unsigned int k1,
    unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
    unsigned long long b) {
  unsigned long long s = (unsigned long long)c0 + (b & 0xffffffffull);
  uint4 x;
  x.x = (unsigned int)s;
  s = (unsigned long long)c1 + (b >> 32) + (s >> 32);
  x.y = (unsigned int)s;
  s = (unsigned long long)c2 + (s >> 32);
  x.z = (unsigned int)s;
  x.w = c3 + (unsigned int)(s >> 32);
  #pragma unroll
  for (int r = 0; r < 10; ++r) {
    unsigned int h0 = __umulhi(0xD2511F53u, x.x), l0 = 0xD2511F53u * x.x;
    unsigned int h1 = __umulhi(0xCD9E8D57u, x.z), l1 = 0xCD9E8D57u * x.z;
    x = make_uint4(h1 ^ x.y ^ k0, l1, h0 ^ x.w ^ k1, l0);
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  return x;
}

extern "C" __global__ void philox_u32(uint4* out, unsigned int k0, unsigned int k1,
    unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
    unsigned long long nblocks) {
  for (unsigned long long b = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       b < nblocks; b += (unsigned long long)gridDim.x * blockDim.x)
    out[b] = philox_block(k0, k1, c0, c1, c2, c3, b);
}

extern "C" __global__ void philox_f32(float4* out, unsigned int k0, unsigned int k1,
    unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
    unsigned long long nblocks) {
  const float f = 5.9604644775390625e-8f;  // 2^-24
  for (unsigned long long b = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       b < nblocks; b += (unsigned long long)gridDim.x * blockDim.x) {
    uint4 x = philox_block(k0, k1, c0, c1, c2, c3, b);
    out[b] = make_float4((float)(x.x >> 8) * f, (float)(x.y >> 8) * f,
                         (float)(x.z >> 8) * f, (float)(x.w >> 8) * f);
  }
}

extern "C" __global__ void philox_f64(double2* out, unsigned int k0, unsigned int k1,
    unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
    unsigned long long nblocks) {
  const double f = 1.1102230246251565e-16;  // 2^-53
  for (unsigned long long b = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       b < nblocks; b += (unsigned long long)gridDim.x * blockDim.x) {
    uint4 x = philox_block(k0, k1, c0, c1, c2, c3, b);
    out[b] = make_double2(((double)(x.x >> 5) * 67108864.0 + (double)(x.y >> 6)) * f,
                          ((double)(x.z >> 5) * 67108864.0 + (double)(x.w >> 6)) * f);
  }
}

// Box-Muller as numr.random.Generator._std_normal composes it from numr operations, one
// IEEE-rounded step at a time (no step may fuse into an fma, hence the _rn multiplies):
// pairs (u, v) of consecutive uniforms, r = sqrt(-2 log1p(-u)), t = fl(2 pi) * v,
// out r cos t, r sin t.
extern "C" __global__ void philox_n32(float4* out, unsigned int k0, unsigned int k1,
    unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
    unsigned long long nblocks) {
  const float f = 5.9604644775390625e-8f;   // 2^-24
  const float two_pi = 6.283185307179586f;  // fl32(2 pi), as numr rounds 2.0 * numpy.pi
  for (unsigned long long b = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       b < nblocks; b += (unsigned long long)gridDim.x * blockDim.x) {
    uint4 x = philox_block(k0, k1, c0, c1, c2, c3, b);
    float u0 = (float)(x.x >> 8) * f, v0 = (float)(x.y >> 8) * f;
    float u1 = (float)(x.z >> 8) * f, v1 = (float)(x.w >> 8) * f;
    float r0 = sqrtf(__fmul_rn(-2.0f, log1pf(-u0)));
    float r1 = sqrtf(__fmul_rn(-2.0f, log1pf(-u1)));
    float s0, q0, s1, q1;
    sincosf(__fmul_rn(two_pi, v0), &s0, &q0);
    sincosf(__fmul_rn(two_pi, v1), &s1, &q1);
    out[b] = make_float4(__fmul_rn(r0, q0), __fmul_rn(r0, s0), __fmul_rn(r1, q1),
                         __fmul_rn(r1, s1));
  }
}

extern "C" __global__ void philox_n64(double2* out, unsigned int k0, unsigned int k1,
    unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
    unsigned long long nblocks) {
  const double f = 1.1102230246251565e-16;  // 2^-53
  const double two_pi = 6.283185307179586;  // fl64(2 pi)
  for (unsigned long long b = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       b < nblocks; b += (unsigned long long)gridDim.x * blockDim.x) {
    uint4 x = philox_block(k0, k1, c0, c1, c2, c3, b);
    double u = ((double)(x.x >> 5) * 67108864.0 + (double)(x.y >> 6)) * f;  // exact
    double v = ((double)(x.z >> 5) * 67108864.0 + (double)(x.w >> 6)) * f;
    double r = sqrt(__dmul_rn(-2.0, nr_log1m(u)));
    double s, q;
    nr_sincos(__dmul_rn(two_pi, v), &s, &q);
    out[b] = make_double2(__dmul_rn(r, q), __dmul_rn(r, s));
  }
}
"""

# Generator._std_normal takes its normals from the "n32"/"n64" kernels here (one pass,
# the copy bandwidth's worth of writes; the composite makes about ten passes).
NORMALS = True

_DTYPE = {"u32": (cupy.uint32, 4), "f32": (cupy.float32, 4), "f64": (cupy.float64, 2),
          "n32": (cupy.float32, 4), "n64": (cupy.float64, 2)}
_THREADS = 256
_module = None


def _kernel(fmt: str):
    global _module
    if _module is None:
        _module = cupy.RawModule(code=_SOURCE, options=("-std=c++11", "--fmad=false"))
    return _module.get_function("philox_" + fmt)


def fill(device: Any, key: tuple, counter: tuple, nblocks: int, fmt: str):
    """As numr.random._cpu.fill, a CuPy array on ``device`` (its current stream)."""
    dtype, per = _DTYPE[fmt]
    with cupy.cuda.Device(device.index):
        out = cupy.empty(per * nblocks, dtype)
        if nblocks:
            # a grid-stride loop: at most 2^16 blocks of 256 threads cover any size
            grid = min(-(-nblocks // _THREADS), 1 << 16)
            u = cupy.uint32
            _kernel(fmt)((grid,), (_THREADS,),
                         (out, u(key[0]), u(key[1]), *(u(c) for c in counter),
                          cupy.uint64(nblocks)))
    return out

"""WebGPU kernel of numr.random: Philox4x32-10 in WGSL, one block per invocation.

WGSL has no 32x32 -> 64-bit multiply, so the high word of each round's products is built
from 16-bit halves (exact in u32 arithmetic); nothing else but 32-bit add, xor and shift
is used, so every adapter computes the words of the CPU kernel. The uniform-float forms
convert as numr.random._cpu does (exact: an integer of at most 27 bits times a power of
two), so their floats are bit-identical too. Normals come from one kernel as well
(``NORMALS``): Box-Muller's steps with numr's own WGSL log1p, sqrt, cos and sin, rounded
as the composite of numr operations rounds them.
"""

from __future__ import annotations

import math
from typing import Any

from .. import _dtypes as dt
from ..backends.webgpu.array import GPUArray, c_strides
from ..backends.webgpu.runtime import runtime

WG = 64

_PHILOX = """
@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 32>;
@group(0) @binding(1) var<storage, read_write> O: array<{t}>;
fn p(k: u32) -> u32 { return P[k >> 2u][k & 3u]; }
fn mulhi(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p01 = a0 * b1; let p10 = a1 * b0;
  let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}
@compute @workgroup_size(%d)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
  let b = (wid.x + wid.y * nw.x) * %du + l;
  if (b >= p(6u)) { return; }
  // counter + b, carried through the four words (b is below 2^32)
  var x = vec4<u32>(p(2u) + b, p(3u), p(4u), p(5u));
  var c = select(0u, 1u, x.x < b);
  x.y = x.y + c; c = select(0u, c, x.y == 0u);
  x.z = x.z + c; c = select(0u, c, x.z == 0u);
  x.w = x.w + c;
  var k = vec2<u32>(p(0u), p(1u));
  for (var r = 0u; r < 10u; r = r + 1u) {
    let h0 = mulhi(0xD2511F53u, x.x); let l0 = 0xD2511F53u * x.x;
    let h1 = mulhi(0xCD9E8D57u, x.z); let l1 = 0xCD9E8D57u * x.z;
    x = vec4<u32>(h1 ^ x.y ^ k.x, l1, h0 ^ x.w ^ k.y, l0);
    k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
  }
  {store}
}
""" % (WG, WG)

_STORE = {
    "u32": ("vec4<u32>", "O[b] = x;"),
    "f32": ("vec4<f32>", "O[b] = vec4<f32>(x >> vec4<u32>(8u)) * 5.9604644775390625e-8;"),
    "f64": ("vec2<f64>",
            "let hi = vec4<f64>(x >> vec4<u32>(5u)); let lo = vec4<f64>(x >> vec4<u32>(6u));\n"
            "  O[b] = (vec2<f64>(hi.x, hi.z) * f64(67108864.0) + vec2<f64>(lo.y, lo.w))"
            " * f64(1.1102230246251565e-16);"),
}
# Box-Muller as numr.random.Generator._std_normal composes it, with numr's own WGSL
# log1p, sqrt, cos and sin (the functions the composite's dispatches run) and each
# product a lone multiply, so the one kernel rounds every step as the composite does.
_STORE["n32"] = ("vec4<f32>", """let w = vec4<f32>(x >> vec4<u32>(8u)) * 5.9604644775390625e-8;
  let r0 = sqrt_f32(-2.0 * log1p_f32(-w.x)); let r1 = sqrt_f32(-2.0 * log1p_f32(-w.z));
  let t0 = 6.283185307179586 * w.y; let t1 = 6.283185307179586 * w.w;
  O[b] = vec4<f32>(r0 * cos_f32(t0), r0 * sin_f32(t0), r1 * cos_f32(t1), r1 * sin_f32(t1));""")
_STORE["n64"] = ("vec2<f64>", """let hi = vec4<f64>(x >> vec4<u32>(5u)); let lo = vec4<f64>(x >> vec4<u32>(6u));
  let w = (vec2<f64>(hi.x, hi.z) * f64(67108864.0) + vec2<f64>(lo.y, lo.w)) * f64(1.1102230246251565e-16);
  let r = sqrt_f64(f64(-2.0) * log1p_f64(-w.x));
  let t = f64(6.283185307179586) * w.y;
  O[b] = vec2<f64>(r * cos_f64(t), r * sin_f64(t));""")
_DTYPE = {"u32": (dt.uint32, 4), "f32": (dt.float32, 4), "f64": (dt.float64, 2),
          "n32": (dt.float32, 4), "n64": (dt.float64, 2)}
# Generator._std_normal takes its normals from the "n32"/"n64" kernels here.
NORMALS = True


def source(fmt: str) -> str:
    from ..backends.webgpu.kernels.expressions import helpers

    t, store = _STORE[fmt]
    extra = helpers(store, "f64" if fmt == "n64" else "f32") if fmt[0] == "n" else ""
    return _PHILOX.replace("{t}", t).replace("{store}", store) + "\n" + extra


def fill(device: Any, key: tuple, counter: tuple, nblocks: int, fmt: str) -> GPUArray:
    """As numr.random._cpu.fill, a GPUArray on ``device``."""
    rt = runtime(device.index)
    dtype, per = _DTYPE[fmt]
    n = per * nblocks
    out = rt.alloc(max(1, n) * dtype.itemsize)
    if nblocks:
        if nblocks >= 1 << 32:
            raise ValueError(f"numr.random: {nblocks} blocks in one draw is more than "
                             f"webgpu can address (2^32)")
        pipe = rt.pipeline(("random_philox", fmt), lambda: source(fmt), 1)
        rt.record(pipe, (out.block,), [*key, *counter, nblocks], math.ceil(nblocks / WG))
    return GPUArray(out, rt, (n,), c_strides((n,)), 0, dtype, n)

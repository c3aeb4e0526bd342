"""WebGPU kernel of numr.random: Philox4x32-10 in WGSL, one block per invocation, the
block's four words (or floats) written as one 16-byte vector store.

Every adapter computes the words of the CPU kernel: only 32-bit multiply, add, xor and
shift are needed. Each round wants the high word of a 32 x 32-bit product; with
shader-int64 it is the top of one u64 product (a wide multiply where the hardware has
one), else it is built from 16-bit halves (exact in u32 arithmetic, but five multiplies
and a dozen adds and shifts a product: 20 products a block, enough to make the kernel
compute-bound on the H200, where 256M float32 uniforms ran at 0.28 of the copy
bandwidth with them). The rounds are unrolled here, each
round's key words literals added to the key. The uniform-float forms convert as
numr.random._cpu does (exact: an integer of at most 27 bits times a power of two), so
their floats are bit-identical too. Normals come from one kernel as well (``NORMALS``),
see :data:`_BOX_MULLER_F32` (float32 arithmetic, within 3 ULP of the CPU's) and
``_STORE["n64"]`` (numr's float64 functions: the CPU's bits).
"""

from __future__ import annotations

import math
import struct
from typing import Any

from .. import _dtypes as dt
from ..backends.webgpu.array import GPUArray, c_strides
from ..backends.webgpu.kernels.template import HEADER
from ..backends.webgpu.runtime import runtime

WG = 64
# Workgroup size per kernel: the plain words and uniforms are bound by the writes, and
# 256 invocations a workgroup wrote 256M float32 uniforms in 0.41 ms on the H100 where
# 64 took 0.68 ms (torch.rand 0.42; benchmarks/random.py --kernels); the normals are
# bound by their arithmetic and ran no faster at 256 (float32: 0.97 ms either way) nor
# with four blocks an invocation (1.00).
_WG = {"u32": 256, "f32": 256, "f64": 256}

_HEAD = "\n" + HEADER + """
@group(0) @binding(1) var<storage, read_write> O: array<{t}>;
"""
# (low, high) words of a * b
_MUL_WIDE = {
    True: """fn mulw(a: u32, b: u32) -> vec2<u32> {
  let q = u64(a) * u64(b);
  return vec2<u32>(u32(q & 0xfffffffflu), u32(q >> 32u));
}
""",
    False: """fn mulw(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p01 = a0 * b1; let p10 = a1 * b0;
  let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2<u32>(a * b, a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}
"""}
_MAIN = """@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
  let b0 = (wid.x + wid.y * nw.x) * {wg}u + l;
  let stride = nw.x * nw.y * {wg}u;
  for (var j = 0u; j < {per}u; j = j + 1u) {
  let b = b0 + j * stride;
  if (b >= p(6u)) { return; }
  // counter + b, carried through the four words (b is below 2^32)
  var x = vec4<u32>(p(2u) + b, p(3u), p(4u), p(5u));
  var c = select(0u, 1u, x.x < b);
  x.y = x.y + c; c = select(0u, c, x.y == 0u);
  x.z = x.z + c; c = select(0u, c, x.z == 0u);
  x.w = x.w + c;
  let k0 = p(0u); let k1 = p(1u);
{rounds}  {store}
  }
}
"""


def _rounds() -> str:
    """The ten rounds, unrolled; round r's key is (k0, k1) + r (0x9E3779B9, 0xBB67AE85)
    mod 2^32, its additions literals."""
    out = []
    for r in range(10):
        w0, w1 = (r * 0x9E3779B9) & 0xFFFFFFFF, (r * 0xBB67AE85) & 0xFFFFFFFF
        out.append(f"  {{ let q0 = mulw(0xD2511F53u, x.x); let q1 = mulw(0xCD9E8D57u, x.z);\n"
                   f"    x = vec4<u32>(q1.y ^ x.y ^ (k0 + {w0}u), q1.x, "
                   f"q0.y ^ x.w ^ (k1 + {w1}u), q0.x); }}\n")
    return "".join(out)


_UNIFORM32 = "vec4<f32>(x >> vec4<u32>(8u)) * 5.9604644775390625e-8"
_STORE = {
    "u32": ("vec4<u32>", "O[b] = x;"),
    "f32": ("vec4<f32>", f"O[b] = {_UNIFORM32};"),
    "f64": ("vec2<f64>",
            "let hi = vec4<f64>(x >> vec4<u32>(5u)); let lo = vec4<f64>(x >> vec4<u32>(6u));\n"
            "  O[b] = (vec2<f64>(hi.x, hi.z) * f64(67108864.0) + vec2<f64>(lo.y, lo.w))"
            " * f64(1.1102230246251565e-16);"),
}
_STORE["n64"] = ("vec2<f64>", """let hi = vec4<f64>(x >> vec4<u32>(5u)); let lo = vec4<f64>(x >> vec4<u32>(6u));
  let w = (vec2<f64>(hi.x, hi.z) * f64(67108864.0) + vec2<f64>(lo.y, lo.w)) * f64(1.1102230246251565e-16);
  let r = sqrt_f64(f64(-2.0) * log1p_f64(-w.x));
  let t = f64(6.283185307179586) * w.y;
  O[b] = vec2<f64>(r * cos_f64(t), r * sin_f64(t));""")


def _poly(cs, z: str, t: str = "f64") -> str:
    """c0 + z (c1 + z (...)) as nested fma, c0 first, the constants of type ``t`` (f32:
    plain literals, which WGSL takes as the other operands' f32)."""
    lit = (lambda c: f"f64({c!r})") if t == "f64" else repr  # noqa: E731
    e = lit(cs[-1])
    for c in reversed(cs[:-1]):
        e = f"fma({z}, {e}, {lit(c)})"
    return e


# float32 Box-Muller in float32 arithmetic, on every adapter. Each function is rounded
# about once from a compensated value: log(1 - u) = e ln2 + f - f^2/2 + f^3 q(f) with the
# leading terms carried as hi + lo (two_sum; the square's error from an fma, lost where a
# driver splits fma, as lavapipe does), q fitted on [sqrt(1/2) - 1, sqrt(2) - 1]; t - k
# pi/2 as hi + lo (pi/2 = P1 + Q2 + Q3, k Q2 exact with Q2's 22 bits), Taylor sin and cos
# with that low part and the error of 1 - z/2 added last. Against the CPU's roundings
# (float64 functions rounded once), emulated over every u and every v of the 2^24 grid
# with fused and with split fma (tools/normals_f32_grid.py): log, cos and sin within 1
# ULP (2-3% differ), r within 1 ULP, the normals within 3 ULP (4% differ), with WGSL's
# root (which may be 1/inverseSqrt) corrected to the correctly rounded one; the fences
# keep compilers from folding the compensations away (see expressions.fence_T). u = 0
# gives l = +0, r = +0, as the CPU's sqrt(-2 * -0).
# It replaced a kernel that computed log1p, cos and sin as float64 polynomials rounded
# once (the CPU's bits but in rare ties) where the adapter has shader-f64: float64 costs
# more than the compensations (256M float32 normals, kernel alone, `python
# benchmarks/random.py --device webgpu --kernels`: H100 1.12 -> 0.97 ms; lavapipe, 4M,
# 41.5 -> 23.0 ms), and CUDA's float32 normals (log1pf, sincosf) are within ULPs of the
# CPU's, not its bits, too.
_LQ32 = (0.3333333134651184, -0.2500030994415283, 0.20000770688056946, -0.16640789806842804,
         0.14222517609596252, -0.1301344335079193, 0.12563398480415344, -0.07778052240610123)
_PIO2_32 = (1.57080078125, -4.454455847735517e-06, 7.443547731314504e-13)


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


_BOX_MULLER_F32 = """fn box_muller(u: f32, v: f32) -> vec2<f32> {
  let y = 1.0 - u;                          // exact: u is a multiple of 2^-24 in [0, 1)
  let yb = bitcast<u32>(y);                 // y = 2^e m, m in [sqrt(1/2), sqrt(2)]
  let big = (yb & 0x7fffffu) > 0x3504f3u;
  let m = bitcast<f32>((yb & 0x7fffffu) | select(0x3f800000u, 0x3f000000u, big));
  let e = f32(i32(yb >> 23u) - select(127, 126, big));
  let f = m - 1.0;                          // exact (Sterbenz)
  let hf = -0.5 * f;                        // exact
  let h = fence_f32(hf * f);                // -f^2/2, rounded
  let hl = fma(hf, f, -h);                  // its error (0 where fma is split)
  let lh = two_sum_f32(f, h);
  let tail = fma(f * f * f, %(lq)s, hl + lh.y);
  let s1 = two_sum_f32(e * 0.693145751953125, lh.x);   // e ln2_hi exact
  let l = s1.x + fma(e, 1.4286068203094172e-06, s1.y + tail);
  let q = abs(-2.0 * l);
  // WGSL's sqrt need not round correctly (2.5 ULP; with the H100's root more than 8%%
  // of the normals differed from the CPU's): one correction by the exact residual
  // q - r0^2 (two_prod: no fma, which lavapipe splits) gives the correctly rounded root
  // but for near-halfway cases; where r0 is that already, the correction leaves it.
  let r0 = sqrt(q);
  let pp = two_prod_f32(r0, r0);
  let d = fence_f32(q - pp.x) - pp.y;       // q - pp.x exact (Sterbenz)
  let r = select(r0 + d * (0.5 / r0), r0, r0 == 0.0);
  let t = 6.2831854820251465 * v;           // fl32(fl32(2 pi) v), as the CPU rounds it
  let k = round(t * 0.6366197723675814);
  let a1 = fma(-k, %(p1)r, t);              // exact
  let a2 = two_sum_f32(a1, -k * %(p2)r);    // k Q2 exact
  let ah = a2.x;
  let al = fma(-k, %(p3)r, a2.y);
  let z = ah * ah;
  let s = ah + fma(ah * z, %(sq)s, al);
  let hc = fence_f32(fma(z, -0.5, 1.0));
  let hce = fma(z, -0.5, fence_f32(1.0 - hc));         // 1 - z/2 - hc, exact
  let c = hc + fma(z * z, %(cq)s, fma(-al, ah, hce));
  let n = u32(k) & 3u;
  let sv = select(s, c, (n & 1u) == 1u);
  let cv = select(c, s, (n & 1u) == 1u);
  let sn = select(sv, -sv, n >= 2u);
  let cs = select(cv, -cv, n == 1u || n == 2u);
  return vec2<f32>(r * cs, r * sn);
}
""" % {"lq": _poly(_LQ32, "f", "f32"), "p1": _PIO2_32[0], "p2": _PIO2_32[1],
       "p3": _PIO2_32[2],
       "sq": _poly(tuple(_f32((-1) ** (n + 1) / math.factorial(2 * n + 3)) for n in range(4)),
                   "z", "f32"),
       "cq": _poly(tuple(_f32((-1) ** n / math.factorial(2 * n + 4)) for n in range(4)),
                   "z", "f32")}
_STORE["n32"] = ("vec4<f32>", f"""let w = {_UNIFORM32};
  O[b] = vec4<f32>(box_muller(w.x, w.y), box_muller(w.z, w.w));""")

_DTYPE = {"u32": (dt.uint32, 4), "f32": (dt.float32, 4), "f64": (dt.float64, 2),
          "n32": (dt.float32, 4), "n64": (dt.float64, 2)}
# Generator._std_normal takes its normals from the "n32"/"n64" kernels here.
NORMALS = True


def source(fmt: str, int64: bool, wg: int = WG, per: int = 1) -> str:
    """The kernel of ``fmt`` (one of _STORE's), ``int64``: the adapter has shader-int64;
    ``wg`` invocations a workgroup, each making ``per`` blocks a grid's width apart
    (benchmarks/random.py --kernels times other choices; a launch of ``per`` > 1
    dispatches ceil(nblocks / (wg per)) workgroups)."""
    from ..backends.webgpu.kernels.expressions import helpers

    t, store = _STORE[fmt]
    if fmt == "n32":
        extra = _BOX_MULLER_F32 + helpers(_BOX_MULLER_F32, "f32")
    elif fmt == "n64":
        extra = helpers(store, "f64")
    else:
        extra = ""
    main = (_MAIN.replace("{wg}", str(wg)).replace("{per}", str(per))
            .replace("{rounds}", _rounds()).replace("{store}", store))
    return _HEAD.replace("{t}", t) + _MUL_WIDE[int64] + main + "\n" + extra


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
        int64 = "shader-int64" in rt.features
        wg = _WG.get(fmt, WG)
        pipe = rt.pipeline(("random_philox", fmt), lambda: source(fmt, int64, wg), 1)
        rt.record(pipe, (out.block,), [*key, *counter, nblocks], math.ceil(nblocks / wg))
    return GPUArray(out, rt, (n,), c_strides((n,)), 0, dtype, n)

"""Measures the float32 Box-Muller of numr.random on WebGPU
(numr.random._webgpu's _BOX_MULLER_F32) against the CPU's roundings, over every u and
every v of the 2^24 grid, by emulating its float32 steps in NumPy: once with fused fma
(NVIDIA) and once with fma split into a rounded product and a sum (lavapipe). Prints
the largest error in ULP and the share of results that differ, for log(1 - u), the root,
cos, sin and the products r cos t, r sin t (over 2^23 random pairs).

    python tools/normals_f32_grid.py

Uses about 3 GB of memory and a minute on one core per fma mode.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from numr.random import _webgpu as w  # noqa: E402

f32 = np.float32


def _fma(fused: bool):
    def fma(a, b, c):
        a, b, c = np.broadcast_arrays(np.asarray(a, f32), np.asarray(b, f32),
                                      np.asarray(c, f32))
        if fused:  # the exact a * b + c (80-bit long double), rounded once
            ld = np.longdouble
            return (a.astype(ld) * b.astype(ld) + c.astype(ld)).astype(f32)
        return ((a * b).astype(f32) + c).astype(f32)
    return fma


def _poly(fma, cs, z):
    e = np.full_like(z, f32(cs[-1]))
    for c in reversed(cs[:-1]):
        e = fma(z, e, np.full_like(z, f32(c)))
    return e


def _two_sum(a, b):
    s = (a + b).astype(f32)
    v = (s - a).astype(f32)
    return s, ((a - (s - v)).astype(f32) + (b - v)).astype(f32)


def _ulps(got, want) -> np.ndarray:
    """|got - want| in units of want's spacing (float64 arithmetic)."""
    return np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want).astype(f32))


def _report(name: str, got, want) -> None:
    d = _ulps(got, want)
    print(f"  {name:10s} max {d.max():.2f} ULP, {np.mean(got != want) * 100:.2f}% differ")


def run(fused: bool) -> None:
    fma = _fma(fused)
    sq = [w._f32((-1) ** (n + 1) / math.factorial(2 * n + 3)) for n in range(4)]
    cq = [w._f32((-1) ** n / math.factorial(2 * n + 4)) for n in range(4)]
    u = np.arange(1 << 24, dtype=np.uint32).astype(f32) * f32(2.0 ** -24)
    # the CPU's roundings: log1p, cos, sin in float64 rounded once, r from the float64 root
    l_ref = np.log1p(-u.astype(np.float64)).astype(f32)
    r_ref = np.sqrt((f32(-2.0) * l_ref).astype(np.float64)).astype(f32)
    # log(1 - u) and the root, step for step as the WGSL
    yb = (f32(1.0) - u).view(np.uint32)
    big = (yb & 0x7FFFFF) > 0x3504F3
    m = ((yb & 0x7FFFFF) | np.where(big, 0x3F000000, 0x3F800000).astype(np.uint32)).view(f32)
    e = ((yb >> 23).astype(np.int32) - np.where(big, 126, 127)).astype(f32)
    f = (m - f32(1.0)).astype(f32)
    hf = (f32(-0.5) * f).astype(f32)
    h = (hf * f).astype(f32)
    hl = fma(hf, f, -h)
    lh, lhe = _two_sum(f, h)
    tail = fma((f * f * f).astype(f32), _poly(fma, w._LQ32, f), (hl + lhe).astype(f32))
    s1, s1e = _two_sum((e * f32(0.693145751953125)).astype(f32), lh)
    l = (s1 + fma(e, np.full_like(e, f32(1.4286068203094172e-06)),
                  (s1e + tail).astype(f32))).astype(f32)
    r = np.sqrt(np.abs(f32(-2.0) * l).astype(f32))
    # cos and sin of t = fl32(fl32(2 pi) v)
    t = (f32(6.283185307179586) * u).astype(f32)
    c_ref = np.cos(t.astype(np.float64)).astype(f32)
    s_ref = np.sin(t.astype(np.float64)).astype(f32)
    k = np.round((t * f32(0.6366197723675814)).astype(f32))
    p1, p2, p3 = (f32(p) for p in w._PIO2_32)
    a1 = fma(-k, p1, t)
    ah, al = _two_sum(a1, (-k * p2).astype(f32))
    al = fma(-k, p3, al)
    z = (ah * ah).astype(f32)
    sv = (ah + fma((ah * z).astype(f32), _poly(fma, sq, z), al)).astype(f32)
    hc = fma(z, f32(-0.5), f32(1.0))
    hce = fma(z, f32(-0.5), (f32(1.0) - hc).astype(f32))
    cv = (hc + fma((z * z).astype(f32), _poly(fma, cq, z), fma(-al, ah, hce))).astype(f32)
    n = k.astype(np.int64) & 3
    s1_, c1_ = np.where(n & 1, cv, sv), np.where(n & 1, sv, cv)
    sn = np.where(n >= 2, -s1_, s1_)
    cs = np.where((n == 1) | (n == 2), -c1_, c1_)
    print("fused fma" if fused else "split fma (a rounded product, then the sum)")
    _report("log(1-u)", l[1:], l_ref[1:])
    _report("r", r, r_ref)
    _report("cos t", cs, c_ref)
    _report("sin t", sn[1:], s_ref[1:])
    rng = np.random.default_rng(0)
    iu, iv = rng.integers(1, 1 << 24, 1 << 23), rng.integers(1, 1 << 24, 1 << 23)
    _report("r cos t", (r[iu] * cs[iv]).astype(f32), (r_ref[iu] * c_ref[iv]).astype(f32))
    _report("r sin t", (r[iu] * sn[iv]).astype(f32), (r_ref[iu] * s_ref[iv]).astype(f32))


if __name__ == "__main__":
    run(True)
    run(False)

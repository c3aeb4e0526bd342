"""Variance and standard deviation: a team of invocations per output element (as in
:mod:`.argreduce`: a power of two covering the reduced length, at most 256), two passes.

Pass 1 sums the reduced elements (each invocation a compensated (Kahan) sum of its
strided share, then a pairwise tree in workgroup memory) to get the mean, which every
invocation of the team then reads from workgroup memory. Pass 2 reads the elements again and sums
the squared deviations from that mean together with the deviations themselves, giving
the corrected two-pass result ``(sum d^2 - (sum d)^2 / n) / (n - correction)`` (Chan,
Golub and LeVeque's form, which cancels most of the mean's own rounding error). Nothing
the size of the input is materialised, and float32 data keeps float32 accuracy.

Complex input reads (re, im) pairs: the mean is complex and a squared deviation is
``|d|^2``, so the result is real, as in NumPy. float16 is computed in f32; the kernel
writes the unpacked compute type and numr's dtype is reached with a cast afterwards.
"""

from __future__ import annotations

from typing import Any

from ...._dtypes import BY_NAME, DType
from ..array import GPUArray, new
from .argreduce import HEADER, WG, decode, isnan, layout, team, team_lines
from .map import scalar_words
from .types import LAYOUT, ctype, load_fn


def real_compute(d: DType) -> DType:
    """The dtype the kernel writes: f32 for float16/float32/complex64, else f64."""
    return BY_NAME["float64" if ctype(d) in ("f64", "vec2<f64>") else "float32"]


def source(kind: str, d: DType, nk: int, nr: int, T: int) -> str:
    vt = ctype(d)                       # f32, f64, vec2<f32> or vec2<f64>
    st = "f64" if "f64" in vt else "f32"
    sq = "dot(v, v)" if vt.startswith("vec2") else "v * v"
    nan = "bitcast<f64>(0x7ff8000000000000lu)" if st == "f64" else "bitcast<f32>(0x7fc00000u)"
    ks, rs = 3, 3 + 2 * nk
    # the two parameters after the layout words: n and n - correction, as st values
    w = 2 if st == "f64" else 1
    pn = 3 + 2 * nk + 2 * nr
    if st == "f64":
        n_at = f"bitcast<f64>(u64(p({pn}u)) | (u64(p({pn + 1}u)) << 32u))"
        div_at = f"bitcast<f64>(u64(p({pn + w}u)) | (u64(p({pn + w + 1}u)) << 32u))"
    else:
        n_at, div_at = f"bitcast<f32>(p({pn}u))", f"bitcast<f32>(p({pn + 1}u))"
    result = "sqrt(r)" if kind == "std" else "r"
    return f"""{HEADER}
@group(0) @binding(1) var<storage, read> x0: array<{LAYOUT[d.name][0]}>;
{load_fn("ld", "x0", d)}
@group(0) @binding(2) var<storage, read_write> y: array<{st}>;
var<workgroup> pv: array<{vt}, {WG}>;
var<workgroup> ps: array<{st}, {WG}>;
fn sq(v: {vt}) -> {st} {{ return {sq}; }}
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32,
        @builtin(num_workgroups) nw: vec3<u32>) {{
  {team_lines(T)}
  let nout = p(0u);
  let R = select(0u, p(1u), o < nout);
  let n = {n_at};
  {decode("o", ks, nk)}
  let base = bitcast<i32>(p(2u)) + eo;
  // pass 1: the sum (Kahan-compensated per invocation, then pairwise)
  var s = {vt}(0.0);
  var c = {vt}(0.0);
  for (var j = q; j < R; j = j + {T}u) {{
    {decode("j", rs, nr)}
    let t = ld(u32(base + ej)) - c;
    let u = s + t;
    c = (u - s) - t;
    s = u;
  }}
  pv[l] = s;
  workgroupBarrier();
  for (var h = {T // 2}u; h > 0u; h = h >> 1u) {{
    if (q < h) {{ pv[l] = pv[l] + pv[l + h]; }}
    workgroupBarrier();
  }}
  let mean = pv[s0] / n;
  workgroupBarrier();
  // pass 2: deviations and their squares
  var sd = {vt}(0.0);
  var ss = {st}(0.0);
  for (var j = q; j < R; j = j + {T}u) {{
    {decode("j", rs, nr)}
    let v = ld(u32(base + ej)) - mean;
    sd = sd + v;
    ss = ss + sq(v);
  }}
  pv[l] = sd;
  ps[l] = ss;
  workgroupBarrier();
  for (var h = {T // 2}u; h > 0u; h = h >> 1u) {{
    if (q < h) {{
      pv[l] = pv[l] + pv[l + h];
      ps[l] = ps[l] + ps[l + h];
    }}
    workgroupBarrier();
  }}
  if (q == 0u && o < nout) {{
    var m2 = ps[s0] - sq(pv[s0]) / n;
    // a negative m2 is rounding; NaN (tested through its bits) must stay NaN
    m2 = select(m2, {st}(0.0), m2 < {st}(0.0) && !{isnan(st, 'm2')});
    let div = {div_at};
    let r = select({nan}, m2 / div, div > {st}(0.0));
    y[o] = {result};
  }}
}}"""


def launch(rt: Any, kind: str, x: GPUArray, axes: tuple, correction: float) -> GPUArray:
    """``kind`` (var or std) of ``x`` (float16/32/64 or complex) over ``axes`` with
    divisor ``n - correction`` (NaN where that is <= 0): an array of the kept axes'
    shape in :func:`real_compute`'s dtype."""
    out_shape, R, nk, nr, words = layout(x, axes)
    out = real_compute(x.dtype)
    result = new(rt, out_shape, out)
    if result.size == 0:
        return result
    extra = scalar_words(float(R), out) + scalar_words(float(R - correction), out)
    T = team(R)
    key = ("moments", kind, x.dtype.name, nk, nr, T)
    rt.dispatch(key, lambda: source(kind, x.dtype, nk, nr, T),
                [x.storage.block, result.storage.block], [result.size, R, *words, *extra],
                -(-result.size // (WG // T)))
    return result

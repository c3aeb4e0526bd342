"""Variance and standard deviation: a team of invocations per output element (sized
as in :mod:`.argreduce`), two passes over the data.

Pass 1 sums the reduced elements (each invocation a compensated (Kahan) sum of its
strided share, then a pairwise tree in workgroup memory) to get the mean, which every
invocation of the team then reads from workgroup memory. Pass 2 reads the elements
again and sums the squared deviations from that mean together with the deviations
themselves, giving the corrected two-pass result
``(sum d^2 - (sum d)^2 / n) / (n - correction)`` (Chan, Golub and LeVeque's form, which
cancels most of the mean's own rounding error). Nothing the size of the input is
materialised, and float32 data keeps float32 accuracy.

Each invocation issues 4 loads before folding them one by one (several loads in
flight, the rounding of a fold in order), the address stepped along one reduced
dimension rather than decoded with a division per element.

Few outputs of many elements spread over chunks (up to 1024), one workgroup each, which write their
(mean, M2); a second dispatch combines them with Chan et al.'s pairwise formula
``M2 = sum M2_c + sum n_c |mean_c - mean|^2`` (the same two-pass template, with
weights).

Complex input reads (re, im) pairs: the mean is complex and a squared deviation is
``|d|^2``, so the result is real, as in NumPy. float16 is computed in f32; the kernel
writes the unpacked compute type and numr's dtype is reached with a cast afterwards.
"""

from __future__ import annotations

import math
from typing import Any

from ...._dtypes import BY_NAME, DType
from ..array import GPUArray, new
from .argreduce import chunks, decode, isnan, layout, team, team_lines
from . import reduce as R
from ..runtime import packer, remember
from .map import scalar_words
from .template import HEADER, WG
from .types import LAYOUT, ctype, load_fn


def real_compute(d: DType) -> DType:
    """The dtype the kernel writes: f32 for float16/float32/complex64, else f64."""
    return BY_NAME["float64" if ctype(d) in ("f64", "vec2<f64>") else "float32"]


# The two passes' folds of one item ``it`` (a value, its weight, its own M2).
PASS1 = """let t = it.w * it.v - c;
    let u = s + t;
    c = (u - s) - t;
    s = u;"""
PASS2 = """let v = it.v - mean;
    sd = sd + it.w * v;
    let t = it.m + it.w * sq(v) - cs;
    let u = ss + t;
    cs = (u - ss) - t;
    ss = u;"""
U = 4  # loads issued before they are folded, in order (the rounding of one at a time)


def _elements(load: str, item: str, rs: int, nr: int, T: int):
    """A function of a pass's fold giving WGSL that folds lane ``q``'s elements ``j0 +
    q, j0 + q + T, ... < j1`` in order: ``U`` loads issued, then folded one by one (so
    several loads are in flight), the address stepped where one reduced dimension (or
    none) allows. Each pass in its own block (its own ``j`` and address)."""
    def walk(fold: str) -> str:
        loads = "\n      ".join(f"let x{u} = {load.format(e=f'e{u}')};" for u in range(U))
        folds = "\n      ".join(f"{{ let it = {item.format(x=f'x{u}')};\n    {fold}\n      }}"
                                 for u in range(U))
        single = f"let it = {item.format(x=load.format(e='e0'))};\n    {fold}"
        return "{\n    " + R.walk(rs, nr, T, U, loads + "\n      " + folds, single) + "\n  }"
    return walk


def source(kind: str, d: DType, nk: int, nr: int, T: int, stage: str) -> str:
    """WGSL of one stage: ``full`` (each output from its elements), ``part`` (virtual
    output ``o`` is chunk ``o % C`` of output ``o / C``; writes the chunk's mean and sum
    of squared deviations M2 as two values) or ``merge`` (output ``o`` from the C
    chunk (mean, M2) pairs, weighted by the chunk lengths: Chan et al.'s combination,
    again in two passes). Parameters: nout, R, layout words, C, chunk, then (not for
    ``part``) n - correction."""
    vt = ctype(d)                       # f32, f64, vec2<f32> or vec2<f64>
    st = "f64" if "f64" in vt else "f32"
    vec = vt.startswith("vec2")
    sq = "dot(v, v)" if vec else "v * v"
    nan = "bitcast<f64>(0x7ff8000000000000lu)" if st == "f64" else "bitcast<f32>(0x7fc00000u)"
    ks, rs = 3, 3 + 2 * nk
    pc = 3 + 2 * nk + 2 * nr
    if st == "f64":
        div_at = f"bitcast<f64>(u64(p({pc + 2}u)) | (u64(p({pc + 3}u)) << 32u))"
    else:
        div_at = f"bitcast<f32>(p({pc + 2}u))"
    if stage == "merge":
        # chunk i of output o: (mean, M2) at sc[2 (o C + i)], weight = its length
        bind = (f"@group(0) @binding(1) var<storage, read> sc: array<{vt}>;\n"
                f"@group(0) @binding(2) var<storage, read_write> y: array<{st}>;")
        head = ""
        n = f"{st}(R)"
        loop = (f"for (var i = q; i < select(0u, C, o < nout); i = i + {T}u) {{\n"
                f"    let e = 2u * (o * C + i);\n"
                f"    let it = It(sc[e], {st}(min(chunk, R - i * chunk)), "
                f"sc[e + 1u]{'.x' if vec else ''});")

        def walk(fold: str) -> str:
            return f"{loop}\n    {fold}\n  }}"
    else:
        bind = (f"@group(0) @binding(1) var<storage, read> x0: array<{LAYOUT[d.name][0]}>;\n"
                f"{load_fn('ld', 'x0', d)}\n"
                f"@group(0) @binding(2) var<storage, read_write> y: "
                f"array<{vt if stage == 'part' else st}>;")
        head = (f"let oo = o / C;\n  let ci = o % C;\n  {decode('oo', ks, nk)}\n"
                f"  let base = bitcast<i32>(p(2u)) + eoo;\n"
                f"  let j0 = min(R, ci * chunk);\n"
                f"  let j1 = select(j0, min(R, j0 + chunk), o < nout);")
        n = f"{st}(j1 - j0)"
        walk = _elements("ld({e})", f"It({{x}}, {st}(1.0), {st}(0.0))", rs, nr, T)
    if stage == "part":
        write = f"y[2u * o] = mean;\n    y[2u * o + 1u] = {vt}(m2);"
    else:
        result = "sqrt(r)" if kind == "std" else "r"
        write = (f"let div = {div_at};\n"
                 f"    let r = select({nan}, m2 / div, div > {st}(0.0));\n"
                 f"    y[o] = {result};")
    return f"""{HEADER}
{bind}
struct It {{ v: {vt}, w: {st}, m: {st} }}   // a value, its weight, its own M2
var<workgroup> pv: array<{vt}, {WG}>;
var<workgroup> ps: array<{st}, {WG}>;
fn sq(v: {vt}) -> {st} {{ return {sq}; }}
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32,
        @builtin(num_workgroups) nw: vec3<u32>) {{
  {team_lines(T)}
  let nout = p(0u);
  let R = p(1u);
  let C = p({pc}u);
  let chunk = p({pc + 1}u);
  {head}
  let n = {n};
  // pass 1: the sum (Kahan-compensated per invocation, then pairwise)
  var s = {vt}(0.0);
  var c = {vt}(0.0);
  {walk(PASS1)}
  pv[l] = s;
  workgroupBarrier();
  for (var h = {T // 2}u; h > 0u; h = h >> 1u) {{
    if (q < h) {{ pv[l] = pv[l] + pv[l + h]; }}
    workgroupBarrier();
  }}
  let mean = pv[s0] / n;
  workgroupBarrier();
  // pass 2: deviations from the mean and their squares (compensated too)
  var sd = {vt}(0.0);
  var ss = {st}(0.0);
  var cs = {st}(0.0);
  {walk(PASS2)}
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
    {write}
  }}
}}"""


def launch(rt: Any, kind: str, x: GPUArray, axes: tuple[int, ...],
           correction: float) -> GPUArray:
    """``kind`` (var or std) of ``x`` (float16/32/64 or complex) over ``axes`` with
    divisor ``n - correction`` (NaN where that is <= 0): an array of the kept axes'
    shape in :func:`real_compute`'s dtype. The launch of a signature is built once
    (``rt.plans``, as reductions' are); a call records its one or two dispatches."""
    sig = ("moments", kind, x.dtype, x.shape, x.strides, axes, correction)
    lp = rt.plans.get(sig)
    if lp is None:
        lp = remember(rt, sig, _build(rt, kind, x, axes, correction))
    out_shape, out, stages = lp
    result = new(rt, out_shape, out)
    if not stages:
        return result
    (pipe, params, groups, pk, part_bytes), *merge = stages
    if x.offset:
        params = params.copy()
        params[2] = x.offset & 0xFFFFFFFF
    if not merge:
        rt.record(pipe, (x.storage.block, result.storage.block), params, groups, pk)
        return result
    part = rt.alloc(part_bytes)
    rt.record(pipe, (x.storage.block, part.block), params, groups, pk)
    pipe, params, groups, pk, _ = merge[0]
    rt.record(pipe, (part.block, result.storage.block), params, groups, pk)
    return result


def _build(rt: Any, kind: str, x: GPUArray, axes: tuple[int, ...], correction: float
           ) -> tuple:
    """(result shape, result dtype, stages): each stage (pipeline, parameter words with
    the input's offset 0 at word 2, workgroups, packer, bytes of the partial results
    the first of two stages writes)."""
    out_shape, R, nk, nr, words, columns = layout(x, axes)
    words[0] = 0  # the offset: set per call
    out = real_compute(x.dtype)
    nout = math.prod(out_shape)
    if nout == 0:
        return out_shape, out, ()
    C = chunks(nout, R)
    chunk = max(-(-R // C), 1)
    div = scalar_words(float(R - correction), out)
    params = [nout * C, R, *words, C, chunk]
    d = x.dtype

    def pipe(nk: int, nr: int, T: int, stage: str) -> Any:
        return rt.pipeline(("moments", kind, d.name, nk, nr, T, stage),
                           lambda: source(kind, d, nk, nr, T, stage), 2)

    if C == 1:
        T = team(R, nout, columns)
        params += div
        return out_shape, out, ((pipe(nk, nr, T, "full"), params, -(-nout // (WG // T)),
                                 packer(len(params)), 0),)
    part = 2 * nout * C * (d.itemsize if d.kind == "complex" else out.itemsize)
    T = team(C * 16)  # the merge reads C pairs: a team of about C invocations
    merge = [nout, R, 0, C, chunk] + div
    return out_shape, out, ((pipe(nk, nr, WG, "part"), params, nout * C, packer(len(params)),
                             part),
                            (pipe(0, 0, T, "merge"), merge, -(-nout // (WG // T)),
                             packer(len(merge)), 0))

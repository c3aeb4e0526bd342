"""WebGPU kernels of numr.nn: WGSL generated per (dtype, threads per row, register tile,
rms/layer, which operands exist) and cached by the device runtime.

Design (memory-bound ops, as the CUDA kernels):

* One row per ``T`` invocations, ``256 / T`` rows per workgroup (narrow rows share a
  workgroup); row sums are a tree in workgroup memory over the row's invocations.
* A row stays in registers between its sums and its write when each invocation holds at
  most ``K`` units of it; wider rows are read again (from cache, mostly).
* float16 is moved as packed words (two halves, one ``vec2<f32>`` unit) and computed in
  float32; float32 sums accumulate in float32, float64 in float64.
* A dispatch writes one buffer, so results that come in pairs share one: ``(y, s)`` of
  the residual forms, ``gx`` and the per-workgroup partial rows of the weight/bias
  gradients (reduced column-wise by a second small kernel, no atomics).

float16 rows of odd width would put two rows in one word: those run the composite
(``norm_forward`` returns None, the caller's cue).

These are the first-generation kernels. ``norm_forward``/``norm_backward`` run the
second generation (``_webgpu_v2``: vectorised units, one workgroup per row, subgroup
reductions) unless ``NUMR_NN_WEBGPU_KERNELS=v1`` (read once, at import) asks for these,
so both can be compared on one GPU.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from .. import _dtypes as dt
from ..backends.webgpu.array import GPUArray, c_strides
from ..backends.webgpu.kernels.map import contiguous, scalar_words
from . import _webgpu_v2

_V2 = os.environ.get("NUMR_NN_WEBGPU_KERNELS", "v2").lower() != "v1"

WG = 256
_KMAX = {"fwd": 8, "bwd": 4}  # units per invocation held in registers
_BWD_GROUPS = 512  # persistent workgroups of the backward kernel

# dtype -> (storage element, unit compute type, accumulator, elements per unit)
_TYPES = {"float32": ("f32", "f32", "f32", 1), "float64": ("f64", "f64", "f64", 1),
          "float16": ("u32", "vec2<f32>", "f32", 2)}


def _pow2ceil(v: int) -> int:
    return 1 << max(0, (v - 1).bit_length())


def plan(units: int, direction: str) -> tuple[int, int]:
    """(T invocations per row, K register units per invocation; 0 = re-read the row)."""
    t = min(WG, max(32, _pow2ceil(-(-units // 4))))
    k = -(-units // t)
    return (t, k) if k <= _KMAX[direction] else (WG, 0)


def _conv(d: str) -> str:
    """WGSL between storage and compute: ld/st for units, la/sa for accumulators
    (float16's partial sums are f32 bits in u32 words), hsum over a unit, eps()."""
    s, v, a, _ = _TYPES[d]
    if d == "float16":
        conv = ("fn ld(w: u32) -> vec2<f32> { return unpack2x16float(w); }\n"
                "fn st(v: vec2<f32>) -> u32 { return pack2x16float(v); }\n"
                "fn hsum(v: vec2<f32>) -> f32 { return v.x + v.y; }\n"
                "fn sa(x: f32) -> u32 { return bitcast<u32>(x); }\n"
                "fn la(w: u32) -> f32 { return bitcast<f32>(w); }")
    else:
        conv = (f"fn ld(w: {s}) -> {v} {{ return w; }}\nfn st(v: {v}) -> {s} {{ return v; }}\n"
                f"fn hsum(v: {v}) -> {a} {{ return v; }}\n"
                f"fn sa(x: {a}) -> {s} {{ return x; }}\nfn la(w: {s}) -> {a} {{ return w; }}")
    eps = "bitcast<f32>(p(8u))" if a == "f32" else \
        "bitcast<f64>(u64(p(8u)) | (u64(p(9u)) << 32u))"
    return f"""@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 32>;
fn p(k: u32) -> u32 {{ return P[k >> 2u][k & 3u]; }}
{conv}
fn eps() -> {a} {{ return {eps}; }}"""


def _common(d: str, t: int) -> str:
    a = _TYPES[d][2]
    return f"""{_conv(d)}
var<workgroup> red: array<{a}, {WG}>;
var<workgroup> red2: array<{a}, {WG}>;
// the sum over the {t} invocations of one row (every invocation calls it: barriers)
fn rowsum(l: u32, x: {a}) -> {a} {{
  red[l] = x;
  workgroupBarrier();
  let t = l % {t}u;
  for (var s = {t // 2}u; s > 0u; s = s >> 1u) {{
    if (t < s) {{ red[l] = red[l] + red[l + s]; }}
    workgroupBarrier();
  }}
  let r = red[l - t];
  workgroupBarrier();
  return r;
}}
fn rowsum2(l: u32, x: {a}, y: {a}) -> vec2<{a}> {{
  red[l] = x;
  red2[l] = y;
  workgroupBarrier();
  let t = l % {t}u;
  for (var s = {t // 2}u; s > 0u; s = s >> 1u) {{
    if (t < s) {{ red[l] = red[l] + red[l + s]; red2[l] = red2[l] + red2[l + s]; }}
    workgroupBarrier();
  }}
  let r = vec2<{a}>(red[l - t], red2[l - t]);
  workgroupBarrier();
  return r;
}}"""


def _moments(a: str, dev: str, center: bool) -> str:
    """WGSL giving the row's mean ``mu`` and variance ``vr`` from ``total`` (its sum, or
    sum of squares for rms), the second pass ``dev`` over the row for layer norm."""
    if not center:
        return f"let mu = {a}(0);\n  let vr = total / n;"
    return (f"let mu = total / n;\n  var dev = {a}(0);\n  if (live) {{\n    {dev}\n  }}\n"
            f"  let vr = rowsum(l, dev) / n;")


def _fwd_source(d: str, t: int, k: int, center: bool, has_r: bool, has_w: bool,
                has_b: bool) -> str:
    s, v, a, _ = _TYPES[d]
    # params: 0 rows, 1 units per row, 2 n, 3-6 offsets of x, r, w, b (units),
    # 7 offset of s in the output (units), 8-9 eps
    src = "Y[p(7u) + base + u]" if has_r else "X[p(3u) + base + u]"
    load = ("let e = ld(st(ld(X[p(3u) + base + u]) + ld(R[p(4u) + base + u])));\n"
            "      Y[p(7u) + base + u] = st(e);") if has_r else \
        "let e = ld(X[p(3u) + base + u]);"
    term = "hsum(e)" if center else "hsum(e * e)"
    affine = ""
    if has_w:
        affine += " * ld(W[p(5u) + u])"
    if has_b:
        affine += " + ld(B[p(6u) + u])"
    if k:
        gather = f"""  var v: array<{v}, {k}>;
  for (var j = 0u; j < {k}u; j = j + 1u) {{
    let u = tt + j * {t}u;
    if (live && u < U) {{
      {load}
      v[j] = e;
      acc = acc + {term};
    }} else {{ v[j] = {v}(0); }}
  }}"""
        dev = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
      if (tt + j * {t}u < U) {{ let q = v[j] - mu; dev = dev + hsum(q * q); }}
    }}"""
        write = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
      let u = tt + j * {t}u;
      if (u < U) {{ Y[base + u] = st((v[j] - mu) * rstd{affine}); }}
    }}"""
    else:
        gather = f"""  if (live) {{
    for (var u = tt; u < U; u = u + {t}u) {{
      {load}
      acc = acc + {term};
    }}
  }}"""
        dev = f"""for (var u = tt; u < U; u = u + {t}u) {{
      let q = ld({src}) - mu; dev = dev + hsum(q * q);
    }}"""
        write = f"""for (var u = tt; u < U; u = u + {t}u) {{
      Y[base + u] = st((ld({src}) - mu) * rstd{affine});
    }}"""
    center_part = _moments(a, dev, center)
    return f"""{_common(d, t)}
@group(0) @binding(1) var<storage, read> X: array<{s}>;
@group(0) @binding(2) var<storage, read> R: array<{s}>;
@group(0) @binding(3) var<storage, read> W: array<{s}>;
@group(0) @binding(4) var<storage, read> B: array<{s}>;
@group(0) @binding(5) var<storage, read_write> Y: array<{s}>;
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {{
  let row = (wg.x + wg.y * nw.x) * {WG // t}u + l / {t}u;
  let tt = l % {t}u;
  let live = row < p(0u);
  let U = p(1u);
  let n = {a}(p(2u));
  let base = row * U;
  var acc = {a}(0);
{gather}
  let total = rowsum(l, acc);
{center_part}
  let rstd = {a}(1) / sqrt(vr + eps());
  if (live) {{
    {write}
  }}
}}"""


def _bwd_source(d: str, t: int, k: int, center: bool, has_gs: bool, has_w: bool,
                want: bool) -> str:
    s, v, a, per = _TYPES[d]
    # params: 0 rows, 1 units per row, 2 n, 3-6 offsets of gy, s, gs, w (units),
    # 7 iterations of the persistent loop, 8-9 eps, 10 offset of the partials in the
    # output (storage elements); partial row q of dw at 10 + q * n, of db after all dw.
    wmul = " * ld(W[p(6u) + u])" if has_w else ""
    gs_add = " + ld(GS[p(5u) + base + u])" if has_gs else ""
    sq = "hsum(e)" if center else "hsum(e * e)"
    if per == 2:
        def part_wr(off: str, val: str) -> str:
            return (f"let pv_{off} = {val}; O[{off} + 2u * u] = sa(pv_{off}.x); "
                    f"O[{off} + 2u * u + 1u] = sa(pv_{off}.y);")
        def part_ld(off: str) -> str:
            return f"vec2<f32>(la(O[{off} + 2u * u]), la(O[{off} + 2u * u + 1u]))"
    else:
        def part_wr(off: str, val: str) -> str:
            return f"O[{off} + u] = sa({val});"
        def part_ld(off: str) -> str:
            return f"la(O[{off} + u])"
    del s
    if k:
        regs = f"""  var xs: array<{v}, {k}>;
  var gg: array<{v}, {k}>;
  var pw: array<{v}, {k}>;
  var pb: array<{v}, {k}>;
  for (var j = 0u; j < {k}u; j = j + 1u) {{ pw[j] = {v}(0); pb[j] = {v}(0); }}"""
        gather = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
      let u = tt + j * {t}u;
      if (live && u < U) {{
        let e = ld(S[p(4u) + base + u]);
        xs[j] = e;
        gg[j] = ld(GY[p(3u) + base + u]);
        acc = acc + {sq};
      }} else {{ xs[j] = {v}(0); gg[j] = {v}(0); }}
    }}"""
        dev = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
        if (tt + j * {t}u < U) {{ let q = xs[j] - mu; dev = dev + hsum(q * q); }}
      }}"""
        middle = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
        let u = tt + j * {t}u;
        if (u < U) {{
          let xh = (xs[j] - mu) * rstd;
          xs[j] = xh;
          pw[j] = pw[j] + gg[j] * xh;
          pb[j] = pb[j] + gg[j];
          let gw = gg[j]{wmul};
          gg[j] = gw;
          sg = sg + hsum(gw);
          sgx = sgx + hsum(gw * xh);
        }}
      }}"""
        write = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
        let u = tt + j * {t}u;
        if (u < U) {{ O[base + u] = st(rstd * (gg[j] - mg - xs[j] * mgx){gs_add}); }}
      }}"""
        flush = f"""  if (want && prow_live) {{
    for (var j = 0u; j < {k}u; j = j + 1u) {{
      let u = tt + j * {t}u;
      if (u < U) {{ {part_wr("pw0", "pw[j]")} {part_wr("pb0", "pb[j]")} }}
    }}
  }}""" if want else ""
        init = ""
    else:
        regs = ""
        gather = f"""if (live) {{
      for (var u = tt; u < U; u = u + {t}u) {{
        let e = ld(S[p(4u) + base + u]);
        acc = acc + {sq};
      }}
    }}"""
        dev = f"""for (var u = tt; u < U; u = u + {t}u) {{
        let q = ld(S[p(4u) + base + u]) - mu; dev = dev + hsum(q * q);
      }}"""
        acc_parts = f"""
          {part_wr("pw0", part_ld("pw0") + " + gy * xh")}
          {part_wr("pb0", part_ld("pb0") + " + gy")}""" if want else ""
        middle = f"""for (var u = tt; u < U; u = u + {t}u) {{
        let xh = (ld(S[p(4u) + base + u]) - mu) * rstd;
        let gy = ld(GY[p(3u) + base + u]);
        let gw = gy{wmul};
        sg = sg + hsum(gw);
        sgx = sgx + hsum(gw * xh);{acc_parts}
      }}"""
        write = f"""for (var u = tt; u < U; u = u + {t}u) {{
        let xh = (ld(S[p(4u) + base + u]) - mu) * rstd;
        let gw = ld(GY[p(3u) + base + u]){wmul};
        O[base + u] = st(rstd * (gw - mg - xh * mgx){gs_add});
      }}"""
        flush = ""
        init = f"""  if (want && prow_live) {{
    for (var u = tt; u < U; u = u + {t}u) {{
      {part_wr("pw0", f"{v}(0)")}
      {part_wr("pb0", f"{v}(0)")}
    }}
  }}""" if want else ""
    center_part = _moments(a, dev, center)
    return f"""{_common(d, t)}
@group(0) @binding(1) var<storage, read> GY: array<{_TYPES[d][0]}>;
@group(0) @binding(2) var<storage, read> S: array<{_TYPES[d][0]}>;
@group(0) @binding(3) var<storage, read> GS: array<{_TYPES[d][0]}>;
@group(0) @binding(4) var<storage, read> W: array<{_TYPES[d][0]}>;
@group(0) @binding(5) var<storage, read_write> O: array<{_TYPES[d][0]}>;
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {{
  let g = wg.x + wg.y * nw.x;
  let groups = nw.x * nw.y;
  let slot = l / {t}u;
  let tt = l % {t}u;
  let rows = p(0u);
  let U = p(1u);
  let n = {a}(p(2u));
  let want = {"true" if want else "false"};
  // this invocation's partial row: one per (workgroup, row slot)
  let prow = g * {WG // t}u + slot;
  let prow_live = g < groups;
  let pw0 = p(10u) + prow * U * {per}u;
  let pb0 = p(10u) + (groups * {WG // t}u + prow) * U * {per}u;
{regs}
{init}
  for (var it = 0u; it < p(7u); it = it + 1u) {{
    let row = (g + it * groups) * {WG // t}u + slot;
    let live = row < rows;
    let base = row * U;
    var acc = {a}(0);
    {gather}
    let total = rowsum(l, acc);
    {center_part}
    let rstd = {a}(1) / sqrt(vr + eps());
    var sg = {a}(0);
    var sgx = {a}(0);
    if (live) {{
      {middle}
    }}
    let sums = rowsum2(l, sg, sgx);
    let mg = {"sums.x / n" if center else a + "(0)"};
    let mgx = sums.y / n;
    if (live) {{
      {write}
    }}
  }}
{flush}
}}"""


def _reduce_source(d: str) -> str:
    """out[c] = sum over the partial rows q of part[q, c]; dw then db in one buffer."""
    s, v, a, per = _TYPES[d]
    if per == 2:
        total = ("let lo = vec2<f32>(la(I[off + 2u * c]), la(I[off + 2u * c + 1u]));")
    else:
        total = "let lo = la(I[off + c]);"
    return f"""{_conv(d)}
@group(0) @binding(1) var<storage, read> I: array<{s}>;
@group(0) @binding(2) var<storage, read_write> O: array<{s}>;
// params: 0 units per row, 1 partial rows, 2 offset of the partials, 3 which (0 dw, 1 db)
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
  let c = gid.x;
  let U = p(0u);
  if (c >= U) {{ return; }}
  let q = p(1u);
  var acc = {v}(0);
  for (var r = 0u; r < q; r = r + 1u) {{
    let off = p(2u) + (p(3u) * q + r) * U * {per}u;
    {total}
    acc = acc + lo;
  }}
  O[p(3u) * U + c] = st(acc);
}}"""


def _prep(a: Optional[GPUArray], per: int) -> Optional[GPUArray]:
    """Contiguous, and word-aligned for packed float16."""
    if a is None:
        return None
    if not a.contiguous or a.offset % per:
        return contiguous(a.rt, a)
    return a


def _units(off: int, per: int) -> int:
    return off // per


def _rows_of(a: GPUArray) -> Optional[tuple]:
    """(dtype name, elements per unit, shape, row width n, rows), or None for float16
    rows of odd width (two rows would share a word: the composite runs those)."""
    d = a.dtype.name
    per = _TYPES[d][3]
    n = a.shape[-1] if a.shape else 1
    if n % per:
        return None
    return d, per, a.shape, n, (a.size // n if n else 0)


def norm_forward(x, residual, weight, bias, eps: float, center: bool, want_sum: bool):
    """(y, s) as numr.nn._cpu.norm_forward on GPUArrays; None where the composite must
    run (float16 rows of odd width)."""
    if _V2:
        return _webgpu_v2.norm_forward(x, residual, weight, bias, eps, center, want_sum)
    form = _rows_of(x)
    if form is None:
        return None
    d, per, shape, n, rows = form
    rt = x.rt
    x, residual, weight, bias = (_prep(a, per) for a in (x, residual, weight, bias))
    has_r = residual is not None
    if has_r and 2 * x.size * x.dtype.itemsize > rt.max_buffer:
        # y and s do not fit one buffer: s first (one more read of it), then the norm
        from ..backends.webgpu.kernels.map import launch

        s = launch(rt, "add", "a + b", ((x, x.dtype), (residual, x.dtype)), x.dtype, shape)
        y, _ = norm_forward(s, None, weight, bias, eps, center, False)
        return y, (s if want_sum else None)
    total = x.size * (2 if has_r else 1)
    out = rt.alloc(total * x.dtype.itemsize)
    y = GPUArray(out, rt, shape, c_strides(shape), 0, x.dtype)
    s = GPUArray(out, rt, shape, c_strides(shape), x.size, x.dtype) if has_r else None
    if x.size == 0:
        return y, (s if want_sum else None)
    units = n // per
    t, k = plan(units, "fwd")
    key = ("nn_fwd", d, t, k, center, has_r, weight is not None, bias is not None)
    src = lambda: _fwd_source(d, t, k, center, has_r, weight is not None, bias is not None)  # noqa: E731
    ops = [x, residual or x, weight or x, bias or x]
    params = [rows, units, n] + [_units(a.offset, per) for a in ops] + \
        [_units(x.size, per)] + scalar_words(eps, x.dtype if d != "float16" else dt.float32)
    rt.dispatch(key, src, [a.storage.block for a in ops] + [out.block], params,
                -(-rows // (WG // t)))
    return y, (s if want_sum else None)


def norm_backward(grad_y, s, grad_s, weight, eps: float, center: bool, want_weight: bool,
                  want_bias: bool):
    """(grad_s_total, grad_weight, grad_bias) as numr.nn._cpu.norm_backward; None where
    the composite must run."""
    if _V2:
        return _webgpu_v2.norm_backward(grad_y, s, grad_s, weight, eps, center, want_weight,
                                        want_bias)
    form = _rows_of(s)
    if form is None:
        return None
    d, per, shape, n, rows = form
    rt = s.rt
    grad_y, s, grad_s, weight = (_prep(a, per) for a in (grad_y, s, grad_s, weight))
    want = want_weight or want_bias
    units = n // per
    t, k = plan(units, "bwd")
    rpg = WG // t
    groups = max(1, min(-(-rows // rpg), _BWD_GROUPS))
    prows = groups * rpg
    # the partials live after gx, in storage elements (f16: u32 words, one f32 each)
    gx_elems = s.size // per
    part_off = gx_elems
    part_elems = 2 * prows * n if want else 0
    item = 4 if d == "float16" else s.dtype.itemsize
    out = rt.alloc((gx_elems + part_elems) * item)
    gx = GPUArray(out, rt, shape, c_strides(shape), 0, s.dtype)
    if s.size == 0:
        zeros = _zeros(rt, n, s.dtype)
        return gx, (zeros if want_weight else None), (zeros if want_bias else None)
    iters = -(-(-(-rows // rpg)) // groups)
    key = ("nn_bwd", d, t, k, center, grad_s is not None, weight is not None, want)
    src = lambda: _bwd_source(d, t, k, center, grad_s is not None, weight is not None, want)  # noqa: E731
    ops = [grad_y, s, grad_s or grad_y, weight or s]
    params = [rows, units, n] + [_units(a.offset, per) for a in ops] + [iters] + \
        scalar_words(eps, s.dtype if d != "float16" else dt.float32) + \
        ([0] if d != "float64" else []) + [part_off]
    rt.dispatch(key, src, [a.storage.block for a in ops] + [out.block], params, groups)
    if not want:
        return gx, None, None
    red = rt.alloc(2 * n * s.dtype.itemsize)
    for which in (0, 1):
        if (want_weight, want_bias)[which]:
            rt.dispatch(("nn_red", d), lambda: _reduce_source(d), [out.block, red.block],
                        [units, prows, part_off, which], -(-units // 64))
    gw = GPUArray(red, rt, (n,), (1,), 0, s.dtype) if want_weight else None
    gb = GPUArray(red, rt, (n,), (1,), n, s.dtype) if want_bias else None
    return gx, gw, gb


def _zeros(rt: Any, n: int, dtype: Any) -> GPUArray:
    from ..backends.webgpu.kernels.map import launch

    return launch(rt, "fill", "a", ((0, dtype),), dtype, (n,))


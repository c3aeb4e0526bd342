"""The reduction template: one workgroup per output element.

Each of the 256 invocations folds a strided share of the reduced elements, then a tree
in workgroup memory combines the 256 partial results (pairwise summation, so float32
sums keep their digits). Reduced and kept axes are any subsets: both are decoded from
strides, so no transpose is materialised. Results are written in the unpacked compute
type (i32/u32/f32/...); numr's dtype is reached with a cast afterwards.
"""

from __future__ import annotations

import math
from typing import Any

from ...._dtypes import DType
from ..array import GPUArray, new
from . import expressions as wops
from .map import _collapse
from .types import LAYOUT, ctype, load_fn

# The unpacked dtype each dtype reduces into.
ACCUMULATOR = {"bool": "uint32", "int8": "int32", "int16": "int32", "uint8": "uint32",
               "uint16": "uint32", "float16": "float32"}

_COMBINE = {
    "sum": "x + y", "prod": "x * y",
    "max": {"f": "select(select(y, x, x >= y), x + y, isnan_T(x) || isnan_T(y))",
            "o": "max(x, y)"},
    "min": {"f": "select(select(y, x, x <= y), x + y, isnan_T(x) || isnan_T(y))",
            "o": "min(x, y)"},
}
_LIMITS = {"f32": ("bitcast<f32>(0xff800000u)", "bitcast<f32>(0x7f800000u)"),
           "f64": ("bitcast<f64>(0xfff0000000000000lu)", "bitcast<f64>(0x7ff0000000000000lu)"),
           "i32": ("i32(-2147483648)", "2147483647i"), "u32": ("0u", "0xffffffffu"),
           "i64": ("i64(-9223372036854775807li) - 1li", "9223372036854775807li"),
           "u64": ("0lu", "0xfffffffffffffffflu")}


def _identity(kind: str, ct: str) -> str:
    if kind == "sum":
        return f"{ct}(0)"
    if kind == "prod":
        return f"{ct}(1)"
    lo, hi = _LIMITS[ct]
    return lo if kind == "max" else hi


def source(kind: str, d: DType, acc: str, nk: int, nr: int) -> str:
    ct = ctype(d)
    comb = _COMBINE[kind]
    if isinstance(comb, dict):
        comb = comb["f" if ct[0] == "f" else "o"]
    comb = wops._specialise(comb, acc)
    conv = "v" if ct == acc else f"{acc}(v)"
    lines = ["@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 32>;",
             "fn p(k: u32) -> u32 { return P[k >> 2u][k & 3u]; }",
             f"@group(0) @binding(1) var<storage, read> x0: array<{LAYOUT[d.name][0]}>;",
             load_fn("ld", "x0", d),
             f"@group(0) @binding(2) var<storage, read_write> y: array<{acc}>;",
             f"var<workgroup> part: array<{acc}, 256>;",
             wops.helpers(comb, acc) if acc[0] == "f" else "",
             f"fn comb(x: {acc}, y: {acc}) -> {acc} {{ return {comb}; }}"]
    # params: nout, R, offset, kept shape (nk), kept strides (nk), red shape (nr), red strides
    def decode(var: str, base_shape: int, base_stride: int, n: int) -> str:
        if n == 0:
            return "0"
        out = [f"var r{var} = {var};", f"var e{var} = 0;"]
        for k in range(n - 1, -1, -1):
            out.append(f"e{var} = e{var} + i32(r{var} % p({base_shape + k}u)) * "
                       f"bitcast<i32>(p({base_stride + k}u)); r{var} = r{var} / "
                       f"p({base_shape + k}u);")
        return "\n    ".join(out)
    ks, kst = 3, 3 + nk
    rs, rst = 3 + 2 * nk, 3 + 2 * nk + nr
    kept = decode("o", ks, kst, nk)
    red = decode("j", rs, rst, nr)
    lines.append(f"""@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32,
        @builtin(num_workgroups) nw: vec3<u32>) {{
  let o = wg.x + wg.y * nw.x;
  let nout = p(0u);
  let R = p(1u);
  var acc = {_identity(kind, acc)};
  if (o < nout) {{
    {kept if nk else "let eo = 0;"}
    let base = bitcast<i32>(p(2u)) + eo;
    for (var j = l; j < R; j = j + 256u) {{
      {red if nr else "let ej = 0;"}
      let v = {('ld(u32(base + ej))' if d.name != 'bool' else 'select(0u, 1u, ld(u32(base + ej)))')};
      acc = comb(acc, {conv});
    }}
  }}
  part[l] = acc;
  workgroupBarrier();
  for (var s = 128u; s > 0u; s = s >> 1u) {{
    if (l < s) {{ part[l] = comb(part[l], part[l + s]); }}
    workgroupBarrier();
  }}
  if (l == 0u && o < nout) {{ y[o] = part[0]; }}
}}""")
    return "\n".join(lines)


def launch(rt: Any, kind: str, x: GPUArray, axes: tuple) -> GPUArray:
    """Reduce ``x`` over ``axes`` with ``kind`` (sum, prod, max, min); the result has
    the kept axes' shape and x's accumulator dtype (see ACCUMULATOR)."""
    from ...._dtypes import BY_NAME

    d = x.dtype
    acc_dtype = BY_NAME[ACCUMULATOR.get(d.name, d.name)]
    acc = ctype(acc_dtype)
    kept_axes = [k for k in range(x.ndim) if k not in axes]
    out_shape = tuple(x.shape[k] for k in kept_axes)
    result = new(rt, out_shape, acc_dtype)
    nout = result.size
    if nout == 0:
        return result
    kshape, (kstrides,) = _collapse(out_shape, [tuple(x.strides[k] for k in kept_axes)])
    rshape0 = tuple(x.shape[k] for k in axes)
    rshape, (rstrides,) = _collapse(rshape0, [tuple(x.strides[k] for k in axes)])
    R = math.prod(rshape0)
    nk, nr = len(kshape), len(rshape)
    params = [nout, R, x.offset & 0xFFFFFFFF, *kshape, *[s & 0xFFFFFFFF for s in kstrides],
              *rshape, *[s & 0xFFFFFFFF for s in rstrides]]
    key = ("reduce", kind, d.name, nk, nr)
    rt.dispatch(key, lambda: source(kind, d, acc, nk, nr),
                [x.storage.block, result.storage.block], params, nout)
    return result

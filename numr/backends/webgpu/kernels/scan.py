"""Inclusive scans (running sums and products) along one axis, for any row length and
any number of rows.

The input is read in place (strided; the other axes are decoded from strides) and
converted to the accumulation dtype as it is loaded; the result is written as
(rows, L + include_initial), rows in the row-major order of the other axes, either
row-major or (for columns, below) transposed, and returned as a view in x's axis order.

* Short rows (at most ``SHORT`` elements), and many rows that are columns (neighbouring
  rows start at neighbouring elements, as along axis 0 of a C-contiguous array): one
  invocation per row runs along it, so neighbouring invocations load neighbouring
  elements.
* Longer rows: blocks of ``T * PER`` elements, one team of ``T`` invocations each (a
  power of two covering the row, at most 256; a workgroup holds 256 / T teams, so rows
  of a few hundred elements do not idle most of it). Every invocation scans ``PER``
  consecutive elements in registers, the team scans its invocation totals
  (Hillis-Steele, in workgroup memory), and each block writes its elements and its
  total. When a row has several blocks, the block totals (rows, blocks) are scanned
  the same way (recursively) and a third kernel combines each block with the inclusive
  total of the blocks before it.

The block totals live in the same buffer after the result (a dispatch binds one
writable buffer), so a scan allocates once per level.
"""

from __future__ import annotations

import math
from typing import Any

from ...._dtypes import DType
from ..array import GPUArray, c_strides
from .argreduce import decode
from .map import _collapse
from .template import HEADER, WG, block_scan, flat_main
from .types import LAYOUT, bf16_round, convert, ctype, load_fn

PER = 8                    # elements per invocation in a block
BLOCK = WG * PER           # elements per workgroup
SHORT = 64                 # rows this short are scanned by one invocation each

_COMPLEX_MUL = "vec2<F>(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x)"


def ops(kind: str, acc: DType) -> tuple[str, str]:
    """(WGSL of comb(x, y), identity) for ``kind`` (sum or prod) in ``acc``'s type."""
    ct = ctype(acc)
    if ct.startswith("vec2"):
        f = ct[5:-1]
        if kind == "sum":
            return "x + y", f"{ct}(0.0)"
        return _COMPLEX_MUL.replace("F", f), f"{ct}(1.0, 0.0)"
    return ("x + y" if kind == "sum" else "x * y"), f"{ct}({0 if kind == 'sum' else 1})"


def load_as(src: DType, dst: DType, v: str) -> str:
    """WGSL converting a loaded ``src`` value ``v`` to ``dst``'s compute type, as
    NumPy's astype to ``dst`` would (float16 targets round the value to half first)."""
    cs, cd = ctype(src), ctype(dst)
    if dst.kind == "complex":
        f = cd[5:-1]
        if src.kind == "complex":
            return v if cs == cd else f"{cd}({v})"
        real = "f64" if f == "f64" else "f32"
        return f"{cd}({convert(src, _float(real), v)}, {f}(0.0))"
    out = convert(src, dst, v)
    if dst.name == "float16" and src.name != "float16":
        out = f"unpack2x16float(pack2x16float(vec2<f32>({out}, 0.0))).x"
    if dst.name == "bfloat16" and src.name != "bfloat16":
        out = bf16_round(out)
    return out


def _float(ct: str) -> DType:
    from ...._dtypes import BY_NAME

    return BY_NAME["float64" if ct == "f64" else "float32"]


def _head(src: DType, acc: DType, dst: DType, kind: str) -> list[str]:
    comb, ident = ops(kind, dst)
    at = ctype(acc)
    return [HEADER,
            f"@group(0) @binding(1) var<storage, read> x0: array<{LAYOUT[src.name][0]}>;",
            load_fn("ld", "x0", src),
            f"@group(0) @binding(2) var<storage, read_write> y: array<{at}>;",
            f"fn comb(x: {at}, y: {at}) -> {at} {{ return {comb}; }}",
            f"fn fetch(e: u32) -> {at} {{ return {load_as(src, dst, 'ld(e)')}; }}",
            f"const ID = {ident};"]


# Parameters of the row kernels: rows, L, Lout, include_initial, offset, axis stride,
# other-axes shape and strides (no), the result's row and position strides (RS, KS),
# then (block kernel) the blocks per row. Element k of a row's result is at
# row * RS + k * KS: (RS, KS) = (Lout, 1) is row-major, (1, rows) keeps columns
# neighbours in memory.

def short_source(src: DType, acc: DType, dst: DType, kind: str, no: int) -> str:
    lines = _head(src, acc, dst, kind)
    lines.append(flat_main(f"""  let L = p(1u);
  let Lout = p(2u);
  let inc = p(3u);
  let s = bitcast<i32>(p(5u));
  {decode("row", 6, no)}
  let base = bitcast<i32>(p(4u)) + erow;
  let RS = p({6 + 2 * no}u);
  let KS = p({7 + 2 * no}u);
  let out = row * RS;
  if (inc == 1u) {{ y[out] = ID; }}
  var a = ID;
  for (var k = 0u; k < L; k = k + 1u) {{
    a = comb(a, fetch(u32(base + i32(k) * s)));
    y[out + (inc + k) * KS] = a;
  }}""", "row"))
    return "\n".join(lines)


def block_source(src: DType, acc: DType, dst: DType, kind: str, no: int, T: int) -> str:
    at = ctype(acc)
    lines = _head(src, acc, dst, kind)
    nb_at = 8 + 2 * no
    lines.append(f"""{block_scan("team_scan", "sh", at, T, "comb({a}, {b})")}
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32,
        @builtin(num_workgroups) nw: vec3<u32>) {{
  let w = (wg.x + wg.y * nw.x) * {WG // T}u + l / {T}u;
  let q = l % {T}u;
  let nb = p({nb_at}u);
  let row = w / nb;
  let b = w % nb;
  let live = row < p(0u);
  let L = p(1u);
  let Lout = p(2u);
  let inc = p(3u);
  let s = bitcast<i32>(p(5u));
  {decode("row", 6, no)}
  let base = bitcast<i32>(p(4u)) + erow;
  let k0 = b * {T * PER}u + q * {PER}u;
  var loc: array<{at}, {PER}>;
  var a = ID;
  for (var j = 0u; j < {PER}u; j = j + 1u) {{
    let k = k0 + j;
    if (live && k < L) {{ a = comb(a, fetch(u32(base + i32(k) * s))); }}
    loc[j] = a;
  }}
  // sh[l] becomes the total of the team's lanes 0..q
  sh[l] = a;
  team_scan(l, q);
  if (!live) {{ return; }}
  var before = ID;
  if (q > 0u) {{ before = sh[l - 1u]; }}
  let RS = p({6 + 2 * no}u);
  let KS = p({7 + 2 * no}u);
  let out = row * RS;
  for (var j = 0u; j < {PER}u; j = j + 1u) {{
    let k = k0 + j;
    if (k < L) {{ y[out + (inc + k) * KS] = comb(before, loc[j]); }}
  }}
  if (inc == 1u && b == 0u && q == 0u) {{ y[out] = ID; }}
  // The block total, after the rows' results (read by the scan of the totals).
  if (nb > 1u && q == {T - 1}u) {{ y[p(0u) * Lout + w] = sh[l]; }}
}}""")
    return "\n".join(lines)


def carry_source(acc: DType, kind: str) -> str:
    at = ctype(acc)
    comb, _ = ops(kind, acc)
    # params: n (elements after the first block of every row), L - BLOCK, RS, KS, inc,
    # then the scanned totals' offset, row stride and block stride
    body = f"""  let rest = p(1u);
  let row = i / rest;
  let k = {BLOCK}u + i % rest;
  let e = row * p(2u) + (p(4u) + k) * p(3u);
  y[e] = comb(t[p(5u) + row * p(6u) + (k / {BLOCK}u - 1u) * p(7u)], y[e]);"""
    return f"""{HEADER}
@group(0) @binding(1) var<storage, read> t: array<{at}>;
@group(0) @binding(2) var<storage, read_write> y: array<{at}>;
fn comb(x: {at}, y: {at}) -> {at} {{ return {comb}; }}
{flat_main(body, "i")}"""


def launch(rt: Any, kind: str, x: GPUArray, axis: int, dst: DType, acc: DType,
           include_initial: bool) -> GPUArray:
    """The inclusive ``kind`` scan (sum or prod) of ``x`` along ``axis`` computed as
    dtype ``dst`` (values are converted as astype would) in the unpacked dtype ``acc``:
    an array of dtype ``acc`` shaped like ``x`` with ``L + include_initial`` elements
    along ``axis`` (a view of a fresh buffer, not necessarily C-contiguous)."""
    inc = 1 if include_initial else 0
    L = x.shape[axis]
    Lout = L + inc
    others = [k for k in range(x.ndim) if k != axis]
    oshape, (ostrides,) = _collapse(tuple(x.shape[k] for k in others),
                                    [tuple(x.strides[k] for k in others)])
    rows = math.prod(x.shape[k] for k in others)
    columns = bool(oshape) and abs(ostrides[-1]) == 1 and rows >= 8192
    sequential = L <= SHORT or columns
    nb = 1 if sequential else -(-L // BLOCK)
    RS, KS = (1, rows) if columns else (Lout, 1)
    storage = rt.alloc((rows * Lout + (rows * nb if nb > 1 else 0)) * acc.itemsize)
    # the result: the other axes row-major with stride RS between rows, axis stride KS
    strides = [RS * st for st in c_strides(tuple(x.shape[k] for k in others))]
    strides.insert(axis, KS)
    shape = x.shape[:axis] + (Lout,) + x.shape[axis + 1:]
    result = GPUArray(storage, rt, shape, tuple(strides), 0, acc)
    if rows * Lout == 0:
        return result
    no = len(oshape)
    params = [rows, L, Lout, inc, x.offset & 0xFFFFFFFF, x.strides[axis] & 0xFFFFFFFF,
              *oshape, *[s & 0xFFFFFFFF for s in ostrides], RS, KS]
    sig = (x.dtype.name, acc.name, dst.name, kind, no)
    if sequential:
        rt.dispatch(("scan-short",) + sig,
                    lambda: short_source(x.dtype, acc, dst, kind, no),
                    [x.storage.block, storage.block], params, -(-rows // WG))
        return result
    T = min(WG, 1 << (-(-L // PER) - 1).bit_length())
    rt.dispatch(("scan-block", T) + sig,
                lambda: block_source(x.dtype, acc, dst, kind, no, T),
                [x.storage.block, storage.block], params + [nb], -(-rows * nb // (WG // T)))
    if nb > 1:
        totals = GPUArray(storage, rt, (rows, nb), (nb, 1), rows * Lout, acc)
        t = launch(rt, kind, totals, 1, acc, acc, False)
        rest = L - BLOCK
        rt.dispatch(("scan-carry", acc.name, kind), lambda: carry_source(acc, kind),
                    [t.storage.block, storage.block],
                    [rows * rest, rest, RS, KS, inc, t.offset, *t.strides],
                    -(-rows * rest // WG))
    return result

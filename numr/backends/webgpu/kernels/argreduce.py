"""Index reductions (argmax, argmin): a team of ``T`` invocations per output element.

Like :mod:`.reduce`, each invocation of a team folds a strided share of the reduced
elements and a tree in workgroup memory combines the team's partial results, but a
partial result is a (value, index) pair. The index is the linear (row-major) position
in the reduced axes, which for "every axis" is the flat index NumPy returns. Ties keep
the smaller index, and a NaN beats every number (the first NaN wins), as in NumPy.

``T`` (:func:`team`) is a power of two, about R / 16 and at most 256, so a workgroup
of 256 serves 256 / T outputs: short reductions (argmax over 10 classes of many rows)
do not idle 250 invocations. Few outputs of many elements spread over several
workgroups each (:func:`chunks`) and a second dispatch merges the chunk winners.

:func:`layout` (kept and reduced axes decoded from strides, so no transpose is
materialised) is shared with :mod:`.moments`.
"""

from __future__ import annotations

from typing import Any

from ...._dtypes import DType
from ..array import GPUArray, new
from .types import LAYOUT, ctype, load_fn

WG = 256
HEADER = ("@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 32>;\n"
          "fn p(k: u32) -> u32 { return P[k >> 2u][k & 3u]; }")


def layout(x: GPUArray, axes: tuple) -> tuple:
    """(kept shape, R, nk, nr, parameter words, columns) for reducing ``x`` over
    ``axes``.

    The words are: offset, kept shape, kept strides, reduced shape, reduced strides
    (after dropping length-1 dimensions and merging evenly strided neighbours, which
    keeps the row-major order of both index spaces). ``columns``: neighbouring outputs
    read neighbouring elements (the last kept stride is +-1), as in a reduction over
    the leading axis of a C-contiguous array."""
    from .reduce import _words  # one decoding of reduction layouts for every template

    out_shape, R, kshape, kstrides, rshape, _, words = _words(x, axes)
    columns = bool(kstrides) and abs(kstrides[-1]) == 1
    return out_shape, R, len(kshape), len(rshape), words, columns


def team(R: int, nout: int = 1, columns: bool = False) -> int:
    """Invocations per output for reductions of length ``R``: a power of two, at most
    WG, with about 16 elements per invocation (one invocation runs a short reduction
    alone: workgroup barriers cost more than the few loads they would share). Many
    outputs that are columns (see :func:`layout`) get one invocation each too, so that
    neighbouring invocations read neighbouring elements (coalesced loads) rather than
    a team striding down one column."""
    if columns and nout >= 8192:
        return 1
    return min(WG, 1 << max(-(-R // 16) - 1, 0).bit_length())


def chunks(nout: int, R: int) -> int:
    """How many workgroups share each output: 1, unless few outputs reduce many
    elements (var(x), argmax(x)), which then spread over chunks of >= 4096 elements
    and are combined by a second, small dispatch."""
    if nout > 64 or R < 16384:
        return 1
    return min(WG, -(-R // 4096))


def team_lines(T: int) -> str:
    """WGSL of the team prologue: output ``o``, lane ``q`` and slot base ``s0``."""
    return (f"let o = (wg.x + wg.y * nw.x) * {WG // T}u + l / {T}u;\n"
            f"  let q = l % {T}u;\n  let s0 = l - q;")


def decode(var: str, shape_at: int, n: int) -> str:
    """WGSL setting ``e{var}`` (i32) to the element offset of linear index ``var`` in a
    strided space of ``n`` dimensions whose lengths are parameters ``shape_at..`` and
    whose strides follow them."""
    if n == 0:
        return f"let e{var} = 0;"
    out = [f"var r{var} = {var};", f"var e{var} = 0;"]
    for k in range(n - 1, -1, -1):
        out.append(f"e{var} = e{var} + i32(r{var} % p({shape_at + k}u)) * "
                   f"bitcast<i32>(p({shape_at + n + k}u)); r{var} = r{var} / "
                   f"p({shape_at + k}u);")
    return "\n    ".join(out)


def isnan(ct: str, v: str) -> str:
    """WGSL testing float ``v`` for NaN through its bits (immune to fast-math folding)."""
    if ct == "f64":
        return f"((bitcast<u64>({v}) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)"
    return f"((bitcast<u32>({v}) & 0x7fffffffu) > 0x7f800000u)"


def source(kind: str, d: DType, out: str, nk: int, nr: int, T: int, merge: bool) -> str:
    """WGSL of one stage. Parameters: nout, R, layout words (see :func:`layout`), then
    C (chunks per output) and the chunk length. Without ``merge``, virtual output ``o``
    is chunk ``o % C`` of output ``o / C`` and the best reduced index of that chunk is
    written (as ``out``: u32 for a first stage, the index dtype when C is 1). With
    ``merge``, output ``o`` compares the C chunk winners ``s[o * C ..]``, loading their
    values from ``x`` again."""
    ct = ctype(d)
    vt = "u32" if ct == "bool" else ct  # bools compare as 0/1
    load = "select(0u, 1u, ld(e))" if ct == "bool" else "ld(e)"
    cmp = ">" if kind == "argmax" else "<"
    nan = ""
    if ct[0] == "f":
        nan = (f"  let an = {isnan(vt, 'av')}; let bn = {isnan(vt, 'bv')};\n"
               "  if (an || bn) { return select(bn, bi < ai, an && bn); }\n")
    ks = 3
    rs = 3 + 2 * nk
    pc = 3 + 2 * nk + 2 * nr
    if merge:
        bind = ("@group(0) @binding(2) var<storage, read> sc: array<u32>;\n"
                "@group(0) @binding(3)")
        loop = (f"for (var i = q; i < C; i = i + {T}u) {{\n      let j = sc[o * C + i];")
    else:
        bind = "@group(0) @binding(2)"
        loop = (f"let j0 = c * chunk;\n    let j1 = min(R, j0 + chunk);\n"
                f"    for (var j = j0 + q; j < j1; j = j + {T}u) {{")
    return f"""{HEADER}
@group(0) @binding(1) var<storage, read> x0: array<{LAYOUT[d.name][0]}>;
{load_fn("ld", "x0", d)}
{bind} var<storage, read_write> y: array<{out}>;
var<workgroup> pv: array<{vt}, {WG}>;
var<workgroup> pi: array<u32, {WG}>;
const NONE = 0xffffffffu;
// Whether (bv, bi) beats (av, ai): the {kind[3:]}imum, a NaN first, then the first index.
fn beats(av: {vt}, ai: u32, bv: {vt}, bi: u32) -> bool {{
  if (bi == NONE) {{ return false; }}
  if (ai == NONE) {{ return true; }}
{nan}  if (bv {cmp} av) {{ return true; }}
  return bv == av && bi < ai;
}}
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32,
        @builtin(num_workgroups) nw: vec3<u32>) {{
  {team_lines(T)}
  let nout = p(0u);
  let R = p(1u);
  let C = p({pc}u);
  let chunk = p({pc + 1}u);
  let oo = {"o" if merge else "o / C"};
  let c = o % C;
  var bv = {vt}(0);
  var bi = NONE;
  if (o < nout) {{
    {decode("oo", ks, nk)}
    let base = bitcast<i32>(p(2u)) + eoo;
    {loop}
      {decode("j", rs, nr)}
      let e = u32(base + ej);
      let v = {load};
      if (beats(bv, bi, v, j)) {{ bv = v; bi = j; }}
    }}
  }}
  pv[l] = bv;
  pi[l] = bi;
  workgroupBarrier();
  for (var s = {T // 2}u; s > 0u; s = s >> 1u) {{
    if (q < s && beats(pv[l], pi[l], pv[l + s], pi[l + s])) {{
      pv[l] = pv[l + s];
      pi[l] = pi[l + s];
    }}
    workgroupBarrier();
  }}
  if (q == 0u && o < nout) {{ y[o] = {out}(pi[l]); }}
}}"""


def launch(rt: Any, kind: str, x: GPUArray, axes: tuple, index: DType) -> GPUArray:
    """``kind`` (argmax or argmin) of ``x`` over ``axes`` (none of them empty): an
    array of the kept axes' shape and dtype ``index`` (int32 or int64)."""
    out_shape, R, nk, nr, words, columns = layout(x, axes)
    result = new(rt, out_shape, index)
    nout = result.size
    if nout == 0:
        return result
    idx = ctype(index)
    C = chunks(nout, R)
    chunk = -(-R // C)
    params = [nout * C, R, *words, C, chunk]
    name = x.dtype.name
    if C == 1:
        T = team(R, nout, columns)
        rt.dispatch(("argreduce", kind, name, idx, nk, nr, T, False),
                    lambda: source(kind, x.dtype, idx, nk, nr, T, False),
                    [x.storage.block, result.storage.block], params, -(-nout // (WG // T)))
        return result
    part = rt.alloc(nout * C * 4)
    rt.dispatch(("argreduce", kind, name, "u32", nk, nr, WG, False),
                lambda: source(kind, x.dtype, "u32", nk, nr, WG, False),
                [x.storage.block, part.block], params, nout * C)
    T = team(C * 16)  # the merge compares C values: a team of about C invocations
    params[0] = nout
    rt.dispatch(("argreduce", kind, name, idx, nk, nr, T, True),
                lambda: source(kind, x.dtype, idx, nk, nr, T, True),
                [x.storage.block, part.block, result.storage.block], params,
                -(-nout // (WG // T)))
    return result

"""The reduction template (sum, prod, max, min; any/all are max/min of bools): a team
of ``T`` invocations per output element, sized to the reduced length.

Each invocation of a team folds a strided share of the reduced elements into
:func:`unroll` independent accumulators (8 loads in flight per iteration, so a large
GPU's memory stays busy; float sums with Kahan compensation in each, so a long share
keeps its digits), combines them pairwise, then a tree in workgroup memory combines the
team's partial results (pairwise). Where a team is the whole workgroup and the adapter
has subgroups (:func:`subgroups`), a shuffle tree in each subgroup and one slot per
subgroup replace that tree (one barrier instead of eight). Contiguous 32-bit rows
(full reductions, sums over the last axis) are read as vec4 words where the offset is
a multiple of 4 (:func:`vectorizable`; 2 words, 8 accumulators an iteration). Reduced and kept axes are any subsets:
both are decoded from strides, so no transpose is materialised. Results are written in
the unpacked compute type (i32/u32/f32/...); numr's dtype is reached with a cast
afterwards.

How the invocations of a 256-invocation workgroup are laid out depends on the memory
layout (:func:`plan`), so that neighbouring invocations read neighbouring elements:

- ``rows`` (the reduced axes are innermost, or no better choice): the ``T`` lanes of a
  team are neighbours and lane ``q`` reads elements ``q, q + T, ...``; a workgroup serves
  ``256 / T`` outputs, so short reductions (max over 10 columns of many rows) do not idle
  most of a workgroup, and a reduction of up to 32 elements needs no workgroup memory or
  barrier at all (``T`` = 1).
- ``columns`` (the innermost kept axis has stride +-1, e.g. ``sum(x, axis=0)`` of a
  C-contiguous matrix): the ``G`` outputs of a workgroup are neighbours and their lanes
  lie ``G`` apart, so the ``G`` invocations of one lane read ``G`` neighbouring elements
  of one row; with ``G`` = 256 every invocation walks its own column. Long columns of
  few outputs take teams of up to 8 lanes 32 outputs apart instead (see :func:`plan`).

Few workgroups of long reductions (a full reduction, a sum over the rows of a short wide
matrix) would leave a GPU's cores idle: then each output is split into ``C`` chunks, a
first dispatch writes the chunk results as a (C, nout) array and a second one reduces
that over its first axis with this same template (so chunk sums are combined with the
same compensated sums and trees). Complex arrays take sum and prod (vec2 values).

Note: lavapipe's compiler simplifies ``((a + t) - a) - t`` to 0, so the Kahan step passes
its sum through ``fence`` (see :func:`_kahan_fns`); without it the compensation vanished
and a float32 column of 20000 elements summed left to right was 1e-5 off.
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

from .... import _config
from ...._dtypes import BY_NAME, DType
from ..array import GPUArray, c_strides, new
from ..runtime import packer
from . import expressions as wops
from .map import _collapse, scalar_words
from .template import HEADER, WG
from .types import LAYOUT, ctype, load_fn

_new = object.__new__

# Workgroups a dispatch should have before long reductions are split into chunks: all
# a large GPU holds at once (an H200 has 132 SMs, each holding 8 such workgroups).
TARGET = 1024
# Elements per invocation a team is sized for (rows), and the fewest one invocation
# reads in a chunk of a split reduction (several unrolled iterations: see unroll).
# 32 rather than 16: rows of 4096 float32 (4096 of them) then take teams of 128, two
# rows a workgroup, and the H200 took 21.5 µs for sum(axis=1) (23.3 with 16), 20.9 for
# max (23.6), 26.9 for argmax (33.6); 64 gave 21.8, 19.7, 26.3 but a full sum 27.1
# (25.9; 26.3 with 32), its merge of 1024 chunks then a team of 16 (2026-12-02).
PER_INVOCATION = 32
SPLIT_PER = 64
MAX_CHUNKS = 1024   # most chunks per output (TARGET keeps it far lower)
# Most loop iterations of one invocation (see plan); a merge reads <= MAX_CHUNKS.
MAX_ITERATIONS = 32768

# The unpacked dtype each dtype reduces into.
ACCUMULATOR = {"bool": "uint32", "int8": "int32", "int16": "int32", "uint8": "uint32",
               "uint16": "uint32", "float16": "float32",
               "bfloat16": "float32"}

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
# Exponent bits of a float compute type: all set means inf or NaN.
_EXPO = {"f32": ("u32", "0x7f800000u"), "f64": ("u64", "0x7ff0000000000000lu")}


def _identity(kind: str, ct: str) -> str:
    if kind == "sum":
        return f"{ct}(0)"
    if kind == "prod":
        return f"{ct}(1.0, 0.0)" if ct.startswith("vec2") else f"{ct}(1)"
    lo, hi = _LIMITS[ct]
    return lo if kind == "max" else hi


def _combine(kind: str, acc: str) -> tuple[str, str]:
    """(WGSL expression of x and y combining two partial results, helper functions)."""
    if acc.startswith("vec2"):  # complex: sum, or prod (a complex multiplication)
        if kind == "sum":
            return "x + y", ""
        from . import complex_expr as cx
        rt = acc[5:8]
        expr = f"cmul_{cx._suffix(rt)}(x, y)"
        return expr, cx.helpers(expr, rt)
    comb = _COMBINE[kind]
    if isinstance(comb, dict):
        comb = comb["f" if acc[0] == "f" else "o"]
    comb = wops._specialise(comb, acc)
    return comb, (wops.helpers(comb, acc) if acc[0] == "f" else "")


def _decode(var: str, shape_at: int, n: int) -> str:
    """WGSL setting ``e{var}`` (i32) to the element offset of linear index ``var`` in a
    strided space of ``n`` dimensions, lengths at parameters ``shape_at..`` and strides
    after them. The outermost coordinate needs no modulo (the index is in range), so a
    single dimension is one multiplication."""
    if n == 0:
        return f"let e{var} = 0;"
    out = [f"var r{var} = {var};", f"var e{var} = 0;"]
    for k in range(n - 1, 0, -1):
        out.append(f"e{var} = e{var} + i32(r{var} % p({shape_at + k}u)) * "
                   f"bitcast<i32>(p({shape_at + n + k}u)); r{var} = r{var} / "
                   f"p({shape_at + k}u);")
    out.append(f"e{var} = e{var} + i32(r{var}) * bitcast<i32>(p({shape_at + n}u));")
    return "\n      ".join(out)


def _kahan_fns(acc: str) -> str:
    """WGSL helpers of a Kahan step. ``fence(v)`` is ``v`` in a form no compiler sees
    through (it flips one NaN payload into another): lavapipe simplifies
    ``((a + t) - a) - t`` to 0, which would drop the compensation. ``kfix(u, d)`` is the
    compensation ``d`` of a step whose new sum is ``u``, or zero once ``u`` is inf or
    NaN (else inf - inf would turn an overflowing sum into NaN); both test bits, which
    fast-math folding does not touch."""
    vec = acc.startswith("vec2")
    rt = acc[5:8] if vec else acc
    ut, ex = _EXPO[rt]
    bits = f"vec2<{ut}>" if vec else ut
    nan = {"u32": "0x7fa00003u", "u64": "0x7ff4000000000003lu"}[ut]
    return (f"fn fence(v: {acc}) -> {acc} {{\n  let u = bitcast<{bits}>(v);\n"
            f"  return bitcast<{acc}>(u ^ {bits}(u == {bits}({nan})));\n}}\n"
            f"fn kfix(u: {acc}, d: {acc}) -> {acc} {{\n  return select(d, {acc}(0.0), "
            f"(bitcast<{bits}>(u) & {bits}({ex})) == {bits}({ex}));\n}}")


def subgroups(rt: Any) -> bool:
    """Whether reductions combine a workgroup's results with subgroup shuffles: the
    adapter has wgpu's "subgroup" feature, its subgroups have at least 4 invocations (a
    workgroup keeps WG / 4 slots) and NUMR_WEBGPU_SUBGROUPS is not 0 (numr/_config.py;
    the tests run both paths). Note: wgpu-py 0.32 spells the adapter info key
    "stackgroup_min_size"."""
    if "subgroup" not in rt.features or not _config.webgpu_subgroups():
        return False
    info = rt.adapter.info
    low = info.get("subgroup_min_size", info.get("stackgroup_min_size", 4))
    return not isinstance(low, int) or low == 0 or low >= 4


# Accumulators subgroup shuffles carry (WGSL has no 64-bit shuffles).
SHUFFLED = ("f32", "i32", "u32", "vec2<f32>")


def unroll(acc: str) -> int:
    """Independent loads (and accumulators) per loop iteration of one invocation: enough
    bytes in flight per invocation that a large GPU's memory stays busy (one dependent
    load at a time left an H200 at a fifth of its bandwidth)."""
    return 4 if ("64" in acc or acc.startswith("vec2")) else 8


def _loads(rs: int, nr: int, T: int) -> tuple[str, Any, str]:
    """WGSL (set-up, a function of ``u`` giving the statements that set ``e{u}`` to the
    offset of reduced index ``j + u T``, the advance of one step of T) of lane ``q``'s
    walk over reduced indices ``j0 + q, j0 + q + T, ... < j1``. One reduced dimension
    (or none) steps the address; more are decoded from the index each time."""
    if nr > 1:
        return "", (lambda u: f"let ju{u} = j + {u * T}u;\n      "
                    f"{_decode(f'ju{u}', rs, nr)}\n      let e{u} = u32(base + eju{u});"), ""
    stride = f"bitcast<i32>(p({rs + 1}u))" if nr else "0"
    setup = (f"let rstride = {stride};\n    let jump = {T} * rstride;\n"
             f"    var ej = base + i32(j0 + q) * rstride;")
    return setup, (lambda u: f"let e{u} = u32(ej + {u} * jump);"), "ej = ej + jump;"


def walk(rs: int, nr: int, T: int, U: int, unrolled: str, single: str) -> str:
    """WGSL of lane ``q``'s walk over reduced indices ``j0 + q, j0 + q + T, ... < j1``
    (the one walk of reduce, argreduce and moments): while ``U`` of them lie below j1,
    ``unrolled`` with the offsets ``e0 .. e{U-1}`` of indices ``j + u T`` set (``U``
    loads in flight an iteration), then ``single`` for one index ``j`` at ``e0``."""
    setup, offset, advance = _loads(rs, nr, T)
    offs = "\n      ".join(offset(u) for u in range(U))
    return f"""{setup}
    var j = j0 + q;
    loop {{
      if (j >= j1 || j1 - j <= {(U - 1) * T}u) {{ break; }}
      {offs}
      {unrolled}
      j = j + {U * T}u;
      {"ej = ej + " + str(U) + " * jump;" if nr <= 1 else ""}
    }}
    for (; j < j1; j = j + {T}u) {{
      {offset(0)}
      {single}
      {advance}
    }}"""


def _tree(acc: str, T: int, step: int, shuffle: bool) -> tuple[str, str]:
    """(workgroup declarations, WGSL combining the teams' ``acc`` values and writing
    ``y[o]`` from each team's first lane). ``shuffle`` (a team is the workgroup):
    a shuffle tree in each subgroup, one slot per subgroup, one barrier."""
    if T == 1:  # a team of one: no workgroup memory, no barrier
        return "", "if (o < V) { y[o] = fin(acc); }"
    if shuffle:
        return (f"var<workgroup> part: array<{acc}, {WG // 4}>;", f"""var r = acc;
  for (var s = sgs >> 1u; s > 0u; s = s >> 1u) {{
    let w = subgroupShuffleDown(r, s);
    if (sgi + s < sgs) {{ r = comb(r, w); }}
  }}
  if (sgi == 0u) {{ part[sid] = r; }}
  workgroupBarrier();
  if (l == 0u && o < V) {{  // pairwise over the slots
    for (var h = 1u; h < nsg; h = h << 1u) {{
      for (var k = 0u; k + h < nsg; k = k + 2u * h) {{ part[k] = comb(part[k], part[k + h]); }}
    }}
    y[o] = fin(part[0]);
  }}""")
    return (f"var<workgroup> part: array<{acc}, {WG}>;", f"""part[l] = acc;
  workgroupBarrier();
  for (var s = {T // 2}u; s > 0u; s = s >> 1u) {{
    if (q < s) {{ part[l] = comb(part[l], part[l + s * {step}u]); }}
    workgroupBarrier();
  }}
  if (q == 0u && o < V) {{ y[o] = fin(part[l]); }}""")


def _pairwise(names: list[str]) -> str:
    """A WGSL expression combining ``names`` pairwise with ``comb``."""
    while len(names) > 1:
        names = [f"comb({a}, {b})" for a, b in zip(names[::2], names[1::2])] + \
            (names[-1:] if len(names) % 2 else [])
    return names[0]


def _vec_walk(T: int, UV: int, fold: str) -> str:
    """The walk of :func:`source` over vec4 words: ``UV`` words (4 UV elements and
    accumulators) per iteration, then single words (R and the chunks are multiples of
    4, so a word below j1 lies wholly below it)."""
    def folds(w: int, a: int, at: str) -> str:
        return "\n      ".join(f"let v{4 * w + c} = w{w}.{'xyzw'[c]};\n      "
                                f"{fold.format(u=4 * w + c)}" for c in range(4))
    return vec_loop(T, UV, folds)


def vec_loop(T: int, UV: int, folds: Callable[[int, int, str], str]) -> str:
    """Lane ``q``'s loop over vec4 words ``4 q .. 4 q + 3`` of every ``4 T``: ``UV``
    words loaded an iteration, then single words. ``folds(w, a, at)`` is the WGSL that
    folds word ``w{w}`` into accumulator ``a``, its first element's index ``at`` (the
    sums and the arg-reductions share this loop)."""
    words = "\n      ".join(f"let w{w} = x0[u32(ej + {w} * jump) >> 2u];" for w in range(UV))
    body = "\n      ".join(folds(w, w, f"j + {w * 4 * T}u") for w in range(UV))
    return f"""let jump = {4 * T};
    var ej = base + i32(j0 + 4u * q);
    var j = j0 + 4u * q;
    loop {{
      if (j >= j1 || j1 - j <= {(UV - 1) * 4 * T}u) {{ break; }}
      {words}
      {body}
      j = j + {UV * 4 * T}u;
      ej = ej + {UV} * jump;
    }}
    for (; j < j1; j = j + {4 * T}u) {{
      let w0 = x0[u32(ej) >> 2u];
      {folds(0, 0, "j")}
      ej = ej + jump;
    }}"""


def vectorizable(d: DType, columns: bool, R: int, kstrides: tuple[int, ...],
                 rstrides: tuple[int, ...]) -> bool:
    """Whether a reduction may read vec4 words (given an offset that is a multiple of
    4): 32-bit elements reduced in their own type, one contiguous reduced axis of a
    multiple of 4 elements, every kept stride a multiple of 4, the rows layout."""
    return (d.name in ("float32", "int32", "uint32") and not columns and R % 4 == 0
            and tuple(rstrides) == (1,) and all(s % 4 == 0 for s in kstrides))


def source(kind: str, d: DType, acc: str, nk: int, nr: int, T: int = WG,
           columns: bool = False, split: bool = False, kahan: bool = False,
           shuffle: bool = False, mean: bool = False, vec: bool = False) -> str:
    """WGSL of the reduction of ``d`` elements into ``acc`` values by teams of ``T``
    invocations (lanes ``WG / T`` apart with ``columns``, else neighbours).

    Parameters: V (outputs, or chunks with ``split``), R, offset, kept shape (nk), kept
    strides (nk), reduced shape (nr), reduced strides (nr), then with ``split``: nout
    and the chunk length; virtual output ``v`` is chunk ``v / nout`` of output
    ``v % nout`` and is written at ``y[v]`` (a (C, nout) array). Each invocation keeps
    :func:`unroll` accumulators (``kahan``: compensated float sums), combined pairwise
    at its end. ``shuffle``: the team is the workgroup and the adapter has subgroups
    (see :func:`_tree`). The defaults give one workgroup per output, which complex.py's
    product kernel edits (``return x + y;`` and ``var acc = ...(0);``). ``mean`` (a
    float sum, not ``split``): each result is divided by the parameter after the
    layout's (f32, or f64 in two words), with the elementwise divide's own WGSL.
    ``vec`` (see :func:`vectorizable`): the input is read as vec4 words, lane ``q``
    taking elements ``4 q .. 4 q + 3`` of every ``4 T``, one accumulator a component."""
    comb, helpers = _combine(kind, acc)
    conv = "v{u}" if ctype(d) == acc else f"{acc}(v{{u}})"
    load = "select(0u, 1u, ld(e{u}))" if d.name == "bool" else "ld(e{u})"
    G = WG // T
    U = unroll(acc)
    ks, rs = 3, 3 + 2 * nk
    tail = 3 + 2 * nk + 2 * nr
    if columns:  # lane q of output i sits at l = q * G + i
        lanes = f"let i = l % {G}u;\n  let q = l / {G}u;"
        step = G
    else:        # lane q of output i sits at l = i * T + q
        lanes = f"let i = l / {T}u;\n  let q = l % {T}u;"
        step = 1
    if split:
        span = (f"let nout = p({tail}u);\n    let chunk = p({tail + 1}u);\n"
                f"    let oo = o % nout;\n    let j0 = (o / nout) * chunk;\n"
                f"    let j1 = min(R, j0 + chunk);")
    else:
        span = "let oo = o;\n    let j0 = 0u;\n    let j1 = R;"
    accs = [f"acc{u}" for u in range(U)]
    init = "\n  ".join(f"var {a} = acc;" for a in accs)
    if kahan:
        init += "\n  " + "\n  ".join(f"var cmp{u} = {acc}(0.0);" for u in range(U))
        fold = ("let t{u} = " + conv + " - cmp{u};\n      let s{u} = fence(acc{u} + t{u});\n"
                "      cmp{u} = kfix(s{u}, (s{u} - acc{u}) - t{u});\n      acc{u} = s{u};")
        finish = "\n    ".join(f"acc{u} = acc{u} - cmp{u};" for u in range(U))
    else:
        fold, finish = "acc{u} = comb(acc{u}, " + conv + ");", ""
    body = "\n      ".join(f"let v{u} = {load.format(u=u)};\n      {fold.format(u=u)}"
                           for u in range(U))
    shared, tree = _tree(acc, T, step, shuffle)
    if mean:
        divisor = f"bitcast<f32>(p({tail}u))" if acc == "f32" else \
            f"bitcast<f64>(u64(p({tail}u)) | (u64(p({tail + 1}u)) << 32u))"
        quotient = wops._specialise(wops.expression("divide", "f", acc), acc)
        fin = (f"fn fin(a: {acc}) -> {acc} {{\n  let b = {divisor};\n  return {quotient};\n}}"
               f"\n{wops.helpers(quotient, acc)}")
    else:
        fin = f"fn fin(v: {acc}) -> {acc} {{ return v; }}"
    entry = (", @builtin(subgroup_invocation_id) sgi: u32, @builtin(subgroup_size) sgs: "
             "u32, @builtin(subgroup_id) sid: u32, @builtin(num_subgroups) nsg: u32"
             if shuffle else "")
    load0 = load.format(u=0)
    steps = walk(rs, nr, T, U, body, f"let v0 = {load0};\n      {fold.format(u=0)}")
    if vec:
        steps = _vec_walk(T, U // 4, fold)
        binding = f"var<storage, read> x0: array<vec4<{acc}>>;"
    else:
        binding = f"var<storage, read> x0: array<{LAYOUT[d.name][0]}>;\n" + \
            load_fn("ld", "x0", d)
    return f"""{HEADER}
@group(0) @binding(1) {binding}
@group(0) @binding(2) var<storage, read_write> y: array<{acc}>;
{shared}
{helpers}
{_kahan_fns(acc) if kahan else ""}
fn comb(x: {acc}, y: {acc}) -> {acc} {{ return {comb}; }}
{fin}
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32,
        @builtin(num_workgroups) nw: vec3<u32>{entry}) {{
  {lanes}
  let o = (wg.x + wg.y * nw.x) * {G}u + i;
  let V = p(0u);
  let R = p(1u);
  var acc = {_identity(kind, acc)};
  {init}
  if (o < V) {{
    {span}
    {_decode("oo", ks, nk)}
    let base = bitcast<i32>(p(2u)) + eoo;
    {steps}
    {finish}
  }}
  acc = {_pairwise(accs)};
  {tree}
}}"""


class Plan(NamedTuple):
    T: int          # invocations per output (or chunk)
    columns: bool   # lanes G apart (neighbouring outputs are neighbouring invocations)
    C: int          # chunks per output (1: one dispatch)


def _pow2(n: int) -> int:
    """The smallest power of two >= n (>= 1)."""
    return 1 << max(n - 1, 0).bit_length()


def plan(nout: int, R: int, kshape: tuple[int, ...], kstrides: tuple[int, ...],
         rstrides: tuple[int, ...], may_split: bool = True) -> Plan:
    """How to lay out the reduction of ``nout`` outputs of ``R`` elements each (see the
    module docstring): columns when the innermost kept axis is contiguous, at least 8
    long (8 neighbouring 4-byte loads fill a 32-byte memory sector; shorter, the rows'
    stride down the column wastes less) and the reduced axes are not the contiguous
    ones; else rows, with about 32 elements per invocation. Long columns take teams of
    up to WG / 32 lanes (32 neighbouring outputs still read a 128-byte line of a row),
    so that a short merge of chunk results is not a few invocations walking it alone
    (many outputs fill the GPU without teams: one invocation each)."""
    inner = bool(rstrides) and abs(rstrides[-1]) == 1
    columns = (not inner and bool(kstrides) and abs(kstrides[-1]) == 1
               and kshape[-1] >= 8)
    if columns:
        G0 = min(WG, max(8, _pow2(nout)))
        T = WG // G0
        if -(-nout // G0) < TARGET:  # too few workgroups of lone lanes: teams
            T = max(T, min(WG // min(G0, 32), _pow2(-(-R // PER_INVOCATION))))
    else:
        T = min(WG, _pow2(-(-R // PER_INVOCATION)))
    groups = -(-nout // (WG // T))
    C = 1
    if may_split and groups < TARGET:
        # each chunk still gives every invocation >= SPLIT_PER elements
        most = R // (T * SPLIT_PER)
        C = min(-(-TARGET // groups), most, MAX_CHUNKS)
    if may_split:
        # llvmpipe (lavapipe) silently stops an invocation after 65535 loop iterations;
        # with TARGET workgroups no buffer gets near that, but keep it a guarantee
        C = max(C, -(-R // (T * MAX_ITERATIONS)))
    return Plan(T, columns, C if C >= 2 else 1)


def _words(x: GPUArray | _View, axes: tuple[int, ...]) -> tuple[
        tuple[int, ...], int, tuple[int, ...], tuple[int, ...], tuple[int, ...],
        tuple[int, ...], list[int]]:
    """(kept shape, R, kept shape/strides and reduced shape/strides after dropping
    length-1 dimensions and merging evenly strided neighbours, parameter words)."""
    kept = [k for k in range(x.ndim) if k not in axes]
    out_shape = tuple(x.shape[k] for k in kept)
    kshape, (kstrides,) = _collapse(out_shape, [tuple(x.strides[k] for k in kept)])
    red = tuple(x.shape[k] for k in axes)
    rshape, (rstrides,) = _collapse(red, [tuple(x.strides[k] for k in axes)])
    words = [x.offset & 0xFFFFFFFF, *kshape, *[s & 0xFFFFFFFF for s in kstrides],
             *rshape, *[s & 0xFFFFFFFF for s in rstrides]]
    return out_shape, math.prod(red), kshape, kstrides, rshape, rstrides, words


class Stage(NamedTuple):
    """One dispatch of a cached launch: its pipeline, parameters (the input's offset at
    word 2, for the first stage), workgroups and output bytes."""
    pipe: Any
    params: list[int]
    groups: int
    nbytes: int
    vpipe: Any = None  # the vec4 kernel, where vectorizable: used at offsets 4 k
    scalar: Any = None  # with vpipe: makes the scalar kernel (pipe is None) when needed
    packer: Any = None  # the parameters' struct


class Launch(NamedTuple):
    """Everything a reduction of one signature needs but the buffers and the offset."""
    stages: tuple[Stage, ...]
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: DType
    size: int


class _View(NamedTuple):  # the layout of an array, as _words reads it
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    ndim: int


def _build(rt: Any, kind: str, d: DType, shape: tuple[int, ...], strides: tuple[int, ...],
           axes: tuple[int, ...], may_split: bool, count: int | None = None) -> Launch:
    """The stages of one signature; with ``count``, the last divides by it (mean)."""
    acc_dtype = BY_NAME[ACCUMULATOR.get(d.name, d.name)]
    acc = ctype(acc_dtype)
    out_shape, R, kshape, kstrides, rshape, rstrides, words = \
        _words(_View(shape, strides, 0, len(shape)), axes)
    nout = math.prod(out_shape)
    if nout == 0:
        return Launch((), out_shape, c_strides(out_shape), acc_dtype, 0)
    T, columns, C = plan(nout, R, kshape, kstrides, rstrides, may_split)
    nk, nr = len(kshape), len(rshape)
    kahan = kind == "sum" and acc[0] in "fv"   # f32, f64, vec2<f32>, vec2<f64>
    G = WG // T
    sh = T == WG and acc in SHUFFLED and subgroups(rt)
    size = acc_dtype.itemsize
    vec = _config.webgpu_reduce_vec4() and vectorizable(d, columns, R, kstrides, rstrides)

    def pipes(split: bool, mean: bool) -> tuple[Any, Any, Callable[[], Any] | None]:
        def make(v: bool) -> Any:
            return rt.pipeline(("reduce", kind, d.name, nk, nr, T, columns, split, sh, mean,
                                v),
                               lambda: source(kind, d, acc, nk, nr, T, columns, split,
                                              kahan, sh, mean, v), 2)
        if vec:  # the scalar kernel compiled only for an input at an odd offset
            return None, make(True), (lambda: make(False))
        return make(False), None, None

    if C == 1:
        mean = count is not None
        pipe, vpipe, scalar = pipes(False, mean)
        div = scalar_words(float(count), acc_dtype) if mean else []
        params = [nout, R, *words, *div]
        stage = Stage(pipe, params, -(-nout // G), nout * size, vpipe, scalar,
                      packer(len(params)))
        return Launch((stage,), out_shape, c_strides(out_shape), acc_dtype, nout)
    chunk = -(-R // C)
    if vec:
        chunk = -(-chunk // 4) * 4  # whole vec4 words a chunk
    C = -(-R // chunk)
    pipe, vpipe, scalar = pipes(True, False)
    params = [nout * C, R, *words, nout, chunk]
    first = Stage(pipe, params, -(-nout * C // G), nout * C * size, vpipe, scalar,
                  packer(len(params)))
    part = (C, *out_shape)
    merge = _build(rt, kind, acc_dtype, part, c_strides(part), (0,), False, count)
    return merge._replace(stages=(first, *merge.stages))


def launch(rt: Any, kind: str, x: GPUArray, axes: tuple[int, ...],
           mean: bool = False) -> GPUArray:
    """Reduce ``x`` over ``axes`` with ``kind`` (sum, prod, max, min; complex x: sum or
    prod); the result has the kept axes' shape and x's accumulator dtype (see
    ACCUMULATOR). ``mean`` (a sum of real floats): the sum divided by the number of
    reduced elements (as a compute value of the accumulator dtype), in the same
    dispatch, rounded as the elementwise divide rounds.

    The hot path: the launch of this signature from ``rt.plans`` (built once), then
    one record per stage (each allocating its output)."""
    if type(axes) is not tuple:
        axes = tuple(axes)
    sig = ("reduce", kind, x.dtype, x.shape, x.strides, axes, mean,
           _config.current)  # the switches in force (hashed by identity)
    lp = rt.plans.get(sig)
    if lp is None:
        count = math.prod(x.shape[k] for k in axes) if mean else None
        lp = _build(rt, kind, x.dtype, x.shape, x.strides, axes, True, count)
        if len(rt.plans) >= 8192:
            rt.plans.clear()  # many distinct shapes: start over (as map.py does)
        rt.plans[sig] = lp
    if not lp.size:
        return new(rt, lp.shape, lp.dtype)
    try:  # the slot (see GPUArray.storage) ...
        block = x._storage.block
    except AttributeError:  # ... unset while x is pending: computed now
        block = x.storage.block
    off = x.offset
    # the first stage reads x (at its offset: the vec4 kernel needs a multiple of four)
    st = lp.stages[0]
    params = st.params
    if off:
        params = params.copy()
        params[2] = off & 0xFFFFFFFF
    pipe = st.pipe if st.vpipe is None else st.scalar() if off & 3 else st.vpipe
    storage = rt.record_new(pipe, (block,), params, st.groups, st.packer, st.nbytes)
    for st in lp.stages[1:]:
        # ``storage`` (the previous stage's output) stays referenced until this records
        pipe = st.pipe if st.vpipe is None else st.vpipe
        storage = rt.record_new(pipe, (storage.block,), st.params, st.groups, st.packer,
                                st.nbytes)
    r = _new(GPUArray)  # GPUArray(storage, rt, lp.shape, ...), no __init__ frame
    r._storage = storage
    r.rt = rt
    r.shape = lp.shape
    r.strides = lp.strides
    r.offset = 0
    r.dtype = lp.dtype
    r.size = lp.size
    r.readonly = False
    return r


"""Index reductions (argmax, argmin), laid out and split as :mod:`.reduce` plans a
reduction of the same shape (teams of ``T`` lanes, neighbours or 32+ outputs apart for
columns; few long reductions in chunks, merged by a second dispatch).

Like :mod:`.reduce`, each invocation of a team folds a strided share of the reduced
elements (8 independent best pairs for 32-bit values, else 4: as many loads in
flight; folded by selects, no branches; contiguous 32-bit rows read as vec4 words where
the offset allows, as :func:`.reduce.vectorizable` says), then a tree in workgroup
memory (or subgroup shuffles, where the team is the workgroup and the adapter has
them) combines the team's partial results, but a partial result is a (value, index)
pair. The index is the linear (row-major) position in the reduced axes, which for
"every axis" is the flat index NumPy returns. Ties keep the smaller index, and a NaN
beats every number (the first NaN wins), as in NumPy, whatever the order of combining.
A merge reads the chunk winners' values from the input again.

:func:`layout`, :func:`team` and :func:`chunks` (kept and reduced axes decoded from
strides, so no transpose is materialised) serve :mod:`.moments`.
"""

from __future__ import annotations

import math
from typing import Any

from .... import _config
from ...._dtypes import DType
from ..array import GPUArray, c_strides, new
from ..runtime import packer
from . import reduce as R
from .reduce import _decode
from .template import HEADER, WG
from .types import LAYOUT, ctype, load_fn


def layout(x: GPUArray, axes: tuple[int, ...]) -> tuple[
        tuple[int, ...], int, int, int, list[int], bool]:
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
    """How many workgroups share each output (var/std, kernels/moments.py): 1, unless
    few outputs reduce many elements (var(x)), which then spread over chunks of >= 16384
    elements (64 an invocation), up to 1024 (a large GPU's fill, as reduce.TARGET), and
    are combined by a second, small dispatch."""
    if nout > 64 or R < 32768:
        return 1
    return min(1024, -(-R // 16384))


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


def _fold(u: int, index: str) -> str:
    """WGSL folding value ``v{u}`` at reduced index ``index`` into accumulator ``u``:
    branch-free (selects), so the compiler keeps every load of an iteration in flight
    (with a call of ``beats`` per element, branches and all, a 16M float32 argmax took
    59 µs of the H200's time against sum's 26, 2026-12-02). An accumulator sees its
    indices in increasing order, so ``take`` needs no index comparison: a strict one
    keeps the first of equal values."""
    return (f"let t{u} = take(bv{u}, bi{u}, v{u});\n      bv{u} = select(bv{u}, v{u}, t{u});"
            f"\n      bi{u} = select(bi{u}, {index}, t{u});")


def _walk(load: str, rs: int, nr: int, T: int, U: int) -> str:
    """WGSL of lane ``q``'s walk over reduced indices ``j0 + q, j0 + q + T, ... < j1``
    keeping ``U`` independent best pairs (``U`` loads in flight per iteration)."""
    body = "\n      ".join(f"let v{u} = {load.format(u=u)};\n      {_fold(u, f'j + {u * T}u')}"
                            for u in range(U))
    single = f"let v0 = {load.format(u=0)};\n      {_fold(0, 'j')}"
    return R.walk(rs, nr, T, U, body, single)


def _vec_walk(T: int, UV: int, kind: str, vt: str) -> str:
    """The walk over vec4 words (see reduce._vec_walk): lane ``q`` takes elements
    ``4 q .. 4 q + 3`` of every ``4 T``, ``UV`` words an iteration, one accumulator a
    word. A word is looked at element by element (in index order, so the first of equal
    values stays) only when it may hold a new best: its max (argmax; min for argmin)
    beats the accumulator's value, or it holds a NaN, or the accumulator is empty;
    otherwise it costs three max and a comparison (past the first few words of a long
    walk, a new best is rare)."""
    red, cmp = ("max", ">") if kind == "argmax" else ("min", "<")
    nan = ""
    if vt == "f32":
        nan = (" || any((bitcast<vec4<u32>>(w{w}) & vec4<u32>(0x7fffffffu)) > "
               "vec4<u32>(0x7f800000u))")

    def folds(w: int, a: int, at: str) -> str:
        cands = "\n        ".join(
            f"if (take(bv{a}, bi{a}, w{w}.{'xyzw'[c]})) {{ bv{a} = w{w}.{'xyzw'[c]}; "
            f"bi{a} = {at} + {c}u; }}" for c in range(4))
        return (f"let m{w} = {red}({red}(w{w}.x, w{w}.y), {red}(w{w}.z, w{w}.w));\n      "
                f"if (bi{a} == NONE || m{w} {cmp} bv{a}{nan.format(w=w)}) {{\n        "
                f"{cands}\n      }}")
    return R.vec_loop(T, UV, folds)


def _merge_walk(load: str, rs: int, nr: int, T: int) -> str:
    """WGSL of a merge lane's walk over chunk winners ``c = q, q + T, ... < C``: four
    an iteration, their indices loaded first and then their values from ``x`` (a
    winner's value is read again), so that eight loads are in flight rather than two
    dependent ones a winner (one winner an iteration took 18 µs of the H200's time for
    the merge of 1024 chunks of a 16M argmax, 2026-12-02). A chunk without a winner
    (NONE) reads the row's first element, and its pair never beats."""
    def one(k: str, c: str) -> str:
        return (f"let j{k} = sc[({c}) * nout + o];\n      let k{k} = select(j{k}, 0u, "
                f"j{k} == NONE);\n      {_decode('k' + k, rs, nr)}\n      "
                f"let v{k} = {load.format(u='')};".replace("ld(e)", f"ld(u32(base + ek{k}))"))
    four = "\n      ".join(one(k, f"c + {i * T}u") for i, k in enumerate("abcd"))
    folds = "\n      ".join(f"if (beats(bv0, bi0, v{k}, j{k})) {{ bv0 = v{k}; bi0 = j{k}; }}"
                            for k in "abcd")
    return f"""var c = q;
    loop {{
      if (c + {3 * T}u >= C) {{ break; }}
      {four}
      {folds}
      c = c + {4 * T}u;
    }}
    for (; c < C; c = c + {T}u) {{
      {one("a", "c")}
      if (beats(bv0, bi0, va, ja)) {{ bv0 = va; bi0 = ja; }}
    }}"""


def _tree(vt: str, out: str, T: int, step: int, shuffle: bool) -> str:
    """WGSL combining the teams' best pairs and writing ``y[o]`` (see reduce._tree)."""
    if T == 1:
        return f"if (o < V) {{ y[o] = {out}(bi); }}"
    if shuffle:
        return f"""var rv = bv;
  var ri = bi;
  for (var s = sgs >> 1u; s > 0u; s = s >> 1u) {{
    let wv = subgroupShuffleDown(rv, s);
    let wi = subgroupShuffleDown(ri, s);
    if (sgi + s < sgs && beats(rv, ri, wv, wi)) {{ rv = wv; ri = wi; }}
  }}
  if (sgi == 0u) {{ pv[sid] = rv; pi[sid] = ri; }}
  workgroupBarrier();
  if (l == 0u && o < V) {{
    var tv = pv[0];
    var ti = pi[0];
    for (var k = 1u; k < nsg; k = k + 1u) {{
      if (beats(tv, ti, pv[k], pi[k])) {{ tv = pv[k]; ti = pi[k]; }}
    }}
    y[o] = {out}(ti);
  }}"""
    return f"""pv[l] = bv;
  pi[l] = bi;
  workgroupBarrier();
  for (var s = {T // 2}u; s > 0u; s = s >> 1u) {{
    let m = l + s * {step}u;
    if (q < s && beats(pv[l], pi[l], pv[m], pi[m])) {{ pv[l] = pv[m]; pi[l] = pi[m]; }}
    workgroupBarrier();
  }}
  if (q == 0u && o < V) {{ y[o] = {out}(pi[l]); }}"""


def source(kind: str, d: DType, out: str, nk: int, nr: int, T: int, columns: bool,
           merge: bool, shuffle: bool = False, vec: bool = False) -> str:
    """WGSL of one stage, laid out as kernels/reduce.py's (teams of ``T`` lanes,
    neighbours or ``WG / T`` apart with ``columns``). Parameters: V, R, layout words (see
    :func:`layout`), then nout, the chunk length and C (chunks per output). Without
    ``merge``, virtual output ``v < V`` is chunk ``v / nout`` of output ``v % nout`` and
    the best reduced index of that chunk is written at ``y[v]`` (as ``out``: u32 for a
    first stage of C > 1, the index dtype when C is 1). With ``merge`` (V = nout),
    output ``o`` compares the C chunk winners ``sc[c * nout + o]``, loading their values
    from ``x`` again. ``shuffle``: subgroup shuffles combine a workgroup-wide team.
    ``vec`` (a first stage; see reduce.vectorizable): ``x`` is read as vec4 words."""
    ct = ctype(d)
    vt = "u32" if ct == "bool" else ct  # bools compare as 0/1
    load = "select(0u, 1u, ld(e{u}))" if ct == "bool" else "ld(e{u})"
    cmp = ">" if kind == "argmax" else "<"
    nan = ""
    later = f"v {cmp} bv"  # take's test: a later value replaces the best so far
    if ct[0] == "f":
        nan = (f"  let an = {isnan(vt, 'av')}; let bn = {isnan(vt, 'bv')};\n"
               "  if (an || bn) { return select(bn, bi < ai, an && bn); }\n")
        later += f" || ({isnan(vt, 'v')} && !{isnan(vt, 'bv')})"
    G = WG // T
    U = 1 if merge else (8 if vt in ("f32", "i32", "u32") else 4)  # loads in flight
    if vec:
        U = 4  # vec4 words in flight, one accumulator each
    ks, rs = 3, 3 + 2 * nk
    pc = 3 + 2 * nk + 2 * nr
    if columns:
        lanes, step = f"let i = l % {G}u;\n  let q = l / {G}u;", G
    else:
        lanes, step = f"let i = l / {T}u;\n  let q = l % {T}u;", 1
    if merge:
        bind = ("@group(0) @binding(2) var<storage, read> sc: array<u32>;\n"
                "@group(0) @binding(3)")
        walk = _merge_walk(load, rs, nr, T)
        span = ""
    else:
        bind = "@group(0) @binding(2)"
        span = "let j0 = (o / nout) * chunk;\n    let j1 = min(R, j0 + chunk);"
        walk = _vec_walk(T, U, kind, vt) if vec else _walk(load, rs, nr, T, U)
    init = "\n  ".join(f"var bv{u} = {vt}(0);\n  var bi{u} = NONE;" for u in range(U))
    fold = "\n  ".join(f"if (beats(bv, bi, bv{u}, bi{u})) {{ bv = bv{u}; bi = bi{u}; }}"
                        for u in range(U))
    slots = WG // 4 if shuffle else WG
    entry = (", @builtin(subgroup_invocation_id) sgi: u32, @builtin(subgroup_size) sgs: "
             "u32, @builtin(subgroup_id) sid: u32, @builtin(num_subgroups) nsg: u32"
             if shuffle else "")
    xt = f"vec4<{vt}>" if vec else LAYOUT[d.name][0]
    return f"""{HEADER}
@group(0) @binding(1) var<storage, read> x0: array<{xt}>;
{"" if vec else load_fn("ld", "x0", d)}
{bind} var<storage, read_write> y: array<{out}>;
var<workgroup> pv: array<{vt}, {slots}>;
var<workgroup> pi: array<u32, {slots}>;
const NONE = 0xffffffffu;
// Whether (bv, bi) beats (av, ai): the {kind[3:]}imum, a NaN first, then the first index.
fn beats(av: {vt}, ai: u32, bv: {vt}, bi: u32) -> bool {{
  if (bi == NONE) {{ return false; }}
  if (ai == NONE) {{ return true; }}
{nan}  if (bv {cmp} av) {{ return true; }}
  return bv == av && bi < ai;
}}
// Whether value v, later in one accumulator's walk, replaces its best (bv, bi).
fn take(bv: {vt}, bi: u32, v: {vt}) -> bool {{
  return bi == NONE || {later};
}}
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32,
        @builtin(num_workgroups) nw: vec3<u32>{entry}) {{
  {lanes}
  let o = (wg.x + wg.y * nw.x) * {G}u + i;
  let V = p(0u);
  let R = p(1u);
  let nout = p({pc}u);
  let chunk = p({pc + 1}u);
  let C = p({pc + 2}u);
  {init}
  if (o < V) {{
    let oo = o % nout;
    {_decode("oo", ks, nk)}
    let base = bitcast<i32>(p(2u)) + eoo;
    {span}
    {walk}
  }}
  var bv = {vt}(0);
  var bi = NONE;
  {fold}
  {_tree(vt, out, T, step, shuffle)}
}}"""


# Value types subgroup shuffles carry (no 64-bit shuffles in WGSL).
SHUFFLED = ("f32", "i32", "u32", "bool")


def _build(rt: Any, kind: str, d: DType, shape: tuple[int, ...], strides: tuple[int, ...],
           axes: tuple[int, ...], index: DType) -> R.Launch:
    """The cached launch of one signature (see reduce._build): one stage, or a first
    stage writing the (C, nout) chunk winners and a merge that also reads ``x``."""
    out_shape, n, kshape, kstrides, rshape, rstrides, words = \
        R._words(R._View(shape, strides, 0, len(shape)), axes)
    nout = math.prod(out_shape)
    if nout == 0:
        return R.Launch((), out_shape, c_strides(out_shape), index, 0)
    idx = ctype(index)
    nk, nr = len(kshape), len(rshape)
    T, columns, C = R.plan(nout, n, kshape, kstrides, rstrides)
    vec = _config.webgpu_reduce_vec4() and R.vectorizable(d, columns, n, kstrides, rstrides)
    chunk = -(-n // C)
    if vec:
        chunk = -(-chunk // 4) * 4  # whole vec4 words a chunk
    C = -(-n // chunk)
    name = d.name
    sub = ctype(d) in SHUFFLED and R.subgroups(rt)
    sh = sub and T == WG
    params = [nout * C, n, *words, nout, chunk, C]
    done = R.Launch((), out_shape, c_strides(out_shape), index, nout)
    first_out = idx if C == 1 else "u32"

    def make(v: bool) -> Any:
        return rt.pipeline(("argreduce", kind, name, first_out, nk, nr, T, columns, False,
                            sh, v),
                           lambda: source(kind, d, first_out, nk, nr, T, columns, False,
                                          sh, v), 2)
    # vec: the scalar kernel is compiled only for an input at an odd offset (as reduce's)
    pipe, vpipe, scalar = (None, make(True), lambda: make(False)) if vec else \
        (make(False), None, None)
    first = R.Stage(pipe, params, -(-nout * C // (WG // T)),
                    nout * C * (index.itemsize if C == 1 else 4), vpipe, scalar,
                    packer(len(params)))
    if C == 1:
        return done._replace(stages=(first,))
    Tm = min(WG, R._pow2(-(-C // 4)))  # the merge compares C winners, 4 a lane
    shm = sub and Tm == WG
    pipe = rt.pipeline(("argreduce", kind, name, idx, nk, nr, Tm, False, True, shm),
                       lambda: source(kind, d, idx, nk, nr, Tm, False, True, shm), 3)
    merge = R.Stage(pipe, [nout, *params[1:]], -(-nout // (WG // Tm)),
                    nout * index.itemsize, packer=packer(len(params)))
    return done._replace(stages=(first, merge))


def launch(rt: Any, kind: str, x: GPUArray, axes: tuple[int, ...],
           index: DType) -> GPUArray:
    """``kind`` (argmax or argmin) of ``x`` over ``axes`` (none of them empty): an
    array of the kept axes' shape and dtype ``index`` (int32 or int64). Laid out and
    split into chunks as kernels/reduce.py plans a reduction of the same shape; the
    launch of each signature is cached in ``rt.plans``."""
    sig = ("argreduce", kind, x.dtype, x.shape, x.strides, axes, index,
           _config.current)  # the switches in force (hashed by identity)
    lp = rt.plans.get(sig)
    if lp is None:
        lp = _build(rt, kind, x.dtype, x.shape, x.strides, axes, index)
        if len(rt.plans) >= 8192:
            rt.plans.clear()  # many distinct shapes: start over (as map.py does)
        rt.plans[sig] = lp
    if not lp.size:
        return new(rt, lp.shape, lp.dtype)
    stages = lp.stages
    first = stages[0].params
    if x.offset:
        first = first.copy()
        first[2] = x.offset & 0xFFFFFFFF
    block = x.storage.block
    st = stages[0]
    pipe = st.pipe
    if st.vpipe is not None:
        pipe = st.scalar() if x.offset & 3 else st.vpipe
    storage = rt.record_new(pipe, (block,), first, st.groups, st.packer, st.nbytes)
    if len(stages) == 2:
        m = stages[1]
        params = m.params
        if x.offset:
            params = params.copy()
            params[2] = x.offset & 0xFFFFFFFF
        storage = rt.record_new(m.pipe, (block, storage.block), params, m.groups, m.packer,
                                m.nbytes)
    return GPUArray(storage, rt, lp.shape, lp.strides, 0, lp.dtype, lp.size)

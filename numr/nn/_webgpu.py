"""WebGPU kernels of numr.nn: vectorised units, one workgroup per row, the row held in
registers, subgroup reductions (the measurements behind each choice are in the git
history of benchmarks/RESULTS.md).

Why each choice (memory-bound ops; what matters on NVIDIA through Vulkan):

* Vectorised units: a row is moved as ``vec4<f32>`` / ``vec2<f64>`` (16-byte loads) or,
  for float16 and bfloat16, ``vec2<u32>`` (four packed halves, computed as
  ``vec4<f32>``), where the width and every operand's offset allow; narrower units
  otherwise (odd widths: scalars).
* One workgroup per row, its size picked per width (32..1024 invocations, each holding
  at most ``K`` units in registers), so the row is read from memory once and every
  reduction spans the whole workgroup: that makes a subgroup reduction correct whatever
  the adapter's subgroup size or layout. Rows too wide for the registers are re-read.
* Narrow rows in the forward (fewer than 32 invocations of about 64 bytes each) share a
  workgroup of 64, each row's sums through workgroup memory over its own invocations (no
  subgroup operation, since subgroups need not line up with rows): one such row a
  32-invocation workgroup left most of it idle. The backward shares workgroups between
  rows of fewer than 8 invocations (see _ROWS_BELOW).
* Reductions: ``subgroupAdd`` then one workgroup-memory slot per subgroup and one
  barrier, where the device has the "subgroup" feature; else a two-level workgroup-memory
  sum (two barriers). Successive reductions use different workgroup buffers, so none
  needs a barrier after its reads.
* Many rows in flight: a workgroup per row (or per 2 to 64 narrow rows) in the forward
  (a 2-D grid past 65535, the runtime's dispatch spreads it).
* Backward: persistent workgroups, each looping over rows and keeping its share of the
  weight/bias gradient in registers; one partial row per workgroup, stored after ``gx``
  in the output buffer (a dispatch writes one buffer), summed column-wise by a second
  small kernel (16 columns x 16 lanes per workgroup, one dispatch for dw and db).

float16 and bfloat16 rows of odd width would put two rows in one word: those run the
composite (``norm_forward`` returns None, the caller's cue).

Tuning on a GPU (environment variables, numr/_config.py, read when a launch signature is
first planned; tests switch them with ``numr._config.override``):
``NUMR_WEBGPU_SUBGROUPS=0`` forces the workgroup-memory reduction (as for every
reduction);
``NUMR_NN_WEBGPU_BWD_GROUPS=<n>`` fixes the backward's workgroup count;
``NUMR_NN_WEBGPU_FWD_K`` / ``NUMR_NN_WEBGPU_BWD_K`` (default 8 / 4) the most units per
invocation held in registers; ``NUMR_NN_WEBGPU_ONEPASS`` (default ``bwd``;
``fwd,bwd`` or empty) the directions in which layer norm takes its mean and variance from
one workgroup sum of shifted data; ``NUMR_NN_WEBGPU_EXACT=0`` keeps the bounds tests in
forward rows of exactly ``wg * K`` units.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Optional

from .. import _config
from .. import _dtypes as dt
from ..backends.webgpu.array import GPUArray, c_strides
from ..backends.webgpu.kernels.map import contiguous, scalar_words
from ..backends.webgpu.kernels.template import HEADER

# The tuning switches (numr/_config.py): NUMR_NN_WEBGPU_FWD_K / _BWD_K, the most units
# per invocation kept in registers; NUMR_NN_WEBGPU_ONEPASS, the directions in which layer
# norm takes its mean and variance from one workgroup sum of shifted data where the row
# is held in registers (others: two sums, the mean then the deviations; the H200
# measured the backward faster with it, float16 32768x8192: 26% of copy bandwidth against
# 23%, and the forward slower, 56% against 67%); NUMR_NN_WEBGPU_EXACT, forward rows of
# exactly wg * k units without the register loops' bounds tests. Rows that need fewer than
# 32 invocations share a workgroup of _ROWS_WG (one row a workgroup would leave most of a
# 32-invocation workgroup idle).
_ROWS_WG = 64
_RED_COLS = 16                 # reduce kernel: columns (units) x lanes per workgroup
_RED_LANES = 16


_HALVES = ("float16", "bfloat16")  # packed two to a word, computed in f32
_BF16_WGSL = """fn bf16r(x: f32) -> u32 {
  let u = bitcast<u32>(x);
  return select((u + 0x7fffu + ((u >> 16u) & 1u)) >> 16u, (u >> 16u) | 0x40u,
                (u & 0x7fffffffu) > 0x7f800000u);
}
fn unpack2x16bf(w: u32) -> vec2<f32> {
  return vec2<f32>(bitcast<f32>(w << 16u), bitcast<f32>(w & 0xffff0000u));
}
fn pack2x16bf(v: vec2<f32>) -> u32 { return bf16r(v.x) | (bf16r(v.y) << 16u); }
"""


class Form:
    """How one dtype is moved at one unit width: storage type ``s``, compute type ``v``,
    accumulator ``a``, elements per unit ``lanes``, storage units per f32/f64 partial
    unit ``pw``, and the WGSL converting between them."""

    def __init__(self, d: str, lanes: int):
        self.d, self.lanes = d, lanes
        if d in _HALVES:
            self.a = "f32"
            # float16 has WGSL's built-in packing; bfloat16 is the top half of a float32,
            # rounded to nearest even by the bits (a NaN kept a NaN)
            un, pk, extra = ("unpack2x16float", "pack2x16float", "") if d == "float16" \
                else ("unpack2x16bf", "pack2x16bf", _BF16_WGSL)
            if lanes == 4:
                self.s, self.v, self.pw = "vec2<u32>", "vec4<f32>", 2
                self.wgsl = extra + (
                    f"fn ld(w: vec2<u32>) -> vec4<f32> {{ return vec4<f32>({un}(w.x), "
                    f"{un}(w.y)); }}\n"
                    f"fn st(v: vec4<f32>) -> vec2<u32> {{ return vec2<u32>({pk}(v.xy), "
                    f"{pk}(v.zw)); }}\n"
                    "fn hsum(v: vec4<f32>) -> f32 { return (v.x + v.y) + (v.z + v.w); }\n"
                    "fn pst0(v: vec4<f32>) -> vec2<u32> { return bitcast<vec2<u32>>(v.xy); }\n"
                    "fn pst1(v: vec4<f32>) -> vec2<u32> { return bitcast<vec2<u32>>(v.zw); }\n"
                    "fn pld(a: vec2<u32>, b: vec2<u32>) -> vec4<f32> { return vec4<f32>("
                    "bitcast<vec2<f32>>(a), bitcast<vec2<f32>>(b)); }")
            else:
                self.s, self.v, self.pw = "u32", "vec2<f32>", 2
                self.wgsl = extra + (
                    f"fn ld(w: u32) -> vec2<f32> {{ return {un}(w); }}\n"
                    f"fn st(v: vec2<f32>) -> u32 {{ return {pk}(v); }}\n"
                    "fn hsum(v: vec2<f32>) -> f32 { return v.x + v.y; }\n"
                    "fn pst0(v: vec2<f32>) -> u32 { return bitcast<u32>(v.x); }\n"
                    "fn pst1(v: vec2<f32>) -> u32 { return bitcast<u32>(v.y); }\n"
                    "fn pld(a: u32, b: u32) -> vec2<f32> { return vec2<f32>(bitcast<f32>(a), "
                    "bitcast<f32>(b)); }")
            return
        self.a = "f64" if d == "float64" else "f32"
        self.s = self.v = self.a if lanes == 1 else f"vec{lanes}<{self.a}>"
        self.pw = 1
        comps = "v" if lanes == 1 else " + ".join(f"v[{i}]" for i in range(lanes))
        v = self.v
        self.wgsl = (f"fn ld(w: {v}) -> {v} {{ return w; }}\n"
                     f"fn st(v: {v}) -> {v} {{ return v; }}\n"
                     f"fn hsum(v: {v}) -> {self.a} {{ return {comps}; }}\n"
                     f"fn pst0(v: {v}) -> {v} {{ return v; }}\n"
                     f"fn pld(a: {v}) -> {v} {{ return a; }}")

    @property
    def nbytes(self) -> int:
        """Bytes of one storage unit."""
        return self.lanes * (2 if self.d in _HALVES else 8 if self.d == "float64" else 4)

    def header(self) -> str:
        eps = "bitcast<f32>(p(8u))" if self.a == "f32" else \
            "bitcast<f64>(u64(p(8u)) | (u64(p(9u)) << 32u))"
        return f"""{HEADER}
{self.wgsl}
fn eps() -> {self.a} {{ return {eps}; }}"""

    def part_store(self, off: str, val: str) -> str:
        """WGSL storing partial unit ``val`` (f32/f64 lanes) at partial index expression
        ``off`` (in partial units) of O."""
        if self.pw == 1:
            return f"O[{off}] = pst0({val});"
        return f"O[2u * ({off})] = pst0({val}); O[2u * ({off}) + 1u] = pst1({val});"

    def part_load(self, buf: str, off: str) -> str:
        if self.pw == 1:
            return f"pld({buf}[{off}])"
        return f"pld({buf}[2u * ({off})], {buf}[2u * ({off}) + 1u])"


@lru_cache(maxsize=None)
def form(d: str, lanes: int) -> Form:
    """One Form per (dtype, lanes): built once, its WGSL strings are not per call."""
    return Form(d, lanes)


def _pow2ceil(v: int) -> int:
    return 1 << max(0, (v - 1).bit_length())


def plan(units: int, direction: str, wg_max: int = 1024, per: int = 4) -> tuple[int, int]:
    """(WG invocations per row/workgroup, K register units per invocation; 0 = re-read).
    About ``per`` units per invocation for rows up to 256 * per units (the bytes in
    flight are the workgroup's whole row whatever K is; fewer invocations make the
    reductions cheaper, and lavapipe, which runs invocations one by one, much faster);
    wider rows take more units, up to NUMR_NN_WEBGPU_FWD_K / _BWD_K, then a larger
    workgroup, before they give up registers."""
    cfg = _config.settings()
    return _plan(units, wg_max, per, cfg.nn_webgpu_fwd_k if direction == "fwd" else
                 cfg.nn_webgpu_bwd_k)


@lru_cache(maxsize=1024)
def _plan(units: int, wg_max: int, per: int, kmax: int) -> tuple[int, int]:
    wg = min(256, max(32, _pow2ceil(-(-units // per))))
    k = -(-units // wg)
    if k > kmax:
        wg = min(wg_max, max(wg, _pow2ceil(-(-units // kmax))))
        k = -(-units // wg)
    return (wg, k) if k <= kmax else (wg_max, 0)


_LOOP = re.compile(r"for \(var j = 0u; j < (\d+)u; j = j \+ 1u\) \{")
_ARRAY = re.compile(r"var (\w+): array<([^;]+), (\d+)>;")


def unroll(src: str) -> str:
    """The register loops ``for (var j = 0u; j < Ku; ...)`` written out K times, and
    their ``array<T, K>`` variables as K plain variables: indices become constants, so
    no driver has to unroll and promote a private array to keep the row in registers
    (a spilled array would put it in local memory, a second trip through the caches)."""
    out, pos = [], 0
    for m in _LOOP.finditer(src):
        if m.start() < pos:
            continue
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        body = src[m.end():i - 1]
        copies = []
        for j in range(int(m.group(1))):
            b = re.sub(r"(\w+)\[j\]", lambda q: f"{q.group(1)}_{j}", body)
            copies.append("{" + b.replace("j * ", f"{j}u * ") + "}")
        out += [src[pos:m.start()], "\n".join(copies)]
        pos = i
    out.append(src[pos:])
    src = "".join(out)
    return _ARRAY.sub(lambda m: " ".join(f"var {m.group(1)}_{j}: {m.group(2)};"
                                         for j in range(int(m.group(3)))), src)


def _reductions(a: str, wg: int, subgroups: bool) -> str:
    """WGSL ``wsum{k}(x: vec2<a>) -> vec2<a>``, k = 0, 1, 2: the sum of ``x`` over the
    workgroup, returned to every invocation (call in uniform control flow). Consecutive
    calls must use different k (each has its own buffer, read after its one barrier)."""
    t = f"vec2<{a}>"
    if subgroups:
        # slots: one per subgroup; every real adapter's subgroups have >= 4 invocations
        slots = max(1, wg // 4)
        out = []
        for k in range(3):
            out.append(f"""var<workgroup> red{k}: array<{t}, {slots}>;
fn wsum{k}(x: {t}) -> {t} {{
  let s = subgroupAdd(x);
  if (SGI == 0u) {{ red{k}[SID] = s; }}
  workgroupBarrier();
  var r = {t}(0);
  for (var i = 0u; i < NSG; i = i + 1u) {{ r = r + red{k}[i]; }}
  return r;
}}""")
        return "\n".join(out)
    # two levels: 32 invocations sum strided slots, then everyone sums those 32. One
    # pair of buffers serves every call: each is rewritten only after a barrier that
    # follows all reads of its previous contents.
    out = [f"""var<workgroup> redA: array<{t}, {wg}>;
var<workgroup> redB: array<{t}, 32>;
fn wsum(x: {t}) -> {t} {{
  redA[LI] = x;
  workgroupBarrier();
  if (LI < 32u) {{
    var r = {t}(0);
    for (var i = LI; i < {wg}u; i = i + 32u) {{ r = r + redA[i]; }}
    redB[LI] = r;
  }}
  workgroupBarrier();
  var r = {t}(0);
  for (var i = 0u; i < 32u; i = i + 1u) {{ r = r + redB[i]; }}
  return r;
}}"""]
    out += [f"fn wsum{k}(x: {t}) -> {t} {{ return wsum(x); }}" for k in range(3)]
    return "\n".join(out)


def _segment_reductions(a: str, t: int, size: int) -> str:
    """``wsum{k}`` as _reductions gives them, for a workgroup of ``size`` invocations
    holding size / t rows of ``t`` consecutive invocations each: the sum over the caller's
    row. Through workgroup memory (t is at most 16 here): subgroups need not line up with
    rows on every adapter."""
    v = f"vec2<{a}>"
    return "\n".join(f"""var<workgroup> seg{k}: array<{v}, {size}>;
fn wsum{k}(x: {v}) -> {v} {{
  seg{k}[LI] = x;
  workgroupBarrier();
  let first = (LI / {t}u) * {t}u;
  var r = {v}(0);
  for (var i = 0u; i < {t}u; i = i + 1u) {{ r = r + seg{k}[first + i]; }}
  return r;
}}""" for k in range(3))


def _entry(subgroups: bool) -> tuple[str, str]:
    """(extra entry-point parameters, statements storing them in private variables)."""
    if subgroups:
        return (", @builtin(subgroup_id) sid: u32, @builtin(num_subgroups) nsg: u32, "
                "@builtin(subgroup_invocation_id) sgi: u32",
                "SID = sid; NSG = nsg; SGI = sgi; LI = l;")
    return "", "LI = l;"


def _main(t: str, reads: tuple, write: str, wg: int, params: str = "", decls: str = "") -> str:
    """The storage bindings (binding 0 is the uniform P of Form.header): ``reads``
    read-only and then ``write`` read-write arrays of ``t``; ``decls`` after them; then
    the head of the entry point, ``wid``/``nw``/``l`` its builtins, ``params`` more."""
    binds = [f"@group(0) @binding({i}) var<storage, read> {name}: array<{t}>;"
             for i, name in enumerate(reads, 1)]
    binds.append(f"@group(0) @binding({len(reads) + 1}) var<storage, read_write> {write}: "
                 f"array<{t}>;")
    return "\n".join(binds) + decls + f"""
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32{params}) {{"""


_PRIVATE = "var<private> LI: u32;\nvar<private> SID: u32;\nvar<private> NSG: u32;\n" \
    "var<private> SGI: u32;"


def _accumulate(f: Form, center: bool, shift: Optional[str]) -> tuple[str, str]:
    """(declarations before a row's gather, the accumulation of its unit ``e``). Rms norm
    sums e * e, layer norm e. With ``shift`` (the row's first unit, as WGSL), layer norm
    also sums the squares of d = e - K, K that unit's first element, so that one workgroup
    sum gives mean and variance (see _moments)."""
    if shift is None:
        return "", f"acc = acc + {'hsum(e)' if center else 'hsum(e * e)'};"
    lane0 = "" if f.v == f.a else ".x"
    return (f"let K = ({shift}){lane0};\n  let Kv = {f.v}(K);\n  var acc2 = {f.a}(0);",
            "let d = e - Kv; acc = acc + hsum(d); acc2 = acc2 + hsum(d * d);")


def _moments(a: str, center: bool, shifted: bool, dev: str) -> str:
    """WGSL for the row's ``mu`` and ``vr`` from what _accumulate summed. Shifted: from
    the one sum of (d, d * d); var = E[d^2] - E[d]^2 cancels little while K is within a
    few standard deviations of the mean (the shifted-data algorithm of Chan, Golub &
    LeVeque, 1983), and the row needs one workgroup sum (a barrier and a pass over the
    subgroup slots) instead of two. Otherwise layer norm runs the second pass ``dev``
    over the deviations and reduces it with wsum1."""
    if shifted:
        return (f"let t2 = wsum0(vec2<{a}>(acc, acc2));\n  let m = t2.x / n;\n"
                f"  let mu = K + m;\n  let vr = max(t2.y / n - m * m, {a}(0));")
    total = f"let total = wsum0(vec2<{a}>(acc, {a}(0))).x;\n  "
    if not center:
        return total + f"let mu = {a}(0);\n  let vr = total / n;"
    return (total + f"let mu = total / n;\n  var dev = {a}(0);\n  {dev}\n"
            f"  let vr = wsum1(vec2<{a}>(dev, {a}(0))).x / n;")


def fwd_source(f: Form, wg: int, k: int, center: bool, has_r: bool, has_w: bool,
               has_b: bool, subgroups: bool, exact: bool = False, rows: int = 1,
               onepass: bool = False) -> str:
    """``wg`` invocations a row, ``rows`` rows a workgroup (more than one for narrow rows:
    then the rows of a workgroup past the last row compute the last row again and write
    nothing, so that every invocation reaches the barriers).

    exact: the row is exactly k units an invocation (units == wg * k), so the register
    loops need no bounds test: untested, each unit's loads and arithmetic are one block,
    and the compiler cannot issue the next unit's loads (the weight's and bias's in the
    write) before the previous unit's arithmetic has waited for its own."""
    s, v, a = f.s, f.v, f.a
    multi = rows > 1
    live = "if (live) " if multi else ""
    # params: 0 rows, 1 units per row, 2 n, 3-6 offsets of x, r, w, b (units),
    # 7 offset of s in the output (units), 8-9 eps
    load = ("let e = ld(st(ld(X[p(3u) + base + u]) + ld(R[p(4u) + base + u])));\n"
            f"      {live}{{ Y[p(7u) + base + u] = st(e); }}") if has_r else \
        "let e = ld(X[p(3u) + base + u]);"
    src = "Y[p(7u) + base + u]" if has_r else "X[p(3u) + base + u]"
    affine = (" * ld(W[p(5u) + u])" if has_w else "") + (" + ld(B[p(6u) + u])" if has_b else "")
    shifted = bool(center and k and onepass)
    first = "ld(X[p(3u) + base])" + (" + ld(R[p(4u) + base])" if has_r else "")
    decl, step = _accumulate(f, center, first if shifted else None)
    if k:
        # exact: no bounds tests, each unit's statements a plain block (see the docstring)
        when = "" if exact else "if (u < U) "
        zero = "" if exact else f" else {{ vals[j] = {v}(0); }}"
        gather = f"""  var vals: array<{v}, {k}>;
  for (var j = 0u; j < {k}u; j = j + 1u) {{
    let u = li + j * {wg}u;
    {when}{{
      {load}
      vals[j] = e;
      {step}
    }}{zero}
  }}"""
        dev = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
    let u = li + j * {wg}u;
    {when}{{ let q = vals[j] - mu; dev = dev + hsum(q * q); }}
  }}"""
        write = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
    let u = li + j * {wg}u;
    {when}{{ Y[base + u] = st((vals[j] - mu) * rstd{affine}); }}
  }}"""
    else:
        gather = f"""  for (var u = li; u < U; u = u + {wg}u) {{
    {load}
    {step}
  }}"""
        dev = f"""for (var u = li; u < U; u = u + {wg}u) {{
    let q = ld({src}) - mu; dev = dev + hsum(q * q);
  }}"""
        write = f"""for (var u = li; u < U; u = u + {wg}u) {{
    Y[base + u] = st((ld({src}) - mu) * rstd{affine});
  }}"""
    if multi:
        params, store = _entry(False)
        reductions = _segment_reductions(a, wg, wg * rows)
        head = f"""let first = (wid.x + wid.y * nw.x) * {rows}u;
  // the whole workgroup leaves together (2-D grids overshoot): barriers stay uniform
  if (first >= p(0u)) {{ return; }}
  let li = l % {wg}u;
  let live = first + l / {wg}u < p(0u);
  let row = min(first + l / {wg}u, p(0u) - 1u);"""
    else:
        params, store = _entry(subgroups)
        reductions = _reductions(a, wg, subgroups)
        head = """let row = wid.x + wid.y * nw.x;
  // the whole workgroup leaves together (2-D grids overshoot): barriers stay uniform
  if (row >= p(0u)) { return; }
  let li = l;"""
    return unroll(f"""{f.header()}
{_PRIVATE}
{reductions}
{_main(s, ("X", "R", "W", "B"), "Y", wg * rows, params)}
  {store}
  {head}
  let U = p(1u);
  let n = {a}(p(2u));
  let base = row * U;
  var acc = {a}(0);
  {decl}
{gather}
  {_moments(a, center, shifted, dev)}
  let rstd = {a}(1) / sqrt(vr + eps());
  {live}{{
  {write}
  }}
}}""")


def bwd_source(f: Form, wg: int, k: int, center: bool, has_gs: bool, has_w: bool,
               want_w: bool, want_b: bool, subgroups: bool, rows: int = 1,
               onepass: bool = True) -> str:
    """``wg`` invocations a row; with ``rows`` > 1 (narrow rows, held in registers), that
    many row-groups a workgroup each take a row a step, the workgroup's steps as many as
    its first row-group's (rows past the last compute the last again and neither write nor
    add to the partials), and the row-groups' partials are summed in workgroup memory
    into the workgroup's one partial row."""
    s, v, a = f.s, f.v, f.a
    multi = rows > 1
    live = "if (live) " if multi else ""
    # params: 0 rows, 1 units per row, 2 n, 3-6 offsets of gy, s, gs, w (units),
    # 7 workgroups, 8-9 eps, 10 offset of the partials in O (partial units); partial
    # row g of dw at 10 + g * U, of db at 10 + (groups + g) * U (partial units).
    wmul = " * ld(W[p(6u) + u])" if has_w else ""
    gs_add = " + ld(GS[p(5u) + base + u])" if has_gs else ""
    pw_off = "p(10u) + g * U + u"
    pb_off = "p(10u) + (groups + g) * U + u"
    shifted = bool(center and k and onepass)
    decl, step = _accumulate(f, center, "ld(S[p(4u) + base])" if shifted else None)
    if k:
        regs = f"  var xs: array<{v}, {k}>;\n  var gg: array<{v}, {k}>;"
        for name, on in (("pw", want_w), ("pb", want_b)):
            if on:
                regs += (f"\n  var {name}: array<{v}, {k}>;\n"
                         f"  for (var j = 0u; j < {k}u; j = j + 1u) {{ {name}[j] = {v}(0); }}")
        gather = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
      let u = li + j * {wg}u;
      if (u < U) {{
        let e = ld(S[p(4u) + base + u]);
        xs[j] = e;
        gg[j] = ld(GY[p(3u) + base + u]);
        {step}
      }} else {{ xs[j] = {v}(0); gg[j] = {v}(0); }}
    }}"""
        dev = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
      if (li + j * {wg}u < U) {{ let q = xs[j] - mu; dev = dev + hsum(q * q); }}
    }}"""
        accw = ("pw[j] = pw[j] + gg[j] * xh;" if want_w else "") + \
            (" pb[j] = pb[j] + gg[j];" if want_b else "")
        accw = f"\n          {live}{{ {accw} }}" if accw else ""
        middle = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
      let u = li + j * {wg}u;
      if (u < U) {{
        let xh = (xs[j] - mu) * rstd;
        xs[j] = xh;{accw}
        let gw = gg[j]{wmul};
        gg[j] = gw;
        sg = sg + hsum(gw);
        sgx = sgx + hsum(gw * xh);
      }}
    }}"""
        write = f"""for (var j = 0u; j < {k}u; j = j + 1u) {{
      let u = li + j * {wg}u;
      if (u < U) {{ O[base + u] = st(rstd * (gg[j] - mg - xs[j] * mgx){gs_add}); }}
    }}"""
        if multi:
            write = f"if (live) {{ {write} }}"
        flush = _flush(f, wg, k, rows, want_w, want_b, pw_off, pb_off)
        init = ""
    else:
        # rows too wide for registers: read again, partials accumulated in O (each
        # invocation owns its columns of its workgroup's partial rows: no races)
        regs = ""
        gather = f"""for (var u = l; u < U; u = u + {wg}u) {{
      let e = ld(S[p(4u) + base + u]);
      {step}
    }}"""
        dev = f"""for (var u = l; u < U; u = u + {wg}u) {{
      let q = ld(S[p(4u) + base + u]) - mu; dev = dev + hsum(q * q);
    }}"""
        accw = ""
        if want_w:
            accw += "\n      " + f.part_store(pw_off, f.part_load("O", pw_off) + " + gy * xh")
        if want_b:
            accw += "\n      " + f.part_store(pb_off, f.part_load("O", pb_off) + " + gy")
        middle = f"""for (var u = l; u < U; u = u + {wg}u) {{
      let xh = (ld(S[p(4u) + base + u]) - mu) * rstd;
      let gy = ld(GY[p(3u) + base + u]);
      let gw = gy{wmul};
      sg = sg + hsum(gw);
      sgx = sgx + hsum(gw * xh);{accw}
    }}"""
        write = f"""for (var u = l; u < U; u = u + {wg}u) {{
      let xh = (ld(S[p(4u) + base + u]) - mu) * rstd;
      let gw = ld(GY[p(3u) + base + u]){wmul};
      O[base + u] = st(rstd * (gw - mg - xh * mgx){gs_add});
    }}"""
        flush = ""
        zero = ((f.part_store(pw_off, f"{v}(0)") + " ") if want_w else "") + \
            (f.part_store(pb_off, f"{v}(0)") if want_b else "")
        init = f"""  for (var u = l; u < U; u = u + {wg}u) {{ {zero} }}""" \
            if (want_w or want_b) else ""
    # reduction buffers: total 0, dev 1 (layer), sums 1 or 2: consecutive calls differ,
    # also across the loop's wrap (last -> 0)
    last = 2 if center else 1
    if multi:
        assert k, "narrow rows are held in registers"
        params, store = _entry(False)
        reductions = _segment_reductions(a, wg, wg * rows) + "".join(
            f"\nvar<workgroup> c{n}: array<{v}, {wg * rows * k}>;"
            for n, on in (("pw", want_w), ("pb", want_b)) if on)
        loop = f"""let li = l % {wg}u;
  let first = g * {rows}u + l / {wg}u;   // this row-group's first row
  let stride = groups * {rows}u;
  // as many steps as the workgroup's first row-group takes: barriers stay uniform
  let steps = select(0u, (rows - g * {rows}u + stride - 1u) / stride, g * {rows}u < rows);
  for (var i = 0u; i < steps; i = i + 1u) {{
    let live = first + i * stride < rows;
    let row = min(first + i * stride, rows - 1u);"""
    else:
        params, store = _entry(subgroups)
        reductions = _reductions(a, wg, subgroups)
        loop = """let li = l;
  for (var row = g; row < rows; row = row + groups) {"""
    return unroll(f"""{f.header()}
{_PRIVATE}
{reductions}
{_main(s, ("GY", "S", "GS", "W"), "O", wg * rows, params)}
  {store}
  let g = wid.x + wid.y * nw.x;
  let groups = p(7u);
  if (g >= groups) {{ return; }}
  let rows = p(0u);
  let U = p(1u);
  let n = {a}(p(2u));
{regs}
{init}
  {loop}
    let base = row * U;
    var acc = {a}(0);
    {decl}
    {gather}
    {_moments(a, center, shifted, dev)}
    let rstd = {a}(1) / sqrt(vr + eps());
    var sg = {a}(0);
    var sgx = {a}(0);
    {middle}
    let sums = wsum{last}(vec2<{a}>(sg, sgx));
    let mg = {"sums.x / n" if center else a + "(0)"};
    let mgx = sums.y / n;
    {write}
  }}
{flush}
}}""")


def _flush(f: Form, wg: int, k: int, rows: int, want_w: bool, want_b: bool, pw_off: str,
           pb_off: str) -> str:
    """WGSL storing the register partials ``pw``/``pb`` as the workgroup's partial rows;
    with several row-groups (``rows`` > 1), their partials of the same columns summed
    first through workgroup memory (unit j of invocation l at j * size + l)."""
    if not (want_w or want_b):
        return ""
    names = [n for n, on in (("pw", want_w), ("pb", want_b)) if on]
    offs = {"pw": pw_off, "pb": pb_off}
    if rows == 1:
        parts = " ".join(f.part_store(offs[n], f"{n}[j]") for n in names)
        return f"""  for (var j = 0u; j < {k}u; j = j + 1u) {{
    let u = li + j * {wg}u;
    if (u < U) {{ {parts} }}
  }}"""
    size = wg * rows
    decl = "\n".join(f"  c{n}[j * {size}u + l] = {n}[j];" for n in names)
    sums = "\n".join(f"      var t{n} = {f.v}(0);\n      for (var r = 0u; r < {rows}u; "
                     f"r = r + 1u) {{ t{n} = t{n} + c{n}[j * {size}u + r * {wg}u + li]; }}\n"
                     f"      {f.part_store(offs[n], 't' + n)}" for n in names)
    return f"""  for (var j = 0u; j < {k}u; j = j + 1u) {{
{decl}
  }}
  workgroupBarrier();
  if (l < {wg}u) {{
    for (var j = 0u; j < {k}u; j = j + 1u) {{
      let u = li + j * {wg}u;
      if (u < U) {{
{sums}
      }}
    }}
  }}"""


def reduce_source(f: Form) -> str:
    """out[which * U + c] = sum over the partial rows q of part[which][q][c]: 16 columns
    by 16 lanes per workgroup (each lane sums every 16th partial row, coalesced across
    the columns), dw and db in one dispatch."""
    v, cols, lanes = f.v, _RED_COLS, _RED_LANES

    def ld(q: str) -> str:
        return f.part_load("I", f"p(2u) + (which * Q + {q}) * U + c")

    decls = f"""
var<workgroup> red: array<{v}, {cols * lanes}>;
// params: 0 units per row, 1 partial rows per gradient, 2 offset of the partials
// (partial units), 3 column groups, 4 first gradient (0 dw, 1 db), 5 gradients"""
    return f"""{f.header()}
{_main(f.s, ("I",), "O", cols * lanes, decls=decls)}
  let g = wid.x + wid.y * nw.x;
  let cg = p(3u);
  if (g >= p(5u) * cg) {{ return; }}
  let which = p(4u) + g / cg;
  let U = p(0u);
  let Q = p(1u);
  let c = (g % cg) * {cols}u + l % {cols}u;
  var acc = {v}(0);
  if (c < U) {{
    // four independent loads per trip: a lane keeps several in flight
    var a1 = {v}(0);
    var a2 = {v}(0);
    var a3 = {v}(0);
    var q = l / {cols}u;
    for (; q + {3 * lanes}u < Q; q = q + {4 * lanes}u) {{
      acc = acc + {ld("q")};
      a1 = a1 + {ld(f"q + {lanes}u")};
      a2 = a2 + {ld(f"q + {2 * lanes}u")};
      a3 = a3 + {ld(f"q + {3 * lanes}u")};
    }}
    for (; q < Q; q = q + {lanes}u) {{ acc = acc + {ld("q")}; }}
    acc = (acc + a1) + (a2 + a3);
  }}
  red[l] = acc;
  workgroupBarrier();
  if (l < {cols}u && c < U) {{
    var t = {v}(0);
    for (var i = 0u; i < {lanes}u; i = i + 1u) {{ t = t + red[l + i * {cols}u]; }}
    O[which * U + c] = st(t);
  }}
}}"""


# --- launching --------------------------------------------------------------------------

_WIDTHS = {"float16": (4, 2), "bfloat16": (4, 2), "float64": (2, 1), "float32": (4, 2, 1)}


def _operands(d: str, n: int, ops: tuple) -> tuple[int, Any]:
    """(the widest unit, in elements, dividing the width and every operand's offset;
    the offsets in units). Offsets are almost always 0: that case builds nothing."""
    m = ops[0].offset | ops[1].offset | ops[2].offset | ops[3].offset
    lanes = _lanes(d, n | m)
    return lanes, ([a.offset // lanes for a in ops] if m else _NO_OFFSETS)


_NO_OFFSETS = (0, 0, 0, 0)


@lru_cache(maxsize=256)
def _lanes(d: str, m: int) -> int:
    """The widest unit of dtype ``d`` dividing ``m``."""
    for w in _WIDTHS[d]:
        if m % w == 0:
            return w
    return 0


def _prep(a: Optional[GPUArray]) -> Optional[GPUArray]:
    """Contiguous, and word-aligned for packed float16 (other offsets only narrow the
    unit)."""
    if a is None:
        return None
    if not a.contiguous or (a.offset % 2 and a.dtype.name in _HALVES):
        return contiguous(a.rt, a)
    return a


_RT_CAPS: dict = {}


def _caps(rt: Any) -> tuple[bool, int]:
    """(subgroup reductions, largest workgroup) of a runtime, worked out once."""
    caps = _RT_CAPS.get(rt.index)
    if caps is None:
        caps = _RT_CAPS[rt.index] = (_subgroups(rt), _wg_max(rt))
    return caps


def _subgroups(rt: Any) -> bool:
    """Subgroup reductions: the feature is there and subgroups have at least 4
    invocations (the reductions keep wg / 4 slots). Note: wgpu-py 0.32 spells the
    adapter info key "stackgroup_min_size". float64 keeps the workgroup-memory sum: its
    speed is no target, and f64 subgroup arithmetic is untested on the GPUs numr runs."""
    if "subgroup" not in rt.features:
        return False
    info = rt.adapter.info
    low = info.get("subgroup_min_size", info.get("stackgroup_min_size", 4))
    return not isinstance(low, int) or low == 0 or low >= 4


def _wg_max(rt: Any) -> int:
    return min(1024, rt.limits.get("max-compute-invocations-per-workgroup", 256),
               rt.limits.get("max-compute-workgroup-size-x", 256))


@lru_cache(maxsize=64)
def _eps_words(eps: float, d: str) -> list:
    return scalar_words(eps, dt.float64 if d == "float64" else dt.float32) + \
        ([0] if d != "float64" else [])


def norm_forward(x, residual, weight, bias, eps: float, center: bool, want_sum: bool):
    """(y, s) as numr.nn._cpu.norm_forward on GPUArrays; None where the composite must
    run (float16 rows of odd width)."""
    d = x.dtype.name
    n = x.shape[-1] if x.shape else 1
    if d in _HALVES and n % 2:
        return None
    rt = x.rt
    x, residual, weight, bias = _prep(x), _prep(residual), _prep(weight), _prep(bias)
    shape = x.shape
    rows = x.size // n if n else 0
    has_r = residual is not None
    if has_r and 2 * x.size * x.dtype.itemsize > rt.max_buffer:
        # y and s do not fit one buffer: s first (one more read of it), then the norm
        from ..backends.webgpu.kernels.map import launch

        s = launch(rt, "add", "a + b", ((x, x.dtype), (residual, x.dtype)), x.dtype, shape)
        y, _ = norm_forward(s, None, weight, bias, eps, center, False)
        return y, (s if want_sum else None)
    size = x.size
    out = rt.alloc(size * (2 if has_r else 1) * x.dtype.itemsize)
    strides = c_strides(shape)
    y = GPUArray(out, rt, shape, strides, 0, x.dtype, size)
    s = GPUArray(out, rt, shape, strides, size, x.dtype, size) if has_r else None
    if size == 0:
        return y, (s if want_sum else None)
    ops = (x, residual or x, weight or x, bias or x)
    lanes, offs = _operands(d, n, ops)
    # (the settings object too: an override plans afresh; numr/_config.py)
    sig = ("nn2_fwd", d, n, lanes, center, has_r, weight is not None, bias is not None,
           _config.settings())
    plan = rt.plans.get(sig)
    if plan is None:
        plan = rt.plans[sig] = _fwd_pipeline(rt, sig)
    pipe, per_group = plan
    rt.record(pipe, (x.storage.block, ops[1].storage.block, ops[2].storage.block,
                     ops[3].storage.block, out.block),
              [rows, n // lanes, n, *offs, size // lanes, *_eps_words(eps, d)],
              rows if per_group == 1 else -(-rows // per_group))
    return y, (s if want_sum else None)


# Rows share a workgroup where they need fewer invocations than this. The backward's
# row sums through workgroup memory cost more a step than the forward's (two a step, in
# a loop), and on the H200 rows of 16 invocations shared ran slower there (float32
# 65536x256 layer backward 156 us against 91) while rows of 1 and 4 ran up to 2.7x
# faster (benchmarks/RESULTS.md, ninth session); the forward gained at 16 too.
_ROWS_BELOW = {"fwd": 32, "bwd": 8}


def row_plan(units: int, per: int, direction: str, wg_max: int) -> tuple[int, int, int]:
    """(invocations a row, register units an invocation, rows a workgroup): rows that
    need fewer than _ROWS_BELOW invocations of about ``per`` units share a workgroup of
    _ROWS_WG; others are planned by ``plan``."""
    t = _pow2ceil(-(-units // per))
    if t < _ROWS_BELOW[direction]:
        return t, -(-units // t), _ROWS_WG // t
    return (*plan(units, direction, wg_max, per), 1)


def _fwd_pipeline(rt: Any, sig: tuple) -> tuple:
    """(the forward's pipeline, rows a workgroup) for a launch signature (looked up once
    per signature: the per-call host work is on the path of every small op)."""
    _, d, n, lanes, center, has_r, hw, hb, cfg = sig
    sub, wg_max = _caps(rt)
    sub = sub and cfg.webgpu_subgroups and d != "float64"  # see _subgroups
    f = form(d, lanes)
    # about 64 bytes an invocation: 4 units of 16 bytes, 8 of float16's 8 (H200, float16
    # layer norm forward at 4096 wide: 22-24 us a call against 26-27 with 4 units)
    wg, k, rows = row_plan(n // lanes, max(4, min(cfg.nn_webgpu_fwd_k, 64 // f.nbytes)),
                           "fwd", wg_max)
    exact = cfg.nn_webgpu_exact and n // lanes == wg * k
    one = "fwd" in cfg.nn_webgpu_onepass
    key = ("nn2_fwd", d, lanes, wg, k, rows, center, has_r, hw, hb, sub, exact, one)
    return rt.pipeline(key, lambda: fwd_source(f, wg, k, center, has_r, hw, hb, sub, exact,
                                               rows, one), 5), rows


def _bwd_groups(rows: int, n: int, itemsize: int, per_group: int = 1) -> int:
    """Persistent workgroups of the backward. Each has ``per_group`` rows in flight (gy
    and s, about ``2 n itemsize`` bytes a row): enough of them to keep ~8 MB in flight
    (an H200 moves ~4.8 TB/s at ~1.5 us latency), at least two per SM of a 132-SM GPU,
    and no more than keep the partial rows (written and read back, two per workgroup,
    f32) within ~6% of the traffic where that does not go below that floor."""
    fixed = _config.settings().nn_webgpu_bwd_groups
    if fixed:
        return max(1, min(rows, fixed))
    inflight = -(-(8 << 20) // max(1, 2 * n * itemsize * per_group))
    traffic = rows * itemsize * 9 // 800      # 0.06 * 3 * rows * itemsize / 16
    return max(1, min(-(-rows // per_group), 2048, max(264, min(inflight, traffic))))


def norm_backward(grad_y, s, grad_s, weight, eps: float, center: bool, want_weight: bool,
                  want_bias: bool):
    """(grad_s_total, grad_weight, grad_bias) as numr.nn._cpu.norm_backward; None where
    the composite must run."""
    d = s.dtype.name
    n = s.shape[-1] if s.shape else 1
    if d in _HALVES and n % 2:
        return None
    rt = s.rt
    grad_y, s, grad_s, weight = _prep(grad_y), _prep(s), _prep(grad_s), _prep(weight)
    shape = s.shape
    rows = s.size // n if n else 0
    ops = (grad_y, s, grad_s or grad_y, weight or s)
    lanes, offs = _operands(d, n, ops)
    f = form(d, lanes)
    units = n // lanes
    sig = ("nn2_bwd", d, n, lanes, center, grad_s is not None, weight is not None,
           want_weight, want_bias, _config.settings())
    pipes = rt.plans.get(sig)
    if pipes is None:
        pipes = rt.plans[sig] = _bwd_pipelines(rt, sig)
    groups = _bwd_groups(rows, n, s.dtype.itemsize, pipes[2])
    want = want_weight or want_bias
    # partials after gx, in partial units (f32/f64 of one unit): gx rounded up to a whole
    # partial unit; dw rows then db rows, each `groups` x units
    part_off = -(-(rows * units) // f.pw)
    if want:
        # fewer workgroups where gx and the partials would not fit one buffer
        room = rt.max_buffer // (f.pw * f.nbytes) - part_off
        groups = max(1, min(groups, room // max(1, 2 * units)))
    nparts = 2 * groups * units if want else 0
    out = rt.alloc((part_off + nparts) * f.pw * f.nbytes)
    gx = GPUArray(out, rt, shape, c_strides(shape), 0, s.dtype, s.size)
    if s.size == 0:
        zeros = _zeros(rt, n, s.dtype)
        return gx, (zeros if want_weight else None), (zeros if want_bias else None)
    params = [rows, units, n, *offs, groups, *_eps_words(eps, d), part_off]
    rt.record(pipes[0], (grad_y.storage.block, s.storage.block, ops[2].storage.block,
                         ops[3].storage.block, out.block), params, groups)
    if not want:
        return gx, None, None
    red = rt.alloc(2 * n * s.dtype.itemsize)
    cg = -(-units // _RED_COLS)
    count = 2 if (want_weight and want_bias) else 1
    rt.record(pipes[1], (out.block, red.block),
              [units, groups, part_off, cg, 0 if want_weight else 1, count], cg * count)
    gw = GPUArray(red, rt, (n,), (1,), 0, s.dtype) if want_weight else None
    gb = GPUArray(red, rt, (n,), (1,), n, s.dtype) if want_bias else None
    return gx, gw, gb


def _bwd_pipelines(rt: Any, sig: tuple) -> tuple:
    """(backward pipeline, partial-reduce pipeline, rows a workgroup) for a launch
    signature."""
    _, d, n, lanes, center, hgs, hw, want_w, want_b, cfg = sig
    sub, wg_max = _caps(rt)
    sub = sub and cfg.webgpu_subgroups and d != "float64"  # see _subgroups
    wg, k, rows = row_plan(n // lanes, 4, "bwd", wg_max)
    f = form(d, lanes)
    one = "bwd" in cfg.nn_webgpu_onepass
    key = ("nn2_bwd", d, lanes, wg, k, rows, center, hgs, hw, want_w, want_b, sub, one)
    main = rt.pipeline(key, lambda: bwd_source(f, wg, k, center, hgs, hw, want_w, want_b,
                                               sub, rows, one), 5)
    red = rt.pipeline(("nn2_red", d, lanes), lambda: reduce_source(f), 2)
    return main, red, rows


def _zeros(rt: Any, n: int, dtype: Any) -> GPUArray:
    from ..backends.webgpu.kernels.map import launch

    return launch(rt, "fill", "a", ((0, dtype),), dtype, (n,))

"""Two templates for linear algebra: a tiled, register-blocked matrix product and a
contraction (a reduction of a per-element term of one or two operands).

matmul: ``C[b, m, n] = sum_k A[b, m, k] * B[b, k, n]`` for strided A and B (batch axes
broadcast with stride 0). Each workgroup of 16 x 16 invocations computes one BM x BN
tile of C; each invocation a TM x TN block held in registers. K is walked in steps of
BK: the A (BM x BK) and B (BK x BN) tiles go to workgroup memory, and the next step's
tiles are loaded from global memory into registers while this step's are multiplied,
so global latency hides behind arithmetic. Real types keep tiles and accumulators as
vec4s (one 128-bit workgroup load feeds four multiply-adds); operands whose rows are
contiguous and 16-byte aligned are read from global memory as vec4s too. Complex
types are vec2 (re, im) scalars. Results are written unpacked (i32/u32/f32/...);
callers cast to packed dtypes afterwards.

Large float32 products with vec4-readable operands run a second generator of the same
scheme, :func:`tiled_source`, whose inner loop indexes workgroup memory at constant
offsets only (see its docstring); float16 and bfloat16 products run it too, widening
each vec4 of elements to float32 on its way to workgroup memory (float32 sums, as the
generic kernel's). Its tile is chosen by the variable NUMR_WEBGPU_MATMUL_TILE
(numr/_config.py; ``128x128x16-w4x8`` by default, ``old``: the generic kernel);
``python benchmarks/webgpu_matmul.py --tiles SPEC,SPEC,...`` times several in one run.

contract: ``out[o] = fin(fold_j term(a[o, j], b[o, j], s[o]), s[o])`` with ``fold``
sum, max or min: vecdot, traces and norms. One workgroup per output element (a tree
in workgroup memory) when the reduced length is long, one invocation per output when
it is short.
"""

from __future__ import annotations

import functools
from typing import Any

from .... import _config
from ...._dtypes import DType
from . import expressions as wops
from .template import HEADER, specialise
from .types import LAYOUT, ctype, load_fn

THREADS = 256
WX = WY = 16

_HEAD = [HEADER,
         "fn ip(k: u32) -> i32 { return bitcast<i32>(P[k >> 2u][k & 3u]); }"]


def compute_type(d: DType) -> str:
    """The WGSL type one element is computed in (bool as u32 0/1)."""
    return "u32" if d.name == "bool" else ctype(d)


def vector_ok(d: DType) -> bool:
    """Whether tiles and accumulators of ``d`` can be vec4s (real, not complex)."""
    return d.kind != "complex"


def global_vec_ok(d: DType) -> bool:
    """Whether ``d`` can be read from global memory as vec4s (unpacked real types)."""
    storage, ct, per_word, _ = LAYOUT[d.name]
    return d.kind != "complex" and per_word == 1 and storage == ct


def _stores(col: str, acc: str, vec_out: bool, lanes: int) -> list[str]:
    """WGSL storing accumulator ``acc`` (``lanes`` columns from ``col``) into row ``m`` of
    the result: one vec4 where the result is read as vec4s (N % 4 == 0: a vec4 is inside or
    outside whole), else column by column, each bounds-checked."""
    if vec_out:
        return [f"      {{ let n = {col}; if (n < N) {{ y[(yb + m * N + n) >> 2u] = {acc}; }} }}"]
    if lanes == 1:
        return [f"      {{ let n = {col}; if (n < N) {{ y[yb + m * N + n] = {acc}; }} }}"]
    return [f"      {{ let n = {col} + {j}u; if (n < N) {{ y[yb + m * N + n] = {acc}[{j}]; }} }}"
            for j in range(lanes)]


# -- tile choice ----------------------------------------------------------------------

# Large float32 (and float16/bfloat16, widened to float32 on load) products run the
# "register-tiled" kernel (:func:`tiled_source`), whose tile is chosen by this variable
# (numr/_config.py) so a GPU can be swept without code edits (benchmarks/webgpu_matmul.py
# --tiles does): ``BMxBNxBK[-wRxC][-gYxX][-split][-checked]`` (BM, BN in 64/128/256, BK
# in 8/16/32; R x C the invocations one 32-wide wave covers; Y x X the invocation grid,
# 16 x 16 when absent; -split: steps whose tiles lie inside the matrices load without
# per-load tests, the others with; -checked: keep WebGPU's runtime bounds checks, see
# below) or
# ``old`` (the generic kernel's 128 x 128 x 8 for every large product). The default's
# 4 x 8 waves read 4 A and 8 B vec4s per step of k (64 + 128 bytes: one workgroup-memory
# wavefront each, a common lane shape of SIMT SGEMM kernels); 2 x 16 waves read 2 and 16.
# Sweep on an H200 (2026-11-30, 8192^3 float32, share of CuPy's TFLOP/s, bounds checks
# on): old 0.459, 128x128x8 0.626, 128x128x8-w4x8 0.615, 128x128x16-w4x8 0.640,
# 128x64x16-w4x8 0.462.
#
# Bounds checks: WebGPU clamps every dynamic index (naga's "Restrict" policy) and bounds
# every loop. The tiled kernel's indices are in range by construction (global reads and
# writes sit behind explicit row/column/k tests, workgroup indices are constants or
# grid coordinates below the grid's size), so its module is made "trusted", without
# those checks, where the adapter's wgpu allows it (runtime.Runtime.pipeline).
TILE_ENV = "NUMR_WEBGPU_MATMUL_TILE"
TILED_MIN = 512  # both result sides at least this: smaller products use 64 x 64 tiles
TILED_DTYPES = ("float32", "float16", "bfloat16")
_tiled_min = [TILED_MIN]


class Tile(tuple[Any, ...]):
    """A tiled-kernel configuration: (BM, BN, BK, TM, TN, "tiled", R, GY, GX, checked,
    split),
    a tuple (plan keys hold it) with names for its fields."""
    __slots__ = ()

    @property
    def BM(self) -> int:
        return self[0]

    @property
    def BN(self) -> int:
        return self[1]

    @property
    def BK(self) -> int:
        return self[2]

    @property
    def TM(self) -> int:
        return self[3]

    @property
    def TN(self) -> int:
        return self[4]

    @property
    def wr(self) -> int:
        return self[6]

    @property
    def gy(self) -> int:
        return self[7]

    @property
    def gx(self) -> int:
        return self[8]

    @property
    def checked(self) -> bool:
        return self[9]

    @property
    def split(self) -> bool:
        return self[10]

    @property
    def threads(self) -> int:
        return self[7] * self[8]


def _tile_error(spec: str) -> ValueError:
    return ValueError(f"{TILE_ENV}={spec!r}: expected 'old' or BMxBNxBK[-wRxC][-gYxX]"
                      "[-split][-checked] with BM, BN in 64/128/256, BK in 8/16/32, a Y x X grid "
                      "of 64 to 256 invocations each owning a multiple of 4 rows and "
                      "columns, whole vec4 tile loads per invocation, R x C = 32 "
                      "(R <= Y, C <= X), e.g. 128x128x8, 128x128x16-w4x8, 64x128x16-g8x16")


@functools.lru_cache(maxsize=32)
def parse_tile(spec: str) -> Tile | None:
    """The :class:`Tile` of ``spec`` (see TILE_ENV), or None for ``old``."""
    s = spec.strip().lower()
    if s == "old":
        return None
    tile, *opts = s.split("-")
    wr, wc, gy, gx, checked, split = 2, 16, WY, WX, False, False
    try:
        bm, bn, bk = (int(v) for v in tile.split("x"))
        for o in opts:
            if o == "checked":
                checked = True
            elif o == "split":
                split = True
            elif o[:1] == "w":
                wr, wc = (int(v) for v in o[1:].split("x"))
            elif o[:1] == "g":
                gy, gx = (int(v) for v in o[1:].split("x"))
            else:
                raise ValueError(o)
    except ValueError:
        raise _tile_error(spec) from None
    threads = gy * gx
    ok = (bm in (64, 128, 256) and bn in (64, 128, 256) and bk in (8, 16, 32)
          and 64 <= threads <= 256 and bm % (4 * gy) == 0 and bn % (4 * gx) == 0
          and (bm * bk // 4) % threads == 0 and (bn * bk // 4) % threads == 0
          and wr * wc == 32 and wr <= gy and wc <= gx and gy % wr == 0 and gx % wc == 0)
    if not ok:
        raise _tile_error(spec)
    return Tile((bm, bn, bk, bm // gy, bn // gx, "tiled", wr, gy, gx, checked, split))


def set_tiled_min(size: int) -> int:
    """Tests: the smallest result side that gets the chosen tile (TILED_MIN by default;
    smaller, so that lavapipe runs every tile quickly). Returns the previous value."""
    prev = _tiled_min[0]
    _tiled_min[0] = size
    return prev


def smem_bytes(cfg: tuple[int, ...], size: int = 4) -> int:
    """Workgroup memory of either kernel for ``cfg``: two A and two B tiles."""
    return 2 * (cfg[0] + cfg[1]) * cfg[2] * size


def config(d: DType, M: int, N: int, smem: int) -> tuple[int, ...]:
    """(BM, BN, BK, TM, TN) or a :class:`Tile` for a product of ``d`` with an M x N
    result: the chosen tile (see TILE_ENV) for large float32/float16/bfloat16 products
    (:func:`matmul_source` gives it to :func:`tiled_source` where the operands allow
    vec4 loads; the caller asks :func:`generic_config` where they do not), else
    :func:`generic_config`."""
    big = M >= _tiled_min[0] and N >= _tiled_min[0]
    cfg = parse_tile(_config.settings().webgpu_matmul_tile)
    if d.name in TILED_DTYPES and big and cfg is not None and smem_bytes(cfg) <= smem:
        return cfg
    return generic_config(d, M, N, smem)


def generic_config(d: DType, M: int, N: int, smem: int) -> tuple[int, int, int, int, int]:
    """The generic kernel's (BM, BN, BK, TM, TN): 128 x 128 (8 x 8 per invocation) for
    large 32-bit products, 64 x 64 (4 x 4) otherwise; BK as deep as the workgroup memory
    limit ``smem`` allows."""
    size = 16 if d.name == "complex128" else 8 if d.itemsize == 8 else 4
    if d.name in ("float32", "int32", "uint32") and M >= 512 and N >= 512:
        return 128, 128, 8, 8, 8
    bk = 16
    while bk > 4 and 2 * (64 + 64) * bk * size > smem:
        bk //= 2
    return 64, 64, bk, 4, 4


def _mac(d: DType, ct: str) -> str:
    """WGSL ``fn mac(c, a, b) -> c + a * b`` on scalars (complex: vec2 product)."""
    if d.kind == "complex":
        return (f"fn mac(c: {ct}, a: {ct}, b: {ct}) -> {ct} {{ return c + {ct}("
                f"a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }}")
    return f"fn mac(c: {ct}, a: {ct}, b: {ct}) -> {ct} {{ return c + a * b; }}"


def _entry(BM: int, BN: int, nb: int, threads: int = THREADS) -> list[str]:
    """WGSL opening ``main``: this workgroup's batch and tile (m0, n0) and its operands'
    offsets offA, offB (parameters as in :func:`matmul_source`)."""
    body = [f"""@compute @workgroup_size({threads})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {{
  let M = p(0u); let N = p(1u); let K = p(2u);
  let tilesM = p(3u); let tilesN = p(4u);
  let per = tilesM * tilesN;
  let wid = wg.x + wg.y * nw.x;
  if (wid >= per * p(5u)) {{ return; }}
  var bi = wid / per;
  let t = wid % per;
  // Groups of 8 tile rows walk their tile columns together, so the A rows and B
  // columns one wave of workgroups reads stay in the cache.
  let width = 8u * tilesN;
  let first = (t / width) * 8u;
  let gm = min(tilesM - first, 8u);
  let m0 = (first + (t % width) % gm) * {BM}u;
  let n0 = ((t % width) / gm) * {BN}u;
  var offA = ip(6u); var offB = ip(9u);"""]
    for k in range(nb - 1, -1, -1):
        base = 12 + 3 * k
        body.append(f"  {{ let n = p({base}u); let c = i32(bi % n); bi = bi / n;\n"
                    f"    offA = offA + c * ip({base + 1}u);\n"
                    f"    offB = offB + c * ip({base + 2}u); }}")
    return body


def matmul_source(d: DType, cfg: tuple[int, ...], nb: int, vec_a: str | None, vec_b: str | None,
                  vec_out: bool, a_major: str, b_major: str) -> str:
    """WGSL of one product kernel.

    Parameters: 0 M, 1 N, 2 K, 3 tiles along M, 4 tiles along N, 5 batch count,
    6 offset A, 7 A's M stride, 8 A's K stride, 9 offset B, 10 B's K stride,
    11 B's N stride, then per collapsed batch axis: length, A stride, B stride.
    ``vec_a``/``vec_b``: None (scalar loads) or the axis along which vec4s are read,
    'x' (A's m, B's n) or 'k'. ``a_major``/``b_major`` ('x'/'k'): the axis consecutive
    invocations walk when loading scalars (the contiguous one, so loads coalesce).
    """
    if isinstance(cfg, Tile):
        assert d.name in TILED_DTYPES and vec_a and vec_b
        return tiled_source(cfg, nb, vec_a, vec_b, vec_out, d.name)
    BM, BN, BK, TM, TN = cfg[:5]
    ct = compute_type(d)
    vw = 4 if vector_ok(d) else 1
    W = f"vec4<{ct}>" if vw == 4 else ct
    st = LAYOUT[d.name][0]
    L = list(_HEAD)
    for j, (buf, vec, ld) in enumerate((("xa", vec_a, "lda"), ("xb", vec_b, "ldb"))):
        elem = f"vec4<{st}>" if vec else st
        L.append(f"@group(0) @binding({j + 1}) var<storage, read> {buf}: array<{elem}>;")
        if not vec:
            L.append(load_fn(ld + "0", buf, d))
            if d.name == "bool":
                L.append(f"fn {ld}(e: u32) -> u32 {{ return select(0u, 1u, {ld}0(e)); }}")
            else:
                L.append(f"fn {ld}(e: u32) -> {ct} {{ return {ld}0(e); }}")
    L.append(f"@group(0) @binding(3) var<storage, read_write> y: "
             f"array<{'vec4<' + ct + '>' if vec_out else ct}>;")
    # Two buffers per tile: one is multiplied while the next step's is stored.
    L.append(f"var<workgroup> As: array<{W}, {2 * BK * BM // vw}>;")
    L.append(f"var<workgroup> Bs: array<{W}, {2 * BK * BN // vw}>;")
    if vw == 1:
        L.append(_mac(d, ct))

    # Loads: per invocation, LA (LB) items of the A (B) tile, scalars or vec4s.
    na = BM * BK // (4 if vec_a else 1)
    nbl = BK * BN // (4 if vec_b else 1)
    LA, LB = na // THREADS, nbl // THREADS
    assert LA * THREADS == na and LB * THREADS == nbl
    ra = f"vec4<{ct}>" if vec_a else ct
    rb = f"vec4<{ct}>" if vec_b else ct
    body = _entry(BM, BN, nb)
    body.append(f"""  let sAm = ip(7u); let sAk = ip(8u); let sBk = ip(10u); let sBn = ip(11u);
  let ty = l / {WX}u; let tx = l % {WX}u;""")
    for i in range(LA):
        body.append(f"  var ra{i}: {ra};")
    for i in range(LB):
        body.append(f"  var rb{i}: {rb};")
    # Accumulators: TM rows x (TN / vw) chunks.
    for r in range(TM):
        for c in range(TN // vw):
            body.append(f"  var c{r}_{c} = {W}();")

    # Each operand tile is stored k-major, T[k][x] (x: m for A, n for B), X wide.
    # Loads are vec4s along x (stored whole) or along k (stored as 4 components),
    # or scalars with consecutive invocations walking the contiguous axis.
    ops: dict[str, dict[str, Any]]  # the operands' WGSL names and tile facts
    ops = {"a": dict(buf="xa", ld="lda", reg="ra", tile="As", X=BM, x0="m0", xlim="M",
                     off="offA", sx="sAm", sk="sAk", vec=vec_a, major=a_major, n=LA),
           "b": dict(buf="xb", ld="ldb", reg="rb", tile="Bs", X=BN, x0="n0", xlim="N",
                     off="offB", sx="sBn", sk="sBk", vec=vec_b, major=b_major, n=LB)}

    def coords(o: dict) -> str:
        """WGSL giving tile coordinates (tk, tx_) of load ``q`` of operand o."""
        X = o["X"]
        if o["vec"] == "x":
            return f"let tk = q / {X // 4}u; let tx_ = (q % {X // 4}u) * 4u;"
        if o["vec"] == "k":
            return f"let tk = (q % {BK // 4}u) * 4u; let tx_ = q / {BK // 4}u;"
        if o["major"] == "x":
            return f"let tk = q / {X}u; let tx_ = q % {X}u;"
        return f"let tk = q % {BK}u; let tx_ = q / {BK}u;"

    # Global -> registers for the tile starting at k0.
    def fetch() -> list[str]:
        out = []
        for o in ops.values():
            vec = o["vec"]
            for i in range(o["n"]):
                r = f"{o['reg']}{i}"
                at = f"{o['off']} + i32(x) * {o['sx']} + i32(k) * {o['sk']}"
                if vec:
                    at = f"u32({at}) >> 2u"
                    load, zero = f"{o['buf']}[{at}]", f"vec4<{ct}>()"
                else:
                    load, zero = f"{o['ld']}(u32({at}))", f"{ct}()"
                out.append(f"    {{ let q = {i * THREADS}u + l; {coords(o)}\n"
                           f"      let x = {o['x0']} + tx_; let k = k0 + tk;\n"
                           f"      {r} = {zero};\n"
                           f"      if (x < {o['xlim']} && k < K) {{ {r} = {load}; }} }}")
        return out

    def put(tile: str, rows: int, k: str, idx: str, val: str) -> str:
        """Store scalar ``val`` at tile[k][idx] (``rows`` wide, k-major) of the
        buffer being filled (element offset ``nxt * BK * rows``)."""
        base = f"nxt * {BK * rows}u"
        if vw == 1:
            return f"{tile}[{base} + ({k}) * {rows}u + ({idx})] = {val};"
        return (f"{{ let e = {base} + ({k}) * {rows}u + ({idx}); "
                f"{tile}[e >> 2u][e & 3u] = {val}; }}")

    # Registers -> workgroup memory.
    def store() -> list[str]:
        out = []
        for o in ops.values():
            X, vec, tile = o["X"], o["vec"], o["tile"]
            for i in range(o["n"]):
                r = f"{o['reg']}{i}"
                head = f"    {{ let q = {i * THREADS}u + l; {coords(o)} "
                if vec == "x":
                    out.append(head + f"{tile}[(nxt * {BK * X}u + tk * {X}u + tx_) >> 2u] = "
                               f"{r}; }}")
                elif vec == "k":
                    for j in range(4):
                        out.append(head + put(tile, X, f"tk + {j}u", "tx_", f"{r}[{j}]") + " }")
                else:
                    out.append(head + put(tile, X, "tk", "tx_", r) + " }")
        return out

    # The multiply: rows of this invocation are (cr * WY + ty) * vw + r (vw rows per
    # chunk), columns (cc * WX + tx) * vw + 0..vw-1, so one wave reads consecutive
    # chunks (no bank conflicts) and the whole tile is covered.
    def multiply() -> list[str]:
        # Unrolled over the step's BK: workgroup reads at constant offsets.
        out = []
        for kk in range(BK):
            for cr in range(TM // vw):
                out.append(f"    let a{cr}_{kk} = As[ca + {kk * BM // vw + cr * WY}u + ty];")
            for cc in range(TN // vw):
                out.append(f"    let b{cc}_{kk} = Bs[cb + {kk * BN // vw + cc * WX}u + tx];")
            for cr in range(TM // vw):
                for r in range(vw):
                    row = cr * vw + r
                    for cc in range(TN // vw):
                        c, av, bv = f"c{row}_{cc}", f"a{cr}_{kk}", f"b{cc}_{kk}"
                        if vw == 1:
                            out.append(f"    {c} = mac({c}, {av}, {bv});")
                        elif ct[0] == "f":
                            out.append(f"    {c} = fma(vec4<{ct}>({av}[{r}]), {bv}, {c});")
                        else:
                            out.append(f"    {c} = {c} + {av}[{r}] * {bv};")
        return out

    # One barrier per step: the next tile goes to the other buffer, which nobody
    # reads until after the barrier that ends this step.
    body.append("  var k0 = 0u;")
    body.append("  var nxt = 0u;")
    body.append("  if (K > 0u) {")
    body += fetch()
    body += store()
    body.append("  }")
    body.append("  workgroupBarrier();")
    body.append(f"  for (; k0 < K; k0 = k0 + {BK}u) {{")
    body.append("    let cur = nxt;")
    body.append("    nxt = 1u - cur;")
    body.append(f"    let ca = cur * {BK * BM // vw}u; let cb = cur * {BK * BN // vw}u;")
    body.append(f"    let more = k0 + {BK}u < K;")
    body.append(f"    if (more) {{ let k0 = k0 + {BK}u;")
    body += fetch()
    body.append("    }")
    body += multiply()
    body.append("    if (more) {")
    body += store()
    body.append("    }")
    body.append("    workgroupBarrier();")
    body.append("  }")

    # Results: y is the contiguous (batch, M, N) output.
    body.append("  let yb = (wid / per) * M * N;")
    for cr in range(TM // vw):
        for r in range(vw):
            row = cr * vw + r
            body.append(f"  {{ let m = m0 + ({cr * WY}u + ty) * {vw}u + {r}u;")
            body.append("    if (m < M) {")
            for cc in range(TN // vw):
                body += _stores(f"n0 + ({cc * WX}u + tx) * {vw}u", f"c{row}_{cc}", vec_out, vw)
            body.append("    }")
            body.append("  }")
    body.append("}")
    return "\n".join(L + body)


# Widening loads of four float16/bfloat16 elements (two u32 words, the even element in
# each word's low half) to a vec4<f32>: the tiles and the sums are float32.
_WIDEN = {
    "float16": "fn wide(w: vec2<u32>) -> vec4<f32> {\n"
               "  return vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y)); }",
    "bfloat16": "fn wide(w: vec2<u32>) -> vec4<f32> {\n"
                "  return vec4<f32>(bitcast<f32>(w.x << 16u), bitcast<f32>(w.x & 0xffff0000u),"
                "\n    bitcast<f32>(w.y << 16u), bitcast<f32>(w.y & 0xffff0000u)); }",
}


def tiled_source(cfg: Tile, nb: int, vec_a: str, vec_b: str, vec_out: bool,
                 dtype: str = "float32") -> str:
    """WGSL of the float32 (or float16/bfloat16 read, float32 summed) product for
    operands read as vec4s of elements (``vec_a``/``vec_b`` as in :func:`matmul_source`,
    same parameters and tile order); the result is float32.

    The same scheme as the generic kernel (a GY x GX invocation grid, a TM x TN register
    block each, K-major double-buffered tiles, next tile prefetched into registers during
    the multiply), written so the inner loop is loads and FMAs only. WebGPU clamps every
    dynamic index into workgroup memory (naga's "Restrict" bounds policy) unless the
    module is trusted; a flat ``As[ca + c + ty]`` costs an add and a min per load. Here
    each tile is an array of GY-vec4 (GX for B) rows, ``As[c][ty]``: with the K step
    unrolled and the two buffers alternated by unrolling two steps per loop turn, ``c``
    is a constant and the clamp of ``ty`` is one expression the driver computes once.
    Row r of a tile holds, for one k of one buffer, the vec4 chunks of GY consecutive
    invocations, so a wave's reads hit consecutive 16-byte words (no bank conflicts, no
    padding), as in the generic kernel.
    """
    BM, BN, BK, TM, TN = cfg[:5]
    gy, gx, threads = cfg.gy, cfg.gx, cfg.threads
    CA, CB = TM // 4, TN // 4  # vec4 chunks per invocation along m and along n
    L = list(_HEAD)
    elem = "vec4<f32>"
    if dtype != "float32":
        elem = "vec2<u32>"
        L.append(_WIDEN[dtype])
    L.append(f"@group(0) @binding(1) var<storage, read> xa: array<{elem}>;")
    L.append(f"@group(0) @binding(2) var<storage, read> xb: array<{elem}>;")
    L.append(f"@group(0) @binding(3) var<storage, read_write> y: "
             f"array<{'vec4<f32>' if vec_out else 'f32'}>;")
    # Row (buf * BK + k) * C + c holds chunks c * G + 0..G-1 of that k.
    L.append(f"var<workgroup> As: array<array<vec4<f32>, {gy}>, {2 * BK * CA}>;")
    L.append(f"var<workgroup> Bs: array<array<vec4<f32>, {gx}>, {2 * BK * CB}>;")
    body = _entry(BM, BN, nb, threads)
    # Wave w covers rows wy * R + 0..R-1 and columns wx * C + 0..C-1 of the grid.
    wr = cfg.wr
    wc = 32 // wr
    body.append("  let sAm = ip(7u); let sAk = ip(8u); let sBk = ip(10u); let sBn = ip(11u);\n"
                f"  let ty = (l / {32 * (gx // wc)}u) * {wr}u + (l % 32u) / {wc}u;\n"
                f"  let tx = ((l / 32u) % {gx // wc}u) * {wc}u + l % {wc}u;")
    load = "{}" if dtype == "float32" else "wide({})"
    ops = (dict(name="a", buf="xa", tile="As", X=BM, C=CA, G=gy, x0="m0", xlim="M",
                off="offA", sx="sAm", sk="sAk", vec=vec_a, load=load),
           dict(name="b", buf="xb", tile="Bs", X=BN, C=CB, G=gx, x0="n0", xlim="N",
                off="offB", sx="sBn", sk="sBk", vec=vec_b, load=load))
    for o in ops:
        body += _tiled_loader_setup(o, BK, threads)
    if cfg.split:
        body.append(f"  let inside = m0 + {BM}u <= M && n0 + {BN}u <= N;")
    for r in range(TM):
        for c in range(CB):
            body.append(f"  var c{r}_{c} = vec4<f32>();")

    def fetch(k0: str) -> list[str]:
        lines = [ln for o in ops for ln in _tiled_fetch(o, k0)]
        if not cfg.split:
            return lines
        # Inside the matrices (a uniform test per step): the loads without their tests.
        bare = [ln for o in ops for ln in _tiled_fetch(o, k0, bare=True)]
        return ([f"    if (inside && {k0} + {BK}u <= K) {{"] + bare + ["    } else {"]
                + lines + ["    }"])

    def store(buf: int) -> list[str]:
        return [ln for o in ops for ln in _tiled_store(o, BK, buf)]

    def step(buf: int, nxt_k0: str) -> list[str]:
        """Multiply buffer ``buf`` while the tile at ``nxt_k0`` goes to the other."""
        out = [f"    {{ let more = {nxt_k0} < K;",
               f"    if (more) {{ let k0 = {nxt_k0};"] + fetch("k0") + ["    }"]
        out += _tiled_multiply(BK, CA, CB, buf)
        out += ["    if (more) {"] + store(1 - buf) + ["    }",
                "    workgroupBarrier();"]
        return out

    body.append("  if (K > 0u) { let k0 = 0u;")
    body += fetch("k0") + store(0)
    body.append("  }")
    body.append("  workgroupBarrier();")
    # One barrier per step: the next tile goes to the other buffer, which nobody reads
    # until after the barrier that ends this step.
    body.append(f"  for (var k0 = 0u; k0 < K; k0 = k0 + {2 * BK}u) {{")
    body += step(0, f"k0 + {BK}u")
    body.append("    if (!more) { break; } }")  # K uniform: the break is too
    body += step(1, f"k0 + {2 * BK}u")
    body.append("    }")
    body.append("  }")
    body += _tiled_write(TM, CB, gy, gx, vec_out)
    body.append("}")
    return "\n".join(L + body)


def _tiled_loader_setup(o: dict, BK: int, threads: int) -> list[str]:
    """Per vec4 load i of operand o: its tile coordinates (k{i}, x{i}), whether its row
    or column is inside the matrix, its element offset at k = 0 and its place in the
    tile (row offset w{i} within a buffer, column u{i}, component e{i} when a vec4
    along k is spread over four rows)."""
    X, C, G, n, vec = o["X"], o["C"], o["G"], o["name"], o["vec"]
    loads = X * BK // 4 // threads
    o["n"] = loads
    out = []
    for i in range(loads):
        q = f"({i * threads}u + l)"
        if vec == "x":  # vec4 along x: consecutive invocations read consecutive vec4s
            tk, tx = f"{q} / {X // 4}u", f"({q} % {X // 4}u) * 4u"
        else:           # vec4 along k: BK / 4 invocations cover one row's step
            tk, tx = f"({q} % {BK // 4}u) * 4u", f"{q} / {BK // 4}u"
        out += [f"  let {n}k{i} = {tk}; let {n}x{i} = {tx};",
                f"  let {n}in{i} = {o['x0']} + {n}x{i} < {o['xlim']};",
                f"  let {n}at{i} = {o['off']} + i32({o['x0']} + {n}x{i}) * {o['sx']} "
                f"+ i32({n}k{i}) * {o['sk']};",
                # chunk x / 4 = c * G + u: row offset k * C + c, column u
                f"  let {n}w{i} = {n}k{i} * {C}u + {n}x{i} / {4 * G}u; "
                f"let {n}u{i} = ({n}x{i} / 4u) % {G}u; let {n}e{i} = {n}x{i} % 4u;",
                f"  var {n}r{i} = vec4<f32>();"]
    return out


def _tiled_fetch(o: dict, k0: str, bare: bool = False) -> list[str]:
    """Global -> registers: operand o's vec4s of the tile starting at k0 (zeros
    outside the matrix; K and the vec4 axis are multiples of 4, so a vec4 is inside
    or outside whole). ``bare``: the tile is inside, no tests."""
    n, out = o["name"], []
    for i in range(o["n"]):
        word = f"{o['buf']}[u32({n}at{i} + i32({k0}) * {o['sk']}) >> 2u]"
        if bare:
            out.append(f"      {n}r{i} = {o['load'].format(word)};")
            continue
        out.append(f"      {n}r{i} = vec4<f32>();\n"
                   f"      if ({n}in{i} && {k0} + {n}k{i} < K) {{ {n}r{i} = "
                   f"{o['load'].format(word)}; }}")
    return out


def _tiled_store(o: dict, BK: int, buf: int) -> list[str]:
    """Registers -> buffer ``buf`` of operand o's tile."""
    n, C, T, out = o["name"], o["C"], o["tile"], []
    base = buf * BK * C
    for i in range(o["n"]):
        if o["vec"] == "x":
            out.append(f"      {T}[{base}u + {n}w{i}][{n}u{i}] = {n}r{i};")
        else:  # four consecutive k: four rows, one component each
            for j in range(4):
                out.append(f"      {T}[{base + j * C}u + {n}w{i}][{n}u{i}][{n}e{i}] = "
                           f"{n}r{i}[{j}];")
    return out


def _tiled_multiply(BK: int, CA: int, CB: int, buf: int) -> list[str]:
    """The step's multiply from buffer ``buf``, every workgroup index but ty/tx constant.
    Invocation (ty, tx) owns rows (c * GY + ty) * 4 + 0..3 and columns
    (c * GX + tx) * 4 + 0..3 of the tile."""
    out = []
    for kk in range(BK):
        ra, rb = (buf * BK + kk) * CA, (buf * BK + kk) * CB
        for c in range(CA):
            out.append(f"    let a{c}_{kk} = As[{ra + c}][ty];")
        for c in range(CB):
            out.append(f"    let b{c}_{kk} = Bs[{rb + c}][tx];")
        for ca in range(CA):
            for r in range(4):
                for cb in range(CB):
                    acc = f"c{ca * 4 + r}_{cb}"
                    out.append(f"    {acc} = fma(vec4<f32>(a{ca}_{kk}[{r}]), b{cb}_{kk}, "
                               f"{acc});")
    return out


def _tiled_write(TM: int, CB: int, gy: int, gx: int, vec_out: bool) -> list[str]:
    """Accumulators -> y, the contiguous (batch, M, N) result, inside the matrix only."""
    out = ["  let yb = (wid / per) * M * N;"]
    for row in range(TM):
        ca, r = divmod(row, 4)
        out.append(f"  {{ let m = m0 + ({ca * gy}u + ty) * 4u + {r}u;")
        out.append("    if (m < M) {")
        for cb in range(CB):
            out += _stores(f"n0 + ({cb * gx}u + tx) * 4u", f"c{row}_{cb}", vec_out, 4)
        out.append("    }")
        out.append("  }")
    return out


# -- contraction ------------------------------------------------------------------------

_FOLD = {"sum": "x + y",
         "max": "select(max(x, y), x + y, lnan_T(x) || lnan_T(y))",
         "min": "select(min(x, y), x + y, lnan_T(x) || lnan_T(y))"}

# Float classification and hypot for f32/f64, written with 64-bit literals that
# naga accepts (``lu``); by bits, since drivers may fold ``x != x`` away.
_FLOAT_FNS = """fn lnan_T(x: T) -> bool { return (bitcast<U>(x) & ABS) > EXPO; }
fn linf_T(x: T) -> bool { return (bitcast<U>(x) & ABS) == EXPO; }
fn lhypot_T(x: T, y: T) -> T {
  let a = abs(x); let b = abs(y);
  if (linf_T(a) || linf_T(b)) { return bitcast<T>(EXPO); }
  if (lnan_T(a) || lnan_T(b)) { return a + b; }
  let m = max(a, b);
  if (m == T(0.0)) { return m; }
  let r = min(a, b) / m;
  return m * sqrt(T(1.0) + r * r);
}"""
_FLOAT_CONSTS = {
    "f32": {"U": "u32", "ABS": "0x7fffffffu", "EXPO": "0x7f800000u"},
    "f64": {"U": "u64", "ABS": "0x7ffffffffffffffflu", "EXPO": "0x7ff0000000000000lu"},
}


def float_fns(ct: str) -> str:
    """lnan_ct, linf_ct and lhypot_ct."""
    return wops._specialise(specialise(_FLOAT_FNS, _FLOAT_CONSTS[ct]), ct)


def fold_identity(fold: str, acc: str) -> str:
    if fold == "sum":
        return f"{acc}()"
    if fold == "max":
        return f"{acc}(0)"  # folds of |x| only: 0 is the empty maximum
    return f"bitcast<{acc}>({'0x7ff0000000000000lu' if acc == 'f64' else '0x7f800000u'})"


def contract_source(dtypes: tuple[DType | None, ...], acc: str, fold: str, term: str,
                    fin: str, nk: int, nr: int, per_thread: bool, extra: str = "") -> str:
    """WGSL of a contraction. ``dtypes``: the dtypes of operands ``a``, ``b`` and ``s``
    (``b`` and ``s`` may be None: absent); a and b are walked over kept and reduced
    axes, s (one value per output) over kept axes only. ``term`` is WGSL over a, b, s
    giving the ``acc``-typed value folded; ``fin`` maps the fold ``r`` (and s) to the
    result. ``extra``: helper functions the expressions call.

    Parameters: 0 outputs, 1 reduced length, then per present operand its offset; the
    kept shape (nk) and per operand its kept strides; the reduced shape (nr) and per
    reduced operand its reduced strides.
    """
    ops = [(n, d) for n, d in zip("abs", dtypes) if d is not None]
    n_ops = len(ops)
    reduced = [j for j, (n, _) in enumerate(ops) if n != "s"]
    L = list(_HEAD)
    for j, (_, d) in enumerate(ops):
        L.append(f"@group(0) @binding({j + 1}) var<storage, read> x{j}: "
                 f"array<{LAYOUT[d.name][0]}>;")
        L.append(load_fn(f"ld{j}", f"x{j}", d))
    L.append(f"@group(0) @binding({n_ops + 1}) var<storage, read_write> y: array<{acc}>;")
    fold_e = wops._specialise(_FOLD[fold], acc)
    if acc[0] == "f":
        L.append(float_fns(acc))
    L.append(extra)
    L.append(f"fn fold(x: {acc}, y: {acc}) -> {acc} {{ return {fold_e}; }}")
    ks = 2 + n_ops
    rs = ks + nk * (1 + n_ops)
    # Element offsets of operand j: kept part from the output index o, reduced from jj.
    kept = ["var ro = o;"] + [f"var ko{j} = ip({2 + j}u);" for j in range(n_ops)]
    for k in range(nk - 1, -1, -1):
        kept.append(f"{{ let n = p({ks + k}u); let c = i32(ro % n); ro = ro / n;")
        for j in range(n_ops):
            kept.append(f"  ko{j} = ko{j} + c * ip({ks + nk + j * nk + k}u);")
        kept.append("}")
    red = ["var rj = jj;"] + [f"var e{j} = ko{j};" for j in reduced]
    for k in range(nr - 1, -1, -1):
        red.append(f"{{ let n = p({rs + k}u); let c = i32(rj % n); rj = rj / n;")
        for i, j in enumerate(reduced):
            red.append(f"  e{j} = e{j} + c * ip({rs + nr + i * nr + k}u);")
        red.append("}")

    def load(j: int, at: str) -> str:
        v = f"ld{j}(u32({at}))"
        return f"select(0u, 1u, {v})" if ops[j][1].name == "bool" else v

    red += [f"let {ops[j][0]} = {load(j, f'e{j}')};" for j in reduced]
    s_load = "".join(f"let s = {load(j, f'ko{j}')};" for j, (n, _) in enumerate(ops)
                     if n == "s")
    kept_t = "\n    ".join(kept)
    red_t = "\n      ".join(red)
    if per_thread:
        L.append(f"""@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {{
  let o = g.x + g.y * nw.x * 256u;
  if (o >= p(0u)) {{ return; }}
  let R = p(1u);
  {kept_t}
  {s_load}
  var r = {fold_identity(fold, acc)};
  for (var jj = 0u; jj < R; jj++) {{
      {red_t}
      r = fold(r, {term});
  }}
  y[o] = {fin};
}}""")
    else:
        L.append(f"var<workgroup> part: array<{acc}, 256>;")
        L.append(f"""@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32,
        @builtin(num_workgroups) nw: vec3<u32>) {{
  let o = wg.x + wg.y * nw.x;
  let R = p(1u);
  var r = {fold_identity(fold, acc)};
  if (o < p(0u)) {{
    {kept_t}
    {s_load}
    for (var jj = l; jj < R; jj = jj + 256u) {{
      {red_t}
      r = fold(r, {term});
    }}
  }}
  part[l] = r;
  workgroupBarrier();
  for (var h = 128u; h > 0u; h = h >> 1u) {{
    if (l < h) {{ part[l] = fold(part[l], part[l + h]); }}
    workgroupBarrier();
  }}
  if (l == 0u && o < p(0u)) {{
    {kept_t}
    {s_load}
    let r = part[0];
    y[o] = {fin};
  }}
}}""")
    return "\n".join(L)


# float64 exp and log of our own: SPIR-V's GLSL.std.450 Exp/Log/Pow take 16/32-bit
# floats only, and the p-norms of float64 need pow to double precision.
POW64 = """fn log64(x: f64) -> f64 {
  // frexp by bits (lavapipe's LLVM fails on a float64 frexp); subnormals scaled up.
  var v = x; var e = -1022;
  if (v < f64(2.2250738585072014e-308)) { v = v * f64(18014398509481984.0); e = e - 54; }
  let bits = bitcast<u64>(v);
  e = e + i32((bits >> 52u) & 0x7fflu);
  var m = bitcast<f64>((bits & 0x000ffffffffffffflu) | 0x3fe0000000000000lu);
  if (m < f64(0.70710678118654752)) { m = m * f64(2.0); e = e - 1; }
  let f = m - f64(1.0);
  let s = f / (f64(2.0) + f);
  let z = s * s;
  var q = f64(1.0) / f64(23.0);
  for (var i = 21; i >= 1; i = i - 2) { q = f64(1.0) / f64(i) + z * q; }
  let ef = f64(e);
  return ef * f64(0.6931471803691238) + (f64(2.0) * s * q + ef * f64(1.9082149292705877e-10));
}
fn exp64(x: f64) -> f64 {
  if (x > f64(709.8)) { return bitcast<f64>(0x7ff0000000000000lu); }
  if (x < f64(-745.2)) { return f64(0.0); }
  let k = round(x * f64(1.4426950408889634));
  let r = (x - k * f64(0.6931471803691238)) - k * f64(1.9082149292705877e-10);
  var q = f64(1.0);
  for (var i = 16; i >= 1; i = i - 1) { q = f64(1.0) + r * q / f64(i); }
  let ki = i32(k);
  if (ki < -1000) { return ldexp(ldexp(q, ki + 600), -600); }
  if (ki > 1000) { return ldexp(ldexp(q, ki - 600), 600); }
  return ldexp(q, ki);
}
fn powpos64(x: f64, y: f64) -> f64 {
  if (x == f64(0.0)) { return select(f64(0.0), bitcast<f64>(0x7ff0000000000000lu), y < f64(0.0)); }
  if (linf_f64(x)) { return select(f64(0.0), x, y > f64(0.0)); }
  if (x == f64(1.0)) { return x; }
  return exp64(y * log64(x));
}"""

POW32 = """fn powpos32(x: f32, y: f32) -> f32 {
  if (x == 0.0) { return select(0.0, bitcast<f32>(0x7f800000u), y < 0.0); }
  if (linf_f32(x)) { return select(0.0, x, y > 0.0); }
  if (x == 1.0) { return x; }
  return pow(x, y);
}"""


def contract_params(outputs: int, R: int, offsets: list[int], kshape: tuple[int, ...],
                    kstrides: list[tuple[int, ...]], rshape: tuple[int, ...],
                    rstrides: list[tuple[int, ...]]) -> list[int]:
    words = [outputs, R, *[o & 0xFFFFFFFF for o in offsets], *kshape]
    for st in kstrides:
        words += [s & 0xFFFFFFFF for s in st]
    words += list(rshape)
    for st in rstrides:
        words += [s & 0xFFFFFFFF for s in st]
    return words

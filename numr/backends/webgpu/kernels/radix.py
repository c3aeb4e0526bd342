"""A stable LSD radix sort of order keys with one-word keys: the WGSL of its kernels
(sorting.py drives them; the order keys are kernels/sort.py's).

The entries are unpadded rows of ``n``: keys alone (sort), or (key, index within the
row) pairs, two u32 words interleaved in one buffer because the runtime binds one
writable buffer per dispatch. The first pass makes the keys from the elements, the last
writes what the op needs (see "what a pass reads and writes" below). Each pass sorts by
one 8-bit digit of the key, least significant first, from one entry buffer into the
other, in four dispatches:

1. ``histogram``: a workgroup per tile of TILE entries of one row (tiles never straddle
   rows) counts its digits in workgroup memory (eight copies of the 256 counters, lane
   ``l`` adding to copy ``l % 8``, so that lanes of one hardware subgroup seldom hit one
   counter when the digits are few, as the top byte of floats is) and writes them to
   ``counts[(row * 256 + digit) * tiles_per_row + tile]``.
2. ``scan_source``: the exclusive scan of ``counts`` in blocks of SCAN_BLOCK, in place,
   each block's total after the counts; then the totals are scanned the same way. In
   that order (row, then digit, then tile) the exclusive scan at an entry's (row, digit,
   tile) is exactly where its tile's run of that digit starts in the whole output: every
   earlier row, every smaller digit of its row, the same digit in the row's earlier
   tiles. The scatter adds the block's scanned total itself (no third scan pass).
3. ``scatter``: a tile is eight segments of 32 * KPT consecutive entries, one per team
   of 32 lanes; a team walks its segment in KPT rounds of 32 entries (lane ``i`` takes
   entry ``i`` of the round), so (team, round, lane) is the input order. In a round each
   lane ORs its digit into a byte of the team's 8 words of workgroup memory; after a
   barrier it reads those words back and finds, with a zero-byte test on ``word ^ digit
   * 0x01010101``, the lanes of its team with its digit: its rank among them (the
   lanes before it) and their number. A per-team counter of each digit carries the
   ranks from round to round (the round's last lane of the digit adds the number). At
   the end a lane per digit turns the eight teams' counts into each team's start (the
   tile's scanned base, then the teams before), and every entry goes to start + rank:
   ranks follow the input order, so the pass is stable. The words of round k are
   cleared in round k - 1 (three sets in turn), so a round costs two barriers.

Stable passes over the keys least significant digit first give the stable sort, so ties
keep their original (ascending index) order, as the bitonic path does.

Note: the rank of a lane comes from workgroup memory, not subgroup ballots, so the
kernel is the same on every adapter (a team is 32 logical lanes whatever the hardware
subgroup size).
"""

from __future__ import annotations

from typing import Any

from .... import _config
from ...._dtypes import DType
from .sort import KEY_FNS, key_fn, store_index
from .template import HEADER, WG, bindings, block_scan, flat_main

# WG (template.py): invocations per workgroup
KPT = 8                 # entries per lane (rounds of a scatter team)
TEAM = 32               # lanes of a ranking team
TEAMS = WG // TEAM
TILE = WG * KPT         # entries per tile (one workgroup each)
RADIX = 256             # 8-bit digits
COPIES = 8              # histogram copies
SCAN_PER = 8            # words per lane of the scan
SCAN_BLOCK = WG * SCAN_PER
_SCAN = block_scan("wg_scan", "sh", "u32", WG)

def _main(wg: int = WG, extra: str = "") -> str:
    """The entry point's opening: the tile of this workgroup. Params [groups = rows * T,
    n, T, shift, counts' scan length, source offset, key mask, specials' offset]."""
    return f"""@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32{extra}) {{
  let g = wg.x + wg.y * nw.x;
  if (g >= p(0u)) {{ return; }}   // uniform across the workgroup
  let n = p(1u); let T = p(2u); let shift = p(3u);
  let r = g / T; let j = g % T;
  let start = j * {TILE}u;
  let end = min(n, start + {TILE}u);
  let row = r * n;
"""


# -- what a pass reads and writes ------------------------------------------------------------
# mode "pairs": (key, index) entries, returned as pairs (unique, isin); "indices": the
# same, the last pass writing the indices (argsort); "values": keys alone, the last pass
# writing the values (sort). A packed dtype's values ride in the key word's upper half
# (the passes read its low bytes only), so its last pass writes key words and unpack
# makes the values; float32's keys equal for -0.0 and 0.0 and for every NaN, so the
# zeros and NaNs are also compacted in input order (specials) and the last pass takes
# them from there.

def payload(mode: str) -> bool:
    return mode != "values"


def packed(d: DType) -> bool:
    return d.itemsize < 4


def specials(d: DType, mode: str) -> bool:
    """Whether the values of ``d`` need the zeros and NaNs compacted (see above)."""
    return mode == "values" and d.name == "float32"


def _raw_fn(d: DType) -> str:
    """``fn raw(e)``: the bits of element e of the raw source (packed dtypes)."""
    bits = d.itemsize * 8
    per = 32 // bits
    return (f"fn raw(e: u32) -> u32 {{ return (src[e >> {per.bit_length() - 1}u] >> "
            f"((e & {per - 1}u) * {bits}u)) & {hex((1 << bits) - 1)}u; }}")


def _source_fns(d: DType, mode: str, first: bool) -> str:
    """WGSL helpers of a pass's loads: the order key of the raw source (first pass)."""
    if not first:
        return ""
    fns = [KEY_FNS, key_fn("okey", "src", d)]
    if mode == "values" and packed(d):
        fns.append(_raw_fn(d))
    return "\n".join(fns)


def _load(d: DType, mode: str, first: bool, k: str) -> str:
    """WGSL setting key{k} (and idx{k}) of the entry at c{k} of the row."""
    if first:
        e = f"p(5u) + row + c{k}"
        if mode == "values" and packed(d):
            low = hex((1 << (8 * d.itemsize)) - 1)
            s = f"key{k} = (okey({e})[0] ^ (p(6u) & {low}u)) | (raw({e}) << 16u);"
        else:
            s = f"key{k} = okey({e})[0] ^ p(6u);"
        return s + (f" idx{k} = c{k};" if payload(mode) else "")
    if payload(mode):
        return f"key{k} = src[2u * (row + c{k})]; idx{k} = src[2u * (row + c{k}) + 1u];"
    return f"key{k} = src[row + c{k}];"


def _store(d: DType, mode: str, last: bool, iw: int, k: str) -> str:
    """WGSL storing entry k at output position o."""
    if payload(mode) and (not last or mode == "pairs"):
        return f"dst[2u * o] = key{k}; dst[2u * o + 1u] = idx{k};"
    if mode == "indices":
        return store_index("dst", "o", f"idx{k}", iw)
    if not last or packed(d):
        return f"dst[o] = key{k};"
    return f"dst[o] = value(key{k} ^ p(6u), o, r);"


def _value_fn(d: DType) -> str:
    """``fn value(key, o, r)``: the bits of the element of order key ``key`` (unmasked)
    at output position o of row r (a 32-bit dtype)."""
    if d.name == "uint32":
        return "fn value(k: u32, o: u32, r: u32) -> u32 { return k; }"
    if d.name == "int32":
        return "fn value(k: u32, o: u32, r: u32) -> u32 { return k ^ 0x80000000u; }"
    # float32: the zeros of row r are the specials from V(2rT) on, the NaNs from
    # V((2r+1)T) on (V: the scanned specials' counts, at p(7)); ascending, the zeros start
    # where the digit 0x80 starts in this last pass (their key 0x80000000 is its least)
    # and the NaNs end the row; descending (keys complemented), the zeros end there and
    # the NaNs start the row.
    return f"""{_SV}
fn value(k: u32, o: u32, r: u32) -> u32 {{
  let desc = p(6u) != 0u;
  let T = p(2u); let n = p(1u);
  if (k == 0x80000000u) {{
    let zb = sv(2u * r * T);
    let q80 = (r * {RADIX}u + 128u) * T;
    let s80 = counts[q80] + counts[p(4u) + q80 / {SCAN_BLOCK}u];
    let zs = select(s80, s80 - (sv((2u * r + 1u) * T) - zb), desc);
    return specials[zb + o - zs];
  }}
  if (k == 0xffffffffu) {{
    let nb = sv((2u * r + 1u) * T);
    let ns = select((r + 1u) * n - (sv((2u * r + 2u) * T) - nb), r * n, desc);
    return specials[nb + o - ns];
  }}
  return select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u);
}}"""


def scan_source() -> str:
    """Exclusive (inclusive where ``inc`` is 1) scan of ``n`` words from ``off`` in
    blocks of SCAN_BLOCK, in place; each block's total goes to ``off + n + block``.
    Params [n, off, inc]."""
    return f"""{HEADER}
{bindings(["data"])}
{_SCAN}
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {{
  let n = p(0u); let off = p(1u);
  let b = wg.x + wg.y * nw.x;
  let i0 = b * {SCAN_BLOCK}u + l * {SCAN_PER}u;
  var v: array<u32, {SCAN_PER}>;
  var k = 0u;
  for (var e = 0u; e < {SCAN_PER}u; e = e + 1u) {{
    v[e] = 0u;
    if (i0 + e < n) {{ v[e] = data[off + i0 + e]; }}
    k = k + v[e];
  }}
  sh[l] = k;
  wg_scan(l, l);
  var run = sh[l] - k;
  for (var e = 0u; e < {SCAN_PER}u; e = e + 1u) {{
    run = run + v[e];
    if (i0 + e < n) {{ data[off + i0 + e] = run - select(v[e], 0u, p(2u) != 0u); }}
  }}
  if (l == {WG - 1}u && b * {SCAN_BLOCK}u < n) {{ data[off + n + b] = sh[l]; }}
}}"""


def add_source() -> str:
    """Add each block's scanned total (at ``off + n``) to its words. Params [n, off]."""
    return f"""{HEADER}
{bindings(["data"])}
@compute @workgroup_size({WG})
fn main(@builtin(global_invocation_id) gi: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {{
  let t = gi.x + gi.y * nw.x * {WG}u;
  let n = p(0u); let off = p(1u);
  if (t >= n) {{ return; }}
  data[off + t] = data[off + t] + data[off + n + t / {SCAN_BLOCK}u];
}}"""


# The specials' counts follow the digits' (from p(7) on) and are scanned with them each
# pass (p(4) words in all, the blocks' totals after them): V(q), the exclusive scan at
# (row, zeros | NaNs, tile) q, less all the digits' counts before. Only the first pass's
# V places the specials (the compaction); a row's totals are the same in every pass.
_SV = f"""fn sv(q: u32) -> u32 {{
  let a = p(7u) + q;
  return counts[a] + counts[p(4u) + a / {SCAN_BLOCK}u] - (p(0u) / p(2u)) * p(1u);
}}"""


# -- kernels ---------------------------------------------------------------------------------

def histogram_source(d: DType, mode: str, first: bool) -> str:
    """Digit counts of every tile (and float32's zeros and NaNs for the specials, at
    p(7) on: (row, zeros | NaNs, tile), then a zero)."""
    zero = "\n".join(f"  atomicStore(&hist[{c * WG}u + l], 0u);" for c in range(COPIES))
    total = " + ".join(f"atomicLoad(&hist[{c * WG}u + l])" for c in range(COPIES))
    spec = specials(d, mode)
    count = ""
    if spec:
        count = ("    if ((key0 ^ p(6u)) == 0x80000000u) { atomicAdd(&zn[0], 1u); }\n"
                 "    if ((key0 ^ p(6u)) == 0xffffffffu) { atomicAdd(&zn[1], 1u); }\n")
    tail = ""
    if spec:
        tail = """  if (l < 2u) { counts[p(7u) + (2u * r + l) * T + j] = atomicLoad(&zn[l]); }
  if (g == 0u && l == 0u) { counts[p(7u) + 2u * p(0u)] = 0u; }
"""
    return f"""{HEADER}
{bindings(["src", "counts"])}
{_source_fns(d, mode, first)}
var<workgroup> hist: array<atomic<u32>, {RADIX * COPIES}>;
var<workgroup> zn: array<atomic<u32>, 2>;
{_main()}
{zero}
  if (l < 2u) {{ atomicStore(&zn[l], 0u); }}
  workgroupBarrier();
  let copy = (l % {COPIES}u) * {RADIX}u;
  for (var c0 = start + l; c0 < end; c0 = c0 + {WG}u) {{
    var key0 = 0u; var idx0 = 0u;
    {_load(d, mode, first, "0")}
{count}    atomicAdd(&hist[copy + ((key0 >> shift) & 255u)], 1u);
  }}
  workgroupBarrier();
  counts[(r * {RADIX}u + l) * T + j] = {total};
{tail}}}"""


def _round(d: DType, mode: str, first: bool, k: int) -> str:
    """Round ``k`` of the scatter: rank the team's 32 entries of this round."""
    cur, nxt = (k % 3) * 64, ((k + 1) % 3) * 64
    return f"""  // round {k}
  let c{k} = seg + {k * TEAM}u + i;
  let ok{k} = c{k} < end;
  var key{k} = 0u; var idx{k} = 0u; var d{k} = 0u; var rk{k} = 0u;
  var last{k} = false; var old{k} = 0u; var cnt{k} = 0u;
  if (ok{k}) {{
    {_load(d, mode, first, str(k))}
    d{k} = (key{k} >> shift) & 255u;
    atomicOr(&packed[{cur}u + team * 8u + (i >> 2u)], d{k} << ((i & 3u) * 8u));
  }}
  workgroupBarrier();
  if (l < 64u) {{ atomicStore(&packed[{nxt}u + l], 0u); }}
  if (ok{k}) {{
    // the lanes of the team with digit d: bit L of peers for lane L
    let live = min({TEAM}u, end - (seg + {k * TEAM}u));
    let rep = d{k} * 0x01010101u;
    var peers = 0u;
    for (var w = 0u; w < 8u; w = w + 1u) {{
      let x = atomicLoad(&packed[{cur}u + team * 8u + w]) ^ rep;
      // high bit of every zero byte of x, exactly (no borrow between bytes)
      let z = ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x | 0x7f7f7f7fu);
      let m4 = ((z >> 7u) & 1u) | ((z >> 14u) & 2u) | ((z >> 21u) & 4u) | ((z >> 28u) & 8u);
      peers = peers | (m4 << (4u * w));
    }}
    peers = peers & select((1u << live) - 1u, 0xffffffffu, live >= 32u);
    let before = countOneBits(peers & ((1u << i) - 1u));
    cnt{k} = countOneBits(peers);
    last{k} = before + 1u == cnt{k};
    old{k} = th[team * {RADIX}u + d{k}];
    rk{k} = old{k} + before;
  }}
  workgroupBarrier();
  if (last{k}) {{ th[team * {RADIX}u + d{k}] = old{k} + cnt{k}; }}
"""


def scatter_source(d: DType, mode: str, first: bool, last: bool, iw: int) -> str:
    """Move every entry of each tile to its place by the current digit, stably.
    ``counts``: the block-wise exclusive scan of the digit counts and, from word p(4)
    on, the exclusive scan of the blocks' totals (and float32's specials, see
    _value_fn)."""
    rounds = "".join(_round(d, mode, first, k) for k in range(KPT))
    writes = "\n".join(
        f"  if (ok{k}) {{ let o = th[team * {RADIX}u + d{k}] + rk{k};\n"
        f"    {_store(d, mode, last, iw, str(k))} }}" for k in range(KPT))
    zero_th = "\n".join(f"  th[{t * RADIX}u + l] = 0u;" for t in range(TEAMS))
    spec = last and specials(d, mode)
    names = ["src", "counts"] + (["specials"] if spec else []) + ["dst"]
    value = _value_fn(d) if last and mode == "values" and not packed(d) else ""
    return f"""{HEADER}
{bindings(names)}
{_source_fns(d, mode, first)}
{value}
var<workgroup> th: array<u32, {TEAMS * RADIX}>;
var<workgroup> packed: array<atomic<u32>, {3 * 64}>;
{_main()}
  let team = l / {TEAM}u; let i = l % {TEAM}u;
  let seg = start + team * {TEAM * KPT}u;
{zero_th}
  if (l < 192u) {{ atomicStore(&packed[l], 0u); }}
  workgroupBarrier();
{rounds}
  workgroupBarrier();
  // lane l = digit l: each team's start of that digit in the output
  let q = (r * {RADIX}u + l) * T + j;
  var run = counts[q] + counts[p(4u) + q / {SCAN_BLOCK}u];
  for (var t = 0u; t < {TEAMS}u; t = t + 1u) {{
    let c = th[t * {RADIX}u + l];
    th[t * {RADIX}u + l] = run;
    run = run + c;
  }}
  workgroupBarrier();
{writes}
}}"""


# -- the scatter with subgroups -------------------------------------------------------------
# Where the adapter has subgroups, a team is a hardware subgroup of the scatter's SG_WG
# invocations and finds the lanes of its digit with eight ballots (one per digit bit, and
# one of the live lanes), not through workgroup memory. The lowest lane of each digit
# adds the number to the team's counter of that digit (an atomic, which returns the
# count before) and hands it to the others with a shuffle; the counters of a team's
# digits are halves of words (a team holds at most TILE entries), so that the teams of
# the smallest subgroups fit workgroup memory. One barrier a round: the next round's
# update of a counter may come from another lane of the subgroup, and nothing but a
# barrier orders two lanes' accesses to workgroup memory in WGSL.

SG_WG = 128           # invocations of the subgroup scatter (TILE / SG_WG rounds a team)


def subgroup_size(rt: Any) -> int:
    """The least subgroup size the subgroup scatter may meet on ``rt``'s adapter, or 0
    where it is not used: no subgroups, too little workgroup memory for its smallest
    subgroups, or NUMR_WEBGPU_SUBGROUPS=0 (numr/_config.py; the tests run both paths).
    Note: wgpu-py 0.32 spells the adapter info key "stackgroup_min_size"."""
    if "subgroup" not in rt.features or not _config.webgpu_subgroups():
        return 0
    info = rt.adapter.info
    low = info.get("subgroup_min_size", info.get("stackgroup_min_size", 4))
    low = max(4, low if isinstance(low, int) else 4)
    if low & (low - 1) or sg_memory(low) > rt.limits["max-compute-workgroup-storage-size"]:
        return 0
    return low


def sg_memory(min_size: int) -> int:
    """Bytes of workgroup memory the subgroup scatter needs for subgroups of at least
    ``min_size`` invocations."""
    return 4 * ((SG_WG // min_size) * RADIX // 2 + RADIX)


def _sg_round(d: DType, mode: str, first: bool, k: int) -> str:
    bits = "\n".join(
        f"    {{ let on = ((d{k} >> {b}u) & 1u) != 0u; let v = subgroupBallot(on);\n"
        f"      peers = peers & select(~v, v, on); }}" for b in range(8))
    return f"""  // round {k}
  let c{k} = seg + {k}u * sgs + sgi;
  let ok{k} = c{k} < end;
  var key{k} = 0u; var idx{k} = 0u;
  if (ok{k}) {{ {_load(d, mode, first, str(k))} }}
  let d{k} = (key{k} >> shift) & 255u;
  var rk{k} = 0u;
  {{
    var peers = subgroupBallot(ok{k});
{bits}
    let cb = countOneBits(peers & lt);
    let ca = countOneBits(peers);
    let lead = lowest(peers);
    var old = 0u;
    if (ok{k} && sgi == lead) {{
      let h = (d{k} & 1u) * 16u;
      old = (atomicAdd(&th[sid * {RADIX // 2}u + (d{k} >> 1u)], (ca.x + ca.y + ca.z + ca.w) << h) >> h) & 0xffffu;
    }}
    // this round's counter updates before the next round's, by other lanes
    workgroupBarrier();
    old = subgroupShuffle(old, min(lead, sgs - 1u));
    rk{k} = old + cb.x + cb.y + cb.z + cb.w;
  }}
"""


def scatter_sg_source(d: DType, mode: str, first: bool, last: bool, iw: int,
                      min_size: int) -> str:
    """scatter_source with subgroup teams (see above), for subgroups of at least
    ``min_size`` invocations."""
    kpt = TILE // SG_WG
    teams = SG_WG // min_size
    words = teams * RADIX // 2
    rounds = "".join(_sg_round(d, mode, first, k) for k in range(kpt))
    writes = "\n".join(
        f"  if (ok{k}) {{ let o = base[d{k}] + ((atomicLoad(&th[sid * {RADIX // 2}u + "
        f"(d{k} >> 1u)]) >> ((d{k} & 1u) * 16u)) & 0xffffu) + rk{k};\n"
        f"    {_store(d, mode, last, iw, str(k))} }}" for k in range(kpt))
    spec = last and specials(d, mode)
    names = ["src", "counts"] + (["specials"] if spec else []) + ["dst"]
    value = _value_fn(d) if last and mode == "values" and not packed(d) else ""
    extra = (", @builtin(subgroup_invocation_id) sgi: u32, @builtin(subgroup_size) sgs: "
             "u32, @builtin(subgroup_id) sid: u32")
    return f"""{HEADER}
{bindings(names)}
{_source_fns(d, mode, first)}
{value}
var<workgroup> th: array<atomic<u32>, {words}>;
var<workgroup> base: array<u32, {RADIX}>;
fn lowest(m: vec4<u32>) -> u32 {{
  let f = firstTrailingBit(m);
  if (m.x != 0u) {{ return f.x; }}
  if (m.y != 0u) {{ return 32u + f.y; }}
  if (m.z != 0u) {{ return 64u + f.z; }}
  return 96u + f.w;
}}
{_main(SG_WG, extra)}
  for (var w = l; w < {words}u; w = w + {SG_WG}u) {{ atomicStore(&th[w], 0u); }}
  for (var e = l; e < {RADIX}u; e = e + {SG_WG}u) {{
    let q = (r * {RADIX}u + e) * T + j;
    base[e] = counts[q] + counts[p(4u) + q / {SCAN_BLOCK}u];
  }}
  let seg = start + sid * sgs * {kpt}u;
  // the lanes below this one, as a ballot
  let lo = vec4<u32>(0u, 32u, 64u, 96u);
  let below = vec4<u32>(sgi) - min(vec4<u32>(sgi), lo);
  let lt = select((vec4<u32>(1u) << min(below, vec4<u32>(31u))) - vec4<u32>(1u),
                  vec4<u32>(0xffffffffu), below >= vec4<u32>(32u));
  workgroupBarrier();
{rounds}
  workgroupBarrier();
  // lane l: digits 2l and 2l + 1, each team's start of them within the tile
  if (l < {RADIX // 2}u) {{
    var run = 0u;
    for (var t = 0u; t < {SG_WG}u / sgs; t = t + 1u) {{
      let c = atomicLoad(&th[t * {RADIX // 2}u + l]);
      atomicStore(&th[t * {RADIX // 2}u + l], run);
      run = run + c;
    }}
  }}
  workgroupBarrier();
{writes}
}}"""


def specials_source(d: DType) -> str:
    """float32's zeros and NaNs of each tile, in input order, to their places in
    ``specials`` by the first pass's scanned counts V (see _SV). A tile without any
    writes nothing (most tiles, most of the time)."""
    return f"""{HEADER}
{bindings(["src", "counts", "specials"])}
{KEY_FNS}
{key_fn("okey", "src", d)}
{_SV}
{_SCAN}
{_main()}
  let q0 = 2u * r * T + j;
  let q1 = q0 + T;
  let z0 = sv(q0); let m0 = sv(q1);
  let any = sv(q0 + 1u) != z0 || sv(q1 + 1u) != m0;
  let c0 = start + l * {KPT}u;
  var f = 0u;   // bit e: entry c0 + e is a zero; bit 16 + e: a NaN
  if (any) {{
    for (var e = 0u; e < {KPT}u; e = e + 1u) {{
      if (c0 + e < end) {{
        let k = okey(p(5u) + row + c0 + e)[0];
        if (k == 0x80000000u) {{ f = f | (1u << e); }}
        if (k == 0xffffffffu) {{ f = f | (1u << (16u + e)); }}
      }}
    }}
  }}
  let v = countOneBits(f & 0xffffu) | (countOneBits(f >> 16u) << 16u);
  sh[l] = v;
  wg_scan(l, l);
  let before = sh[l] - v;
  var z = z0 + (before & 0xffffu);
  var m = m0 + (before >> 16u);
  for (var e = 0u; e < {KPT}u; e = e + 1u) {{
    if ((f & (1u << e)) != 0u) {{ specials[z] = src[p(5u) + row + c0 + e]; z = z + 1u; }}
    if ((f & (1u << (16u + e))) != 0u) {{ specials[m] = src[p(5u) + row + c0 + e]; m = m + 1u; }}
  }}
}}"""


def unpack_source(d: DType) -> str:
    """A packed dtype's sorted values out of its last pass's key words (the value's bits
    in the upper half), a whole output word per invocation. Params [words, count]."""
    bits = d.itemsize * 8
    per = 32 // bits
    body = (f"  var w = 0u;\n"
            f"  for (var e = 0u; e < {per}u; e = e + 1u) {{\n"
            f"    let k = t * {per}u + e;\n"
            f"    if (k < p(1u)) {{ w = w | ((keys[k] >> 16u) << (e * {bits}u)); }}\n"
            f"  }}\n  out[t] = w;")
    return "\n".join([HEADER, bindings(["keys", "out"]), flat_main(body)])

"""A stable LSD radix sort of (order key, index) pairs with one-word keys: the WGSL of
its kernels (sorting.py drives them; the order keys are kernels/sort.py's).

The pairs are unpadded rows of ``n`` entries, two u32 words each (key, index within the
row), interleaved in one buffer because the runtime binds one writable buffer per
dispatch. Each pass sorts by one 8-bit digit of the key, least significant first, from
one pair buffer into the other, in four dispatches:

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

from .template import HEADER, WG, bindings

# WG (template.py): invocations per workgroup
KPT = 8                 # entries per lane (rounds of a scatter team)
TEAM = 32               # lanes of a ranking team
TEAMS = WG // TEAM
TILE = WG * KPT         # entries per tile (one workgroup each)
RADIX = 256             # 8-bit digits
COPIES = 8              # histogram copies
SCAN_PER = 8            # words per lane of the scan
SCAN_BLOCK = WG * SCAN_PER

def _main() -> str:
    """The entry point's opening: the tile of this workgroup."""
    return f"""@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {{
  // params [groups = rows * T, n, T, shift, counts n]
  let g = wg.x + wg.y * nw.x;
  if (g >= p(0u)) {{ return; }}   // uniform across the workgroup
  let n = p(1u); let T = p(2u); let shift = p(3u);
  let r = g / T; let j = g % T;
  let start = j * {TILE}u;
  let end = min(n, start + {TILE}u);
  let row = r * n;
"""


def histogram_source() -> str:
    """Digit counts of every tile. Params [groups, n, T, shift]."""
    zero = "\n".join(f"  atomicStore(&hist[{c * WG}u + l], 0u);" for c in range(COPIES))
    total = " + ".join(f"atomicLoad(&hist[{c * WG}u + l])" for c in range(COPIES))
    return f"""{HEADER}
{bindings(["src", "counts"])}
var<workgroup> hist: array<atomic<u32>, {RADIX * COPIES}>;
{_main()}
{zero}
  workgroupBarrier();
  let copy = (l % {COPIES}u) * {RADIX}u;
  for (var c = start + l; c < end; c = c + {WG}u) {{
    atomicAdd(&hist[copy + ((src[2u * (row + c)] >> shift) & 255u)], 1u);
  }}
  workgroupBarrier();
  counts[(r * {RADIX}u + l) * T + j] = {total};
}}"""


def scan_source() -> str:
    """Exclusive scan of ``n`` words from ``off`` in blocks of SCAN_BLOCK, in place; each
    block's total goes to ``off + n + block``. Params [n, off]."""
    return f"""{HEADER}
{bindings(["data"])}
var<workgroup> sh: array<u32, {WG}>;
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
  workgroupBarrier();
  for (var d = 1u; d < {WG}u; d = d << 1u) {{
    var t = sh[l];
    if (l >= d) {{ t = t + sh[l - d]; }}
    workgroupBarrier();
    sh[l] = t;
    workgroupBarrier();
  }}
  var run = sh[l] - k;
  for (var e = 0u; e < {SCAN_PER}u; e = e + 1u) {{
    if (i0 + e < n) {{ data[off + i0 + e] = run; }}
    run = run + v[e];
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


def _round(k: int) -> str:
    """Round ``k`` of the scatter: rank the team's 32 entries of this round."""
    cur, nxt = (k % 3) * 64, ((k + 1) % 3) * 64
    return f"""  // round {k}
  let c{k} = seg + {k * TEAM}u + i;
  let ok{k} = c{k} < end;
  var key{k} = 0u; var idx{k} = 0u; var d{k} = 0u; var rk{k} = 0u;
  var last{k} = false; var old{k} = 0u; var cnt{k} = 0u;
  if (ok{k}) {{
    key{k} = src[2u * (row + c{k})]; idx{k} = src[2u * (row + c{k}) + 1u];
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


def scatter_source() -> str:
    """Move every pair of each tile to its place by the current digit, stably.
    ``scanned``: the block-wise exclusive scan of the counts and, from word ``cn`` on,
    the exclusive scan of the blocks' totals. Params [groups, n, T, shift, cn]."""
    rounds = "".join(_round(k) for k in range(KPT))
    writes = "\n".join(
        f"  if (ok{k}) {{ let o = 2u * (th[team * {RADIX}u + d{k}] + rk{k});\n"
        f"    dst[o] = key{k}; dst[o + 1u] = idx{k}; }}" for k in range(KPT))
    zero_th = "\n".join(f"  th[{t * RADIX}u + l] = 0u;" for t in range(TEAMS))
    return f"""{HEADER}
{bindings(["src", "scanned", "dst"])}
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
  var run = scanned[q] + scanned[p(4u) + q / {SCAN_BLOCK}u];
  for (var t = 0u; t < {TEAMS}u; t = t + 1u) {{
    let c = th[t * {RADIX}u + l];
    th[t * {RADIX}u + l] = run;
    run = run + c;
  }}
  workgroupBarrier();
{writes}
}}"""

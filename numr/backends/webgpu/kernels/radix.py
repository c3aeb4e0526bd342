"""A stable LSD radix sort of (order key, index) pairs with one-word keys: the WGSL of
its two kernels (sorting.py drives them; the order keys are kernels/sort.py's).

The pairs are unpadded rows of ``n`` entries, two u32 words each (key, index within the
row), interleaved in one buffer because the runtime binds one writable buffer per
dispatch. Each pass sorts by one 8-bit digit of the key, least significant first, from
one pair buffer into the other:

1. ``histogram``: a workgroup per tile of TILE entries of one row (tiles never straddle
   rows) counts its digits in workgroup memory and writes them to
   ``counts[(row * 256 + digit) * tiles_per_row + tile]``.
2. sorting.py scans ``counts`` (inclusive, in place). In that order (row, then digit,
   then tile) the scan before an entry is exactly where its tile's run of that digit
   starts in the whole output: every earlier row, every smaller digit of its row, and
   the same digit in the row's earlier tiles.
3. ``scatter``: the same workgroup walks its tile in chunks of WG entries, in order. An
   entry's rank among the chunk's entries of its digit comes from the chunk's digits
   packed four to a word (a zero-byte count of ``word ^ digit * 0x01010101``), so the
   ranks follow the input order and the pass is stable; a running per-digit base in
   workgroup memory carries the counts from chunk to chunk.

Stable passes over the keys least significant digit first give the stable sort, so ties
keep their original (ascending index) order, as the bitonic path does.
"""

from __future__ import annotations

from .template import HEADER, WG, bindings

# WG (template.py): invocations per workgroup, and entries per scatter chunk
CHUNKS = 8              # chunks a workgroup walks
TILE = WG * CHUNKS      # entries per tile (one workgroup each)
RADIX = 256             # 8-bit digits

_MAIN = f"""@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {{
  // params [groups = rows * T, n, T, shift]
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
    return f"""{HEADER}
{bindings(["src", "counts"])}
var<workgroup> hist: array<atomic<u32>, {RADIX}>;
{_MAIN}
  atomicStore(&hist[l], 0u);
  workgroupBarrier();
  for (var c = start + l; c < end; c = c + {WG}u) {{
    atomicAdd(&hist[(src[2u * (row + c)] >> shift) & 255u], 1u);
  }}
  workgroupBarrier();
  counts[(r * {RADIX}u + l) * T + j] = atomicLoad(&hist[l]);
}}"""


def scatter_source() -> str:
    """Move every pair of each tile to its place by the current digit, stably.
    ``scanned``: the inclusive scan of the histogram counts. Params [groups, n, T, shift]."""
    return f"""{HEADER}
{bindings(["src", "scanned", "dst"])}
var<workgroup> base: array<u32, {RADIX}>;
var<workgroup> cnt: array<atomic<u32>, {RADIX}>;
var<workgroup> packed: array<atomic<u32>, {WG // 4}>;
{_MAIN}
  let q = (r * {RADIX}u + l) * T + j;
  base[l] = select(0u, scanned[q - 1u], q > 0u);   // exclusive: the inclusive scan before
  atomicStore(&cnt[l], 0u);
  if (l < {WG // 4}u) {{ atomicStore(&packed[l], 0u); }}
  workgroupBarrier();
  for (var c0 = start; c0 < end; c0 = c0 + {WG}u) {{
    let c = c0 + l;
    let valid = c < end;
    var key = 0u; var idx = 0u; var d = 0u;
    if (valid) {{
      key = src[2u * (row + c)]; idx = src[2u * (row + c) + 1u];
      d = (key >> shift) & 255u;
      atomicOr(&packed[l >> 2u], d << ((l & 3u) * 8u));
      atomicAdd(&cnt[d], 1u);
    }}
    workgroupBarrier();
    if (valid) {{
      // entries of digit d before l in this chunk (invalid ones all come after l)
      let rep = d * 0x01010101u;
      var rank = 0u;
      let lw = l >> 2u;
      for (var w = 0u; w <= lw; w = w + 1u) {{
        var x = atomicLoad(&packed[w]) ^ rep;
        if (w == lw) {{
          let b = l & 3u;
          if (b == 0u) {{ x = 0xffffffffu; }} else {{ x = x | (0xffffffffu << (b * 8u)); }}
        }}
        // high bit of every zero byte of x, exactly (no borrow between bytes)
        let z = ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x | 0x7f7f7f7fu);
        rank = rank + countOneBits(z);
      }}
      let o = 2u * (base[d] + rank);
      dst[o] = key; dst[o + 1u] = idx;
    }}
    workgroupBarrier();
    base[l] = base[l] + atomicLoad(&cnt[l]);
    atomicStore(&cnt[l], 0u);
    if (l < {WG // 4}u) {{ atomicStore(&packed[l], 0u); }}
    workgroupBarrier();
  }}
}}"""

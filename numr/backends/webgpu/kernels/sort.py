"""The sort template and the kernels built on it: WGSL for sort, argsort, searchsorted,
unique_* and isin.

Every kernel here reads and writes raw 32-bit words (``array<u32>``), whatever the
dtype: an element's bits are turned into an *order key*, a few u32 words that compare
lexicographically as unsigned integers in NumPy's order. So one sorting network serves
every dtype, and 64-bit and complex types need no shader-f64/int64 arithmetic.

Order keys (each word compared unsigned, first word first):

* unsigned and bool: the value; signed: the value with its sign bit flipped;
* floats: the bits with the sign bit set for positives and all bits flipped for
  negatives (the classic radix-sort trick), -0.0 mapped to +0.0's key (they are equal)
  and every NaN to all ones (NaN sorts last and all NaNs are equal);
* complex: a class word (2 if the real part is NaN, plus 1 if the imaginary part is),
  then the real part's float key, then the imaginary part's, which is NumPy's order
  ``[R + Rj, R + nanj, nan + Rj, nan + nanj]``.

A descending sort complements every key word; ties are then still broken by the
original index, ascending, which is the numr (NumPy-adapter) meaning of a stable
descending sort (flip, stable ascending sort, flip back).

Sorting: rows are padded to a power of two ``P`` with entries of key all-ones and index
``>= n`` (they sort after every real entry, whose index is smaller), then a bitonic
network sorts (key, index) *pairs*, which are all distinct, so the result is the stable
order. Stages whose partners are less than 512 entries apart run in workgroup memory
(one kernel for a whole run of them); the wider ones are one global compare-exchange
dispatch each. Because the runtime binds one writable buffer per dispatch, pairs live
interleaved in one buffer (``S`` words each: ``W`` key words then the index).
"""

from __future__ import annotations

from ...._dtypes import DType
from .template import HEADER, WG, bindings, flat_main

BLOCK = 2 * WG      # entries a workgroup sorts in workgroup memory
ONES = "0xffffffffu"

# -- order keys --------------------------------------------------------------------------

def key_words(d: DType) -> int:
    """How many u32 words the order key of dtype ``d`` has."""
    return {"complex64": 3, "complex128": 5}.get(d.name, 2 if d.itemsize == 8 else 1)


KEY_FNS = """fn fkey32(b: u32) -> u32 {
  let a = b & 0x7fffffffu;
  if (a > 0x7f800000u) { return 0xffffffffu; }
  if (a == 0u) { return 0x80000000u; }
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}
fn nan64(hi: u32, lo: u32) -> bool {
  let a = hi & 0x7fffffffu;
  return a > 0x7ff00000u || (a == 0x7ff00000u && lo != 0u);
}
fn fkey64(hi: u32, lo: u32) -> vec2<u32> {
  if (nan64(hi, lo)) { return vec2<u32>(0xffffffffu, 0xffffffffu); }
  if ((hi & 0x7fffffffu) == 0u && lo == 0u) { return vec2<u32>(0x80000000u, 0u); }
  if ((hi & 0x80000000u) != 0u) { return vec2<u32>(~hi, ~lo); }
  return vec2<u32>(hi | 0x80000000u, lo);
}
fn fkey16(r: u32) -> u32 {
  let a = r & 0x7fffu;
  if (a > 0x7c00u) { return 0xffffu; }
  if (a == 0u) { return 0x8000u; }
  return select(r | 0x8000u, ~r & 0xffffu, (r & 0x8000u) != 0u);
}
fn bkey16(r: u32) -> u32 {
  let a = r & 0x7fffu;
  if (a > 0x7f80u) { return 0xffffu; }
  if (a == 0u) { return 0x8000u; }
  return select(r | 0x8000u, ~r & 0xffffu, (r & 0x8000u) != 0u);
}"""


def _key_body(d: DType, buf: str) -> list[str]:
    """WGSL expressions of the key words of element ``e`` of raw buffer ``buf``."""
    name, bits = d.name, d.itemsize * 8
    if bits < 32:
        per = 32 // bits
        raw = (f"(({buf}[e >> {per.bit_length() - 1}u] >> ((e & {per - 1}u) * {bits}u)) "
               f"& {hex((1 << bits) - 1)}u)")
        if name == "float16":
            return [f"fkey16({raw})"]
        if name == "bfloat16":
            return [f"bkey16({raw})"]
        if name in ("int8", "int16"):
            return [f"({raw} ^ {hex(1 << (bits - 1))}u)"]
        return [raw]
    if name == "float32":
        return [f"fkey32({buf}[e])"]
    if name == "int32":
        return [f"({buf}[e] ^ 0x80000000u)"]
    if name == "uint32":
        return [f"{buf}[e]"]
    if name == "uint64":
        return [f"{buf}[2u * e + 1u]", f"{buf}[2u * e]"]
    if name == "int64":
        return [f"({buf}[2u * e + 1u] ^ 0x80000000u)", f"{buf}[2u * e]"]
    if name == "float64":
        return [f"fkey64({buf}[2u * e + 1u], {buf}[2u * e]).x",
                f"fkey64({buf}[2u * e + 1u], {buf}[2u * e]).y"]
    if name == "complex64":
        re, im = f"{buf}[2u * e]", f"{buf}[2u * e + 1u]"
        cls = (f"(select(0u, 2u, (({re}) & 0x7fffffffu) > 0x7f800000u) | "
               f"select(0u, 1u, (({im}) & 0x7fffffffu) > 0x7f800000u))")
        return [cls, f"fkey32({re})", f"fkey32({im})"]
    if name == "complex128":
        rh, rl = f"{buf}[4u * e + 1u]", f"{buf}[4u * e]"
        ih, il = f"{buf}[4u * e + 3u]", f"{buf}[4u * e + 2u]"
        cls = f"(select(0u, 2u, nan64({rh}, {rl})) | select(0u, 1u, nan64({ih}, {il})))"
        return [cls, f"fkey64({rh}, {rl}).x", f"fkey64({rh}, {rl}).y",
                f"fkey64({ih}, {il}).x", f"fkey64({ih}, {il}).y"]
    raise TypeError(f"no order key for dtype {d}")


def key_fn(fname: str, buf: str, d: DType) -> str:
    """``fn fname(e: u32) -> array<u32, W>``: the order key of element ``e`` of ``buf``."""
    words = _key_body(d, buf)
    return (f"fn {fname}(e: u32) -> array<u32, {len(words)}> {{\n"
            f"  return array<u32, {len(words)}>({', '.join(words)});\n}}")


def nan_key(d: DType, k: str) -> str:
    """WGSL: whether key ``k`` (an indexable of key words) is a NaN's: NaNs are never
    equal to anything, so unique keeps each apart and isin never finds one."""
    if d.kind == "complex":
        return f"({k}[0] != 0u)"
    if d.kind == "float":
        return f"({k}[0] == {'0xffffu' if d.itemsize == 2 else ONES})"
    return "false"


def compare_fns(W: int) -> str:
    """``klt(a, b)`` and ``keq(a, b)`` on key arrays of W words (unrolled)."""
    lt = "false"
    for w in reversed(range(W)):
        lt = f"(a[{w}] < b[{w}] || (a[{w}] == b[{w}] && {lt}))"
    eq = " && ".join(f"a[{w}] == b[{w}]" for w in range(W))
    return (f"fn klt(a: array<u32, {W}>, b: array<u32, {W}>) -> bool {{ return {lt}; }}\n"
            f"fn keq(a: array<u32, {W}>, b: array<u32, {W}>) -> bool {{ return {eq}; }}")


def pair_key(buf: str, W: int, S: int, i: str) -> str:
    """The key words of pair ``i`` of the pair buffer ``buf``, as an array value."""
    words = ", ".join(f"{buf}[({i}) * {S}u + {w}u]" for w in range(W))
    return f"array<u32, {W}>({words})"


def store_index(out: str, pos: str, v: str, iw: int) -> str:
    """Write index ``v`` (non-negative, < 2**32) at element ``pos`` of an int32 (iw=1) or
    int64 (iw=2) output."""
    if iw == 1:
        return f"{out}[{pos}] = {v};"
    return f"{out}[2u * ({pos})] = {v}; {out}[2u * ({pos}) + 1u] = 0u;"


# -- building and sorting pairs ----------------------------------------------------------

def pairs_source(d: DType) -> str:
    """Pairs for rows of ``n`` elements padded to ``P``: params [count = rows * P, n, P,
    source offset, key mask (0 ascending, all ones descending)]."""
    W = key_words(d)
    S = W + 1
    body = ["  let n = p(1u); let PP = p(2u);",
            "  let r = t / PP; let c = t % PP;",
            f"  var k = array<u32, {W}>({', '.join([ONES] * W)});",
            "  if (c < n) {",
            "    let m = p(4u);",
            "    let v = key(p(3u) + r * n + c);"]
    body += [f"    k[{w}] = v[{w}] ^ m;" for w in range(W)]
    body += ["  }"]
    body += [f"  pairs[t * {S}u + {w}u] = k[{w}];" for w in range(W)]
    body += [f"  pairs[t * {S}u + {W}u] = c;"]
    return "\n".join([HEADER, bindings(["src", "pairs"]), KEY_FNS, key_fn("key", "src", d),
                      flat_main("\n".join(body))])


def _less_words(S: int) -> str:
    """WGSL: pair A < pair B, their words loaded as A0.. and B0.. (lexicographic)."""
    expr = "false"
    for w in reversed(range(S)):
        expr = f"(A{w} < B{w} || (A{w} == B{w} && {expr}))"
    return expr


def _load_pair(buf: str, base: str, S: int, prefix: str) -> str:
    return " ".join(f"let {prefix}{w} = {buf}[{base} + {w}u];" for w in range(S))


def _exchange(buf: str, ia: str, ib: str, S: int) -> str:
    """Compare-exchange pairs at word offsets ia, ib: ascending when ``asc``."""
    swap = " ".join(f"{buf}[{ia} + {w}u] = B{w}; {buf}[{ib} + {w}u] = A{w};" for w in range(S))
    return (f"{_load_pair(buf, ia, S, 'A')}\n      {_load_pair(buf, ib, S, 'B')}\n"
            f"      if ({_less_words(S)} != asc) {{ {swap} }}")


def local_sort_source(S: int) -> str:
    """Bitonic stages k = p(2) .. p(3) (doubling), partner distances below BLOCK, on
    blocks of BLOCK pairs in workgroup memory. Params [total pairs, P, k0, k1]."""
    return f"""{HEADER}
{bindings(["pairs"])}
var<workgroup> sh: array<u32, {BLOCK * S}>;
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {{
  let total = p(0u); let PP = p(1u); let k0 = p(2u); let k1 = p(3u);
  let block = (wg.x + wg.y * nw.x) * {BLOCK}u;
  for (var q = l; q < {BLOCK}u; q = q + {WG}u) {{
    if (block + q < total) {{
      for (var w = 0u; w < {S}u; w = w + 1u) {{ sh[q * {S}u + w] = pairs[(block + q) * {S}u + w]; }}
    }}
  }}
  workgroupBarrier();
  for (var k = k0; k <= k1; k = k << 1u) {{
    for (var j = min(k >> 1u, {WG}u); j > 0u; j = j >> 1u) {{
      let i = 2u * l - (l & (j - 1u));
      let gi = block + i;
      if (gi + j < total) {{
        let asc = (gi & k) == 0u || k >= PP;
        let ia = i * {S}u; let ib = (i + j) * {S}u;
      {_exchange("sh", "ia", "ib", S)}
      }}
      workgroupBarrier();
    }}
  }}
  for (var q = l; q < {BLOCK}u; q = q + {WG}u) {{
    if (block + q < total) {{
      for (var w = 0u; w < {S}u; w = w + 1u) {{ pairs[(block + q) * {S}u + w] = sh[q * {S}u + w]; }}
    }}
  }}
}}"""


def global_step_source(S: int) -> str:
    """One bitonic compare-exchange step (k, j) in global memory, one invocation per
    pair of entries. Params [total / 2, P, k, j]."""
    body = f"""  let PP = p(1u); let k = p(2u); let j = p(3u);
  let i = 2u * t - (t & (j - 1u));
  let asc = (i & k) == 0u || k >= PP;
  let ia = i * {S}u; let ib = (i + j) * {S}u;
  {{
      {_exchange("pairs", "ia", "ib", S)}
  }}"""
    return "\n".join([HEADER, bindings(["pairs"]), flat_main(body)])


# -- reading results out of sorted pairs -------------------------------------------------

def argsort_source(S: int, iw: int) -> str:
    """The sorted indices of each row. Params [rows * n, n, P]."""
    W = S - 1
    body = (f"  let n = p(1u); let r = t / n; let c = t % n;\n"
            f"  let v = pairs[(r * p(2u) + c) * {S}u + {W}u];\n"
            f"  {store_index('out', 't', 'v', iw)}")
    return "\n".join([HEADER, bindings(["pairs", "out"]), flat_main(body)])


def gather_source(d: DType, reads: list[str], pos_fn: str) -> str:
    """``out[k] = src[pos(k)]`` for k < p(1), bit-exact for every dtype: a packed output
    (8/16-bit, bool) is written a whole word per invocation, so invocations never race on
    a word. ``pos_fn`` defines ``fn pos(k: u32) -> u32`` (an element index of src) and may
    read the buffers ``reads`` and params from p(2) on. Params [invocations, count, ...]."""
    bits = d.itemsize * 8
    if bits < 32:
        per = 32 // bits
        sh = per.bit_length() - 1
        mask = hex((1 << bits) - 1)
        body = (f"  var w = 0u;\n"
                f"  for (var j = 0u; j < {per}u; j = j + 1u) {{\n"
                f"    let k = t * {per}u + j;\n"
                f"    if (k < p(1u)) {{\n"
                f"      let e = pos(k);\n"
                f"      let v = (src[e >> {sh}u] >> ((e & {per - 1}u) * {bits}u)) & {mask}u;\n"
                f"      w = w | (v << (j * {bits}u));\n    }}\n  }}\n"
                f"  out[t] = w;")
    else:
        nw = bits // 32
        body = f"  let e = pos(t);\n" + "\n".join(
            f"  out[{nw}u * t + {w}u] = src[{nw}u * e + {w}u];" for w in range(nw))
    return "\n".join([HEADER, bindings(["src", *reads, "out"]), pos_fn, flat_main(body)])


# -- unique ----------------------------------------------------------------------------

def unique_flags_source(d: DType) -> str:
    """1 where a sorted pair starts a new value (NaNs always do). Params [N]."""
    W = key_words(d)
    S = W + 1
    body = (f"  let k = {pair_key('pairs', W, S, 't')};\n"
            f"  var f = t == 0u || {nan_key(d, 'k')};\n"
            f"  if (!f) {{ f = !keq(k, {pair_key('pairs', W, S, 't - 1u')}); }}\n"
            f"  flags[t] = select(0u, 1u, f);")
    return "\n".join([HEADER, bindings(["pairs", "flags"]), compare_fns(W), flat_main(body)])


def unique_flags_sorted_source(d: DType) -> str:
    """unique_flags_source on the sorted values themselves. Params [N]."""
    W = key_words(d)
    body = (f"  let k = key(t);\n"
            f"  var f = t == 0u || {nan_key(d, 'k')};\n"
            f"  if (!f) {{ f = !keq(k, key(t - 1u)); }}\n"
            f"  flags[t] = select(0u, 1u, f);")
    return "\n".join([HEADER, bindings(["v", "flags"]), KEY_FNS, key_fn("key", "v", d),
                      compare_fns(W), flat_main(body)])


def unique_starts_source() -> str:
    """From the scanned flags G (group number + 1 of each sorted entry): the sorted
    position where each group starts, and N after the last one. Params [N]."""
    body = ("  let gt = grp[t];\n"
            "  if (t == 0u || gt != grp[t - 1u]) { starts[gt - 1u] = t; }\n"
            "  if (t == p(0u) - 1u) { starts[gt] = p(0u); }")
    return "\n".join([HEADER, bindings(["grp", "starts"]), flat_main(body)])


def unique_counts_source(iw: int) -> str:
    """Group sizes. Params [U]."""
    body = f"  {store_index('out', 't', 'starts[t + 1u] - starts[t]', iw)}"
    return "\n".join([HEADER, bindings(["starts", "out"]), flat_main(body)])


def unique_first_source(S: int, iw: int) -> str:
    """The original index of each group's first element (stable sort: its smallest).
    Params [U]."""
    body = f"  {store_index('out', 't', f'pairs[starts[t] * {S}u + {S - 1}u]', iw)}"
    return "\n".join([HEADER, bindings(["pairs", "starts", "out"]), flat_main(body)])


def unique_inverse_source(S: int, iw: int) -> str:
    """Each original element's group number. Params [N]."""
    body = f"  {store_index('out', f'pairs[t * {S}u + {S - 1}u]', 'grp[t] - 1u', iw)}"
    return "\n".join([HEADER, bindings(["pairs", "grp", "out"]), flat_main(body)])


# -- binary searches -------------------------------------------------------------------

def isin_source(d: DType) -> str:
    """Whether each element of x1 equals a key of the sorted pairs of x2 (NaN: never),
    xor ``invert``; a packed bool output, one word per invocation.
    Params [words, count, x1 offset, m (x2 size), invert]."""
    W = key_words(d)
    S = W + 1
    body = f"""  var w = 0u;
  for (var j = 0u; j < 4u; j = j + 1u) {{
    let i = t * 4u + j;
    if (i < p(1u)) {{
      let k = key(p(2u) + i);
      let m = p(3u);
      var lo = 0u; var hi = m;
      while (lo < hi) {{
        let mid = (lo + hi) >> 1u;
        if (klt({pair_key('pairs', W, S, 'mid')}, k)) {{ lo = mid + 1u; }} else {{ hi = mid; }}
      }}
      var found = false;
      if (lo < m && !{nan_key(d, 'k')}) {{ found = keq({pair_key('pairs', W, S, 'lo')}, k); }}
      if (found != (p(4u) != 0u)) {{ w = w | (1u << (j * 8u)); }}
    }}
  }}
  out[t] = w;"""
    return "\n".join([HEADER, bindings(["x1", "pairs", "out"]), KEY_FNS,
                      key_fn("key", "x1", d), compare_fns(W), flat_main(body)])


def searchsorted_source(d: DType, sorter_words: int, iw: int) -> str:
    """NumPy's searchsorted by binary search per element of x2 over the (ascending) x1,
    seen through ``sorter`` where ``sorter_words`` is 1 or 2 (its index dtype's words),
    0 for none. Params [count, n, x1 offset, x2 offset, right, sorter offset]."""
    W = key_words(d)
    names = ["x1", "x2"] + (["sorter"] if sorter_words else []) + ["out"]
    at = "mid"
    if sorter_words:
        at = f"sorter[{sorter_words}u * (p(5u) + mid)]"
    body = f"""  let v = key2(p(3u) + t);
  let right = p(4u) != 0u;
  var lo = 0u; var hi = p(1u);
  while (lo < hi) {{
    let mid = (lo + hi) >> 1u;
    let km = key1(p(2u) + {at});
    // left: the first km >= v; right: the first km > v
    if (select(klt(km, v), !klt(v, km), right)) {{ lo = mid + 1u; }} else {{ hi = mid; }}
  }}
  {store_index('out', 't', 'lo', iw)}"""
    return "\n".join([HEADER, bindings(names), KEY_FNS, key_fn("key1", "x1", d),
                      key_fn("key2", "x2", d), compare_fns(W), flat_main(body)])

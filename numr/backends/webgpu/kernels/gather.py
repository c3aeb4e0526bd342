"""The gather/scatter template and the stream-compaction (prefix-scan) kernels.

Gather and scatter move elements without computing on them, so they copy raw bits: a
dtype is only its element size here (1/2-byte elements are bit fields of u32 words,
4-byte ones u32, 8-byte ones vec2<u32>, complex128 vec4<u32>). Kernels are therefore
keyed by element sizes, not dtypes, and need no shader-f64/int64 to move 64-bit data.

Addresses are *linear forms* of the iteration coordinates: ``base + sum(c[d] * s[d])``
(parameter words), plus ``index_j * mult_j`` for each index array ``j`` (itself read at
a linear form of the same coordinates, stride 0 where it is broadcast). Every advanced
indexing case (integer arrays mixed with ints/slices/None, masks turned into integer
arrays, take, take_along_axis) reduces to these forms, so one template serves them all:

* ``gather``: ``out[t] = src[A(t)]`` over a C-contiguous output.
* ``scatter``: ``dst[A(t)] = value[V(t)]`` (or a scalar's bits); packed elements are
  merged into their word with atomicAnd/atomicOr, so neighbours written by other
  invocations survive.
* ``winner``: ``atomicMax(W[F(t)], t + 1)`` where ``F`` is the destination's flat index:
  with repeated indices the scatter then lets only the last (in C order) invocation
  write, which is NumPy's sequential "last write wins", and no element is ever torn.
* ``offsets``: ``out[t] = A(t)``, to fold many index arrays into one when a dispatch
  would bind too many buffers.

Index values are read as the low 32 bits of a non-negative integer: numr wraps negative
indices and bounds-checks before a backend sees them.

Stream compaction (nonzero, boolean masks) is two passes over the data around a prefix
scan of per-block counts: ``count`` (non-zero elements of each block of ``BLOCK``),
``scan`` (exclusive prefix sums of those counts, recursively for many blocks; the total
comes last), ``compact`` (each block re-derives its flags, scans them in workgroup
memory and writes the coordinates of its non-zero elements at their global positions).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from ...._dtypes import DType
from ..array import GPUArray, new
from ..runtime import remember
from .map import _collapse
from .template import HEADER, WG, block_scan

PER_THREAD = 4
BLOCK = WG * PER_THREAD  # elements per workgroup in the compaction kernels

_HEAD = [HEADER,
         "fn ps(k: u32) -> i32 { return bitcast<i32>(p(k)); }"]
_MAIN = ("@compute @workgroup_size(256)\n"
         "fn main(@builtin(global_invocation_id) g: vec3<u32>, "
         "@builtin(num_workgroups) nw: vec3<u32>) {\n"
         "  let t = g.x + g.y * nw.x * 256u;\n  let n = p(0u);\n")


# -- raw element access -------------------------------------------------------------------

def rtype(size: int) -> str:
    """The WGSL type holding the raw bits of one element of ``size`` bytes (and the
    buffer element type: 1/2-byte elements live in u32 words)."""
    return {8: "vec2<u32>", 16: "vec4<u32>"}.get(size, "u32")


def _raw_load(name: str, buf: str, size: int) -> str:
    """``fn name(e) -> rtype``: the raw bits of element ``e`` of ``buf``."""
    if size == 1:
        return (f"fn {name}(e: u32) -> u32 {{ return ({buf}[e >> 2u] >> ((e & 3u) * 8u)) "
                f"& 0xffu; }}")
    if size == 2:
        return (f"fn {name}(e: u32) -> u32 {{ return ({buf}[e >> 1u] >> ((e & 1u) * 16u)) "
                f"& 0xffffu; }}")
    return f"fn {name}(e: u32) -> {rtype(size)} {{ return {buf}[e]; }}"


def _index_load(name: str, buf: str, size: int) -> str:
    """``fn name(e) -> u32``: a non-negative index (its low 32 bits)."""
    if size == 8:
        return f"fn {name}(e: u32) -> u32 {{ return {buf}[e].x; }}"
    return _raw_load(name, buf, size)


def scalar_words(raw: bytes) -> list[int]:
    """Parameter words holding a scalar's raw bytes (zero-padded to whole words)."""
    raw = raw + b"\0" * (-len(raw) % 4)
    return [int.from_bytes(raw[k:k + 4], "little") for k in range(0, len(raw), 4)]


# -- the gather/scatter template ------------------------------------------------------

class Words:
    """Assigns parameter words in order, so the WGSL and the launcher agree."""

    def __init__(self, nd: int):
        self.nd = nd
        self.next: int = 1 + nd  # word 0 is n, then the iteration shape

    def take(self, count: int) -> int:
        k = self.next
        self.next += count
        return k

    def form(self) -> int:
        """A linear form: a base word and nd stride words."""
        return self.take(1 + self.nd)


def _form(k: int, nd: int) -> str:
    terms = "".join(f" + i32(c[{d}]) * ps({k + 1 + d}u)" for d in range(nd))
    return f"(ps({k}u){terms})"


def _decode(nd: int) -> str:
    lines = [f"var<private> c: array<u32, {nd}>;", "fn decode(i: u32) {", "  var r = i;"]
    for d in range(nd - 1, 0, -1):
        lines.append(f"  c[{d}] = r % p({1 + d}u); r = r / p({1 + d}u);")
    lines += ["  c[0] = r;", "}"]
    return "\n".join(lines)


def layout(mode: str, nd: int, isizes: tuple[int, ...], value: str | None,
           size: int) -> dict[str, Any]:
    """Parameter word positions of a kernel (see :func:`source`)."""
    w = Words(nd)
    at: dict[str, Any] = {}
    if mode in ("gather", "scatter", "offsets"):
        at["A"] = w.form()
    if mode in ("winner", "scatter_w"):
        if mode == "scatter_w":
            at["A"] = w.form()
        at["F"] = w.form()
    if value == "array":
        at["V"] = w.form()
    elif value == "scalar":
        at["V"] = w.take(max(size // 4, 1))
    at["I"] = [w.form() for _ in isizes]
    at["MA"] = [w.take(1) for _ in isizes] if "A" in at else []
    at["MF"] = [w.take(1) for _ in isizes] if "F" in at else []
    at["words"] = w.next
    return at


def source(mode: str, nd: int, isizes: tuple[int, ...], value: str | None, size: int) -> str:
    """WGSL of one kernel. ``mode``: gather, offsets, winner, scatter (no winner check)
    or scatter_w (with it); ``isizes``: the element sizes of the index arrays;
    ``value``: 'array' or 'scalar' (scatters); ``size``: the moved element size."""
    at = layout(mode, nd, isizes, value, size)
    lines = list(_HEAD)
    b = 1
    if mode == "gather":
        lines.append(f"@group(0) @binding({b}) var<storage, read> src: "
                     f"array<{rtype(size)}>;")
        lines.append(_raw_load("lds", "src", size))
        b += 1
    for j, isz in enumerate(isizes):
        lines.append(f"@group(0) @binding({b}) var<storage, read> x{j}: "
                     f"array<{rtype(isz)}>;")
        lines.append(_index_load(f"ix{j}", f"x{j}", isz))
        b += 1
    if value == "array":
        lines.append(f"@group(0) @binding({b}) var<storage, read> val: "
                     f"array<{rtype(size)}>;")
        lines.append(_raw_load("ldv", "val", size))
        b += 1
    if mode == "scatter_w":
        lines.append(f"@group(0) @binding({b}) var<storage, read> W: array<u32>;")
        b += 1
    packed = size < 4
    if mode == "winner":
        out = "atomic<u32>"
    elif mode == "offsets":
        out = "i32"
    elif mode.startswith("scatter") and packed:
        out = "atomic<u32>"
    else:
        out = rtype(size)
    lines.append(f"@group(0) @binding({b}) var<storage, read_write> y: array<{out}>;")
    lines.append(_decode(nd))

    def address(key: str, mults: str) -> str:
        terms = "".join(f" + i32(ix{j}(u32({_form(k, nd)}))) * ps({m}u)"
                        for j, (k, m) in enumerate(zip(at["I"], at[mults])))
        return f"u32({_form(at[key], nd)}{terms})"

    if "A" in at:
        lines.append(f"fn addr() -> u32 {{ return {address('A', 'MA')}; }}")
    if "F" in at:
        lines.append(f"fn flat() -> u32 {{ return {address('F', 'MF')}; }}")
    if value == "array":
        lines.append(f"fn value() -> {rtype(size)} {{ return ldv(u32({_form(at['V'], nd)})); }}")
    elif value == "scalar":
        k = at["V"]
        v = {8: f"vec2<u32>(p({k}u), p({k + 1}u))",
             16: f"vec4<u32>(p({k}u), p({k + 1}u), p({k + 2}u), p({k + 3}u))"}.get(size, f"p({k}u)")
        lines.append(f"fn value() -> {rtype(size)} {{ return {v}; }}")
    main = _MAIN
    if mode == "gather" and packed:
        per = 4 // size
        width = 8 * size
        main += (f"  let i0 = t * {per}u;\n  if (i0 >= n) {{ return; }}\n  var w = 0u;\n"
                 f"  for (var j = 0u; j < {per}u; j++) {{\n"
                 f"    let i = i0 + j;\n"
                 f"    if (i < n) {{ decode(i); w = w | (lds(addr()) << (j * {width}u)); }}\n"
                 f"  }}\n  y[t] = w;\n}}")
    else:
        main += "  if (t >= n) { return; }\n  decode(t);\n"
        if mode == "gather":
            main += "  y[t] = lds(addr());\n}"
        elif mode == "offsets":
            main += f"  y[t] = i32({address('A', 'MA')});\n}}"
        elif mode == "winner":
            main += "  atomicMax(&y[flat()], t + 1u);\n}"
        else:
            if mode == "scatter_w":
                main += "  if (W[flat()] != t + 1u) { return; }\n"
            main += "  let e = addr();\n  let v = value();\n"
            if packed:
                per = 4 // size
                mask = "0xffu" if size == 1 else "0xffffu"
                word = "e >> 2u" if per == 4 else "e >> 1u"
                main += (f"  let sh = (e & {per - 1}u) * {8 * size}u;\n"
                         f"  atomicAnd(&y[{word}], ~({mask} << sh));\n"
                         f"  atomicOr(&y[{word}], v << sh);\n}}")
            else:
                main += "  y[e] = v;\n}"
    lines.append(main)
    return "\n".join(lines)


class Index:
    """One index array of a move: the array, its strides over the iteration shape (0
    where broadcast), and its multipliers into the address (A) and flat (F) forms."""

    __slots__ = ("array", "strides", "mult_a", "mult_f")

    def __init__(self, array: GPUArray, strides: tuple[int, ...], mult_a: int,
                 mult_f: int = 0):
        self.array: GPUArray = array
        self.strides: tuple[int, ...] = strides
        self.mult_a: int = mult_a
        self.mult_f: int = mult_f


def _words(v: int) -> int:
    return v & 0xFFFFFFFF


def _collapsed(shape: tuple[int, ...], forms: list[tuple[int, ...]]) -> tuple[
        tuple[int, ...], list[tuple[int, ...]]]:
    """The iteration shape and forms' strides with length-1 dimensions dropped and evenly
    walked neighbours merged; at least one dimension (a size-1 shape stays (1,))."""
    cshape, cstrides = _collapse(tuple(shape), [list(s) for s in forms])
    if not cshape:
        return (1,), [(0,) for _ in forms]
    return cshape, cstrides


class _MovePlan:
    """What a move's signature fixes (mode, shape, forms' strides, index item sizes,
    value kind): the pipeline, the parameter words but for the bases, offsets,
    multipliers and scalar bytes (``params``), where those go, and the workgroups.
    Cached in ``Runtime.plans``, so a repeated gather or scatter collapses no shape
    and builds no layout or key."""

    __slots__ = ("pipe", "params", "at", "groups", "n")


def _move_plan(rt: Any, sig: tuple[Any, ...], mode: str, kmode: str, shape: tuple[int, ...],
               size: int, forms: list[tuple[int, ...]], isizes: tuple[int, ...],
               vkind: str | None, nblocks: int) -> _MovePlan:
    n = math.prod(shape)
    cshape, cstr = _collapsed(shape, forms)
    nd = len(cshape)
    at = layout(kmode, nd, isizes, vkind, size)
    params = [0] * at["words"]
    params[0] = n
    params[1:1 + nd] = cshape
    # each form's stride words follow its base word, in the order of ``forms``
    bases = [at[k] for k in ("A", "F") if k in at]
    if vkind == "array":
        bases.append(at["V"])
    bases += at["I"]
    for k, st in zip(bases, cstr):
        params[k + 1:k + 1 + nd] = [_words(v) for v in st]
    if mode == "gather" and size < 4:
        threads = -(-n // (4 // size))
    else:
        threads = n
    key = ("move", kmode, nd, isizes, vkind, size)
    plan = _MovePlan()
    plan.pipe = rt.pipeline(key, lambda: source(kmode, nd, isizes, vkind, size), nblocks)
    plan.params, plan.at, plan.groups, plan.n = params, at, -(-threads // WG), n
    return remember(rt, sig, plan)


def move(rt: Any, mode: str, shape: tuple[int, ...], *, src: GPUArray | None = None,
         dst: GPUArray | None = None, size: int,
         a_form: tuple[int, tuple[int, ...]] | None = None,
         f_form: tuple[int, tuple[int, ...]] | None = None, value: Any = None,
         value_strides: tuple[int, ...] = (),
         index: Sequence[Index] = (), winner: GPUArray | None = None,
         out: GPUArray | None = None) -> GPUArray | None:
    """Record one gather/scatter/winner/offsets dispatch over the C-order iteration
    ``shape``. Forms are ``(base, strides over shape)``; ``value`` is a GPUArray (read
    at ``value_strides`` from its offset) or the raw bytes of a scalar; ``out`` is the
    fresh C-contiguous result of gather/offsets, ``dst``/``winner`` the written buffer
    of scatter/winner."""
    if 0 in shape:
        return out
    kmode = "scatter_w" if mode == "scatter" and winner is not None else mode
    forms: list[tuple[int, ...]] = []
    if kmode != "winner":
        forms.append(a_form[1])
    if kmode in ("winner", "scatter_w"):
        forms.append(f_form[1])
    vkind = None
    if value is not None:
        vkind = "array" if isinstance(value, GPUArray) else "scalar"
        if vkind == "array":
            forms.append(value_strides)
    forms += [ix.strides for ix in index]
    isizes = tuple(ix.array.dtype.itemsize for ix in index)
    sig = ("move", mode, kmode, shape, size, vkind, isizes, *forms)
    blocks = []
    if mode == "gather":
        blocks.append(src.storage.block)
    blocks += [ix.array.storage.block for ix in index]
    if vkind == "array":
        blocks.append(value.storage.block)
    if kmode == "scatter_w":
        blocks.append(winner.storage.block)
    if mode in ("gather", "offsets"):
        blocks.append(out.storage.block)
    elif mode == "winner":
        blocks.append(winner.storage.block)
    else:
        blocks.append(dst.storage.block)
    plan = rt.plans.get(sig)
    if plan is None:
        plan = _move_plan(rt, sig, mode, kmode, shape, size, forms, isizes, vkind,
                          len(blocks))
    at = plan.at
    params = plan.params.copy()
    if "A" in at:
        params[at["A"]] = _words(a_form[0])
    if "F" in at:
        params[at["F"]] = _words(f_form[0])
    if vkind == "array":
        params[at["V"]] = _words(value.offset)
    elif vkind == "scalar":
        words = scalar_words(value)
        params[at["V"]:at["V"] + len(words)] = words
    for j, ix in enumerate(index):
        params[at["I"][j]] = _words(ix.array.offset)
        if at["MA"]:
            params[at["MA"][j]] = _words(ix.mult_a)
        if at["MF"]:
            params[at["MF"][j]] = _words(ix.mult_f)
    rt.record(plan.pipe, tuple(blocks), params, plan.groups)
    return out


# -- stream compaction ---------------------------------------------------------------

def _nonzero_fn(d: DType) -> str:
    """``fn nz(e) -> bool``: whether element ``e`` of ``x`` is non-zero, from its bits:
    floats ignore the sign bit (-0.0 is zero) and NaN is non-zero. Note: bits, not a
    float comparison, because WGSL lets compilers assume no NaN exists."""
    size = d.itemsize
    load = _raw_load("ld", "x", size)
    if d.kind == "float":
        sign = {2: "0x7fffu", 4: "0x7fffffffu"}.get(size)
        test = f"(v & {sign}) != 0u" if sign else "(v.x | (v.y & 0x7fffffffu)) != 0u"
    elif d.kind == "complex":
        test = ("((v.x & 0x7fffffffu) | (v.y & 0x7fffffffu)) != 0u" if size == 8 else
                "(v.x | (v.y & 0x7fffffffu) | v.z | (v.w & 0x7fffffffu)) != 0u")
    else:
        test = "v != 0u" if size <= 4 else "(v.x | v.y) != 0u"
    return f"{load}\nfn nz(e: u32) -> bool {{ let v = ld(e); return {test}; }}"


# Inclusive scan of sh over the workgroup; every invocation calls wg_scan(l, l) after
# writing its own sh[l] (without the first barrier a fast subgroup reads sh[l - s] before
# a slower one has stored it: lavapipe never shows it, an NVIDIA GPU does).
_SCAN = block_scan("wg_scan", "sh", "u32", WG)

_WG_MAIN = ("@compute @workgroup_size(256)\n"
            "fn main(@builtin(workgroup_id) wg: vec3<u32>, "
            "@builtin(local_invocation_index) l: u32, "
            "@builtin(num_workgroups) nw: vec3<u32>) {\n"
            "  let g = wg.x + wg.y * nw.x;\n  let n = p(0u);\n"
            f"  let base = g * {BLOCK}u + l * {PER_THREAD}u;\n")


def _element(nd: int) -> str:
    """``fn elem(i) -> u32``: the element index of C-order position ``i`` of x (shape at
    words 1.., form after it), leaving its coordinates in ``c``."""
    return _decode(nd) + f"\nfn elem(i: u32) -> u32 {{ decode(i); return u32{_form(1 + nd, nd)}; }}"


def _count_source(d: DType, nd: int) -> str:
    # params: n, shape(nd), x form (1 + nd)
    lines = list(_HEAD)
    lines.append(f"@group(0) @binding(1) var<storage, read> x: array<{rtype(d.itemsize)}>;")
    lines.append(_nonzero_fn(d))
    lines.append("@group(0) @binding(2) var<storage, read_write> y: array<u32>;")
    lines.append(_element(nd))
    lines.append(_SCAN)
    lines.append(_WG_MAIN + f"""  var k = 0u;
  for (var j = 0u; j < {PER_THREAD}u; j++) {{
    let i = base + j;
    if (i < n && nz(elem(i))) {{ k = k + 1u; }}
  }}
  sh[l] = k;
  wg_scan(l, l);
  if (l == 255u && g * {BLOCK}u < n) {{ y[g] = sh[255]; }}  // not the spare groups of a 2-D grid
}}""")
    return "\n".join(lines)


def _compact_source(d: DType, nd: int, wide: bool) -> str:
    # params: n, shape(nd), x form (1 + nd), offsets base, count (the out row length)
    lines = list(_HEAD)
    lines.append(f"@group(0) @binding(1) var<storage, read> x: array<{rtype(d.itemsize)}>;")
    lines.append(_nonzero_fn(d))
    lines.append("@group(0) @binding(2) var<storage, read> E: array<u32>;")
    out = "vec2<u32>" if wide else "u32"
    lines.append(f"@group(0) @binding(3) var<storage, read_write> y: array<{out}>;")
    lines.append(_element(nd))
    lines.append(_SCAN)
    k_e, k_count = 2 + 2 * nd, 3 + 2 * nd
    store = "vec2<u32>(c[a], 0u)" if wide else "c[a]"
    lines.append(_WG_MAIN + f"""  var f = 0u;
  for (var j = 0u; j < {PER_THREAD}u; j++) {{
    let i = base + j;
    if (i < n && nz(elem(i))) {{ f = f | (1u << j); }}
  }}
  let k = countOneBits(f);
  sh[l] = k;
  wg_scan(l, l);
  var pos = E[p({k_e}u) + g] + sh[l] - k;
  let count = p({k_count}u);
  for (var j = 0u; j < {PER_THREAD}u; j++) {{
    if ((f & (1u << j)) != 0u) {{
      _ = elem(base + j);
      for (var a = 0u; a < {nd}u; a++) {{ y[a * count + pos] = {store}; }}
      pos = pos + 1u;
    }}
  }}
}}""")
    return "\n".join(lines)


def _scan_block_source() -> str:
    # params: n, input offset; output: exclusive sums (n) then block totals
    lines = list(_HEAD)
    lines.append("@group(0) @binding(1) var<storage, read> x: array<u32>;")
    lines.append("@group(0) @binding(2) var<storage, read_write> y: array<u32>;")
    lines.append(_SCAN)
    lines.append(_WG_MAIN + f"""  let off = p(1u);
  var v: array<u32, {PER_THREAD}>;
  var k = 0u;
  for (var j = 0u; j < {PER_THREAD}u; j++) {{
    let i = base + j;
    v[j] = 0u;
    if (i < n) {{ v[j] = x[off + i]; }}
    k = k + v[j];
  }}
  sh[l] = k;
  wg_scan(l, l);
  var run = sh[l] - k;
  for (var j = 0u; j < {PER_THREAD}u; j++) {{
    let i = base + j;
    if (i < n) {{ y[i] = run; }}
    run = run + v[j];
  }}
  if (l == 255u && g * {BLOCK}u < n) {{ y[n + g] = sh[255]; }}
}}""")
    return "\n".join(lines)


def _add_source() -> str:
    # params: n, a offset, T offset, number of blocks: y[i] = a[i] + T[i / BLOCK], y[n] = T[nb]
    lines = list(_HEAD)
    lines.append("@group(0) @binding(1) var<storage, read> a: array<u32>;")
    lines.append("@group(0) @binding(2) var<storage, read> T: array<u32>;")
    lines.append("@group(0) @binding(3) var<storage, read_write> y: array<u32>;")
    lines.append(_MAIN + f"""  if (t > n) {{ return; }}
  if (t == n) {{ y[n] = T[p(2u) + p(3u)]; return; }}
  y[t] = a[p(1u) + t] + T[p(2u) + t / {BLOCK}u];
}}""")
    return "\n".join(lines)


def _groups(count: int) -> int:
    return max(count, 1)


def scan(rt: Any, storage: Any, offset: int, n: int) -> tuple[Any, int]:
    """Exclusive prefix sums of ``n`` u32 counts at element ``offset`` of ``storage``:
    (a Storage holding the n sums then the total, the element offset of the sums)."""
    nb = -(-n // BLOCK)
    first = rt.alloc(4 * (n + nb))
    rt.dispatch(("scan_block",), _scan_block_source, [storage.block, first.block],
                [n, offset], _groups(nb))
    if nb == 1:
        return first, 0  # the block total is the total, right after the sums
    totals, t_off = scan(rt, first, n, nb)
    out = rt.alloc(4 * (n + 1))
    rt.dispatch(("scan_add",), _add_source, [first.block, totals.block, out.block],
                [n, 0, t_off, nb], _groups(-(-(n + 1) // WG)))
    return out, 0


def nonzero(rt: Any, x: GPUArray, index: DType,
            read_count: Callable[[Any, int], int]) -> GPUArray:
    """The coordinates of the non-zero elements of ``x`` in C order, as one C-contiguous
    (x.ndim, count) array of dtype ``index`` (row ``a``: the indices along axis ``a``).
    ``read_count(storage, element)`` reads the count back (the one host read: the
    result's shape depends on it)."""
    n = x.size
    nd = x.ndim
    if n == 0:
        return new(rt, (nd, 0), index)
    nb = -(-n // BLOCK)
    form = [x.offset & 0xFFFFFFFF] + [s & 0xFFFFFFFF for s in x.strides]
    head = [n, *x.shape, *form]
    counts = rt.alloc(4 * nb)
    d = x.dtype
    rt.dispatch(("nz_count", d.name, nd), lambda: _count_source(d, nd),
                [x.storage.block, counts.block], head, _groups(nb))
    sums, s_off = scan(rt, counts, 0, nb)
    count = read_count(sums, s_off + nb)
    out = new(rt, (nd, count), index)
    if count:
        wide = index.itemsize == 8
        rt.dispatch(("nz_compact", d.name, nd, wide), lambda: _compact_source(d, nd, wide),
                    [x.storage.block, sums.block, out.storage.block],
                    head + [s_off, count], _groups(nb))
    return out

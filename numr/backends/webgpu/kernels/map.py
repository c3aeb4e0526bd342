"""The map template: ``out[i] = f(operands at i, i)`` over a C-contiguous output.

Operands are arrays (contiguous in the output's shape: ``e = offset + i``; otherwise
strided with broadcast/negative strides decoded from the output's coordinates) or
Python scalars passed as parameter bits. Adjacent dimensions that every strided operand
walks evenly are merged first, so most kernels see one or two dimensions. A packed
output (bool, 8/16-bit) is written a whole 32-bit word per invocation, so invocations
never race on a word.

The common case (every operand contiguous in the output's shape or a scalar, 32-bit
unpacked dtypes, offsets that are multiples of four) has its own kernel: each
invocation moves 4 vec4 words per operand, loaded before any store, which is what the
memory system of a large GPU needs to approach its copy bandwidth (one scalar per
invocation reached about 63% of it on an H200).
"""

from __future__ import annotations

import math
import struct
from typing import Any, Sequence

import numpy as np

from .... import _config
from ...._dtypes import DType
from ..array import GPUArray, c_strides, new
from . import expressions as wops
from ..runtime import SLOT_WORDS, remember
from .template import HEADER
from .types import LAYOUT, bits_expr, ctype, load_fn

WG = 256
_NAMES = "abcdefgh"
_new = object.__new__


# The least magnitude a Python float rounds to float32 infinity at: FLT_MAX plus half an
# ulp (the tie rounds to even, which is up). struct's "f" refuses it; NumPy gives inf.
F32_BIG = float.fromhex("0x1.ffffffp+127")


def f32_value(v: float) -> float:
    """A Python float as struct's "f" takes it: beyond float32's range, the infinity of
    its sign (the value NumPy's cast gives), so that `float32_array + 3.5e38` is inf and
    `float32_array < 1e39` compares with inf, as on the CPU."""
    if -F32_BIG < v < F32_BIG or v != v:
        return v
    return math.copysign(math.inf, v)


def scalar_words(v: Any, d: DType) -> list[int]:
    """The parameter words of Python scalar ``v`` as a compute value of dtype ``d``."""
    ct = ctype(d)
    if ct == "bool":
        return [1 if v else 0]
    if ct == "f32":
        v = f32_value(float(v))
        if d.name in ("float16", "bfloat16"):
            with np.errstate(over="ignore"):
                v = float(np.asarray(v, dtype=d.name))  # rounded to the dtype first, as NumPy does
        return [struct.unpack("<I", struct.pack("<f", v))[0]]
    if ct == "f64":
        q = struct.unpack("<Q", struct.pack("<d", v))[0]
        return [q & 0xFFFFFFFF, q >> 32]
    v = int(v)
    if ct in ("i64", "u64"):
        q = v & 0xFFFFFFFFFFFFFFFF
        return [q & 0xFFFFFFFF, q >> 32]
    return [v & 0xFFFFFFFF]


def _scalar_load(ct: str, k: int) -> str:
    if ct == "bool":
        return f"p({k}u) != 0u"
    if ct == "u32":
        return f"p({k}u)"
    if ct in ("f32", "i32"):
        return f"bitcast<{ct}>(p({k}u))"
    return f"bitcast<{ct}>(u64(p({k}u)) | (u64(p({k + 1}u)) << 32u))"


def _collapse(shape: tuple, strided: list[tuple]) -> tuple[tuple, list[tuple]]:
    """Drop length-1 dimensions and merge neighbours every operand walks evenly."""
    keep = [k for k, n in enumerate(shape) if n != 1]
    shape = [shape[k] for k in keep]
    strided = [[st[k] for k in keep] for st in strided]
    k = len(shape) - 1
    while k > 0:
        if all(st[k - 1] == st[k] * shape[k] for st in strided):
            shape[k - 1] *= shape[k]
            del shape[k]
            for st in strided:
                st[k - 1] = st[k]
                del st[k]
        k -= 1
    return tuple(shape), [tuple(st) for st in strided]


def _decode(ndim: int) -> list[str]:
    """WGSL lines giving coordinates c0..c{ndim-1} of linear index ``i`` in the
    (collapsed) iteration shape, whose lengths are parameters 1..ndim."""
    lines = ["var r = i;"]
    for dim in range(ndim - 1, 0, -1):
        lines.append(f"let c{dim} = r % p({1 + dim}u); r = r / p({1 + dim}u);")
    lines.append("let c0 = r;")
    return lines


def _strided_index(k: int, ndim: int) -> str:
    """The element index of a strided operand whose offset is parameter ``k`` and whose
    strides (signed) follow it."""
    terms = " + ".join(f"i32(c{dim}) * bitcast<i32>(p({k + 1 + dim}u))" for dim in range(ndim))
    return f"u32(bitcast<i32>(p({k}u)) + {terms or '0'})"



def quad_main_head(span: int, offsets: Any, arrays: Sequence) -> list:
    """The opening lines of a vec4 kernel's main: the quad count, this invocation's first
    quad of its block of ``span``, and each array operand's word offset (parameter
    ``offsets[j]``). The map kernels and the fused ones (fusion.py) share them."""
    return ["@compute @workgroup_size(256)",
            "fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: "
            "vec3<u32>, @builtin(local_invocation_index) l: u32) {",
            "  let nq = (p(0u) + 3u) >> 2u;",
            f"  let base = (w.x + w.y * nw.x) * {span}u + l;"] + [
            f"  let o{j} = p({offsets[j]}u) >> 2u;" for j in arrays]


def operand_bindings(specs: Sequence) -> tuple[list, list]:
    """The parameter block (binding 0) and, for each array operand of ``specs`` (not
    the "k" constants), its binding and loader ``ld<j>``: the WGSL lines and the
    operands' positions. The map kernels and the fused ones (fusion.py) share them."""
    lines = [HEADER]
    arrays = [j for j, (_, lay) in enumerate(specs) if lay != "k"]
    for b, j in enumerate(arrays):
        d = specs[j][0]
        lines.append(f"@group(0) @binding({b + 1}) var<storage, read> x{j}: "
                     f"array<{LAYOUT[d.name][0]}>;")
        lines.append(load_fn(f"ld{j}", f"x{j}", d))
    return lines, arrays

def _helpers(expr: str, specs: tuple, out: DType) -> str:
    """The helpers ``expr`` calls, for the float types of its operands and result and
    for float64 where it calls float64 helpers itself (numr.special's float32 functions
    computed in float64 inside a float32 kernel)."""
    cts = {ctype(d) for d, _ in specs if d.kind == "float"} | {ctype(out)}
    if "_f64(" in expr:
        cts.add("f64")
    return "\n".join(wops.helpers(expr, ct) for ct in sorted(cts))


def source(name: str, expr: str, specs: tuple, out: DType, ndim: int,
           strided_out: bool = False) -> str:
    """WGSL for a map kernel. ``specs``: per operand (dtype, 'c' | 's' | 'k').

    With ``strided_out`` the result is written into a strided view (setitem, assign and
    the joins), one element per invocation; packed dtypes then merge their bits into
    shared words with atomicAnd/atomicOr, so neighbours written by other invocations
    are never lost. The output's offset and strides follow the operands' parameters.
    """
    lines, arrays = operand_bindings(specs)
    per_word = LAYOUT[out.name][2]
    ytype = "atomic<u32>" if strided_out and per_word > 1 else LAYOUT[out.name][0]
    lines.append(f"@group(0) @binding({len(arrays) + 1}) var<storage, read_write> y: "
                 f"array<{ytype}>;")
    lines.append(_helpers(expr, specs, out))
    body = []
    k = 1 + ndim
    if any(lay == "s" for _, lay in specs):
        body += _decode(ndim)
    for j, (d, lay) in enumerate(specs):
        v = _NAMES[j]
        if lay == "c":
            body.append(f"let {v} = ld{j}(p({k}u) + i);")
            k += 1
        elif lay == "s":
            body.append(f"let {v} = ld{j}({_strided_index(k, ndim)});")
            k += 1 + ndim
        else:
            body.append(f"let {v} = {_scalar_load(ctype(d), k)};")
            k += 2 if ctype(d) in ("f64", "i64", "u64") else 1
    oct_ = ctype(out)
    lines.append(f"fn elem(i: u32) -> {oct_} {{\n  " + "\n  ".join(body)
                 + f"\n  return {expr};\n}}")
    main = ("@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) g: "
            "vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {\n"
            "  let t = g.x + g.y * nw.x * 256u;\n  let n = p(0u);\n")
    if strided_out:
        lines.append("fn out_index(i: u32) -> u32 {\n  " + "\n  ".join(_decode(ndim))
                     + f"\n  return {_strided_index(k, ndim)};\n}}")
        main += "  if (t >= n) { return; }\n  let v = elem(t);\n  let e = out_index(t);\n"
        if per_word == 1:
            main += "  y[e] = v;\n}"
        else:
            width = 32 // per_word
            mask = "0xffu" if width == 8 else "0xffffu"
            word = "e >> 2u" if per_word == 4 else "e >> 1u"
            main += (f"  let sh = (e & {per_word - 1}u) * {width}u;\n"
                     f"  atomicAnd(&y[{word}], ~({mask} << sh));\n"
                     f"  atomicOr(&y[{word}], {bits_expr(out, 'v')} << sh);\n}}")
    elif per_word == 1:
        main += "  if (t >= n) { return; }\n  y[t] = elem(t);\n}"
    else:
        width = 32 // per_word
        main += (f"  let i0 = t * {per_word}u;\n  if (i0 >= n) {{ return; }}\n"
                 f"  var w = 0u;\n  for (var j = 0u; j < {per_word}u; j++) {{\n"
                 f"    let i = i0 + j;\n    if (i < n) {{ let v = elem(i); "
                 f"w = w | ({bits_expr(out, 'v')} << (j * {width}u)); }}\n  }}\n"
                 f"  y[t] = w;\n}}")
    lines.append(main)
    return "\n".join(lines)


# vec4 words per operand and invocation in the fast path: NUMR_WEBGPU_MAP_VEC
# (numr/_config.py, read when a launch plan is made, and a plan made under another
# setting is made again: see stale), so a GPU can be swept without code edits. A 256M
# float32 add on the H200, as a share of CuPy's copy bandwidth (2026-11-30): 2 words
# 0.888 and 0.849, 4 words 0.834, 8 words 0.834.
# Below one workgroup's block (4 * vec * WG elements) the scalar kernel serves: speed
# cannot differ there on a GPU, and on lavapipe the vec4 kernel's bounds loop cost ~3 µs
# per tiny dispatch.
_LANES = "xyzw"


def _word(d: DType) -> bool:
    """A dtype stored one 32-bit scalar per element (f32, i32, u32)."""
    st, _, per_word, _ = LAYOUT[d.name]
    return per_word == 1 and st in ("f32", "i32", "u32")


def vectorizable(specs: tuple, out: DType, strided_out: bool) -> bool:
    """Whether the vec4 kernel serves this launch signature (given aligned offsets)."""
    return (not strided_out and _word(out)
            and all(lay == "k" or (lay == "c" and _word(d)) for d, lay in specs))


def vec_bindings(specs: Sequence, outs: Sequence) -> tuple[list, list]:
    """The parameter block and the vec4-word bindings of a contiguous kernel: operand
    ``x{j}`` for each array of ``specs`` (a 'k' operand is a parameter), then each
    ``(name, dtype)`` of ``outs`` read-write; also the indices of the array operands."""
    lines = [HEADER]
    arrays = [j for j, (_, lay) in enumerate(specs) if lay != "k"]
    for b, j in enumerate(arrays):
        lines.append(f"@group(0) @binding({b + 1}) var<storage, read> x{j}: "
                     f"array<vec4<{LAYOUT[specs[j][0].name][0]}>>;")
    for o, (name, d) in enumerate(outs):
        lines.append(f"@group(0) @binding({len(arrays) + 1 + o}) var<storage, read_write> "
                     f"{name}: array<vec4<{LAYOUT[d.name][0]}>>;")
    return lines, arrays


def vec_source(expr: str, specs: tuple, out: DType, vec: int) -> str:
    """WGSL of the contiguous fast path: operands ('c' or 'k' only) and the output are
    read and written as vec4 words from offsets that are multiples of four.

    The last word may reach past the n elements: its extra lanes read other data of the
    same pooled buffer (pool sizes are multiples of 16 bytes) and are written into the
    fresh output's own padding, so no tail loop is needed.
    """
    ot = LAYOUT[out.name][0]
    lines, arrays = vec_bindings(specs, [("y", out)])
    lines.append(_helpers(expr, specs, out))
    body, offsets, k = [], {}, 1
    for j, (d, lay) in enumerate(specs):
        if lay == "c":
            offsets[j] = k
            k += 1
        else:
            body.append(f"let {_NAMES[j]} = {_scalar_load(ctype(d), k)};")
            k += 2 if ctype(d) in ("f64", "i64", "u64") else 1
    args = "".join(f", {_NAMES[j]}: {ctype(specs[j][0])}" for j in arrays)
    lines.append(f"fn elem(i: u32{args}) -> {ctype(out)} {{\n  " + "".join(
        s + "\n  " for s in body) + f"return {expr};\n}}")
    vargs = "".join(f", v{j}: vec4<{LAYOUT[specs[j][0].name][0]}>" for j in arrays)
    lanes = ", ".join("elem(i + %du%s)" % (c, "".join(f", v{j}.{_LANES[c]}" for j in arrays))
                      for c in range(4))
    lines.append(f"fn quad(q: u32{vargs}) -> vec4<{ot}> {{\n  let i = q * 4u;\n"
                 f"  return vec4<{ot}>({lanes});\n}}")
    span = WG * vec
    main = quad_main_head(span, offsets, arrays)
    # A whole block: every load issued before the first store (stores to y may alias
    # the inputs as far as the compiler knows, so it would not hoist them itself).
    main.append(f"  if (base + {span - WG}u < nq) {{")
    for u in range(vec):
        main += [f"    let v{j}_{u} = x{j}[o{j} + base + {u * WG}u];" for j in arrays]
    for u in range(vec):
        va = "".join(f", v{j}_{u}" for j in arrays)
        main.append(f"    y[base + {u * WG}u] = quad(base + {u * WG}u{va});")
    main.append("  } else {")
    main.append(f"    for (var u = 0u; u < {vec}u; u++) {{")
    main.append(f"      let q = base + u * {WG}u;")
    va = "".join(f", x{j}[o{j} + q]" for j in arrays)
    main.append(f"      if (q < nq) {{ y[q] = quad(q{va}); }}")
    main += ["    }", "  }", "}"]
    lines.append("\n".join(main))
    return "\n".join(lines)


class Plan:
    """What a launch signature needs besides its operands' offsets and scalars: the
    pipelines, the fixed parameter words, the workgroup counts, the output's layout.
    Built once per (op, expression, dtypes, shape, strides) and kept in
    ``Runtime.plans``, so a repeated op builds no WGSL, key, collapsed layout or size."""

    __slots__ = ("pipe", "head", "parts", "tail", "groups", "vpipe", "vgroups", "n",
                 "nbytes", "strides", "packer", "kind", "vec")

    def __init__(self, pipe: Any, head: list, parts: list, tail: tuple, groups: int,
                 vpipe: Any, vgroups: int, n: int, nbytes: int, strides: tuple,
                 packer: Any):
        self.pipe = pipe
        self.head = head      # [n, *collapsed shape]
        # per operand: a tuple of its fixed stride words (empty: contiguous), or for a
        # scalar _F32_SCALAR (a 4-byte float, packed inline) or its dtype
        self.parts = parts
        self.tail = tail      # strided output: its stride words (after its offset)
        self.groups = groups
        self.vpipe = vpipe    # the vec4 kernel (None: not eligible); used when aligned
        self.vgroups = vgroups
        self.n = n            # elements
        self.nbytes = nbytes  # bytes of a fresh output
        self.strides = strides  # C strides of a fresh output
        # the parameter words' struct: u32 words, with a 4-byte float scalar packed
        # from the Python float itself ("f")
        self.packer = packer
        # The operand layouts launch binds without its general loop (most calls): one
        # contiguous array, two, an array and a float32 scalar, three arrays (then the
        # parameters are [n, offsets..., scalar]: no strided operand, no collapsed
        # shape); else 0.
        self.kind = _KINDS.get(tuple(parts), 0) if len(head) == 1 and not tail else 0
        # The NUMR_WEBGPU_MAP_VEC it was made under, where that decides its vec4 kernel
        # (see stale); 0 where no setting would give it one.
        self.vec = 0


_F32_SCALAR = "f32"
_KINDS = {((),): 1, ((), ()): 2, ((), _F32_SCALAR): 3, ((), (), ()): 4}
_INTO = 5  # and one array, of any layout, written into a view (setitem, assign)


def _plan(rt: Any, sig: tuple, name: str, expr: str, operands: Sequence[tuple[Any, DType]],
          out: DType, shape: tuple, into: GPUArray | None, vec_ok: bool = True) -> Plan:
    n = math.prod(shape)
    nd = len(shape)
    strided_idx = []
    specs = []
    for j, (x, d) in enumerate(operands):
        if type(x) is not GPUArray:
            specs.append((d, "k"))
        elif x.shape == shape and x.contiguous:
            specs.append((d, "c"))
        else:
            specs.append((d, "s"))
            strided_idx.append(j)
    full = []
    for j in strided_idx:
        x = operands[j][0]
        lead = nd - x.ndim
        full.append([0] * lead + [s if m != 1 else 0 for m, s in zip(x.shape, x.strides)])
    if into is not None:
        full.append(list(into.strides))
    if full:
        cshape, cstrides = _collapse(shape, full)
    else:
        cshape, cstrides = (), []
    ndim = len(cshape)
    parts: list = []
    si = 0
    for d, lay in specs:
        if lay == "k":
            parts.append(_F32_SCALAR if ctype(d) == "f32" and d.itemsize == 4 else d)
        elif lay == "c":
            parts.append(())
        else:
            parts.append(tuple(s & 0xFFFFFFFF for s in cstrides[si]))
            si += 1
    tail = tuple(s & 0xFFFFFFFF for s in cstrides[-1]) if into is not None else ()
    specs_t = tuple(specs)
    strided_out = into is not None
    nbuf = sum(1 for _, lay in specs if lay != "k") + 1
    key = ("map", name, expr, specs_t, out.name, ndim, strided_out)
    pipe = rt.pipeline(key, lambda: source(name, expr, specs_t, out, ndim, strided_out),
                       nbuf)
    vpipe, vgroups = None, 0
    vec = _config.current.webgpu_map_vec
    can = vec_ok and n >= 4 * WG and vectorizable(specs_t, out, strided_out)
    if can and n >= 4 * vec * WG:
        # Note: the key keeps the expression third, where complex.py's runtime wrapper
        # looks for it.
        vkey = ("map-vec4", name, expr, specs_t, out.name, vec)
        vpipe = rt.pipeline(vkey, lambda: vec_source(expr, specs_t, out, vec), nbuf)
        vgroups = -(-n // (4 * vec * WG))
    threads = n if strided_out else -(-n // LAYOUT[out.name][2])
    codes = "I" * (1 + ndim)
    for part in parts:
        if type(part) is tuple:
            codes += "I" * (1 + len(part))
        elif part is _F32_SCALAR:
            codes += "f"
        else:
            codes += "II" if ctype(part) in ("f64", "i64", "u64") else "I"
    if strided_out:
        codes += "I" * (1 + len(tail))
    if len(codes) > SLOT_WORDS:
        raise ValueError(f"webgpu: a kernel needs {len(codes)} parameter words; at most "
                         f"{SLOT_WORDS} (too many dimensions)")
    plan = Plan(pipe, [n, *cshape], parts, tail, -(-threads // WG), vpipe, vgroups, n,
                n * out.itemsize, c_strides(shape), struct.Struct("<" + codes))
    if strided_out:  # kinds 1 to 4 are for fresh outputs (launch relies on it)
        plan.kind = _INTO if len(parts) == 1 and type(parts[0]) is tuple else 0
    if can:
        plan.vec = vec
    return remember(rt, sig, plan)


def stale(plan: Any) -> bool:
    """Whether ``plan`` (map's or fusion.py's, its ``vec`` nonzero) was made under
    another NUMR_WEBGPU_MAP_VEC than the one in force. Plans are cached by signature,
    which leaves the setting out (read on every launch, it would cost each small op);
    callers ask only where ``plan.vec`` is set, one attribute for the plans no setting
    concerns."""
    return plan.vec != _config.current.webgpu_map_vec


def launch(rt: Any, name: str, expr: str, operands: Sequence[tuple[Any, DType]],
           out: DType, shape: tuple, into: GPUArray | None = None,
           result: GPUArray | None = None, vec: bool = True) -> GPUArray:
    """Run a map kernel: ``operands`` are (GPUArray or Python scalar, dtype) pairs, the
    arrays already broadcastable to ``shape``; ``expr`` is the WGSL of the result.

    With ``into`` (a view of ``out`` dtype and ``shape``) the result is written into it
    in place, and ``into`` is returned; no operand may share its buffer (callers copy
    overlapping sources first: a buffer cannot be bound for reading and writing at once).

    ``vec=False`` keeps a compute-bound expression (numr.special's) one element an
    invocation: the vec4 kernel evaluates it for 4 * NUMR_WEBGPU_MAP_VEC elements in
    turn, which made float32 erfinv 4x slower than its float64 kernel on the H200. The
    plan is cached under (name, expr, ...): a name and expression always come with the
    same ``vec``.

    With ``result`` (a pending array of fusion.py: contiguous, of ``out`` and ``shape``)
    the new output becomes its storage, and ``result`` is returned; the caller (fusion.py
    recording it) holds the runtime's section.

    The hot path of every elementwise op: everything that depends only on the signature
    (not on offsets or scalar values) comes from the cached plan.
    """
    # The signature: everything the plan depends on (offsets and scalar values do not),
    # one flat tuple: three entries an operand, its dtype and, for an array, its shape
    # and strides (a scalar: None, None), then into's strides where there is one.
    # Written out for the one and two operands of most calls (a loop, a list and nested
    # tuples cost a third of this function's time on small arrays).
    if len(operands) == 2 and into is None:
        (x, d), (y, e) = operands
        if type(x) is GPUArray:
            if type(y) is GPUArray:
                sig = (name, expr, out, shape, d, x.shape, x.strides, e, y.shape, y.strides)
            else:
                sig = (name, expr, out, shape, d, x.shape, x.strides, e, None, None)
        elif type(y) is GPUArray:
            sig = (name, expr, out, shape, d, None, None, e, y.shape, y.strides)
        else:
            sig = (name, expr, out, shape, d, None, None, e, None, None)
    elif len(operands) == 1:
        x, d = operands[0]
        if into is not None:  # a write into a view (setitem, assign)
            if type(x) is GPUArray:
                sig = (name, expr, out, shape, d, x.shape, x.strides, into.strides)
            else:
                sig = (name, expr, out, shape, d, None, None, into.strides)
        elif type(x) is GPUArray:
            sig = (name, expr, out, shape, d, x.shape, x.strides)
        else:
            sig = (name, expr, out, shape, d, None, None)
    else:
        sig = [name, expr, out, shape]
        for x, d in operands:
            if type(x) is GPUArray:
                sig += (d, x.shape, x.strides)
            else:
                sig += (d, None, None)
        if into is not None:
            sig.append(into.strides)
        sig = tuple(sig)
    plan = rt.plans.get(sig)
    if plan is None or plan.vec and stale(plan):
        if 0 in shape:  # (never a plan: asked only on a miss)
            return new(rt, shape, out) if into is None else into
        plan = _plan(rt, sig, name, expr, operands, out, shape, into, vec)
    kind = plan.kind
    # odd: the operands' offsets or'ed (the vec4 kernel needs multiples of four)
    # (kinds in the order of their frequency: an op of two arrays, a write into a view,
    # an array and a float, one array, three arrays)
    # (x, y: the operands, unpacked for the signature; kinds 1, 2, 3 and _INTO have one
    # or two) (fusion._record_one writes the signature and kinds 1 to 3 out once more,
    # for an op recorded from the pending state: keep them in step)
    if kind == 2:
        odd, off = x.offset, y.offset
        try:  # the slot itself (see GPUArray.storage): a pending operand raises
            blocks = (x._storage.block, y._storage.block)
        except AttributeError:  # ... and its group is recorded now
            blocks = (x.storage.block, y.storage.block)
        params = (plan.n, odd, off)
        odd |= off
    elif kind == _INTO:  # [n, *shape, x's offset, *its strides, into's offset, *strides]
        try:
            blocks = (x._storage.block, into._storage.block)
        except AttributeError:  # pending
            blocks = (x.storage.block, into.storage.block)
        rt.record(plan.pipe, blocks, [*plan.head, x.offset & 0xFFFFFFFF, *plan.parts[0],
                                      into.offset & 0xFFFFFFFF, *plan.tail],
                  plan.groups, plan.packer)
        return into
    elif kind == 3 or kind == 1:
        odd = x.offset
        try:
            blocks = (x._storage.block,)
        except AttributeError:
            blocks = (x.storage.block,)
        if kind == 1:
            params = (plan.n, odd)
        else:
            # y: a Python float, packed as a float32 by plan.packer (beyond its range:
            # the infinity)
            params = (plan.n, odd, y if -F32_BIG < y < F32_BIG else f32_value(y))
    elif kind == 4:
        x, y, z = operands[0][0], operands[1][0], operands[2][0]
        try:
            blocks = (x._storage.block, y._storage.block, z._storage.block)
        except AttributeError:
            blocks = (x.storage.block, y.storage.block, z.storage.block)
        params = (plan.n, x.offset, y.offset, z.offset)
        odd = params[1] | params[2] | params[3]
    else:
        params = plan.head.copy()
        blocks = []
        odd = 0
        for (x, d), part in zip(operands, plan.parts):
            if type(part) is tuple:
                try:
                    blocks.append(x._storage.block)
                except AttributeError:  # pending: its group is recorded now
                    blocks.append(x.storage.block)
                off = x.offset
                odd |= off
                params.append(off & 0xFFFFFFFF)
                if part:
                    params += part
            elif part is _F32_SCALAR:
                params.append(x if -F32_BIG < x < F32_BIG else f32_value(x))
            else:
                params += scalar_words(x, part)
        if into is None:
            blocks = tuple(blocks)
    if into is None:
        # the output's allocation and the dispatch in one runtime call (one lock a call)
        if plan.vpipe is not None and not odd & 3:
            st = rt.record_new(plan.vpipe, blocks, params, plan.vgroups, plan.packer,
                               plan.nbytes, result is not None)
        else:
            st = rt.record_new(plan.pipe, blocks, params, plan.groups, plan.packer,
                               plan.nbytes, result is not None)
        if result is None:
            result = _new(GPUArray)  # GPUArray(st, rt, shape, ...), no __init__ frame
            result.rt = rt
            result.shape = shape
            result.strides = plan.strides
            result.offset = 0
            result.dtype = out
            result.size = plan.n
            result.readonly = False
        result._storage = st
        return result
    else:
        result = into
        params.append(into.offset & 0xFFFFFFFF)
        params += plan.tail
        try:
            blocks.append(into._storage.block)
        except AttributeError:  # a pending array assigned to (x += 1 after x = a + b)
            blocks.append(into.storage.block)
    rt.record(plan.pipe, tuple(blocks), params, plan.groups, plan.packer)
    return result


def contiguous(rt: Any, x: GPUArray) -> GPUArray:
    """``x`` itself if C-contiguous from offset 0, else a contiguous copy."""
    if x.offset == 0 and x.contiguous:
        return x
    return launch(rt, "copy", "a", [(x, x.dtype)], x.dtype, x.shape)


def shape_size(shape: tuple) -> int:
    return math.prod(shape)

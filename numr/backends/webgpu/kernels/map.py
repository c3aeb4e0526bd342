"""The map template: ``out[i] = f(operands at i, i)`` over a C-contiguous output.

Operands are arrays (contiguous in the output's shape: ``e = offset + i``; otherwise
strided with broadcast/negative strides decoded from the output's coordinates) or
Python scalars passed as parameter bits. Adjacent dimensions that every strided operand
walks evenly are merged first, so most kernels see one or two dimensions. A packed
output (bool, 8/16-bit) is written a whole 32-bit word per invocation, so invocations
never race on a word.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Sequence

import numpy as np

from ...._dtypes import DType
from ..array import GPUArray, new
from . import expressions as wops
from .types import LAYOUT, bits_expr, ctype, load_fn

WG = 256
_NAMES = "abcdefgh"


def scalar_words(v: Any, d: DType) -> list[int]:
    """The parameter words of Python scalar ``v`` as a compute value of dtype ``d``."""
    ct = ctype(d)
    if ct == "bool":
        return [1 if v else 0]
    if ct == "f32":
        if d.name == "float16":
            v = float(np.float16(v))  # rounded to the dtype first, as NumPy does
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


def source(name: str, expr: str, specs: tuple, out: DType, ndim: int,
           strided_out: bool = False) -> str:
    """WGSL for a map kernel. ``specs``: per operand (dtype, 'c' | 's' | 'k').

    With ``strided_out`` the result is written into a strided view (setitem, assign and
    the joins), one element per invocation; packed dtypes then merge their bits into
    shared words with atomicAnd/atomicOr, so neighbours written by other invocations
    are never lost. The output's offset and strides follow the operands' parameters.
    """
    lines = ["@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 32>;",
             "fn p(k: u32) -> u32 { return P[k >> 2u][k & 3u]; }"]
    arrays = [j for j, (_, lay) in enumerate(specs) if lay != "k"]
    for b, j in enumerate(arrays):
        d = specs[j][0]
        lines.append(f"@group(0) @binding({b + 1}) var<storage, read> x{j}: "
                     f"array<{LAYOUT[d.name][0]}>;")
        lines.append(load_fn(f"ld{j}", f"x{j}", d))
    per_word = LAYOUT[out.name][2]
    ytype = "atomic<u32>" if strided_out and per_word > 1 else LAYOUT[out.name][0]
    lines.append(f"@group(0) @binding({len(arrays) + 1}) var<storage, read_write> y: "
                 f"array<{ytype}>;")
    cts = {ctype(d) for d, _ in specs if d.kind == "float"}
    helper_text = "\n".join(wops.helpers(expr, ct) for ct in sorted(cts | {ctype(out)}))
    lines.append(helper_text)
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


class Plan:
    """What a launch signature needs besides its operands' offsets and scalars: the
    pipeline, the fixed parameter words, the workgroup count. Built once per
    (op, expression, dtypes, shape, strides) and kept in ``Runtime.plans``, so a
    repeated op builds no WGSL, key or collapsed layout."""

    __slots__ = ("pipe", "head", "parts", "tail", "groups")

    def __init__(self, pipe: Any, head: list, parts: list, tail: tuple, groups: int):
        self.pipe = pipe
        self.head = head      # [n, *collapsed shape]
        self.parts = parts    # per operand: None (scalar) or its fixed stride words
        self.tail = tail      # strided output: its stride words (after its offset)
        self.groups = groups


def _plan(rt: Any, sig: tuple, name: str, expr: str, operands: Sequence[tuple[Any, DType]],
          out: DType, shape: tuple, into: GPUArray | None) -> Plan:
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
            parts.append(None)
        elif lay == "c":
            parts.append(())
        else:
            parts.append(tuple(s & 0xFFFFFFFF for s in cstrides[si]))
            si += 1
    tail = tuple(s & 0xFFFFFFFF for s in cstrides[-1]) if into is not None else ()
    specs_t = tuple(specs)
    strided_out = into is not None
    key = ("map", name, expr, specs_t, out.name, ndim, strided_out)
    pipe = rt.pipeline(key, lambda: source(name, expr, specs_t, out, ndim, strided_out),
                       len(parts) - parts.count(None) + 1)
    threads = n if strided_out else -(-n // LAYOUT[out.name][2])
    plan = Plan(pipe, [n, *cshape], parts, tail, -(-threads // WG))
    if len(rt.plans) >= 8192:
        rt.plans.clear()  # many distinct shapes: start over rather than grow without bound
    rt.plans[sig] = plan
    return plan


_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def launch(rt: Any, name: str, expr: str, operands: Sequence[tuple[Any, DType]],
           out: DType, shape: tuple, into: GPUArray | None = None) -> GPUArray:
    """Run a map kernel: ``operands`` are (GPUArray or Python scalar, dtype) pairs, the
    arrays already broadcastable to ``shape``; ``expr`` is the WGSL of the result.

    With ``into`` (a view of ``out`` dtype and ``shape``) the result is written into it
    in place, and ``into`` is returned; no operand may share its buffer (callers copy
    overlapping sources first: a buffer cannot be bound for reading and writing at once).
    """
    if into is None:
        result = new(rt, shape, out)
        if not result.size:
            return result
    else:
        result = into
        if not into.size:
            return into
    # The signature: everything the plan depends on (offsets and scalar values do not).
    sig = [name, expr, out, shape]
    for x, d in operands:
        sig.append((d, x.shape, x.strides) if type(x) is GPUArray else d)
    if into is not None:
        sig.append(into.strides)
    sig = tuple(sig)
    plan = rt.plans.get(sig)
    if plan is None:
        plan = _plan(rt, sig, name, expr, operands, out, shape, into)
    params = plan.head.copy()
    blocks = []
    for (x, d), part in zip(operands, plan.parts):
        if part is None:
            ct = ctype(d)
            if ct == "f32" and d.itemsize == 4:
                params.append(_U32.unpack(_F32.pack(x))[0])
            else:
                params += scalar_words(x, d)
        else:
            blocks.append(x.storage.block)
            params.append(x.offset & 0xFFFFFFFF)
            if part:
                params += part
    if into is not None:
        params.append(into.offset & 0xFFFFFFFF)
        params += plan.tail
    blocks.append(result.storage.block)
    rt.record(plan.pipe, tuple(blocks), params, plan.groups)
    return result


def contiguous(rt: Any, x: GPUArray) -> GPUArray:
    """``x`` itself if C-contiguous from offset 0, else a contiguous copy."""
    if x.offset == 0 and x.contiguous:
        return x
    return launch(rt, "copy", "a", [(x, x.dtype)], x.dtype, x.shape)


def shape_size(shape: tuple) -> int:
    return math.prod(shape)
